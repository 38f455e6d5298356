/* cli_untar.c: rp_untar (cli_untar.h), a release tarball extracted into a directory for
 * rockpack install --release, as install_rocm_from_artifacts.py extracts it
 * (tarfile.extractall(filter="tar")), with libarchive, and as an attacker's tarball
 * cannot make it write elsewhere: every path is walked from the staging directory's
 * descriptor one component at a time (openat O_DIRECTORY|O_NOFOLLOW), every entry made
 * with *at() calls relative to its directory, O_EXCL/O_NOFOLLOW for files, an existing
 * entry of the same name removed first (unlinkat: the link itself, never its target).
 * Uses cli_util.c, cli_progress.c, libarchive and libc. */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk/buf.h"
#include "rk/staging.h"
#include "cli_untar.h"

enum { BUFSZ = 1 << 20 };

struct reader {
	const struct rp_untar_src *src;
	uint64_t off;
	char *buf;
	int err; /* -errno of a failed read */
};

static la_ssize_t read_cb(struct archive *a, void *ctx, const void **out)
{
	struct reader *r = ctx;
	ssize_t n;

	(void)a;
	if (r->off >= r->src->size)
		return 0;
	n = r->src->pread(r->src->ctx, r->buf, BUFSZ, r->off);
	if (n < 0) {
		r->err = (int)n;
		archive_set_error(a, (int)-n, "read: %s", strerror((int)-n));
		return -1;
	}
	r->off += (uint64_t)n;
	*out = r->buf;
	return n;
}

/* A directory of the archive, given its mode and mtime once everything is in it. */
struct dir_attr {
	char *path;
	mode_t mode;
	struct timespec mtime;
};

struct untar {
	int root; /* the staging directory */
	struct dir_attr *dirs;
	size_t ndirs;
	struct rp_progress *p;
	const char *shown;
};

/* Split path (a '/'-separated entry name) into comps: a leading '/' and "." components
 * dropped; '..' refused. Returns the number of components (0: the root itself), -1 when
 * refused. The components point into path, which is cut at each '/'. */
static int split_path(char *path, char **comps, int max)
{
	int n = 0;

	for (char *save = NULL, *c = strtok_r(path, "/", &save); c;
	     c = strtok_r(NULL, "/", &save)) {
		if (!strcmp(c, "."))
			continue;
		if (!strcmp(c, "..") || n == max)
			return -1;
		comps[n++] = c;
	}
	return n;
}

/* The descriptor of the directory holding comps[n-1], reached from root without
 * following a symlink, the missing ones made when make. -errno (-ELOOP/-ENOTDIR: a
 * component is a symlink or a file). */
static int walk_parent(int root, char **comps, int n, int make)
{
	int cur = dup(root);

	if (cur < 0)
		return -errno;
	for (int i = 0; i < n - 1; i++) {
		int next = openat(cur, comps[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		if (next < 0 && errno == ENOENT && make) {
			if (mkdirat(cur, comps[i], 0777) && errno != EEXIST) {
				int e = -errno;

				close(cur);
				return e;
			}
			next = openat(cur, comps[i],
				      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		if (next < 0) {
			int e = errno == ENOTDIR ? -ELOOP : -errno;

			close(cur);
			return e;
		}
		close(cur);
		cur = next;
	}
	return cur;
}

/* Remove a non-directory entry name of dirfd, if any (the link, never its target). */
static int clear_name(int dirfd, const char *name)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	return unlinkat(dirfd, name, 0) ? -errno : 0;
}

static int write_data(struct archive *a, int fd, struct untar *u)
{
	const void *buf;
	size_t size;
	la_int64_t off;
	int r;

	while ((r = archive_read_data_block(a, &buf, &size, &off)) == ARCHIVE_OK) {
		const char *p = buf;

		while (size) {
			ssize_t n = pwrite(fd, p, size, (off_t)off);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				return -errno;
			p += n;
			size -= (size_t)n;
			off += n;
			rp_progress_add(u->p, (uint64_t)n, 0);
		}
	}
	if (r != ARCHIVE_EOF)
		return -EIO;
	/* a sparse file's trailing hole */
	return 0;
}

static int entry(struct untar *u, struct archive *a, struct archive_entry *e)
{
	const char *name = archive_entry_pathname(e);
	char *path = name ? strdup(name) : NULL, *comps[256], *lpath = NULL, *lcomps[256];
	mode_t type = archive_entry_filetype(e), mode = archive_entry_perm(e) & 0755;
	const char *hard = archive_entry_hardlink(e);
	struct timespec mt = {archive_entry_mtime(e), archive_entry_mtime_nsec(e)};
	int n, dir = -1, rc = 0;

	if (!path)
		return rp_fail("%s: an entry without a name", u->shown);
	if ((n = split_path(path, comps, 256)) < 0) {
		rc = rp_fail("%s: '%s': refusing a path with '..'", u->shown, name);
		goto done;
	}
	if (n == 0) /* "./" itself: the output directory */
		goto done;
	if ((dir = walk_parent(u->root, comps, n, 1)) < 0) {
		rc = rp_fail("%s: '%s': %s", u->shown, name,
			     dir == -ELOOP ? "its directory is a symlink or a file (refused)"
					   : strerror(-dir));
		goto done;
	}
	const char *base = comps[n - 1];

	if (hard) {
		int ln, ldir;

		if (!(lpath = strdup(hard)) || (ln = split_path(lpath, lcomps, 256)) <= 0) {
			rc = rp_fail("%s: '%s': refusing the hardlink target '%s'", u->shown, name,
				     hard);
			goto done;
		}
		if ((ldir = walk_parent(u->root, lcomps, ln, 0)) < 0) {
			rc = rp_fail("%s: '%s': hardlink target '%s': %s", u->shown, name, hard,
				     strerror(ldir == -ELOOP ? ELOOP : -ldir));
			goto done;
		}
		struct stat st;

		/* a file extracted before (never a symlink: linkat would link the link) */
		if (fstatat(ldir, lcomps[ln - 1], &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			rc = rp_fail("%s: '%s': hardlink target '%s' is not an extracted file",
				     u->shown, name, hard);
		else if (!strcmp(hard, name) || (rc = clear_name(dir, base)))
			rc = rp_fail("%s: '%s': %s", u->shown, name,
				     rc ? strerror(-rc) : "a link to itself");
		else if (linkat(ldir, lcomps[ln - 1], dir, base, 0))
			rc = rp_fail("%s: '%s': link: %s", u->shown, name, strerror(errno));
		else
			u->p->links++;
		close(ldir);
		goto done;
	}
	switch (type) {
	case AE_IFDIR: {
		struct stat st;
		struct dir_attr *v;

		if (mkdirat(dir, base, 0700) &&
		    (errno != EEXIST || fstatat(dir, base, &st, AT_SYMLINK_NOFOLLOW) ||
		     !S_ISDIR(st.st_mode))) {
			rc = rp_fail("%s: '%s': %s", u->shown, name,
				     errno == EEXIST ? "not a directory" : strerror(errno));
			break;
		}
		if (!(v = realloc(u->dirs, (u->ndirs + 1) * sizeof(*v))) ||
		    (u->dirs = v, !(v[u->ndirs].path = strdup(name)))) {
			rc = rp_fail("out of memory");
			break;
		}
		v[u->ndirs].mode = mode;
		v[u->ndirs++].mtime = mt;
		u->p->dirs++;
		break;
	}
	case AE_IFREG: {
		int fd;

		if ((rc = clear_name(dir, base))) {
			rc = rp_fail("%s: '%s': %s", u->shown, name, strerror(-rc));
			break;
		}
		fd = openat(dir, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0) {
			rc = rp_fail("%s: '%s': %s", u->shown, name, strerror(errno));
			break;
		}
		if ((rc = write_data(a, fd, u)))
			rc = rp_fail("%s: '%s': %s", u->shown, name,
				     rc == -EIO ? archive_error_string(a) : strerror(-rc));
		else if (ftruncate(fd, archive_entry_size(e)))
			rc = rp_fail("%s: '%s': %s", u->shown, name, strerror(errno));
		else if (fchmod(fd, mode))
			rc = rp_fail("%s: '%s': chmod: %s", u->shown, name, strerror(errno));
		else {
			struct timespec ts[2] = {mt, mt};

			futimens(fd, ts);
		}
		if (close(fd) && !rc)
			rc = rp_fail("%s: '%s': %s", u->shown, name, strerror(errno));
		rp_progress_add(u->p, 0, 1);
		break;
	}
	case AE_IFLNK: {
		const char *target = archive_entry_symlink(e);
		struct timespec ts[2] = {mt, mt};

		if (!target)
			rc = rp_fail("%s: '%s': a symlink without a target", u->shown, name);
		else if ((rc = clear_name(dir, base)))
			rc = rp_fail("%s: '%s': %s", u->shown, name, strerror(-rc));
		else if (symlinkat(target, dir, base))
			rc = rp_fail("%s: '%s': %s", u->shown, name, strerror(errno));
		else
			utimensat(dir, base, ts, AT_SYMLINK_NOFOLLOW);
		break;
	}
	default:
		rc = rp_fail("%s: '%s': refusing a device, fifo or socket entry", u->shown, name);
	}
done:
	if (dir >= 0)
		close(dir);
	free(path);
	free(lpath);
	return rc;
}

/* The archive's directories get their modes and times, deepest first (as tarfile does
 * once everything is extracted). */
static int fix_dirs(struct untar *u)
{
	int rc = 0;

	for (size_t i = u->ndirs; !rc && i-- > 0;) {
		char *path = strdup(u->dirs[i].path), *comps[256];
		int n = path ? split_path(path, comps, 256) : -1, dir, fd;

		if (n <= 0) {
			free(path);
			continue;
		}
		if ((dir = walk_parent(u->root, comps, n, 0)) < 0) {
			rc = rp_fail("%s: '%s': %s", u->shown, u->dirs[i].path, strerror(-dir));
		} else {
			fd = openat(dir, comps[n - 1],
				    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0) {
				rc = rp_fail("%s: '%s': %s", u->shown, u->dirs[i].path,
					     strerror(errno));
			} else {
				struct timespec ts[2] = {u->dirs[i].mtime, u->dirs[i].mtime};

				if (fchmod(fd, u->dirs[i].mode))
					rc = rp_fail("%s: '%s': chmod: %s", u->shown,
						     u->dirs[i].path, strerror(errno));
				futimens(fd, ts);
				close(fd);
			}
			close(dir);
		}
		free(path);
	}
	return rc;
}

int rp_untar(struct rp_progress *p, const struct rp_untar_src *src, const char *shown,
	     const char *out)
{
	struct reader r = {.src = src};
	struct untar u = {.p = p, .shown = shown};
	struct rk_staging stage = {.fd = -1};
	struct rk_err err = RK_ERR_INIT;
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	int rc, ret = 1, parents = 0;

	p->total_bytes = 0;
	if (!a || !(r.buf = malloc(BUFSZ))) {
		ret = rp_fail("out of memory");
		goto done;
	}
	archive_read_support_filter_all(a);
	archive_read_support_format_tar(a);
	if ((parents = rp_mkdir_parents(out)) < 0) {
		ret = rp_fail("%s: %s", out, strerror(-parents));
		goto done;
	}
	if ((rc = rk_staging_open(out, &stage, &err))) {
		ret = rp_fail("%s", rk_err_str(&err, rc));
		goto done;
	}
	u.root = stage.fd;
	if (archive_read_open(a, &r, NULL, read_cb, NULL) != ARCHIVE_OK) {
		ret = rp_fail("%s: %s", shown, archive_error_string(a));
		goto done;
	}
	while ((rc = archive_read_next_header(a, &e)) == ARCHIVE_OK || rc == ARCHIVE_WARN) {
		if (entry(&u, a, e))
			goto done;
	}
	if (rc != ARCHIVE_EOF) {
		ret = rp_fail("%s: %s", shown, archive_error_string(a));
		goto done;
	}
	if (fix_dirs(&u))
		goto done;
	if ((rc = rk_staging_commit(&stage, &err)))
		ret = rp_fail("%s", rk_err_str(&err, rc));
	else
		ret = 0;
done:
	rk_staging_abort(&stage);
	if (ret && parents > 0)
		rp_rmdir_parents(out, parents);
	if (a)
		archive_read_free(a);
	for (size_t i = 0; i < u.ndirs; i++)
		free(u.dirs[i].path);
	free(u.dirs);
	free(r.buf);
	return ret;
}
