#!/usr/bin/env bash
# cache_unwritable: a cache that cannot be written degrades to EIO (or to what is in
# memory), never to a different result, and heals once it can be written again (issue 26,
# item 5). Three ways the cache of a mount stops taking writes after the run's archives
# were ingested, each on its own mount:
#   read-only: the cache is a bind mount of itself, remounted read-only (EROFS), in a
#     private mount namespace;
#   permissions: the daemon runs without CAP_DAC_OVERRIDE and the cache's blob
#     directories lose their write bit (EACCES); then, on another mount, every directory
#     of it before the archives are read (their ingest cannot take its lock: before the
#     fix the archives were "unusable" for the life of the mount);
#   deleted: the cache directory is removed (rm -rf) under the mount (ENOENT), then its
#     blobs/ directory alone.
# Each time every listing and file of the legacy run's views is either EIO or what a
# healthy mount serves (before the fix, a kpack split that could not write its blobs was
# "kept unsplit": the fat librocrand in per-target trees, until a remount); then, the
# cache writable again (remounted rw, modes back, or the directories made again by the
# daemon), the same mount serves everything as a healthy mount does. Needs root (skipped
# with 77 otherwise).
. "$(dirname "$0")/lib.sh"
if [ -z "${RK_IT_UNSHARED:-}" ]; then
	[ "$(id -u)" = 0 ] || skip "needs root (a bind mount of the cache, capabilities)"
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	unshare -m --propagation private true 2>/dev/null || skip "cannot make a mount namespace"
	RK_IT_UNSHARED=1 exec unshare -m --propagation private bash "$0" "$@"
fi
it_init "$@"

RUN=24205988454-linux
WALK=$(dirname "$0")/mount_walk.py
VIEWS="$RUN/kpack $RUN/dist/gfx1100 $RUN/dist/gfx94X-dcgpu $RUN/packages/deb $RUN/python"
walk() { # walk MNT OUT
	# shellcheck disable=SC2086 # VIEWS is a list of words
	python3 "$WALK" walk "$1" "$2" $VIEWS
}
ingest() { # ingest MNT: read every archive of the run, so that later writes are derived files
	find "$1/$RUN/browse" -type f -exec cat {} + >/dev/null
}

it_mount healthy "$STORE" "$T/healthy" "$T/cache-healthy"
walk "$T/healthy" "$T/healthy.txt" || fail "healthy mount: walk failed"
it_umount healthy
grep -q ' EIO$' "$T/healthy.txt" && fail "healthy mount: EIO: $(grep ' EIO$' "$T/healthy.txt" | head -3)"

# hurt NAME: the mount NAME's cache cannot be written now: EIO or the healthy bytes,
# and the log says why
hurt() {
	local name=$1
	walk "$T/$name" "$T/$name.hurt.txt" || fail "$name: walk failed (an error other than EIO?)"
	python3 "$WALK" cmp "$T/healthy.txt" "$T/$name.hurt.txt" "$name" --eio >&2 ||
		fail "$name: something served differently (above), or nothing failed"
}
# healed NAME: the cache writable again: the same mount serves everything right
healed() {
	local name=$1
	walk "$T/$name" "$T/$name.healed.txt" || fail "$name, healed: walk failed"
	it_same "$name, healed: every listing and file" "$T/healthy.txt" "$T/$name.healed.txt"
}

# 1. read-only (EROFS)
C=$T/cache-ro
mkdir -p "$C"
mount --bind "$C" "$C"
it_mount ro "$STORE" "$T/ro" "$C"
ingest "$T/ro"
mount -o remount,bind,ro "$C"
hurt ro
grep -q "Read-only file system" "${IT_LOG[ro]}" || fail "ro: the log does not say why"
mount -o remount,bind,rw "$C"
healed ro
it_umount ro
umount "$C"

# 2. permissions (EACCES): the daemon without the capability that overrides them
cat >"$T/rockfs-nodac" <<EOF
#!/bin/sh
exec setpriv --bounding-set=-dac_override,-dac_read_search --inh-caps=-dac_override,-dac_read_search "$ROCKFS" "\$@"
EOF
chmod +x "$T/rockfs-nodac"
REAL=$ROCKFS
ROCKFS=$T/rockfs-nodac
C=$T/cache-perm
it_mount perm "$STORE" "$T/perm" "$C"
ROCKFS=$REAL
ingest "$T/perm"
# the blob directories only: every new blob is written whole, then fails at its rename
find "$C/blobs" -type d -exec chmod u-w {} +
hurt perm
grep -q "Permission denied" "${IT_LOG[perm]}" || fail "perm: the log does not say why"
find "$C/blobs" -type d -exec chmod u+w {} +
healed perm
it_umount perm
# ... every directory of it, before the archives are read (their ingest cannot even take
# its lock): the archives fail for now, not for good
C=$T/cache-perm2
ROCKFS=$T/rockfs-nodac
it_mount perm2 "$STORE" "$T/perm2" "$C"
ROCKFS=$REAL
find "$C" -type d -exec chmod u-w {} +
hurt perm2
find "$C" -type d -exec chmod u+w {} +
healed perm2
it_umount perm2

# 3. deleted under the mount (ENOENT): the daemon makes it again
C=$T/cache-gone
it_mount gone "$STORE" "$T/gone" "$C"
ingest "$T/gone"
rm -rf "$C"
hurt gone
[ -f "$C/VERSION" ] || fail "gone: the cache directory was not made again"
healed gone
it_umount gone

# 4. a part of it deleted (every blob, with their directories): made again as well
C=$T/cache-part
it_mount part "$STORE" "$T/part" "$C"
ingest "$T/part"
rm -rf "$C/blobs"
hurt part
[ -d "$C/blobs/00" ] || fail "part: blobs/ was not made again"
healed part
it_umount part
it_finish
