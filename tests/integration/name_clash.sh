#!/usr/bin/env bash
# name_clash: an archive that holds the same path as a file and as a directory (each
# order, with and without something below the directory, with symlinks and hardlinks:
# the hostile run's clash_lib_generic) is browsed as `tar -x` makes it (GNU tar 1.34 and
# bsdtar agree): a later member replaces an earlier non-directory or an empty directory;
# a non-directory in place of a directory with something in it, and a member below a
# non-directory, are refused (tar fails on them; the daemon logs a line each). The same
# from the cached index on a second mount.
. "$(dirname "$0")/lib.sh"
it_init "$@"

RUN=66600000000-linux
R=$STORE/$RUN
A=clash_lib_generic
[ -f "$R/$A.tar.zst" ] || die "$R/$A.tar.zst missing (did the hostile fixture run?)"

# what tar -x makes of it (it reports the refused members and exits 2)
mkdir -p "$T/want"
zstd -q -dc "$R/$A.tar.zst" | tar -x -p --no-same-owner -f - -C "$T/want" 2>"$T/tar.err" || true
grep -q 'Cannot open' "$T/tar.err" || die "premise: tar -x refused no member of $A"
[ -d "$T/want/clash/stage/a" ] && [ -f "$T/want/clash/stage/c" ] ||
	die "premise: tar -x did not replace a file by a directory and a directory by a file"
if command -v bsdtar >/dev/null; then
	mkdir -p "$T/bsd"
	zstd -q -dc "$R/$A.tar.zst" | bsdtar -x -f - -C "$T/bsd" 2>/dev/null || true
	diff <(cd "$T/want" && find . -printf '%p %y\n' | sort) \
		<(cd "$T/bsd" && find . -printf '%p %y\n' | sort) >&2 ||
		die "premise: GNU tar and bsdtar disagree on $A"
fi

C=$T/cache
M=$T/mnt
for pass in first second; do
	it_mount $pass "$R" "$M" "$C"
	it_cmp_tree "$pass mount: browse/$A" "$T/want" "$M/browse/$A"
	it_umount $pass
done
# refused members: one log line each, on the mount that decompressed the archive
for p in b d/y e j o/p; do
	n=$(grep -c "^rockfs: warning: '$A.tar.zst': .* 'clash/stage/$p' dropped" "${IT_LOG[first]}" || true)
	[ "$n" = 1 ] || fail "refused member clash/stage/$p: $n log lines, expected 1"
done
it_finish
