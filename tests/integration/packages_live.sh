#!/usr/bin/env bash
# packages_live: an administrator's life with the packages view, real apt and dnf.
# A store holds the demo's kpack-split run and a newer copy of it (a larger run id, the
# Debian revision and RPM release of its packages). The test runs in a private mount
# namespace; the throwaway system is an overlay of the host's / (upper on a tmpfs) in
# which apt-get, dpkg and the maintainer scripts run chrooted, as on a real machine:
#  - every DEB owns <prefix>/share/doc/<name>/changelog.Debian.gz; no member is dated 1970;
#  - apt: install the top meta package (amdrocm-core) from the older run: every package
#    installed, the maintainer scripts' alternatives (/opt/rocm/core, /opt/rocm/bin...)
#    made; point apt at the newer run and dist-upgrade: every package at the new version,
#    none gone, the links still there; reinstall a base package: no package disappears
#    (dpkg drops a package whose files another one all took, without its prerm);
#    apt-get -s autoremove removes nothing; purge the meta + autoremove: no package, no
#    file under /opt/rocm, no alternative left;
#  - dnf (in a second overlay): install, upgrade to the newer run, reinstall, remove:
#    the same checks.
. "$(dirname "$0")/throwaway_root.sh"
tr_namespace "$@"
. "$(dirname "$0")/lib.sh"
it_init "$@"
for tool in apt-get dpkg; do
	command -v $tool >/dev/null || skip "$tool is not installed"
done
tr_roots 2g

OLD=24205988455-linux
NEW=24205988999-linux
S=$T/store
mkdir -p "$S"
cp -a "$STORE/$OLD" "$S/$OLD"
cp -a "$STORE/$OLD" "$S/$NEW"
sed -i "s/\"github_run_id\": \"${OLD%%-*}\"/\"github_run_id\": \"${NEW%%-*}\"/" \
	"$S/$NEW/manifests/therock_manifest.json"
M=$T/mnt
it_mount fs "$S" "$M" "$T/cache"

# ---- apt ----
tr_mkroot apt "$M" /repo
rm -rf "$R/etc/apt/sources.list" "$R/etc/apt/sources.list.d"
mkdir -p "$R/etc/apt/sources.list.d"
cat >"$R/etc/apt/apt.conf.d/99rockfs-live" <<'EOF'
APT::Sandbox::User "root";
Acquire::Languages "none";
DPkg::Use-Pty "0";
APT::Keep-Downloaded-Packages "0";
EOF
use_run() { echo "deb [trusted=yes] file:/repo/$1/packages/deb stable main" >"$R/etc/apt/sources.list.d/rock.list"; }
apt() {
	local log=$T/apt.$1.log
	shift
	in_root apt-get -q "$@" >"$log" 2>&1 || { tail -30 "$log" >&2; return 1; }
}
# the amdrocm packages installed, "name version" (dpkg -l's 'ii' lines; anything else fails)
installed() {
	in_root dpkg-query -W -f '${db:Status-Abbrev} ${Package} ${Version}\n' 'amdrocm*' 2>/dev/null |
		awk '$1 != "un" {print}' | sort || true
}
# a run's version-revision (every package of a run has its one): the top meta's, as the
# repository says it
ver_of() {
	awk -v p="$top" '$1 == "Package:" {f = $2 == p} f && $1 == "Version:" {print $2; exit}' \
		"$M/$1/packages/deb/dists/stable/main/binary-amd64/Packages"
}
rpm_ver_of() { rpm -qp --qf '%{VERSION}-%{RELEASE}' "$M/$1/packages/rpm/x86_64/$top-"[0-9]*.rpm; }
top=amdrocm-core
# the alternatives amdrocm-core's postinst makes, each pointing into the prefix
check_links() {
	local what=$1 l
	for l in /opt/rocm/core /opt/rocm/core-7 /opt/rocm/bin /opt/rocm/lib; do
		[ -L "$R$l" ] && in_root test -e "$l" ||
			fail "$what: $l is not a link into the install ($(ls -ld "$R$l" 2>&1 || true))"
	done
	in_root update-alternatives --query core >/dev/null 2>&1 || fail "$what: no 'core' alternative"
}

# every DEB owns a file of its own (its changelog), no member dated 1970
for deb in "$M/$OLD/packages/deb/pool/main/"*.deb; do
	pkg=$(dpkg-deb --field "$deb" Package)
	dpkg-deb --contents "$deb" >"$T/contents"
	grep -q " \./opt/rocm/core-7\.13/share/doc/$pkg/changelog\.Debian\.gz\$" "$T/contents" ||
		fail "$pkg: no share/doc/$pkg/changelog.Debian.gz"
	grep -q ' 1970-01-01 ' "$T/contents" && fail "$pkg: members dated 1970"
done

use_run $OLD
apt update.old update || fail "apt-get update ($OLD)"
grep -q "^Package: $top\$" "$M/$OLD/packages/deb/dists/stable/main/binary-amd64/Packages" ||
	fail "$OLD: no $top in the repository"
apt install.old install -y $top || fail "apt-get install $top ($OLD)"
installed >"$T/l.install"
[ -s "$T/l.install" ] || fail "install: no amdrocm package installed"
grep -v "^ii " "$T/l.install" && fail "install: a package is not 'ii'"
grep -v " $(ver_of $OLD)\$" "$T/l.install" && fail "install: a package is not at $(ver_of $OLD)"
awk -v p=$top '$2 == p' "$T/l.install" | grep -q . || fail "install: $top is not installed"
check_links install

use_run $NEW
apt update.new update || fail "apt-get update ($NEW)"
apt upgrade dist-upgrade -y || fail "apt-get dist-upgrade to $NEW"
installed >"$T/l.upgrade"
grep -v "^ii " "$T/l.upgrade" && fail "upgrade: a package is not 'ii'"
grep -v " $(ver_of $NEW)\$" "$T/l.upgrade" && fail "upgrade: a package is not at $(ver_of $NEW)"
diff <(awk '{print $2}' "$T/l.install") <(awk '{print $2}' "$T/l.upgrade") >&2 ||
	fail "upgrade: not the same packages as before it"
check_links upgrade
grep -q 'Noting disappearance' "$T/apt.upgrade.log" && fail "upgrade: dpkg noted a package's disappearance"

base=$(awk '$2 ~ /^amdrocm-base/ {print $2; exit}' "$T/l.upgrade")
[ -n "$base" ] || fail "no amdrocm-base package installed"
apt reinstall install -y --reinstall "${base:-amdrocm-base7.13}" || fail "apt-get install --reinstall $base"
installed >"$T/l.reinstall"
diff "$T/l.upgrade" "$T/l.reinstall" >&2 || fail "reinstall of $base: the installed packages changed"
grep -q 'Noting disappearance' "$T/apt.reinstall.log" && fail "reinstall: dpkg noted a package's disappearance"
check_links reinstall

apt autoremove.s -s autoremove || fail "apt-get -s autoremove"
# (the host's own auto-removable packages are not ours)
grep '^Remv amdrocm' "$T/apt.autoremove.s.log" >&2 && fail "apt-get -s autoremove would remove ROCm packages"

apt purge purge -y $top || fail "apt-get purge $top"
apt autoremove autoremove -y --purge || fail "apt-get autoremove --purge"
installed >"$T/l.purge"
[ -s "$T/l.purge" ] && { cat "$T/l.purge" >&2; fail "purge: packages are left"; }
[ -z "$(find "$R/opt/rocm" ! -type d 2>/dev/null | head -3)" ] ||
	{ find "$R/opt/rocm" ! -type d | head -5 >&2; fail "purge: files left under /opt/rocm"; }
[ -z "$(ls "$R/var/lib/dpkg/alternatives" | grep -E '^(core|core-7|rocm-|hipcc$)')" ] ||
	fail "purge: alternatives left: $(ls "$R/var/lib/dpkg/alternatives" | grep -E '^(core|rocm-)' | tr '\n' ' ')"
[ -z "$(find "$R/etc/alternatives" "$R/usr/bin" -maxdepth 1 -xtype l 2>/dev/null | head -3)" ] ||
	fail "purge: dangling links: $(find "$R/etc/alternatives" "$R/usr/bin" -maxdepth 1 -xtype l | head -3 | tr '\n' ' ')"

# ---- dnf ----
if command -v dnf >/dev/null && command -v rpm >/dev/null && command -v rpmbuild >/dev/null; then
	tr_mkroot dnf "$M" /repo
	dnf_() {
		local log=$T/dnf.$1.log
		shift
		in_root dnf -y --releasever=1 --setopt=reposdir=/dev/null --setopt=install_weak_deps=False \
			--nogpgcheck --disableplugin='*' "$@" >"$log" 2>&1 || { tail -30 "$log" >&2; return 1; }
	}
	# the host is not an RPM system: one package stands for the distribution (what the
	# RPMs of both runs need of it, the maintainer scripts' /bin/sh among them)
	rpm_distro_standin "$R" "$M/$OLD/packages/rpm/x86_64" "$M/$NEW/packages/rpm/x86_64"
	rpms() { in_root rpm -qa --qf '%{NAME} %{VERSION}-%{RELEASE}\n' 2>/dev/null | grep '^amdrocm' | sort || true; }
	repo() { echo "--repofrompath=rock$1,file:///repo/$2/packages/rpm/x86_64"; }
	dnf_ install $(repo 1 $OLD) --repo=rock1 install $top || fail "dnf install $top ($OLD)"
	rpms >"$T/r.install"
	grep -q "^$top " "$T/r.install" || fail "dnf: $top is not installed"
	grep -v " $(rpm_ver_of $OLD)\$" "$T/r.install" && fail "dnf install: a package is not at $(rpm_ver_of $OLD)"
	check_links "dnf install"
	dnf_ upgrade $(repo 2 $NEW) --repo=rock2 upgrade || fail "dnf upgrade to $NEW"
	rpms >"$T/r.upgrade"
	grep -v " $(rpm_ver_of $NEW)\$" "$T/r.upgrade" && fail "dnf upgrade: a package is not at $(rpm_ver_of $NEW)"
	diff <(awk '{print $1}' "$T/r.install") <(awk '{print $1}' "$T/r.upgrade") >&2 ||
		fail "dnf upgrade: not the same packages as before it"
	check_links "dnf upgrade"
	base=$(awk '$1 ~ /^amdrocm-base/ {print $1; exit}' "$T/r.upgrade")
	dnf_ reinstall $(repo 2 $NEW) --repo=rock2 reinstall "${base:-amdrocm-base7.13}" ||
		fail "dnf reinstall $base"
	rpms >"$T/r.reinstall"
	diff "$T/r.upgrade" "$T/r.reinstall" >&2 || fail "dnf reinstall of $base: the installed packages changed"
	check_links "dnf reinstall"
	dnf_ remove remove $(awk '{print $1}' "$T/r.reinstall") || fail "dnf remove"
	rpms >"$T/r.remove"
	[ -s "$T/r.remove" ] && { cat "$T/r.remove" >&2; fail "dnf remove: packages are left"; }
	[ -z "$(find "$R/opt/rocm" ! -type d 2>/dev/null | head -3)" ] ||
		{ find "$R/opt/rocm" ! -type d | head -5 >&2; fail "dnf remove: files left under /opt/rocm"; }
	[ -z "$(find "$R/etc/alternatives" "$R/usr/bin" -maxdepth 1 -xtype l 2>/dev/null | head -3)" ] ||
		fail "dnf remove: dangling links: $(find "$R/etc/alternatives" "$R/usr/bin" -maxdepth 1 -xtype l | head -3 | tr '\n' ' ')"
else
	it_say "note: no dnf, rpm or rpmbuild: the dnf part is skipped"
fi
# the roots' binds of the mount first: else the daemon outlives its unmount
umount -R -l "$NS" || fail "cannot unmount the throwaway roots"
it_finish
