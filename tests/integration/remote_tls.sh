#!/usr/bin/env bash
# remote_tls: TLS is always verified. An https:// store whose certificate the system does
# not trust is refused with one clear message naming the host and how to trust it
# (rockpack: exit 1, one line; rockfs: EIO and the same log line), never a silent
# fallback; with CURL_CA_BUNDLE (or SSL_CERT_FILE) pointing at its CA it works.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../remote/remote.sh"
it_init "$@"
command -v openssl >/dev/null || skip "openssl is not installed (packaging/install-deps.sh)"
unset CURL_CA_BUNDLE SSL_CERT_FILE http_proxy https_proxy HTTPS_PROXY all_proxy ALL_PROXY

RUN=24205988455-linux
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=rockfs test" \
	-addext "subjectAltName=IP:127.0.0.1" -keyout "$T/key.pem" -out "$T/cert.pem" 2>"$T/openssl.log" ||
	die "openssl: $(cat "$T/openssl.log")"
P=$(rt_free_port)
rt_nginx tls "
	server {
		listen 127.0.0.1:$P ssl;
		ssl_certificate $T/cert.pem;
		ssl_certificate_key $T/key.pem;
		location /store/ { alias $STORE/; autoindex on; }
	}"
for _ in $(seq 100); do
	curl -s --cacert "$T/cert.pem" -o /dev/null "https://127.0.0.1:$P/store/" && break
	sleep 0.1
done
URL=https://127.0.0.1:$P/store/

rc=0
"$ROCKPACK" --cache "$T/c1" ls "$URL" >/dev/null 2>"$T/untrusted.err" || rc=$?
[ "$rc" = 1 ] || fail "rockpack on an untrusted certificate: exit $rc, want 1"
[ "$(wc -l <"$T/untrusted.err")" = 1 ] || fail "want one line, got: $(cat "$T/untrusted.err")"
for want in "127.0.0.1:$P" "not trusted" "CURL_CA_BUNDLE"; do
	grep -qF "$want" "$T/untrusted.err" || fail "the message does not say '$want': $(cat "$T/untrusted.err")"
done

it_mount bad "$URL" "$T/bad" "$T/c2"
ls "$T/bad/" >/dev/null 2>&1 && fail "an untrusted server was listed"
grep -q "not trusted" "$T/bad.log" || fail "no log line about the certificate: $(tail -3 "$T/bad.log")"
it_umount bad

CURL_CA_BUNDLE=$T/cert.pem "$ROCKPACK" --cache "$T/c3" ls "$URL" "$RUN" >"$T/ls" 2>"$T/ls.err" ||
	fail "with CURL_CA_BUNDLE: $(cat "$T/ls.err")"
grep -q "core-hip_lib_generic" "$T/ls" || fail "with CURL_CA_BUNDLE: no artifacts listed"
SSL_CERT_FILE=$T/cert.pem "$ROCKPACK" --cache "$T/c4" ls "$URL" "$RUN" >/dev/null 2>"$T/ls2.err" ||
	fail "with SSL_CERT_FILE: $(cat "$T/ls2.err")"
export CURL_CA_BUNDLE=$T/cert.pem
it_mount good "$URL" "$T/good" "$T/c5"
cmp -s "$T/good/$RUN/browse/core-hip_lib_generic/artifact_manifest.txt" \
	<(tar -xOf <(zstd -dc "$STORE/$RUN/core-hip_lib_generic.tar.zst") artifact_manifest.txt) ||
	fail "with CURL_CA_BUNDLE: the mount reads wrong bytes"
it_umount good
it_finish
