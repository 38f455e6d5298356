#!/usr/bin/env bash
# Tree walks (issue 14 section 2), side by side with the same trees on local disk.
#
#   bench/walk_bench.sh [BUILD_DIR] [ROUNDS]
#
# Store: the demo's kpack-split run plus two generated generic artifacts: a header tree
# of 15,600 entries in 1,200 directories (the shape of a real ROCm include tree) and a
# second one of 6,000 small files, so that the run's dist/gfx110X-all holds 20k+ files.
# The run is ingested once (rockpack prefetch); each rockfs step runs on that cache.
# Best of ROUNDS (default 3) for each step:
#   warm find   `find -ls` of browse/hdr_dev_generic again, kernel caches warm, vs the
#               extracted tree (goal <= 1.2x)
#   remount     `find -ls` of the same tree right after a remount, page cache dropped
#               (sync; drop_caches), vs the extracted tree, page cache dropped (<= 1.5x)
#   ls -lR      `ls -lR` of the header tree, warm (stat and extended attributes per entry)
#   cp -a       `cp -a` of dist/gfx110X-all after a remount, page cache dropped
#   rsync       `rsync -a` of dist/gfx110X-all after a remount, page cache dropped, vs
#               `rsync -a` of the same tree on local disk, page cache dropped (<= 1.3x)
# Then the FUSE round trips of each step, counted in the daemon's -d output (a
# separate, untimed mount). Needs root to drop the page cache (without it the cold
# numbers are warm-page-cache numbers, and it says so).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
rounds=${2:-3}
rockfs=$build/fs/rockfs
rockpack=$build/tools/rockpack
. "$top/bench/lib.sh"
bench_init wbench
RUN=24205988455-linux
FAM=gfx110X-all

can_drop=0
if [ -w /proc/sys/vm/drop_caches ] && sync && echo 3 >/proc/sys/vm/drop_caches 2>/dev/null; then
	can_drop=1
fi
drop() { if [ $can_drop = 1 ]; then sync; echo 3 >/proc/sys/vm/drop_caches; fi; }

echo "generating the store in $work ..."
python3 "$top/tests/demo/mkdemo.py" "$work/demo" --runs split >/dev/null
mkdir -p "$work/store"
mv "$work/demo/$RUN" "$work/store/$RUN"
# NAME DIRS FILES: a generic artifact NAME_dev_generic of FILES small files spread over
# DIRS directories two levels deep (as include/<lib>/<sub>/ trees are)
mkart() {
	python3 - "$work/gen-$1" "$1" "$2" "$3" <<'EOF'
import os, sys
root, name, ndirs, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
prefix = "math-libs/%s/stage" % name
os.makedirs(root, exist_ok=True)
with open(os.path.join(root, "artifact_manifest.txt"), "w") as f:
    f.write(prefix + "\n")
tops = max(1, ndirs // 30)
dirs = []
for t in range(tops):
    for s in range(ndirs // tops):
        dirs.append(os.path.join(root, prefix, "include", "%s%02d" % (name, t), "sub%02d" % s))
for d in dirs:
    os.makedirs(d, exist_ok=True)
for i in range(n):
    d = dirs[i % len(dirs)]
    with open(os.path.join(d, "h%05d.h" % i), "w") as f:
        f.write("/* %s header %d */\n#define %s_%d %d\n" % (name, i, name.upper(), i, i) +
                "// pad\n" * (i % 300))
EOF
	(cd "$work/gen-$1" && find math-libs -print | LC_ALL=C sort >"$work/list-$1" &&
		tar --format=gnu --owner=0 --group=0 --mtime=@1767225600 -cf - \
			artifact_manifest.txt --no-recursion -T "$work/list-$1") |
		zstd -q -3 -o "$work/store/$RUN/$1_dev_generic.tar.zst"
	rm -rf "$work/gen-$1"
}
mkart hdr 1200 14400
mkart extra 200 6000

mount_rk() { bench_mount "$work/store" "$work/cache" "$@"; } # [daemon args...]

HDR=$RUN/browse/hdr_dev_generic
DIST=$RUN/dist/$FAM
echo "ingesting (rockpack prefetch) ..."
"$rockpack" -q --cache "$work/cache" prefetch "$work/store" "$RUN"
echo "the same trees on local disk ..."
mount_rk
mkdir -p "$work/local"
cp -a "$mnt/$HDR" "$work/local/hdr"
rsync -a "$mnt/$DIST/" "$work/local/dist/"
bench_umount
local_find() { find "$work/local/hdr" -ls >/dev/null; }
rk_find() { find "$mnt/$HDR" -ls >/dev/null; }
local_rsync() { rsync -a "$work/local/dist/" "$work/dst/"; }
rk_rsync() { rsync -a "$mnt/$DIST/" "$work/dst/"; }
local_lsl() { ls -lR "$work/local/hdr" >/dev/null; }
rk_lsl() { ls -lR "$mnt/$HDR" >/dev/null; }
local_cpa() { cp -a "$work/local/dist" "$work/dst"; }
rk_cpa() { cp -a "$mnt/$DIST" "$work/dst"; }
echo "machine: $(nproc) CPUs, $(uname -r), fuse $(pkg-config --modversion fuse3 2>/dev/null || echo '?')"
echo "load: $(uptime)"
echo "header tree: $(find "$work/local/hdr" | wc -l) entries, $(find "$work/local/hdr" -type d | wc -l) directories;" \
	"dist/$FAM: $(find "$work/local/dist" -type f | wc -l) files, $(find "$work/local/dist" | wc -l) entries"
[ $can_drop = 1 ] || echo "(not root: the page cache is not dropped; cold steps are warm)"

wl=
wr=
ll=
lr=
cl=
cr=
rl=
rr=
sl=
sr=
for _ in $(seq "$rounds"); do
	# warm: a walk of each, then the timed one
	local_find
	wl=$(best "$(timeit local_find)" "$wl")
	local_lsl
	ll=$(best "$(timeit local_lsl)" "$ll")
	mount_rk
	rk_find
	wr=$(best "$(timeit rk_find)" "$wr")
	rk_lsl
	lr=$(best "$(timeit rk_lsl)" "$lr")
	bench_umount
	# after a remount, page cache dropped
	drop
	rl=$(best "$(timeit local_find)" "$rl")
	drop
	mount_rk
	rr=$(best "$(timeit rk_find)" "$rr")
	bench_umount
	# rsync -a of the dist tree into an empty directory, after a remount
	rm -rf "$work/dst"
	drop
	sl=$(best "$(timeit local_rsync)" "$sl")
	rm -rf "$work/dst"
	drop
	mount_rk
	sr=$(best "$(timeit rk_rsync)" "$sr")
	bench_umount
	# cp -a of the dist tree, after a remount
	rm -rf "$work/dst"
	drop
	cl=$(best "$(timeit local_cpa)" "$cl")
	rm -rf "$work/dst"
	drop
	mount_rk
	cr=$(best "$(timeit rk_cpa)" "$cr")
	bench_umount
done
diff -r -q "$work/local/dist" "$work/dst" >/dev/null || { echo "rsync copied a different tree" >&2; exit 1; }

# round trips, from the daemon's debug output (FUSE opcodes of one step)
seen=0
count() { # "OPCODE count ..." of the requests logged since the last call, into $counted
	local n
	n=$(wc -l <"$work/rt.log")
	counted=$(tail -n +"$((seen + 1))" "$work/rt.log" | head -n "$((n - seen))" |
		sed -n 's/.*opcode: \([A-Z_]*\).*/\1/p' | sort | uniq -c | sort -rn |
		awk '{ printf "%s %s  ", $2, $1 }')
	seen=$n
}
rt_mount() {
	"$rockfs" "$work/store" "$mnt" -d -o cache="$work/cache" >"$work/rt.log" 2>&1 &
	pid=$!
	for _ in $(seq 300); do mountpoint -q "$mnt" && break; sleep 0.05; done
	stat "$mnt" >/dev/null
	seen=0
	count
}
drop
rt_mount
rk_find; count; c_first=$counted
rk_find; count; c_warm=$counted
bench_umount
drop
rt_mount
rm -rf "$work/dst"; rk_rsync; count; c_rsync=$counted
rk_lsl; count; c_lsl=$counted
rm -rf "$work/dst"; rk_cpa; count; c_cpa=$counted
bench_umount

printf '\n%-34s %10s %10s %8s %6s\n' step "rockfs (s)" "local (s)" ratio goal
printf '%-34s %10s %10s %8s %6s\n' "find -ls, warm" "$wr" "$wl" "$(ratio "$wr" "$wl")" 1.2
printf '%-34s %10s %10s %8s %6s\n' "find -ls after a remount" "$rr" "$rl" "$(ratio "$rr" "$rl")" 1.5
printf '%-34s %10s %10s %8s %6s\n' "rsync -a dist/$FAM, remount" "$sr" "$sl" "$(ratio "$sr" "$sl")" 1.3
printf '%-34s %10s %10s %8s %6s\n' "ls -lR of the header tree, warm" "$lr" "$ll" "$(ratio "$lr" "$ll")" -
printf '%-34s %10s %10s %8s %6s\n' "cp -a dist/$FAM, remount" "$cr" "$cl" "$(ratio "$cr" "$cl")" -
echo
echo "round trips (FUSE opcodes):"
echo "  find -ls after a remount: $c_first"
echo "  find -ls again (warm):    ${c_warm:-none}"
echo "  rsync -a after a remount: $c_rsync"
echo "  ls -lR of the header tree: $c_lsl"
echo "  cp -a (after the rsync):  $c_cpa"
