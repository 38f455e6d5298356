#!/usr/bin/env bash
# eviction_derived: files the views derive and write into the cache are made again when
# the cache evicted them, as evicted blobs of archives are (integration.eviction; issue 26,
# item 8). Before the fix, with cache_size=1M the devel wheels were EIO for the life of
# the mount once their _devel.tar was evicted. A mount with a 1M cache lists the legacy
# run's views (which writes the devel wheels' _devel.tar, and hashes the packages for
# the indexes), then `rockpack cache gc` evicts every blob under it; then every listing
# and file of the views (the devel wheels, the kpack split's decompressed bundles, the
# release tarballs' compressed pieces, the packages) reads as on a mount that evicted
# nothing. Once with stored wheels, once with -o wheel_compression=deflate (the deflated
# wheel pieces).
. "$(dirname "$0")/lib.sh"
it_init "$@"

RUN=24205988454-linux
WALK=$(dirname "$0")/mount_walk.py
VIEWS="$RUN/python $RUN/kpack $RUN/dist/gfx1100 $RUN/tarballs $RUN/packages"

for mode in stored deflate; do
	opts=()
	[ "$mode" = deflate ] && opts=(-o wheel_compression=deflate)
	it_mount "ref-$mode" "$STORE" "$T/ref-$mode" "$T/cache-ref-$mode" "${opts[@]}"
	# shellcheck disable=SC2086 # VIEWS is a list of words
	python3 "$WALK" walk "$T/ref-$mode" "$T/ref-$mode.txt" $VIEWS || fail "$mode: reference walk failed"
	it_umount "ref-$mode"
	grep -q ' EIO$' "$T/ref-$mode.txt" && fail "$mode: reference mount: EIO: $(grep ' EIO$' "$T/ref-$mode.txt" | head -3)"

	C=$T/cache-$mode
	M=$T/mnt-$mode
	it_mount "$mode" "$STORE" "$M" "$C" -o cache_size=1M "${opts[@]}"
	for v in $VIEWS; do
		ls -R "$M/$v" >/dev/null || fail "$mode: ls -R $v failed"
	done
	"$ROCKPACK" --cache "$C" --cache-size 1K cache gc >"$T/gc.out" 2>&1 || fail "$mode: cache gc: $(cat "$T/gc.out")"
	grep -qE '^evicted [1-9]' "$T/gc.out" || fail "$mode: cache gc evicted nothing: $(cat "$T/gc.out")"
	# shellcheck disable=SC2086
	python3 "$WALK" walk "$M" "$T/$mode.txt" $VIEWS || fail "$mode: walk after eviction failed"
	it_same "$mode: every listing and file after eviction" "$T/ref-$mode.txt" "$T/$mode.txt"
	it_alive "$mode"
	it_umount "$mode"
done
it_finish
