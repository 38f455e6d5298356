#!/usr/bin/env bash
# walk_round_trips: a tree walk costs the FUSE round trips it must, no more (issue 14).
# Counted in the daemon's -d output (libfuse logs "opcode: NAME" for every request):
#   - directories are never opened: no OPENDIR after the first (answered ENOSYS, the
#     kernel then stops asking), no RELEASEDIR;
#   - the first walk reads each directory with READDIRPLUS only (no plain READDIR, no
#     LOOKUP per entry: the attributes come with the names);
#   - a second walk reaches the daemon not at all (the kernel keeps the listings);
#   - files are never opened either: no OPEN after the first, no RELEASE or FLUSH; a read of a
#     whole tree (in parallel, so that reads share the daemon's open files) gives the
#     bytes `rockpack export` writes, and reading it again costs no READ;
#   - `ls -l` and `cp -a` ask for no extended attributes after the first (answered
#     ENOSYS: coreutils asks three or four per entry of a file system that answers).
. "$(dirname "$0")/lib.sh"
it_init "$@"

RUN=24205988455-linux
M=$T/mnt
# (-o nopassthrough: a mount with passthrough answers opens, fs/passthrough.c)
it_mount fs "$STORE" "$M" "$T/cache" -d -o nopassthrough
LOG=${IT_LOG[fs]}
seen=0
# since: the requests logged since the last call, one opcode and nodeid a line
since() {
	local n
	n=$(wc -l <"$LOG")
	tail -n +"$((seen + 1))" "$LOG" | head -n "$((n - seen))" |
		sed -n 's/.*opcode: \([A-Z_]*\) ([0-9]*), nodeid: \([0-9]*\).*/\1 \2/p' >"$T/ops"
	seen=$n
}
ops() { awk -v op="$1" '$1 == op' "$T/ops" | wc -l; }

# the trees: an artifact's, and a dist tree (more files than the daemon keeps open)
B=$M/$RUN/browse/blas_lib_generic
D=$M/$RUN/dist/gfx110X-all
"$ROCKPACK" -q --cache "$T/cache-export" export "$STORE" "$RUN" dist/gfx110X-all \
	-o "$T/dist" || fail "rockpack export failed"
nfiles=$(find "$T/dist" -type f | wc -l)
[ "$nfiles" -gt 64 ] || fail "dist/gfx110X-all has $nfiles files: too few to test with"
# the first opens of a directory and a file are answered ENOSYS (one at a time here:
# concurrent first opens each ask)
ls "$M" >/dev/null
cat "$M/README" >/dev/null
since
[ "$(ops OPENDIR)" -le 1 ] || fail "ls of the root: $(ops OPENDIR) OPENDIR"
[ "$(ops OPEN)" -le 1 ] || fail "cat of one file: $(ops OPEN) OPEN"

# 1. a first walk
find "$B" "$D" -ls >"$T/walk1" || fail "find -ls (first walk) failed"
since
ndirs=$(find "$B" "$D" -type d | wc -l)
[ "$(ops OPENDIR)" -eq 0 ] || fail "first walk: $(ops OPENDIR) OPENDIR for $ndirs directories"
[ "$(ops RELEASEDIR)" -eq 0 ] || fail "first walk: $(ops RELEASEDIR) RELEASEDIR"
[ "$(ops READDIR)" -eq 0 ] || fail "first walk: $(ops READDIR) plain READDIR (want READDIRPLUS only)"
[ "$(ops READDIRPLUS)" -ge "$ndirs" ] || fail "first walk: $(ops READDIRPLUS) READDIRPLUS for $ndirs directories"
# (a lookup per name on the way down to each tree, none per entry)
[ "$(ops LOOKUP)" -le 8 ] || fail "first walk: $(ops LOOKUP) LOOKUP (the entries came without their attributes?)"

# 2. the same walk again: the kernel has it all
find "$B" "$D" -ls >"$T/walk2" || fail "find -ls (second walk) failed"
since
it_same "the first and second walk" "$T/walk1" "$T/walk2"
for op in OPENDIR RELEASEDIR READDIR READDIRPLUS LOOKUP; do
	[ "$(ops $op)" -eq 0 ] || fail "second walk: $(ops $op) $op round trips (want none)"
done
# (the root's attributes time out after list_ttl: a GETATTR of it is allowed)
n=$(awk '$1 == "GETATTR" && $2 != 1' "$T/ops" | wc -l)
[ "$n" -eq 0 ] || fail "second walk: $n GETATTR of inodes other than the root"

# 3. read every file, four at a time, then again
(cd "$D" && find . -type f -print0 | sort -z | xargs -0 -P4 -n16 sha256sum) | sort -k2 \
	>"$T/sums1" || fail "reading dist/gfx110X-all failed"
since
(cd "$T/dist" && find . -type f -print0 | sort -z | xargs -0 sha256sum) | sort -k2 >"$T/want"
it_same "dist/gfx110X-all read through the mount and exported" "$T/want" "$T/sums1"
[ "$(ops OPEN)" -eq 0 ] || fail "reading $nfiles files: $(ops OPEN) OPEN round trips"
[ "$(ops RELEASE)" -eq 0 ] || fail "reading $nfiles files: $(ops RELEASE) RELEASE round trips"
[ "$(ops FLUSH)" -eq 0 ] || fail "reading $nfiles files: $(ops FLUSH) FLUSH round trips"
[ "$(ops READ)" -ge 1 ] || fail "reading $nfiles files: no READ counted (is -d logging?)"
(cd "$D" && find . -type f -print0 | sort -z | xargs -0 sha256sum) | sort -k2 >"$T/sums2"
since
it_same "dist/gfx110X-all read twice" "$T/sums1" "$T/sums2"
[ "$(ops READ)" -eq 0 ] || fail "reading again: $(ops READ) READ round trips (the kernel dropped its pages?)"
[ "$(ops OPEN)" -eq 0 ] || fail "reading again: $(ops OPEN) OPEN round trips"

# 4. ls -lR and cp -a: extended attributes asked once at most (ENOSYS), then never
ls -lR "$D" >/dev/null || fail "ls -lR failed"
cp -a "$D" "$T/copy" || fail "cp -a failed"
since
[ "$(ops GETXATTR)" -le 1 ] || fail "ls -lR + cp -a: $(ops GETXATTR) GETXATTR round trips (want one at most)"
[ "$(ops LISTXATTR)" -le 1 ] || fail "ls -lR + cp -a: $(ops LISTXATTR) LISTXATTR round trips (want one at most)"
diff -r "$T/dist" "$T/copy" >/dev/null || fail "cp -a copied a different tree"

it_umount fs
it_quiet_log fs
it_finish
