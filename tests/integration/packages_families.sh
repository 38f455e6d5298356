#!/usr/bin/env bash
# packages_families: the single-arch families of a legacy run install the same paths
# (upstream packages each family into /opt/rocm/core-M.m from the same definitions), so
# each family's versioned packages with content conflict with the other families' ones
# (docs/packages.md, "Single-arch families that share paths"). On the demo's legacy run
# (gfx94X-dcgpu, gfx110X-all):
#  - Packages: amdrocm-blas7.13-gfx94x has Conflicts and Replaces naming
#    amdrocm-blas7.13-gfx110x; the repodata's RPM has the Conflicts; the kpack-split run's
#    device packages (distinct files per architecture) declare none;
#  - apt-get -s install of both families' packages is refused for the conflict, before
#    dpkg would fail with "trying to overwrite"; each alone resolves;
#  - dnf likewise (resolving only: --assumeno).
. "$(dirname "$0")/lib.sh"
it_init "$@"
for tool in apt-get dpkg dnf rpmbuild; do
	command -v $tool >/dev/null || skip "$tool is not installed"
done
M=$T/mnt
it_mount fs "$STORE" "$M" "$T/cache"
SPLIT=24205988455-linux
LEGACY=24205988454-linux
A=amdrocm-blas7.13-gfx94x
B=amdrocm-blas7.13-gfx110x
P=$M/$LEGACY/packages/deb/dists/stable/main/binary-amd64/Packages
stanza() { awk -v n="$2" '$0 == "Package: " n {p=1} p && /^$/ {exit} p' "$1"; }
stanza "$P" $A >"$T/a.ctl"
grep -qx "Conflicts: $B" "$T/a.ctl" || { cat "$T/a.ctl" >&2; fail "$A: no 'Conflicts: $B'"; }
grep -qx "Replaces: $B" "$T/a.ctl" || fail "$A: no 'Replaces: $B'"
stanza "$P" $B | grep -qx "Conflicts: $A" || fail "$B: no 'Conflicts: $A'"
stanza "$M/$SPLIT/packages/deb/dists/stable/main/binary-amd64/Packages" amdrocm-blas7.13-gfx1100 |
	grep -q '^Conflicts:' && fail "$SPLIT: a kpack device package declares Conflicts"
f=$(find "$M/$LEGACY/packages/rpm/x86_64" -name "$A-[0-9]*.rpm" -print -quit)
[ -n "$f" ] || fail "$LEGACY: no $A RPM"
[ -z "$f" ] || [ "$(rpm -qp --conflicts "$f" 2>/dev/null)" = "$B" ] ||
	fail "$A.rpm: conflicts '$(rpm -qp --conflicts "$f" 2>/dev/null)', want '$B'"

. "$(dirname "$0")/../apt_sandbox.sh"
apt_root "$T/root" "$M/$LEGACY/packages/deb"
sh "$T/root/apt.sh" update >"$T/update.log" 2>&1 || { cat "$T/update.log" >&2; fail "apt-get update"; }
for p in $A $B; do
	sh "$T/root/apt.sh" install -s "$p" >"$T/one.log" 2>&1 ||
		{ cat "$T/one.log" >&2; fail "apt-get -s install $p"; }
done
if sh "$T/root/apt.sh" install -s $A $B >"$T/both.log" 2>&1; then
	fail "apt-get -s install $A $B: accepted"
else
	grep -q "Conflicts: $B" "$T/both.log" || grep -q "Conflicts: $A" "$T/both.log" ||
		{ cat "$T/both.log" >&2; fail "apt-get -s install $A $B: refused, but not for the conflict"; }
fi

dnf_resolve() {
	local root=$1
	shift
	dnf -q --assumeno --installroot="$root" --releasever=1 --setopt=reposdir=/dev/null \
		--setopt=cachedir="$root.cache" --setopt=install_weak_deps=False --nogpgcheck \
		--disableplugin='*' --repofrompath=rock,"file://$M/$LEGACY/packages/rpm/x86_64" \
		--repo=rock install "$@"
}
for p in $A $B; do
	# the installroot has no distribution: one package stands for what the RPMs need of it
	rpm_distro_standin "$T/dnf-$p" "$M/$LEGACY/packages/rpm/x86_64"
	dnf_resolve "$T/dnf-$p" $p >"$T/dnf-one.log" 2>&1 || : # --assumeno: 1 when resolved
	grep -qi 'conflict\|problem' "$T/dnf-one.log" && { cat "$T/dnf-one.log" >&2; fail "dnf: $p alone does not resolve"; }
	grep -q "Operation aborted" "$T/dnf-one.log" ||
		{ cat "$T/dnf-one.log" >&2; fail "dnf: $p alone does not resolve"; }
done
rpm_distro_standin "$T/dnf-both" "$M/$LEGACY/packages/rpm/x86_64"
dnf_resolve "$T/dnf-both" $A $B >"$T/dnf-both.log" 2>&1 && fail "dnf install $A $B: accepted"
grep -qi "conflicts with $B\|conflicts with $A\|conflicting requests" "$T/dnf-both.log" ||
	{ cat "$T/dnf-both.log" >&2; fail "dnf install $A $B: refused, but not for the conflict"; }
it_say "apt and dnf refuse $A with $B"
it_quiet_log fs
it_finish
