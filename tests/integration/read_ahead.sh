#!/usr/bin/env bash
# read_ahead: a walk that reads a directory's files one by one has the next files' cache
# blobs opened ahead on worker threads (engine/readahead.c; bench/walk_bench.sh times
# it). Checked here: read-ahead happens (the read_ahead status counter), every file
# still reads right (cmp against the archive), and a blob gone bad in the cache that
# read-ahead meets first is discarded with one warning and made again for its reader,
# as a reader's own open would. Then the same for a composite: a tarball of those files
# read in order has its next pieces' blobs read ahead (read_ahead_pieces;
# bench/reads_bench.sh times it).
. "$(dirname "$0")/lib.sh"
it_init "$@"

RUN=24205988455-linux
S=$T/store
mkdir -p "$S/$RUN" "$T/src"
specs=()
for i in $(seq -w 1 120); do
	head -c $((100 + 10#$i * 37)) /dev/urandom >"$T/src/f$i"
	specs+=("$T/src/f$i:include/f$i.h")
done
it_mkart "$S/$RUN" many_dev_generic math-libs/many/stage "${specs[@]}"
it_mkart "$S/$RUN" one_lib_gfx1100 math-libs/one/stage "$T/src/f001:lib/one.txt" # a family
D=$RUN/browse/many_dev_generic/math-libs/many/stage/include

# first mount: ingest; the files are blobs in the cache from here on
it_mount a "$S" "$T/mnt" "$T/cache"
cat "$T/mnt/$D"/* >/dev/null
it_umount a
it_quiet_log a

# damage one blob that read-ahead reaches before its reader does (f060)
want=$(sha256sum "$T/src/f060" | cut -d' ' -f1)
blob=$T/cache/blobs/${want:0:2}/$want
[ -f "$blob" ] || fail "no blob $blob for f060"
printf 'X' | dd of="$blob" bs=1 seek=10 conv=notrunc status=none

it_mount b "$S" "$T/mnt" "$T/cache"
for i in $(seq -w 1 120); do
	cmp "$T/src/f$i" "$T/mnt/$D/f$i.h" || fail "f$i.h reads wrong with read-ahead"
done
n=$("$ROCKPACK" status "$T/mnt" | sed -n 's/^read_ahead: //p')
[ "$n" -ge 60 ] || fail "read_ahead is $n after reading 120 files one by one (want >= 60)"
grep -q "cache: bad blob discarded: blob ${want:0:12}" "${IT_LOG[b]}" ||
	fail "the damaged blob was not reported: $(grep -c . "${IT_LOG[b]}") log lines"
it_umount b
# one warning, for the damaged blob, and nothing else
[ "$(grep -cE '^rockfs: (error|warning):' "${IT_LOG[b]}")" = 1 ] ||
	fail "want exactly one warning: $(grep -E '^rockfs: (error|warning):' "${IT_LOG[b]}")"

# a composite of many small pieces (a tarball's members) read in order has the next
# pieces' blobs read ahead (vfs_ahead_pieces): the counter moves, every byte is right
it_mount c "$S" "$T/mnt" "$T/cache"
tb=$T/mnt/$RUN/tarballs/therock-dist-linux-gfx110X-all-unversioned.tar
mkdir -p "$T/x"
dd if="$tb" bs=1M status=none | tar -x -C "$T/x"
for i in $(seq -w 1 120); do
	f=$(find "$T/x" -name "f$i.h")
	cmp "$T/src/f$i" "$f" || fail "f$i.h reads wrong from the tarball with read-ahead"
done
n=$("$ROCKPACK" status "$T/mnt" | sed -n 's/^read_ahead_pieces: //p')
[ "$n" -ge 30 ] || fail "read_ahead_pieces is $n after reading the tarball (want >= 30)"
it_umount c
it_quiet_log c
it_finish
