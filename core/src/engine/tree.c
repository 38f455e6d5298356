/* tree.c: the inode table and the nodes in it: served nodes (inode numbers, the table
 * under v->tree), private trees that views and services build, vfs_graft that serves
 * them, finding a path and making directories in a private tree, freeing nodes. The
 * locks: vfs.c; docs/internals/vfs.md. */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk/log.h"

#include "engine/vfs_int.h"
#include "engine/engine.h"

/* ---- nodes (v->tree held for writing unless noted) ---- */

/* node and entry bytes of every tree (served and private), for status */
static _Atomic int64_t tree_bytes;

static void mem_count(int64_t bytes)
{
	tree_bytes += bytes;
}

uint64_t tree_mem(void)
{
	int64_t b = tree_bytes;

	return b > 0 ? (uint64_t)b : 0;
}

/* what a directory's entry table costs before its first entry (uthash: table, buckets) */
#define DIR_TABLE_BYTES 600

/* Bytes of n and its name (status: mem_count). */
static int64_t node_bytes(const struct node *n)
{
	return (int64_t)(sizeof(*n) + strlen(n->name) + 1);
}

static uint64_t child_ino(uint64_t parent, const char *name)
{
	uint64_t h = rk_fnv64(RK_FNV_SEED, &parent, sizeof(parent));

	h = rk_fnv64(h, name, strlen(name));
	return h ^ (h >> 29);
}

struct node *find_ino(struct rk_vfs *v, uint64_t ino)
{
	struct node *n;

	HASH_FIND(hh, v->inodes, &ino, sizeof(ino), n);
	return n;
}

/* A directory of more entries than this has a hash table of them; a smaller one is
 * searched in listing order (most are small: the table costs DIR_TABLE_BYTES). */
#define DENT_HASH_MIN 16

static struct dent *dent_of(const struct node *dir, const char *name)
{
	struct dent *d;

	if (dir->dents) {
		HASH_FIND_STR(dir->dents, name, d);
		return d;
	}
	for (size_t i = 0; i < dir->nents; i++)
		if (!strcmp(dir->order[i]->name, name))
			return dir->order[i];
	return NULL;
}

struct node *vfs_dent_find(struct node *dir, const char *name)
{
	struct dent *d = dent_of(dir, name);

	return d ? d->node : NULL;
}

/* Enter d in dir's table, making the table when dir grows past DENT_HASH_MIN; without
 * memory for it dir is searched in order. */
static void dent_hash(struct node *dir, struct dent *d)
{
	if (!dir->dents && dir->nents <= DENT_HASH_MIN)
		return;
	if (dir->dents) {
		HASH_ADD_KEYPTR(hh, dir->dents, d->name, strlen(d->name), d);
	} else {
		for (size_t i = 0; i < dir->nents; i++)
			HASH_ADD_KEYPTR(hh, dir->dents, dir->order[i]->name,
					strlen(dir->order[i]->name), dir->order[i]);
		mem_count(DIR_TABLE_BYTES);
	}
	if (rk_htab_oom()) {
		HASH_CLEAR(hh, dir->dents);
		mem_count(-DIR_TABLE_BYTES);
	}
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
	dir->order[dir->nents++] = d;
	mem_count((int64_t)(sizeof(*d) + strlen(name) + 1 + 2 * sizeof(d)));
	dent_hash(dir, d);
	return 0;
nomem:
	if (d)
		free(d->name);
	free(d);
	return -ENOMEM;
}

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
	mem_count(node_bytes(n));
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
struct node *served_new(struct rk_vfs *v, struct node *dir, const char *name, uint32_t mode,
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
struct node *served_add(struct rk_vfs *v, struct node *dir, const char *name, uint32_t mode,
			int64_t mtime)
{
	struct node *n = served_new(v, dir, name, mode, mtime);

	if (n && dir && vfs_dent_add(dir, name, n))
		return NULL; /* n stays in the inode table and is freed with it */
	return n;
}

struct node *served_lazy_dir(struct rk_vfs *v, struct node *dir, const char *name, vfs_pop_fn pop,
			     int64_t mtime)
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
	struct dent *d = dent_of(dir, name);

	if (d)
		d->node = child;
}

struct node *vfs_dent_del(struct node *dir, const char *name)
{
	struct node *n;
	struct dent *d;
	size_t i;

	if (!(d = dent_of(dir, name)))
		return NULL;
	for (i = 0; i < dir->nents && dir->order[i] != d; i++)
		;
	memmove(dir->order + i, dir->order + i + 1, (dir->nents - i - 1) * sizeof(*dir->order));
	dir->nents--;
	if (dir->dents) {
		HASH_DEL(dir->dents, d);
		if (!dir->dents) /* (uthash frees the table with its last entry) */
			mem_count(-DIR_TABLE_BYTES);
	}
	n = d->node;
	mem_count(-(int64_t)(sizeof(*d) + strlen(d->name) + 1 + 2 * sizeof(d)));
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

struct node *vfs_renew_dir(struct node *dir, const char *name, vfs_pop_fn pop, int64_t mtime)
{
	struct node *n = vfs_lazy_dir(dir, name, pop, mtime);

	if (n) {
		n->renew = 1;
		n->renew_seen = -1;
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
	free_node(root); /* its entries (naming nothing now) */
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

/* Free dir's entries (not the nodes they name). */
static void dents_free(struct node *dir)
{
	int64_t b = dir->dents ? DIR_TABLE_BYTES : 0;

	HASH_CLEAR(hh, dir->dents);
	for (size_t i = 0; i < dir->nents; i++) {
		struct dent *d = dir->order[i];

		b += (int64_t)(sizeof(*d) + strlen(d->name) + 1 + 2 * sizeof(d));
		free(d->name);
		free(d);
	}
	mem_count(-b);
	free(dir->order);
	dir->order = NULL;
	dir->nents = dir->cap = 0;
}

void dir_clear(struct node *dir)
{
	dents_free(dir);
	dir->run = NULL;
	dir->incomplete = 0;
	free(dir->why_incomplete);
	dir->why_incomplete = NULL;
	dir->opened = dir->ahead = 0;
	dir->dropped = 1;
}

void free_node(struct node *n)
{
	dents_free(n);
	mem_count(-node_bytes(n));
	free(n->name);
	free(n->data);
	free(n->why_incomplete);
	rk_composite_free(n->composite);
	if (n->fops && n->fops->free)
		n->fops->free(n->fops_ctx);
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
	free(n->unwalked);
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
