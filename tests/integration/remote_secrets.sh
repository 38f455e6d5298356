#!/usr/bin/env bash
# remote_secrets: secrets never leave the process. rockfs mounts an S3 store with SigV4
# (a secret key and a session token; tests/remote/faultproxy.py checks every signature)
# with its most verbose log (-d), reads a run, and meets failing requests (503s, resets,
# a stalled transfer); rockpack lists with --json and -v and shows the cache. The secret
# key, the session token and any signature appear in none of their output.
# An http://user:password@host/ store (nginx with basic auth) is read with its password,
# which shows nowhere (issue 26, item 3): not in /proc/mounts (the source is
# "rockfs:http://user:***@host/...", and a second mount of it is still refused), not in
# .rockfs-status, `rockpack status`, the log, error messages or `ps` (the daemon's
# argument area is scrubbed); rockpack's output and messages neither.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../remote/remote.sh"
it_init "$@"
rt_need_s3rver
command -v nginx >/dev/null || skip "nginx is not installed (packaging/install-deps.sh)"

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

# ---- an http:// store with user:password@ (basic auth)
PW=Passw0rd-do-not-show-4c8d
P=$(rt_free_port)
printf 'rkuser:{PLAIN}%s\n' "$PW" >"$T/htpasswd"
rt_nginx ngauth "
	server {
		listen 127.0.0.1:$P;
		location /store/ {
			alias $STORE/; autoindex on;
			auth_basic rockfs; auth_basic_user_file $T/htpasswd;
		}
	}"
rt_wait_http "http://127.0.0.1:$P/"
U=http://rkuser:$PW@127.0.0.1:$P/store/
SHOWN=http://rkuser:***@127.0.0.1:$P/store/
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$P/store/")" = 401 ] ||
	fail "nginx does not ask for the password"
HM=$T/hmnt
it_mount web "$U" "$HM" "$T/cache-web" -d
cmp "$HM/$RUN/artifacts/base_lib_generic.tar.zst" "$STORE/$RUN/base_lib_generic.tar.zst" ||
	fail "http store with a password: reads wrong"
ls "$HM/$RUN/browse/base_lib_generic" >/dev/null || fail "http store with a password: no browse/"
grep -F " $HM " /proc/mounts >"$T/web.mounts"
grep -qF "rockfs:$SHOWN $HM fuse.rockfs" "$T/web.mounts" ||
	fail "/proc/mounts: want source 'rockfs:$SHOWN', got: $(cat "$T/web.mounts")"
cat "$HM/.rockfs-status" >"$T/web.status"
grep -qxF "store: $SHOWN" "$T/web.status" || fail ".rockfs-status: want 'store: $SHOWN': $(grep store: "$T/web.status")"
"$ROCKPACK" status "$HM" >"$T/web.rpstatus" 2>&1 || fail "rockpack status failed"
"$ROCKPACK" status "$HM" --json >"$T/web.rpstatus.json" 2>&1 || fail "rockpack status --json failed"
pid=${IT_PID[web]}
tr '\0' ' ' <"/proc/$pid/cmdline" >"$T/web.cmdline"
ps -ww -o args= -p "$pid" >"$T/web.ps"
grep -qF "$SHOWN" "$T/web.cmdline" || fail "ps: want '$SHOWN' in the command line: $(cat "$T/web.cmdline")"
grep -qF " $HM -f -o cache=$T/cache-web -d" "$T/web.cmdline" ||
	fail "ps: the arguments after the URL are lost: $(cat "$T/web.cmdline")"
# the same store on the same mountpoint: refused, the message without the password
rc=0
timeout 20 "$ROCKFS" "$U" "$HM" -f -o "cache=$T/cache-web" >"$T/web.dup.out" 2>"$T/web.dup.err" || rc=$?
[ "$rc" -ne 0 ] || fail "a second mount of the http store was not refused"
grep -qF "rockfs: mountpoint '$HM': already holds a rockfs mount of '$SHOWN'" "$T/web.dup.err" ||
	fail "second mount: $(cat "$T/web.dup.err")"
it_umount web
grep -qF "serving '$SHOWN'" "${IT_LOG[web]}" || fail "the start line does not name '$SHOWN'"
# error messages: a wrong path, a query, a wrong password, rockpack
rc=0
timeout 30 "$ROCKFS" "${U}?x=1" "$T/hmnt" -f -o "cache=$T/cache-web" >"$T/web.q.out" 2>"$T/web.q.err" || rc=$?
[ "$rc" -ne 0 ] || fail "a store URL with a query was accepted"
"$ROCKPACK" --cache "$T/cache-rp" ls "$U" >"$T/rp.ls" 2>"$T/rp.ls.err" || fail "rockpack ls failed: $(cat "$T/rp.ls.err")"
grep -q "^$RUN " "$T/rp.ls" || fail "rockpack ls does not list '$RUN'"
"$ROCKPACK" -v --json --cache "$T/cache-rp" ls "$U" "$RUN" >"$T/rp.lsrun" 2>"$T/rp.lsrun.err" ||
	fail "rockpack ls RUN failed: $(cat "$T/rp.lsrun.err")"
"$ROCKPACK" --cache "$T/cache-rp2" --timeout 5 ls "http://rkuser:wrong-$PW@127.0.0.1:$P/store/" \
	>"$T/rp.bad" 2>"$T/rp.bad.err" && fail "rockpack ls with a wrong password succeeded"
"$ROCKPACK" --cache "$T/cache-rp2" ls "http://rkuser:$PW@127.0.0.1:$P/nosuch/" \
	>"$T/rp.missing" 2>"$T/rp.missing.err" && fail "rockpack ls of a missing path succeeded"
grep -q . "$T/rp.bad.err" || fail "rockpack ls with a wrong password: no message"
# rockpack's own command line while it runs (an export may take an hour): a server that
# takes the connection and never answers holds it there
python3 -c '
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(4)
print(s.getsockname()[1], flush=True)
c, _ = s.accept(); open(sys.argv[1], "w").close()
c.recv(4096)
import time; time.sleep(120)  # the connection held open until killed
' "$T/frozen.accepted" >"$T/frozen.port" &
FROZEN=$!
for _ in $(seq 100); do [ -s "$T/frozen.port" ] && break; sleep 0.1; done
"$ROCKPACK" --cache "$T/cache-rp3" --timeout 60 ls "http://rkuser:$PW@127.0.0.1:$(cat "$T/frozen.port")/store/" \
	>/dev/null 2>&1 &
RP=$!
for _ in $(seq 200); do [ -e "$T/frozen.accepted" ] && break; sleep 0.1; done
[ -e "$T/frozen.accepted" ] || fail "rockpack never reached the frozen server"
tr '\0' ' ' <"/proc/$RP/cmdline" >"$T/rp.cmdline" || true
ps -ww -o args= -p "$RP" >"$T/rp.ps" || true
kill "$RP" "$FROZEN" 2>/dev/null || true
wait "$RP" "$FROZEN" 2>/dev/null || true
grep -qF "rkuser:***@127.0.0.1" "$T/rp.cmdline" || fail "rockpack's ps: want 'rkuser:***@' in $(cat "$T/rp.cmdline")"
for f in "$T/web.mounts" "$T/web.status" "$T/web.rpstatus" "$T/web.rpstatus.json" "$T/web.cmdline" \
	"$T/web.ps" "$T/web.dup.err" "$T/web.dup.out" "${IT_LOG[web]}" "$T/web.q.err" "$T/rp.ls" \
	"$T/rp.ls.err" "$T/rp.lsrun" "$T/rp.lsrun.err" "$T/rp.bad" "$T/rp.bad.err" "$T/rp.missing" \
	"$T/rp.missing.err" "$T/rp.cmdline" "$T/rp.ps"; do
	if grep -qF -- "$PW" "$f"; then
		fail "$(basename "$f") shows the password: $(grep -m1 -F -- "$PW" "$f" | cut -c1-200)"
	fi
done
[ -s "${IT_LOG[web]}" ] || fail "the http daemon log is empty (-d should log)"
it_finish
