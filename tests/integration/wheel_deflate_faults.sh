#!/usr/bin/env bash
# wheel_deflate_faults: the deflated wheels of -o wheel_compression=deflate when the cache
# loses what they are made of (a copy of the demo split run):
#  - evicted pieces: with every pieces/ file deleted under a running mount (sizes known,
#    nothing read yet), each wheel reads the same bytes as before (its pieces are
#    deflated again, to the same bytes), and the daemon logs nothing;
#  - lost blobs whose artifact is damaged: with the pieces deleted, and the blobs of the
#    members only the device wheel of gfx942 has, and the archive of blas_lib_gfx942 cut,
#    that wheel fails with EIO, every other wheel reads as before, and the daemon logs one
#    error line, naming it. (That mount never lists the store again, list_ttl=0: the cut
#    archive is damage the daemon has not been told of, not a run that changed; a run that
#    changes is served anew, run_live tests that.)
. "$(dirname "$0")/lib.sh"
it_init "$@"
RUN=24205988455-linux
BAD=blas_lib_gfx942
BADW=rocm_sdk_device_gfx942-7.13.0.dev0+abc1234-py3-none-linux_x86_64.whl
S=$T/store
mkdir -p "$S"
cp -r "$STORE/$RUN" "$S/$RUN"
[ -f "$S/$RUN/$BAD.tar.zst" ] || die "premise: $BAD missing"

# the bytes, from a first mount
it_mount first "$S" "$T/m" "$T/cache" -o wheel_compression=deflate
F=$T/m/$RUN/python/files
mkdir -p "$T/before"
cp "$F"/*.whl "$T/before/"
[ -f "$T/before/$BADW" ] || die "premise: no $BADW"
[ "$(ls "$T/before" | wc -l)" -ge 7 ] || die "premise: $(ls "$T/before" | wc -l) wheels"
it_quiet_log first
it_umount first

# evicted pieces: a second mount knows every size (every piece found), then loses them
it_mount again "$S" "$T/m" "$T/cache" -o wheel_compression=deflate
stat "$F"/*.whl >/dev/null
cat "$T/m/$RUN/python/simple"/*/index.html >/dev/null # (hashing done: no read races)
n=$(find "$T/cache/pieces" -type f | wc -l)
[ "$n" -gt 0 ] || fail "no pieces in the cache"
find "$T/cache/pieces" -type f -delete
for f in "$T"/before/*.whl; do
	cmp -s "$f" "$F/$(basename "$f")" || fail "evicted pieces: $(basename "$f") differs"
done
[ "$(find "$T/cache/pieces" -type f | wc -l)" = "$n" ] ||
	fail "evicted pieces: $(find "$T/cache/pieces" -type f | wc -l) pieces made again, not $n"
it_quiet_log again
it_umount again

# a lost blob that cannot be made again: the one wheel fails, the others read
it_mount bad "$S" "$T/m" "$T/cache" -o wheel_compression=deflate -o list_ttl=0
stat "$F"/*.whl >/dev/null
cat "$T/m/$RUN/python/simple"/*/index.html >/dev/null
# (blob ids are the members' sha256)
python3 - "$T/before" "$BADW" >"$T/only" <<'EOF'
import hashlib, os, sys, zipfile
def members(path):
    z = zipfile.ZipFile(path)
    return {hashlib.sha256(z.read(i)).hexdigest() for i in z.infolist() if i.file_size}
bad = members(os.path.join(sys.argv[1], sys.argv[2]))
for w in os.listdir(sys.argv[1]):
    if w != sys.argv[2]:
        bad -= members(os.path.join(sys.argv[1], w))
print("\n".join(sorted(bad)))
EOF
[ -s "$T/only" ] || die "premise: $BADW has no member of its own"
while read -r id; do
	rm -f "$T/cache/blobs/${id:0:2}/$id"
done <"$T/only"
find "$T/cache/pieces" -type f -delete
truncate -s 100 "$S/$RUN/$BAD.tar.zst"
if cat "$F/$BADW" >/dev/null 2>"$T/err"; then
	fail "$BADW read whole without its blobs"
else
	grep -q 'Input/output error' "$T/err" || fail "$BADW: $(cat "$T/err"), not EIO"
fi
for f in "$T"/before/*.whl; do
	[ "$(basename "$f")" = "$BADW" ] && continue
	cmp -s "$f" "$F/$(basename "$f")" || fail "lost blobs: $(basename "$f") differs"
done
grep -E '^rockfs: (error|warning):' "${IT_LOG[bad]}" >"$T/errors" || true
[ "$(wc -l <"$T/errors")" = 1 ] || fail "lost blob: want one log line, got: $(cat "$T/errors")"
grep -qF "$BADW" "$T/errors" || fail "lost blob: the log line does not name $BADW"
it_umount bad

it_finish
