#!/usr/bin/env bash
# remote_s3: the demo store served by s3rver (an S3-compatible server from the npm
# registry) on loopback, mounted as s3:// with a path-style endpoint:
#  - every view (README, artifacts/, browse/, dist/, kpack/, tarballs/) equals the local-directory
#    mount of the same store byte for byte, with the same names, types and sizes;
#  - listing uses one ListObjectsV2 sequence per run (counted in the server log) and a
#    second process on the same cache lists nothing and downloads nothing again;
#  - `rockpack ls s3://... --json` equals the local answer; `rockpack prefetch` over S3;
#  - offline mounts serve the cache; `rockpack cache refresh RUN` and -o refresh list
#    the run again.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../remote/remote.sh"
it_init "$@"
rt_need_s3rver

B=therock-ci-artifacts
rt_s3rver srv "$STORE" $B
EP=http://127.0.0.1:$RT_PORT
S3LOG=$T/srv.log
LIST='^REQ GET /'$B'\?.*list-type=2'

it_mount local "$STORE" "$T/local" "$T/cache-local"
# the runs were uploaded just now: run_final_age=0 takes them as finished (list_live tests
# runs still being uploaded)
it_mount s3 "s3://$B" "$T/s3" "$T/cache" -o "endpoint=$EP,run_final_age=0"

rt_tree "$T/local" >"$T/local.tree"
rt_tree "$T/s3" >"$T/s3.tree"
it_same "names, types and sizes of every view (s3 vs local)" "$T/local.tree" "$T/s3.tree"
it_sums "$T/local" >"$T/local.sums"
it_sums "$T/s3" >"$T/s3.sums"
it_same "sha256 of every file of every view (s3 vs local)" "$T/local.sums" "$T/s3.sums"
[ "$(wc -l <"$T/s3.sums")" -gt 500 ] || fail "too few files compared ($(wc -l <"$T/s3.sums"))"

nruns=$(find "$STORE" -mindepth 1 -maxdepth 1 -type d | wc -l)
# the root may be listed again (-o list_ttl: new runs appear); each run only once
nlist=$(rt_count "$S3LOG" "$LIST.*prefix=[0-9]")
[ "$nlist" -eq "$nruns" ] ||
	fail "$nlist ListObjectsV2 requests for $nruns runs (want $nruns)"
[ "$(rt_count "$S3LOG" "$LIST")" -gt "$nruns" ] || fail "the root was never listed"
for run in $(cd "$STORE" && ls); do
	n=$(rt_count "$S3LOG" "$LIST.*prefix=$run%2F")
	[ "$n" -eq 1 ] || fail "$run: listed with $n requests (want one sequence: 1 page)"
done
it_alive s3
it_umount s3
it_quiet_log s3

# a second process on the same cache: no listing of a run, no archive download
mark=$(wc -l <"$S3LOG")
it_mount s3b "s3://$B" "$T/s3b" "$T/cache" -o "endpoint=$EP,run_final_age=0"
for run in $(cd "$STORE" && ls); do
	it_sums "$T/s3b/$run/browse" >"$T/s3b.sums"
	it_sums "$T/local/$run/browse" >"$T/local.browse.sums"
	it_same "$run/browse/ of a second mount on the warm cache" "$T/local.browse.sums" "$T/s3b.sums"
done
tail -n +$((mark + 1)) "$S3LOG" >"$T/s3b.reqs"
n=$(rt_count "$T/s3b.reqs" "$LIST.*prefix=[0-9]")
[ "$n" -eq 0 ] || fail "second mount listed runs again ($n requests)"
n=$(rt_count "$T/s3b.reqs" '\.tar\.(zst|xz) ')
[ "$n" -eq 0 ] || fail "second mount downloaded $n archives again"
grep -vE "$LIST" "$T/s3b.reqs" >"$T/s3b.other" || true
[ ! -s "$T/s3b.other" ] || fail "second mount: requests besides root listings: $(cat "$T/s3b.other")"
# coalescing: 6 concurrent readers of one stored archive (artifacts/; larger than the
# 64 KiB kept as small objects, smaller than one 1 MiB block) make one request
run=24205988454-linux
f=$(cd "$STORE/$run" && ls -S *.tar.zst | grep -v '[:+]' | head -n1)
[ "$(stat -c %s "$STORE/$run/$f")" -gt 65536 ] || die "no archive larger than 64 KiB in $run"
mark=$(wc -l <"$S3LOG")
readers=()
for i in 1 2 3 4 5 6; do
	it_bg sh -c "cat '$T/s3b/$run/artifacts/$f' >'$T/co.$i'"
	readers+=("${IT_BG[-1]}")
done
for pid in "${readers[@]}"; do wait "$pid" || fail "a concurrent reader failed"; done
for i in 1 2 3 4 5 6; do
	cmp -s "$STORE/$run/$f" "$T/co.$i" || fail "concurrent reader $i: wrong bytes"
done
tail -n +$((mark + 1)) "$S3LOG" >"$T/co.reqs"
n=$(rt_count "$T/co.reqs" "/$run/$f ")
[ "$n" -eq 1 ] || fail "6 concurrent readers of $f made $n requests (want 1)"
it_umount s3b

# offline: everything the cache holds (the listings, browse/, dist/, tarballs/: not the
# archives themselves, which are not kept), no request at all
mark=$(wc -l <"$S3LOG")
it_mount off "s3://$B" "$T/off" "$T/cache" -o "endpoint=$EP,offline"
rt_tree "$T/off" >"$T/off.tree"
it_same "offline mount: names, types and sizes" "$T/local.tree" "$T/off.tree"
for v in browse dist; do
	for run in $(cd "$STORE" && ls); do
		it_sums "$T/off/$run/$v" >"$T/off.$run.$v.sums" || fail "offline: reading $run/$v failed"
		it_sums "$T/local/$run/$v" >"$T/local.$run.$v.sums"
		it_same "offline mount: $run/$v" "$T/local.$run.$v.sums" "$T/off.$run.$v.sums"
	done
done
if cat "$T/off/$(cd "$STORE" && ls | head -n1)"/artifacts/*.tar.zst >/dev/null 2>"$T/off.err"; then
	fail "offline: an archive that is not in the cache was read"
fi
grep -q 'Input/output error' "$T/off.err" || fail "offline: uncached archive: $(head -n1 "$T/off.err")"
it_alive off
[ "$(wc -l <"$S3LOG")" -eq "$mark" ] || fail "an offline mount made requests"
it_umount off

# rockpack ls over S3, --json, equals the local store's answer
RP=("$ROCKPACK" --cache "$T/cache" --endpoint "$EP")
for run in $(cd "$STORE" && ls); do
	"$ROCKPACK" --cache "$T/cache-local" ls "$STORE" "$run" --json >"$T/ls.local"
	"${RP[@]}" ls "s3://$B" "$run" --json >"$T/ls.s3" || fail "rockpack ls s3://$B $run failed"
	it_same "rockpack ls $run --json (s3 vs local)" "$T/ls.local" "$T/ls.s3"
	"${RP[@]}" ls "s3://$B/$run" . --json >"$T/ls.s3run" ||
		fail "rockpack ls s3://$B/$run failed"
	grep -q '"artifacts"' "$T/ls.s3run" || fail "rockpack ls s3://$B/$run . --json: no artifacts"
done

# virtual-host addressing: BUCKET.s3.localhost (curl resolves *.localhost to loopback)
run=24205988455-linux
"$ROCKPACK" --cache "$T/cache-vh" --endpoint "http://s3.localhost:${EP##*:}" --addressing virtual \
	ls "s3://$B" $run --json >"$T/ls.vh" || fail "rockpack ls with virtual-host addressing failed"
"$ROCKPACK" --cache "$T/cache-local" ls "$STORE" $run --json >"$T/ls.local"
it_same "rockpack ls $run --json (virtual-host vs local)" "$T/ls.local" "$T/ls.vh"

# cache refresh: the run is listed again, once
run=24205988455-linux
"${RP[@]}" cache refresh $run >"$T/refresh.out" || fail "rockpack cache refresh failed"
grep -q '^24205988455-linux: [1-9]' "$T/refresh.out" || fail "cache refresh forgot nothing: $(cat "$T/refresh.out")"
mark=$(wc -l <"$S3LOG")
"${RP[@]}" ls "s3://$B" $run >/dev/null || fail "rockpack ls after refresh failed"
tail -n +$((mark + 1)) "$S3LOG" >"$T/refresh.reqs"
[ "$(rt_count "$T/refresh.reqs" "$LIST.*prefix=$run%2F")" -eq 1 ] ||
	fail "after cache refresh, $run was not listed exactly once"
mark=$(wc -l <"$S3LOG")
"${RP[@]}" --refresh ls "s3://$B" $run >/dev/null || fail "rockpack --refresh ls failed"
tail -n +$((mark + 1)) "$S3LOG" >"$T/refresh2.reqs"
[ "$(rt_count "$T/refresh2.reqs" "$LIST.*prefix=$run%2F")" -eq 1 ] ||
	fail "--refresh did not list $run again"

# prefetch over S3 into a cold cache, then an offline mount serves it all
"$ROCKPACK" --cache "$T/cache2" --endpoint "$EP" -q prefetch "s3://$B" $run ||
	fail "rockpack prefetch over s3 failed"
it_mount off2 "s3://$B" "$T/off2" "$T/cache2" -o "endpoint=$EP,offline"
it_sums "$T/off2/$run/browse" >"$T/off2.sums"
it_sums "$T/local/$run/browse" >"$T/local2.sums"
it_same "prefetched run, offline" "$T/local2.sums" "$T/off2.sums"
it_umount off2

# pagination: a run of 600 artifacts (1200 keys, two ListObjectsV2 pages of 1000)
P=$T/paged/90000000003-linux
mkdir -p "$P"
small=$(cd "$STORE/24205988455-linux" && ls -S *_generic.tar.zst | tail -n1)
for i in $(seq -w 1 600); do
	cp "$STORE/24205988455-linux/$small" "$P/n${i}_lib_generic.tar.zst"
	cp "$STORE/24205988455-linux/$small.sha256sum" "$P/n${i}_lib_generic.tar.zst.sha256sum"
done
rt_s3rver srv2 "$T/paged" paged
"$ROCKPACK" --cache "$T/cache3" --endpoint "http://127.0.0.1:$RT_PORT" ls s3://paged/90000000003-linux . --json \
	>"$T/paged.json" || fail "rockpack ls of a paged run failed"
n=$(grep -c '"file": "n[0-9]*_lib_generic.tar.zst"' "$T/paged.json" || true)
[ "$n" -eq 600 ] || fail "paged run: rockpack ls shows $n artifacts (want 600)"
[ "$(rt_count "$T/srv2.log" 'GET /paged\?list-type=2&prefix=90000000003-linux%2F ')" -eq 1 ] &&
	[ "$(rt_count "$T/srv2.log" 'continuation-token=.*list-type=2&prefix=90000000003-linux%2F ')" -eq 1 ] ||
	fail "paged run: want one sequence of two pages: $(grep -c REQ "$T/srv2.log") requests"
it_mount paged s3://paged "$T/pm" "$T/cache4" -o "endpoint=http://127.0.0.1:$RT_PORT"
[ "$(ls "$T/pm/90000000003-linux/browse" | wc -l)" -eq 600 ] || fail "paged run: browse/ does not have 600 artifacts"
it_sums "$T/pm/90000000003-linux/browse/n599_lib_generic" >"$T/pm.sums" || fail "paged run: browse failed"
it_umount paged

it_umount local
it_finish
