#!/usr/bin/env bash
# The release/ channels of a store of many runs (issue 32 item 4).
#
#   bench/release_bench.sh [BUILD_DIR] [RUNS] [ROUNDS]
#
# Store: RUNS (default 100) copies of the demo's kpack-split run, hard links of its
# archives under new run ids, each with its own manifest saying a nightly version of its
# own day (7.13.0a2026MMDD), so every run adds its own tarballs, wheels and package
# directory to the channels. One mount lists every channel once (every run's tarballs/
# and python/files/ are made: the archives are ingested, and the names each channel takes
# from a run are remembered in the cache); every step then runs on a fresh mount of that
# cache with the page cache dropped (as root): "cold" is the first listing after the
# remount, "warm" the same listing again on that mount (the kernel's entries and
# attributes still cached for `-o timeout`); best of ROUNDS (default 3) each.
#   release/tarball/                          ls -l
#   release/whl-next/ and its project pages   ls -l of it and of every project, cat of
#                                             every index.html
#   release/packages/deb/, packages/rpm/      ls -l
#   release/packages/{deb,rpm}/all/           cat of the all-runs index (Packages;
#                                             repomd.xml and primary)
# against one run's own directories (the newest run): ls -l of RUN/tarballs/,
# RUN/python/files/, RUN/packages/deb/ and RUN/packages/rpm/, cat of its Packages and
# repodata (with the python and packages views made, as a first look makes them). Then, on one more fresh mount: the status
# counters after listing every channel (ingests_done and index_loads: 0 means no archive
# was read), and the daemon's RSS after the mount, after listing every channel, and after
# listing every run's own directories too. Prints the machine's CPUs and load.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
nruns=${2:-100}
rounds=${3:-3}
rockfs=$build/fs/rockfs
. "$top/bench/lib.sh"
bench_init rbench
RUN=24205988455-linux

echo "generating a store of $nruns runs in $work ..."
python3 "$top/tests/demo/mkdemo.py" "$work/demo" --runs split >/dev/null
mkdir -p "$work/store"
for i in $(seq 1 "$nruns"); do
	r=$work/store/$((30000000000 + i))-linux
	cp -al "$work/demo/$RUN" "$r"
	day=$(date -u -d "2026-01-01 + $i days" +%Y%m%d)
	m=$r/manifests/therock_manifest.json
	sed "s/\"rocm_package_version\": \"[^\"]*\"/\"rocm_package_version\": \"7.13.0a$day\"/" \
		"$m" >"$m.new"
	rm "$m"
	mv "$m.new" "$m"
done
last=$((30000000000 + nruns))-linux
rss() { awk '/^VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$pid/status"; }
can_drop=1
bench_drop || { can_drop=0; echo "(not root: the page cache is not dropped)"; }
drop() { if [ $can_drop = 1 ]; then bench_drop; fi; }

R=$mnt/release
tarball() { ls -l "$R/tarball/" >/dev/null; }
whl() { ls -l "$R/whl-next/" "$R"/whl-next/*/ >/dev/null && cat "$R"/whl-next/*/index.html >/dev/null; }
deb() { ls -l "$R/packages/deb/" >/dev/null; }
rpm() { ls -l "$R/packages/rpm/" >/dev/null; }
deb_all() { cat "$R/packages/deb/all/dists/stable/main/binary-amd64/Packages" >/dev/null; }
rpm_all() { cat "$R/packages/rpm/all/repodata/repomd.xml" "$R"/packages/rpm/all/repodata/*primary.xml.gz >/dev/null; }
channels() { tarball && whl && deb && rpm && deb_all && rpm_all; }
run_tarballs() { ls -l "$mnt/$last/tarballs/" >/dev/null; }
run_python() { ls -l "$mnt/$last/python/files/" >/dev/null; }
run_deb() { ls -l "$mnt/$last/packages/deb/" >/dev/null; }
run_rpm() { ls -l "$mnt/$last/packages/rpm/" >/dev/null; }
run_deb_index() { cat "$mnt/$last/packages/deb/dists/stable/main/binary-amd64/Packages" >/dev/null; }
run_rpm_index() { cat "$mnt/$last/packages/rpm/x86_64/repodata/repomd.xml" "$mnt/$last"/packages/rpm/x86_64/repodata/*primary.xml.gz >/dev/null; }
runs_own() { for r in $(ls "$mnt" | grep -- '-linux$'); do ls -l "$mnt/$r/tarballs/" "$mnt/$r/python/files/" \
	"$mnt/$r/packages/deb/" "$mnt/$r/packages/rpm/" >/dev/null; done; }

t0=$(now)
bench_mount "$work/store" "$work/cache"
channels
echo "first listing of every channel ($nruns runs ingested): $(elapsed "$t0" "$(now)") s"
bench_umount

echo "rockfs ($(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)); $nruns runs, best of $rounds"
printf '%-40s %10s %10s %8s\n' step "cold s" "warm s" entries
step() { # name command path-to-count
	local name=$1 cmd=$2 count=$3 cold="" warm="" t n
	for _ in $(seq "$rounds"); do
		drop
		bench_mount "$work/store" "$work/cache"
		t=$(timeit "$cmd")
		cold=$(best "$cold" "$t")
		t=$(timeit "$cmd")
		warm=$(best "$warm" "$t")
		n=$(ls $count | grep -cv -e '^$' -e ':$')
		bench_umount
	done
	printf '%-40s %10s %10s %8s\n' "$name" "$cold" "$warm" "$n"
}
step "release/tarball/" tarball "$R/tarball/"
step "release/whl-next/ + project pages" whl "$R/whl-next/*/"
step "release/packages/deb/" deb "$R/packages/deb/"
step "release/packages/rpm/" rpm "$R/packages/rpm/"
step "release/packages/deb/all/ Packages" deb_all "$R/packages/deb/all/pool/*/"
step "release/packages/rpm/all/ repodata" rpm_all "$R/packages/rpm/all/*/"
step "RUN/tarballs/ (one run)" run_tarballs "$mnt/$last/tarballs/"
step "RUN/python/files/ (one run)" run_python "$mnt/$last/python/files/"
step "RUN/packages/deb/ (one run)" run_deb "$mnt/$last/packages/deb/"
step "RUN/packages/rpm/ (one run)" run_rpm "$mnt/$last/packages/rpm/"
step "RUN/packages/deb/ Packages (one run)" run_deb_index "$mnt/$last/packages/deb/pool/main/"
step "RUN/packages/rpm/ repodata (one run)" run_rpm_index "$mnt/$last/packages/rpm/x86_64/"

drop
bench_mount "$work/store" "$work/cache"
a=$(rss)
t0=$(now)
channels
t1=$(now)
b=$(rss)
st=$(grep -E '^(ingests_done|index_loads):' "$mnt/.rockfs-status" | tr '\n' ' ')
runs_own
c=$(rss)
echo "every channel after a remount: $(elapsed "$t0" "$t1") s; status: $st"
echo "daemon RSS: $a MB after the mount, $b MB after listing every channel," \
	"$c MB after listing every run's own tarballs/, python/files/, packages/{deb,rpm}/"
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
bench_umount
