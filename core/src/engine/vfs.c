/* vfs.c: the engine: the served inode tree (and the grafting of private trees views
 * build), lazy population, the artifacts' life cycle (ingest threads, publish, wait,
 * refill), file content, runs. It names no view: it walks vfs_views[]
 * (views/view_registry.c). docs/internals/vfs.md explains it.
 *
 * Locks, in the order they may be taken (all of them: docs/internals/vfs.md):
 *   a->derived_lock    one computation of what a service derives from an artifact
 *   rk_tarz lock       one computation of a compressed tarball's pieces (tar_compress.c)
 *   rk_file lock       one open file's cached descriptors (tarz: its rk_blob_cursor;
 *                      composite: its rk_blob_set's lock)
 *   a->refill          one re-ingest of an artifact at a time
 *   v->tree (rwlock)   protects: v->inodes, every served node's fields below "mutable"
 *   v->refresh_lock    protects: listed_ms of populated root/org/run directories; held
 *                      across the store listing (one listing again at a time)
 *   v->wait_lock       protects: node pop_state/pop_rc, artifact state/rc/gen, v->active,
 *                      v->runs; v->wait_cond is broadcast on every change
 *   v->ahead_lock      protects: directories' read-ahead counters (taken under v->tree)
 * v->tree and v->wait_lock are never held across store or cache I/O, nor together
 * (populate functions run with none held; vfs_graft takes v->tree for writing to serve
 * a private tree). The locks above them serialize work on one object and are held
 * across its I/O: readers of other files never wait for them. Views and services never
 * take v->tree or v->wait_lock. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rk/buf.h"
#include "rk/cache.h"
#include "rk/ingest.h"
#include "rk/log.h"
#include "rk/manifest.h"
#include "rk/nearest.h"
#include "rk/vfs.h"
#include "util/htab.h"

#include "cache/composite_read.h"
#include "cache/tar_compress.h"
#include "engine/readahead.h"
#include "engine/vfs_int.h"

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

/* The mount's README: this head, each view's lines (vfs_views order), this tail. */
static const char readme_head[] =
	"This is a rockfs mount of a TheRock artifact store (read-only).\n"
	"\n"
	"  <run>/                 one CI run, {run_id}-{platform} (under {owner}-{repo}/ for\n"
	"                         runs of other repositories)\n"
	"  <run>/artifacts/       the stored archives (.tar.zst / .tar.xz) and their\n"
	"                         .sha256sum sidecars, passed through unchanged\n"
	"  <run>/browse/<name>/   the contents of one artifact archive, prefixes kept;\n"
	"                         the archive is decompressed once, on first access, into\n"
	"                         the local cache, and files appear as they are written\n";
static const char readme_empty[] =
	"THIS STORE WAS EMPTY WHEN MOUNTED: its directory held no CI run\n"
	"({run_id}-{platform} directories of artifact archives), nor archives of one\n"
	"run. Check the STORE argument of the mount (rockfs(8)); runs published later\n"
	"appear in this directory as they come (-o list_ttl).\n"
	"\n";
static const char readme_tail[] =
	"\n"
	"Nothing is downloaded or decompressed until you read inside browse/.\n"
	"A corrupt archive makes its browse directory fail with EIO (see the daemon log);\n"
	"everything else keeps working. Unmount with: fusermount3 -u <mountpoint>\n"
	"More: man rockfs (the daemon), man rockpack (the same views without FUSE),\n"
	"and README.md and docs/ in the rockfs source tree.\n";

/* ---- nodes (v->tree held for writing unless noted) ---- */

static uint64_t child_ino(uint64_t parent, const char *name)
{
	uint64_t h = rk_fnv64(RK_FNV_SEED, &parent, sizeof(parent));

	h = rk_fnv64(h, name, strlen(name));
	return h ^ (h >> 29);
}

static struct node *find_ino(struct rk_vfs *v, uint64_t ino)
{
	struct node *n;

	HASH_FIND(hh, v->inodes, &ino, sizeof(ino), n);
	return n;
}

struct node *vfs_dent_find(struct node *dir, const char *name)
{
	struct dent *d;

	HASH_FIND_STR(dir->dents, name, d);
	return d ? d->node : NULL;
}

int vfs_dent_add(struct node *dir, const char *name, struct node *child)
{
	struct dent *d = calloc(1, sizeof(*d));

	if (!d || !(d->name = strdup(name)))
		goto nomem;
	if (dir->nents == dir->cap) {
		size_t ncap = dir->cap ? dir->cap * 2 : 8;
		struct dent **o = realloc(dir->order, ncap * sizeof(*o));

		if (!o)
			goto nomem;
		dir->order = o;
		dir->cap = ncap;
	}
	d->node = child;
	HASH_ADD_KEYPTR(hh, dir->dents, d->name, strlen(d->name), d);
	if (rk_htab_oom())
		goto nomem;
	dir->order[dir->nents++] = d;
	return 0;
nomem:
	if (d)
		free(d->name);
	free(d);
	return -ENOMEM;
}

static void free_node(struct node *n);

static struct node *node_alloc(struct node *dir, const char *name, uint32_t mode, int64_t mtime)
{
	struct node *n = calloc(1, sizeof(*n));

	if (!n || !(n->name = strdup(name))) {
		free(n);
		return NULL;
	}
	n->parent = dir;
	n->mode = mode;
	n->nlink = 1;
	n->fd = -1;
	n->mtime = mtime;
	n->pop_state = PS_DONE;
	if (dir)
		n->artifact = dir->artifact;
	return n;
}

/* A free inode number for name in served directory dir. */
static uint64_t free_ino(struct rk_vfs *v, const struct node *dir, const char *name)
{
	uint64_t ino = child_ino(dir->ino, name);

	if (ino < RK_FIRST_INO)
		ino += RK_FIRST_INO;
	while (find_ino(v, ino))
		ino = ino + 1 >= RK_FIRST_INO ? ino + 1 : RK_FIRST_INO;
	return ino;
}

/* Give n the inode number ino and enter it in the inode table. */
static int node_serve(struct rk_vfs *v, struct node *n, uint64_t ino)
{
	n->ino = ino;
	HASH_ADD(hh, v->inodes, ino, sizeof(n->ino), n);
	if (rk_htab_oom()) {
		n->ino = 0;
		return -ENOMEM;
	}
	v->n_nodes++;
	return 0;
}

/* A new served node for name in served directory dir (NULL: the root), in no listing
 * yet. v->tree held for writing. */
static struct node *served_new(struct rk_vfs *v, struct node *dir, const char *name, uint32_t mode,
			       int64_t mtime)
{
	struct node *n = node_alloc(dir, name, mode, mtime);

	if (n && node_serve(v, n, dir ? free_ino(v, dir, name) : RK_ROOT_INO)) {
		free_node(n);
		return NULL;
	}
	return n;
}

/* The same, listed in dir. */
static struct node *served_add(struct rk_vfs *v, struct node *dir, const char *name, uint32_t mode,
			       int64_t mtime)
{
	struct node *n = served_new(v, dir, name, mode, mtime);

	if (n && dir && vfs_dent_add(dir, name, n))
		return NULL; /* n stays in the inode table and is freed with it */
	return n;
}

static struct node *served_lazy_dir(struct rk_vfs *v, struct node *dir, const char *name,
				    vfs_pop_fn pop, int64_t mtime)
{
	struct node *n = served_add(v, dir, name, S_IFDIR | 0555, mtime);

	if (n && pop) {
		n->pop = pop;
		n->pop_state = PS_TODO;
	}
	return n;
}

/* ---- private trees (views and services build them; no lock) ---- */

struct node *vfs_tree_new(const char *name, uint32_t mode, int64_t mtime)
{
	return node_alloc(NULL, name, mode, mtime);
}

struct node *vfs_node_new(struct node *dir, const char *name, uint32_t mode, int64_t mtime)
{
	if (dir->ino) {
		rk_err_log("internal: '%s' created in served directory '%s'", name, dir->name);
		return NULL;
	}
	return node_alloc(dir, name, mode, mtime);
}

struct node *vfs_node_add(struct node *dir, const char *name, uint32_t mode, int64_t mtime)
{
	struct node *n = vfs_node_new(dir, name, mode, mtime);

	if (n && vfs_dent_add(dir, name, n)) {
		free_node(n);
		return NULL;
	}
	return n;
}

/* Point dir's entry name at child (which must exist). */
void vfs_dent_set(struct node *dir, const char *name, struct node *child)
{
	struct dent *d;

	HASH_FIND_STR(dir->dents, name, d);
	if (d)
		d->node = child;
}

struct node *vfs_dent_del(struct node *dir, const char *name)
{
	struct node *n;
	struct dent *d;
	size_t i;

	HASH_FIND_STR(dir->dents, name, d);
	if (!d)
		return NULL;
	for (i = 0; i < dir->nents && dir->order[i] != d; i++)
		;
	memmove(dir->order + i, dir->order + i + 1, (dir->nents - i - 1) * sizeof(*dir->order));
	dir->nents--;
	HASH_DEL(dir->dents, d);
	n = d->node;
	free(d->name);
	free(d);
	return n;
}

struct node *vfs_lazy_dir(struct node *dir, const char *name, vfs_pop_fn pop, int64_t mtime)
{
	struct node *n = vfs_node_add(dir, name, S_IFDIR | 0555, mtime);

	if (n && pop) {
		n->pop = pop;
		n->pop_state = PS_TODO;
	}
	return n;
}

struct node *vfs_later_file(struct node *dir, const char *name, int64_t mtime, uint64_t size,
			    int (*make)(struct rk_vfs *v, void *ctx, struct rk_composite **out,
					struct rk_err *err),
			    void (*free_ctx)(void *ctx), void *ctx)
{
	struct vfs_later *l = calloc(1, sizeof(*l));
	struct node *n = l ? vfs_node_add(dir, name, S_IFREG | 0444, mtime) : NULL;

	if (!n) {
		free(l);
		if (free_ctx)
			free_ctx(ctx);
		return NULL;
	}
	l->make = make;
	l->free = free_ctx;
	l->ctx = ctx;
	pthread_mutex_init(&l->lock, NULL);
	n->later = l;
	n->src = SRC_LATER;
	n->size_known = size != UINT64_MAX;
	n->size = n->size_known ? size : 0;
	return n;
}

/* Free private node n and the private nodes below it; a file is freed with its last
 * entry (hardlinks), served nodes stay. */
static void tree_free(struct node *n)
{
	for (size_t i = 0; i < n->nents; i++) {
		struct node *c = n->order[i]->node;

		if (!c->ino && (S_ISDIR(c->mode) || --c->nlink == 0))
			tree_free(c);
	}
	free_node(n);
}

void vfs_tree_free(struct node *root)
{
	if (root && !root->ino)
		tree_free(root);
}

/* Serve private node n as name in served directory parent, and everything below it. */
static int serve_tree(struct rk_vfs *v, struct node *n, struct node *parent, const char *name)
{
	int rc;

	if (n->ino)
		return 0; /* served already (a hardlink, or a served subtree) */
	if ((rc = node_serve(v, n, free_ino(v, parent, name))))
		return rc;
	if (!n->parent || !n->parent->ino)
		n->parent = parent;
	for (size_t i = 0; !rc && i < n->nents; i++)
		rc = serve_tree(v, n->order[i]->node, n, n->order[i]->name);
	return rc;
}

int vfs_graft(struct rk_vfs *v, struct node *dir, struct node *root)
{
	int rc = 0;
	size_t i;

	pthread_rwlock_wrlock(&v->tree);
	dir->incomplete = root->incomplete;
	free(dir->why_incomplete);
	dir->why_incomplete = root->why_incomplete;
	root->why_incomplete = NULL;
	for (i = 0; !rc && i < root->nents; i++) {
		struct node *c = root->order[i]->node;

		if (vfs_dent_find(dir, root->order[i]->name))
			rc = -EEXIST;
		else if (!(rc = serve_tree(v, c, dir, root->order[i]->name)))
			rc = vfs_dent_add(dir, root->order[i]->name, c);
	}
	pthread_rwlock_unlock(&v->tree);
	if (rc) /* entries before i are served; the rest stays private and goes */
		i--;
	for (size_t j = 0; j < i; j++)
		root->order[j]->node = NULL;
	for (size_t j = i; j < root->nents; j++) {
		struct node *c = root->order[j]->node;

		if (!c->ino && (S_ISDIR(c->mode) || --c->nlink == 0))
			tree_free(c);
		root->order[j]->node = NULL;
	}
	root->nents = 0;
	free_node(root);
	return rc;
}

int vfs_run_has_artifacts(const struct rk_run *cat)
{
	return cat->narts > 0;
}

struct run *vfs_node_run(const struct node *n)
{
	while (n && !n->run)
		n = n->parent;
	return n ? n->run : NULL;
}

static int pop_root(struct rk_vfs *v, struct node *dir, struct rk_err *err);
static int pop_org(struct rk_vfs *v, struct node *dir, struct rk_err *err);
static int pop_run(struct rk_vfs *v, struct node *dir, struct rk_err *err);

static void fill_attr(const struct node *n, struct rk_attr *a)
{
	a->ino = n->ino;
	a->mode = n->mode;
	a->nlink = S_ISDIR(n->mode) ? 1 : n->nlink; /* 1: "unknown", so find never prunes */
	a->size = n->size;
	a->mtime = n->mtime;
	a->live = (n->pop == pop_root || n->pop == pop_org) && !n->run;
	a->run = n->pop == pop_run && n->parent;
	a->pending =
		(n->src == SRC_TARZ && !n->tarz->ready) || (n->src == SRC_LATER && !n->size_known);
}

static void free_node(struct node *n)
{
	struct dent *d, *tmp;

	HASH_ITER(hh, n->dents, d, tmp) {
		HASH_DEL(n->dents, d);
		free(d->name);
		free(d);
	}
	free(n->order);
	free(n->name);
	free(n->data);
	free(n->why_incomplete);
	if (n->src == SRC_TARZ)
		rk_tarz_free(n->tarz); /* n->composite belongs to the .tar node */
	else
		rk_composite_free(n->composite);
	if (n->later) {
		if (n->later->free)
			n->later->free(n->later->ctx);
		pthread_mutex_destroy(&n->later->lock);
		free(n->later);
	}
	if (n->fd >= 0)
		close(n->fd);
	rk_frontier_put(n->fr);
	free(n->ctx);
	free(n);
}

struct node *vfs_find(struct node *root, const char *path)
{
	char comp[256];
	struct node *n = root;

	while (n && *path) {
		size_t len = strcspn(path, "/");

		if (!len || len >= sizeof(comp))
			return NULL;
		memcpy(comp, path, len);
		comp[len] = '\0';
		n = S_ISDIR(n->mode) ? vfs_dent_find(n, comp) : NULL;
		path += len + (path[len] == '/');
	}
	return n;
}

struct node *vfs_find_dir(struct node *root, const char *path)
{
	struct node *n = vfs_find(root, path);

	return n && S_ISDIR(n->mode) ? n : NULL;
}

struct node *vfs_mkdirs(struct node *root, const char *path, const char **base, int64_t mtime)
{
	struct node *d = root;
	char comp[256];

	for (;;) {
		size_t len = strcspn(path, "/");
		struct node *c;

		if (!path[len]) {
			*base = path;
			return d;
		}
		if (len >= sizeof(comp))
			return NULL;
		memcpy(comp, path, len);
		comp[len] = '\0';
		if (!(c = vfs_dent_find(d, comp)) &&
		    !(c = vfs_node_add(d, comp, S_IFDIR | 0755, mtime)))
			return NULL;
		if (!S_ISDIR(c->mode))
			return NULL;
		d = c;
		path += len + 1;
	}
}

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
static char *join_path(const char *dir, const char *name)
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
static int artifact_refill(struct rk_vfs *v, struct artifact *a, unsigned seen, const char *want,
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

/* ---- population ---- */

/* The README of the mount's root; empty: the store holds no run (the daemon also said so
 * in its log when it mounted). */
static int add_readme(struct rk_vfs *v, struct node *dir, int empty)
{
	struct rk_buf b = RK_BUF_INIT;
	struct node *n;
	int rc = empty ? rk_buf_adds(&b, readme_empty) : 0;

	if (!rc)
		rc = rk_buf_adds(&b, readme_head);
	for (size_t i = 0; !rc && i < vfs_nviews; i++)
		rc = rk_buf_adds(&b, vfs_views[i]->readme);
	if (!rc)
		rc = rk_buf_adds(&b, readme_tail);
	if (rc) {
		rk_buf_release(&b);
		return rc;
	}
	pthread_rwlock_wrlock(&v->tree);
	n = served_add(v, dir, "README", S_IFREG | 0444, v->mount_time);
	if (!n || !(n->data = rk_buf_detach(&b, NULL)))
		rc = -ENOMEM;
	else {
		n->src = SRC_BYTES;
		n->size = strlen(n->data);
	}
	pthread_rwlock_unlock(&v->tree);
	rk_buf_release(&b);
	return rc;
}

static uint64_t now_ms(void);

static int pop_artifact(struct rk_vfs *v, struct node *dir, struct rk_err *err)
{
	(void)err;
	return vfs_artifact_start(v, dir->artifact);
}

static int pop_run(struct rk_vfs *v, struct node *dir, struct rk_err *err)
{
	const char *name =
		dir->ino == RK_ROOT_INO ? strrchr(rk_store_id(v->store), '/') + 1 : dir->name;
	struct node *arts, *browse;
	struct rk_run *cat;
	struct run *r;
	int rc;

	if ((rc = rk_run_load(v->store, dir->ctx ? dir->ctx : "", name, &cat, err)))
		return rc;
	r = calloc(1, sizeof(*r));
	if (!r || !(r->artifacts = calloc(cat->narts + 1, sizeof(*r->artifacts))) ||
	    !(r->vstate = calloc(vfs_nviews + 1, sizeof(*r->vstate)))) {
		if (r)
			free(r->artifacts);
		free(r);
		rk_run_free(cat);
		return -ENOMEM;
	}
	r->cat = cat;
	dir->listed_ms = now_ms();
	pthread_mutex_lock(&v->wait_lock);
	r->next = v->runs;
	v->runs = r;
	v->n_runs++;
	pthread_mutex_unlock(&v->wait_lock);

	pthread_rwlock_wrlock(&v->tree);
	dir->run = r;
	r->dir = dir;
	arts = served_lazy_dir(v, dir, "artifacts", NULL, dir->mtime);
	browse = served_lazy_dir(v, dir, "browse", NULL, dir->mtime);
	rc = arts && browse ? 0 : -ENOMEM;
	for (size_t i = 0; !rc && i < vfs_nviews; i++)
		if (vfs_views[i]->shown(cat) &&
		    !served_lazy_dir(v, dir, vfs_views[i]->name, vfs_views[i]->populate,
				     dir->mtime))
			rc = -ENOMEM;
	for (size_t i = 0; !rc && i < cat->files.n; i++) {
		const struct rk_store_entry *f = &cat->files.v[i];
		struct node *n;

		if (f->is_dir)
			continue;
		n = served_add(v, arts, f->name, S_IFREG | 0444, f->mtime);
		if (!n) {
			rc = -ENOMEM;
			break;
		}
		n->src = SRC_STORE;
		n->size = f->size;
		if (!(n->data = join_path(cat->path, f->name)))
			rc = -ENOMEM;
	}
	for (size_t i = 0; !rc && i < cat->narts; i++) {
		struct artifact *a = &r->artifacts[i];

		a->v = v;
		a->run = r;
		a->art = &cat->arts[i];
		vfs_artifact_init(a);
		a->root = served_lazy_dir(v, browse, cat->arts[i].stem, pop_artifact,
					  cat->arts[i].mtime_ns / 1000000000);
		if (!a->root) {
			rc = -ENOMEM;
			break;
		}
		a->root->mode = S_IFDIR | 0755;
		a->root->artifact = a;
	}
	pthread_rwlock_unlock(&v->tree);
	return rc;
}

static int looks_like_org(const char *name)
{
	return name[0] != '.' && strchr(name, '-') && !rk_run_name_valid(name);
}

static int pop_org(struct rk_vfs *v, struct node *dir, struct rk_err *err);

/* What a directory entry of the store (or of an org) is under the mount: a run, an org
 * (at the top only) or nothing. */
static vfs_pop_fn pop_kind(const struct rk_store_entry *e, int top)
{
	if (!e->is_dir)
		return NULL;
	if (rk_run_name_valid(e->name))
		return pop_run;
	return top && looks_like_org(e->name) ? pop_org : NULL;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The run and org directories of listing l that dir does not have yet, as lazy
 * directories; *added counts them (NULL ok: the first listing). A listing again that
 * adds entries moves dir's mtime on (a second at least): the kernel compares it with
 * the mtime of the listing it cached, and drops that listing when they differ. */
static int add_listed(struct rk_vfs *v, struct node *dir, const char *path, int top,
		      const struct rk_store_list *l, unsigned *added)
{
	int64_t now = time(NULL);
	int rc = 0;

	pthread_rwlock_wrlock(&v->tree);
	for (size_t i = 0; !rc && i < l->n; i++) {
		const char *name = l->v[i].name;
		vfs_pop_fn kind = pop_kind(&l->v[i], top);
		struct node *n;

		if (!kind || vfs_dent_find(dir, name))
			continue;
		n = served_lazy_dir(v, dir, name, kind, l->v[i].mtime);
		if (!n || !(n->ctx = join_path(path, name)))
			rc = -ENOMEM;
		else if (added)
			(*added)++;
	}
	if (added && *added)
		dir->mtime = dir->mtime < now ? now : dir->mtime + 1;
	pthread_rwlock_unlock(&v->tree);
	return rc;
}

static int pop_dirs(struct rk_vfs *v, struct node *dir, const char *path, int top,
		    struct rk_err *err)
{
	struct rk_store_list l;
	int rc = rk_store_list(v->store, path, &l, err);

	if (rc)
		return rc;
	if (top && rk_listing_has_artifacts(&l)) {
		rk_store_list_release(&l);
		if ((rc = add_readme(v, dir, 0)))
			return rc;
		return pop_run(v, dir, err);
	}
	for (size_t i = 0; top && i < l.n; i++)
		if (pop_kind(&l.v[i], top))
			top = 2; /* not empty */
	if (top && (rc = add_readme(v, dir, top == 1))) {
		rk_store_list_release(&l);
		return rc;
	}
	rc = add_listed(v, dir, path, top, &l, NULL);
	rk_store_list_release(&l);
	dir->listed_ms = now_ms();
	return rc;
}

static int pop_org(struct rk_vfs *v, struct node *dir, struct rk_err *err)
{
	return pop_dirs(v, dir, dir->ctx, 0, err);
}

static int pop_root(struct rk_vfs *v, struct node *dir, struct rk_err *err)
{
	return pop_dirs(v, dir, "", 1, err);
}

/* A directory listing runs of the store (its root, {owner}-{repo}/) lists the store again
 * when its listing is older than list_ttl, adding the runs published since (runs are
 * never taken away: an open file or a cwd may be in one). Returns 1 when dir gained
 * entries, else 0; a failure to list is logged and changes nothing. */
static int refresh_listing(struct rk_vfs *v, struct node *dir)
{
	struct rk_err err = RK_ERR_INIT;
	struct rk_store_list l;
	unsigned added = 0;
	int rc, top = !dir->parent;
	const char *path = top ? "" : dir->ctx;

	if (!v->list_ttl_ms || !(dir->pop == pop_root || dir->pop == pop_org))
		return 0;
	pthread_mutex_lock(&v->wait_lock);
	rc = dir->pop_state == PS_DONE && !dir->pop_rc;
	pthread_mutex_unlock(&v->wait_lock);
	if (!rc || dir->run) /* not listed yet (its first populate lists it), or a run */
		return 0;
	pthread_mutex_lock(&v->refresh_lock);
	if (now_ms() - dir->listed_ms < v->list_ttl_ms) {
		pthread_mutex_unlock(&v->refresh_lock);
		return 0;
	}
	rk_store_forget(v->store, path);
	rc = rk_store_list(v->store, path, &l, &err);
	if (!rc) {
		rc = add_listed(v, dir, path, top, &l, &added);
		rk_store_list_release(&l);
	}
	dir->listed_ms = now_ms(); /* a failure too: list_ttl bounds the requests */
	pthread_mutex_unlock(&v->refresh_lock);
	if (rc)
		rk_warn("'%s': listing the store again: %s", path[0] ? path : "/",
			rk_err_str(&err, rc));
	else if (added)
		rk_info("'%s': %u new run%s", path[0] ? path : "/", added, added > 1 ? "s" : "");
	return added > 0;
}

/* Whether the store lost files of run r while it was served: its listing found it gone,
 * or one of its artifacts failed because a file of it was missing (-ENOENT: the run was
 * moved away, or a file deleted). What was made meanwhile (failed artifacts, views built
 * without them) is wrong once the files are back. */
static int run_lost_files(struct rk_vfs *v, const struct run *r)
{
	int lost = r->gone;

	pthread_mutex_lock(&v->wait_lock);
	for (size_t i = 0; !lost && i < r->cat->narts; i++)
		lost = r->artifacts[i].state == ART_FAILED && r->artifacts[i].rc == -ENOENT;
	pthread_mutex_unlock(&v->wait_lock);
	return lost;
}

/* A populated run directory n of dir whose listing is older than list_ttl asks the
 * store whether the run may have changed (a run still being uploaded, or one `rockpack
 * cache refresh` was run for) and, if so, lists it again (a run not populated yet is
 * listed by its populate). When its files differ, or the store had lost some of them
 * (run_lost_files) and has them again, the run is served anew: a new, unpopulated node
 * takes its name (a new inode: its entry's short timeout makes the kernel look the name
 * up again), and the old tree stays for the files and working directories still in
 * it. Returns the node that has the name now. */
static struct node *refresh_run(struct rk_vfs *v, struct node *dir, struct node *n)
{
	struct rk_err err = RK_ERR_INIT;
	struct rk_run *cat = NULL;
	struct node *now;
	struct run *r;
	int rc, lost = 0;

	pthread_rwlock_rdlock(&v->tree);
	r = n->run;
	pthread_rwlock_unlock(&v->tree);
	if (!v->list_ttl_ms || !r || !n->parent)
		return n;
	pthread_mutex_lock(&v->refresh_lock);
	pthread_rwlock_rdlock(&v->tree);
	now = vfs_dent_find(dir, n->name);
	pthread_rwlock_unlock(&v->tree);
	if (now != n || now_ms() - n->listed_ms < v->list_ttl_ms ||
	    !rk_store_run_stale(v->store, r->cat->path)) {
		if (now == n)
			n->listed_ms = now_ms();
		pthread_mutex_unlock(&v->refresh_lock);
		return now ? now : n;
	}
	n->listed_ms = now_ms(); /* a failure too: list_ttl bounds the requests */
	rc = rk_run_load(v->store, r->cat->path, r->cat->name, &cat, &err);
	if (rc == -ENOENT)
		r->gone = 1;
	if (!rc)
		lost = run_lost_files(v, r);
	if (!rc && (lost || !rk_run_same(r->cat, cat))) {
		pthread_rwlock_wrlock(&v->tree);
		now = served_new(v, dir, n->name, S_IFDIR | 0555, n->mtime);
		if (now && (now->ctx = strdup(n->ctx))) {
			now->pop = pop_run;
			now->pop_state = PS_TODO;
			vfs_dent_set(dir, n->name, now);
			dir->mtime++; /* the kernel drops its cached listing of dir */
		} else {
			now = NULL; /* a node made is freed with the inode table */
			rc = -ENOMEM;
		}
		pthread_rwlock_unlock(&v->tree);
		if (now && lost)
			rk_info("run '%s': the store has the files it had lost again; served anew",
				r->cat->path);
		else if (now)
			rk_info("run '%s': its listing changed (%zu artifact%s, was %zu); served "
				"anew",
				r->cat->path, cat->narts, cat->narts == 1 ? "" : "s",
				r->cat->narts);
	}
	pthread_mutex_unlock(&v->refresh_lock);
	rk_run_free(cat);
	if (rc)
		rk_warn("run '%s': listing it again: %s", r->cat->path, rk_err_str(&err, rc));
	return now ? now : n;
}

/* n's path from the mount's root ("RUN/dist/gfx1100"), for log lines. */
static void node_path(struct rk_vfs *v, const struct node *n, char *buf, size_t size)
{
	const struct node *p;
	size_t len = 0, need;

	pthread_rwlock_rdlock(&v->tree);
	for (p = n; p && p->parent; p = p->parent)
		len += strlen(p->name) + (len ? 1 : 0);
	if (len >= size) { /* too deep for buf: the name alone */
		snprintf(buf, size, "%s", n->name);
	} else {
		buf[len] = 0;
		for (p = n; p && p->parent; p = p->parent) {
			need = strlen(p->name);
			len -= need;
			memcpy(buf + len, p->name, need);
			if (len)
				buf[--len] = '/';
		}
	}
	pthread_rwlock_unlock(&v->tree);
}

int vfs_populate(struct rk_vfs *v, struct node *n, struct rk_err *err)
{
	struct rk_err local = RK_ERR_INIT; /* the log line needs the cause */
	int rc, waited = 0, transient;

	if (!err)
		err = &local;

	pthread_mutex_lock(&v->wait_lock);
	while (n->pop_state == PS_RUNNING) {
		pthread_cond_wait(&v->wait_cond, &v->wait_lock);
		waited = 1;
	}
	/* a transient failure (network, disk full) is final only for those who waited for
	 * that attempt */
	if (n->pop_state == PS_DONE && (!n->pop_transient || waited)) {
		rc = n->pop_rc;
		pthread_mutex_unlock(&v->wait_lock);
		return rc && rc != -ENOMEM
			       ? rk_err_set(err, rc, "'%s': unavailable (see log)", n->name)
			       : rc;
	}
	n->pop_state = PS_RUNNING;
	pthread_mutex_unlock(&v->wait_lock);

	if (n->pop) {
		const char *outer = rk_log_where;
		char where[1024];

		node_path(v, n, where, sizeof(where));
		rk_log_where = where;
		rc = n->pop(v, n, err);
		rk_log_where = outer;
		if (rc && rc != -ENOMEM) {
			const char *cause = rk_err_str(err, rc);

			rk_log_where = NULL;
			if (strncmp(cause, where, strlen(where)))
				rk_err_log("'%s': %s", where, cause);
			else
				rk_err_log("%s", cause);
			rk_log_where = outer;
		}
	} else {
		rc = 0;
	}
	transient = rk_err_transient(rc);
	if (rc && rc != -ENOMEM) {
		if (!transient) /* a transient code is kept: a populate calling this one fails */
			rc = -EIO; /* transiently too (dist/.rockfs/ over dist/X/) */
	}
	pthread_mutex_lock(&v->wait_lock);
	n->pop_state = PS_DONE;
	n->pop_rc = rc;
	n->pop_transient = (uint8_t)transient;
	pthread_cond_broadcast(&v->wait_cond);
	pthread_mutex_unlock(&v->wait_lock);
	return rc;
}

static int artifact_transient(struct rk_vfs *v, struct artifact *a)
{
	int t;

	pthread_mutex_lock(&v->wait_lock);
	t = a->state == ART_FAILED && a->transient;
	pthread_mutex_unlock(&v->wait_lock);
	return t;
}

/* Snapshot of an artifact's state for waiters. */
static void artifact_state(struct rk_vfs *v, struct artifact *a, int *state, uint64_t *gen)
{
	pthread_mutex_lock(&v->wait_lock);
	*state = a->state;
	*gen = a->gen;
	pthread_mutex_unlock(&v->wait_lock);
}

static void artifact_wait(struct rk_vfs *v, struct artifact *a, uint64_t gen)
{
	pthread_mutex_lock(&v->wait_lock);
	while (a->state == ART_RUNNING && a->gen == gen)
		pthread_cond_wait(&v->wait_cond, &v->wait_lock);
	pthread_mutex_unlock(&v->wait_lock);
}

static int artifact_eio(struct artifact *a, struct rk_err *err)
{
	return rk_err_set(err, -EIO, "artifact '%s' is unusable: %s", a->art->file,
			  a->why[0] ? a->why : "cancelled");
}

/* Find ino and make sure it is a populated directory. */
static int get_dir(struct rk_vfs *v, uint64_t ino, struct node **out, struct rk_err *err)
{
	struct node *n;
	int rc, dir;

	pthread_rwlock_rdlock(&v->tree);
	n = find_ino(v, ino);
	dir = n && S_ISDIR(n->mode);
	pthread_rwlock_unlock(&v->tree);
	if (!n)
		return -ENOENT;
	if (!dir)
		return -ENOTDIR;
	if (n->pop && (rc = vfs_populate(v, n, err)))
		return rk_err_transient(rc) ? -EIO : rc;
	*out = n;
	return 0;
}

int rk_vfs_refresh(struct rk_vfs *v, uint64_t ino)
{
	struct node *dir;

	pthread_rwlock_rdlock(&v->tree);
	dir = find_ino(v, ino);
	pthread_rwlock_unlock(&v->tree);
	if (!dir || !S_ISDIR(dir->mode) || !(dir->pop == pop_root || dir->pop == pop_org))
		return 0;
	return refresh_listing(v, dir);
}

/* A compressed tarball's size is known once its pieces are: compute them now, on both
 * cores (the first stat pays; a wrong size is never reported). n must be SRC_TARZ (its
 * src and tarz never change). No lock held. */
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
static int ensure_ready(struct rk_vfs *v, struct node *n, int open, struct rk_err *err)
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

int rk_vfs_lookup(struct rk_vfs *v, uint64_t parent, const char *name, struct rk_attr *out,
		  struct rk_err *err)
{
	struct node *dir, *n;
	uint64_t gen = 0;
	int rc, state = ART_DONE;

	if ((rc = get_dir(v, parent, &dir, err)))
		return rc;
	if (!strcmp(name, ".") || !strcmp(name, "..")) {
		n = !strcmp(name, "..") && dir->parent ? dir->parent : dir;
		pthread_rwlock_rdlock(&v->tree);
		fill_attr(n, out);
		pthread_rwlock_unlock(&v->tree);
		return 0;
	}
	for (int retried = 0;;) {
		if (dir->artifact)
			artifact_state(v, dir->artifact, &state, &gen);
		if (state == ART_FAILED && !retried && artifact_transient(v, dir->artifact)) {
			/* a network failure of an earlier access: try this archive once more */
			retried = 1;
			if (!vfs_artifact_start(v, dir->artifact))
				continue;
		}
		if (state == ART_FAILED)
			return artifact_eio(dir->artifact, err);
		pthread_rwlock_rdlock(&v->tree);
		n = vfs_dent_find(dir, name);
		if (n)
			fill_attr(n, out);
		pthread_rwlock_unlock(&v->tree);
		if (n && out->run && v->list_ttl_ms) {
			n = refresh_run(v, dir, n);
			pthread_rwlock_rdlock(&v->tree);
			fill_attr(n, out);
			pthread_rwlock_unlock(&v->tree);
		}
		if (n && out->pending) {
			if ((rc = ensure_ready(v, n, 0, err)))
				return rc;
			pthread_rwlock_rdlock(&v->tree);
			fill_attr(n, out);
			pthread_rwlock_unlock(&v->tree);
		}
		if (n)
			return 0;
		if (!retried && refresh_listing(v, dir)) {
			retried = 1; /* the store has a new run: perhaps this one */
			continue;
		}
		if (state != ART_RUNNING)
			return -ENOENT;
		artifact_wait(v, dir->artifact, gen);
		retried = 1; /* that attempt was this call's: its failure is the answer (the
			      * remote timeout bounds the operation, not each of two tries) */
	}
}

int rk_vfs_getattr(struct rk_vfs *v, uint64_t ino, struct rk_attr *out, struct rk_err *err)
{
	struct node *n;
	int rc = 0;

	pthread_rwlock_rdlock(&v->tree);
	n = find_ino(v, ino);
	if (n)
		fill_attr(n, out);
	else
		rc = -ENOENT;
	pthread_rwlock_unlock(&v->tree);
	if (!rc && out->pending && !(rc = ensure_ready(v, n, 0, err))) {
		pthread_rwlock_rdlock(&v->tree);
		fill_attr(n, out);
		pthread_rwlock_unlock(&v->tree);
	}
	return rc;
}

int rk_vfs_readlink(struct rk_vfs *v, uint64_t ino, char *buf, size_t size, struct rk_err *err)
{
	struct node *n;
	int rc;

	(void)err;
	pthread_rwlock_rdlock(&v->tree);
	n = find_ino(v, ino);
	if (!n)
		rc = -ENOENT;
	else if (!S_ISLNK(n->mode) || !n->data)
		rc = -EINVAL;
	else if (strlen(n->data) >= size)
		rc = -ENAMETOOLONG;
	else {
		rc = (int)strlen(n->data);
		memcpy(buf, n->data, (size_t)rc + 1);
	}
	pthread_rwlock_unlock(&v->tree);
	return rc;
}

/* rk_vfs_readdir; whole: an incomplete listing's error also after its last entry was
 * filled in this call (rk_vfs_readdir_all), not only on the call after it. */
static int readdir_from(struct rk_vfs *v, uint64_t ino, uint64_t off, int whole,
			rk_dir_fill_fn fill, void *ctx, struct rk_err *err)
{
	struct node *dir;
	int rc, state = ART_DONE;
	uint64_t gen, start;

	if ((rc = get_dir(v, ino, &dir, err)))
		return rc;
	for (int retried = 0; dir->artifact;) { /* a listing is only complete when the archive is */
		artifact_state(v, dir->artifact, &state, &gen);
		if (state == ART_FAILED && !retried && artifact_transient(v, dir->artifact)) {
			retried = 1;
			if (!vfs_artifact_start(v, dir->artifact))
				continue;
		}
		if (state == ART_FAILED)
			return artifact_eio(dir->artifact, err);
		if (state != ART_RUNNING)
			break;
		artifact_wait(v, dir->artifact, gen);
		retried = 1; /* as in rk_vfs_lookup */
	}
	pthread_rwlock_rdlock(&v->tree);
	/* a listing that misses entries ends in an error after the ones it has, so that
	 * ls, find, tar and rsync report it instead of copying a short tree */
	start = off;
	for (; off < dir->nents; off++) {
		struct rk_attr a;

		fill_attr(dir->order[off]->node, &a);
		if (fill(ctx, dir->order[off]->name, &a, off + 1))
			break;
	}
	if (dir->incomplete && off >= dir->nents && (whole || off == start))
		rc = rk_err_set(err, -EIO, "'%s': listing incomplete: %s", dir->name,
				dir->why_incomplete ? dir->why_incomplete : "a damaged artifact");
	pthread_rwlock_unlock(&v->tree);
	return rc;
}

int rk_vfs_readdir(struct rk_vfs *v, uint64_t ino, uint64_t off, rk_dir_fill_fn fill, void *ctx,
		   struct rk_err *err)
{
	return readdir_from(v, ino, off, 0, fill, ctx, err);
}

int rk_vfs_readdir_all(struct rk_vfs *v, uint64_t ino, rk_dir_fill_fn fill, void *ctx,
		       struct rk_err *err)
{
	return readdir_from(v, ino, 0, 1, fill, ctx, err);
}

int rk_vfs_resolve(struct rk_vfs *v, const char *path, struct rk_attr *out, struct rk_err *err)
{
	char comp[NAME_MAX + 1];
	struct rk_attr a;
	int rc;

	if ((rc = rk_vfs_getattr(v, RK_ROOT_INO, &a, err)))
		return rc;
	while (*path) {
		size_t n;

		path += strspn(path, "/");
		n = strcspn(path, "/");
		if (!n)
			break;
		if (n > NAME_MAX)
			return rk_err_set(err, -ENAMETOOLONG, "'%.*s': name too long", (int)n,
					  path);
		memcpy(comp, path, n);
		comp[n] = '\0';
		path += n;
		if ((rc = rk_vfs_lookup(v, a.ino, comp, &a, err)))
			return rc == -ENOENT ? rk_err_set(err, rc,
							  "'%s': no such file or directory", comp)
					     : rc;
	}
	*out = a;
	return 0;
}

/* Read-ahead: a file opened in directory dir lets the next AHEAD_FILES small blob files
 * of dir (listing order) be opened on the read-ahead threads, so a walk that reads the
 * directory's files one by one finds each in memory (the first open of a directory
 * reads ahead of it that far; each further open moves the window one on). The node of
 * a file in several directories (dist/ links it) has its first directory as parent,
 * whose order is the same. v->tree held (for reading at least). */
#define AHEAD_FILES 32
#define AHEAD_THREADS 4 /* blobs read at once: the disk serves several requests at a time */
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

/* ---- runs ---- */

/* A run name the store does not have: -ENOENT, and the message names the (up to) three
 * runs closest to it by edit distance, for a typo in a long run id. */
static int no_such_run(struct rk_vfs *v, const char *name, struct rk_err *err)
{
	struct rk_buf near = RK_BUF_INIT;
	char **names = NULL;
	size_t n = 0, idx[3], k = 0;
	int rc;

	if (!rk_vfs_list_runs(v, &names, &n, NULL))
		k = rk_nearest_names(name, (const char *const *)names, n, 3, idx);
	for (size_t i = 0; i < k; i++)
		if (rk_buf_addf(&near, "%s%s", i ? ", " : "", names[idx[i]]))
			break;
	if (near.len)
		rc = rk_err_set(err, -ENOENT, "run '%s': no such run (nearest: %s)", name,
				near.buf);
	else
		rc = rk_err_set(err, -ENOENT, "run '%s': no such run (the store lists none)", name);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	rk_buf_release(&near);
	return rc;
}

static int run_dir(struct rk_vfs *v, const char *name, struct node **out, struct rk_err *err)
{
	struct rk_attr a;
	struct node *root, *n;
	int rc;

	if ((rc = get_dir(v, RK_ROOT_INO, &root, err)))
		return rc;
	if (root->run) {
		*out = root;
		return 0;
	}
	if (!name || !name[0])
		return rk_err_set(err, -EINVAL, "the store holds several runs: name one");
	rc = rk_vfs_resolve(v, name, &a, err);
	if (rc == -ENOENT)
		return no_such_run(v, name, err);
	if (rc)
		return rc;
	if ((rc = get_dir(v, a.ino, &n, err)))
		return rc;
	if (!n->run)
		return no_such_run(v, name, err);
	*out = n;
	return 0;
}

int rk_vfs_run(struct rk_vfs *v, const char *name, const struct rk_run **out, struct rk_err *err)
{
	struct node *n;
	int rc = run_dir(v, name, &n, err);

	if (!rc)
		*out = n->run->cat;
	return rc;
}

struct name_list {
	char **v;
	size_t n;
	int rc;
};

static void name_add(struct name_list *l, const char *a, const char *b)
{
	char **nv = realloc(l->v, (l->n + 1) * sizeof(*nv));
	size_t len = strlen(a) + (b ? strlen(b) + 1 : 0) + 1;

	if (!nv || !(nv[l->n] = malloc(len))) {
		if (nv)
			l->v = nv;
		l->rc = -ENOMEM;
		return;
	}
	l->v = nv;
	if (b)
		snprintf(l->v[l->n], len, "%s/%s", a, b);
	else
		snprintf(l->v[l->n], len, "%s", a);
	l->n++;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int rk_vfs_list_runs(struct rk_vfs *v, char ***names, size_t *count, struct rk_err *err)
{
	struct name_list l = {0};
	struct node *root;
	int rc;

	if ((rc = get_dir(v, RK_ROOT_INO, &root, err)))
		return rc;
	if (root->run) {
		name_add(&l, root->run->cat->name, NULL);
	} else {
		for (size_t i = 0; !l.rc && i < root->nents; i++) {
			struct node *n = root->order[i]->node;

			if (n->pop == pop_run) {
				name_add(&l, n->name, NULL);
			} else if (n->pop == pop_org) {
				if (vfs_populate(v, n, err))
					continue;
				pthread_rwlock_rdlock(&v->tree);
				for (size_t j = 0; !l.rc && j < n->nents; j++)
					if (n->order[j]->node->pop == pop_run)
						name_add(&l, n->name, n->order[j]->name);
				pthread_rwlock_unlock(&v->tree);
			}
		}
	}
	if (l.rc) {
		for (size_t i = 0; i < l.n; i++)
			free(l.v[i]);
		free(l.v);
		return l.rc;
	}
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), cmp_name);
	*names = l.v;
	*count = l.n;
	return 0;
}

int rk_vfs_prefetch(struct rk_vfs *v, const char *name, rk_progress_fn progress, void *ctx,
		    struct rk_err *err)
{
	struct node *dir;
	struct run *r;
	uint64_t total = 0;
	int rc;

	if ((rc = run_dir(v, name, &dir, err)))
		return rc;
	r = dir->run;
	for (size_t i = 0; i < r->cat->narts; i++) {
		total += r->cat->arts[i].size;
		if ((rc = vfs_artifact_start(v, &r->artifacts[i])))
			return rk_err_set(err, rc, "cannot start ingest: %s", strerror(-rc));
	}
	for (;;) {
		unsigned finished = 0;
		uint64_t done = 0;
		struct timespec ts;

		pthread_mutex_lock(&v->wait_lock);
		for (size_t i = 0; i < r->cat->narts; i++) {
			struct artifact *a = &r->artifacts[i];

			if (a->state == ART_DONE || a->state == ART_FAILED) {
				finished++;
				done += a->art->size;
			} else {
				done += RK_MIN(a->progress, a->art->size);
			}
			if (a->state == ART_FAILED && !rc)
				rc = artifact_eio(a, err);
		}
		if (finished == r->cat->narts) {
			pthread_mutex_unlock(&v->wait_lock);
			if (progress)
				progress(ctx, total, total, finished, (unsigned)r->cat->narts);
			return rc;
		}
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 100000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&v->wait_cond, &v->wait_lock, &ts);
		pthread_mutex_unlock(&v->wait_lock);
		if (progress)
			progress(ctx, done, total, finished, (unsigned)r->cat->narts);
	}
}

#define BASE_MANIFEST "base/aux-overlay/stage/share/therock/therock_manifest.json"

int rk_vfs_run_manifest(struct rk_vfs *v, const char *name, struct rk_manifest *out,
			struct rk_err *err)
{
	struct node *dir;
	int rc = run_dir(v, name, &dir, err);

	return rc ? rc : vfs_run_manifest(v, dir, out, err);
}

/* The copy of the manifest inside the run's base_lib_generic artifact, parsed. */
static int base_manifest(struct rk_vfs *v, struct node *dir, struct rk_manifest *out,
			 struct rk_err *err)
{
	struct rk_file *f = NULL;
	struct rk_attr a;
	char *data = NULL;
	size_t len = 0;
	int rc;

	if (!rk_run_find(dir->run->cat, "base_lib_generic"))
		return rk_err_set(err, -ENOENT, "run '%s' has no base_lib_generic",
				  dir->run->cat->name);
	rc = rk_vfs_lookup(v, dir->ino, "browse", &a, err);
	if (!rc)
		rc = rk_vfs_lookup(v, a.ino, "base_lib_generic", &a, err);
	for (const char *p = BASE_MANIFEST; !rc && *p;) {
		char comp[256];
		size_t n = strcspn(p, "/");

		snprintf(comp, sizeof(comp), "%.*s", (int)n, p);
		rc = rk_vfs_lookup(v, a.ino, comp, &a, err);
		p += n + (p[n] == '/');
	}
	if (rc == -ENOENT)
		rc = rk_err_set(err, rc, "base_lib_generic has no %s", BASE_MANIFEST);
	if (!rc && a.size > RK_MANIFEST_MAX)
		rc = rk_err_set(err, -EFBIG, "therock_manifest.json is too large");
	if (!rc)
		rc = rk_vfs_open_file(v, a.ino, &f, err);
	if (!rc && !(data = malloc(a.size + 1)))
		rc = -ENOMEM;
	while (!rc && len < a.size) {
		ssize_t n = rk_file_pread(f, data + len, a.size - len, len, err);

		if (n <= 0)
			rc = n < 0 ? (int)n : -EIO;
		else
			len += (size_t)n;
	}
	rk_file_close(f);
	if (!rc)
		rc = rk_manifest_parse(data, len, out, err);
	free(data);
	return rc;
}

/* The run's manifests/therock_manifest.json, parsed. */
static int store_manifest(struct rk_vfs *v, struct node *dir, struct rk_manifest *out,
			  struct rk_err *err)
{
	struct rk_buf path = RK_BUF_INIT;
	const char *p = dir->run->cat->path;
	char *data = NULL;
	size_t len = 0;
	int rc;

	if (rk_buf_addf(&path, "%s%smanifests/therock_manifest.json", p, p[0] ? "/" : ""))
		return -ENOMEM;
	rc = rk_store_read_small(v->store, path.buf, RK_MANIFEST_MAX, &data, &len, err);
	rk_buf_release(&path);
	if (!rc)
		rc = rk_manifest_parse(data, len, out, err);
	free(data);
	return rc;
}

/* The run's manifest: manifests/therock_manifest.json, else the copy inside
 * base_lib_generic (TheRock puts the same file in both). A stored manifest that cannot
 * be read or parsed is not taken for "no manifest" (packages at 0.0.0, tarballs
 * "unversioned"): the copy is used instead, and the run's log says so once. */
int vfs_run_manifest(struct rk_vfs *v, struct node *dir, struct rk_manifest *out,
		     struct rk_err *err)
{
	struct rk_err serr = RK_ERR_INIT, berr = RK_ERR_INIT;
	struct run *r = dir->run;
	int rc, brc;

	if (!r->cat->has_manifest) {
		if (!rk_run_find(r->cat, "base_lib_generic"))
			return rk_err_set(err, -ENOENT, "run '%s' has no therock_manifest.json",
					  r->cat->name);
		return base_manifest(v, dir, out, err);
	}
	if (!(rc = store_manifest(v, dir, out, &serr)))
		return 0;
	brc = base_manifest(v, dir, out, &berr);
	if (!atomic_exchange(&r->manifest_warned, 1)) {
		if (brc)
			rk_warn("run '%s': manifests/therock_manifest.json: %s; and the copy in "
				"base_lib_generic: %s",
				r->cat->path, rk_err_str(&serr, rc), rk_err_str(&berr, brc));
		else
			rk_warn("run '%s': manifests/therock_manifest.json: %s; using the copy in "
				"base_lib_generic (%s)",
				r->cat->path, rk_err_str(&serr, rc), BASE_MANIFEST);
	}
	if (brc)
		return rk_err_set(err, rc, "manifests/therock_manifest.json: %s",
				  rk_err_str(&serr, rc));
	return 0;
}

/* ---- lifetime ---- */

int rk_vfs_open(const struct rk_vfs_opts *o, struct rk_vfs **out, struct rk_err *err)
{
	char dir[4096];
	struct rk_store_opts ro;
	struct rk_vfs *v = calloc(1, sizeof(*v));
	struct node *root;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned jobs;
	int rc;

	if (!v)
		return -ENOMEM;
	pthread_rwlock_init(&v->tree, NULL);
	pthread_mutex_init(&v->wait_lock, NULL);
	pthread_mutex_init(&v->refresh_lock, NULL);
	pthread_mutex_init(&v->ahead_lock, NULL);
	pthread_cond_init(&v->wait_cond, NULL);
	v->list_ttl_ms = (uint64_t)o->list_ttl_s * 1000;
	if ((rc = vfs_opts_apply(v, o, err)))
		goto fail;
	jobs = o->ingest_jobs ? o->ingest_jobs : (unsigned)(ncpu > 0 ? ncpu : 1);
	/* a remote archive's ingest also waits on the network: run more of them at once */
	if (!o->ingest_jobs && rk_store_is_remote(o->store) && jobs < 8)
		jobs = 8;
	if (jobs > 4096) /* rk_vfs_opts: a mistake, never a reason to hang */
		jobs = 4096;
	if (sem_init(&v->jobs, 0, jobs)) {
		rc = rk_err_set(err, -errno, "cannot make %u ingest slots: %s", jobs,
				strerror(errno));
		goto fail;
	}
	v->jobs_ok = 1;
	v->mount_time = time(NULL);
	if (!o->cache_dir && (rc = rk_cache_default_dir(dir, sizeof(dir))))
		goto fail;
	if ((rc = rk_cache_open_shared(o->cache_dir ? o->cache_dir : dir,
				       o->cache_limit ? o->cache_limit : RK_CACHE_LIMIT_AUTO,
				       o->cache_group, &v->cache, err)))
		goto fail;
	ro = o->remote;
	ro.cache = v->cache;
	if ((rc = rk_store_open_opts(o->store, &ro, &v->store, err)))
		goto fail;
	if ((rc = vfs_ahead_new(v->cache, AHEAD_THREADS, &v->ahead)))
		goto fail;
	root = served_lazy_dir(v, NULL, "", pop_root, v->mount_time);
	if (!root) {
		rc = -ENOMEM;
		goto fail;
	}
	*out = v;
	return 0;
fail:
	rk_vfs_close(v);
	return rc;
}

void rk_vfs_close(struct rk_vfs *v)
{
	struct node *n, *tmp;
	struct run *r;

	if (!v)
		return;
	v->cancel = 1;
	vfs_ahead_free(v->ahead);
	pthread_mutex_lock(&v->wait_lock);
	while (v->active)
		pthread_cond_wait(&v->wait_cond, &v->wait_lock);
	pthread_mutex_unlock(&v->wait_lock);
	/* background work may read what nodes own; private trees (of views' state and of
	 * what services derived) go while the served nodes they may link to are there */
	for (r = v->runs; r; r = r->next)
		for (size_t i = 0; i < vfs_nviews; i++)
			if (r->vstate[i] && vfs_views[i]->stop)
				vfs_views[i]->stop(r->vstate[i]);
	for (r = v->runs; r; r = r->next) {
		for (size_t i = 0; i < r->cat->narts; i++) {
			if (r->artifacts[i].started)
				pthread_join(r->artifacts[i].thread, NULL);
			vfs_artifact_release(&r->artifacts[i]);
		}
		for (size_t i = 0; i < vfs_nviews; i++)
			if (r->vstate[i] && vfs_views[i]->free)
				vfs_views[i]->free(r->vstate[i]);
	}
	HASH_ITER(hh, v->inodes, n, tmp) {
		HASH_DEL(v->inodes, n);
		free_node(n);
	}
	while ((r = v->runs)) {
		v->runs = r->next;
		free(r->artifacts);
		free(r->vstate);
		rk_run_free(r->cat);
		free(r);
	}
	rk_store_close(v->store); /* it uses the cache */
	rk_cache_close(v->cache);
	if (v->jobs_ok)
		sem_destroy(&v->jobs);
	pthread_cond_destroy(&v->wait_cond);
	pthread_mutex_destroy(&v->wait_lock);
	pthread_mutex_destroy(&v->refresh_lock);
	pthread_mutex_destroy(&v->ahead_lock);
	pthread_rwlock_destroy(&v->tree);
	vfs_opts_release(v);
	free(v);
}

void rk_vfs_stats(struct rk_vfs *v, struct rk_vfs_stats *st)
{
	struct rk_cache_usage u;

	st->nodes = v->n_nodes;
	st->runs = v->n_runs;
	st->ingests = v->n_ingests;
	st->ingests_running = v->n_running;
	st->ingests_waiting = v->n_waiting;
	st->index_loads = v->n_index_loads;
	st->read_ahead = vfs_ahead_done(v->ahead);
	st->ingest_failures = v->n_failures;
	st->transient_failures = v->n_transient;
	st->remote_requests = rk_store_requests(v->store);
	st->remote_bytes = rk_store_bytes(v->store);
	rk_cache_usage(v->cache, &u);
	st->cache_limit = u.limit;
	st->cache_used = u.used;
	st->cache_written = u.written;
	st->cache_discarded = u.discarded;
	st->uptime_s = (uint64_t)(time(NULL) - v->mount_time);
}

struct rk_cache *rk_vfs_cache(struct rk_vfs *v)
{
	return v->cache;
}
