#!/usr/bin/env bash
# Benchmarks for the browse view, side by side with what a user would otherwise run.
#
#   bench/browse_bench.sh [BUILD_DIR] [LARGE_GIB]
#
# For the demo store and for a generated run with one artifact of LARGE_GIB (default 1)
# GiB uncompressed, it measures:
#   cold   first `cat` of a member (empty cache, dropped page cache) vs
#          `zstd -dc ARCHIVE | tar x` of the whole archive      (target <= 0.8x)
#   warm   `cat` of the largest member through the mount vs `cat` of the same file
#          extracted on local disk, both page-cached          (target >= 0.9x throughput)
#   find   `find -ls` of the artifact after a remount vs on the extracted tree
#                                                              (target <= 2x)
#   rss    daemon RSS after each of three full passes          (target: flat)
# Prints one table per store and the ratios. Needs root to drop the page cache
# (without it the cold numbers are warm-page-cache numbers, and it says so).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
gib=${2:-1}
rockfs=$build/fs/rockfs
. "$top/bench/lib.sh"
bench_init bench

can_drop=0
if [ -w /proc/sys/vm/drop_caches ] && sync && echo 3 >/proc/sys/vm/drop_caches 2>/dev/null; then
	can_drop=1
fi
drop() { if [ $can_drop = 1 ]; then sync; echo 3 >/proc/sys/vm/drop_caches; fi; }

mount_store() { # STORE CACHE
	"$rockfs" "$1" "$mnt" -f -o cache="$2" 2>>"$work/daemon.log" &
	pid=$!
	for _ in $(seq 300); do
		mountpoint -q "$mnt" && return 0
		kill -0 "$pid" 2>/dev/null || { cat "$work/daemon.log"; exit 1; }
		sleep 0.05
	done
	echo "mount timed out" >&2
	exit 1
}
umount_store() {
	fusermount3 -u "$mnt"
	wait "$pid" || true
	pid=
}
rss_kib() { awk '/^VmRSS/ { print $2 }' "/proc/$pid/status"; }

bench_store() { # LABEL STORE RUN STEM
	local label=$1 store=$2 run=$3 stem=$4
	local archive=$store/$run/$stem.tar.zst ex=$work/extract cache=$work/cache
	local members first mid last big t0 t1 base
	echo
	echo "== $label: $run/$stem ($(du -h "$archive" | cut -f1) compressed)"

	mapfile -t members < <(zstd -dc "$archive" | tar tv | awk '$1 ~ /^-/ { print $NF }')
	first=${members[1]:-${members[0]}}
	mid=${members[$(( ${#members[@]} / 2 ))]}
	last=${members[$(( ${#members[@]} - 1 ))]}

	# baseline: extract the whole archive
	rm -rf "$ex"; mkdir -p "$ex"; drop
	t0=$(now); zstd -dc "$archive" | tar x -C "$ex"; t1=$(now)
	base=$(elapsed "$t0" "$t1")
	big=$(cd "$ex" && find . -type f -printf '%s %P\n' | sort -n | tail -1 | cut -d' ' -f2-)
	printf '%-34s %9s s   (%s MB, %s files)\n' "zstd -dc | tar x (baseline)" "$base" \
		"$(du -sm "$ex" | cut -f1)" "$(find "$ex" -type f | wc -l)"

	local m cold
	for m in "$first" "$mid" "$last"; do
		rm -rf "$cache"; drop
		mount_store "$store" "$cache"
		t0=$(now); cat "$mnt/$run/browse/$stem/$m" >/dev/null; t1=$(now)
		cold=$(elapsed "$t0" "$t1")
		umount_store
		printf '%-34s %9s s   %sx baseline\n' "cold cat ($( [ "$m" = "$first" ] && echo first || { [ "$m" = "$mid" ] && echo middle || echo last; }) member)" "$cold" "$(ratio "$cold" "$base")"
	done

	# warm: fully ingested, page-cached; read the largest member 10 times
	rm -rf "$cache"
	mount_store "$store" "$cache"
	cat "$mnt/$run/browse/$stem/$big" >/dev/null
	find "$mnt/$run/browse/$stem" -type f -exec cat {} + >/dev/null
	cat "$ex/$big" >/dev/null
	local size reps=30 tm tl
	size=$(stat -c %s "$ex/$big")
	t0=$(now); for _ in $(seq $reps); do cat "$mnt/$run/browse/$stem/$big" >/dev/null; done; t1=$(now)
	tm=$(elapsed "$t0" "$t1")
	t0=$(now); for _ in $(seq $reps); do cat "$ex/$big" >/dev/null; done; t1=$(now)
	tl=$(elapsed "$t0" "$t1")
	printf '%-34s %9s MB/s\n' "warm cat, local disk" "$(awk -v s="$size" -v r=$reps -v t="$tl" 'BEGIN { printf "%.0f", s * r / t / 1e6 }')"
	printf '%-34s %9s MB/s   %sx local disk\n' "warm cat, mount" \
		"$(awk -v s="$size" -v r=$reps -v t="$tm" 'BEGIN { printf "%.0f", s * r / t / 1e6 }')" \
		"$(ratio "$tl" "$tm")"

	# RSS across three full passes (metadata + every byte)
	local rss=()
	for _ in 1 2 3; do
		find "$mnt/$run/browse/$stem" -ls >/dev/null
		find "$mnt/$run/browse/$stem" -type f -exec cat {} + >/dev/null
		rss+=("$(rss_kib)")
	done
	printf '%-34s %9s KiB after passes 1, 2, 3: %s %s %s\n' "daemon RSS" "${rss[2]}" "${rss[@]}"
	umount_store

	# find -ls after remount (index loaded from the cache) vs the extracted tree
	drop
	mount_store "$store" "$cache"
	t0=$(now); find "$mnt/$run/browse/$stem" -ls >/dev/null; t1=$(now)
	tm=$(elapsed "$t0" "$t1")
	umount_store
	drop
	t0=$(now); find "$ex" -ls >/dev/null; t1=$(now)
	tl=$(elapsed "$t0" "$t1")
	printf '%-34s %9s s\n' "find -ls, extracted tree" "$tl"
	printf '%-34s %9s s   %sx extracted\n' "find -ls, mount after remount" "$tm" "$(ratio "$tm" "$tl")"
}

[ $can_drop = 1 ] || echo "note: cannot drop the page cache (not root?): cold numbers are optimistic for both sides"
echo "generating stores in $work ..."
python3 "$top/tests/demo/mkdemo.py" "$work/demo" >/dev/null
python3 "$top/tests/demo/mkdemo.py" "$work/large" --large-gib "$gib" >/dev/null
echo "machine: $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(uname -r)"
bench_store demo "$work/demo" 24205988454-linux blas_lib_gfx110X-all
bench_store large "$work/large" 90000000001-linux bigdata_lib_generic
