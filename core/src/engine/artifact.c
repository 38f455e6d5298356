/* artifact.c: the life cycle of an artifact: its ingest thread (decompress into the
 * cache, publish members into its browse tree as they are written), waiting for it,
 * its state for readers, and refilling its blobs after they went missing. The locks:
 * vfs.c; docs/internals/vfs.md. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk/ingest.h"
#include "rk/log.h"

#include "engine/vfs_int.h"
#include "engine/engine.h"

size_t vfs_owning_prefix(const struct artifact *a, const char *path)
{
	for (size_t i = 0; i < a->nprefixes; i++) {
		size_t n = strlen(a->prefixes[i]);

		if (!strncmp(path, a->prefixes[i], n) && path[n] == '/')
			return i;
	}
	return a->nprefixes;
}

/* ---- artifacts ---- */

/* "dir/name", or "name" when dir is "": malloc'd. */
char *join_path(const char *dir, const char *name)
{
	size_t len = strlen(dir) + strlen(name) + 2;
	char *p = malloc(len);

	if (p)
		snprintf(p, len, "%s%s%s", dir, dir[0] ? "/" : "", name);
	return p;
}

static void store_path(const struct run *r, const char *file, struct rk_buf *b, int *rc)
{
	*rc = rk_buf_addf(b, "%s%s%s", r->cat->path, r->cat->path[0] ? "/" : "", file);
}

/* Insert one member below a->root; staged >= 0 publishes a regular file whose blob is
 * not named yet (maybe not written yet: fr says how far), readable through a dup of
 * staged. Caller holds v->tree for writing. */
static int publish_locked(struct rk_vfs *v, struct artifact *a, const struct rk_member *m,
			  int staged, struct rk_frontier *fr)
{
	char path[RK_INDEX_MAX_PATH + 1], *p = path, *slash;
	struct node *dir = a->root, *n;
	uint32_t fmt;
	int was_dir;

	snprintf(path, sizeof(path), "%s", m->path);
	while ((slash = strchr(p, '/'))) {
		*slash = '\0';
		n = vfs_dent_find(dir, p);
		if (!n && !(n = served_add(v, dir, p, S_IFDIR | 0755, m->mtime)))
			return -ENOMEM;
		if (!S_ISDIR(n->mode))
			return 0; /* below a non-directory: refused by ingest.c, as by tar -x */
		dir = n;
		p = slash + 1;
	}
	/* tar -x's rules (ingest.c applies them to the index): a member replaces what has
	 * its name, except a non-directory a directory with something in it. (Streaming,
	 * a staged file may come before the members the committer has yet to publish; the
	 * committer's publish of every member in archive order settles the tree.) */
	n = vfs_dent_find(dir, p);
	if (n && S_ISDIR(n->mode) && m->type != RK_MEMBER_DIR && n->nents)
		return 0;
	if (m->type == RK_MEMBER_HARDLINK) {
		struct node *t = vfs_find(a->root, m->link);

		if (!t || !S_ISREG(t->mode) || t == n)
			return 0;
		if (n) {
			n->nlink--; /* unlisted here; stays in the inode table */
			vfs_dent_set(dir, p, t);
		} else if (vfs_dent_add(dir, p, t)) {
			return -ENOMEM;
		}
		t->nlink++;
		return 0;
	}
	fmt = m->type == RK_MEMBER_DIR ? S_IFDIR : m->type == RK_MEMBER_SYMLINK ? S_IFLNK : S_IFREG;
	if (n && n->nlink > 1 && !S_ISDIR(n->mode)) {
		/* one name of a hardlinked file: this name gets a node of its own */
		struct node *nn = served_new(v, dir, p, fmt, m->mtime);

		if (!nn)
			return -ENOMEM;
		n->nlink--;
		vfs_dent_set(dir, p, nn);
		n = nn;
	}
	if (!n && !(n = served_add(v, dir, p, fmt, m->mtime)))
		return -ENOMEM;
	was_dir = S_ISDIR(n->mode);
	n->mode = fmt | (fmt == S_IFLNK ? 0777 : m->mode);
	n->mtime = m->mtime;
	if (fmt == S_IFDIR && was_dir)
		return 0;
	free(n->data);
	n->data = NULL;
	if (n->fd >= 0)
		close(n->fd);
	n->fd = -1;
	rk_frontier_put(n->fr);
	n->fr = NULL;
	n->size = fmt == S_IFDIR ? 0 : m->size;
	n->src = SRC_NONE;
	if (fmt == S_IFDIR) {
		/* a directory replaces a file */
	} else if (staged >= 0) {
		if ((n->fd = fcntl(staged, F_DUPFD_CLOEXEC, 0)) < 0)
			return -errno;
		n->fr = rk_frontier_get(fr);
		n->src = SRC_STAGED;
	} else if (fmt == S_IFLNK) {
		if (!(n->data = strdup(m->link)))
			return -ENOMEM;
	} else if (m->blob[0]) {
		n->src = SRC_BLOB;
		if (!(n->data = strdup(m->blob)))
			return -ENOMEM;
	}
	return 0;
}

static void bump(struct rk_vfs *v, struct artifact *a)
{
	pthread_mutex_lock(&v->wait_lock);
	a->gen++;
	pthread_cond_broadcast(&v->wait_cond);
	pthread_mutex_unlock(&v->wait_lock);
}

static int publish_cb(void *ctx, const struct rk_index *idx, size_t pos)
{
	struct artifact *a = ctx;
	int rc;

	pthread_rwlock_wrlock(&a->v->tree);
	rc = publish_locked(a->v, a, &idx->v[pos], -1, NULL);
	pthread_rwlock_unlock(&a->v->tree);
	bump(a->v, a);
	return rc;
}

static int staged_cb(void *ctx, const struct rk_member *m, int fd, struct rk_frontier *fr)
{
	struct artifact *a = ctx;
	int rc;

	pthread_rwlock_wrlock(&a->v->tree);
	rc = publish_locked(a->v, a, m, fd, fr);
	pthread_rwlock_unlock(&a->v->tree);
	bump(a->v, a);
	return rc;
}

/* The cache key of an archive and, from its sidecar, the expected sha256. */
static int artifact_key(struct rk_vfs *v, struct artifact *a, char key[80],
			char expect[RK_SHA256_HEX], struct rk_err *err)
{
	struct rk_buf b = RK_BUF_INIT;
	char hex[RK_SHA256_HEX];
	int rc = 0;

	expect[0] = '\0';
	if (a->art->sidecar) {
		char *data = NULL;
		size_t len, n;

		store_path(a->run, a->art->sidecar, &b, &rc);
		if (!rc)
			rc = rk_store_read_small(v->store, b.buf, 4096, &data, &len, err);
		rk_buf_release(&b);
		if (rc)
			return rc;
		n = strcspn(data, " \t\r\n");
		for (size_t i = 0; i < n; i++)
			if (data[i] >= 'A' && data[i] <= 'F')
				data[i] = (char)(data[i] - 'A' + 'a');
		if (n != 64 || (data[64] = '\0', !rk_is_sha256_hex(data))) {
			free(data);
			return rk_err_set(err, -EBADMSG, "'%s': malformed sha256 sidecar",
					  a->art->sidecar);
		}
		memcpy(expect, data, RK_SHA256_HEX);
		free(data);
		snprintf(key, 80, "s-%s", expect);
		return 0;
	}
	if (rk_buf_add(&b, rk_store_id(v->store), strlen(rk_store_id(v->store)) + 1) ||
	    rk_buf_addf(&b, "%s/%s", a->run->cat->path, a->art->file) ||
	    rk_buf_addf(&b, "%c%llu%c%lld", 0, (unsigned long long)a->art->size, 0,
			(long long)a->art->mtime_ns)) {
		rk_buf_release(&b);
		return -ENOMEM;
	}
	rc = rk_sha256_buf(b.buf, b.len, hex);
	rk_buf_release(&b);
	if (!rc)
		snprintf(key, 80, "i-%s", hex);
	return rc;
}

/* Move the archive's prefixes (artifact_manifest.txt) from idx to a, for flattening. */
static void keep_prefixes(struct artifact *a, struct rk_index *idx)
{
	a->prefixes = idx->prefixes;
	a->nprefixes = idx->nprefixes;
	idx->prefixes = NULL;
	idx->nprefixes = 0;
}

/* A file member with bytes and no blob: one the cache could not hold (ingest.c). */
static int refused_member(const struct rk_member *m)
{
	return (m->type == RK_MEMBER_FILE || m->type == RK_MEMBER_HARDLINK) && m->size &&
	       !m->blob[0];
}

/* Publish a cached index. -ENOENT when there is none (or it was corrupt and removed). */
static int artifact_from_index(struct rk_vfs *v, struct artifact *a, const char *key,
			       struct rk_err *err)
{
	struct rk_index idx = {0};
	char rel[128], *data;
	size_t len;
	int rc;

	snprintf(rel, sizeof(rel), "index/%s.rkix", key);
	rc = rk_cache_get_file(v->cache, rel, 1u << 30, &data, &len, err);
	if (rc)
		return rc;
	rc = rk_index_parse(data, len, &idx, err);
	free(data);
	if (rc) {
		rk_warn("cache: '%s': %s; re-ingesting", rel, rk_err_str(err, rc));
		rk_cache_remove_file(v->cache, rel);
		rk_err_clear(err);
		return -ENOENT;
	}
	/* a member the cache could not hold then (no blob), which it can now: ingest again */
	for (size_t i = 0; i < idx.n; i++)
		if (refused_member(&idx.v[i]) &&
		    (!rk_cache_limit(v->cache) || idx.v[i].size <= rk_cache_limit(v->cache))) {
			rk_index_release(&idx);
			return -ENOENT;
		}
	pthread_rwlock_wrlock(&v->tree);
	for (size_t i = 0; !rc && i < idx.n; i++)
		rc = publish_locked(v, a, &idx.v[i], -1, NULL);
	pthread_rwlock_unlock(&v->tree);
	keep_prefixes(a, &idx);
	rk_index_release(&idx);
	v->n_index_loads++;
	return rc;
}

/* Stream a's archive through rk_ingest with these callbacks (ctx NULL: a itself). */
static int artifact_ingest(struct rk_vfs *v, struct artifact *a, const char *expect,
			   rk_ingest_member_fn on_member, rk_ingest_staged_fn on_staged, void *ctx,
			   struct rk_index *idx, struct rk_err *err)
{
	struct rk_ingest_opts o = {
		.name = a->art->file,
		.expect_sha256 = expect[0] ? expect : NULL,
		.on_member = on_member,
		.on_staged = on_staged,
		.ctx = ctx ? ctx : a,
		.progress = &a->progress,
		.cancel = &v->cancel,
		.read_all = ctx ? NULL : &a->read_all,
	};
	struct rk_buf path = RK_BUF_INIT;
	struct rk_object *obj;
	int rc;

	if (!ctx)
		a->read_all = 0;

	store_path(a->run, a->art->file, &path, &rc);
	if (!rc)
		rc = rk_store_object_open(v->store, path.buf, &obj, err);
	rk_buf_release(&path);
	if (rc)
		return rc;
	rc = rk_ingest(v->cache, obj, &o, idx, err);
	rk_object_close(obj);
	v->n_ingests++;
	return rc;
}

static int artifact_load(struct rk_vfs *v, struct artifact *a, struct rk_err *err)
{
	char key[80], expect[RK_SHA256_HEX], rel[128];
	struct rk_index idx = {0};
	struct rk_buf out = RK_BUF_INIT;
	int rc, lock;

	if ((rc = artifact_key(v, a, key, expect, err)))
		return rc;
	rc = artifact_from_index(v, a, key, err);
	if (rc != -ENOENT)
		return rc;
	if ((rc = rk_cache_lock(v->cache, key, &lock, err)))
		return rc;
	rc = artifact_from_index(v, a, key, err); /* another process may have just done it */
	if (rc == -ENOENT) {
		rc = artifact_ingest(v, a, expect, publish_cb, staged_cb, NULL, &idx, err);
		/* damaged: what was read stays, with the manifest's prefixes, so that dist/
		 * can list the artifact's files (each fails) (flatten.c) */
		if (rc && !rk_err_transient(rc) && !a->prefixes)
			keep_prefixes(a, &idx);
		if (!rc && !(rc = rk_index_serialize(&idx, &out))) {
			snprintf(rel, sizeof(rel), "index/%s.rkix", key);
			rc = rk_cache_put_file(v->cache, rel, out.buf, out.len, err);
		}
		if (!rc) /* after serializing: the index on disk needs them too */
			keep_prefixes(a, &idx);
		rk_buf_release(&out);
		rk_index_release(&idx);
	}
	rk_cache_unlock(lock);
	return rc;
}

static void *artifact_thread(void *p)
{
	struct artifact *a = p;
	struct rk_vfs *v = a->v;
	struct rk_err err = RK_ERR_INIT;
	int rc = -ECANCELED;

	v->n_waiting++;
	while (sem_wait(&v->jobs) && errno == EINTR)
		;
	v->n_waiting--;
	v->n_running++;
	if (!v->cancel)
		rc = artifact_load(v, a, &err);
	v->n_running--;
	sem_post(&v->jobs);
	if (rc && rc != -ECANCELED) {
		if (rk_err_transient(rc))
			v->n_transient++;
		else
			v->n_failures++;
		snprintf(a->why, sizeof(a->why), "%s", rk_err_str(&err, rc));
		rk_err_log("artifact '%s' of run '%s' is unusable: %s", a->art->file,
			   a->run->cat->name, a->why);
	}
	pthread_mutex_lock(&v->wait_lock);
	a->state = rc ? ART_FAILED : ART_DONE;
	a->rc = rc;
	a->transient = rk_err_transient(rc);
	a->gen++;
	v->active--;
	pthread_cond_broadcast(&v->wait_cond);
	pthread_mutex_unlock(&v->wait_lock);
	return NULL;
}

/* Start loading a's contents unless it has started. */
int vfs_artifact_start(struct rk_vfs *v, struct artifact *a)
{
	int rc = 0;

	pthread_mutex_lock(&v->wait_lock);
	if (a->state == ART_IDLE || (a->state == ART_FAILED && a->transient)) {
		if (a->started) {
			pthread_join(a->thread, NULL); /* it has finished: state is FAILED */
			a->started = 0;
		}
		a->transient = 0;
		a->state = ART_RUNNING;
		v->active++;
		rc = -pthread_create(&a->thread, NULL, artifact_thread, a);
		if (rc) {
			a->state = ART_IDLE;
			v->active--;
		} else {
			a->started = 1;
		}
	}
	pthread_mutex_unlock(&v->wait_lock);
	return rc;
}

int vfs_artifacts_wait(struct rk_vfs *v, struct artifact **as, size_t n, struct rk_err *err)
{
	int rc = 0, busy;

	for (size_t i = 0; i < n; i++)
		if ((rc = vfs_artifact_start(v, as[i])))
			return rk_err_set(err, rc, "cannot start ingest: %s", strerror(-rc));
	pthread_mutex_lock(&v->wait_lock);
	do {
		busy = 0;
		for (size_t i = 0; i < n; i++)
			busy |= as[i]->state == ART_RUNNING;
		if (busy)
			pthread_cond_wait(&v->wait_cond, &v->wait_lock);
	} while (busy);
	/* a transient failure keeps its code, so that what the caller makes of the artifact
	 * fails transiently too (and is made again on the next access) */
	for (size_t i = 0; i < n && !rc; i++)
		if (as[i]->state == ART_FAILED)
			rc = rk_err_set(err, as[i]->transient ? as[i]->rc : -EIO,
					"artifact '%s' is unusable: %s", as[i]->art->file,
					as[i]->why[0] ? as[i]->why : "cancelled");
	pthread_mutex_unlock(&v->wait_lock);
	return rc;
}

int vfs_artifact_damaged(struct rk_vfs *v, struct artifact *a, int *read_all, struct rk_err *err)
{
	int rc = 0;

	pthread_mutex_lock(&v->wait_lock);
	if (a->state == ART_FAILED) {
		rc = a->transient ? a->rc : -EIO;
		*read_all = a->read_all;
		rk_err_set(err, rc, "%s", a->why[0] ? a->why : "cancelled");
	}
	pthread_mutex_unlock(&v->wait_lock);
	return rc;
}

/* rk_origin.reopen of an artifact's blob_origin. */
static int artifact_reopen(struct rk_origin *o, const char *id, uint64_t size, int *fd,
			   struct rk_err *err)
{
	struct artifact *a =
		(struct artifact *)((char *)o - offsetof(struct artifact, blob_origin));

	return vfs_artifact_refill(a->v, a, id, size, fd, err);
}

struct refill {
	struct rk_vfs *v;
	const char *want; /* the blob a reader is waiting for */
	uint64_t size;
	int fd; /* opened right after its commit, before later commits can evict it */
};

static int refill_cb(void *ctx, const struct rk_index *idx, size_t pos)
{
	struct refill *r = ctx;

	if (r->fd < 0 && !strcmp(idx->v[pos].blob, r->want))
		rk_blob_open(r->v->cache, r->want, r->size, &r->fd, NULL);
	return 0;
}

/* Re-create an archive's blobs after one (want) went missing or failed its hash, and
 * open want. seen: a->refills when the caller found it missing; if another thread has
 * refilled since, just open it. */
int artifact_refill(struct rk_vfs *v, struct artifact *a, unsigned seen, const char *want,
		    uint64_t size, int *fd, struct rk_err *err)
{
	struct refill r = {v, want, size, -1};
	char key[80], expect[RK_SHA256_HEX];
	struct rk_index idx = {0};
	int rc = 0;

	if (a->source)
		a = a->source; /* a split output: its files come from the artifact */
	pthread_mutex_lock(&a->refill);
	if (a->refills == seen) {
		rk_info("'%s': cached contents incomplete; decompressing again", a->art->file);
		if (a->refill_fn) {
			rc = a->refill_fn(v, a, err);
		} else {
			rc = artifact_key(v, a, key, expect, err);
			if (!rc)
				rc = artifact_ingest(v, a, expect, refill_cb, NULL, &r, &idx, err);
		}
		rk_index_release(&idx);
		a->refills++;
	}
	pthread_mutex_unlock(&a->refill);
	if (!rc && r.fd < 0)
		rc = rk_blob_open(v->cache, want, size, &r.fd, err);
	if (rc == -ENOENT && a->derived_restore) /* not one of the archive's files: one a
						  * service derived from them? */
		rc = a->derived_restore(v, a, want, size, &r.fd, err);
	if (rc && r.fd >= 0)
		close(r.fd);
	else if (!rc)
		*fd = r.fd;
	return rc;
}

int vfs_artifact_refill(struct rk_vfs *v, struct artifact *a, const char *want, uint64_t size,
			int *fd, struct rk_err *err)
{
	unsigned seen;

	if (a->source)
		a = a->source;
	pthread_mutex_lock(&a->refill);
	seen = a->refills;
	pthread_mutex_unlock(&a->refill);
	/* someone may have refilled between the caller's miss and now: try first */
	if (!rk_blob_open(v->cache, want, size, fd, NULL))
		return 0;
	return artifact_refill(v, a, seen, want, size, fd, err);
}

void vfs_artifact_init(struct artifact *a)
{
	a->blob_origin.reopen = artifact_reopen;
	pthread_mutex_init(&a->refill, NULL);
	pthread_mutex_init(&a->derived_lock, NULL);
}

void vfs_artifact_release(struct artifact *a)
{
	for (size_t j = 0; j < a->nprefixes; j++)
		free(a->prefixes[j]);
	free(a->prefixes);
	a->prefixes = NULL;
	a->nprefixes = 0;
	if (a->derived && a->derived_free)
		a->derived_free(a->derived);
	a->derived = NULL;
	pthread_mutex_destroy(&a->refill);
	pthread_mutex_destroy(&a->derived_lock);
}

int artifact_transient(struct rk_vfs *v, struct artifact *a)
{
	int t;

	pthread_mutex_lock(&v->wait_lock);
	t = a->state == ART_FAILED && a->transient;
	pthread_mutex_unlock(&v->wait_lock);
	return t;
}

/* Snapshot of an artifact's state for waiters. */
void artifact_state(struct rk_vfs *v, struct artifact *a, int *state, uint64_t *gen)
{
	pthread_mutex_lock(&v->wait_lock);
	*state = a->state;
	*gen = a->gen;
	pthread_mutex_unlock(&v->wait_lock);
}

void artifact_wait(struct rk_vfs *v, struct artifact *a, uint64_t gen)
{
	pthread_mutex_lock(&v->wait_lock);
	while (a->state == ART_RUNNING && a->gen == gen)
		pthread_cond_wait(&v->wait_cond, &v->wait_lock);
	pthread_mutex_unlock(&v->wait_lock);
}

int artifact_eio(struct artifact *a, struct rk_err *err)
{
	return rk_err_set(err, -EIO, "artifact '%s' is unusable: %s", a->art->file,
			  a->why[0] ? a->why : "cancelled");
}
