/* file.c: file content. Each source kind (enum src_kind, engine.h) is one table of
 * operations (struct src_ops, as the Linux VFS has file_operations): ready (what a stat
 * or an open must wait for), take (what an open file needs of the node, under the tree
 * lock), open (its I/O, no lock), pread, extents (for splice) and close.
 * rk_vfs_open_file resolves a node to its kind's table and every read dispatches
 * through it. A service supplies a kind of its own as an ops-backed file (SRC_OPS,
 * struct vfs_file_ops: the compressed tarballs, services/tarz_file.c). Read-ahead of a
 * directory's next blobs, and of a composite's next pieces (vfs_ahead_pieces). The locks:
 * vfs.c; docs/internals/vfs.md. */
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
#include "engine/readahead.h"
#include "engine/vfs_int.h"
#include "engine/engine.h"
#include "util/file_read.h"

struct rk_file {
	struct rk_vfs *v;
	const struct src_ops *ops; /* its source kind's */
	uint64_t size;
	int fd; /* blob, staged: the file read; store: the object's (owned by obj) */
	const char *bytes; /* bytes */
	struct rk_object *obj; /* store */
	const struct rk_composite *composite; /* composite */
	_Atomic uint8_t *read_logged; /* composite: its node's (a failed read logged) */
	struct rk_blob_set blobs; /* composite: the source blobs read last */
	_Atomic uint64_t ahead; /* composite: its pieces read ahead up to here */
	struct rk_frontier *fr; /* staged: how much of fd is written */
	const struct artifact *artifact; /* staged: for log lines */
	struct artifact *refill; /* blob: the artifact that re-creates it (or NULL) */
	unsigned refills; /* blob: the refill's count when the open began */
	const struct vfs_file_ops *fops; /* ops: the provider's table, context, handle */
	void *fctx, *fh;
	_Atomic int failed_logged;
	char id[RK_SHA256_HEX]; /* blob: the node's blob id */
	char blob[RK_SHA256_HEX]; /* fd is cache blob blob (rk_blob_open), else "" */
	struct run *run; /* the run whose node it is (counted in its opens), or NULL */
	int kept; /* rk_file_kept: counted in its run's kept too */
};

/* ---- SRC_NONE: a member the cache could not hold, or nothing to read ---- */

static int none_open(struct rk_file *f, struct node *n, struct rk_err *err)
{
	if (!f->size)
		return 0;
	/* ingest.c logged it */
	return rk_err_set(err, -EIO, "'%s': not in the cache (larger than cache_size)", n->name);
}

static ssize_t none_pread(struct rk_file *f, char *buf, size_t n, uint64_t off, struct rk_err *err)
{
	(void)f, (void)buf, (void)n, (void)off, (void)err;
	return 0;
}

static ssize_t none_extents(struct rk_file *f, uint64_t off, size_t n, struct rk_extent *ext,
			    size_t max)
{
	(void)f, (void)off, (void)n, (void)ext, (void)max;
	return -E2BIG; /* read with a copy (which reads nothing) */
}

static const struct src_ops none_ops = {
	.open = none_open,
	.pread = none_pread,
	.extents = none_extents,
};

/* ---- SRC_BYTES: bytes in memory ---- */

static int bytes_take(struct rk_file *f, struct node *n)
{
	f->bytes = n->data; /* immutable once published */
	return 0;
}

static ssize_t bytes_pread(struct rk_file *f, char *buf, size_t n, uint64_t off, struct rk_err *err)
{
	(void)err;
	memcpy(buf, f->bytes + off, n);
	return (ssize_t)n;
}

static ssize_t bytes_extents(struct rk_file *f, uint64_t off, size_t n, struct rk_extent *ext,
			     size_t max)
{
	(void)max;
	ext[0] = (struct rk_extent){-1, 0, 0, f->bytes + off, n};
	return 1;
}

static const struct src_ops bytes_ops = {
	.take = bytes_take,
	.pread = bytes_pread,
	.extents = bytes_extents,
};

/* ---- descriptors: a cache blob, a staged file ---- */

/* A read of a file's blob failed (a cache file truncated or unreadable under the mount):
 * -EIO, logged once per open file. */
static int blob_failed(struct rk_file *f, uint64_t off, int rc, struct rk_err *err)
{
	if (!atomic_exchange(&f->failed_logged, 1))
		rk_err_log("read at %llu: %s", (unsigned long long)off, rk_err_str(err, rc));
	return -EIO;
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

static ssize_t fd_pread(struct rk_file *f, char *buf, size_t n, uint64_t off, struct rk_err *err)
{
	ssize_t r;

	if (staged_wait(f, off, n))
		return -EIO;
	/* a blob changed since its check is checked again (and fails: EIO, discarded; the
	 * next open makes it again) */
	if (f->blob[0] && (r = rk_blob_recheck(f->v->cache, f->blob, f->size, f->fd, err)))
		return blob_failed(f, off, (int)r, err);
	/* the file is f->size bytes: shorter means its blob changed under the mount */
	if ((r = rk_pread_full(f->fd, buf, n, off))) {
		rk_err_set(err, (int)r, "read: %s",
			   r == -EIO ? "the cache file is short (truncated under the mount)"
				     : strerror((int)-r));
		return blob_failed(f, off, (int)r, err);
	}
	return (ssize_t)n;
}

static ssize_t fd_extents(struct rk_file *f, uint64_t off, size_t n, struct rk_extent *ext,
			  size_t max)
{
	struct rk_err err = RK_ERR_INIT; /* the log line needs the cause */
	ssize_t k;

	(void)max;
	if (staged_wait(f, off, n))
		return -EIO;
	ext[0] = (struct rk_extent){f->fd, 0, off, NULL, n};
	if ((f->blob[0] && (k = rk_blob_recheck(f->v->cache, f->blob, f->size, f->fd, &err))) ||
	    (k = rk_extents_check(ext, 1, &err)))
		return blob_failed(f, off, (int)k, &err);
	return 1;
}

static void fd_close(struct rk_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	rk_frontier_put(f->fr);
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
			vfs_ahead_push(v->ahead, s->data, s->size, 0, 0, VFS_AHEAD_FILE);
	}
	pthread_mutex_unlock(&v->ahead_lock);
}

static int blob_take(struct rk_file *f, struct node *n)
{
	memcpy(f->id, n->data, RK_SHA256_HEX);
	read_ahead(f->v, n->parent);
	return 0;
}

static int blob_open(struct rk_file *f, struct node *n, struct rk_err *err)
{
	int rc = rk_blob_open(f->v->cache, f->id, f->size, &f->fd, err);

	if (!rc) /* the cache's blob (what a refill gives is made just now) */
		memcpy(f->blob, f->id, RK_SHA256_HEX);
	if ((rc == -ENOENT || rc == -EBADMSG) && f->refill) {
		rk_err_clear(err);
		rc = artifact_refill(f->v, f->refill, f->refills, f->id, f->size, &f->fd, err);
	}
	if (rc) {
		rk_err_log("'%s': %s", n->name, rk_err_str(err, rc));
		rc = -EIO;
	}
	return rc;
}

static const struct src_ops blob_ops = {
	.take = blob_take,
	.open = blob_open,
	.pread = fd_pread,
	.extents = fd_extents,
	.close = fd_close,
};

static int staged_take(struct rk_file *f, struct node *n)
{
	if ((f->fd = fcntl(n->fd, F_DUPFD_CLOEXEC, 0)) < 0)
		return -errno;
	f->fr = rk_frontier_get(n->fr);
	f->artifact = n->artifact;
	return 0;
}

static const struct src_ops staged_ops = {
	.take = staged_take,
	.pread = fd_pread,
	.extents = fd_extents,
	.close = fd_close,
};

/* ---- SRC_STORE: a store object (artifacts/), passed through ---- */

static int store_open(struct rk_file *f, struct node *n, struct rk_err *err)
{
	int rc = rk_store_object_open(f->v->store, n->data, &f->obj, err);

	if (!rc)
		f->fd = rk_object_fd(f->obj);
	/* EBADMSG: the server's size is not the listed one (http.h) */
	else if (rc == -ETIMEDOUT || rc == -EBADMSG) {
		rk_err_log("'%s': %s", n->name, rk_err_str(err, rc));
		rc = -EIO;
	}
	return rc;
}

static ssize_t store_pread(struct rk_file *f, char *buf, size_t n, uint64_t off, struct rk_err *err)
{
	ssize_t r;

	if (f->fd >= 0)
		return fd_pread(f, buf, n, off, err);
	r = rk_object_pread(f->obj, buf, n, off, err);
	if (r < 0 && r != -ENOMEM && r != -EIO) {
		rk_err_log("read: %s", rk_err_str(err, (int)r));
		r = -EIO; /* the network gave up, or the object changed */
	}
	return r;
}

static ssize_t store_extents(struct rk_file *f, uint64_t off, size_t n, struct rk_extent *ext,
			     size_t max)
{
	if (f->fd < 0) /* a remote object: read with a copy */
		return -E2BIG;
	return fd_extents(f, off, n, ext, max);
}

static void store_close(struct rk_file *f)
{
	if (f->obj)
		rk_object_close(f->obj); /* owns fd */
}

static const struct src_ops store_ops = {
	.open = store_open,
	.pread = store_pread,
	.extents = store_extents,
	.close = store_close,
};

/* ---- SRC_COMPOSITE: pieces of blobs, literal bytes and zeros (rk/composite.h) ---- */

static int composite_take(struct rk_file *f, struct node *n)
{
	f->composite = n->composite; /* immutable once published */
	f->read_logged = &n->read_logged;
	rk_blob_set_init(&f->blobs);
	return 0;
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

/* Read from a synthesized file: literal bytes, zeros and blob ranges. */
static ssize_t composite_pread(struct rk_file *f, char *buf, size_t n, uint64_t off,
			       struct rk_err *err)
{
	struct file_read r = {f, err};
	ssize_t got;

	vfs_ahead_pieces(f->v->ahead, f->composite, &f->ahead, off, n);
	got = rk_composite_pread(f->composite, file_source_read, &r, buf, n, off);

	return got < 0 ? composite_failed(f, off, (int)got, err) : got;
}

static ssize_t composite_extents(struct rk_file *f, uint64_t off, size_t n, struct rk_extent *ext,
				 size_t max)
{
	struct rk_err err = RK_ERR_INIT; /* the log line needs the cause */
	ssize_t k;

	vfs_ahead_pieces(f->v->ahead, f->composite, &f->ahead, off, n);
	k = rk_composite_extents(&f->blobs, f->v->cache, f->composite, off, n, ext, max, &err);
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

static void composite_close(struct rk_file *f)
{
	rk_blob_set_release(&f->blobs);
}

static const struct src_ops composite_ops = {
	.take = composite_take,
	.pread = composite_pread,
	.extents = composite_extents,
	.close = composite_close,
};

/* ---- SRC_LATER: a composite made on first open (or first stat) ---- */

/* Make a SRC_LATER file (once; a failure is logged and the next call tries again). Its
 * size, when known before, must not change: a wrong size is never reported. */
static int later_ready(struct rk_vfs *v, struct node *n, int open, struct rk_err *err)
{
	struct rk_composite *c = NULL;
	int rc = 0, src;

	if (!open && n->size_known)
		return 0;
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

/* Once made it is SRC_COMPOSITE: an open never takes this table's other operations. */
static const struct src_ops later_ops = {
	.ready = later_ready,
	.open = none_open,
	.pread = none_pread,
	.extents = none_extents,
};

/* ---- SRC_OPS: a kind a service supplies (struct vfs_file_ops, engine/node.h) ---- */

/* The size once the provider tells it (the first stat pays; a wrong size is never
 * reported). */
static int ops_ready(struct rk_vfs *v, struct node *n, int open, struct rk_err *err)
{
	uint64_t size = 0;
	char where[1024];
	int known, rc;

	(void)open;
	pthread_rwlock_rdlock(&v->tree);
	known = n->size_known;
	pthread_rwlock_unlock(&v->tree);
	if (known || !n->fops->ready)
		return 0;
	node_path(v, n, where, sizeof(where));
	if ((rc = n->fops->ready(v, n->fops_ctx, where, &size, err)))
		return rc;
	pthread_rwlock_wrlock(&v->tree);
	n->size = size;
	n->size_known = 1;
	pthread_rwlock_unlock(&v->tree);
	return 0;
}

static int ops_take(struct rk_file *f, struct node *n)
{
	f->fops = n->fops;
	f->fctx = n->fops_ctx;
	return 0;
}

static int ops_open(struct rk_file *f, struct node *n, struct rk_err *err)
{
	(void)n;
	return f->fops->open(f->v, f->fctx, &f->fh, err);
}

static ssize_t ops_pread(struct rk_file *f, char *buf, size_t n, uint64_t off, struct rk_err *err)
{
	return f->fops->pread(f->fh, buf, n, off, err);
}

static ssize_t ops_extents(struct rk_file *f, uint64_t off, size_t n, struct rk_extent *ext,
			   size_t max)
{
	return f->fops->extents ? f->fops->extents(f->fh, off, n, ext, max) : -E2BIG;
}

static void ops_close(struct rk_file *f)
{
	if (f->fh)
		f->fops->close(f->fh);
}

static const struct src_ops ops_ops = {
	.ready = ops_ready,
	.take = ops_take,
	.open = ops_open,
	.pread = ops_pread,
	.extents = ops_extents,
	.close = ops_close,
};

/* ---- dispatch ---- */

static const struct src_ops *const src_ops[] = {
	[SRC_NONE] = &none_ops,	  [SRC_BYTES] = &bytes_ops,   [SRC_BLOB] = &blob_ops,
	[SRC_STORE] = &store_ops, [SRC_STAGED] = &staged_ops, [SRC_COMPOSITE] = &composite_ops,
	[SRC_LATER] = &later_ops, [SRC_OPS] = &ops_ops,
};

/* n's kind's table. v->tree held (n->src changes: staged to blob, later to composite). */
static const struct src_ops *ops_of(const struct node *n)
{
	return src_ops[n->src];
}

int ensure_ready(struct rk_vfs *v, struct node *n, int open, struct rk_err *err)
{
	struct rk_err local = RK_ERR_INIT; /* the log line needs the cause */
	const struct src_ops *ops;

	if (!err)
		err = &local;
	pthread_rwlock_rdlock(&v->tree);
	ops = ops_of(n);
	pthread_rwlock_unlock(&v->tree);
	return ops->ready ? ops->ready(v, n, open, err) : 0;
}

int node_pending(const struct node *n)
{
	return (n->src == SRC_LATER || n->src == SRC_OPS) && !n->size_known;
}

/* rk_vfs_open_file; v->life held. */
static int open_file(struct rk_vfs *v, uint64_t ino, struct rk_file **out, struct rk_err *err)
{
	struct rk_err local = RK_ERR_INIT; /* log lines need the cause */

	struct rk_file *f;
	struct node *n;
	struct artifact *refill = NULL;
	unsigned refills = 0;
	int rc = 0, state, later = 0;
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
		later = ops_of(n)->ready != NULL;
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

		refill = a;
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
	f->refill = refill;
	f->refills = refills;
	pthread_rwlock_rdlock(&v->tree);
	f->ops = ops_of(n);
	f->size = n->size;
	rc = f->ops->take ? f->ops->take(f, n) : 0;
	if (!rc && (f->run = vfs_node_run(n))) /* the run is not dropped while it is open */
		node_ref(v, n, 1, 1);
	pthread_rwlock_unlock(&v->tree);
	if (rc) {
		free(f);
		return rc;
	}
	if (f->ops->open && (rc = f->ops->open(f, n, err))) {
		rk_file_close(f);
		return rc;
	}
	*out = f;
	return 0;
}

int rk_vfs_open_file(struct rk_vfs *v, uint64_t ino, struct rk_file **out, struct rk_err *err)
{
	int rc;

	pthread_rwlock_rdlock(&v->life);
	rc = open_file(v, ino, out, err);
	pthread_rwlock_unlock(&v->life);
	return rc;
}

uint64_t rk_file_size(const struct rk_file *f)
{
	return f->size;
}

ssize_t rk_file_extents(struct rk_file *f, uint64_t off, size_t n, struct rk_extent *ext,
			size_t max)
{
	if (off >= f->size)
		return 0;
	n = (size_t)RK_MIN((uint64_t)n, f->size - off);
	if (!max)
		return -E2BIG;
	return f->ops->extents(f, off, n, ext, max);
}

int rk_file_backing(const struct rk_file *f)
{
	struct stat st;

	if (f->ops == &staged_ops)
		return -EAGAIN; /* still a stream behind its ingest: a blob once published */
	if ((f->ops != &blob_ops && f->ops != &store_ops) || f->fd < 0 || !f->size)
		return -ENOTSUP;
	/* the descriptor holds exactly the file (a blob truncated under the mount does not) */
	if (fstat(f->fd, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size != f->size)
		return -ENOTSUP;
	return f->fd;
}

ssize_t rk_file_pread(struct rk_file *f, void *buf, size_t n, uint64_t off, struct rk_err *err)
{
	struct rk_err local; /* log lines need the cause */

	if (!err) {
		local.code = 0;
		local.msg[0] = '\0';
		err = &local;
	}
	if (off >= f->size)
		return 0;
	n = (size_t)RK_MIN((uint64_t)n, f->size - off);
	return f->ops->pread(f, buf, n, off, err);
}

void rk_file_close(struct rk_file *f)
{
	if (!f)
		return;
	if (f->ops->close)
		f->ops->close(f);
	if (f->run && f->kept)
		f->run->kept--;
	if (f->run)
		f->run->opens--; /* (after close: the run's nodes may go from here on) */
	free(f);
}

void rk_file_kept(struct rk_file *f)
{
	if (f->run && !f->kept) {
		f->kept = 1;
		f->run->kept++;
	}
}
