#!/usr/bin/env bash
# The derived views before and after a change to the engine or a view, side by side in
# one run: two builds on the same store and the same warm rockfs cache.
#
#   bench/views_bench.sh BUILD_A BUILD_B [FILES] [ROUNDS]
#
# Store: the demo's legacy run (four family artifacts, kpack-split into per-target dist
# trees) plus one generic header artifact of FILES (default 15000) small files in 150
# directories, the shape of a real ROCm include tree, so every dist tree and tarball holds
# it. The artifacts are ingested once (rockpack prefetch); every step then runs on a fresh
# mount of that cache (indexes loaded, nothing decompressed) with the page cache dropped
# (as root), and the best of ROUNDS (default 3) is kept:
#   tarballs  first listing of RUN/tarballs/ with the size of every .tar (every release
#             tree flattened and laid out as GNU tar)
#   dist      `find -ls` of RUN/dist/gfx1100 (a per-target tree of a legacy run: the
#             families split by kpack, then flattened)
#   python    first listing of RUN/python/simple/ (every synthesized wheel planned)
#   read      a full read of the largest .tar
# Prints each step for A and B and the ratio B/A (below 1: B is faster).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build_a=$(cd "$1" && pwd)
build_b=$(cd "$2" && pwd)
files=${3:-15000}
rounds=${4:-3}
. "$top/bench/lib.sh"
bench_init vbench

echo "generating the store in $work ..."
python3 "$top/tests/demo/mkdemo.py" "$work/demo" --runs legacy >/dev/null
run=$work/store/24205988454-linux
mkdir -p "$work/store"
mv "$work/demo/24205988454-linux" "$run"
python3 - "$work/hdr" "$files" <<'EOF'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
prefix = "math-libs/hdr/stage"
os.makedirs(root, exist_ok=True)
with open(os.path.join(root, "artifact_manifest.txt"), "w") as f:
    f.write(prefix + "\n")
for i in range(n):
    d = os.path.join(root, prefix, "include", "hdr", "d%03d" % (i % 150))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "h%05d.h" % i), "w") as f:
        f.write("/* header %d */\n#define HDR_%d %d\n" % (i, i, i) + "// pad\n" * (i % 50))
EOF
(cd "$work/hdr" && find math-libs -print | LC_ALL=C sort >"$work/list" &&
	tar --format=gnu --owner=0 --group=0 --mtime=@1767225600 -cf - artifact_manifest.txt \
		--no-recursion -T "$work/list") | zstd -q -3 -o "$run/hdr_dev_generic.tar.zst"
echo "machine: $(nproc) CPUs, $(uname -r); header artifact: $files files"

drop() { sync; if [ "$(id -u)" = 0 ]; then echo 3 >/proc/sys/vm/drop_caches; fi; }
mount_with() {
	"$1/fs/rockfs" "$work/store" "$mnt" -f -o cache="$work/cache" 2>>"$work/daemon.log" &
	pid=$!
	for _ in $(seq 100); do mountpoint -q "$mnt" && break; sleep 0.1; done
	mountpoint -q "$mnt" || { echo "mount failed"; cat "$work/daemon.log"; exit 1; }
}
umount_now() {
	fusermount3 -u "$mnt"
	wait "$pid" || true
	pid=
}
R=$mnt/24205988454-linux
step() { # build name command...
	local b=$1 name=$2 best="" t
	shift 2
	for _ in $(seq "$rounds"); do
		drop
		mount_with "$b"
		t=$(timeit "$@")
		umount_now
		best=$(awk -v a="$t" -v b="${best:-1e9}" 'BEGIN { print (a < b) ? a : b }')
	done
	echo "$best"
}
st_tars() { stat -c %s "$R"/tarballs/*.tar >/dev/null; }
walk() { find "$R/dist/gfx1100" -ls >/dev/null; }
py() { ls "$R/python/simple/" >/dev/null; }
read_tar() { cat "$(ls -S "$R"/tarballs/*.tar | head -1)" >/dev/null; }

echo "ingesting (rockpack prefetch) ..."
"$build_b/tools/rockpack" -q --cache "$work/cache" prefetch "$work/store" 24205988454-linux

printf '\n%-10s %10s %10s %8s\n' step "A (s)" "B (s)" "B/A"
for s in tarballs:st_tars dist:walk python:py read:read_tar; do
	a=$(step "$build_a" "${s%%:*}" "${s#*:}")
	b=$(step "$build_b" "${s%%:*}" "${s#*:}")
	printf '%-10s %10s %10s %8s\n' "${s%%:*}" "$a" "$b" "$(ratio "$b" "$a")"
done
echo "A: $build_a"
echo "B: $build_b"
