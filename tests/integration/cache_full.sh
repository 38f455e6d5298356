#!/usr/bin/env bash
# cache_full: the cache's disk fills up (issue 16). The cache is a small tmpfs (needs
# root to mount it; skipped with 77 otherwise), filled to the last byte after the mount
# starts. Every directory of the mount then either fails (EIO) or lists exactly what a
# mount with room lists, and every file either fails (EIO) or reads the right bytes:
# nothing is served short (an empty kpack/ listing, a dist tree without an artifact). The
# daemon logs the cause. Once the space is freed, the same mount (no remount) serves every
# view right: a failure for lack of space is tried again, not kept.
. "$(dirname "$0")/lib.sh"
it_init "$@"

LEGACY=24205988454-linux # a run with kpack/ split by rockfs
FS=$T/fs
mkdir -p "$FS"
mount -t tmpfs -o size=8m tmpfs "$FS" 2>/dev/null || skip "cannot mount a tmpfs here (not root?)"
trap 'umount -l "$FS" 2>/dev/null; it_cleanup' EXIT

WALK=$(dirname "$0")/mount_walk.py
walk() { python3 "$WALK" walk "$@"; } # walk MNT OUT: every listing and file (mount_walk.py)

it_mount room "$STORE" "$T/room" "$T/cache-room"
walk "$T/room" "$T/room.txt" || fail "mount with room: walk failed"
it_umount room
grep -q ' EIO$' "$T/room.txt" && fail "mount with room: EIO: $(grep ' EIO$' "$T/room.txt" | head -3)"

# mount on the small cache, then fill its disk
C=$FS/cache
it_mount full "$STORE" "$T/mnt" "$C"
dd if=/dev/zero of="$FS/filler" bs=64k status=none 2>/dev/null || true
[ "$(df --output=avail -B1 "$FS" | tail -1)" -lt 65536 ] || fail "the tmpfs is not full"
walk "$T/mnt" "$T/full.txt" || fail "full disk: walk failed (an error other than EIO?)"
# each line is either EIO or the same as with room
python3 "$WALK" cmp "$T/room.txt" "$T/full.txt" "full disk" --eio ||
	fail "full disk: something served differently (above), or nothing failed"
ls "$T/mnt/$LEGACY/kpack/" >"$T/kpack.ls" 2>&1 && fail "full disk: ls kpack/ succeeded: $(head -3 "$T/kpack.ls")"
grep -q "No space left on device" "${IT_LOG[full]}" || fail "full disk: the log does not say why"

# space comes back: the same mount serves everything right
rm -f "$FS/filler"
walk "$T/mnt" "$T/after.txt" || fail "after freeing space: walk failed"
it_same "after freeing space: every listing and file" "$T/room.txt" "$T/after.txt"
it_umount full
it_finish
