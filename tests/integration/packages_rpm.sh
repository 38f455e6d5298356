#!/usr/bin/env bash
# packages_rpm: RUN/packages/rpm/x86_64/ of both demo runs as rpm, createrepo_c and dnf
# see it.
#  - rpm -K (digests) and rpm -qp read every package; the name is TheRock's
#    ({name}-{version}-{run id}.x86_64.rpm); rpm2cpio extracts it and every file equals the
#    file of the same path in the run's dist/ tree (RUNPATH -> RPATH aside, see
#    packages_deb.sh);
#  - createrepo_c run on a copy of the packages is the oracle of repodata/: the same
#    packages, checksums, sizes, requires and provides;
#  - dnf --installroot from the mounted file:// repository installs a device package of
#    the kpack-split run with its host package, and a single-arch package of the legacy
#    run; the installed files are the packages' files;
#  - sha256 of every file is the same from a second mount and from rockpack packages.
. "$(dirname "$0")/lib.sh"
it_init "$@"
for tool in rpm rpm2cpio cpio createrepo_c dnf readelf; do
	command -v $tool >/dev/null || skip "$tool is not installed"
done
[ "$(id -u)" = 0 ] || skip "dnf --installroot needs root"

M=$T/mnt
it_mount fs "$STORE" "$M" "$T/cache"
SPLIT=24205988455-linux
LEGACY=24205988454-linux

check_rpm() {
	local run=$1 f=$2 name nvr release x rel found d
	name=${f##*/}
	rpm -K "$f" >"$T/k" 2>&1 && grep -q 'digests OK' "$T/k" || { cat "$T/k" >&2; fail "$run/$name: rpm -K"; }
	# (one rpm -qp for both: each reads the package's header from the mount anew)
	read -r nvr release < <(rpm -qp --qf '%{NAME}-%{VERSION}-%{RELEASE}.%{ARCH} %{RELEASE}\n' "$f" 2>/dev/null) || true
	[ "$name" = "$nvr.rpm" ] || fail "$run/$name: rpm -qp says $nvr"
	[ "$release" = "${run%%-*}" ] || fail "$run/$name: release is not the run id"
	x=$T/x/$run/${nvr%%-[0-9]*}
	mkdir -p "$x"
	(cd "$x" && rpm2cpio "$f" | cpio -idm --quiet) || fail "$run/$name: rpm2cpio | cpio"
	while IFS= read -r -d '' g; do
		rel=${g#"$x"/opt/rocm/core-*/}
		found=
		for d in "$M/$run"/dist/*/; do
			[ -e "$d$rel" ] || [ -L "$d$rel" ] || continue
			if [ -L "$g" ]; then
				[ "$(readlink "$g")" = "$(readlink "$d$rel")" ] && found=1
			elif cmp -s "$g" "$d$rel"; then
				found=1
			elif [ "$(cmp -l "$g" "$d$rel" 2>/dev/null | wc -l)" = 1 ] &&
				readelf -d "$g" 2>/dev/null | grep -q '(RPATH)'; then
				found=1
			fi
			[ -n "$found" ] && break
		done
		[ -n "$found" ] || fail "$run/$name: $rel is in no dist tree of the run"
	done < <(find "$x" -mindepth 1 \( -type f -o -type l \) -print0)
}

# primary.xml.gz of a repository as sorted lines: name ver rel pkgid size requires provides
primary() {
	python3 - "$1" <<'PY'
import gzip, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
ns = {"r": "http://linux.duke.edu/metadata/repo", "c": "http://linux.duke.edu/metadata/common",
      "rpm": "http://linux.duke.edu/metadata/rpm"}
md = ET.parse(d + "/repodata/repomd.xml").getroot()
href = [x.find("r:location", ns).get("href") for x in md.findall("r:data", ns) if x.get("type") == "primary"][0]
root = ET.fromstring(gzip.open(d + "/" + href).read())
for p in root.findall("c:package", ns):
    v = p.find("c:version", ns)
    f = p.find("c:format", ns)
    rel = lambda tag: sorted((e.get("name"), e.get("flags"), e.get("ver"), e.get("rel"))
                             for e in f.findall("rpm:%s/rpm:entry" % tag, ns))
    print(p.find("c:name", ns).text, v.get("ver"), v.get("rel"), p.find("c:checksum", ns).text,
          p.find("c:size", ns).get("package"), p.find("c:location", ns).get("href"),
          rel("requires"), rel("provides"))
PY
}

for run in $SPLIT $LEGACY; do
	X=$M/$run/packages/rpm/x86_64
	ls "$X" | grep '\.rpm$' >"$T/$run.list" || fail "$run: no packages"
	while read -r f; do
		check_rpm "$run" "$X/$f"
	done <"$T/$run.list"
	# createrepo_c, on a copy, is the oracle of repodata/
	mkdir -p "$T/cr/$run"
	cp "$X"/*.rpm "$T/cr/$run/"
	createrepo_c -q --no-database --simple-md-filenames "$T/cr/$run" || fail "$run: createrepo_c"
	primary "$X" | sort >"$T/$run.ours" || fail "$run: our repodata does not parse"
	primary "$T/cr/$run" | sort >"$T/$run.theirs"
	diff "$T/$run.theirs" "$T/$run.ours" >"$T/$run.diff" ||
		{ head -5 "$T/$run.diff" >&2; fail "$run: repodata differs from createrepo_c's"; }
done

dnf_install() {
	local root=$1 repo=$2
	shift 2
	dnf -y -q --installroot="$root" --releasever=1 --setopt=reposdir=/dev/null \
		--setopt=cachedir="$root.cache" --setopt=install_weak_deps=False --nogpgcheck \
		--disableplugin='*' --repofrompath=rock,"file://$repo" --repo=rock install "$@"
}
# the installroot has no distribution: one package stands for what the RPMs need of it
rpm_distro_standin "$T/root-split" "$M/$SPLIT/packages/rpm/x86_64"
it_say "the distribution's packages the RPMs of $SPLIT name: $(tr '\n' ' ' <"$T/distro-standin.provides")"
dnf_install "$T/root-split" "$M/$SPLIT/packages/rpm/x86_64" amdrocm-blas7.13-gfx1100 \
	>"$T/dnf.log" 2>&1 || { cat "$T/dnf.log" >&2; fail "dnf install amdrocm-blas7.13-gfx1100 ($SPLIT)"; }
rpm -q --root="$T/root-split" amdrocm-blas-host7.13 >/dev/null ||
	fail "$SPLIT: installing the gfx1100 device package did not pull its host package"
for p in $(rpm -qa --root="$T/root-split" --qf '%{NAME}\n' | grep '^amdrocm'); do
	rpm -ql --root="$T/root-split" "$p" | while read -r f; do
		[ -f "$T/root-split$f" ] && [ ! -L "$T/root-split$f" ] || continue
		cmp -s "$T/root-split$f" "$T/x/$SPLIT/$p$f" || echo "$p: $f"
	done
done >"$T/installed.diff"
[ -s "$T/installed.diff" ] && { head "$T/installed.diff" >&2; fail "$SPLIT: installed files differ from their packages"; }
rpm_distro_standin "$T/root-legacy" "$M/$LEGACY/packages/rpm/x86_64"
dnf_install "$T/root-legacy" "$M/$LEGACY/packages/rpm/x86_64" amdrocm-blas7.13-gfx94x \
	>"$T/dnf2.log" 2>&1 || { cat "$T/dnf2.log" >&2; fail "dnf install amdrocm-blas7.13-gfx94x ($LEGACY)"; }

# determinism: a second mount with its own cache, and rockpack packages
it_mount fs2 "$STORE" "$T/mnt2" "$T/cache2"
(cd "$M/$SPLIT/packages/rpm" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$T/a.sums"
(cd "$T/mnt2/$SPLIT/packages/rpm" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$T/b.sums"
cmp -s "$T/a.sums" "$T/b.sums" || fail "$SPLIT: a second mount serves other bytes"
"$ROCKPACK" -q --cache "$T/cache3" packages "$STORE" $SPLIT --type rpm -o "$T/out" ||
	fail "rockpack packages --type rpm"
(cd "$T/out" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$T/c.sums"
cmp -s "$T/a.sums" "$T/c.sums" || fail "$SPLIT: rockpack packages writes other bytes than the mount"
it_finish
