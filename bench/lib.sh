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
