#!/usr/bin/env bash
# browse_equals_tar: for every artifact of both demo runs, MNT/<run>/browse/<stem> is what
# `tar -x` of the archive makes: contents, modes, types, symlink targets, sizes, mtimes and
# hardlinks; `find`, `stat`, `ls -lR` and `rsync -a` work on the mount; the .tar.xz/.tar.zst
# twin shows once in browse/ while artifacts/ passes every stored file through unchanged.
. "$(dirname "$0")/lib.sh"
it_init "$@"

RUNS="24205988454-linux 24205988455-linux"
M=$T/mnt
it_mount fs "$STORE" "$M" "$T/cache"

# the root: README, release/ (view_release.c) and one directory per run, nothing else
printf '%s\n' README release $RUNS | sort >"$T/root.want"
ls -A "$M" >"$T/root.got"
it_same "mount root listing" "$T/root.want" "$T/root.got"
grep -q 'rockfs mount' "$M/README" || fail "README does not describe the mount"

for run in $RUNS; do
	R=$STORE/$run
	# (both demo runs store wheels: python/, see python_index.sh; and their manifest:
	# manifests/, a stored folder, as stored; README: what is stored, what is made)
	[ "$(ls "$M/$run")" = "$(printf 'README\nartifacts\nbrowse\ndist\ninstall\nkpack\nmanifests\npackages\npython\ntarballs')" ] || fail "$run: want README, artifacts/, browse/, dist/, install/, kpack/, manifests/, packages/, python/ and tarballs/: $(ls "$M/$run" | tr '\n' ' ')"
	it_sums "$R/manifests" >"$T/$run.manifests.want"
	it_sums "$M/$run/manifests" >"$T/$run.manifests.got"
	it_same "$run: manifests/ as stored" "$T/$run.manifests.want" "$T/$run.manifests.got"

	# browse/ lists exactly the artifacts, once each
	it_artifacts "$R" >"$T/$run.arts"
	cut -d' ' -f1 "$T/$run.arts" >"$T/$run.browse.want"
	ls -A "$M/$run/browse" >"$T/$run.browse.got"
	it_same "$run: browse/ listing" "$T/$run.browse.want" "$T/$run.browse.got"

	# artifacts/ lists every stored file (not the manifests/ directory), byte-identical
	(cd "$R" && find . -maxdepth 1 -type f -printf '%f\n' | sort) >"$T/$run.files.want"
	ls -A "$M/$run/artifacts" >"$T/$run.files.got"
	it_same "$run: artifacts/ listing" "$T/$run.files.want" "$T/$run.files.got"
	while read -r f; do
		cmp -s "$R/$f" "$M/$run/artifacts/$f" || fail "$run: artifacts/$f differs from the store"
		[ "$(stat -c %s "$M/$run/artifacts/$f")" = "$(stat -c %s "$R/$f")" ] ||
			fail "$run: artifacts/$f: wrong size"
	done <"$T/$run.files.want"

	# every artifact against its tar extraction
	n=0
	while read -r stem file; do
		ext=$T/tar/$run/$stem
		it_extract "$R/$file" "$ext"
		it_cmp_tree "$run/browse/$stem" "$ext" "$M/$run/browse/$stem"
		# cmp of every file, on top of diff -r and sha256sum
		while IFS= read -r -d '' f; do
			cmp -s "$ext/$f" "$M/$run/browse/$stem/$f" || fail "$run/$stem: cmp '$f'"
		done < <(cd "$ext" && find . -type f -print0)
		# symlink targets, read one by one
		while IFS= read -r -d '' l; do
			[ "$(readlink "$ext/$l")" = "$(readlink "$M/$run/browse/$stem/$l")" ] ||
				fail "$run/$stem: readlink '$l'"
		done < <(cd "$ext" && find . -type l -print0)
		n=$((n + 1))
	done <"$T/$run.arts"
	[ "$n" -ge 10 ] || fail "$run: only $n artifacts found in the store"
	it_say "$run: $n artifacts compared"
done

# hardlinks really are there in the demo (else the hardlink check above proves nothing),
# and inside the mount they share one inode with a link count of 2
hl=$(cd "$T/tar" && find . -type f -links +1 | wc -l)
[ "$hl" -ge 2 ] || fail "the demo store has no hardlinks to check ($hl)"
while IFS= read -r -d '' f; do
	rel=${f#./}
	run=${rel%%/*}
	rest=${rel#*/}
	[ "$(stat -c %h "$M/$run/browse/$rest")" = 2 ] || fail "hardlink '$rel': link count is not 2"
done < <(cd "$T/tar" && find . -type f -links +1 -print0)
for run in $RUNS; do
	d=$M/$run/browse/amd-llvm_run_generic/compiler/amd-llvm/stage/lib/llvm/bin
	[ "$(stat -c %i "$d/lld")" = "$(stat -c %i "$d/ld.lld")" ] ||
		fail "$run: lld and ld.lld are not the same inode"
done

# the twin: core-hip_dev_generic is stored as .tar.zst and .tar.xz (same tar inside)
for run in $RUNS; do
	[ "$(ls "$M/$run/browse" | grep -c '^core-hip_dev_generic$')" = 1 ] ||
		fail "$run: core-hip_dev_generic is not listed exactly once in browse/"
	for f in core-hip_dev_generic.tar.zst core-hip_dev_generic.tar.xz \
		core-hip_dev_generic.tar.zst.sha256sum core-hip_dev_generic.tar.xz.sha256sum; do
		[ -f "$M/$run/artifacts/$f" ] || fail "$run: artifacts/$f missing"
		cmp -s "$STORE/$run/$f" "$M/$run/artifacts/$f" || fail "$run: artifacts/$f differs"
	done
	it_extract "$STORE/$run/core-hip_dev_generic.tar.xz" "$T/xz/$run"
	it_cmp_tree "$run: browse of the twin vs its .tar.xz" "$T/xz/$run" \
		"$M/$run/browse/core-hip_dev_generic"
done

# ordinary tools walk the whole mount without an error
find "$M" >/dev/null || fail "find over the mount failed"
find "$M" -exec stat {} + >/dev/null || fail "stat of every entry failed"
ls -lR "$M" >/dev/null || fail "ls -lR of the mount failed"
du -s "$M" >/dev/null || fail "du -s of the mount failed"
# a walk in readdir order twice gives the same (stable) listing
(cd "$M" && find . | head -c 1000000) >"$T/walk1"
(cd "$M" && find . | head -c 1000000) >"$T/walk2"
it_same "two walks of the mount" "$T/walk1" "$T/walk2"

# rsync -a out of the mount is the tar extraction again (-H: hardlinks too, found through
# the mount's inode numbers and link counts)
if command -v rsync >/dev/null; then
	for run in $RUNS; do
		mkdir -p "$T/rsync/$run"
		rsync -aH "$M/$run/browse/" "$T/rsync/$run/" ||
			fail "$run: rsync -aH out of the mount failed"
		while read -r stem file; do
			it_cmp_tree "rsync copy of $run/$stem" "$T/tar/$run/$stem" "$T/rsync/$run/$stem" ||
				true
		done < <(it_artifacts "$STORE/$run")
	done
else
	it_say "rsync not installed: rsync check skipped"
fi

it_quiet_log fs
it_finish
