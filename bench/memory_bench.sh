#!/usr/bin/env bash
# Memory of a mount that serves many runs (issue 30 item 3).
#
#   bench/memory_bench.sh [BUILD_DIR] [RUNS] [PASSES] [-- ROCKFS OPTIONS...]
#
# Store: RUNS (default 1000) copies of the demo's kpack-split run, hard links of its
# files under new run ids. The runs are ingested once before the first pass (one walk of
# every run, then a remount), so the passes measure a daemon serving a warm cache. Each
# pass walks every run's browse/ and dist/ with `find -ls` and reads one file of each
# run (its dist/ lib/llvm config header), then drops the kernel's dentries and inodes
# (`echo 2 > /proc/sys/vm/drop_caches`: the kernel then FORGETs them), waits until the
# daemon has settled (at least 7 s: runs unused for 5 s are dropped at the next tick;
# then until it is under its target or has dropped nothing for 5 s, at most 120 s) and
# prints the daemon's RSS at the end of the walk and once settled, how long settling
# took, and what its status file says of memory. PASSES defaults to 10. Options
# after -- go to rockfs (-o memory_target=64M). Needs root to drop the caches (without
# it, it says so and the kernel forgets nothing). MB_KEEP_CACHES=1: no drop_caches (as
# on a machine without memory pressure); the daemon asks the kernel to forget the runs
# only its cache holds once unused for 30 s, so settling waits at least 40 s.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
nruns=${2:-1000}
passes=${3:-10}
shift $(($# < 3 ? $# : 3))
[ "${1:-}" = -- ] && shift
rockfs=$build/fs/rockfs
. "$top/bench/lib.sh"
bench_init mbench
RUN=24205988455-linux
READ=dist/gfx1100/lib/llvm/include/llvm/Config/llvm-config.h

can_drop=0 settle_min=7
if [ "${MB_KEEP_CACHES:-0}" = 1 ]; then
	settle_min=40
	echo "(MB_KEEP_CACHES=1: the kernel's inodes are not dropped; the daemon asks it to forget)"
elif [ -w /proc/sys/vm/drop_caches ] && echo 2 >/proc/sys/vm/drop_caches 2>/dev/null; then
	can_drop=1
else
	echo "(not root: the kernel's inodes are not dropped, nothing is forgotten)"
fi
forget() { if [ $can_drop = 1 ]; then echo 2 >/proc/sys/vm/drop_caches; fi; }
rss() { awk '/^VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$pid/status"; }

echo "generating a store of $nruns runs in $work ..."
python3 "$top/tests/demo/mkdemo.py" "$work/demo" --runs split >/dev/null
mkdir -p "$work/store"
for i in $(seq 1 "$nruns"); do
	cp -al "$work/demo/$RUN" "$work/store/$((30000000000 + i))-linux"
done
runs=$(ls "$work/store")
walk() {
	for r in $runs; do
		find "$mnt/$r/browse" "$mnt/$r/dist" -ls >/dev/null
		cat "$mnt/$r/$READ" >/dev/null
	done
}

bench_mount "$work/store" "$work/cache" "$@"
t0=$(now)
walk
echo "ingest walk of $nruns runs: $(elapsed "$t0" "$(now)") s, RSS $(rss) MB"
bench_umount
bench_mount "$work/store" "$work/cache" "$@"
echo "rockfs $* ($(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)); RSS after mount $(rss) MB"
for p in $(seq 1 "$passes"); do
	t0=$(now)
	walk
	t1=$(now)
	held=$(rss)
	forget
	# settled: runs unused for 5 s go at the next tick (1 s); wait until the daemon is
	# under its target or has dropped nothing for 5 s (at least settle_min s, at most
	# 120 s more), and say how long that took (on a loaded machine the kernel's FORGETs
	# and the drops take a while)
	t2=$(now) last=-1 same=0
	for _ in $(seq $((240 + 2 * settle_min))); do
		sleep 0.5
		st=$(grep -E '^(memory_used|memory_target|runs_dropped):' "$mnt/.rockfs-status" | cut -d' ' -f2 | xargs)
		read -r target used dropped <<<"$st"
		[ "$used" -le "$target" ] && [ "$(elapsed "$t2" "$(now)" | cut -d. -f1)" -ge $settle_min ] && break
		if [ "$dropped" = "$last" ]; then same=$((same + 1)); else same=0 last=$dropped; fi
		[ "$same" -ge 10 ] && [ "$(elapsed "$t2" "$(now)" | cut -d. -f1)" -ge $settle_min ] && break
	done
	mem=$(grep -E '^(memory|runs_dropped|runs_loaded)' "$mnt/.rockfs-status" | tr '\n' ' ' || true)
	echo "pass $p: $(elapsed "$t0" "$t1") s, RSS at its end $held MB;" \
		"settled after $(elapsed "$t2" "$(now)") s: RSS $(rss) MB; load $(cut -d' ' -f1 /proc/loadavg); $mem"
done
bench_umount
