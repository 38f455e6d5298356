#!/usr/bin/env bash
# remote_redirect: secrets never follow a redirect to another origin, and https never
# redirects to http. nginx plays three servers on loopback, each on its own port: a front
# (A) that answers every request with 307 to a second server (B) on another port, which
# serves the store (s3rver behind it, or the store directory with autoindex) and logs the
# secret headers each request brought; and a TLS front (T) answering 307 to B over http.
#  - S3 with SigV4 and a session token through A: the mount reads right, A got the
#    signature and the token, B got neither (before issue 26: x-amz-security-token,
#    x-amz-date and the Authorization header all went on to B);
#  - http://user:password@A/store/: the mount reads right, B never sees the password
#    (no Authorization: Basic);
#  - https://T/store/ redirecting to http://B: refused; the mount answers EIO and logs
#    one line naming the redirect without credentials; `rockpack ls` exits 1 with one
#    line; B gets no request.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../remote/remote.sh"
it_init "$@"
command -v openssl >/dev/null || skip "openssl is not installed (packaging/install-deps.sh)"
rt_need_s3rver
unset CURL_CA_BUNDLE SSL_CERT_FILE AWS_PROFILE http_proxy https_proxy HTTPS_PROXY all_proxy ALL_PROXY

B=therock-ci-artifacts
RUN=24205988455-linux
TOKEN=Tok3n-must-not-leave-9c1d
PASS=pw-must-not-leave-3e7f
rt_s3rver s3 "$STORE" $B
S3=$RT_PORT
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=rockfs test" \
	-addext "subjectAltName=IP:127.0.0.1" -keyout "$T/key.pem" -out "$T/cert.pem" 2>"$T/openssl.log" ||
	die "openssl: $(cat "$T/openssl.log")"
PA=$(rt_free_port)
PB=$(rt_free_port)
PT=$(rt_free_port)
[ "$PA" != "$PB" ] && [ "$PB" != "$PT" ] && [ "$PA" != "$PT" ] || die "the same free port twice"
rt_nginx ng "
	log_format hdr 'REQ \$request_method \$request_uri \$status auth=[\$http_authorization] token=[\$http_x_amz_security_token] date=[\$http_x_amz_date]';
	server {
		listen 127.0.0.1:$PA;
		access_log $T/ng/a.log hdr;
		location / { return 307 http://127.0.0.1:$PB\$request_uri; }
	}
	server {
		listen 127.0.0.1:$PT ssl;
		ssl_certificate $T/cert.pem;
		ssl_certificate_key $T/key.pem;
		access_log $T/ng/t.log hdr;
		location / { return 307 http://127.0.0.1:$PB\$request_uri; }
	}
	server {
		listen 127.0.0.1:$PB;
		access_log $T/ng/b.log hdr;
		location /store/ { alias $STORE/; autoindex on; }
		location / { proxy_pass http://127.0.0.1:$S3; }
	}"
rt_wait_http "http://127.0.0.1:$PB/store/"

it_mount local "$STORE" "$T/local" "$T/cache-local"
it_sums "$T/local/$RUN/artifacts" >"$T/want-art.sums"
it_sums "$T/local/$RUN/browse" >"$T/want-browse.sums"

# 1. S3, signed, with a session token, redirected to another port
export AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER AWS_SESSION_TOKEN=$TOKEN
export AWS_REGION=us-east-1
it_mount s3 "s3://$B" "$T/s3" "$T/cache-s3" -o "endpoint=http://127.0.0.1:$PA,timeout=20"
it_sums "$T/s3/$RUN/artifacts" >"$T/s3-art.sums" || fail "s3 via a redirect: artifacts/ unreadable"
it_same "s3 via a redirect: artifacts/" "$T/want-art.sums" "$T/s3-art.sums"
it_sums "$T/s3/$RUN/browse" >"$T/s3-browse.sums" || fail "s3 via a redirect: browse/ unreadable"
it_same "s3 via a redirect: browse/" "$T/want-browse.sums" "$T/s3-browse.sums"
it_alive s3
it_umount s3
unset AWS_SESSION_TOKEN
[ "$(rt_count "$T/ng/a.log" "token=\\[$TOKEN\\]")" -gt 0 ] || fail "the front never got the session token (was the request signed?)"
[ "$(rt_count "$T/ng/a.log" 'auth=\[AWS4-HMAC-SHA256 ')" -gt 0 ] || fail "the front never got a signature"
[ "$(rt_count "$T/ng/b.log" "^REQ GET /$B")" -gt 0 ] || fail "no S3 request reached the redirect target"
if grep -F "$TOKEN" "$T/ng/b.log" >&2; then
	fail "the session token was sent on to a redirect target on another port"
fi
if grep -E 'auth=\[[^]-]|date=\[[^]-]' "$T/ng/b.log" >&2; then
	fail "signature headers were sent on to a redirect target on another port"
fi

# 2. http://user:password@ redirected to another port
nb=$(wc -l <"$T/ng/b.log")
it_mount ht "http://rk:$PASS@127.0.0.1:$PA/store/" "$T/ht" "$T/cache-ht" -o timeout=20
it_sums "$T/ht/$RUN/artifacts" >"$T/ht-art.sums" || fail "http via a redirect: artifacts/ unreadable"
it_same "http via a redirect: artifacts/" "$T/want-art.sums" "$T/ht-art.sums"
it_alive ht
it_umount ht
[ "$(rt_count "$T/ng/a.log" 'auth=\[Basic ')" -gt 0 ] || fail "the front never got the user's credentials"
tail -n +$((nb + 1)) "$T/ng/b.log" >"$T/b-ht.log"
[ "$(rt_count "$T/b-ht.log" '^REQ (GET|HEAD) /store/')" -gt 0 ] || fail "no http request reached the redirect target"
if grep -E 'auth=\[[^]-]' "$T/b-ht.log" >&2; then
	fail "basic-auth credentials were sent on to a redirect target on another port"
fi

# 3. https redirecting to http: refused
export CURL_CA_BUNDLE=$T/cert.pem
nb=$(wc -l <"$T/ng/b.log")
it_mount tl "https://127.0.0.1:$PT/store/" "$T/tl" "$T/cache-tl" -o timeout=20
if ls "$T/tl/" >/dev/null 2>"$T/tl.err"; then
	fail "a store redirected from https to http was listed"
fi
grep -q 'Input/output error' "$T/tl.err" || fail "https to http: $(cat "$T/tl.err") (want EIO)"
pid_alive "${IT_PID[tl]}" || fail "https to http: the daemon died"
it_umount tl
n=$(grep -c "redirect to 'http://127.0.0.1:$PB/store/' refused: https to http" "$T/tl.log" || true)
[ "$n" = 1 ] || fail "https to http: want one log line naming the refused redirect, got $n: $(cat "$T/tl.log")"
rc=0
"$ROCKPACK" --cache "$T/c-tl" ls "https://127.0.0.1:$PT/store/" >/dev/null 2>"$T/tl-rp.err" || rc=$?
[ "$rc" = 1 ] || fail "rockpack ls through an https to http redirect: exit $rc, want 1"
[ "$(wc -l <"$T/tl-rp.err")" = 1 ] && grep -q 'refused: https to http' "$T/tl-rp.err" ||
	fail "rockpack: want one line about the refused redirect: $(cat "$T/tl-rp.err")"
[ "$(rt_count "$T/ng/t.log" '^REQ GET /store/ 307')" -gt 0 ] || fail "the TLS front was never asked"
tail -n +$((nb + 1)) "$T/ng/b.log" >"$T/b-tl.log"
[ ! -s "$T/b-tl.log" ] || fail "an https store's request went on over http: $(head -3 "$T/b-tl.log")"
unset CURL_CA_BUNDLE

it_umount local
it_finish
