/* cli_copy.c: rp_copy_tree (cli_copy.h), a local directory copied as `rsync -a SRC OUT`
 * copies it, for `rockpack install --input-dir` (install_rocm_from_artifacts.py runs
 * `rsync -azP INPUT_DIR OUTPUT_DIR`). Uses cli_util.c and libc, no command.
 *
 * rsync -a is -rlptgoD: recursive, symlinks as symlinks, permissions, times, group and
 * owner (kept only as root), devices and specials; no -H, so two hardlinks of one file
 * are two files. Without a trailing '/' SRC itself is copied (OUT/basename(SRC)), with
 * one its contents. Both sides are walked by descriptor: the source with O_NOFOLLOW at
 * every step (a symlink is read, never followed, except SRC itself given with a
 * trailing '/', as rsync follows it), the output in a private staging directory next to
 * OUT (rk/staging.h), every entry made relative to its directory's descriptor with
 * O_EXCL / O_NOFOLLOW: nothing is written outside OUT, whatever the source holds. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <dirent.h>

#include "rk/buf.h"
#include "rk/staging.h"
#include "cli_copy.h"

struct copier {
	struct rp_progress *p;
	char *buf;
	int skipped; /* devices not made (not root), as rsync reports them */
};

static void set_times(int dirfd, const char *name, const struct stat *st)
{
	struct timespec ts[2] = {st->st_atim, st->st_mtim};

	ts[0].tv_nsec = UTIME_OMIT; /* rsync -a keeps no access times */
	utimensat(dirfd, name, ts, AT_SYMLINK_NOFOLLOW);
}

/* Copy the bytes of in into out: copy_file_range (the kernel's copy, a reflink where the
 * file system shares extents), else read and write. 0 or -errno. */
int rp_copy_fd(int in, int out, uint64_t size, char *buf, size_t bufsz, struct rp_progress *p)
{
	uint64_t off = 0;
	int cfr = 1;

	while (off < size) {
		ssize_t n = -1;

		if (cfr) {
			n = copy_file_range(in, NULL, out, NULL, size - off, 0);
			if (n < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS ||
				      errno == EOPNOTSUPP || errno == EBADF)) {
				cfr = 0;
				continue;
			}
		} else {
			n = read(in, buf, bufsz);
			if (n > 0) {
				int rc = rp_write_all(out, buf, (size_t)n);

				if (rc)
					return rc;
			}
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO; /* the file shrank while it was copied */
		off += (uint64_t)n;
		if (p)
			rp_progress_add(p, (uint64_t)n, 0);
	}
	return 0;
}

static int copy_entry(struct copier *c, int sdir, const char *sname, int ddir, const char *dname,
		      struct rk_buf *rel, int follow);

static int copy_dir(struct copier *c, int src, int dst, struct rk_buf *rel)
{
	int dfd = dup(src), rc = 0;
	DIR *d;
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;

	if (dfd < 0 || !(d = fdopendir(dfd))) {
		if (dfd >= 0)
			close(dfd);
		return rp_fail("%s: %s", rel->len ? rel->buf : ".", strerror(errno));
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (n == cap) {
			char **v = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof(*v));

			if (!v) {
				rc = rp_fail("out of memory");
				break;
			}
			names = v;
		}
		if (!(names[n] = strdup(e->d_name))) {
			rc = rp_fail("out of memory");
			break;
		}
		n++;
	}
	closedir(d);
	for (size_t i = 0; !rc && i < n; i++)
		rc = copy_entry(c, src, names[i], dst, names[i], rel, 0);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

static int copy_entry(struct copier *c, int sdir, const char *sname, int ddir, const char *dname,
		      struct rk_buf *rel, int follow)
{
	size_t len = rel->len;
	struct stat st;
	int rc = 0;

	if (rk_buf_addf(rel, "%s%s", rel->len ? "/" : "", dname))
		return rp_fail("out of memory");
	if (fstatat(sdir, sname, &st, follow ? 0 : AT_SYMLINK_NOFOLLOW)) {
		rc = rp_fail("%s: %s", rel->buf, strerror(errno));
	} else if (S_ISDIR(st.st_mode)) {
		int s = openat(sdir, sname,
			       O_RDONLY | O_DIRECTORY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW)),
		    d;

		if (s < 0)
			rc = rp_fail("%s: %s", rel->buf, strerror(errno));
		else if (mkdirat(ddir, dname, 0700))
			rc = rp_fail("%s: %s", rel->buf, strerror(errno));
		else if ((d = openat(ddir, dname,
				     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
			rc = rp_fail("%s: %s", rel->buf, strerror(errno));
		else {
			rc = copy_dir(c, s, d, rel);
			if (!rc && fchmod(d, st.st_mode & 07777))
				rc = rp_fail("%s: chmod: %s", rel->buf, strerror(errno));
			close(d);
			if (!rc)
				set_times(ddir, dname, &st);
			c->p->dirs++;
		}
		if (s >= 0)
			close(s);
	} else if (S_ISLNK(st.st_mode)) {
		char target[4097];
		ssize_t n = readlinkat(sdir, sname, target, sizeof(target) - 1);

		if (n < 0)
			rc = rp_fail("%s: %s", rel->buf, strerror(errno));
		else if ((target[n] = '\0'), symlinkat(target, ddir, dname))
			rc = rp_fail("%s: %s", rel->buf, strerror(errno));
		else
			set_times(ddir, dname, &st);
	} else if (S_ISREG(st.st_mode)) {
		int in = openat(sdir, sname, O_RDONLY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW)), out;

		if (in < 0) {
			rc = rp_fail("%s: %s", rel->buf, strerror(errno));
		} else if ((out = openat(ddir, dname,
					 O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
					 0600)) < 0) {
			rc = rp_fail("%s: %s", rel->buf, strerror(errno));
		} else {
			if ((rc = rp_copy_fd(in, out, (uint64_t)st.st_size, c->buf, 1 << 20, c->p)))
				rc = rp_fail("%s: %s", rel->buf, strerror(-rc));
			else if (fchmod(out, st.st_mode & 07777))
				rc = rp_fail("%s: chmod: %s", rel->buf, strerror(errno));
			if (close(out) && !rc)
				rc = rp_fail("%s: %s", rel->buf, strerror(errno));
			if (!rc)
				set_times(ddir, dname, &st);
			rp_progress_add(c->p, 0, 1);
		}
		if (in >= 0)
			close(in);
	} else if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) {
		/* rsync -a's --specials */
		if (mknodat(ddir, dname, (st.st_mode & S_IFMT) | 0600, 0))
			rc = rp_fail("%s: %s", rel->buf, strerror(errno));
		else if (fchmodat(ddir, dname, st.st_mode & 07777, 0))
			rc = rp_fail("%s: chmod: %s", rel->buf, strerror(errno));
		else
			set_times(ddir, dname, &st);
	} else if (mknodat(ddir, dname, st.st_mode & (S_IFMT | 07777), st.st_rdev)) {
		/* a device: rsync -a makes it as root, else reports it and goes on (exit 23) */
		rc = rp_fail("%s: device %u,%u: %s", rel->buf, major(st.st_rdev), minor(st.st_rdev),
			     strerror(errno));
	}
	rel->len = len;
	rel->buf[len] = '\0';
	return rc;
}

int rp_copy_tree(struct rp_progress *p, const char *src, const char *out)
{
	struct copier c = {.p = p};
	struct rk_buf rel = RK_BUF_INIT, parent = RK_BUF_INIT, base = RK_BUF_INIT;
	struct rk_staging stage = {.fd = -1};
	struct rk_err err = RK_ERR_INIT;
	size_t len = strlen(src);
	int contents = len && src[len - 1] == '/', parents = 0, sdir = -1, ret = 1, rc;
	struct stat st;

	if (!(c.buf = malloc(1 << 20)))
		return rp_fail("out of memory");
	/* SRC's parent directory and its last component (SRC/ : SRC itself, followed) */
	while (len > 1 && src[len - 1] == '/')
		len--;
	if (contents) {
		if (rk_buf_addf(&parent, "%.*s", (int)len, src)) {
			ret = rp_fail("out of memory");
			goto done;
		}
	} else {
		const char *slash = memrchr(src, '/', len);

		if (rk_buf_addf(&parent, "%.*s", slash ? (int)(slash == src ? 1 : slash - src) : 1,
				slash ? src : ".") ||
		    rk_buf_addf(&base, "%.*s", (int)(len - (slash ? (size_t)(slash + 1 - src) : 0)),
				slash ? slash + 1 : src)) {
			ret = rp_fail("out of memory");
			goto done;
		}
		if (!strcmp(base.buf, ".") || !strcmp(base.buf, "..") || !base.buf[0]) {
			/* rsync copies the contents of "." and ".." */
			rk_buf_release(&parent);
			if (rk_buf_addf(&parent, "%.*s", (int)len, src)) {
				ret = rp_fail("out of memory");
				goto done;
			}
			contents = 1;
		}
	}
	if ((sdir = open(parent.buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		ret = rp_fail("%s: %s", contents ? src : parent.buf, strerror(errno));
		goto done;
	}
	if (!contents && fstatat(sdir, base.buf, &st, AT_SYMLINK_NOFOLLOW)) {
		ret = rp_fail("%s: %s", src, strerror(errno));
		goto done;
	}
	if ((parents = rp_mkdir_parents(out)) < 0) {
		ret = rp_fail("%s: %s", out, strerror(-parents));
		goto done;
	}
	if ((rc = rk_staging_open(out, &stage, &err))) {
		ret = rp_fail("%s", rk_err_str(&err, rc));
		goto done;
	}
	if (contents)
		ret = copy_dir(&c, sdir, stage.fd, &rel) ? 1 : 0;
	else
		ret = copy_entry(&c, sdir, base.buf, stage.fd, base.buf, &rel, 0) ? 1 : 0;
	if (!ret && (rc = rk_staging_commit(&stage, &err)))
		ret = rp_fail("%s", rk_err_str(&err, rc));
done:
	rk_staging_abort(&stage);
	if (ret && parents > 0)
		rp_rmdir_parents(out, parents);
	if (sdir >= 0)
		close(sdir);
	free(c.buf);
	rk_buf_release(&rel);
	rk_buf_release(&parent);
	rk_buf_release(&base);
	return ret;
}
