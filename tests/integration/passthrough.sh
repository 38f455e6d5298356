#!/usr/bin/env bash
# passthrough: plain files are read by the kernel from their cache blobs (FUSE
# passthrough, fs/passthrough.c), everything else through the daemon, and the bytes are
# right either way (issue 30). Counted with the status file (passthrough_opens) and in
# the daemon's -d output (libfuse logs "opcode: READ, nodeid: N" for every read that
# reaches it; a file's nodeid is its inode number):
#  1. a browse/ file (one cache blob): each open passes through, no READ reaches the
#     daemon, its bytes equal `rockpack export`'s, also read by two readers at once and
#     through mmap; an O_DIRECT open of it while it is passed through reads aligned blocks;
#  2. a tarball .tar (a composite): not passed through, READs reach the daemon, bytes right;
#  3. a member still streaming behind its ingest (an http:// store behind
#     tests/remote/faultproxy.py holding its archive half-way, as stream_member): not
#     passed through while it streams, nor a second open while the first is still open
#     (the kernel refuses mixed opens of an inode); once its artifact is published, a new
#     open passes through; bytes right all along;
#  4. -o nopassthrough: status says off, READs reach the daemon, bytes right.
# As root, the mount's read-ahead is raised to 1 MiB with passthrough and left at the
# kernel's 128 KiB without (fs/readahead.c).
# Skipped (77) when rockfs was built with a libfuse without passthrough (Debian 12's
# 3.14; tools/test.sh's fuse317 step builds one), or when the kernel or the daemon's
# capabilities do not allow it; RK_REQUIRE_PASSTHROUGH=1 (that step) makes those a failure.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../remote/remote.sh"
it_init "$@"

if ! "$ROCKFS" --version | grep -q '^FUSE passthrough: built in'; then
	[ -z "${RK_REQUIRE_PASSTHROUGH:-}" ] || die "rockfs was built without passthrough"
	skip "rockfs was built with a libfuse without passthrough (3.17 or later has it:" \
		"packaging/build-libfuse.sh)"
fi

RUN=24205988454-linux
X=gfx110X-all
TB=therock-dist-linux-$X-7.13.0.dev0+abc1234.tar

# st MNT KEY: a value of the mount's status file
st() { sed -n "s/^$2: //p" "$1/.rockfs-status"; }
# mark NAME / reads NAME INO: the READs of inode INO the daemon logged since the mark
# idle MNT: until no archive is being decompressed (a member opened while its archive is
# ingested streams, and is rightly not passed through)
idle() {
	local i
	for ((i = 0; i < 1200; i++)); do
		[ "$(st "$1" ingests_running)$(st "$1" ingests_waiting)" = 00 ] && return 0
		sleep 0.1
	done
	fail "$1: ingests still running after 120 s"
}
declare -A MARK
mark() { MARK[$1]=$(wc -l <"${IT_LOG[$1]}"); }
reads() {
	tail -n +"$((${MARK[$1]} + 1))" "${IT_LOG[$1]}" | grep -c "opcode: READ ([0-9]*), nodeid: $2," || true
}

M=$T/on
it_mount on "$STORE" "$M" "$T/cache" -d
state=$(st "$M" passthrough)
if [ "$state" != on ]; then
	[ -z "${RK_REQUIRE_PASSTHROUGH:-}" ] || die "passthrough: $state"
	skip "passthrough: $state"
fi
[ "$(st "$M" passthrough_opens)" = 0 ] || fail "passthrough_opens before any open: $(st "$M" passthrough_opens)"
# the mount's read-ahead raised to 1 MiB (fs/readahead.c: composites are read in 1 MiB
# requests; root writes the mount's bdi)
bdi() { cat "/sys/class/bdi/$(mountpoint -d "$1")/read_ahead_kb"; }
if [ "$(id -u)" = 0 ]; then
	[ "$(st "$M" mount_read_ahead_kb)" = 1024 ] || fail "mount_read_ahead_kb $(st "$M" mount_read_ahead_kb), want 1024"
	[ "$(bdi "$M")" = 1024 ] || fail "the mount's read_ahead_kb is $(bdi "$M"), want 1024"
fi

# 1. a cache blob
A=blas_lib_gfx110X-all
"$ROCKPACK" --cache "$T/cache-x" -q export "$STORE" "$RUN" "browse/$A" -o "$T/x" ||
	fail "rockpack export browse/$A"
rel=$(cd "$T/x" && find . -type f -size +4k -printf '%s %P\n' | sort -n | tail -n 1 | cut -d' ' -f2-)
[ -n "$rel" ] || die "browse/$A has no file over 4 KiB to read"
F=$M/$RUN/browse/$A/$rel
ino=$(stat -c %i "$F")
idle "$M"
mark on
cmp "$T/x/$rel" "$F" || fail "browse/$A/$rel: bytes differ from rockpack export"
[ "$(st "$M" passthrough_opens)" = 1 ] || fail "one open of a blob: passthrough_opens $(st "$M" passthrough_opens), want 1"
[ "$(reads on "$ino")" = 0 ] || fail "a passed-through blob: $(reads on "$ino") READs reached the daemon"
# two readers at once (one backing file for both), mmap, and O_DIRECT of aligned blocks
cat >"$T/two.py" <<'PY'
import mmap, os, sys
path, ref = sys.argv[1:]
want = open(ref, "rb").read()
with open(path, "rb", buffering=0) as a, open(path, "rb", buffering=0) as b:
    if a.read() != want or b.read() != want:
        sys.exit("two readers at once: bytes differ")
    m = mmap.mmap(a.fileno(), 0, prot=mmap.PROT_READ)
    if m[:] != want:
        sys.exit("mmap: bytes differ")
    m.close()
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    buf = mmap.mmap(-1, 65536)
    n = os.preadv(fd, [buf], 0)
    os.close(fd)
    if buf[:n] != want[:n] or n != min(65536, len(want)):
        sys.exit("O_DIRECT beside a passed-through open: bytes differ (%d read)" % n)
print("ok")
PY
out=$(python3 "$T/two.py" "$F" "$T/x/$rel") || fail "$out"
[ "$(st "$M" passthrough_opens)" = 4 ] ||
	fail "two readers and an O_DIRECT open: passthrough_opens $(st "$M" passthrough_opens), want 4"
[ "$(reads on "$ino")" = 0 ] || fail "two readers: $(reads on "$ino") READs reached the daemon"

# 2. a composite
"$ROCKPACK" --cache "$T/cache-x" -q export "$STORE" "$RUN" "tarballs/$TB" -o "$T/x" ||
	fail "rockpack export tarballs/$TB"
F=$M/$RUN/tarballs/$TB
ino=$(stat -c %i "$F")
n=$(st "$M" passthrough_opens)
mark on
cmp "$T/x/$TB" "$F" || fail "tarballs/$TB: bytes differ from rockpack export"
[ "$(st "$M" passthrough_opens)" = "$n" ] || fail "a composite was passed through"
[ "$(reads on "$ino")" -gt 0 ] || fail "a composite: no READ reached the daemon"
it_quiet_log on
it_umount on

# 3. a member streaming behind its ingest (tests/remote/faultproxy.py's hold)
command -v nginx >/dev/null || skip "nginx is not installed (packaging/install-deps.sh)"
R=7-linux
S=$T/store
mkdir -p "$S/$R" "$T/src/huge/big/lib"
head -c $((24 << 20)) /dev/urandom >"$T/src/huge/big/lib/libhuge.so"
it_mkart "$S/$R" huge_lib_generic big/lib "$T/src/huge/big/lib/libhuge.so:libhuge.so"
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
# reader.py FILE SRC GO: the first MiB while the archive is held (released then: GO),
# the rest, then a second open while the first is still open; "first-ok", "whole",
# "second-ok", or what failed
cat >"$T/reader.py" <<'PY'
import os, sys
path, src, go = sys.argv[1:]
want = open(src, "rb").read()
with open(path, "rb", buffering=0) as f:
    if f.read(1 << 20) != want[: 1 << 20]:
        sys.exit("the first MiB differs from the source")
    if os.path.exists(go):
        sys.exit("released before the first MiB was read")
    print("first-ok", flush=True)
    open(go, "w").close()
    rest = b""
    while True:
        b = f.read(1 << 20)
        if not b:
            break
        rest += b
    if rest != want[1 << 20 :]:
        sys.exit("bytes past the first MiB differ from the source")
    print("whole", flush=True)
    with open(path, "rb") as g:
        if g.read() != want:
            sys.exit("a second open while the first is open: bytes differ")
    print("second-ok")
PY
rm -f "$SCHED.go"
M=$T/stream
it_mount stream "http://127.0.0.1:$RT_PORT/store/" "$M" "$T/cache-s" -o timeout=60 -d
ls "$M/$R/browse" >/dev/null
echo "ok,hold" >"$SCHED"
F=$M/$R/browse/huge_lib_generic/big/lib/libhuge.so
out=$(timeout 120 python3 "$T/reader.py" "$F" "$SRC" "$SCHED.go") || fail "streaming read: $out"
[ "$out" = "first-ok
whole
second-ok" ] || fail "streaming read: want first-ok, whole, second-ok; got: $out"
echo ok >"$SCHED"
[ "$(rt_count "$T/fp.log" '^REQ GET .*huge_lib_generic.tar.zst hold ')" -eq 1 ] ||
	fail "the archive was not read through the holding proxy: $(cat "$T/fp.log")"
[ "$(st "$M" passthrough_opens)" = 0 ] ||
	fail "a streaming member was passed through (passthrough_opens $(st "$M" passthrough_opens))"
# once the artifact is published (its ingest done), a new open passes through
idle "$M"
ino=$(stat -c %i "$F")
mark stream
cmp "$SRC" "$F" || fail "the member once published differs from its source"
[ "$(st "$M" passthrough_opens)" = 1 ] ||
	fail "the member once published: passthrough_opens $(st "$M" passthrough_opens), want 1"
[ "$(reads stream "$ino")" = 0 ] || fail "the member once published: $(reads stream "$ino") READs"
it_quiet_log stream
it_umount stream

# 4. -o nopassthrough: the splice path
M=$T/off
it_mount off "$STORE" "$M" "$T/cache" -d -o nopassthrough
[ "$(st "$M" passthrough)" = "off (-o nopassthrough)" ] ||
	fail "-o nopassthrough: status says passthrough: $(st "$M" passthrough)"
[ "$(st "$M" mount_read_ahead_kb)" = 0 ] && [ "$(bdi "$M")" = 128 ] ||
	fail "-o nopassthrough: the mount's read-ahead was changed ($(bdi "$M") KiB)"
F=$M/$RUN/browse/$A/$rel
ino=$(stat -c %i "$F")
mark off
cmp "$T/x/$rel" "$F" || fail "nopassthrough: browse/$A/$rel differs from rockpack export"
[ "$(reads off "$ino")" -gt 0 ] || fail "nopassthrough: no READ reached the daemon"
[ "$(st "$M" passthrough_opens)" = 0 ] || fail "nopassthrough: passthrough_opens $(st "$M" passthrough_opens)"
it_quiet_log off
it_finish
