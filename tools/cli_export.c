/* cli_export.c: rp_export (cli_export.h), any view written as real files, for the export,
 * split and wheels commands. Uses cli_util.c and the core library, no command.
 *
 * A directory (dist/gfx1100, browse/<artifact>) is copied into DIR: files with their
 * modes and times, symlinks as symlinks, hardlinks as hardlinks. A file
 * (tarballs/<name>.tar) is written as DIR/<name>. The bytes are the mount's. Every
 * file is created in a private staging directory next to DIR (rk/staging.h), relative
 * to its descriptor, with O_EXCL and no symlink followed, and moved into DIR at the end:
 * nothing is written outside DIR, nothing there is overwritten, and a killed run leaves
 * no partial file under a final name. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk/buf.h"
#include "rk/staging.h"
#include "cli_export.h"

/* The first path (below DIR) written for an inode with several links. Hardlinks are
 * rare, so a list searched linearly does. */
struct ino_path {
	uint64_t ino;
	char *path;
};

/* The writers (rp_export_opts.jobs > 1): the walk makes each file (openat O_EXCL, so a
 * hardlink to it can be made at once) and queues it; a writer fills it, sets its mode and
 * time and closes it. The queue is bounded (the walk waits), so the open descriptors are
 * at most QUEUE + jobs. */
enum { QUEUE = 64 };
struct job {
	struct rk_attr a;
	int fd;
	char *rel;
};
struct pool {
	pthread_mutex_t mu;
	pthread_cond_t more, room;
	struct job q[QUEUE];
	size_t head, n;
	int done, failed;
	pthread_t *threads;
	unsigned nthreads;
	struct exporter *e;
};

struct exporter {
	const struct rp_export_opts *eo;
	struct pool *pool;
	struct rk_vfs *v;
	struct rk_err err;
	char *buf;
	int root; /* DIR */
	struct ino_path *links;
	size_t nlinks;
	struct rp_progress *p;
	const char *follow; /* rp_export_follow: the exported path (symlinks followed) */
};

static const char *first_path(const struct exporter *e, uint64_t ino)
{
	for (size_t i = 0; i < e->nlinks; i++)
		if (e->links[i].ino == ino)
			return e->links[i].path;
	return NULL;
}

static int remember_path(struct exporter *e, uint64_t ino, const char *path)
{
	struct ino_path *v = realloc(e->links, (e->nlinks + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	e->links = v;
	if (!(v[e->nlinks].path = strdup(path)))
		return -ENOMEM;
	v[e->nlinks++].ino = ino;
	return 0;
}

static int set_time(int dirfd, const char *name, int64_t mtime)
{
	struct timespec ts[2] = {{mtime, 0}, {mtime, 0}};

	return utimensat(dirfd, name, ts, AT_SYMLINK_NOFOLLOW) ? -errno : 0;
}

/* n more bytes written, under mu when writers share p (NULL: the walk writes alone). */
static void progress_bytes(struct rp_progress *p, pthread_mutex_t *mu, uint64_t n)
{
	if (mu)
		pthread_mutex_lock(mu);
	rp_progress_add(p, n, 0);
	if (mu)
		pthread_mutex_unlock(mu);
}

/* Fill descriptor fd with the view's file a (opened as f): a reflink of the cache's blob
 * (FICLONE) when e's link mode asks and the file system allows, else the kernel's copy
 * from the blob's descriptor, else the bytes read through the view. 0 or 1 after printing
 * why. */
static int fill(struct exporter *e, struct rk_file *f, int fd, char *buf, const char *shown,
		struct rp_progress *p, pthread_mutex_t *mu)
{
	struct rk_err err = RK_ERR_INIT;
	uint64_t off = 0, size = rk_file_size(f);
	int backing = rk_file_backing(f), link = e->eo ? e->eo->link : RP_LINK_COPY, rc = 0;
	struct stat st;

	if (backing >= 0 && (fstat(backing, &st) || (uint64_t)st.st_size != size))
		backing = -1;
	if (link == RP_LINK_REFLINK || link == RP_LINK_AUTO) {
		if (backing >= 0 && size && !ioctl(fd, FICLONE, backing)) {
			off = size;
		} else if (link == RP_LINK_REFLINK && size) {
			return rp_fail("%s: no reflink: %s", shown,
				       backing < 0 ? "the file is not one blob of the cache"
						   : strerror(errno));
		}
	}
	/* the kernel's copy from the blob (no copy through user space); EXDEV and the like:
	 * read and write */
	while (backing >= 0 && off < size) {
		loff_t in = (loff_t)off;
		ssize_t n = copy_file_range(backing, &in, fd, NULL, size - off, 0);

		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			if (off == 0 && n < 0 && errno != EIO && errno != ENOSPC)
				backing = -1; /* unsupported here: read and write */
			else
				return rp_fail("%s: copy: %s", shown,
					       n < 0 ? strerror(errno) : "unexpected end of file");
			break;
		}
		off += (uint64_t)n;
		progress_bytes(p, mu, (uint64_t)n);
	}
	while (!rc && off < size) {
		ssize_t n = rk_file_pread(f, buf, 1 << 20, off, &err);

		if (n <= 0)
			rc = rp_fail("%s: %s", shown,
				     n < 0 ? rk_err_str(&err, (int)n) : "unexpected end of file");
		else if ((rc = rp_write_all(fd, buf, (size_t)n)))
			rc = rp_fail("%s: write: %s", shown, strerror(-rc));
		else {
			off += (uint64_t)n;
			progress_bytes(p, mu, (uint64_t)n);
		}
	}
	return rc;
}

/* A writer: take queued files until the walk is done and the queue empty. */
static void *writer(void *arg)
{
	struct pool *pl = arg;
	struct exporter *e = pl->e;
	char *buf = malloc(1 << 20);

	for (;;) {
		struct job j;
		struct rk_err err = RK_ERR_INIT;
		struct rk_file *f;
		int rc;

		pthread_mutex_lock(&pl->mu);
		while (!pl->n && !pl->done)
			pthread_cond_wait(&pl->more, &pl->mu);
		if (!pl->n) {
			pthread_mutex_unlock(&pl->mu);
			break;
		}
		j = pl->q[pl->head];
		pl->head = (pl->head + 1) % QUEUE;
		pl->n--;
		pthread_cond_signal(&pl->room);
		rc = pl->failed || !buf; /* after a failure: close what is queued */
		pthread_mutex_unlock(&pl->mu);
		if (!rc && (rc = rk_vfs_open_file(e->v, j.a.ino, &f, &err))) {
			rc = rp_fail("%s: %s", j.rel, rk_err_str(&err, rc));
		} else if (!rc) {
			rc = fill(e, f, j.fd, buf, j.rel, e->p, &pl->mu);
			rk_file_close(f);
		}
		if (!rc && fchmod(j.fd, j.a.mode & 07777))
			rc = rp_fail("%s: chmod: %s", j.rel, strerror(errno));
		if (!rc) {
			struct timespec ts[2] = {{j.a.mtime, 0}, {j.a.mtime, 0}};

			futimens(j.fd, ts);
		}
		if (close(j.fd) && !rc)
			rc = rp_fail("%s: %s", j.rel, strerror(errno));
		free(j.rel);
		pthread_mutex_lock(&pl->mu);
		if (rc || !buf)
			pl->failed = 1;
		rp_progress_add(e->p, 0, 1);
		pthread_mutex_unlock(&pl->mu);
	}
	free(buf);
	return NULL;
}

/* Queue a made file for the writers (waits for room). 0, or 1 when a writer failed. */
static int queue_file(struct pool *pl, const struct rk_attr *a, int fd, const char *rel)
{
	char *r = strdup(rel);
	int failed;

	pthread_mutex_lock(&pl->mu);
	while (pl->n == QUEUE && !pl->failed)
		pthread_cond_wait(&pl->room, &pl->mu);
	failed = pl->failed || !r;
	if (!failed) {
		pl->q[(pl->head + pl->n) % QUEUE] = (struct job){*a, fd, r};
		pl->n++;
		pthread_cond_signal(&pl->more);
	}
	pthread_mutex_unlock(&pl->mu);
	if (failed) {
		close(fd);
		free(r);
		return r ? 1 : rp_fail("out of memory");
	}
	return 0;
}

/* Start jobs writers; NULL when jobs < 2 or threads cannot be made (the walk writes). */
static struct pool *pool_start(struct exporter *e, unsigned jobs)
{
	struct pool *pl;

	if (jobs < 2 || !(pl = calloc(1, sizeof(*pl))))
		return NULL;
	pthread_mutex_init(&pl->mu, NULL);
	pthread_cond_init(&pl->more, NULL);
	pthread_cond_init(&pl->room, NULL);
	pl->e = e;
	if (!(pl->threads = calloc(jobs, sizeof(*pl->threads)))) {
		free(pl);
		return NULL;
	}
	while (pl->nthreads < jobs && !pthread_create(&pl->threads[pl->nthreads], NULL, writer, pl))
		pl->nthreads++;
	if (!pl->nthreads) { /* no thread: the walk writes */
		pthread_mutex_destroy(&pl->mu);
		pthread_cond_destroy(&pl->more);
		pthread_cond_destroy(&pl->room);
		free(pl->threads);
		free(pl);
		return NULL;
	}
	return pl;
}

/* Let the writers finish what is queued, join them. 0, or 1 when one failed. */
static int pool_end(struct pool *pl)
{
	int failed;

	if (!pl)
		return 0;
	pthread_mutex_lock(&pl->mu);
	pl->done = 1;
	pthread_cond_broadcast(&pl->more);
	pthread_mutex_unlock(&pl->mu);
	for (unsigned i = 0; i < pl->nthreads; i++)
		pthread_join(pl->threads[i], NULL);
	failed = pl->failed;
	pthread_mutex_destroy(&pl->mu);
	pthread_cond_destroy(&pl->more);
	pthread_cond_destroy(&pl->room);
	free(pl->threads);
	free(pl);
	return failed;
}

/* One more directory or hardlink in the progress (which the writers update too). */
static void count(struct exporter *e, uint64_t *field)
{
	if (e->pool)
		pthread_mutex_lock(&e->pool->mu);
	(*field)++;
	if (e->pool)
		pthread_mutex_unlock(&e->pool->mu);
}

static int copy_file(struct exporter *e, const struct rk_attr *a, int dirfd, const char *name,
		     const char *shown)
{
	struct rk_file *f;
	int fd, rc;

	if (e->pool) {
		fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0600);
		if (fd < 0)
			return rp_fail("%s: %s", shown, strerror(errno));
		return queue_file(e->pool, a, fd, shown);
	}
	rc = rk_vfs_open_file(e->v, a->ino, &f, &e->err);

	if (rc)
		return rp_fail("%s: %s", shown, rk_err_str(&e->err, rc));
	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		rc = rp_fail("%s: %s", shown, strerror(errno));
		rk_file_close(f);
		return rc;
	}
	/* fill takes the open file's size: a listing may not know it yet (a compressed
	 * tarball's size is known once it is planned, which opening does) */
	rc = fill(e, f, fd, e->buf, shown, e->p, NULL);
	rk_file_close(f);
	if (!rc && fchmod(fd, a->mode & 07777))
		rc = rp_fail("%s: chmod: %s", shown, strerror(errno));
	if (close(fd) && !rc)
		rc = rp_fail("%s: %s", shown, strerror(errno));
	if (!rc)
		set_time(dirfd, name, a->mtime);
	rp_progress_add(e->p, 0, 1);
	return rc;
}

/* One directory's entries, taken in full before any is exported: rk_vfs_readdir calls
 * its filler under the tree lock, and exporting an entry may populate a lazy directory
 * or compute a size, which take that lock. */
struct dir_list {
	struct dirent_copy {
		char *name;
		struct rk_attr a;
	} * v;
	size_t n, cap;
	int oom;
};

static int export_entry(struct exporter *e, const char *name, const struct rk_attr *a, int dirfd,
			struct rk_buf *rel);

static int fill_entry(void *ctx, const char *name, const struct rk_attr *a, uint64_t next)
{
	struct dir_list *l = ctx;

	(void)next;
	if (l->n == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 64;
		struct dirent_copy *v = realloc(l->v, ncap * sizeof(*v));

		if (!v)
			return l->oom = 1;
		l->v = v;
		l->cap = ncap;
	}
	if (!(l->v[l->n].name = strdup(name)))
		return l->oom = 1;
	l->v[l->n++].a = *a;
	return 0;
}

static int export_dir(struct exporter *e, uint64_t ino, int dirfd, struct rk_buf *rel)
{
	struct dir_list l = {0};
	int rc = rk_vfs_readdir_all(e->v, ino, fill_entry, &l, &e->err);

	if (rc)
		rc = rp_fail("%s: %s", rel->len ? rel->buf : ".", rk_err_str(&e->err, rc));
	else if (l.oom)
		rc = rp_fail("out of memory");
	for (size_t i = 0; !rc && i < l.n; i++)
		rc = export_entry(e, l.v[i].name, &l.v[i].a, dirfd, rel);
	for (size_t i = 0; i < l.n; i++)
		free(l.v[i].name);
	free(l.v);
	return rc;
}

/* Follow mode: the file a symlink at rel (below e->follow) names, written as name. The
 * target is resolved in the view's tree (".." and "." taken lexically); one that leaves
 * the tree, is not a regular file or does not resolve is refused. */
static int export_link_target(struct exporter *e, const struct rk_attr *a, int dirfd,
			      const char *name, const char *rel)
{
	char target[4097];
	struct rk_buf path = RK_BUF_INIT, out = RK_BUF_INIT;
	struct rk_attr ta;
	int n = rk_vfs_readlink(e->v, a->ino, target, sizeof(target), &e->err), rc = 0;

	if (n < 0)
		return rp_fail("%s: %s", rel, rk_err_str(&e->err, n));
	/* the link's directory in the tree, then its target, then each component */
	if (rk_buf_addf(&path, "%s/%s", e->follow, rel)) {
		rc = rp_fail("out of memory");
		goto done;
	}
	path.len = (size_t)(strrchr(path.buf, '/') - path.buf);
	if (rk_buf_addf(&path, "/%s", target) || rk_buf_adds(&out, "")) {
		rc = rp_fail("out of memory");
		goto done;
	}
	for (char *save = NULL, *c = strtok_r(path.buf, "/", &save); !rc && c;
	     c = strtok_r(NULL, "/", &save)) {
		if (!strcmp(c, "."))
			continue;
		if (!strcmp(c, "..")) {
			char *slash = strrchr(out.buf, '/');

			if (!out.len) {
				rc = rp_fail("%s: its target '%s' leaves the tree", rel, target);
				break;
			}
			out.len = slash ? (size_t)(slash - out.buf) : 0;
			out.buf[out.len] = '\0';
		} else if (rk_buf_addf(&out, "%s%s", out.len ? "/" : "", c)) {
			rc = rp_fail("out of memory");
		}
	}
	if (!rc && (n = rk_vfs_resolve(e->v, out.buf, &ta, &e->err)))
		rc = rp_fail("%s: %s: %s", rel, target, rk_err_str(&e->err, n));
	else if (!rc && S_ISDIR(ta.mode))
		; /* release/'s latest: an object store has no links; what it names is written */
	else if (!rc && !S_ISREG(ta.mode))
		rc = rp_fail("%s: %s: not a file", rel, target);
	else if (!rc)
		rc = copy_file(e, &ta, dirfd, name, rel);
done:
	rk_buf_release(&path);
	rk_buf_release(&out);
	return rc;
}

static int export_entry(struct exporter *e, const char *name, const struct rk_attr *a, int dirfd,
			struct rk_buf *rel)
{
	size_t len = rel->len;
	int rc = 0;

	if (!strcmp(name, ".") || !strcmp(name, "..") || strchr(name, '/'))
		return rp_fail("'%s': refusing an unsafe name", name);
	if (rk_buf_addf(rel, "%s%s", rel->len ? "/" : "", name))
		return rp_fail("out of memory");
	if (S_ISDIR(a->mode)) {
		int sub;

		if (mkdirat(dirfd, name, 0700))
			rc = rp_fail("%s: %s", rel->buf, strerror(errno));
		else if ((sub = openat(dirfd, name,
				       O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
			rc = rp_fail("%s: %s", rel->buf, strerror(errno));
		else {
			rc = export_dir(e, a->ino, sub, rel);
			if (!rc && fchmod(sub, a->mode & 07777))
				rc = rp_fail("%s: chmod: %s", rel->buf, strerror(errno));
			close(sub);
			if (!rc)
				set_time(dirfd, name, a->mtime);
			count(e, &e->p->dirs);
		}
	} else if (S_ISLNK(a->mode) && e->follow) {
		rc = export_link_target(e, a, dirfd, name, rel->buf);
	} else if (S_ISLNK(a->mode)) {
		char target[4097];
		int n = rk_vfs_readlink(e->v, a->ino, target, sizeof(target), &e->err);

		if (n < 0)
			rc = rp_fail("%s: %s", rel->buf, rk_err_str(&e->err, n));
		else if (symlinkat(target, dirfd, name))
			rc = rp_fail("%s: %s", rel->buf, strerror(errno));
		else
			set_time(dirfd, name, a->mtime);
	} else {
		const char *first = a->nlink > 1 ? first_path(e, a->ino) : NULL;

		if (first) {
			/* both paths are below DIR, through directories made here: the first
			 * relative to DIR's descriptor, the new name to its directory's (held
			 * open: a directory swapped for a symlink meanwhile cannot move it) */
			if (linkat(e->root, first, dirfd, name, 0))
				rc = rp_fail("%s: link: %s", rel->buf, strerror(errno));
			count(e, &e->p->links);
		} else {
			rc = copy_file(e, a, dirfd, name, rel->buf);
			if (!rc && a->nlink > 1 && remember_path(e, a->ino, rel->buf))
				rc = rp_fail("out of memory");
		}
	}
	rel->len = len;
	rel->buf[len] = '\0';
	return rc;
}

static int export(struct rk_vfs *v, struct rp_progress *p, const char *path, const char *shown,
		  const char *out, int follow, const struct rp_export_opts *eo)
{
	struct exporter e = {.v = v, .p = p, .follow = follow ? path : NULL, .eo = eo};
	struct rk_buf rel = RK_BUF_INIT;
	struct rk_staging stage = {.fd = -1};
	struct rk_attr a;
	int rc, ret = 1, root, parents = 0;

	if (!(e.buf = malloc(1 << 20)))
		return rp_fail("out of memory");
	if ((rc = rk_vfs_resolve(v, path, &a, &e.err))) {
		rp_fail("%s: %s", shown, rc == -ENOENT ? strerror(-rc) : rk_err_str(&e.err, rc));
		goto done;
	}
	/* out's missing parents are made (as git clone makes them), and removed again when
	 * nothing was written */
	if ((parents = rp_mkdir_parents(out)) < 0) {
		rp_fail("%s: %s", out, strerror(-parents));
		goto done;
	}
	/* written into a private sibling of out, moved into place at the end: a killed or
	 * failed run leaves no file with its final name that is not whole (rk/staging.h) */
	if ((rc = rk_staging_open(out, &stage, &e.err))) {
		rp_fail("%s", rk_err_str(&e.err, rc));
		goto done;
	}
	e.root = root = stage.fd;
	/* the writers: follow mode writes the files from the walk (its targets are resolved
	 * as they come) */
	e.pool = !follow && eo ? pool_start(&e, eo->jobs) : NULL;
	if (S_ISDIR(a.mode)) {
		ret = export_dir(&e, a.ino, root, &rel) ? 1 : 0;
	} else {
		const char *base = strrchr(shown, '/') ? strrchr(shown, '/') + 1 : shown;

		ret = export_entry(&e, base, &a, root, &rel) ? 1 : 0;
	}
	/* every queued file written (or, after a failure, closed) before the commit */
	if (pool_end(e.pool))
		ret = 1;
	e.pool = NULL;
	if (!ret && (rc = rk_staging_commit(&stage, &e.err)))
		ret = rp_fail("%s", rk_err_str(&e.err, rc));
done:
	for (size_t i = 0; i < e.nlinks; i++)
		free(e.links[i].path);
	free(e.links);
	rk_staging_abort(&stage);
	if (ret && parents > 0)
		rp_rmdir_parents(out, parents);
	free(e.buf);
	rk_buf_release(&rel);
	return ret;
}

int rp_export(struct rk_vfs *v, struct rp_progress *p, const char *path, const char *shown,
	      const char *out)
{
	return export(v, p, path, shown, out, 0, NULL);
}

int rp_export_with(struct rk_vfs *v, struct rp_progress *p, const char *path, const char *shown,
		   const char *out, const struct rp_export_opts *eo)
{
	return export(v, p, path, shown, out, 0, eo);
}

int rp_export_follow(struct rk_vfs *v, struct rp_progress *p, const char *path, const char *shown,
		     const char *out)
{
	return export(v, p, path, shown, out, 1, NULL);
}
