#!/usr/bin/env bash
# packages_recipes: the package recipes run as documented, their lines taken from the docs:
#  - README.md's apt recipe (the "Using it" block): the rockfs line's -o options (as root,
#    allow_other), then its `echo "deb ..." >/etc/apt/sources.list.d/rock.list` and
#    `apt-get update && apt-get install ...` lines verbatim, in a throwaway system (an
#    overlay of the host's /, chrooted, the mount at /mnt/rock), apt as configured by
#    Debian: its methods sandboxed as _apt. The same lines against a mount without
#    allow_other fail as the issue saw ("Permission denied"), so the check is a real one;
#  - README.md's second `echo "deb ..."` line (release/packages/deb/all/, every run) with
#    the same apt-get line, in another throwaway root;
#  - packages/README's dnf recipe (the line the mount serves, "..." given a package, -y
#    and --releasever added) on the host's stock dnf.conf (gpgcheck=True): it installs.
. "$(dirname "$0")/throwaway_root.sh"
tr_namespace "$@"
. "$(dirname "$0")/lib.sh"
it_init "$@"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
for tool in apt-get dpkg; do
	command -v $tool >/dev/null || skip "$tool is not installed"
done
getent passwd _apt >/dev/null || skip "no _apt user: apt does not sandbox here"
tr_roots 1g

# README.md's "Using it" block, continuations joined
python3 - "$SRC/README.md" >"$T/block" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
sec = re.search(r"^## Using it\n(.*?)(?=^## )", t, re.S | re.M).group(1)
block = "\n".join(l[4:] for l in sec.splitlines() if l.startswith("    "))
print(block.replace("\\\n", " "))
PY
strip() { sed -E 's/[[:space:]]+#[^"]*$//'; } # a trailing comment
mount_line=$(grep -E '^rockfs STORE /mnt/rock -o [^ ]*allow_other' "$T/block" | head -1)
echo_lines=$(grep -E '^echo "deb .*file:/mnt/rock/.*/etc/apt/sources\.list\.d/' "$T/block" | strip)
# the first: a run's repository; a second: release/'s all-runs repository
echo_line=$(head -n 1 <<<"$echo_lines")
all_line=$(sed -n 2p <<<"$echo_lines")
apt_line=$(grep -E '^apt-get update && apt-get install ' "$T/block" | strip)
[ -n "$mount_line" ] && [ -n "$echo_line" ] && [ -n "$apt_line" ] ||
	die "README.md has no apt recipe (rockfs ... allow_other, echo \"deb ...\", apt-get): $(cat "$T/block")"
opts=$(echo "$mount_line" | sed -E 's/^rockfs STORE \/mnt\/rock -o ([^ ]*).*/\1/' |
	tr ',' '\n' | grep -vE '^(cache|cache_size)=' | paste -sd, -)
[[ ",$opts," == *,allow_other,* ]] || die "the README's mount line has no allow_other: $mount_line"
echo "mount: -o $opts; $echo_line; $apt_line" >&2

# mkroot NAME MNT: a throwaway root with MNT at /mnt/rock, and no apt sources of the host
mkroot() {
	tr_mkroot "$1" "$2" /mnt/rock
	rm -rf "$R/etc/apt/sources.list" "$R/etc/apt/sources.list.d"
	mkdir -p "$R/etc/apt/sources.list.d"
}

# without allow_other: apt's sandbox user is refused (the issue's failure)
it_mount plain "$STORE" "$T/plain" "$T/cache.plain"
mkroot plain "$T/plain"
in_root sh -c "$echo_line && $apt_line -y" >"$T/apt.plain.log" 2>&1 &&
	fail "apt against a mount without allow_other worked: the recipe test proves nothing"
grep -q 'Permission denied' "$T/apt.plain.log" ||
	{ tail -20 "$T/apt.plain.log" >&2; fail "apt without allow_other: not 'Permission denied'"; }
umount -R -l "$NS/plain/root" # the root's bind first: else the daemon outlives its unmount
it_umount plain

# the recipe
IFS=, read -ra o <<<"$opts"
args=()
for x in "${o[@]}"; do args+=(-o "$x"); done
it_mount fs "$STORE" "$T/mnt" "$T/cache" "${args[@]}"
M=$T/mnt
mkroot apt "$M"
in_root sh -c "$echo_line && $apt_line -y" >"$T/apt.log" 2>&1 ||
	{ tail -30 "$T/apt.log" >&2; fail "README.md's apt recipe failed"; }
pkg=${apt_line##* }
in_root dpkg-query -W -f '${db:Status-Abbrev}\n' "$pkg" | grep -q '^ii' ||
	fail "README.md's apt recipe: $pkg is not installed"
# the all-runs repository's line, with the same apt-get line, in a root of its own
if [ -n "$all_line" ]; then
	mkroot apt-all "$M"
	in_root sh -c "$all_line && $apt_line -y" >"$T/apt-all.log" 2>&1 ||
		{ tail -30 "$T/apt-all.log" >&2; fail "README.md's all-runs apt recipe failed"; }
	in_root dpkg-query -W -f '${db:Status-Abbrev}\n' "$pkg" | grep -q '^ii' ||
		fail "README.md's all-runs apt recipe: $pkg is not installed"
fi

# packages/README's dnf line, on the stock dnf.conf
if command -v dnf >/dev/null && command -v rpmbuild >/dev/null; then
	grep -qiE '^gpgcheck *= *(1|true|yes)' /etc/dnf/dnf.conf ||
		die "/etc/dnf/dnf.conf is not stock: no gpgcheck=True"
	run=$(sed -nE 's|.*file:/mnt/rock/([^/]*)/packages/deb.*|\1|p' <<<"$echo_line")
	dnf_line=$(sed -n '/^  rpm\//,/^$/p' "$M/$run/packages/README" | sed 1d | tr -d '\\' |
		tr -s ' \n' ' ' | sed -E 's/^ //; s/ $//')
	case $dnf_line in dnf\ *install\ ...) ;; *) die "packages/README: no dnf line: $dnf_line" ;; esac
	dnf_line=${dnf_line//<mount>\/<run>/\/mnt\/rock\/$run}
	dnf_line="${dnf_line% ...} -y --releasever=1 $pkg"
	echo "dnf: $dnf_line" >&2
	mkroot dnf "$M"
	# the host is not an RPM system: one package in its database stands for the distribution
	rpm_distro_standin "$R" "$M/$run/packages/rpm/x86_64"
	in_root sh -c "$dnf_line" >"$T/dnf.log" 2>&1 ||
		{ tail -30 "$T/dnf.log" >&2; fail "packages/README's dnf recipe failed"; }
	in_root rpm -q "$pkg" >/dev/null || fail "packages/README's dnf recipe: $pkg is not installed"
fi
umount -R -l "$NS" || fail "cannot unmount the throwaway roots"
it_finish
