#!/usr/bin/env bash
# view-digests.sh: a byte-identity oracle for the views. It records everything a build
# shows of a store, through the mount and through rockpack, as one sorted text file, so
# that a refactor can be checked with `diff before.txt after.txt` (same STORE both times).
#
#   tools/view-digests.sh BUILD_DIR STORE OUT
#
# BUILD_DIR is a build tree with fs/rockfs and tools/rockpack; STORE is a store directory
# (e.g. one written by tests/demo/mkdemo.py); OUT is the digest file to write.
#
# 1. Mounts STORE with BUILD_DIR/fs/rockfs on a temporary mountpoint with a fresh cache
#    (waits for the mount as tests/integration/lib.sh does) and walks the whole mount with
#    find: the README, every run (also nested ones) and every view in it (artifacts,
#    browse, dist, kpack, python, tarballs, dist/.rockfs, ...). Then unmounts and checks
#    that the daemon exits by itself with status 0.
# 2. With BUILD_DIR/tools/rockpack and its own fresh cache, for every run that
#    `rockpack --json ls STORE` lists: `export STORE RUN .` (the whole run), `export` of
#    every file the mount showed in RUN/tarballs/, one by one, `wheels -o DIR` and
#    `wheels -o DIR --index`, and the text and --json outputs of `ls STORE` and
#    `ls STORE RUN`, and `packages --type deb|rpm` (also with --multiarch). A rockpack
#    command that fails is recorded as a line "<name> ... rockpack-exit=N" (its stderr goes to ours) and the script goes on, so a
#    broken command shows up in the diff. (At a70c692 `export RUN .` writes the .tar.gz
#    and .tar.zst files of tarballs/ empty, while exporting them one by one gives the
#    mount's bytes: the digest records what the build does, right or wrong.)
#
# OUT has one line per entry, tab-separated, sorted by path (LC_ALL=C):
#     PATH  TYPE+MODE  SIZE  NLINK  MTIME  WHAT
# PATH is mount/<path in the mount> (mount/ itself is the root) or
# rockpack/<run>/<command>/<path in the output>, or rockpack/ls/... for the listings.
# TYPE+MODE is find's %M (e.g. -r--r--r--, dr-xr-xr-x, lrwxrwxrwx); SIZE is %s; NLINK is
# %n (both "-" for directories that rockpack wrote: those are the host filesystem's).
# WHAT is sha256:<hex> for a regular file (sha256:UNREADABLE if reading it failed),
# "-> TARGET" for a symlink, "-" otherwise; a file with more than one link also gets
# " hardlink-of:<first path of its inode>" (inode numbers are used only for this grouping).
# The mount is walked before anything reads a file, so sizes are what a first stat shows.
#
# Left out on purpose, because they differ between two mounts of the same build: inode
# numbers, atime and ctime, owner and group (whoever mounts), st_blocks (follows size),
# and the mountpoint and cache paths. MTIME is find's %T@, which IS stable for nearly
# every entry (tar member times, and the store files' own mtimes for run directories,
# artifacts/, dist/, kpack/ and python/ entries), but a few entries get the time of the
# mount (the mount root and README) and rockpack's output directories the time of their
# creation. Any mtime at or after the moment this script started (made later than every
# file of STORE) is therefore written as "now"; every other mtime is kept exactly.
# Because store-derived mtimes are kept, compare digests of the same STORE directory:
# regenerating it with mkdemo.py changes the files' mtimes (the bytes are deterministic,
# the file times are not).
#
# Takes about 2 s on the demo store (2 runs, about 6,400 lines).
#
# Paths or symlink targets containing a tab or a newline are refused (the format has no
# escapes); the demo store has none. Requires fusermount3, mountpoint, find, sha256sum,
# python3 (to read `rockpack --json ls`). Exit status 0 when OUT was written; 1 on setup
# errors; 2 when OUT was written but something failed along the way (a rockpack command,
# an unreadable file, an unclean unmount, errors in the daemon log).
set -euo pipefail
export LC_ALL=C
umask 022 # the modes of what rockpack and this script create must not depend on the caller

die() {
	printf 'view-digests: %s\n' "$*" >&2
	exit 1
}
warn() {
	printf 'view-digests: warning: %s\n' "$*" >&2
	problems=$((problems + 1))
}

[ $# -eq 3 ] || die "usage: $0 BUILD_DIR STORE OUT"
build=$(realpath "$1")
store=$(realpath "$2")
out=$3
rockfs=$build/fs/rockfs
rockpack=$build/tools/rockpack
[ -x "$rockfs" ] || die "'$rockfs' is not executable"
[ -x "$rockpack" ] || die "'$rockpack' is not executable"
[ -d "$store" ] || die "store '$store' is not a directory"
for tool in fusermount3 mountpoint find sha256sum sort python3; do
	command -v "$tool" >/dev/null || die "'$tool' is not installed"
done
[ -c /dev/fuse ] || die "/dev/fuse is missing"

problems=0
# mtimes at or after t0 are the time of this run and written as "now"; t0 must be later
# than every file of STORE (a store written in this very second: wait for the next one)
newest=$(find "$store" -printf '%T@\n' | sort -n | tail -n 1)
newest=${newest%%.*}
while t0=$(date +%s) && [ "$t0" -le "${newest:-0}" ]; do
	sleep 0.2
done
T=$(mktemp -d "${TMPDIR:-/tmp}/view-digests.XXXXXX")
mnt=$T/mnt
pid=
mounted=

cleanup() {
	local rc=$?
	set +e
	if [ -n "$mounted" ]; then
		fusermount3 -u "$mnt" 2>/dev/null || fusermount3 -u -z "$mnt" 2>/dev/null
	fi
	if [ -n "$pid" ]; then
		for _ in $(seq 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -TERM "$pid" 2>/dev/null && sleep 0.5 && kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	fi
	if mountpoint -q "$mnt" 2>/dev/null; then
		printf 'view-digests: %s is still mounted; kept %s\n' "$mnt" "$T" >&2
	else
		chmod -R u+w "$T" 2>/dev/null
		rm -rf "$T"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# digest_tree DIR PREFIX MINDEPTH HOSTFS: the lines described above for DIR's tree, to
# stdout. With HOSTFS=1 (a tree on the local disk, written by rockpack) the size and link
# count of directories are the host filesystem's business and are written as "-".
digest_tree() {
	local dir=$1 prefix=$2 mindepth=$3 hostfs=$4 bad
	bad=$(cd "$dir" && find . -mindepth "$mindepth" \( -name $'*\t*' -o -name $'*\n*' \
		-o -lname $'*\t*' -o -lname $'*\n*' \) -print -quit)
	[ -z "$bad" ] || die "$dir: '$bad': a tab or newline in a name or symlink target"
	(cd "$dir" && find . -mindepth "$mindepth" -printf '%i\t%n\t%M\t%s\t%T@\t%P\t%l\n') \
		>"$T/meta"
	# sha256sum goes on past unreadable files (and then fails): those get UNREADABLE
	(cd "$dir" && find . -mindepth "$mindepth" -type f -printf '%P\0' |
		xargs -0 -r sha256sum -z -- | tr '\0' '\n') >"$T/sums" ||
		warn "$prefix: some files could not be read"
	# three passes: the sums, the meta once for the first path of each inode, then again
	awk -F '\t' -v OFS='\t' -v prefix="$prefix" -v t0="$t0" -v hostfs="$hostfs" '
	pass == 1 {
		sum[substr($0, 67)] = substr($0, 1, 64)
		next
	}
	pass == 2 {
		if ($2 > 1 && substr($3, 1, 1) != "d" && (!($1 in first) || ($6 "") < first[$1]))
			first[$1] = $6 ""
		next
	}
	{
		split($5, t, ".")
		mtime = (t[1] + 0 >= t0 + 0) ? "now" : $5
		path = ($6 == "") ? prefix "/" : prefix "/" $6
		type = substr($3, 1, 1)
		if (type == "-")
			what = "sha256:" (($6 in sum) ? sum[$6] : "UNREADABLE")
		else if (type == "l")
			what = "-> " $7
		else
			what = "-"
		if ($2 > 1 && type != "d")
			what = what " hardlink-of:" prefix "/" first[$1]
		size = $4
		nlink = $2
		if (hostfs && type == "d")
			size = nlink = "-"
		print path, $3, size, nlink, mtime, what
	}' pass=1 "$T/sums" pass=2 "$T/meta" pass=3 "$T/meta"
}

# ---- 1. the mount ----
mkdir -p "$mnt" "$T/cache"
(
	trap - INT QUIT
	exec "$rockfs" "$store" "$mnt" -f -o "cache=$T/cache"
) >"$T/rockfs.log" 2>&1 &
pid=$!
for ((i = 0; i < 300; i++)); do
	mountpoint -q "$mnt" && break
	if ! kill -0 "$pid" 2>/dev/null; then
		cat "$T/rockfs.log" >&2
		die "rockfs exited before '$mnt' was mounted"
	fi
	sleep 0.1
done
mountpoint -q "$mnt" || die "'$mnt' not mounted after 30 s"
mounted=1

digest_tree "$mnt" mount 0 0 >"$T/digest"

fusermount3 -u "$mnt" || die "'fusermount3 -u $mnt' failed"
mounted=
rc=0
wait "$pid" || rc=$?
pid=
[ "$rc" -eq 0 ] || warn "rockfs exited with status $rc after unmount"
if grep -nE '^rockfs: (error|warning):|^==[0-9]+==|runtime error:' "$T/rockfs.log" >&2; then
	warn "errors or warnings in the daemon log (above)"
fi

# ---- 2. rockpack ----
rp() {
	"$rockpack" --cache "$T/rp-cache" -q "$@"
}
# rp_to FILE ARGS...: rockpack ARGS with stdout to FILE
rp_to() {
	local f=$1
	shift
	rp "$@" >"$f"
}
# rp_step NAME CMD...: run CMD; a failure becomes a line of the digest
rp_step() {
	local name=$1 rc=0
	shift
	"$@" || rc=$?
	if [ "$rc" -ne 0 ]; then
		warn "$name: '$*' failed with status $rc"
		printf '%s\t?\t?\t?\t?\trockpack-exit=%d\n' "rockpack/$name" "$rc" >>"$T/digest"
	fi
	return 0
}

rpo=$T/rp
mkdir -p "$rpo/ls"
rp --json ls "$store" >"$rpo/ls/runs.json" || die "'rockpack --json ls $store' failed"
mapfile -t runs < <(python3 -c '
import json, sys
for r in json.load(sys.stdin):
    print(r["run"])' <"$rpo/ls/runs.json")
[ "${#runs[@]}" -gt 0 ] || die "rockpack lists no runs in '$store'"
rp_step ls/runs.txt rp_to "$rpo/ls/runs.txt" ls "$store"

for run in "${runs[@]}"; do
	# a run may be <owner>-<repo>/<run>: keep the slash as a directory level
	o=$rpo/$run
	mkdir -p "$o" "$rpo/ls/$run"
	rp_step "ls/$run/run.txt" rp_to "$rpo/ls/$run/run.txt" ls "$store" "$run"
	rp_step "ls/$run/run.json" rp_to "$rpo/ls/$run/run.json" --json ls "$store" "$run"
	rp_step "$run/export" rp export "$store" "$run" . -o "$o/export"
	rp_step "$run/wheels" rp wheels "$store" "$run" -o "$o/wheels"
	rp_step "$run/wheels-index" rp wheels "$store" "$run" -o "$o/wheels-index" --index
	# packages/: both repository kinds, also as the multi-arch set
	for type in deb rpm; do
		rp_step "$run/packages-$type" rp packages "$store" "$run" --type $type \
			-o "$o/packages-$type"
		rp_step "$run/packages-$type-multiarch" rp packages "$store" "$run" --type $type \
			--multiarch -o "$o/packages-$type-multiarch"
	done
	# every file the mount showed in tarballs/, exported on its own (a file PATH)
	mkdir -p "$o/export-file"
	while IFS= read -r b; do
		rp_step "$run/export-file/$b" rp export "$store" "$run" "tarballs/$b" \
			-o "$o/export-file"
	done < <(awk -F '\t' -v d="mount/$run/tarballs/" \
		'index($1, d) == 1 && substr($2, 1, 1) == "-" && index(substr($1, length(d) + 1), "/") == 0 \
		{ print substr($1, length(d) + 1) }' "$T/digest" | sort)
done

digest_tree "$rpo" rockpack 1 1 >>"$T/digest"

sort "$T/digest" >"$out.tmp.$$"
mv "$out.tmp.$$" "$out"
n=$(wc -l <"$out")
printf 'view-digests: %d entries in %s (%ds)\n' "$n" "$out" "$SECONDS" >&2
[ "$problems" -eq 0 ] || {
	printf 'view-digests: %d problem(s), see above\n' "$problems" >&2
	exit 2
}
