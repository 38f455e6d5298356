#!/usr/bin/env bash
# cache_private_modes: a cache is its owner's alone, whatever the umask (issue: private
# stores stay private). After a mount and a read with umask 000 and with umask 022 (and a
# rockpack run), every directory of the cache is 0700 and every file 0400 or 0600; an
# older cache with looser modes is tightened on first use, with one log line.
. "$(dirname "$0")/lib.sh"
it_init "$@"

RUN=24205988455-linux
STEM=core-hip_lib_generic

# loose DIR: what in the cache group or others may read, write or enter
loose() { find "$1" \( -type d ! -perm 0700 \) -o \( -type f ! -perm 0400 ! -perm 0600 \) -print | head -5 || true; }

for mask in 000 022; do
	C=$T/cache-$mask
	umask $mask
	it_mount "fs$mask" "$STORE" "$T/mnt-$mask" "$C"
	find "$T/mnt-$mask/$RUN/browse/$STEM" -type f -exec cat {} + >/dev/null
	cat "$T/mnt-$mask/$RUN/tarballs/"*.tar.gz >/dev/null
	it_umount "fs$mask"
	"$ROCKPACK" -q --cache "$C" prefetch "$STORE" "$RUN" || fail "rockpack prefetch failed"
	umask 022
	[ -n "$(find "$C/blobs" -type f | head -1)" ] || fail "umask $mask: no blobs were written"
	[ -z "$(loose "$C")" ] ||
		fail "umask $mask: cache entries others can reach: $(loose "$C" | tr '\n' ' ')"
done

# an older cache (0755 directories, 0444 blobs, 0644 records) is made private on first use
C=$T/cache-000
find "$C" -type d -exec chmod 0755 {} +
find "$C/blobs" -type f -exec chmod 0444 {} +
find "$C/index" -type f -exec chmod 0644 {} +
"$ROCKPACK" -v --cache "$C" ls "$STORE" "$RUN" >/dev/null 2>"$T/migrate.err" ||
	fail "rockpack on an older cache failed: $(cat "$T/migrate.err")"
grep -q "made private to its owner" "$T/migrate.err" ||
	fail "no log line for the tightened cache: $(cat "$T/migrate.err")"
[ -z "$(loose "$C")" ] || fail "the older cache is still open: $(loose "$C" | tr '\n' ' ')"
it_finish
