/* store_dir.c: a store that is a local directory: the "dir" backend (rk_store_dir), the
 * fallback for any location without a scheme. Uses store_int.h and store_list.c, never
 * store.c. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk/buf.h"
#include "store/store_int.h"

struct dir_store {
	struct rk_store base;
	int rootfd; /* the root directory; paths are opened relative to it. Symlinks inside the
		     * store are followed: the store's owner put them there */
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
	fd = openat(d->rootfd, path[0] ? path : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return rk_err_set(err, -errno, "'%s': %s", path, strerror(errno));
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
		if (fstatat(dirfd(dir), de->d_name, &st, 0))
			continue; /* dangling symlink or raced away: not part of the store */
		if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
			continue;
		if (l.n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			struct rk_store_entry *v = realloc(l.v, ncap * sizeof(*v));

			if (!v) {
				rc = -ENOMEM;
				break;
			}
			l.v = v;
			cap = ncap;
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
	fd = openat(d->rootfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return rk_err_set(err, -errno, "'%s': %s", path, strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return rk_err_set(err, -EISDIR, "'%s': not a regular file", path);
	}
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
				  path);
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
	d->rootfd = fd;
	*out = &d->base;
	return 0;
}

const struct rk_store_backend rk_store_dir = {
	.name = "dir",
	.schemes = NULL, /* any location: a path */
	.remote = 0,
	.open = dir_store_open,
};
