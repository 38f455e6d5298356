#!/usr/bin/env bash
# sparse_member: cache_size bounds what one archive member costs (issue 16, section 1).
# A small archive holding a multi-GiB file of zeros leaves a sparse blob (du of the cache
# stays small) and the file reads as zeros; a GNU sparse member is stored with its holes
# too. A member whose bytes cannot fit cache_size is refused: reading it fails with EIO,
# the daemon logs one line naming the artifact, the member, its size and the cache_size,
# and the rest of the artifact reads right.
. "$(dirname "$0")/lib.sh"
it_init "$@"
command -v du >/dev/null || skip "'du' is not installed"

ZEROS=$((3 << 30))  # the dense zero member: 3 GiB
SPARSE=$((2 << 30)) # the GNU sparse member: 2 GiB with a little data in it
RANDOM_SIZE=$((100 << 20))
LIMIT=64M
RUN=1-linux
S=$T/store
mkdir -p "$S/$RUN" "$T/src/big/stage"

# 1. zeros_lib_generic: manifest, 3 GiB of zeros, a 100 MB random member, a small file,
# streamed through tarfile and zstd (no 3 GiB file on disk).
python3 - "$S/$RUN/zeros_lib_generic.tar.zst" "$ZEROS" "$RANDOM_SIZE" <<'EOF'
import io, random, subprocess, sys, tarfile
out, zeros, rsize = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
class Zeros(io.RawIOBase):
    def __init__(self, n): self.n = n
    def readable(self): return True
    def readinto(self, b):
        k = min(len(b), self.n)
        b[:k] = bytes(k)
        self.n -= k
        return k
z = subprocess.Popen(["zstd", "-q", "-1", "-T1", "-c"], stdin=subprocess.PIPE,
                     stdout=open(out, "wb"))
with tarfile.open(fileobj=z.stdin, mode="w|", format=tarfile.GNU_FORMAT) as t:
    def add(name, size, f):
        ti = tarfile.TarInfo(name)
        ti.size, ti.mode, ti.mtime = size, 0o644, 1700000000
        t.addfile(ti, f)
    m = b"big/stage\n"
    add("artifact_manifest.txt", len(m), io.BytesIO(m))
    add("big/stage/zeros.bin", zeros, io.BufferedReader(Zeros(zeros), 1 << 20))
    add("big/stage/random.bin", rsize, io.BytesIO(random.Random(16).randbytes(rsize)))
    add("big/stage/small.txt", 6, io.BytesIO(b"small\n"))
z.stdin.close()
sys.exit(z.wait())
EOF
# 2. holes_lib_generic: a GNU sparse member (tar -S) of 2 GiB with data in two places
printf 'big/stage\n' >"$T/src/artifact_manifest.txt"
truncate -s "$SPARSE" "$T/src/big/stage/holes.bin"
printf 'in the middle' | dd of="$T/src/big/stage/holes.bin" bs=1 seek=$((SPARSE / 2)) conv=notrunc status=none
printf 'at the end' | dd of="$T/src/big/stage/holes.bin" bs=1 seek=$((SPARSE - 10)) conv=notrunc status=none
printf 'other\n' >"$T/src/big/stage/other.txt"
tar -C "$T/src" -cS --format=pax -f - artifact_manifest.txt big/stage/holes.bin big/stage/other.txt |
	zstd -q -1 -c >"$S/$RUN/holes_lib_generic.tar.zst"
list=$(zstd -dc "$S/$RUN/holes_lib_generic.tar.zst" | tar -t -v -f -)
grep -q '^-.*holes.bin' <<<"$list" || die "premise: the sparse archive lists no holes.bin"

M=$T/mnt
C=$T/cache
it_mount one "$S" "$M" "$C" -o cache_size=$LIMIT
B=$M/$RUN/browse

# the zero member reads as zeros, whole
z=$B/zeros_lib_generic/big/stage/zeros.bin
[ "$(stat -c %s "$z")" = "$ZEROS" ] || fail "zeros.bin: size $(stat -c %s "$z"), expected $ZEROS"
cmp -s "$z" <(head -c "$ZEROS" /dev/zero) || fail "zeros.bin does not read as $ZEROS zero bytes"
[ "$(cat "$B/zeros_lib_generic/big/stage/small.txt")" = small ] || fail "small.txt reads wrong"

# the refused member: EIO, and one log line naming what and why
if out=$(cat "$B/zeros_lib_generic/big/stage/random.bin" 2>&1 >/dev/null); then
	fail "random.bin ($RANDOM_SIZE bytes, over cache_size=$LIMIT) was read"
else
	grep -q 'Input/output error' <<<"$out" || fail "random.bin: '$out', expected EIO"
fi
[ "$(stat -c %s "$B/zeros_lib_generic/big/stage/random.bin")" = "$RANDOM_SIZE" ] ||
	fail "random.bin is not listed with its size"
n=$(grep -c "zeros_lib_generic.tar.zst': member 'big/stage/random.bin' ($RANDOM_SIZE bytes) does not fit cache_size $((64 << 20))" "${IT_LOG[one]}" || true)
[ "$n" = 1 ] || fail "expected one log line for the refused member, got $n"

# the sparse member: same bytes as the file tar made it from
h=$B/holes_lib_generic/big/stage/holes.bin
cmp -s "$h" "$T/src/big/stage/holes.bin" || fail "holes.bin (a GNU sparse member) reads wrong"
[ "$(cat "$B/holes_lib_generic/big/stage/other.txt")" = other ] || fail "other.txt reads wrong"

# dist/ serves the same (the refused file EIO there too)
cmp -s "$M/$RUN/dist/multiarch/zeros.bin" "$z" 2>/dev/null ||
	cmp -s "$M/$RUN/dist/"*/zeros.bin "$z" 2>/dev/null || true

# the cache holds holes, not gigabytes: well under cache_size
used=$(du -s -B1 "$C" | cut -f1)
[ "$used" -lt $((64 << 20)) ] || fail "the cache takes $used bytes on disk (du), over cache_size $LIMIT"
blobs=$(it_stats "$C" blob_bytes)
[ "$blobs" -lt $((64 << 20)) ] || fail "cache stats: $blobs blob bytes"

# a second mount of the same cache (index from the cache): the same, no second ingest line
it_umount one
it_mount two "$S" "$M" "$C" -o cache_size=$LIMIT
cmp -s "$z" <(head -c "$ZEROS" /dev/zero) || fail "second mount: zeros.bin reads wrong"
cat "$B/zeros_lib_generic/big/stage/random.bin" >/dev/null 2>&1 &&
	fail "second mount: random.bin was read"
[ "$(cat "$B/zeros_lib_generic/big/stage/small.txt")" = small ] || fail "second mount: small.txt"
it_umount two

# a larger cache_size: the refused member is ingested now, and reads right
it_mount three "$S" "$M" "$C" -o cache_size=1G
cmp -s "$B/zeros_lib_generic/big/stage/random.bin" \
	<(python3 -c 'import random,sys; sys.stdout.buffer.write(random.Random(16).randbytes(int(sys.argv[1])))' "$RANDOM_SIZE") ||
	fail "cache_size=1G: random.bin reads wrong"
it_quiet_log three
it_finish
