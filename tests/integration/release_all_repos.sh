#!/usr/bin/env bash
# release_all_repos: release/packages/{deb,rpm}/all/ (one repository over every run) and
# latest, followed by real apt and dnf as a nightly user would (packages_live's harness:
# a private mount namespace, throwaway roots overlaid on the host's /).
#  - a store with one run (the demo's kpack-split run); the mount signs (-o sign_key) and
#    lists the store again after list_ttl;
#  - latest points at the run's directory; all/'s InRelease and repomd.xml.asc verify;
#  - apt (signed-by the key) and dnf (gpgcheck=1 with all/RPM-GPG-KEY) point once at
#    all/ and install the top meta package;
#  - a newer run (a larger run id: newer versions) is added to the store; once the store
#    is listed again, latest points at it and both indexes hold both runs' versions;
#  - apt-get update && apt-get upgrade, and dnf upgrade, move every package to the newer
#    run's version, the sources unchanged.
. "$(dirname "$0")/throwaway_root.sh"
tr_namespace "$@"
. "$(dirname "$0")/lib.sh"
it_init "$@"
for tool in apt-get dpkg gpg gpgv; do
	command -v $tool >/dev/null || skip "$tool is not installed"
done
tr_roots 2g
export GNUPGHOME=$T/gnupg
mkdir -m 700 "$GNUPGHOME"
gpg -q --batch --passphrase '' --quick-gen-key 'rockfs test <test@rockfs.invalid>' ed25519 sign never 2>/dev/null ||
	skip "gpg cannot make a key here"
gpg -q --export test@rockfs.invalid >"$T/key.gpg"

OLD=24205988455-linux
NEW=24205988999-linux
S=$T/store
mkdir -p "$S"
cp -a "$STORE/$OLD" "$S/$OLD"
M=$T/mnt
it_mount fs "$S" "$M" "$T/cache" -o list_ttl=1,sign_key=test@rockfs.invalid
P=$M/release/packages
top=amdrocm-core

# the directory of a run in a channel: <YYYYMMDD>-<run id>
dir_of() { ls "$P/$1" | grep -- "-${2%-linux}\$"; }
OLDD=$(dir_of deb $OLD)
[ -n "$OLDD" ] || fail "release/packages/deb/ has no directory of $OLD"
for k in deb rpm; do
	[ "$(readlink "$P/$k/latest")" = "$OLDD" ] || fail "$k/latest -> $(readlink "$P/$k/latest"), not $OLDD"
done
A=$P/deb/all
gpgv --keyring "$T/key.gpg" "$A/dists/stable/InRelease" 2>"$T/v1" || { cat "$T/v1" >&2; fail "all/ InRelease does not verify"; }
gpgv --keyring "$T/key.gpg" "$P/rpm/all/repodata/repomd.xml.asc" "$P/rpm/all/repodata/repomd.xml" 2>"$T/v2" ||
	{ cat "$T/v2" >&2; fail "all/ repomd.xml.asc does not verify"; }
# every file the index names is there (a link into the run's view)
awk '$1 == "Filename:" {print $2}' "$A/dists/stable/main/binary-amd64/Packages" >"$T/files"
[ -s "$T/files" ] || fail "deb/all/: an empty index"
while read -r f; do
	[ -L "$A/$f" ] && [ -f "$A/$f" ] || fail "deb/all/$f: not a link to a file"
done <"$T/files"

# ---- apt and dnf point once at all/ and install ----
tr_mkroot apt "$M" /repo
RA=$R
rm -rf "$RA/etc/apt/sources.list" "$RA/etc/apt/sources.list.d"
mkdir -p "$RA/etc/apt/sources.list.d" "$RA/etc/apt/keyrings"
cp "$T/key.gpg" "$RA/etc/apt/keyrings/rock.gpg"
cat >"$RA/etc/apt/apt.conf.d/99rockfs-live" <<'EOF'
APT::Sandbox::User "root";
Acquire::Languages "none";
DPkg::Use-Pty "0";
APT::Keep-Downloaded-Packages "0";
EOF
echo "deb [signed-by=/etc/apt/keyrings/rock.gpg] file:/repo/release/packages/deb/all stable main" \
	>"$RA/etc/apt/sources.list.d/rock.list"
apt() {
	local log=$T/apt.$1.log
	shift
	R=$RA in_root apt-get -q "$@" >"$log" 2>&1 || { tail -30 "$log" >&2; return 1; }
}
installed() {
	R=$RA in_root dpkg-query -W -f '${db:Status-Abbrev} ${Package} ${Version}\n' 'amdrocm*' 2>/dev/null |
		awk '$1 != "un" {print}' | sort || true
}
# a run's version-revision (every package of a run has its one), as its own repository says
ver_of() {
	awk -v p="$top" '$1 == "Package:" {f = $2 == p} f && $1 == "Version:" {print $2; exit}' \
		"$M/$1/packages/deb/dists/stable/main/binary-amd64/Packages"
}
apt update.1 update || fail "apt-get update"
apt install install -y $top || fail "apt-get install $top from all/"
installed >"$T/l.install"
[ -s "$T/l.install" ] || fail "install: no amdrocm package installed"
grep -v " $(ver_of $OLD)\$" "$T/l.install" && fail "install: a package is not at $(ver_of $OLD)"

DNF=0
if command -v dnf >/dev/null && command -v rpm >/dev/null && command -v rpmbuild >/dev/null; then
	DNF=1
	tr_mkroot dnf "$M" /repo
	RD=$R
	dnf_() {
		local log=$T/dnf.$1.log
		shift
		R=$RD in_root dnf -y --releasever=1 --setopt=reposdir=/dev/null --setopt=install_weak_deps=False \
			--disableplugin='*' --repofrompath=rock,file:///repo/release/packages/rpm/all --repo=rock \
			--setopt=rock.gpgcheck=1 --setopt=rock.gpgkey=file:///repo/release/packages/rpm/all/RPM-GPG-KEY \
			"$@" >"$log" 2>&1 || { tail -30 "$log" >&2; return 1; }
	}
	rpms() { R=$RD in_root rpm -qa --qf '%{NAME} %{VERSION}-%{RELEASE}\n' 2>/dev/null | grep '^amdrocm' | sort || true; }
	rpm_ver_of() { rpm -qp --qf '%{VERSION}-%{RELEASE}' "$M/$1/packages/rpm/x86_64/$top-"[0-9]*.rpm; }
	# the distribution the RPMs need, for both runs (the newer is a copy: the same needs)
	rpm_distro_standin "$RD" "$M/$OLD/packages/rpm/x86_64"
	dnf_ install install $top || fail "dnf install $top from all/"
	rpms >"$T/r.install"
	grep -q "^$top " "$T/r.install" || fail "dnf: $top is not installed"
	grep -v " $(rpm_ver_of $OLD)\$" "$T/r.install" && fail "dnf install: a package is not at $(rpm_ver_of $OLD)"
else
	it_say "note: no dnf, rpm or rpmbuild: the dnf part is skipped"
fi

# ---- a newer run appears ----
cp -a "$STORE/$OLD" "$T/$NEW"
sed -i "s/\"github_run_id\": \"${OLD%%-*}\"/\"github_run_id\": \"${NEW%%-*}\"/" \
	"$T/$NEW/manifests/therock_manifest.json"
mv "$T/$NEW" "$S/$NEW"
# the store is listed again after list_ttl (1 s): wait for it, bounded (not a time assert)
for i in $(seq 1 60); do
	[ "$(readlink "$P/deb/latest" 2>/dev/null)" = "$(dir_of deb $NEW 2>/dev/null)" ] && break
	sleep 1
done
NEWD=$(dir_of deb $NEW)
[ -n "$NEWD" ] || fail "release/packages/deb/ has no directory of $NEW after a minute"
for k in deb rpm; do
	[ "$(readlink "$P/$k/latest")" = "$NEWD" ] || fail "$k/latest -> $(readlink "$P/$k/latest"), not $NEWD"
done
# both runs' versions in one index each
awk -v p="$top" '$1 == "Package:" {f = $2 == p} f && $1 == "Version:" {print $2}' \
	"$A/dists/stable/main/binary-amd64/Packages" | sort >"$T/vers"
printf '%s\n' "$(ver_of $OLD)" "$(ver_of $NEW)" | sort >"$T/vers.want"
diff "$T/vers.want" "$T/vers" >&2 || fail "deb/all/: $top's versions are not both runs'"
gpgv --keyring "$T/key.gpg" "$A/dists/stable/InRelease" 2>"$T/v3" || { cat "$T/v3" >&2; fail "all/ InRelease does not verify (2 runs)"; }
zcat "$P/rpm/all/repodata/primary.xml.gz" >"$T/primary.xml"
for d in $OLDD $NEWD; do
	grep -q "<location href=\"$d/$top-[0-9]" "$T/primary.xml" || fail "rpm/all/: no $top of $d"
	f=$(grep -o "<location href=\"$d/$top-[0-9][^\"]*" "$T/primary.xml" | head -1 | cut -d'"' -f2)
	[ -L "$P/rpm/all/$f" ] && [ -f "$P/rpm/all/$f" ] || fail "rpm/all/$f: not a link to a file"
done

# ---- upgrade, the sources unchanged ----
apt update.2 update || fail "apt-get update (2 runs)"
apt upgrade upgrade -y || fail "apt-get upgrade"
installed >"$T/l.upgrade"
grep -v "^ii " "$T/l.upgrade" && fail "upgrade: a package is not 'ii'"
grep -v " $(ver_of $NEW)\$" "$T/l.upgrade" && fail "apt-get upgrade: a package is not at $(ver_of $NEW)"
diff <(awk '{print $2}' "$T/l.install") <(awk '{print $2}' "$T/l.upgrade") >&2 ||
	fail "apt-get upgrade: not the same packages as before it"
if [ $DNF = 1 ]; then
	# (--refresh: dnf keeps a repository's metadata for metadata_expire, 48 hours)
	dnf_ upgrade upgrade --refresh || fail "dnf upgrade"
	rpms >"$T/r.upgrade"
	grep -v " $(rpm_ver_of $NEW)\$" "$T/r.upgrade" && fail "dnf upgrade: a package is not at $(rpm_ver_of $NEW)"
	diff <(awk '{print $1}' "$T/r.install") <(awk '{print $1}' "$T/r.upgrade") >&2 ||
		fail "dnf upgrade: not the same packages as before it"
fi
umount -R -l "$NS" || fail "cannot unmount the throwaway roots"
it_finish
