#!/usr/bin/env bash
# stream_member: a member streams while its archive is decompressed (issue 14, section 1).
# An http:// store (nginx autoindex) behind tests/remote/faultproxy.py, which sends the
# first half of the archive and holds the rest until the test releases it:
#  - hold: the first MiB of the archive's large last member reads right while the rest of
#    the archive has not even arrived (a read waits at the write frontier, never past it);
#    once released, the whole member equals its source (cmp);
#  - holdbad: the first MiB reads right; then the rest of the archive arrives corrupt, and
#    the same reader's next reads fail with EIO (bytes below the frontier included: the
#    kernel may still hold pages it already gave out); a new reader fails with EIO; the log
#    names the archive; the other artifact of the run still reads right; the daemon stays up.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../remote/remote.sh"
it_init "$@"
command -v nginx >/dev/null || skip "nginx is not installed (packaging/install-deps.sh)"

RUN=7-linux
S=$T/store
mkdir -p "$S/$RUN" "$T/src/huge/big/lib" "$T/src/note/small/share"
head -c $((24 << 20)) /dev/urandom >"$T/src/huge/big/lib/libhuge.so"
echo small >"$T/src/note/small/share/note.txt"
it_mkart "$S/$RUN" huge_lib_generic big/lib "$T/src/huge/big/lib/libhuge.so:libhuge.so"
it_mkart "$S/$RUN" note_lib_generic small/share "$T/src/note/small/share/note.txt:note.txt"

P=$(rt_free_port)
rt_nginx ng "
	server {
		listen 127.0.0.1:$P;
		location /store/ { alias $S/; autoindex on; }
	}"
rt_wait_http "http://127.0.0.1:$P/store/"
rt_proxy fp "http://127.0.0.1:$P"
SCHED=$T/fp.schedule
SRC=$T/src/huge/big/lib/libhuge.so

# reader.py FILE SRC GO: read FILE's first MiB (must equal the source's, while the proxy
# still holds the archive's second half), release the proxy (create GO), then read on to
# the end; prints "first-ok" and then "whole" or the errno of the first failing read.
cat >"$T/reader.py" <<'PY'
import os, sys
path, src, go = sys.argv[1:]
with open(path, "rb", buffering=0) as f, open(src, "rb") as s:
    first = f.read(1 << 20)
    if first != s.read(1 << 20):
        sys.exit("the first MiB differs from the source")
    if os.path.exists(go):
        sys.exit("released before the first MiB was read")
    print("first-ok", flush=True)
    open(go, "w").close()
    try:
        while True:
            b = f.read(1 << 20)
            if not b:
                break
            if b != s.read(len(b)):
                sys.exit("bytes past the first MiB differ from the source")
        print("whole")
    except OSError as e:
        print("errno", e.errno)
PY

# 1. hold: streaming, then the whole member
rm -f "$SCHED.go"
echo "ok" >"$SCHED"
it_mount h "http://127.0.0.1:$RT_PORT/store/" "$T/h" "$T/cache-h" -o timeout=60
ls "$T/h/$RUN/browse" >/dev/null
# the sidecar passes, the archive is held half-way
echo "ok,hold" >"$SCHED"
F=$T/h/$RUN/browse/huge_lib_generic/big/lib/libhuge.so
out=$(timeout 120 python3 "$T/reader.py" "$F" "$SRC" "$SCHED.go") ||
	fail "streaming read: $out"
[ "$out" = "first-ok
whole" ] || fail "streaming read: want first-ok then whole, got: $out"
[ "$(rt_count "$T/fp.log" '^REQ GET .*huge_lib_generic.tar.zst hold ')" -eq 1 ] ||
	fail "the archive was not read through the holding proxy: $(cat "$T/fp.log")"
cmp "$SRC" "$F" || fail "the streamed member differs from its source"
echo ok >"$SCHED"
cmp "$T/src/note/small/share/note.txt" "$T/h/$RUN/browse/note_lib_generic/small/share/note.txt" ||
	fail "the other artifact"
it_quiet_log h
it_umount h

# 2. holdbad: the archive turns out corrupt after its first half was served
rm -f "$SCHED.go"
echo "ok" >"$SCHED"
it_mount b "http://127.0.0.1:$RT_PORT/store/" "$T/b" "$T/cache-b" -o timeout=60
ls "$T/b/$RUN/browse" >/dev/null
echo "ok,holdbad" >"$SCHED"
F=$T/b/$RUN/browse/huge_lib_generic/big/lib/libhuge.so
out=$(timeout 120 python3 "$T/reader.py" "$F" "$SRC" "$SCHED.go") ||
	fail "corrupt archive: $out"
[ "$out" = "first-ok
errno 5" ] || fail "corrupt archive: want first-ok then errno 5 (EIO), got: $out"
echo ok >"$SCHED"
if cat "$F" >/dev/null 2>"$T/cat.err"; then
	fail "a new open of a member of the corrupt archive succeeded"
fi
grep -q 'Input/output error' "$T/cat.err" || fail "new open: $(cat "$T/cat.err") (want EIO)"
grep -q "huge_lib_generic.tar.zst.*unusable" "${IT_LOG[b]}" ||
	fail "the log does not say which archive failed"
grep -q "read at .* of a file of 'huge_lib_generic.tar.zst': its archive failed" "${IT_LOG[b]}" ||
	fail "the log does not say that a reader got EIO"
cmp "$T/src/note/small/share/note.txt" "$T/b/$RUN/browse/note_lib_generic/small/share/note.txt" ||
	fail "the other artifact after the corrupt one"
it_alive b
it_umount b
it_finish
