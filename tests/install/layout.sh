#!/usr/bin/env bash
# install.layout: DESTDIR=$T/root cmake --install BUILD --prefix /usr/local, then:
#  - exactly the expected files are installed (binaries executable and runnable);
#  - man -l renders rockfs.8 and rockpack.1 without a warning, man finds them under the
#    installed share/man, and the rendered rockpack(1) names every command;
#  - bash-completion's own loader finds the installed completion next to the installed
#    rockpack and it completes the commands; zsh's compinit finds _rockpack;
#  - systemd-analyze verify accepts the example units (when systemd-analyze exists);
#  - as root with /dev/fuse: in a private mount namespace where the installed bin/ is
#    /usr/local/bin, `mount -t fuse.rockfs STORE MNT -o cache=...,_netdev,nofail` and
#    `mount -T FSTAB MNT` with the example fstab line mount the store with the installed
#    rockfs (checked by inode), serve the right bytes, and fusermount3 -u ends the daemon.
# Exit 0 pass, 1 fail, 77 when the mount part cannot run here (not root, no /dev/fuse or
# no unshare) and everything else passed.
set -Eeuo pipefail
export LC_ALL=C
CMAKE=$1 BUILD=$(realpath "$2") STORE=$(realpath "$3")
FAILS=0
fail() {
	printf 'FAIL: %s\n' "$*" >&2
	FAILS=$((FAILS + 1))
}
say() { printf 'install.layout: %s\n' "$*" >&2; }
T=$(mktemp -d "${TMPDIR:-/tmp}/rockfs-install.XXXXXX")
trap 'rm -rf "$T"' EXIT
D=$T/root
P=$D/usr/local

DESTDIR=$D "$CMAKE" --install "$BUILD" --prefix /usr/local >"$T/install.log" 2>&1 ||
	{ cat "$T/install.log" >&2; fail "cmake --install"; exit 1; }

# ---- the files ----
cat >"$T/want" <<'LIST'
usr/local/bin/rockfs
usr/local/bin/rockpack
usr/local/share/bash-completion/completions/rockpack
usr/local/share/doc/rockfs/examples/fstab.example
usr/local/share/doc/rockfs/examples/nginx-rockfs.conf
usr/local/share/doc/rockfs/examples/rockfs-mnt-rock.mount
usr/local/share/doc/rockfs/examples/rockfs-mnt-rock.service
usr/local/share/man/man1/rockpack.1
usr/local/share/man/man8/rockfs.8
usr/local/share/zsh/site-functions/_rockpack
LIST
(cd "$D" && find . -type f -o -type l | sed 's|^\./||' | sort) >"$T/got"
diff -u "$T/want" "$T/got" >"$T/diff" || fail "installed files differ from the list: $(cat "$T/diff")"
for b in rockfs rockpack; do
	[ -x "$P/bin/$b" ] || fail "bin/$b is not executable"
done
"$P/bin/rockpack" --version | grep -qE '^rockpack [0-9]' || fail "the installed rockpack does not run"
"$P/bin/rockfs" --version 2>&1 | grep -qiE 'rockfs.*[0-9]+\.[0-9]+' || fail "the installed rockfs does not run: $("$P/bin/rockfs" --version 2>&1 | head -2)"

# ---- man pages ----
if command -v man >/dev/null; then
	for page in man8/rockfs.8 man1/rockpack.1; do
		MANWIDTH=80 man --warnings -E UTF-8 -l "$P/share/man/$page" >"$T/page.txt" 2>"$T/page.err" ||
			fail "man -l $page: exit $?"
		[ ! -s "$T/page.err" ] || fail "man -l $page: warnings: $(cat "$T/page.err")"
		for s in NAME SYNOPSIS "EXIT STATUS" "SEE ALSO"; do
			grep -q "^$s" "$T/page.txt" || fail "man $page: no $s section"
		done
		grep -qF '`' "$T/page.txt" && fail "man $page: markdown backquotes left in the page"
	done
	MANWIDTH=80 man -l "$P/share/man/man1/rockpack.1" 2>/dev/null >"$T/rp.txt"
	for c in $("$P/bin/rockpack" --help | sed -n 's/^  \([a-z]\+\)  .*/\1/p'); do
		grep -qE "^ +$c( |$)" "$T/rp.txt" || fail "man rockpack: no entry for the command '$c'"
	done
	grep -q 'fuse.rockfs' <(MANWIDTH=80 man -l "$P/share/man/man8/rockfs.8" 2>/dev/null | grep -A3 PRUNEFS) ||
		fail "man rockfs: the updatedb.conf PRUNEFS line is not documented"
	[ "$(man -M "$P/share/man" -w rockpack 2>/dev/null)" = "$P/share/man/man1/rockpack.1" ] ||
		fail "man -M PREFIX/share/man -w rockpack does not find the installed page"
else
	fail "man is not installed (packaging/install-deps.sh installs man-db)"
fi

# ---- bash completion: bash-completion's loader finds it in PREFIX/share (XDG_DATA_DIRS,
# whose default has /usr/local/share and /usr/share) ----
BC=/usr/share/bash-completion/bash_completion
if [ -r "$BC" ]; then
	out=$(PATH=$P/bin:$PATH HOME=$T XDG_DATA_DIRS=$P/share:/usr/share bash --norc --noprofile -c '
		. "$1"
		__load_completion rockpack
		complete -p rockpack
		COMP_WORDS=(rockpack ex); COMP_CWORD=1; COMP_LINE="rockpack ex"; COMP_POINT=11
		_rockpack rockpack ex rockpack
		echo "reply: ${COMPREPLY[*]}"' x "$BC" 2>&1) || fail "bash-completion loading rockpack's completion: $out"
	grep -qx 'complete -F _rockpack rockpack' <<<"$out" ||
		fail "bash-completion did not load the installed completion: $out"
	grep -qx 'reply: export' <<<"$out" || fail "installed bash completion of 'rockpack ex': $out"
else
	fail "bash-completion is not installed (packaging/install-deps.sh installs it)"
fi
if command -v zsh >/dev/null; then
	out=$(HOME=$T zsh -f -c 'fpath=("$1" $fpath); autoload -Uz compinit; compinit -u -d "$HOME/.zcd"; print -r -- ${_comps[rockpack]}' x "$P/share/zsh/site-functions" 2>&1) ||
		fail "zsh compinit with the installed _rockpack: $out"
	[ "$out" = _rockpack ] || fail "zsh: compinit binds rockpack to '$out'"
fi

# ---- the systemd examples ----
EX=$P/share/doc/rockfs/examples
grep -q '^Wants=network-online.target' "$EX/rockfs-mnt-rock.mount" &&
	grep -q '^After=network-online.target' "$EX/rockfs-mnt-rock.mount" ||
	fail "rockfs-mnt-rock.mount does not order itself after network-online.target"
grep -q '^Restart=on-failure' "$EX/rockfs-mnt-rock.service" || fail "rockfs-mnt-rock.service: no Restart=on-failure"
grep -q '^After=network-online.target' "$EX/rockfs-mnt-rock.service" || fail "rockfs-mnt-rock.service: not after network-online.target"
grep -E '^s3://.*fuse\.rockfs' "$EX/fstab.example" | grep -q '_netdev' || fail "fstab.example: the remote store line has no _netdev"
grep -q 'PRUNEFS.*fuse.rockfs' "$EX/fstab.example" || fail "fstab.example: no updatedb PRUNEFS note"
if command -v systemd-analyze >/dev/null; then
	mkdir -p "$T/units"
	cp "$EX/rockfs-mnt-rock.mount" "$T/units/mnt-rock.mount"
	sed "s|/usr/local/bin/rockfs|$P/bin/rockfs|" "$EX/rockfs-mnt-rock.service" >"$T/units/rockfs-mnt-rock.service"
	for u in mnt-rock.mount rockfs-mnt-rock.service; do
		systemd-analyze verify "$T/units/$u" >"$T/sa.out" 2>&1 || fail "systemd-analyze verify $u: $(cat "$T/sa.out")"
		[ ! -s "$T/sa.out" ] || fail "systemd-analyze verify $u: $(cat "$T/sa.out")"
	done
fi

# ---- mount -t fuse.rockfs with the installed program ----
mount_skip=
if [ "$(id -u)" != 0 ]; then
	mount_skip="not root"
elif [ ! -c /dev/fuse ]; then
	mount_skip="no /dev/fuse"
elif ! command -v unshare >/dev/null || ! unshare -m --propagation private true 2>/dev/null; then
	mount_skip="no private mount namespace (unshare -m)"
elif [ ! -d /usr/local/bin ]; then
	mount_skip="no /usr/local/bin to stand in for"
fi
if [ -z "$mount_skip" ]; then
	RUN=24205988455-linux
	mkdir -p "$T/mnt" "$T/mnt2"
	# the fstab example's local line, with this test's paths
	grep -E '^/srv/therock-staging' "$EX/fstab.example" |
		sed -e "s|/srv/therock-staging|$STORE|" -e "s|/mnt/rock|$T/mnt2|" -e "s|/var/cache/rockfs|$T/cache2|" >"$T/fstab"
	[ -s "$T/fstab" ] || fail "fstab.example: no local store line"
	cat >"$T/inner.sh" <<'INNER'
set -u
T=$1 P=$2 STORE=$3 RUN=$4 FAILS=0
fail() { printf 'FAIL: %s\n' "$*" >&2; FAILS=$((FAILS + 1)); }
mount --bind "$P/bin" /usr/local/bin || { fail "bind mount of the installed bin/"; exit 1; }
want=$(stat -L -c '%d:%i' "$P/bin/rockfs")
daemon() { # the pid whose program is the installed rockfs
	local e
	for e in /proc/[0-9]*/exe; do
		[ "$(stat -L -c '%d:%i' "$e" 2>/dev/null)" = "$want" ] && { e=${e#/proc/}; echo "${e%/exe}"; }
	done
}
check() { # NAME MNT CACHE
	local name=$1 mnt=$2 cache=$3 pid f=math-libs/rocRAND/stage/.kpack/rand_lib_gfx1101.kpack
	mountpoint -q "$mnt" || { fail "$name: not mounted"; return; }
	grep -F " $mnt " /proc/self/mounts | grep -q ' fuse\.rockfs ' || fail "$name: /proc/mounts: $(grep -F " $mnt " /proc/self/mounts)"
	pid=$(daemon)
	[ -n "$pid" ] && [ "$(wc -w <<<"$pid")" = 1 ] || fail "$name: want one daemon running the installed rockfs, found '$pid'"
	"$P/bin/rockpack" --cache "$T/rp-cache" -q cat "$STORE" "$RUN" rand_lib_gfx1101 "$f" >"$T/want.bin" ||
		fail "$name: rockpack cat"
	cmp -s "$T/want.bin" "$mnt/$RUN/browse/rand_lib_gfx1101/$f" || fail "$name: the mount serves other bytes"
	[ -d "$cache" ] || fail "$name: -o cache=$cache was not used"
	fusermount3 -u "$mnt" || fail "$name: fusermount3 -u"
	for _ in $(seq 200); do
		[ -z "$pid" ] || [ ! -d "/proc/$pid" ] && break
		sleep 0.1
	done
	[ -z "$pid" ] || [ ! -d "/proc/$pid" ] || { fail "$name: rockfs (pid $pid) still runs after the unmount"; kill "$pid"; }
}
if mount -t fuse.rockfs "$STORE" "$T/mnt" -o "cache=$T/cache,_netdev,nofail" >"$T/m.out" 2>&1; then
	check "mount -t fuse.rockfs" "$T/mnt" "$T/cache"
else
	fail "mount -t fuse.rockfs STORE MNT -o cache=...,_netdev,nofail: $(cat "$T/m.out")"
fi
if mount -T "$T/fstab" "$T/mnt2" >"$T/m2.out" 2>&1; then
	check "the fstab example's line" "$T/mnt2" "$T/cache2"
else
	fail "mount -T FSTAB MNT with the example line ($(cat "$T/fstab")): $(cat "$T/m2.out")"
fi
exit $((FAILS > 0))
INNER
	unshare -m --propagation private bash "$T/inner.sh" "$T" "$P" "$STORE" "$RUN" || fail "mount -t fuse.rockfs with the installed rockfs (above)"
	# nothing is left mounted outside the namespace either
	! mountpoint -q "$T/mnt" || { fail "still mounted"; fusermount3 -u -z "$T/mnt"; }
fi

if [ "$FAILS" -gt 0 ]; then
	say "$FAILS check(s) failed"
	exit 1
fi
if [ -n "$mount_skip" ]; then
	say "mount -t fuse.rockfs not tried: $mount_skip (everything else passed)"
	exit 77
fi
say PASS
