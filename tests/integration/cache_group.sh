#!/usr/bin/env bash
# cache_group: -o cache_group=GROUP makes a cache shared on purpose: every directory is
# setgid 02770 of that group, every file readable by the group and by no one else
# (0440 blobs, 0640 records); a member's daemon may use a cache another member made.
. "$(dirname "$0")/lib.sh"
it_init "$@"

RUN=24205988455-linux
STEM=core-hip_lib_generic
G=$(id -gn)
C=$T/cache
umask 077 # the cache sets its modes itself
it_mount fs "$STORE" "$T/mnt" "$C" -o "cache_group=$G"
find "$T/mnt/$RUN/browse/$STEM" -type f -exec cat {} + >/dev/null
it_umount fs
umask 022
[ -n "$(find "$C/blobs" -type f | head -1)" ] || fail "no blobs were written"
bad=$(find "$C" \( -type d ! -perm 2770 \) -o \( -type f ! -perm 0440 ! -perm 0640 \) -o ! -group "$G" -print | head -5)
[ -z "$bad" ] || fail "entries not shared exactly with group $G: $(echo "$bad" | tr '\n' ' ')"
[ -n "$(find "$C/blobs" -type f -perm 0440 | head -1)" ] || fail "no blob is 0440"
[ -n "$(find "$C/index" -type f -perm 0640 | head -1)" ] || fail "no index record is 0640"
# rockpack with --cache-group uses it (and adds to it with the same modes)
"$ROCKPACK" -q --cache "$C" --cache-group "$G" prefetch "$STORE" "$RUN" ||
	fail "rockpack --cache-group on the shared cache failed"
bad=$(find "$C" \( -type d ! -perm 2770 \) -o \( -type f ! -perm 0440 ! -perm 0640 \) -print | head -5)
[ -z "$bad" ] || fail "after rockpack: entries not shared exactly: $(echo "$bad" | tr '\n' ' ')"
# the same cache without cache_group is a shared cache: refused as a private one
rc=0
"$ROCKPACK" --cache "$C" ls "$STORE" "$RUN" >/dev/null 2>"$T/err" || rc=$?
[ "$rc" = 1 ] && grep -q "writable by group or others" "$T/err" ||
	fail "a shared cache used as a private one: exit $rc, $(cat "$T/err")"
it_finish
