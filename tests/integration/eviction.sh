#!/usr/bin/env bash
# eviction: with cache_size=64K the cache evicts blobs while artifacts are read, and every
# read still returns the right bytes: an evicted blob is re-created by decompressing its
# archive again (docs/internals/cache.md "Eviction"). `rockpack cache stats` shows the cache
# staying under the limit; `rockpack --cache-size 1K cache gc` empties it and reads are
# still right afterwards. Last, an artifact whose files each fit in the cache but which is
# larger than the whole cache must be readable too.
. "$(dirname "$0")/lib.sh"
it_init "$@"

LIMIT=65536
C=$T/cache
# artifacts smaller than the cache (each under 90% of it, the level eviction shrinks to),
# together several times larger than it
SMALL="24205988454-linux/rand_lib_gfx94X-dcgpu 24205988454-linux/amd-llvm_run_generic
24205988455-linux/blas_lib_gfx1102 24205988455-linux/rand_lib_generic
24205988454-linux/amd-llvm_lib_generic"
# larger than the cache, every file under 90% of it
BIG=24205988454-linux/blas_lib_gfx94X-dcgpu

total=0
for a in $SMALL $BIG; do
	run=${a%/*}
	stem=${a#*/}
	it_extract "$STORE/$run/$stem.tar.zst" "$T/want/$a"
	read -r _ bytes < <(it_distinct "$T/want/$a")
	max=$(find "$T/want/$a" -type f -printf '%s\n' | sort -n | tail -n 1)
	[ "$max" -lt $((LIMIT * 9 / 10)) ] || die "premise: $a has a $max-byte file"
	if [ "$a" = "$BIG" ]; then
		[ "$bytes" -gt "$LIMIT" ] || die "premise: $a ($bytes bytes) is not larger than the cache"
	else
		[ "$bytes" -lt $((LIMIT * 9 / 10)) ] || die "premise: $a ($bytes bytes) does not fit"
		total=$((total + bytes))
	fi
done
[ "$total" -gt $((2 * LIMIT)) ] || die "premise: the small artifacts ($total bytes) evict nothing"

check_size() {
	local b
	b=$(it_stats "$C" blob_bytes)
	[ "$b" -le "$LIMIT" ] || fail "$1: the cache holds $b bytes of blobs, over the $LIMIT limit"
}

# read_all WHAT: every small artifact, compared with tar. LRU use stamps are whole seconds,
# so artifacts are read a second apart: the older one is then the least recently used.
read_all() {
	local a
	for a in $SMALL; do
		sleep 1.1
		it_cmp_tree "$1: ${a/\//\/browse/}" "$T/want/$a" "$M/${a%/*}/browse/${a#*/}"
		check_size "$1, after $a"
	done
}

M=$T/mnt
# 1. cold cache: reading evicts what was read before
it_mount one "$STORE" "$M" "$C" -o cache_size=64K
read_all "first mount"
grep -q 'cache: evicted' "${IT_LOG[one]}" || fail "first mount: nothing was evicted (limit not applied?)"
b=$(it_stats "$C" blob_bytes)
[ "$b" -gt $((LIMIT / 4)) ] || fail "first mount: eviction left only $b bytes (want near $LIMIT)"
it_quiet_log one
it_umount one

# 2. remount, read again: evicted blobs are re-created from the archives
it_mount two "$STORE" "$M" "$C" -o cache_size=64K
read_all "remount"
grep -q 'decompressing again' "${IT_LOG[two]}" ||
	fail "remount: no archive was decompressed again, so no evicted blob was re-created"
it_quiet_log two

# 3. gc to 1K by rockpack while mounted, then everything reads right (still mounted, and
# after a fresh mount, with nothing in the cache but the indexes)
"$ROCKPACK" --cache "$C" --cache-size 1K cache gc >"$T/gc.out" 2>&1 || fail "cache gc: $(cat "$T/gc.out")"
grep -qE '^evicted [1-9]' "$T/gc.out" || fail "cache gc evicted nothing: $(cat "$T/gc.out")"
b=$(it_stats "$C" blob_bytes)
[ "$b" -le 1024 ] || fail "after cache gc to 1K: $b bytes of blobs remain"
read_all "after gc, same mount"
it_alive two
it_umount two
it_mount three "$STORE" "$M" "$C" -o cache_size=64K
read_all "after gc, new mount"
it_quiet_log three

# 4. an artifact larger than the cache, each of its files smaller: readable all the same
it_cmp_tree "artifact larger than the cache: $BIG" "$T/want/$BIG" "$M/${BIG%/*}/browse/${BIG#*/}"
if grep -q "rockfs: error: .*No such file or directory" "${IT_LOG[three]}"; then
	bug "an artifact larger than cache_size cannot be read: re-decompressing it to re-create" \
		"an evicted blob evicts the blobs it has just re-created (core/src/cache/cache.c" \
		"rk_cache_added -> rk_cache_gc, called from core/src/engine/vfs.c artifact_refill), so" \
		"rk_vfs_open_file finds the blob missing again and answers EIO"
fi
check_size "at the end"
it_alive three

it_finish
