#!/usr/bin/env bash
# readonly: every way of changing the mount fails with EROFS (in the root, in artifacts/ and
# inside browse/), nothing changes, and the mount keeps serving the same bytes afterwards.
. "$(dirname "$0")/lib.sh"
it_init "$@"

RUN=24205988455-linux
STEM=core-hip_lib_generic
M=$T/mnt
it_mount fs "$STORE" "$M" "$T/cache"

B=$M/$RUN/browse/$STEM
A=$M/$RUN/artifacts
it_extract "$STORE/$RUN/$STEM.tar.zst" "$T/want"
file=$(cd "$T/want" && find . -type f ! -name artifact_manifest.txt | sort | head -n 1)
file=${file#./}
link=$(cd "$T/want" && find . -type l | sort | head -n 1)
link=${link#./}
dir=$(dirname "$file")
[ -n "$file" ] && [ -n "$link" ] || die "$STEM has no file or no symlink to test with"

# The places to try: directory, an existing file, an existing subdirectory
DIRS=("$M" "$A" "$B" "$B/$dir")
FILES=("$M/README" "$A/$STEM.tar.zst" "$B/$file" "$B/artifact_manifest.txt")

snapshot() { (cd "$M" && find . -printf '%p %m %s %T@ %l\n' | sort); }
snapshot >"$T/before"
sums() { sha256sum "${FILES[@]}"; }
sums >"$T/sums.before"

# expect_erofs WHAT CMD...: CMD must fail, saying "Read-only file system"
expect_erofs() {
	local what=$1 out
	shift
	if out=$("$@" 2>&1); then
		fail "$what: succeeded on a read-only mount"
	elif ! grep -q 'Read-only file system' <<<"$out"; then
		fail "$what: failed, but not with EROFS: $out"
	fi
}

# The syscall half of the checks, with the exact errno (no shell tool in between).
cat >"$T/syscalls.py" <<'EOF'
import errno, os, sys
phase, root, f, d, l, art = sys.argv[1:]
bad = []
def erofs(what, fn, *a, also=(), **kw):
    try:
        fn(*a, **kw)
    except OSError as e:
        if e.errno != errno.EROFS and e.errno not in also:
            bad.append("%s: %s, not EROFS" % (what, errno.errorcode.get(e.errno, e.errno)))
        return
    bad.append("%s: succeeded" % what)
# A write open: EROFS. Once the mount is rw, rockfs lets the kernel open files without
# asking (no OPEN round trip per file): such an open succeeds, and every write through
# it must fail with EROFS (nothing changes: the sums below).
def erofs_open(what, p, flags):
    try:
        fd = os.open(p, flags)
    except OSError as e:
        if e.errno != errno.EROFS:
            bad.append("%s: %s, not EROFS" % (what, errno.errorcode.get(e.errno, e.errno)))
        return
    try:
        if phase == "ro":
            bad.append("%s: succeeded" % what)
        else:
            erofs(what + ", then write", os.write, fd, b"x")
            erofs(what + ", then pwrite", os.pwrite, fd, b"x", 0)
    finally:
        os.close(fd)
for p in (f, art):
    erofs_open("open O_WRONLY " + p, p, os.O_WRONLY)
    erofs_open("open O_RDWR " + p, p, os.O_RDWR)
    erofs("open O_RDONLY|O_TRUNC " + p, os.open, p, os.O_RDONLY | os.O_TRUNC)
    erofs_open("open O_WRONLY|O_APPEND " + p, p, os.O_WRONLY | os.O_APPEND)
    erofs("truncate " + p, os.truncate, p, 0)
    erofs("utime " + p, os.utime, p, (0, 0))
    erofs("chmod " + p, os.chmod, p, 0o600)
    erofs("setxattr " + p, os.setxattr, p, "user.rockfs", b"1")
    erofs("removexattr " + p, os.removexattr, p, "user.rockfs")
    erofs("unlink " + p, os.unlink, p)
    erofs("rename " + p, os.rename, p, p + ".x")
    erofs("link " + p, os.link, p, p + ".h")
for dd in (root, d):
    erofs("open O_CREAT " + dd, os.open, os.path.join(dd, "new"), os.O_WRONLY | os.O_CREAT, 0o644)
    # (FUSE without a tmpfile operation answers EOPNOTSUPP once the mount is rw)
    erofs("open O_TMPFILE " + dd, os.open, dd, os.O_TMPFILE | os.O_WRONLY, 0o600,
          also=(errno.EOPNOTSUPP,) if phase != "ro" else ())
    erofs("mkdir " + dd, os.mkdir, os.path.join(dd, "new"))
    erofs("mknod " + dd, os.mknod, os.path.join(dd, "fifo"), 0o600 | 0o010000)
    erofs("symlink " + dd, os.symlink, "x", os.path.join(dd, "sl"))
    erofs("utime " + dd, os.utime, dd, (0, 0))
erofs("rmdir " + d, os.rmdir, d)  # (rmdir of the mount root itself is EBUSY)
erofs("unlink symlink", os.unlink, l)
erofs("lchown symlink", os.lchown, l, os.getuid(), os.getgid())
# reading through a read-only descriptor still works, writing through it does not
fd = os.open(f, os.O_RDONLY)
try:
    try:
        os.write(fd, b"x")
        bad.append("write on an O_RDONLY fd: succeeded")
    except OSError as e:
        if e.errno != errno.EBADF:
            bad.append("write on an O_RDONLY fd: %s" % errno.errorcode.get(e.errno))
    if len(os.pread(fd, 1 << 20, 0)) != os.fstat(fd).st_size:
        bad.append("pread returned a short file")
finally:
    os.close(fd)
st = os.statvfs(root)
if phase == "ro" and not st.f_flag & os.ST_RDONLY:
    bad.append("statvfs: ST_RDONLY not set")
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
EOF

# write_attempts PHASE: every kind of change, each must fail with EROFS
write_attempts() {
	for d in "${DIRS[@]}"; do
		r=${d#"$T/"}
		expect_erofs "$1: touch $r/new" touch "$d/new"
		expect_erofs "$1: mkdir $r/newdir" mkdir "$d/newdir"
		expect_erofs "$1: ln -s $r/newlink" ln -s target "$d/newlink"
		expect_erofs "$1: mkfifo $r/fifo" mkfifo "$d/fifo"
		expect_erofs "$1: > $r/new" bash -c ': >"$1"' _ "$d/new"
		expect_erofs "$1: chmod $r" chmod 0700 "$d"
		expect_erofs "$1: touch -d (utimes) $r" touch -d @0 "$d"
	done
	for f in "${FILES[@]}"; do
		r=${f#"$T/"}
		expect_erofs "$1: echo > $r" bash -c 'echo x >"$1"' _ "$f"
		expect_erofs "$1: echo >> $r" bash -c 'echo x >>"$1"' _ "$f"
		expect_erofs "$1: truncate $r" truncate -s 0 "$f"
		expect_erofs "$1: rm $r" rm -f "$f"
		expect_erofs "$1: mv $r" mv "$f" "$f.moved"
		expect_erofs "$1: ln $r (hardlink)" ln "$f" "$f.hard"
		expect_erofs "$1: chmod $r" chmod 0600 "$f"
		expect_erofs "$1: chown $r" chown "$(id -u):$(id -g)" "$f"
		expect_erofs "$1: touch $r (utimes)" touch "$f"
		if command -v setfattr >/dev/null; then
			expect_erofs "$1: setfattr $r" setfattr -n user.rockfs -v 1 "$f"
		fi
	done
	expect_erofs "$1: rmdir browse/$STEM/$dir" rmdir "$B/$dir"
	expect_erofs "$1: rm -r browse/$STEM" rm -rf "$B/$dir"
	expect_erofs "$1: mv between directories" mv "$B/$file" "$B/artifact_manifest.txt"
	expect_erofs "$1: rm symlink" rm -f "$B/$link"
	expect_erofs "$1: cp into browse" cp "$M/README" "$B/$dir/"

	python3 "$T/syscalls.py" "$1" "$M" "$B/$file" "$B/$dir" "$B/$link" "$A/$STEM.tar.zst" \
		>"$T/sys.out" 2>&1 || fail "$1: syscall checks: $(cat "$T/sys.out")"
}

# 1. as mounted: the kernel refuses writes on the "ro" mount
write_attempts ro
grep -F " $M " /proc/mounts | grep -q ' ro[, ]' || fail "/proc/mounts does not show '$M' as ro"

# 2. as root, flip the mount to rw behind the daemon's back (mount(2) MS_REMOUNT): now every
# write reaches rockfs, whose own handlers must answer EROFS too
if [ "$(id -u)" = 0 ] && python3 -c '
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
sys.exit(libc.mount(None, sys.argv[1].encode(), None, 32, None) != 0)  # MS_REMOUNT' "$M" &&
	grep -F " $M " /proc/mounts | grep -q ' rw[, ]'; then
	write_attempts daemon
else
	it_say "cannot remount rw (not root?): the daemon's own EROFS replies are not checked"
fi

# nothing changed, and the mount is healthy
it_alive fs
snapshot >"$T/after"
it_same "the mount's tree before and after the write attempts" "$T/before" "$T/after"
sums >"$T/sums.after"
it_same "file contents before and after the write attempts" "$T/sums.before" "$T/sums.after"
it_cmp_tree "browse/$STEM after the write attempts" "$T/want" "$B"
cmp -s "$STORE/$RUN/$STEM.tar.zst" "$A/$STEM.tar.zst" || fail "artifacts/$STEM.tar.zst changed"
ls -lR "$M" >/dev/null || fail "ls -lR after the write attempts"

it_quiet_log fs
it_finish
