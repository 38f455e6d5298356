/* tarz_file.c: a compressed tarball as an ops-backed file (struct vfs_file_ops,
 * engine/node.h): ready computes the pieces (cache/tar_compress.c), a read finds the
 * pieces it covers and reads their cached compressed bytes, or the trailer; extents hand
 * the kernel one piece's descriptor. Each open file keeps the descriptor of the piece it
 * read last (its own lock: one reader at a time per open file). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk/log.h"
#include "cache/composite_read.h"
#include "cache/tar_compress.h"
#include "services/tarz_file.h"
#include "util/file_read.h"

struct tarz_file {
	struct rk_tarz *z; /* owned */
	const struct rk_composite *tar; /* the .tar node's */
};

struct tarz_open {
	struct rk_vfs *v;
	struct tarz_file *t;
	pthread_mutex_t lock; /* protects cur */
	struct rk_blob_cursor cur; /* the piece read last */
};

/* z's pieces, computed now on every core, with one line in the log. */
static int compute(struct rk_vfs *v, struct rk_tarz *z, const struct rk_composite *tar,
		   const char *where, struct rk_err *err)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int rc;

	if (z->ready)
		return 0;
	rc = rk_tarz_compute(z, v->cache, tar, ncpu > 0 ? (unsigned)ncpu : 1, err);
	if (rc) {
		rk_err_log("'%s': %s", where, rk_err_str(err, rc));
		return -EIO;
	}
	rk_info("'%s': %zu pieces, %u compressed, %u from the cache", where, z->npieces,
		z->compressed, z->reused);
	return 0;
}

/* The pieces, computed now on every core (the first stat pays; a wrong size is never
 * reported). */
static int tarz_ready(struct rk_vfs *v, void *ctx, const char *where, uint64_t *size,
		      struct rk_err *err)
{
	struct tarz_file *t = ctx;
	int rc = compute(v, t->z, t->tar, where, err);

	if (!rc)
		*size = t->z->size;
	return rc;
}

static int tarz_open(struct rk_vfs *v, void *ctx, void **fh, struct rk_err *err)
{
	struct tarz_open *o = calloc(1, sizeof(*o));

	(void)err;
	if (!o)
		return -ENOMEM;
	o->v = v;
	o->t = ctx;
	o->cur = (struct rk_blob_cursor)RK_BLOB_CURSOR_INIT;
	pthread_mutex_init(&o->lock, NULL);
	*fh = o;
	return 0;
}

/* Make o->cur read compressed piece i. Caller holds o->lock. */
static int piece_fd_locked(struct tarz_open *o, size_t i, struct rk_err *err)
{
	struct rk_tarz *z = o->t->z;
	int rc;

	if (o->cur.fd >= 0 && !strcmp(o->cur.id, z->pieces[i].key))
		return 0;
	rk_blob_cursor_close(&o->cur);
	rc = rk_tarz_open_piece(z, i, o->v->cache, o->t->tar, &o->cur.fd, err);
	if (!rc)
		memcpy(o->cur.id, z->pieces[i].key, RK_SHA256_HEX);
	return rc;
}

/* The header (xz), cached pieces, then the trailer (seek table, xz index). */
static ssize_t tarz_pread(void *fh, char *buf, size_t n, uint64_t off, struct rk_err *err)
{
	struct tarz_open *o = fh;
	const struct rk_tarz *z = o->t->z;
	size_t done = 0;
	int rc = 0;

	while (done < n && !rc) {
		size_t i = rk_tarz_find(z, off + done);
		int head = i == z->npieces && off + done < z->header_len;
		uint64_t start = i < z->npieces ? z->pieces[i].coff
				 : head		? 0
						: z->size - z->trailer_len;
		uint64_t len = i < z->npieces ? z->pieces[i].clen
			       : head	      ? z->header_len
					      : z->trailer_len;
		uint64_t within = off + done - start;
		size_t chunk = (size_t)RK_MIN((uint64_t)(n - done), len - within);

		if (i == z->npieces) {
			memcpy(buf + done, (head ? z->header : z->trailer) + within, chunk);
			done += chunk;
			continue;
		}
		pthread_mutex_lock(&o->lock);
		rc = piece_fd_locked(o, i, err);
		if (!rc)
			rc = rk_pread_full(o->cur.fd, buf + done, chunk, within);
		pthread_mutex_unlock(&o->lock);
		done += chunk;
	}
	if (rc) {
		rk_err_log("compressed tarball read at %llu: %s", (unsigned long long)off,
			   rk_err_str(err, rc));
		return -EIO;
	}
	return (ssize_t)n;
}

/* One cached piece, or a copy. */
static ssize_t tarz_extents(void *fh, uint64_t off, size_t n, struct rk_extent *ext, size_t max)
{
	struct rk_err err = RK_ERR_INIT; /* the log line needs the cause */
	struct tarz_open *o = fh;
	const struct rk_tarz *z = o->t->z;
	size_t i = rk_tarz_find(z, off);
	int rc = 0;

	(void)max;
	if (i >= z->npieces || off + n > z->pieces[i].coff + z->pieces[i].clen)
		return -E2BIG;
	ext[0] = (struct rk_extent){-1, 1, off - z->pieces[i].coff, NULL, n};
	pthread_mutex_lock(&o->lock);
	if (!(rc = piece_fd_locked(o, i, &err)) &&
	    (ext[0].fd = fcntl(o->cur.fd, F_DUPFD_CLOEXEC, 0)) < 0)
		rc = rk_err_set(&err, -errno, "piece %zu: %s", i, strerror(errno));
	pthread_mutex_unlock(&o->lock);
	if (!rc && (rc = rk_extents_check(ext, 1, &err)))
		close(ext[0].fd);
	if (!rc)
		return 1;
	rk_err_log("compressed tarball read at %llu: %s", (unsigned long long)off,
		   rk_err_str(&err, rc));
	return -EIO;
}

static void tarz_close(void *fh)
{
	struct tarz_open *o = fh;

	rk_blob_cursor_close(&o->cur);
	pthread_mutex_destroy(&o->lock);
	free(o);
}

static void tarz_free(void *ctx)
{
	struct tarz_file *t = ctx;

	rk_tarz_free(t->z);
	free(t);
}

static const struct vfs_file_ops tarz_ops = {
	.ready = tarz_ready,
	.open = tarz_open,
	.pread = tarz_pread,
	.extents = tarz_extents,
	.close = tarz_close,
	.free = tarz_free,
};

struct node *vfs_tarz_file(struct node *dir, const char *name, int64_t mtime,
			   const struct rk_composite *tar, struct rk_tarz *z)
{
	struct tarz_file *t = calloc(1, sizeof(*t));

	if (!t) {
		rk_tarz_free(z);
		return NULL;
	}
	t->z = z;
	t->tar = tar;
	return vfs_ops_file(dir, name, S_IFREG | 0444, mtime, UINT64_MAX, &tarz_ops, t);
}

int vfs_tarz_composite(struct rk_vfs *v, const struct rk_composite *tar, int codec, int level,
		       const char *where, struct rk_tarz_origin **o, struct rk_composite *out,
		       struct rk_err *err)
{
	struct rk_tarz_origin *t = calloc(1, sizeof(*t));
	int rc = t ? rk_tarz_plan(tar, codec, level, &t->z) : -ENOMEM;

	if (rc) {
		free(t);
		return rk_err_set(err, rc, "'%s': %s", where, strerror(-rc));
	}
	t->c = v->cache;
	t->tar = tar;
	if (!(rc = compute(v, t->z, tar, where, err)) && (rc = rk_tarz_append(t, out)))
		rk_err_set(err, rc, "'%s': %s", where, strerror(-rc));
	if (rc) {
		vfs_tarz_origin_free(t);
		return rc;
	}
	*o = t;
	return 0;
}

void vfs_tarz_origin_free(struct rk_tarz_origin *o)
{
	if (!o)
		return;
	rk_tarz_free(o->z);
	free(o);
}
