#!/usr/bin/env bash
# remote_faults: rockfs against an S3 server behind tests/remote/faultproxy.py, which checks
# every request's SigV4 signature on its own and misbehaves on a schedule:
#  - 500, 503, dropped and reset connections, truncated bodies and bodies that end early
#    with a matching Content-Length, mixed with good answers: every view still reads the
#    right bytes (retries, ranged resume), the daemon stays up, and what it cached is
#    right (a later offline mount on the same cache, `rockpack cache verify`);
#  - a stalled transfer: the read fails with EIO within the operation timeout, the
#    daemon stays up, and once the server answers again the same file reads right;
#  - SigV4: the right key works (above); a wrong secret or no credentials are refused
#    by the proxy and the mount answers EIO, without hanging;
#  - a 19 MB archive's download broken several times resumes with Range requests and
#    ingests right.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../remote/remote.sh"
it_init "$@"
rt_need_s3rver

B=therock-ci-artifacts
rt_s3rver s3 "$STORE" $B
rt_proxy fp "http://127.0.0.1:$RT_PORT" --sigv4 S3RVER:S3RVER:us-east-1
EP=http://127.0.0.1:$RT_PORT
SCHED=$T/fp.schedule
export AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER AWS_REGION=us-east-1
unset AWS_SESSION_TOKEN AWS_PROFILE http_proxy https_proxy HTTPS_PROXY all_proxy ALL_PROXY

it_mount local "$STORE" "$T/local" "$T/cache-local"
rt_tree "$T/local" >"$T/local.tree"
it_sums "$T/local" >"$T/local.sums"

# 1. every kind of failure but stalls, between good answers
echo "500,ok,reset,503,ok,drop,truncate,ok,lie,ok,ok" >"$SCHED"
it_mount f "s3://$B" "$T/f" "$T/cache" -o "endpoint=$EP,timeout=60,retries=10"
rt_tree "$T/f" >"$T/f.tree"
it_same "faulty server: names, types and sizes" "$T/local.tree" "$T/f.tree"
it_sums "$T/f" >"$T/f.sums"
it_same "faulty server: sha256 of every file of every view" "$T/local.sums" "$T/f.sums"
for a in 500 503 reset drop truncate lie ok; do
	[ "$(rt_count "$T/fp.log" "^REQ GET .* $a ")" -gt 0 ] || fail "the proxy never used '$a'"
done
[ "$(rt_count "$T/fp.log" ' sigv4:')" -eq 0 ] || fail "the proxy refused a signature: $(grep -m1 sigv4: "$T/fp.log")"
grep -qE 'retrying|resuming|asking again' "${IT_LOG[f]}" || fail "the daemon logged no retry"
it_alive f
it_umount f
if grep -E '^rockfs: error:' "${IT_LOG[f]}" >&2; then
	fail "the faulty server made the daemon log errors (every failure should have been retried)"
fi

# nothing wrong was cached
"$ROCKPACK" --cache "$T/cache" cache verify >"$T/verify.out" || fail "cache verify: $(cat "$T/verify.out")"
it_mount off "s3://$B" "$T/off" "$T/cache" -o "endpoint=$EP,offline"
for run in $(cd "$STORE" && ls); do
	for v in browse dist; do
		it_sums "$T/off/$run/$v" >"$T/off.sums" || fail "offline: $run/$v unreadable"
		it_sums "$T/local/$run/$v" >"$T/want.sums"
		it_same "offline after faults: $run/$v" "$T/want.sums" "$T/off.sums"
	done
done
it_umount off

# 2. a stalled transfer: EIO within the timeout, then right bytes once the server is back
echo ok >"$SCHED"
it_mount g "s3://$B" "$T/g" "$T/cache-g" -o "endpoint=$EP,timeout=3,retries=2"
run=24205988455-linux
ls "$T/g/$run/browse" >/dev/null || fail "listing before the stall failed"
stem=$(ls "$T/g/$run/browse" | head -n1)
file=$(cd "$T/local/$run/browse/$stem" && find . -type f | sort | head -n1)
echo stall >"$SCHED"
if cat "$T/g/$run/browse/$stem/$file" >/dev/null 2>"$T/stall.err"; then
	fail "a read through a stalled server succeeded"
fi
grep -q 'Input/output error' "$T/stall.err" || fail "stalled read: $(cat "$T/stall.err") (want EIO)"
grep -qE 'giving up|no data' "${IT_LOG[g]}" || fail "the daemon did not log the timeout"
pid_alive "${IT_PID[g]}" || fail "the daemon died on a stalled server"
echo ok >"$SCHED"
cmp "$T/local/$run/browse/$stem/$file" "$T/g/$run/browse/$stem/$file" ||
	fail "after the stall: wrong bytes (or EIO) from a server that answers again"
it_sums "$T/g/$run/browse" >"$T/g.sums"
it_sums "$T/local/$run/browse" >"$T/want.sums"
it_same "after the stall: $run/browse" "$T/want.sums" "$T/g.sums"
it_alive g
it_umount g

# 3. wrong signatures and no signature are refused; the mount says EIO and stays up
for mode in wrong none; do
	echo ok >"$SCHED"
	if [ $mode = wrong ]; then
		export AWS_SECRET_ACCESS_KEY=nope
		it_mount "s$mode" "s3://$B" "$T/s$mode" "$T/cache-s$mode" -o "endpoint=$EP,timeout=5"
		export AWS_SECRET_ACCESS_KEY=S3RVER
	else
		it_mount "s$mode" "s3://$B" "$T/s$mode" "$T/cache-s$mode" -o "endpoint=$EP,timeout=5,no_sign"
	fi
	if ls "$T/s$mode/$run" >/dev/null 2>"$T/s$mode.err"; then
		fail "SigV4 $mode: listing succeeded"
	fi
	grep -qE 'Input/output error|Permission denied' "$T/s$mode.err" ||
		fail "SigV4 $mode: $(cat "$T/s$mode.err")"
	pid_alive "${IT_PID[s$mode]}" || fail "SigV4 $mode: the daemon died"
	it_umount "s$mode"
done
[ "$(rt_count "$T/fp.log" ' sigv4:signature_mismatch ')" -gt 0 ] || fail "no request with a wrong signature reached the proxy"
[ "$(rt_count "$T/fp.log" ' sigv4:no_SigV4')" -gt 0 ] || fail "no unsigned request reached the proxy"

# 4. a 19 MB archive streamed into the ingest through resets, truncations and short
# bodies: the download resumes with Range requests from where it broke, and the
# archive's contents (checked against its .sha256sum by the ingest) are right
python3 "$(dirname "$0")/../demo/mkdemo.py" "$T/large" --large-gib 0.02 >/dev/null
LRUN=$(ls "$T/large")
rt_s3rver s3big "$T/large" large
rt_proxy fp2 "http://127.0.0.1:$RT_PORT" --sigv4 S3RVER:S3RVER:us-east-1
echo "ok,ok,ok,reset,truncate,lie,ok,drop,503,reset,ok" >"$T/fp2.schedule"
it_mount big s3://large "$T/big" "$T/cache-big" -o "endpoint=http://127.0.0.1:$RT_PORT,timeout=30,retries=10"
it_extract "$T/large/$LRUN/bigdata_lib_generic.tar.zst" "$T/want-big"
it_cmp_tree "19 MB archive through a faulty server" "$T/want-big" "$T/big/$LRUN/browse/bigdata_lib_generic"
n=$(grep -c 'resuming' "${IT_LOG[big]}" || true)
[ "$n" -ge 2 ] || fail "the big archive's download resumed $n times (want >= 2: the schedule breaks it)"
[ "$(rt_count "$T/fp2.log" 'bigdata_lib_generic.tar.zst (reset|truncate|lie) ')" -ge 2 ] ||
	fail "the proxy broke the big archive's download fewer than 2 times"
it_alive big
it_umount big

it_umount local
it_finish
