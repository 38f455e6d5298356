#!/usr/bin/env bash
# cache_swap: cache files moved to another key, and blobs changed under a running mount
# (issue 26, item 5). A clean mount reads every view of every run (sha256 of every file).
# Then two records of each kind (index/, pieces/, kpack/, pyhash/, pkghash/) and two blobs
# of one size are swapped, as any member of a group-shared cache can: a remount on the
# same cache must show every view byte for byte as the clean mount did, with one log line
# naming each swapped record and blob; `rockpack cache verify` on the same swaps exits 1
# and names them. Then, under a running mount, a blob that was read is rewritten in
# place, and another truncated: a read gives the clean bytes or EIO, never other bytes or
# a short read, the read after it the clean bytes, and every view stays as clean.
. "$(dirname "$0")/lib.sh"
it_init "$@"

C=$T/cache
M=$T/mnt
KINDS="index pieces kpack pyhash pkghash"

it_mount clean "$STORE" "$M" "$C"
it_sums "$M" >"$T/clean.sums" || fail "clean mount: unreadable"
it_quiet_log clean
it_umount clean
[ "$(wc -l <"$T/clean.sums")" -ge 100 ] || fail "clean mount: only $(wc -l <"$T/clean.sums") files"

# Swap two records of each kind (the first two names, in order, whose contents differ)
# and two blobs of one size with different contents; print one line per file moved:
# "KIND/NAME" for a record, "blobs/XX/ID" for a blob.
swap() {
	# shellcheck disable=SC2086
	python3 - "$C" $KINDS <<'EOF'
import collections, os, sys
cache, kinds = sys.argv[1], sys.argv[2:]

def data(p):
    with open(p, "rb") as f:
        return f.read()

def swap(a, b):
    for p in (a, b):
        os.chmod(p, os.stat(p).st_mode | 0o200)  # as the owner can (blobs are 0400)
    os.rename(a, a + ".swap")
    os.rename(b, a)
    os.rename(a + ".swap", b)
    print(os.path.relpath(a, cache))
    print(os.path.relpath(b, cache))

def pair(paths):
    for i, a in enumerate(paths):
        for b in paths[i + 1:]:
            if data(a) != data(b):
                return a, b
    return None

for kind in kinds:
    d = os.path.join(cache, kind)
    paths = [os.path.join(d, n) for n in sorted(os.listdir(d))] if os.path.isdir(d) else []
    p = pair(paths)
    if not p:
        print(f"{kind}/ NONE")
        continue
    swap(*p)
by_size = collections.defaultdict(list)
for sub in sorted(os.listdir(os.path.join(cache, "blobs"))):
    d = os.path.join(cache, "blobs", sub)
    for n in sorted(os.listdir(d)):
        st = os.stat(os.path.join(d, n))
        if st.st_size:
            by_size[st.st_size].append(os.path.join(d, n))
for size in sorted(by_size, reverse=True):
    p = pair(by_size[size])
    if p:
        swap(*p)
        break
else:
    print("blobs/ NONE")
EOF
}

swap >"$T/swapped"
it_say "swapped: $(tr '\n' ' ' <"$T/swapped")"
grep -q NONE "$T/swapped" && fail "nothing to swap: $(grep NONE "$T/swapped")"
[ "$(grep -c '^blobs/' "$T/swapped")" = 2 ] || fail "no two blobs swapped"

it_mount swapped "$STORE" "$M" "$C"
it_sums "$M" >"$T/swapped.sums" || fail "after the swaps: unreadable"
it_same "every view after two records of each kind and two blobs were swapped" \
	"$T/clean.sums" "$T/swapped.sums"
it_umount swapped
# (of two swapped blobs, the first one read is discarded and its archive decompressed
# again, which writes the other one anew: that one may never be read bad)
nblobs=0
while read -r rec; do
	case $rec in
	blobs/*)
		id=${rec##*/}
		n=$(grep -c "bad blob discarded: blob ${id:0:12}: " "${IT_LOG[swapped]}" || true)
		nblobs=$((nblobs + n))
		[ "$n" -le 1 ] || fail "swapped $rec: $n log lines naming it, want at most 1"
		;;
	*)
		n=$(grep -c "record '$rec' failed its check" "${IT_LOG[swapped]}" || true)
		[ "$n" = 1 ] || fail "swapped $rec: $n log lines naming it, want 1"
		;;
	esac
done <"$T/swapped"
[ "$nblobs" -ge 1 ] || fail "swapped blobs: no log line names either"

# verify: the same swaps again (the files were made again), named and counted per kind
swap >"$T/swapped2"
rc=0
"$ROCKPACK" --cache "$C" cache verify >"$T/verify.out" 2>"$T/verify.err" || rc=$?
[ "$rc" = 1 ] || fail "cache verify exited $rc with swapped records: $(cat "$T/verify.out")"
for k in $KINDS; do
	grep -qE "^$k +[0-9]+ records, 2 bad$" "$T/verify.out" ||
		fail "cache verify: want 2 bad $k records: $(grep "^$k " "$T/verify.out")"
done
grep -qE '^ +2 bad$' "$T/verify.out" || fail "cache verify: want 2 bad blobs: $(cat "$T/verify.out")"
while read -r rec; do
	case $rec in
	blobs/*) grep -q "blob '$rec' failed its hash" "$T/verify.err" ;;
	*) grep -q "record '$rec' failed its check" "$T/verify.err" ;;
	esac || fail "cache verify did not name $rec: $(cat "$T/verify.err")"
done <"$T/swapped2"
"$ROCKPACK" --cache "$C" cache verify >"$T/verify2.out" 2>&1 || fail "second verify: $(cat "$T/verify2.out")"

# what verify deleted is made again (and so the next mount reads every file from blobs,
# none streamed behind its archive's decompression: see docs/internals/cache.md)
it_mount remade "$STORE" "$M" "$C"
it_sums "$M" >"$T/remade.sums" || fail "after verify: unreadable"
it_same "every view after verify deleted the swapped files" "$T/clean.sums" "$T/remade.sums"
it_quiet_log remade
it_umount remade

# ---- blobs changed under a running mount ----
# the two largest files of browse/ with blobs of their own (a blob is named by the sha256
# of the file), one per change: "SHA256 PATH"
python3 - "$T/clean.sums" "$C" >"$T/live" <<'EOF'
import os, re, sys
seen, files = set(), []
for line in open(sys.argv[1]):
    m = re.match(r"([0-9a-f]{64})  (\./[^/]+/browse/.*)$", line.rstrip("\n"))
    if not m or m.group(1) in seen:
        continue
    seen.add(m.group(1))
    blob = os.path.join(sys.argv[2], "blobs", m.group(1)[:2], m.group(1))
    if os.path.exists(blob):
        files.append((-os.stat(blob).st_size, m.group(2), m.group(1)))
for _, path, sha in sorted(files)[:2]:
    print(sha, path)
EOF
[ "$(wc -l <"$T/live")" = 2 ] || fail "browse/: no two files of two blobs: $(cat "$T/live")"

# read FILE, dropping its cached pages first: "ok SHA256", or "error ERRNO-NAME"
read_fresh() {
	python3 - "$1" <<'EOF'
import errno, hashlib, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
h = hashlib.sha256()
try:
    while True:
        b = os.read(fd, 1 << 20)
        if not b:
            break
        h.update(b)
    print("ok", h.hexdigest())
except OSError as e:
    print("error", errno.errorcode.get(e.errno, e.errno))
EOF
}

it_mount live "$STORE" "$M" "$C"
k=0
while read -r sum path; do
	k=$((k + 1))
	blob=$C/blobs/${sum:0:2}/$sum
	[ -f "$blob" ] || { fail "blob of $path is not in the cache"; continue; }
	got=$(read_fresh "$M/$path")
	[ "$got" = "ok $sum" ] || fail "live: $path before the change: $got"
	chmod u+w "$blob"
	if [ "$k" = 1 ]; then
		what=rewritten # the first byte changed, in place: same inode, same size
		python3 -c 'import sys
with open(sys.argv[1], "r+b") as f:
    b = f.read(1)
    f.seek(0)
    f.write(bytes([b[0] ^ 0xff]))' "$blob"
	else
		what=truncated
		truncate -s $(($(stat -c %s "$blob") / 2)) "$blob"
	fi
	got=$(read_fresh "$M/$path")
	case $got in
	"ok $sum" | "error EIO") it_say "live: $path, blob $what: first read $got" ;;
	*) fail "live: $path, its blob $what under the mount: read $got, want the clean bytes or EIO" ;;
	esac
	got=$(read_fresh "$M/$path")
	[ "$got" = "ok $sum" ] || fail "live: $path, its blob $what: the read after: $got, want ok $sum"
	grep -q "bad blob discarded: blob ${sum:0:12}" "${IT_LOG[live]}" ||
		fail "live: blob $what under the mount: no log line naming ${sum:0:12}"
done <"$T/live"
it_sums "$M" >"$T/live.sums" || fail "live: unreadable after the changes"
it_same "every view after blobs were changed under the mount" "$T/clean.sums" "$T/live.sums"
it_umount live

it_finish
