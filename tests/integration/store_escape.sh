#!/usr/bin/env bash
# store_escape: a local store serves only regular files and directories below its root
# (issue 26, item 1). Tried as an attacker who can write the store, against a root mount
# with allow_other read by another user (nobody): a symlinked artifact pointing at a
# root-only file (/etc/shadow) or into a 0700 directory, a symlinked run directory, a
# FIFO and a device node are not served, with one log line each however often the store
# is listed; an artifact swapped for a symlink or a FIFO after the mount listed it is
# refused when opened (EIO, never the link's bytes, never a hang); the rest of the store
# is served as before.
. "$(dirname "$0")/lib.sh"
it_init "$@"
[ "$(id -u)" = 0 ] || skip "needs root (allow_other, mknod, a second user)"
command -v setpriv >/dev/null || skip "setpriv is not installed"
NOBODY=$(id -u nobody 2>/dev/null) || skip "no user 'nobody'"
as_nobody() { setpriv --reuid="$NOBODY" --regid="$NOBODY" --clear-groups -- "$@"; }
chmod 711 "$T" # nobody walks to the mountpoint, and no further

R=24205988455-linux
S=$T/store
SECRET=secret-do-not-serve-3e1f0a
mkdir -p "$S" "$T/private/run"
cp -r "$STORE/$R" "$S/"
# the attacker's targets: a valid artifact holding the secret, in a 0700 directory
echo "$SECRET" >"$T/secret.txt"
it_mkart "$T/private" priv_lib_generic share/priv "$T/secret.txt:note.txt"
cp -r "$STORE/$R/base_lib_generic.tar.zst"* "$T/private/run/"
chmod 700 "$T/private"
ln -s /etc/shadow "$S/$R/evil_lib_generic.tar.zst"
ln -s "$T/private/priv_lib_generic.tar.zst" "$S/$R/priv_lib_generic.tar.zst"
ln -s ../../private/priv_lib_generic.tar.zst "$S/$R/rel_lib_generic.tar.zst"
ln -s "$T/private/run" "$S/24205988999-linux"
mkfifo "$S/$R/fifo_lib_generic.tar.zst"
mknod "$S/$R/null_lib_generic.tar.zst" c 1 3
# two good artifacts to be swapped after the mount listed them
cp "$S/$R/base_lib_generic.tar.zst" "$S/$R/swap_lib_generic.tar.zst"
cp "$S/$R/base_lib_generic.tar.zst" "$S/$R/pipe_lib_generic.tar.zst"
REFUSED="$R/evil_lib_generic.tar.zst $R/priv_lib_generic.tar.zst $R/rel_lib_generic.tar.zst
24205988999-linux $R/fifo_lib_generic.tar.zst $R/null_lib_generic.tar.zst"

# list_ttl=0: the run's first listing stands, so the swapped entries are met by open
M=$T/mnt
it_mount fs "$S" "$M" "$T/cache" -o allow_other,list_ttl=0
as_nobody ls "$M/$R/artifacts" >"$T/arts" || fail "nobody cannot list artifacts/"
as_nobody ls "$M" >"$T/runs" || fail "nobody cannot list the mount"
for e in $REFUSED; do
	n=$(basename "$e")
	if grep -qxF "$n" "$T/arts" "$T/runs"; then
		fail "'$e' is listed"
	fi
	if as_nobody cat "$M/$R/artifacts/$n" >/dev/null 2>&1 || as_nobody ls "$M/$n" >/dev/null 2>&1; then
		fail "nobody can read '$e'"
	fi
	[ ! -e "$M/$R/browse/${n%.tar.zst}" ] || fail "browse/ has '${n%.tar.zst}'"
done
# the rest is served: what nobody reads is the store's bytes
grep -qx base_lib_generic.tar.zst "$T/arts" || fail "base_lib_generic.tar.zst is not listed"
as_nobody cat "$M/$R/artifacts/base_lib_generic.tar.zst" | cmp - "$S/$R/base_lib_generic.tar.zst" ||
	fail "artifacts/base_lib_generic.tar.zst reads wrong"
as_nobody cat "$M/$R/browse/base_lib_generic/artifact_manifest.txt" >/dev/null ||
	fail "browse/base_lib_generic does not read"
grep -qx swap_lib_generic.tar.zst "$T/arts" || fail "swap_lib_generic.tar.zst is not listed"

# swapped after the listing: a symlink to the secret, a FIFO
ln -sf "$T/private/priv_lib_generic.tar.zst" "$S/$R/swap_lib_generic.tar.zst"
rm "$S/$R/pipe_lib_generic.tar.zst" && mkfifo "$S/$R/pipe_lib_generic.tar.zst"
for n in swap pipe; do
	rc=0
	as_nobody timeout 20 cat "$M/$R/artifacts/${n}_lib_generic.tar.zst" >"$T/$n.out" 2>"$T/$n.err" || rc=$?
	[ "$rc" -ne 124 ] || fail "artifacts/${n}_lib_generic.tar.zst: the read hangs"
	[ "$rc" -ne 0 ] || fail "artifacts/${n}_lib_generic.tar.zst: read after the swap (exit 0)"
	rc=0
	timeout 20 ls "$M/$R/browse/${n}_lib_generic" >"$T/$n.ls" 2>&1 || rc=$?
	[ "$rc" -ne 124 ] || fail "browse/${n}_lib_generic: the listing hangs"
done
if [ -s "$T/swap.out" ] && cmp -s "$T/swap.out" "$T/private/priv_lib_generic.tar.zst"; then
	fail "the swapped symlink's target was served"
fi

# nothing of the secret anywhere in the mount, as nobody or as root
for who in as_nobody ""; do
	if $who timeout 120 find "$M/$R/artifacts" "$M/$R/browse" -type f \
		-exec grep -l "$SECRET" {} + 2>/dev/null | grep -q .; then
		fail "${who:-root}: the secret is served"
	fi
done
sha_shadow=$(sha256sum </etc/shadow | cut -d' ' -f1)
(cd "$M/$R/artifacts" && sha256sum -- * 2>/dev/null | grep -q "$sha_shadow") && fail "/etc/shadow is served"
it_alive fs
it_umount fs

# the log: one line per refused entry naming it, and lines for the swapped ones at open
L=${IT_LOG[fs]}
for e in $REFUSED; do
	c=$(grep -cF "'$e'" "$L" || true)
	[ "$c" = 1 ] || fail "'$e': want one log line, got $c"
done
grep -qF "'$R/evil_lib_generic.tar.zst' is a symlink" "$L" || fail "no log line says the symlink is refused"
grep -qF "'$R/fifo_lib_generic.tar.zst' is a FIFO" "$L" || fail "no log line says the FIFO is refused"
grep -qF "'$R/null_lib_generic.tar.zst' is a character device" "$L" || fail "no log line says the device is refused"
grep -qF "'24205988999-linux' is a symlink" "$L" || fail "no log line says the symlinked run is refused"
grep -qF "swap_lib_generic.tar.zst" "$L" || fail "the swapped artifact's refusal is not logged"

# listed again and again (list_ttl=1): still one line per refused entry
it_mount again "$S" "$T/mnt2" "$T/cache" -o allow_other,list_ttl=1
for i in 1 2 3; do
	ls "$T/mnt2" "$T/mnt2/$R/artifacts" >/dev/null
	sleep 1.1
done
it_umount again
c=$(grep -cF "'$R/evil_lib_generic.tar.zst'" "${IT_LOG[again]}" || true)
[ "$c" = 1 ] || fail "listed again: want one log line for the symlink, got $c"
it_finish
