# bench/lib.sh: what every benchmark script shares. Source it after setting $top.
#   bench_init NAME     work dir $work with a mountpoint $mnt, cleaned up on exit
#   now / elapsed A B / ratio A B / timeit CMD...
bench_init() {
	work=$(mktemp -d "/var/tmp/rockfs-$1.XXXXXX")
	mnt=$work/mnt
	pid=
	mkdir -p "$mnt"
	trap bench_cleanup EXIT
}
bench_cleanup() {
	if mountpoint -q "$mnt"; then fusermount3 -u -z "$mnt" || true; fi
	[ -n "$pid" ] && kill "$pid" 2>/dev/null || true
	rm -rf "$work"
}
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
timeit() {
	local t0 t1
	t0=$(now)
	"$@"
	t1=$(now)
	elapsed "$t0" "$t1"
}
# bench_drop: write back dirty data and drop the page cache (root); 1 if it could not.
bench_drop() { sync && echo 3 >/proc/sys/vm/drop_caches 2>/dev/null; }
# bench_mount STORE CACHE [OPTIONS]: rockfs ($rockfs) in the foreground on $mnt, pid in $pid,
# its log appended to $work/daemon.log; returns once mounted.
bench_mount() {
	local store=$1 cache=$2
	shift 2
	"$rockfs" "$store" "$mnt" -f -o cache="$cache" "$@" 2>>"$work/daemon.log" &
	pid=$!
	for _ in $(seq 600); do
		mountpoint -q "$mnt" && return 0
		kill -0 "$pid" 2>/dev/null || { tail -n 20 "$work/daemon.log" >&2; exit 1; }
		sleep 0.05
	done
	echo "mount timed out" >&2
	exit 1
}
bench_umount() {
	fusermount3 -u "$mnt"
	wait "$pid" || true
	pid=
}
# best T...: the smallest of the times (empty ones, a first round's "best so far", left out)
best() { printf '%s\n' "$@" | grep . | sort -g | head -n1; }
