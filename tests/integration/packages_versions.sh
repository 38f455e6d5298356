#!/usr/bin/env bash
# packages_versions: the package versions of runs of every release type TheRock makes
# order as PEP 440 orders their wheel versions (docs/packages.md, "Versions"). A store made
# here holds one small run per kind, each a base_lib_generic artifact (amdrocm-baseM.m)
# and a manifest naming its rocm_package_version and run id; the artifacts' times are set
# to a day of the build, and must not matter (a copy or an upload changes them). In PEP
# 440 order (the run ids fall as the versions rise, so the version decides, not the Debian
# revision / RPM Release; but between two dev builds of one base, which carry no day, the
# run id decides, so those two rise):
#   dev, dev (a later run), nightly 2025-11-21, nightly-bkc, rc1, rc2, release, the next
#   minor's dev
# For each run, amdrocm-baseM.m's DEB (Packages) and RPM (rpm -qp) versions are the
# expected strings, and each is lower than the next by dpkg --compare-versions and by
# rpm's rpmvercmp (rpm.vercmp, what dnf orders by).
. "$(dirname "$0")/lib.sh"
it_init "$@"
for tool in dpkg rpm zstd; do
	command -v $tool >/dev/null || skip "$tool is not installed"
done

S=$T/store
mkdir -p "$S" "$T/b"
printf 'rocm-core\n' >"$T/b/f"
# run id, wheel version, artifacts' day, DEB version, RPM version
cat >"$T/runs" <<'RUNS'
30000000107 7.13.0.dev0+1111aaaa2222bbbb3333cccc4444dddd5555eeee 2025-11-20 7.13.0~~dev 7.13.0~~dev
30000000108 7.13.0.dev0+eeee0000ffff1111222233334444555566667777 2025-11-29 7.13.0~~dev 7.13.0~~dev
30000000206 7.13.0a20251121 2025-11-21 7.13.0~20251121 7.13.0~a20251121
30000000205 7.13.0a20251121+bkc.20251125 2025-11-25 7.13.0~20251121.bkc.20251125 7.13.0~a20251121.bkc.20251125
30000000204 7.13.0rc1 2025-12-01 7.13.0~pre1 7.13.0~rc1
30000000203 7.13.0rc2 2025-12-02 7.13.0~pre2 7.13.0~rc2
30000000202 7.13.0 2025-12-10 7.13.0 7.13.0
30000000201 7.14.0.dev0+9999 2025-11-01 7.14.0~~dev 7.14.0~~dev
RUNS
while read -r id wheel day deb rpm; do
	R=$S/$id-linux
	mkdir -p "$R/manifests"
	printf '{"github_run_id": "%s", "rocm_package_version": "%s"}\n' "$id" "$wheel" \
		>"$R/manifests/therock_manifest.json"
	it_mkart "$R" base_lib_generic base/rocm-core/stage "$T/b/f:lib/rocm-core.txt"
	touch -d "${day}T12:00:00Z" "$R"/base_lib_generic.tar.zst*
done <"$T/runs"

M=$T/mnt
it_mount fs "$S" "$M" "$T/cache"
prev_deb= prev_rpm=
while read -r id wheel day deb rpm; do
	P=$M/$id-linux/packages
	n=amdrocm-base$(echo "$wheel" | cut -d. -f1,2)
	got=$(awk -v n="$n" '$0 == "Package: " n {p=1} p && /^Version:/ {print $2; exit}' \
		"$P/deb/dists/stable/main/binary-amd64/Packages") ||
		fail "$id: no Packages"
	[ "$got" = "$deb-$id" ] || fail "$wheel: DEB version '$got', want '$deb-$id'"
	f=$(find "$P/rpm/x86_64" -name "$n-[0-9]*.rpm" -print -quit)
	[ -n "$f" ] || { fail "$id: no $n RPM"; continue; }
	got_rpm=$(rpm -qp --qf '%{VERSION}-%{RELEASE}' "$f" 2>/dev/null)
	[ "$got_rpm" = "$rpm-$id" ] || fail "$wheel: RPM version '$got_rpm', want '$rpm-$id'"
	if [ -n "$prev_deb" ]; then
		dpkg --compare-versions "$prev_deb" lt "$got" ||
			fail "dpkg: $prev_deb is not lower than $got"
		c=$(rpm --eval "%{lua: print(rpm.vercmp(\"$prev_rpm\", \"$got_rpm\"))}")
		[ "$c" = -1 ] || fail "rpm: $prev_rpm is not lower than $got_rpm ($c)"
	fi
	prev_deb=$got prev_rpm=$got_rpm
done <"$T/runs"
it_say "$(wc -l <"$T/runs") runs in PEP 440 order: dpkg and rpm agree"
it_quiet_log fs
it_finish
