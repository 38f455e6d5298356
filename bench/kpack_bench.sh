#!/usr/bin/env bash
# Benchmark of the kpack split, side by side with copying the same bytes.
#
#   bench/kpack_bench.sh [BUILD_DIR] [GIB] [BUNDLES]
#
# Store: one legacy run whose artifact big_lib_gfx110X-all holds one fat library of GIB
# (default 1) GiB with BUNDLES (default 128) plain bundles, two targets each (bench/mkfat.py).
# It measures, each side by side with `cp` of the fat library (page cache warm):
#   file    rockpack kpack split of the library (parse, rewrite, write the host binary
#           and one .kpack per arch), --compression none and zstd      (goal <= 1.5x)
#   store   rockpack split of the whole run (artifact already ingested by rockpack
#           prefetch); this opens the library through the cache, which re-hashes a
#           blob once per process (SHA-256), so it costs that hash on top
#   rss     peak anonymous memory of each (no full copy of the library in RAM)
#   dist    a fresh mount: list dist/gfx1100 and read every file in it, vs `cat` of the
#           fat library
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
gib=${2:-1}
nb=${3:-128}
. "$top/bench/lib.sh"
bench_init kbench
rockpack=$build/tools/rockpack
# peak anonymous memory (KiB) of a command, sampled every 5 ms from /proc (the process's
# own memory; pages of the mapped library are page cache, shared, not a copy)
peak() { python3 -c 'import subprocess, sys, time
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
anon = 0
while p.poll() is None:
    try:
        for line in open(f"/proc/{p.pid}/status"):
            if line.startswith("RssAnon:"):
                anon = max(anon, int(line.split()[1]))
    except OSError:
        pass
    time.sleep(0.005)
assert p.returncode == 0
print(anon)' "$@"; }

echo "generating a $gib GiB fat library with $nb bundles in $work ..."
lib=$work/libbig.so.1
python3 "$top/bench/mkfat.py" "$lib" "$gib" "$nb"
run=$work/store/50000000001-linux
mkdir -p "$run" "$work/tree/math-libs/big/stage/lib"
printf 'math-libs/big/stage\n' >"$work/tree/artifact_manifest.txt"
ln "$lib" "$work/tree/math-libs/big/stage/lib/libbig.so.1"
(cd "$work/tree" && tar -cf - artifact_manifest.txt math-libs) | zstd -q -1 -T0 -o "$run/big_lib_gfx110X-all.tar.zst"
echo "machine: $(nproc) CPUs, $(uname -r); library $(stat -c %s "$lib") bytes"
echo "ingesting ..."
"$rockpack" --cache "$work/cache" -q prefetch "$work/store" 50000000001-linux

sync
t_cp=$(timeit cp "$lib" "$work/copy.so")
rm -f "$work/copy.so"
sync
t_file=$(timeit "$rockpack" kpack split "$lib" -o "$work/f1" --compression none)
rss_file=$(peak "$rockpack" kpack split "$lib" -o "$work/f2" --compression none)
rm -rf "$work/f1" "$work/f2"
sync
t_filez=$(timeit "$rockpack" kpack split "$lib" -o "$work/f1")
rss_filez=$(peak "$rockpack" kpack split "$lib" -o "$work/f2")
rm -rf "$work/f1" "$work/f2"
sync
t_split=$(timeit "$rockpack" --cache "$work/cache" -q split "$work/store" 50000000001-linux -o "$work/split" --compression none)
rss_split=$(peak "$rockpack" --cache "$work/cache" -q split "$work/store" 50000000001-linux -o "$work/split2" --compression none)
rm -rf "$work/split2"
sync
t_zstd=$(timeit "$rockpack" --cache "$work/cache" -q split "$work/store" 50000000001-linux -o "$work/splitz")
rss_zstd=$(peak "$rockpack" --cache "$work/cache" -q split "$work/store" 50000000001-linux -o "$work/splitz2")
"$rockpack" -q verify "$work/split" >/dev/null
zsize=$(du -sb "$work/splitz" | cut -f1)
rm -rf "$work/splitz" "$work/splitz2"

"$build/fs/rockfs" "$work/store" "$mnt" -f -o cache="$work/cache" 2>"$work/daemon.log" &
pid=$!
for _ in $(seq 100); do mountpoint -q "$mnt" && break; sleep 0.1; done
D=$mnt/50000000001-linux/dist/gfx1100
t_dist=$(timeit sh -c "ls -R '$D' >/dev/null && find '$D' -type f -exec cat {} + >/dev/null")
t_cat=$(timeit sh -c "cat '$lib' >/dev/null")
bytes=$(find "$D" -type f -printf '%s\n' | awk '{s += $1} END {print s}')
fusermount3 -u "$mnt"
wait "$pid" || true
pid=

printf '\n%-44s %10s %10s %8s\n' "measure" "rockfs s" "baseline s" "ratio"
printf '%-44s %10s %10s %8s\n' "kpack split FILE, none vs cp" "$t_file" "$t_cp" "$(ratio "$t_file" "$t_cp")"
printf '%-44s %10s %10s %8s\n' "kpack split FILE, zstd vs cp" "$t_filez" "$t_cp" "$(ratio "$t_filez" "$t_cp")"
printf '%-44s %10s %10s %8s\n' "split STORE RUN, none vs cp" "$t_split" "$t_cp" "$(ratio "$t_split" "$t_cp")"
printf '%-44s %10s %10s %8s\n' "split STORE RUN, zstd vs cp" "$t_zstd" "$t_cp" "$(ratio "$t_zstd" "$t_cp")"
printf '%-44s %10s %10s %8s\n' "dist/gfx1100 list + read all vs cat fat lib" "$t_dist" "$t_cat" "$(ratio "$t_dist" "$t_cat")"
echo "peak anonymous memory (MiB): kpack split none $((rss_file / 1024)), zstd $((rss_filez / 1024));" \
	"split STORE none $((rss_split / 1024)), zstd $((rss_zstd / 1024)) (library $(($(stat -c %s "$lib") >> 20)) MiB)"
echo "dist/gfx1100 holds $bytes bytes; zstd split output $zsize bytes"
