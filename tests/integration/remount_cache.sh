#!/usr/bin/env bash
# remount_cache: what one mount decompressed is served by the next mount from the cache,
# without decompressing again. Proof: between the mounts the archive in (a copy of) the
# store is replaced by garbage of the same name and size, its .sha256sum sidecar kept; the
# cache index is keyed by the sidecar hash, so the remount must still serve the right bytes,
# while an archive that was never cached, garbaged the same way, fails with EIO. Then a
# cached blob is damaged: the cache must notice (hash) and re-create it from the archive.
. "$(dirname "$0")/lib.sh"
it_init "$@"

RUN=24205988454-linux
STEM=blas_lib_gfx110X-all  # the largest artifact: many files, hardlinks, symlinks
OTHER=rand_lib_gfx110X-all # never read before the archives are garbaged
S=$T/store
C=$T/cache
M=$T/mnt
mkdir -p "$S"
cp -a "$STORE/$RUN" "$S/"
it_extract "$S/$RUN/$STEM.tar.zst" "$T/want"
it_extract "$S/$RUN/$OTHER.tar.zst" "$T/want-other"
read -r nblobs nbytes < <(it_distinct "$T/want")
[ "$nblobs" -ge 5 ] || die "$STEM has only $nblobs distinct files"

# 1. first mount: read everything in one artifact
it_mount first "$S" "$M" "$C"
it_cmp_tree "first mount: browse/$STEM" "$T/want" "$M/$RUN/browse/$STEM"
it_quiet_log first
it_umount first

# the cache holds exactly that artifact: one index, one blob per distinct content
[ "$(it_stats "$C" indexes)" = 1 ] || fail "after reading one artifact: $(it_stats "$C" indexes) indexes, want 1"
[ "$(it_stats "$C" blobs)" = "$nblobs" ] || fail "blobs: $(it_stats "$C" blobs), want $nblobs (distinct files of $STEM)"
[ "$(it_stats "$C" blob_bytes)" = "$nbytes" ] || fail "blob_bytes: $(it_stats "$C" blob_bytes), want $nbytes"
"$ROCKPACK" --cache "$C" cache stats >"$T/stats.txt" || fail "rockpack cache stats failed"
grep -q "^blobs   $nblobs " "$T/stats.txt" || fail "cache stats text: $(cat "$T/stats.txt")"
ls "$C/tmp" | grep -q . && fail "cache tmp/ not empty after a clean unmount: $(ls "$C/tmp")"
(cd "$C" && find index blobs -type f -printf '%p %i %s %T@\n' | sort) >"$T/cache.before"

# 2. garbage in place of both archives (same name, same size), sidecars untouched
garble() {
	local f=$1 size
	size=$(stat -c %s "$f")
	head -c "$size" /dev/urandom >"$f.garbage"
	mv "$f.garbage" "$f"
}
garble "$S/$RUN/$STEM.tar.zst"
garble "$S/$RUN/$OTHER.tar.zst"
! cmp -s "$S/$RUN/$STEM.tar.zst" "$STORE/$RUN/$STEM.tar.zst" || die "garbling did not change the archive"

# 3. remount with the same cache: served from the cache, nothing decompressed
it_mount second "$S" "$M" "$C"
it_cmp_tree "remount from cache: browse/$STEM" "$T/want" "$M/$RUN/browse/$STEM"
# control: the garbage is real, an archive that was never cached cannot be read
if out=$(ls "$M/$RUN/browse/$OTHER" 2>&1); then
	fail "control: browse/$OTHER (garbage, never cached) listed fine: $out"
elif ! grep -q 'Input/output error' <<<"$out"; then
	fail "control: browse/$OTHER: want EIO, got: $out"
fi
grep -q "artifact '$OTHER.tar.zst' of run '$RUN' is unusable" "${IT_LOG[second]}" ||
	fail "control: no 'unusable' log line for the garbaged $OTHER"
if grep -E "'$STEM.tar.zst'" "${IT_LOG[second]}" >&2; then
	fail "the remount touched $STEM.tar.zst (see the log lines above): it decompressed again"
fi
it_umount second
(cd "$C" && find index blobs -type f -printf '%p %i %s %T@\n' | sort) >"$T/cache.after"
# the OTHER archive failed, so it added no index; nothing of STEM was rewritten
grep "^index/" "$T/cache.before" >"$T/idx.before"
grep "^index/" "$T/cache.after" >"$T/idx.after"
it_same "cache indexes (name, inode, size, mtime) across the remount" "$T/idx.before" "$T/idx.after"
grep -F -f <(cut -d' ' -f1 "$T/cache.before") "$T/cache.after" >"$T/kept" || true
it_same "the first mount's blobs (name, inode, size, mtime) across the remount" \
	"$T/cache.before" "$T/kept"
[ "$(it_stats "$C" indexes)" = 1 ] || fail "after the remount: $(it_stats "$C" indexes) indexes, want 1"

# 4. a damaged blob is never served: restore the real archive, flip bytes in one cached
# blob (same size), remount: the mount must detect it, re-decompress, and serve right bytes
cp -a "$STORE/$RUN/$STEM.tar.zst" "$S/$RUN/$STEM.tar.zst"
big=$(cd "$T/want" && find . -type f -size +4k -printf '%s %p\n' | sort -n | tail -n 1 | cut -d' ' -f2-)
id=$(sha256sum "$T/want/$big" | cut -c1-64)
blob=$C/blobs/${id:0:2}/$id
[ -f "$blob" ] || die "blob of $big not found at $blob"
chmod u+w "$blob"
printf 'XXXXXXXXXXXXXXXX' | dd of="$blob" bs=1 seek=100 conv=notrunc status=none
chmod 0444 "$blob"
it_mount third "$S" "$M" "$C"
it_cmp_tree "remount over a damaged blob: browse/$STEM" "$T/want" "$M/$RUN/browse/$STEM"
grep -qE 'content hash mismatch|bad blob discarded' "${IT_LOG[third]}" ||
	fail "the damaged blob of '$big' was not reported as failing its hash"
grep -q "'$STEM.tar.zst': cached contents incomplete; decompressing again" "${IT_LOG[third]}" ||
	fail "the damaged blob did not make the mount decompress $STEM again"
[ "$(sha256sum "$blob" | cut -c1-64)" = "$id" ] || fail "the damaged blob was not re-created"
it_umount third
"$ROCKPACK" --cache "$C" cache verify >"$T/verify.txt" || fail "cache verify: $(cat "$T/verify.txt")"
grep -q '^bad     0' "$T/verify.txt" || fail "cache verify: $(cat "$T/verify.txt")"

it_finish
