#!/usr/bin/env bash
# remote_lying: sizes come from what the server sends, and a wrong Content-Length is a
# transient error. An http:// store (nginx autoindex) behind tests/remote/faultproxy.py:
#  - a listing that says each archive is half its size (HEAD answers, "headsmall"): the
#    archive in artifacts/ is never served cut short; reading it fails with EIO and one
#    log line naming its URL, the listed and the real size (the Content-Range total of
#    the ranged answer shows the truth); its browse/ fails with EIO too;
#  - answers whose Content-Length is 10 bytes short of the body they send ("short10":
#    the last 10 bytes stay on the kept-alive connection): between good answers, every
#    file reads right (the retry asks on a new connection); when every answer is short,
#    reads fail with EIO, and once the server is right again the same mount reads every
#    file right (before issue 26: "Unsupported protocol", EIO for the life of the mount).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../remote/remote.sh"
it_init "$@"
unset http_proxy https_proxy HTTPS_PROXY all_proxy ALL_PROXY

RUN=24205988454-linux
PN=$(rt_free_port)
rt_nginx ng "
	server {
		listen 127.0.0.1:$PN;
		location /store/ { alias $STORE/; autoindex on; index none.html; }
	}"
rt_wait_http "http://127.0.0.1:$PN/store/"
rt_proxy fp "http://127.0.0.1:$PN"
URL=http://127.0.0.1:$RT_PORT/store/
SCHED=$T/fp.schedule

it_mount local "$STORE" "$T/local" "$T/cache-local"
# an archive larger than one 64 KiB small object: read through ranged requests
art=$(cd "$STORE/$RUN" && ls -S *.tar.zst | grep -v '[:+]' | head -n1)
stem=${art%.tar.zst}
size=$(stat -c %s "$STORE/$RUN/$art")
[ "$size" -gt 65536 ] || die "no archive larger than 64 KiB in $RUN"

# 1. a listing that says every file is half its size
echo headsmall >"$SCHED"
it_mount lie "$URL" "$T/lie" "$T/cache-lie" -o timeout=10,retries=2
listed=$(stat -c %s "$T/lie/$RUN/artifacts/$art")
echo ok >"$SCHED"
[ "$listed" = $((size / 2)) ] || die "the proxy's listing did not lie ($listed, real $size)"
if cat "$T/lie/$RUN/artifacts/$art" >"$T/lie.out" 2>"$T/lie.err"; then
	fail "an archive listed at half its size was served ($(stat -c %s "$T/lie.out") bytes, real $size)"
fi
grep -q 'Input/output error' "$T/lie.err" || fail "listed smaller: $(cat "$T/lie.err") (want EIO)"
n=$(grep -cF "$RUN/$art': the server sends $size bytes, the listing said $listed" "$T/lie.log" || true)
[ "$n" -ge 1 ] && [ "$n" -le 2 ] ||
	fail "listed smaller: want a log line (one per open) naming the URL and both sizes, got $n: $(grep -F "$art" "$T/lie.log" || true)"
if ls "$T/lie/$RUN/browse/$stem/" >/dev/null 2>&1; then
	fail "the browse/ of an archive listed smaller than it is was served"
fi
it_alive lie
it_umount lie

# 2. Content-Length 10 bytes short, between good answers: every file right
it_sums "$T/local/$RUN" >"$T/want.sums"
echo "short10,ok,ok" >"$SCHED"
it_mount sh "$URL" "$T/sh" "$T/cache-sh" -o timeout=20,retries=4
it_sums "$T/sh/$RUN" >"$T/sh.sums" || fail "short Content-Length between good answers: unreadable files"
it_same "short Content-Length between good answers" "$T/want.sums" "$T/sh.sums"
[ "$(rt_count "$T/fp.log" ' short10 20[06]')" -gt 0 ] || fail "the proxy never sent a short Content-Length"
it_alive sh
it_umount sh

# 3. every answer short: EIO; then the server is right: the same mount reads right
echo ok >"$SCHED"
it_mount st "$URL" "$T/st" "$T/cache-st" -o timeout=5,retries=2
ls "$T/st/$RUN/artifacts" >/dev/null || fail "listing before the short answers failed"
echo short10 >"$SCHED"
if cat "$T/st/$RUN/artifacts/$art" >/dev/null 2>"$T/st1.err"; then
	fail "every answer 10 bytes short: the archive was served"
fi
if cat "$T/st/$RUN/browse/$stem/$(cd "$T/local/$RUN/browse/$stem" && find . -type f | sort | head -n1)" \
	>/dev/null 2>"$T/st2.err"; then
	fail "every answer 10 bytes short: a member of the archive was served"
fi
grep -q 'Input/output error' "$T/st1.err" || fail "short answers: artifacts/: $(cat "$T/st1.err") (want EIO)"
grep -q 'Input/output error' "$T/st2.err" || fail "short answers: browse/: $(cat "$T/st2.err") (want EIO)"
echo ok >"$SCHED"
cmp "$STORE/$RUN/$art" "$T/st/$RUN/artifacts/$art" || fail "after the short answers: artifacts/$art wrong or EIO"
it_sums "$T/st/$RUN/browse/$stem" >"$T/st.sums" || fail "after the short answers: browse/$stem unreadable"
it_sums "$T/local/$RUN/browse/$stem" >"$T/want-b.sums"
it_same "after the short answers: browse/$stem" "$T/want-b.sums" "$T/st.sums"
it_alive st
it_umount st

it_umount local
it_finish
