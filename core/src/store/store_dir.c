/* store_dir.c: a store that is a local directory: the "dir" backend (rk_store_dir), the
 * fallback for any location without a scheme. Uses store_int.h and store_list.c, never
 * store.c. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk/buf.h"
#include "rk/log.h"
#include "rk/url.h"
#include "store/store_int.h"
#include "util/htab.h"
#include "util/array.h"

/* A path below the root already logged as refused (one line each for the life of the
 * store, however often it is listed). */
struct refused {
	UT_hash_handle hh;
	char path[]; /* the key */
};

/* Only regular files and directories below the root are served: a symlink is never
 * followed (it could lead anywhere the daemon, often root, may read, and the mount
 * serves it to every user), and devices, FIFOs and sockets are not files of a store.
 * Listings leave them out with one log line each; opens walk the path one component at
 * a time without following a link, so that one swapped in after a listing leads
 * nowhere (docs/internals/store.md). */
struct dir_store {
	struct rk_store base;
	int rootfd; /* the root directory; paths are opened relative to it */
	const char *root; /* its absolute path, for log lines (in base.id) */
	pthread_mutex_t lock; /* protects: refused */
	struct refused *refused;
};

struct dir_object {
	struct rk_object base;
	int fd;
};

/* Paths come from our own listings, but never let one climb out of the root. */
static int check_path(const char *path, struct rk_err *err)
{
	const char *p = path;

	if (path[0] == '/')
		return rk_err_set(err, -EINVAL, "'%s': absolute store path", path);
	while (*p) {
		size_t n = strcspn(p, "/");

		if ((n == 2 && !strncmp(p, "..", 2)) || n == 0)
			return rk_err_set(err, -EINVAL, "'%s': bad store path", path);
		p += n;
		if (*p == '/')
			p++;
	}
	return 0;
}

static const char *kind_name(mode_t m)
{
	return S_ISLNK(m)    ? "a symlink"
	       : S_ISFIFO(m) ? "a FIFO"
	       : S_ISCHR(m)  ? "a character device"
	       : S_ISBLK(m)  ? "a block device"
	       : S_ISSOCK(m) ? "a socket"
			     : "not a regular file or directory";
}

/* Log once that the entry name of directory dir (a store path) is not served. */
static void refuse_once(struct dir_store *d, const char *dir, const char *name, mode_t mode)
{
	size_t len = strlen(dir) + 1 + strlen(name) + 1;
	struct refused *r = malloc(sizeof(*r) + len), *seen;

	if (!r) { /* the line without its record: it may be logged again */
		rk_warn("store '%s': '%s%s%s' is %s: not served", d->root, dir, dir[0] ? "/" : "",
			name, kind_name(mode));
		return;
	}
	snprintf(r->path, len, "%s%s%s", dir, dir[0] ? "/" : "", name);
	pthread_mutex_lock(&d->lock);
	HASH_FIND_STR(d->refused, r->path, seen);
	if (!seen) {
		HASH_ADD_STR(d->refused, path, r);
		if (rk_htab_oom())
			seen = r; /* not kept: freed below, and it may be logged again */
		rk_warn("store '%s': '%s' is %s: not served (a local store serves only regular "
			"files and directories, and follows no symlink)",
			d->root, r->path, kind_name(mode));
	}
	pthread_mutex_unlock(&d->lock);
	if (seen)
		free(r);
}

/* Open path (check_path'ed: relative, no "..", no empty component) below the root with
 * flags, following no symlink on the way: each directory on the way is opened with
 * O_NOFOLLOW, so a link anywhere on the path (one swapped in after a listing too) fails
 * with ELOOP or ENOTDIR. A descriptor, or -errno. */
static int open_beneath(int rootfd, const char *path, int flags)
{
	char comp[NAME_MAX + 1];
	const char *p = path;
	int fd = rootfd, next;

	if (!path[0]) {
		fd = openat(rootfd, ".", flags | O_CLOEXEC);
		return fd < 0 ? -errno : fd;
	}
	for (;;) {
		size_t n = strcspn(p, "/");
		int last = !p[n];

		if (n > NAME_MAX) {
			next = -ENAMETOOLONG;
		} else {
			memcpy(comp, p, n);
			comp[n] = 0;
			next = openat(fd, comp,
				      (last ? flags : O_PATH | O_DIRECTORY) | O_NOFOLLOW |
					      O_CLOEXEC);
			if (next < 0)
				next = -errno;
		}
		if (fd != rootfd)
			close(fd);
		if (next < 0 || last)
			return next;
		fd = next;
		p += n + 1;
	}
}

/* The error message of a failed open_beneath of path: what is in the way. */
static int open_error(const struct dir_store *d, const char *path, int rc, struct rk_err *err)
{
	if (rc == -ELOOP || rc == -ENOTDIR) {
		/* a link, or a non-directory on the way: say which component it is */
		char sub[PATH_MAX];
		struct stat st;
		size_t n = 0;

		while (n < strlen(path) && n < sizeof(sub) - 1) {
			n += strcspn(path + n, "/");
			snprintf(sub, sizeof(sub), "%.*s", (int)n, path);
			if (!fstatat(d->rootfd, sub, &st, AT_SYMLINK_NOFOLLOW) &&
			    !S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
				return rk_err_set(err, -ELOOP,
						  "store '%s': '%s' is %s: not served (a local "
						  "store follows no symlink)",
						  d->root, sub, kind_name(st.st_mode));
			n++;
		}
	}
	return rk_err_set(err, rc, "'%s': %s", path, strerror(-rc));
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct rk_store_entry *)a)->name,
		      ((const struct rk_store_entry *)b)->name);
}

static int dir_list(struct rk_store *s, const char *path, struct rk_store_list *out,
		    struct rk_err *err)
{
	struct dir_store *d = (struct dir_store *)s;
	struct rk_store_list l = {0};
	size_t cap = 0;
	struct dirent *de;
	DIR *dir;
	int fd, rc = 0;

	if ((rc = check_path(path, err)))
		return rc;
	fd = open_beneath(d->rootfd, path, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return open_error(d, path, fd, err);
	dir = fdopendir(fd);
	if (!dir) {
		rc = -errno;
		close(fd);
		return rc;
	}
	while ((de = readdir(dir))) {
		struct stat st;

		if (de->d_name[0] == '.' &&
		    (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		if (fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue; /* raced away: not part of the store */
		if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
			refuse_once(d, path, de->d_name, st.st_mode);
			continue;
		}
		if (RK_GROW(l.v, cap, l.n, 64)) {
			rc = -ENOMEM;
			break;
		}
		l.v[l.n].name = strdup(de->d_name);
		if (!l.v[l.n].name) {
			rc = -ENOMEM;
			break;
		}
		l.v[l.n].is_dir = S_ISDIR(st.st_mode);
		l.v[l.n].size = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
		l.v[l.n].mtime = st.st_mtim.tv_sec;
		l.v[l.n].mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
		l.n++;
	}
	closedir(dir);
	if (rc) {
		rk_store_list_release(&l);
		return rc;
	}
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), cmp_entry);
	*out = l;
	return 0;
}

static ssize_t obj_read(struct rk_object *o, void *buf, size_t n, struct rk_err *err)
{
	ssize_t r;

	do
		r = read(((struct dir_object *)o)->fd, buf, n);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return rk_err_set(err, -errno, "read: %s", strerror(errno));
	return r;
}

static ssize_t obj_pread(struct rk_object *o, void *buf, size_t n, uint64_t off, struct rk_err *err)
{
	ssize_t r;

	do
		r = pread(((struct dir_object *)o)->fd, buf, n, (off_t)off);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return rk_err_set(err, -errno, "pread: %s", strerror(errno));
	return r;
}

static int obj_fd(const struct rk_object *o)
{
	return ((const struct dir_object *)o)->fd;
}

static void obj_close(struct rk_object *o)
{
	close(((struct dir_object *)o)->fd);
	free(o);
}

static const struct rk_object_ops dir_object_ops = {obj_read, obj_pread, obj_fd, obj_close};

static int dir_open(struct rk_store *s, const char *path, struct rk_object **out,
		    struct rk_err *err)
{
	struct dir_store *d = (struct dir_store *)s;
	struct dir_object *o;
	struct stat st;
	int fd, rc;

	if ((rc = check_path(path, err)))
		return rc;
	/* O_NONBLOCK: a FIFO swapped in opens at once (and is refused), instead of waiting
	 * for a writer; O_NOCTTY: a terminal does not become ours */
	fd = open_beneath(d->rootfd, path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return open_error(d, path, fd, err);
	if (fstat(fd, &st)) {
		rc = -errno;
		close(fd);
		return rk_err_set(err, rc, "'%s': %s", path, strerror(-rc));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		if (S_ISDIR(st.st_mode))
			return rk_err_set(err, -EISDIR, "'%s': not a regular file", path);
		return rk_err_set(err, -EPERM, "store '%s': '%s' is %s: not served", d->root, path,
				  kind_name(st.st_mode));
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	o = calloc(1, sizeof(*o));
	if (!o) {
		close(fd);
		return -ENOMEM;
	}
	o->base.ops = &dir_object_ops;
	o->base.size = (uint64_t)st.st_size;
	o->base.mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	o->fd = fd;
	*out = &o->base;
	return 0;
}

static void dir_close(struct rk_store *s)
{
	struct dir_store *d = (struct dir_store *)s;
	struct refused *r, *tmp;

	HASH_ITER(hh, d->refused, r, tmp) {
		HASH_DEL(d->refused, r);
		free(r);
	}
	pthread_mutex_destroy(&d->lock);
	close(d->rootfd);
	free(s->id);
	free(d);
}

static const struct rk_store_ops dir_store_ops = {dir_list, dir_open, dir_close};

/* "ftp://host/x": a URL of a scheme no backend claimed (the others come first), not a
 * path, even if a directory "ftp:" happened to exist ("./ftp://x" is a path). */
static int has_scheme(const char *location)
{
	size_t n = strspn(location, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789+.-");

	return n > 0 && isalpha((unsigned char)location[0]) && !strncmp(location + n, "://", 3);
}

static int dir_store_open(const char *path, const struct rk_store_opts *o, struct rk_store **out,
			  struct rk_err *err)
{
	struct rk_buf id = RK_BUF_INIT;
	char real[PATH_MAX];
	struct dir_store *d;
	int fd;

	(void)o; /* no options for a local directory */
	if (has_scheme(path))
		return rk_err_set(err, -EPROTONOSUPPORT,
				  "store '%s': unsupported scheme (a store is a directory, "
				  "s3://BUCKET[/PREFIX] or an http(s):// URL)",
				  rk_url_shown(path, real, sizeof(real)));
	if (!realpath(path, real))
		return rk_err_set(err, -errno, "store '%s': %s", path, strerror(errno));
	fd = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return rk_err_set(err, -errno, "store '%s': %s", path, strerror(errno));
	d = calloc(1, sizeof(*d));
	if (!d || rk_buf_addf(&id, "dir:%s", real)) {
		free(d);
		close(fd);
		return -ENOMEM;
	}
	d->base.ops = &dir_store_ops;
	d->base.id = rk_buf_detach(&id, NULL);
	d->root = d->base.id + strlen("dir:");
	d->rootfd = fd;
	pthread_mutex_init(&d->lock, NULL);
	*out = &d->base;
	return 0;
}

const struct rk_store_backend rk_store_dir = {
	.name = "dir",
	.schemes = NULL, /* any location: a path */
	.remote = 0,
	.open = dir_store_open,
};
