/* file.c: file content: rk_vfs_open_file resolves a node to its source (bytes, blob,
 * store object, staged file, composite, compressed tarball, made on first open) and
 * rk_file reads it (pread, extents for splice, close); read-ahead of a directory's next
 * blobs. The locks: vfs.c; docs/internals/vfs.md. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk/log.h"

#include "cache/composite_read.h"
#include "cache/tar_compress.h"
#include "engine/readahead.h"
#include "engine/vfs_int.h"
#include "engine/engine.h"

struct rk_file {
	struct rk_vfs *v;
	uint64_t size;
	int fd;
	const char *bytes;
	struct rk_object *obj;
	const struct rk_composite *composite; /* a synthesized file */
	_Atomic uint8_t *read_logged; /* composite: its node's (a failed read logged) */
	struct rk_tarz *tarz; /* ... a compressed tarball of it */
	pthread_mutex_t lock; /* tarz: protects cur */
	struct rk_blob_cursor cur; /* tarz: the piece read last */
	struct rk_blob_set blobs; /* composite: the source blobs read last */
	struct rk_frontier *fr; /* a staged file: how much of fd is written */
	const struct artifact *artifact; /* for log lines */
	_Atomic int failed_logged;
	char blob[RK_SHA256_HEX]; /* fd is cache blob blob (rk_blob_open), else "" */
};

static int ensure_tarz(struct rk_vfs *v, struct node *n, struct rk_err *err)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	char where[1024];
	int rc;

	if (n->tarz->ready) /* n is SRC_TARZ (the caller saw it under the tree lock) */
		return 0;
	node_path(v, n, where, sizeof(where));
	rc = rk_tarz_compute(n->tarz, v->cache, n->composite, ncpu > 0 ? (unsigned)ncpu : 1, err);
	if (rc) {
		rk_err_log("'%s': %s", where, rk_err_str(err, rc));
		return -EIO;
	}
	rk_info("'%s': %zu pieces, %u compressed, %u from the cache", where, n->tarz->npieces,
		n->tarz->compressed, n->tarz->reused);
	pthread_rwlock_wrlock(&v->tree);
	n->size = n->tarz->size;
	pthread_rwlock_unlock(&v->tree);
	return 0;
}

/* Make a SRC_LATER file (once; a failure is logged and the next call tries again). Its
 * size, when known before, must not change: a wrong size is never reported. */
static int ensure_made(struct rk_vfs *v, struct node *n, struct rk_err *err)
{
	struct rk_composite *c = NULL;
	int rc = 0, src;

	pthread_mutex_lock(&n->later->lock);
	pthread_rwlock_rdlock(&v->tree);
	src = n->src;
	pthread_rwlock_unlock(&v->tree);
	if (src == SRC_LATER) {
		const char *outer = rk_log_where;
		char where[1024];

		node_path(v, n, where, sizeof(where));
		rk_log_where = where;
		rc = n->later->make(v, n->later->ctx, &c, err);
		rk_log_where = outer;
		if (!rc && n->size_known && c->size != n->size)
			rc = rk_err_set(err, -EPROTO, "made %llu bytes, not the %llu promised",
					(unsigned long long)c->size, (unsigned long long)n->size);
		if (rc) {
			rk_composite_free(c);
			if (rc != n->later->logged)
				rk_err_log("'%s': %s", where, rk_err_str(err, rc));
			n->later->logged = rc;
			rc = -EIO;
		} else {
			n->later->logged = 0;
			pthread_rwlock_wrlock(&v->tree);
			n->composite = c;
			n->size = c->size;
			n->src = SRC_COMPOSITE;
			pthread_rwlock_unlock(&v->tree);
		}
	}
	pthread_mutex_unlock(&n->later->lock);
	return rc;
}

/* Whatever a stat (open: 1) of n must wait for: a compressed tarball's size, a SRC_LATER
 * file being made. No lock held; n's src was seen under the tree lock. */
int ensure_ready(struct rk_vfs *v, struct node *n, int open, struct rk_err *err)
{
	struct rk_err local = RK_ERR_INIT; /* the log line needs the cause */
	int src;

	if (!err)
		err = &local;
	pthread_rwlock_rdlock(&v->tree);
	src = n->src;
	pthread_rwlock_unlock(&v->tree);
	if (src == SRC_TARZ)
		return ensure_tarz(v, n, err);
	if (src == SRC_LATER && (open || !n->size_known))
		return ensure_made(v, n, err);
	return 0;
}

/* Read-ahead: a file opened in directory dir lets the next AHEAD_FILES small blob files
 * of dir (listing order) be opened on the read-ahead threads, so a walk that reads the
 * directory's files one by one finds each in memory (the first open of a directory
 * reads ahead of it that far; each further open moves the window one on). The node of
 * a file in several directories (dist/ links it) has its first directory as parent,
 * whose order is the same. v->tree held (for reading at least). */
#define AHEAD_FILES 32
#define AHEAD_MAX_SIZE (1u << 20)

static void read_ahead(struct rk_vfs *v, struct node *dir)
{
	if (!v->ahead || !dir)
		return;
	pthread_mutex_lock(&v->ahead_lock);
	dir->opened++;
	while (dir->ahead < dir->nents && dir->ahead < (uint64_t)dir->opened + AHEAD_FILES) {
		const struct node *s = dir->order[dir->ahead++]->node;

		if (S_ISREG(s->mode) && s->src == SRC_BLOB && s->size <= AHEAD_MAX_SIZE)
			vfs_ahead_push(v->ahead, s->data, s->size);
	}
	pthread_mutex_unlock(&v->ahead_lock);
}

int rk_vfs_open_file(struct rk_vfs *v, uint64_t ino, struct rk_file **out, struct rk_err *err)
{
	struct rk_err local = RK_ERR_INIT; /* log lines need the cause */

	struct rk_file *f;
	struct node *n;
	char id[RK_SHA256_HEX] = "";
	unsigned refills = 0;
	int rc = 0, src, state, later = 0;
	uint64_t gen;

	if (!err)
		err = &local;
	pthread_rwlock_rdlock(&v->tree);
	n = find_ino(v, ino);
	if (!n)
		rc = -ENOENT;
	else if (S_ISDIR(n->mode))
		rc = -EISDIR;
	else if (!S_ISREG(n->mode))
		rc = -EINVAL;
	else
		later = n->src == SRC_TARZ || n->src == SRC_LATER;
	pthread_rwlock_unlock(&v->tree);
	if (rc)
		return rc;
	if (n->artifact) {
		artifact_state(v, n->artifact, &state, &gen);
		if (state == ART_FAILED && artifact_transient(v, n->artifact) &&
		    !vfs_artifacts_wait(v, &n->artifact, 1, err)) /* tried again, and it worked */
			state = ART_DONE;
		if (state == ART_FAILED)
			return artifact_eio(n->artifact, err);
	}
	if (n->origin && !n->artifact) {
		/* a dist file of a damaged artifact (flatten.c): listed, never read */
		artifact_state(v, n->origin, &state, &gen);
		if (state == ART_FAILED && !artifact_transient(v, n->origin))
			return artifact_eio(n->origin, err);
	}
	if (later && (rc = ensure_ready(v, n, 1, err)))
		return rc;
	if (n->artifact || n->origin) {
		struct artifact *a = n->artifact ? n->artifact : n->origin;

		if (a->source)
			a = a->source;
		pthread_mutex_lock(&a->refill);
		refills = a->refills;
		pthread_mutex_unlock(&a->refill);
	}
	if (!(f = calloc(1, sizeof(*f))))
		return -ENOMEM;
	f->v = v;
	f->fd = -1;
	pthread_rwlock_rdlock(&v->tree);
	src = n->src;
	f->size = n->size;
	if (src == SRC_BLOB) {
		memcpy(id, n->data, RK_SHA256_HEX);
		read_ahead(v, n->parent);
	} else if (src == SRC_BYTES)
		f->bytes = n->data; /* immutable once published */
	else if (src == SRC_STAGED && (f->fd = fcntl(n->fd, F_DUPFD_CLOEXEC, 0)) < 0)
		rc = -errno;
	else if (src == SRC_STAGED) {
		f->fr = rk_frontier_get(n->fr);
		f->artifact = n->artifact;
	} else if (src == SRC_COMPOSITE || src == SRC_TARZ) {
		f->composite = n->composite; /* immutable once published */
		f->read_logged = &n->read_logged;
		f->tarz = src == SRC_TARZ ? n->tarz : NULL;
		f->cur = (struct rk_blob_cursor)RK_BLOB_CURSOR_INIT;
		if (f->tarz)
			pthread_mutex_init(&f->lock, NULL);
		else
			rk_blob_set_init(&f->blobs);
	}
	pthread_rwlock_unlock(&v->tree);
	if (rc) {
		free(f);
		return rc;
	}

	if (src == SRC_NONE && f->size) {
		/* a member the cache could not hold (ingest.c logged it), or nothing to read */
		rc = rk_err_set(err, -EIO, "'%s': not in the cache (larger than cache_size)",
				n->name);
	} else if (src == SRC_BLOB) {
		rc = rk_blob_open(v->cache, id, f->size, &f->fd, err);
		if (!rc) /* the cache's blob (what a refill gives is made just now) */
			memcpy(f->blob, id, RK_SHA256_HEX);
		if ((rc == -ENOENT || rc == -EBADMSG) && (n->artifact || n->origin)) {
			rk_err_clear(err);
			rc = artifact_refill(v, n->artifact ? n->artifact : n->origin, refills, id,
					     f->size, &f->fd, err);
		}
		if (rc) {
			rk_err_log("'%s': %s", n->name, rk_err_str(err, rc));
			rc = -EIO;
		}
	} else if (src == SRC_STORE) {
		rc = rk_store_object_open(v->store, n->data, &f->obj, err);
		if (!rc)
			f->fd = rk_object_fd(f->obj);
		/* EBADMSG: the server's size is not the listed one (http.h) */
		else if (rc == -ETIMEDOUT || rc == -EBADMSG) {
			rk_err_log("'%s': %s", n->name, rk_err_str(err, rc));
			rc = -EIO;
		}
	}
	if (rc) {
		free(f);
		return rc;
	}
	*out = f;
	return 0;
}

uint64_t rk_file_size(const struct rk_file *f)
{
	return f->size;
}

/* Exactly n bytes from fd at off (a cache blob: short means damaged). 0 or -errno. */
static int pread_full(int fd, char *buf, size_t n, uint64_t off)
{
	for (size_t got = 0; got < n;) {
		ssize_t r = pread(fd, buf + got, n - got, (off_t)(off + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		got += (size_t)r;
	}
	return 0;
}

/* Make f->cur read compressed piece i. Caller holds f->lock. */
static int piece_fd_locked(struct rk_file *f, size_t i, struct rk_err *err)
{
	int rc;

	if (f->cur.fd >= 0 && !strcmp(f->cur.id, f->tarz->pieces[i].key))
		return 0;
	rk_blob_cursor_close(&f->cur);
	rc = rk_tarz_open_piece(f->tarz, i, f->v->cache, f->composite, &f->cur.fd, err);
	if (!rc)
		memcpy(f->cur.id, f->tarz->pieces[i].key, RK_SHA256_HEX);
	return rc;
}

/* The composite reader's source callback for an open file: its blob set. */
struct file_read {
	struct rk_file *f;
	struct rk_err *err;
};

static ssize_t file_source_read(void *ctx, uint32_t src, void *buf, size_t n, uint64_t off)
{
	struct file_read *r = ctx;
	struct rk_file *f = r->f;
	int rc;

	rc = rk_blob_set_pread(&f->blobs, f->v->cache, f->composite, src, buf, n, off, r->err);
	return rc ? rc : (ssize_t)n;
}

/* A read of a synthesized file failed: -EIO, logged once per file (the kernel retries a
 * failed read, and so may its reader). */
static int composite_failed(struct rk_file *f, uint64_t off, int rc, struct rk_err *err)
{
	if (!atomic_exchange(f->read_logged, 1))
		rk_err_log("composite read at %llu: %s", (unsigned long long)off,
			   rk_err_str(err, rc));
	return -EIO;
}

/* A read of a file's blob failed (a cache file truncated or unreadable under the mount):
 * -EIO, logged once per open file. */
static int blob_failed(struct rk_file *f, uint64_t off, int rc, struct rk_err *err)
{
	if (!atomic_exchange(&f->failed_logged, 1))
		rk_err_log("read at %llu: %s", (unsigned long long)off, rk_err_str(err, rc));
	return -EIO;
}

/* Read from a synthesized file: literal bytes, zeros and blob ranges. */
static ssize_t composite_pread(struct rk_file *f, char *buf, size_t n, uint64_t off,
			       struct rk_err *err)
{
	struct file_read r = {f, err};
	ssize_t got = rk_composite_pread(f->composite, file_source_read, &r, buf, n, off);

	return got < 0 ? composite_failed(f, off, (int)got, err) : got;
}

/* Read from a compressed tarball: cached pieces, then the seek table. */
static ssize_t tarz_pread(struct rk_file *f, char *buf, size_t n, uint64_t off, struct rk_err *err)
{
	const struct rk_tarz *z = f->tarz;
	size_t done = 0;
	int rc = 0;

	while (done < n && !rc) {
		size_t i = rk_tarz_find(z, off + done);
		uint64_t start = i < z->npieces ? z->pieces[i].coff : z->size - z->trailer_len;
		uint64_t len = i < z->npieces ? z->pieces[i].clen : z->trailer_len;
		uint64_t within = off + done - start;
		size_t chunk = (size_t)RK_MIN((uint64_t)(n - done), len - within);

		if (i == z->npieces) {
			memcpy(buf + done, z->trailer + within, chunk);
			done += chunk;
			continue;
		}
		pthread_mutex_lock(&f->lock);
		rc = piece_fd_locked(f, i, err);
		if (!rc)
			rc = pread_full(f->cur.fd, buf + done, chunk, within);
		pthread_mutex_unlock(&f->lock);
		done += chunk;
	}
	if (rc) {
		rk_err_log("compressed tarball read at %llu: %s", (unsigned long long)off,
			   rk_err_str(err, rc));
		return -EIO;
	}
	return (ssize_t)n;
}

/* A staged file streams behind its ingest: wait until [off, off + n) is written. A
 * failed archive fails every read, also below the frontier (rk/frontier.h). */
static int staged_wait(struct rk_file *f, uint64_t off, size_t n)
{
	int rc = f->fr ? rk_frontier_wait(f->fr, off + n) : 0;

	if (!rc)
		return 0;
	if (!atomic_exchange(&f->failed_logged, 1))
		rk_err_log("read at %llu of a file of '%s': its archive failed while the file "
			   "was read (%s)",
			   (unsigned long long)off, f->artifact ? f->artifact->art->file : "?",
			   rc == -EFBIG ? "larger than cache_size" : strerror(-rc));
	return -EIO;
}

ssize_t rk_file_extents(struct rk_file *f, uint64_t off, size_t n, struct rk_extent *ext,
			size_t max)
{
	struct rk_err err = RK_ERR_INIT; /* the log line needs the cause */
	ssize_t k;

	if (off >= f->size)
		return 0;
	n = (size_t)RK_MIN((uint64_t)n, f->size - off);
	if (!max)
		return -E2BIG;
	if (f->tarz) { /* one cached piece, or a copy */
		const struct rk_tarz *z = f->tarz;
		size_t i = rk_tarz_find(z, off);
		int rc = 0;

		if (i >= z->npieces || off + n > z->pieces[i].coff + z->pieces[i].clen)
			return -E2BIG;
		ext[0] = (struct rk_extent){-1, 1, off - z->pieces[i].coff, NULL, n};
		pthread_mutex_lock(&f->lock);
		if (!(rc = piece_fd_locked(f, i, &err)) &&
		    (ext[0].fd = fcntl(f->cur.fd, F_DUPFD_CLOEXEC, 0)) < 0)
			rc = rk_err_set(&err, -errno, "piece %zu: %s", i, strerror(errno));
		pthread_mutex_unlock(&f->lock);
		if (!rc && (rc = rk_extents_check(ext, 1, &err)))
			close(ext[0].fd);
		if (!rc)
			return 1;
		rk_err_log("compressed tarball read at %llu: %s", (unsigned long long)off,
			   rk_err_str(&err, rc));
		return -EIO;
	}
	if (f->composite) {
		k = rk_composite_extents(&f->blobs, f->v->cache, f->composite, off, n, ext, max,
					 &err);
		if (k > 0) {
			int rc = rk_extents_check(ext, (size_t)k, &err);

			if (!rc)
				return k;
			rk_extents_close(ext, (size_t)k);
			k = rc;
		}
		if (k >= 0 || k == -E2BIG)
			return k;
		return composite_failed(f, off, (int)k, &err);
	}
	if (f->bytes) {
		ext[0] = (struct rk_extent){-1, 0, 0, f->bytes + off, n};
		return 1;
	}
	if (f->fd < 0) /* a remote object: read with a copy */
		return -E2BIG;
	if (staged_wait(f, off, n))
		return -EIO;
	ext[0] = (struct rk_extent){f->fd, 0, off, NULL, n};
	if ((f->blob[0] && (k = rk_blob_recheck(f->v->cache, f->blob, f->size, f->fd, &err))) ||
	    (k = rk_extents_check(ext, 1, &err)))
		return blob_failed(f, off, (int)k, &err);
	return 1;
}

ssize_t rk_file_pread(struct rk_file *f, void *buf, size_t n, uint64_t off, struct rk_err *err)
{
	struct rk_err local; /* log lines need the cause */
	ssize_t r;

	if (!err) {
		local.code = 0;
		local.msg[0] = '\0';
		err = &local;
	}
	if (off >= f->size)
		return 0;
	n = (size_t)RK_MIN((uint64_t)n, f->size - off);
	if (f->tarz)
		return tarz_pread(f, buf, n, off, err);
	if (f->composite)
		return composite_pread(f, buf, n, off, err);
	if (f->bytes) {
		memcpy(buf, f->bytes + off, n);
		return (ssize_t)n;
	}
	if (f->obj && f->fd < 0) {
		r = rk_object_pread(f->obj, buf, n, off, err);
		if (r < 0 && r != -ENOMEM && r != -EIO) {
			rk_err_log("read: %s", rk_err_str(err, (int)r));
			r = -EIO; /* the network gave up, or the object changed */
		}
		return r;
	}
	if (f->fd < 0)
		return 0;
	if (staged_wait(f, off, n))
		return -EIO;
	/* a blob changed since its check is checked again (and fails: EIO, discarded; the
	 * next open makes it again) */
	if (f->blob[0] && (r = rk_blob_recheck(f->v->cache, f->blob, f->size, f->fd, err)))
		return blob_failed(f, off, (int)r, err);
	/* the file is f->size bytes: shorter means its blob changed under the mount */
	if ((r = pread_full(f->fd, buf, n, off))) {
		rk_err_set(err, (int)r, "read: %s",
			   r == -EIO ? "the cache file is short (truncated under the mount)"
				     : strerror((int)-r));
		return blob_failed(f, off, (int)r, err);
	}
	return (ssize_t)n;
}

void rk_file_close(struct rk_file *f)
{
	if (!f)
		return;
	if (f->obj)
		rk_object_close(f->obj); /* owns fd */
	else if (f->fd >= 0)
		close(f->fd);
	rk_frontier_put(f->fr);
	if (f->tarz) {
		rk_blob_cursor_close(&f->cur);
		pthread_mutex_destroy(&f->lock);
	} else if (f->composite) {
		rk_blob_set_release(&f->blobs);
	}
	free(f);
}
