#!/usr/bin/env bash
# install_reflink: rockpack install --link=reflink on a file system that has reflinks (XFS,
# made here on a loop device), cache and output on it:
#  - the tree equals a plain copy's (bytes, modes, types, links, hardlinks) written to
#    another file system;
#  - every non-empty file shares its extents (filefrag: "shared"): a clone of the cache's
#    blob, not a copy;
#  - writing into an installed file leaves the cache alone: a second install from the same
#    cache has the original bytes (the clone is copy-on-write);
#  - --link=auto clones there too.
# install_upstream checks the same flags where the file system has no reflinks.
. "$(dirname "$0")/lib.sh"
it_init "$@"
[ "$(id -u)" = 0 ] || skip "mounting a loop device needs root"
for tool in mkfs.xfs filefrag losetup; do
	command -v $tool >/dev/null || skip "$tool is not installed"
done
RUN=24205988455
X=$T/xfs
mkdir "$X"
truncate -s 512M "$T/xfs.img"
mkfs.xfs -q -m reflink=1 "$T/xfs.img" || die "mkfs.xfs"
mount -o loop "$T/xfs.img" "$X" 2>"$T/mount.err" || skip "cannot mount a loop device here: $(cat "$T/mount.err")"
# unmounted before it_cleanup removes $T; its status is the test's
trap 'rc=$?; umount "$X" 2>/dev/null || umount -l "$X"; (exit $rc); it_cleanup' EXIT

rp() { "$ROCKPACK" --cache "$X/cache" install "$STORE" --run-id $RUN --amdgpu-family gfx94X-dcgpu \
	--blas --tests -q "$@"; }
rp --output-dir "$T/copy" || die "rockpack install (a copy)"
rp --output-dir "$X/r" --link=reflink || die "rockpack install --link=reflink on XFS"
diff -r --no-dereference "$T/copy" "$X/r" >"$T/diff" 2>&1 || fail "--link=reflink: diff -r: $(head -5 "$T/diff")"
meta() { (cd "$1" && find . -mindepth 1 \( -type d -printf '%p %m %y\n' \) -o -printf '%p %m %y %l %s\n') | sort; }
meta "$T/copy" >"$T/copy.meta"
meta "$X/r" >"$T/r.meta"
it_same "--link=reflink: modes/types/symlinks/sizes" "$T/copy.meta" "$T/r.meta"
it_links "$T/copy" >"$T/copy.links"
it_links "$X/r" >"$T/r.links"
it_same "--link=reflink: hardlinks" "$T/copy.links" "$T/r.links"

# shared() DIR: the non-empty regular files of DIR whose extents are not all shared
unshared() {
	find "$1" -type f -size +0 -print0 | while IFS= read -r -d '' f; do
		filefrag -v "$f" | awk 'NR > 3 && /^ *[0-9]+:/ && $0 !~ /shared/ { bad = 1 } END { exit bad }' ||
			echo "$f"
	done
}
n=$(find "$X/r" -type f -size +0 | wc -l)
[ "$n" -gt 10 ] || fail "only $n non-empty files installed"
unshared "$X/r" >"$T/unshared"
[ -s "$T/unshared" ] && fail "--link=reflink: not clones: $(head -3 "$T/unshared" | tr '\n' ' ')"

# copy-on-write: an installed file written to, the cache's bytes stay
f=$(cd "$X/r" && find . -type f -size +1k | sort | head -n 1)
[ -n "$f" ] || die "no file over 1 KiB installed"
chmod u+w "$X/r/$f"
printf 'overwritten' | dd of="$X/r/$f" conv=notrunc status=none || die "write into $f"
cmp -s "$X/r/$f" "$T/copy/$f" && fail "the write into $f did not change it"
rp --output-dir "$X/r2" --link=reflink || die "rockpack install --link=reflink again"
cmp "$X/r2/$f" "$T/copy/$f" || fail "writing into an installed $f changed the cache's bytes"
diff -r --no-dereference "$T/copy" "$X/r2" >"$T/diff" 2>&1 || fail "second install: $(head -5 "$T/diff")"

# --link=auto clones where it can
rp --output-dir "$X/a" --link=auto || die "rockpack install --link=auto on XFS"
diff -r --no-dereference "$T/copy" "$X/a" >"$T/diff" 2>&1 || fail "--link=auto: $(head -5 "$T/diff")"
unshared "$X/a" >"$T/unshared"
[ -s "$T/unshared" ] && fail "--link=auto on XFS: not clones: $(head -3 "$T/unshared" | tr '\n' ' ')"
it_say "$n files cloned from the cache, copy-on-write"
it_finish
