#!/usr/bin/env bash
# remote_http_threads: one struct rk_http used by many threads at once, as the daemon's
# listing (HEAD), ingest (stream) and reader (range) threads use it, against nginx on
# loopback that closes kept-alive connections often (connection churn). The helper
# (tests/remote/http_threads.c, $RK_HTTP_THREADS) runs:
#  - under helgrind (valgrind): no data race may be reported (tests/remote/helgrind.supp
#    says which libcurl one is benign). A libcurl connection cache shared by concurrent
#    threads (CURL_LOCK_DATA_CONNECT, unsupported by libcurl) shows up here as races
#    inside libcurl (the likely cause of the one heap corruption seen in the daemon);
#  - natively (release or sanitizer build): every request gets its bytes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../remote/remote.sh"
it_init "$@"
HT=${RK_HTTP_THREADS:-}
[ -x "$HT" ] || die "RK_HTTP_THREADS: the http_threads helper is not set (run through ctest)"
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY
SUPP=$(cd "$(dirname "$0")/../remote" && pwd)/helgrind.supp
RUN=24205988455-linux

P=$(rt_free_port)
rt_nginx ngx "server { listen 127.0.0.1:$P; keepalive_requests 10; location /store/ { alias $STORE/; autoindex on; } }"
rt_wait_http "http://127.0.0.1:$P/store/"
URL=http://127.0.0.1:$P/store/
mapfile -t FILES < <(cd "$STORE" && find "$RUN" -maxdepth 1 -type f | sort | head -n 40)
[ ${#FILES[@]} -ge 10 ] || die "the demo run has too few files"

# natively: many threads, every request right
"$HT" "$URL" 16 200 "${FILES[@]}" >"$T/native.out" 2>"$T/native.err" ||
	fail "native run: $(cat "$T/native.out") $(head -n 5 "$T/native.err")"
grep -q ' 3200 requests, 0 failed' "$T/native.out" || fail "native run: $(cat "$T/native.out")"

# helgrind: no race (not on a sanitizer build: valgrind cannot run those)
if [ -n "${RK_SANITIZE:-}" ]; then
	it_say "sanitizer build ($RK_SANITIZE): helgrind part skipped"
elif ! command -v valgrind >/dev/null; then
	[ "$IT_FAILS" -gt 0 ] || skip "valgrind is not installed (packaging/install-deps.sh --tests)"
else
	rc=0
	valgrind --tool=helgrind --error-exitcode=99 --suppressions="$SUPP" \
		--log-file="$T/helgrind.log" "$HT" "$URL" 8 150 "${FILES[@]}" \
		>"$T/helgrind.out" 2>"$T/helgrind.err" || rc=$?
	races=$(grep -c 'Possible data race' "$T/helgrind.log" || true)
	[ "$rc" = 0 ] || fail "helgrind: exit $rc, $races data races reported; first one:
$(grep -m1 -A30 -E 'Possible data race|^==[0-9]+== [A-Z]' "$T/helgrind.log" || true)
$(cat "$T/helgrind.out" "$T/helgrind.err" | head -n 5)"
	grep -q ' 1200 requests, 0 failed' "$T/helgrind.out" || fail "helgrind run: $(cat "$T/helgrind.out")"
	grep -q 'ERROR SUMMARY: 0 errors' "$T/helgrind.log" || fail "helgrind: $(grep 'ERROR SUMMARY' "$T/helgrind.log")"
fi
it_finish
