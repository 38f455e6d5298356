#!/usr/bin/env bash
# Benchmarks for the tarballs view, side by side with what a release engineer runs today.
#
#   bench/tarball_bench.sh [BUILD_DIR] [GIB]
#
# Store: the demo's legacy run plus one generic artifact of GIB (default 2; 0 for the demo
# alone) GiB, so both family tarballs hold the big artifact (they share > 90% of their
# bytes). With the
# artifacts ingested (read once through browse/), it measures:
#   zst    first full read of dist X's .tar.zst vs `tar -cf - . | zstd -3 -T0` of the
#          extracted tree                                        (goal <= 1.0x)
#   zst2   the second family's .tar.zst, sharing the big files     (goal <= 0.2x of zst)
#   gz     first full read of .tar.gz vs `tar czf` (and `pigz` when installed)
#   tar    random 4 KiB reads of the .tar: median latency
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
gib=${2:-2}
. "$top/bench/lib.sh"
bench_init tbench
echo "generating the store in $work ..."
python3 "$top/tests/demo/mkdemo.py" "$work/demo" --runs legacy >/dev/null
run=$work/store/24205988454-linux
mkdir -p "$work/store"
mv "$work/demo/24205988454-linux" "$run"
if [ "$gib" != 0 ]; then # GIB 0: the demo store alone
	python3 "$top/tests/demo/mkdemo.py" "$work/large" --large-gib "$gib" >/dev/null
	cp "$work/large/90000000001-linux"/bigdata_lib_generic.tar.zst* "$run/"
fi
echo "machine: $(nproc) CPUs, $(uname -r); zstd $(zstd -V | grep -o 'v[0-9.]*')"

"$build/fs/rockfs" "$work/store" "$mnt" -f -o cache="$work/cache" 2>"$work/daemon.log" &
pid=$!
for _ in $(seq 100); do mountpoint -q "$mnt" && break; sleep 0.1; done
R=$mnt/24205988454-linux
VER=7.13.0.dev0+abc1234
A=$R/tarballs/therock-dist-linux-gfx110X-all-$VER
B=$R/tarballs/therock-dist-linux-gfx94X-dcgpu-$VER

echo "ingesting (reading every artifact once through browse/) ..."
find "$R/browse" -type f -exec cat {} + >/dev/null
du -sh "$R/dist/gfx110X-all" 2>/dev/null | awk '{ print "dist/gfx110X-all: " $1 }'
mkdir -p "$work/extracted" && tar -xf "$A.tar" -C "$work/extracted"

base_zst=$(timeit sh -c "cd '$work/extracted' && tar -cf - . | zstd -3 -T0 -q > '$work/base.tar.zst'")
rock_zst=$(timeit sh -c "cat '$A.tar.zst' > /dev/null")
rock_zst2=$(timeit sh -c "cat '$B.tar.zst' > /dev/null")
base_gz=$(timeit sh -c "cd '$work/extracted' && tar -czf '$work/base.tar.gz' .")
rock_gz=$(timeit sh -c "cat '$A.tar.gz' > /dev/null")
printf '%-46s %8s s\n' "tar -cf - . | zstd -3 -T0 (baseline)" "$base_zst"
printf '%-46s %8s s   %sx baseline\n' "first full read of .tar.zst" "$rock_zst" "$(ratio "$rock_zst" "$base_zst")"
printf '%-46s %8s s   %sx the first\n' "second family's .tar.zst (shares the big files)" "$rock_zst2" "$(ratio "$rock_zst2" "$rock_zst")"
printf '%-46s %8s s\n' "tar czf (baseline)" "$base_gz"
if command -v pigz >/dev/null; then
	base_pigz=$(timeit sh -c "cd '$work/extracted' && tar -cf - . | pigz > '$work/base.pigz'")
	printf '%-46s %8s s\n' "tar -cf - . | pigz" "$base_pigz"
fi
printf '%-46s %8s s   %sx tar czf\n' "first full read of .tar.gz" "$rock_gz" "$(ratio "$rock_gz" "$base_gz")"
printf '%-46s %8s / %s bytes (zstd -3 -T0: %s)\n' "sizes .tar.zst / .tar" "$(stat -c %s "$A.tar.zst")" "$(stat -c %s "$A.tar")" "$(stat -c %s "$work/base.tar.zst")"
python3 - "$B.tar" <<'PY'
import os, random, statistics, sys, time
p = sys.argv[1]
size = os.stat(p).st_size
rnd = random.Random(1)
lat = []
with open(p, "rb", buffering=0) as f:
    for _ in range(2000):
        off = rnd.randrange(0, size - 4096)
        t = time.perf_counter()
        os.pread(f.fileno(), 4096, off)
        lat.append(time.perf_counter() - t)
print(f"{'.tar random 4 KiB pread (2000 reads)':<46} median {statistics.median(lat) * 1e6:.0f} us, p99 {sorted(lat)[int(len(lat) * .99)] * 1e6:.0f} us")
PY
grep -h "pieces" "$work/daemon.log" | sed 's/^/daemon: /' || true
