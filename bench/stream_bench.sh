#!/usr/bin/env bash
# Huge members stream (issue 14, section 1): the first read of a >= 1 GB shared library at
# the end of its archive, from a cold mount with an empty cache, side by side with
# extracting the archive (`zstd -dc | tar -x`), in one run.
#
#   bench/stream_bench.sh [BUILD_DIR] [ROUNDS]     (root: drops the page cache)
#
# The library is Debian's librocsparse0 (rocSPARSE 5.3, one 1.3 GB fat shared library),
# fetched with `apt-get download` into $SB_DEBS (default /var/tmp/rockfs-bench-debs); with
# no network, a generated 1 GiB file of the same compressibility class is used instead.
# The artifact: artifact_manifest.txt, 300 small headers, then the library, as TheRock
# compresses it (zstd -3, multithreaded). Before every timed step: sync, drop the page
# cache, and (rockfs) a new empty cache and a new mount. Best of ROUNDS (default 3).
#   cold cat     cat of the library through browse/ vs zstd -dc | tar -x of the archive
#   first bytes  the library's first 64 KiB through browse/ vs zstd -dc | head -c of the
#                archive up to the library's data (the decompressor reaching it)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
rounds=${2:-3}
rockfs=$build/fs/rockfs
. "$top/bench/lib.sh"
[ "$(id -u)" = 0 ] || { echo "stream_bench: needs root (drop_caches)" >&2; exit 2; }
bench_init sbench
debs=${SB_DEBS:-/var/tmp/rockfs-bench-debs}
run=90000000014-linux
store=$work/store
mkdir -p "$debs" "$store/$run" "$work/src/lib" "$work/src/include/rocsparse"

lib=
if ls "$debs"/librocsparse0_*.deb >/dev/null 2>&1 ||
	(cd "$debs" && apt-get download librocsparse0 >/dev/null 2>&1); then
	dpkg-deb -x "$(ls "$debs"/librocsparse0_*.deb | head -n1)" "$work/deb"
	lib=$(find "$work/deb" -type f -name 'librocsparse.so*' -printf '%s %p\n' | sort -n |
		tail -n1 | cut -d' ' -f2)
fi
if [ -n "$lib" ]; then
	mv "$lib" "$work/src/lib/librocsparse.so.0.1"
	what="Debian librocsparse0's librocsparse.so"
else
	python3 - "$work/src/lib/librocsparse.so.0.1" <<'PY'
# 1 GiB of mixed content: runs of code-like bytes that zstd compresses ~4x, like a fat binary
import os, random, sys
r = random.Random(14)
with open(sys.argv[1], "wb") as f:
    words = [os.urandom(8) for _ in range(4096)]
    for _ in range(1024):
        f.write(b"".join(r.choice(words) for _ in range(1 << 17)))
PY
	what="a generated 1 GiB file (no librocsparse0 .deb: offline?)"
fi
rm -rf "$work/deb"
for i in $(seq 300); do printf '/* header %d */\n#pragma once\n' "$i" >"$work/src/include/rocsparse/h$i.h"; done
printf 'include\nlib\n' >"$work/src/artifact_manifest.txt"
archive=$store/$run/sparse_lib_generic.tar.zst
tar -C "$work/src" -c artifact_manifest.txt include lib | zstd -q -3 -T0 -c >"$archive"
(cd "$store/$run" && sha256sum sparse_lib_generic.tar.zst | cut -d' ' -f1 >sparse_lib_generic.tar.zst.sha256sum)
size=$(stat -c %s "$work/src/lib/librocsparse.so.0.1")
# where the library's data starts in the tar stream (its header is the 512 bytes before)
offset=$(python3 - "$archive" <<'PY'
import subprocess, sys, tarfile
z = subprocess.Popen(["zstd", "-dc", sys.argv[1]], stdout=subprocess.PIPE)
with tarfile.open(fileobj=z.stdout, mode="r|") as t:
    for m in t:
        if m.name.endswith("librocsparse.so.0.1"):
            print(m.offset_data)
            break
z.kill()
PY
)
echo "library: $what, $((size >> 20)) MiB; archive $(du -m "$archive" | cut -f1) MiB (zstd -3), data at byte $offset"
echo "machine: $(nproc) CPUs, $(uname -r), $(awk '/MemTotal/ { printf "%d GiB", $2 / 1048576 }' /proc/meminfo)"
echo "load before: $(uptime | sed 's/.*load/load/')"

F=$mnt/$run/browse/sparse_lib_generic/lib/librocsparse.so.0.1
base=() ours=() bfirst=() ofirst=()
for r in $(seq "$rounds"); do
	rm -rf "$work/x" && mkdir "$work/x"
	bench_drop
	base+=("$(timeit sh -c "zstd -dc '$archive' | tar -x -C '$work/x'")")
	rm -rf "$work/x"
	bench_drop
	bfirst+=("$(timeit sh -c "zstd -dc '$archive' 2>/dev/null | head -c $((offset + 65536)) >/dev/null")")

	rm -rf "$work/cache"
	bench_drop
	bench_mount "$store" "$work/cache"
	ours+=("$(timeit sh -c "cat '$F' >/dev/null")")
	cmp -n 1048576 "$F" "$work/src/lib/librocsparse.so.0.1" || { echo "wrong bytes" >&2; exit 1; }
	bench_umount
	rm -rf "$work/cache"
	bench_drop
	bench_mount "$store" "$work/cache"
	ofirst+=("$(timeit sh -c "head -c 65536 '$F' >/dev/null")")
	bench_umount
done
b=$(best "${base[@]}") o=$(best "${ours[@]}") bf=$(best "${bfirst[@]}") of=$(best "${ofirst[@]}")
printf '%-58s %8s s\n' "cold cat: zstd -dc | tar -x of the archive" "$b"
printf '%-58s %8s s   %sx\n' "cold cat: cat of the library through browse/" "$o" "$(ratio "$o" "$b")"
printf '%-58s %8s s\n' "first 64 KiB: zstd -dc | head -c (decompressor reaches it)" "$bf"
printf '%-58s %8s s   +%s s\n' "first 64 KiB: head -c through browse/ (mount to bytes)" "$of" "$(elapsed "$bf" "$of")"
echo "rounds: extract ${base[*]} / cat ${ours[*]} / first ${bfirst[*]} / ${ofirst[*]}"
echo "load after:  $(uptime | sed 's/.*load/load/')"
