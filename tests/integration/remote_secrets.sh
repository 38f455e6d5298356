#!/usr/bin/env bash
# remote_secrets: secrets never leave the process. rockfs mounts an S3 store with SigV4
# (a secret key and a session token; tests/remote/faultproxy.py checks every signature)
# with its most verbose log (-d), reads a run, and meets failing requests (503s, resets,
# a stalled transfer); rockpack lists with --json and -v and shows the cache. The secret
# key, the session token and any signature appear in none of their output.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../remote/remote.sh"
it_init "$@"
rt_need_s3rver

B=therock-ci-artifacts
RUN=24205988455-linux
SECRET=Sekr3t-do-not-log-5f1e9a
TOKEN=Tok3n-do-not-log-7a6b2c
rt_s3rver s3 "$STORE" $B
rt_proxy fp "http://127.0.0.1:$RT_PORT" --sigv4 "S3RVER:$SECRET:us-east-1"
EP=http://127.0.0.1:$RT_PORT
export AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=$SECRET AWS_SESSION_TOKEN=$TOKEN
export AWS_REGION=us-east-1
unset AWS_PROFILE http_proxy https_proxy HTTPS_PROXY all_proxy ALL_PROXY

echo "ok,503,ok,reset,ok,500,ok" >"$T/fp.schedule"
it_mount s3 "s3://$B" "$T/mnt" "$T/cache" -d -o "endpoint=$EP,timeout=10,retries=3"
find "$T/mnt/$RUN/browse" -type f -exec cat {} + >/dev/null 2>&1 || true
[ "$(rt_count "$T/fp.log" ' sigv4:')" -eq 0 ] || fail "the proxy refused a signature: $(grep -m1 sigv4: "$T/fp.log")"
[ "$(rt_count "$T/fp.log" '^REQ GET .* ok 200')" -gt 0 ] || fail "no signed request reached the server"
# requests that fail for good: the server refuses everything for a while
echo "503" >"$T/fp.schedule"
cat "$T/mnt/$RUN/artifacts/"*.sha256sum >/dev/null 2>&1 || true
ls "$T/mnt/$RUN/browse/" >/dev/null 2>&1 || true
echo ok >"$T/fp.schedule"
it_umount s3

"$ROCKPACK" -v --json --cache "$T/cache2" --endpoint "$EP" ls "s3://$B" "$RUN" >"$T/ls.json" 2>"$T/ls.err" ||
	fail "rockpack ls failed: $(cat "$T/ls.err")"
echo 503 >"$T/fp.schedule"
"$ROCKPACK" -v --json --cache "$T/cache3" --endpoint "$EP" --timeout 5 ls "s3://$B" "$RUN" \
	>"$T/ls-fail.json" 2>"$T/ls-fail.err" && fail "rockpack ls against a refusing server succeeded"
echo ok >"$T/fp.schedule"
"$ROCKPACK" -v --json --cache "$T/cache2" cache stats >"$T/stats.json" 2>"$T/stats.err" ||
	fail "rockpack cache stats failed: $(cat "$T/stats.err")"
[ "$(rt_count "$T/fp.log" '^REQ GET .* 503 503')" -gt 0 ] || fail "no request failed"

for f in "$T/s3.log" "$T/ls.json" "$T/ls.err" "$T/ls-fail.json" "$T/ls-fail.err" "$T/stats.json" \
	"$T/stats.err"; do
	for s in "$SECRET" "$TOKEN" "Signature=" "X-Amz-Signature" "Authorization:" "x-amz-security-token:"; do
		if grep -qiF -- "$s" "$f"; then
			fail "$(basename "$f") shows '$s': $(grep -m1 -iF -- "$s" "$f" | cut -c1-200)"
		fi
	done
done
[ -s "$T/s3.log" ] || fail "the daemon log is empty (-d should log)"

# allow_other on a store read with credentials: one warning line (root may always use it)
if [ "$(id -u)" = 0 ]; then
	it_mount ao "s3://$B" "$T/ao" "$T/cache" -o "endpoint=$EP,allow_other"
	ls "$T/ao/$RUN" >/dev/null
	it_umount ao
	[ "$(grep -c 'warning: allow_other:' "$T/ao.log")" = 1 ] ||
		fail "allow_other with credentials: want one warning, log: $(cat "$T/ao.log")"
	! grep -qiF -- "$SECRET" "$T/ao.log" || fail "the allow_other warning shows the secret"
fi
it_finish
