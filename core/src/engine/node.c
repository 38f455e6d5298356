/* node.c: the node contract (engine/node.h): the typed constructors, setters and
 * accessors through which services and views make and read nodes. Setters and
 * constructors touch private nodes only; the engine's own code sets served nodes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rk/composite.h"
#include "rk/log.h"
#include "engine/vfs_int.h"
#include "engine/engine.h"

/* Private n may be changed: 1; else the bug is logged. */
static int private_node(const struct node *n, const char *what)
{
	if (!n->ino)
		return 1;
	rk_err_log("internal: %s of served node '%s'", what, n->name);
	return 0;
}

/* Drop what file n holds (it gets new content). */
static void file_clear(struct node *n)
{
	free(n->data);
	n->data = NULL;
	rk_composite_free(n->composite);
	n->composite = NULL;
	if (n->fops && n->fops->free)
		n->fops->free(n->fops_ctx);
	n->fops = NULL;
	n->fops_ctx = NULL;
	n->src = SRC_NONE;
}

/* ---- setters ---- */

int vfs_file_set_bytes(struct node *n, char *data, size_t len)
{
	if (!private_node(n, "bytes")) {
		free(data);
		return -EINVAL;
	}
	file_clear(n);
	n->src = SRC_BYTES;
	n->data = data;
	n->size = len;
	return 0;
}

int vfs_file_set_blob(struct node *n, const char *id, uint64_t size)
{
	char *d;

	if (!private_node(n, "blob"))
		return -EINVAL;
	if (!(d = strdup(id)))
		return -ENOMEM;
	file_clear(n);
	n->src = SRC_BLOB;
	n->data = d;
	n->size = size;
	return 0;
}

int vfs_file_set_composite(struct node *n, struct rk_composite *c)
{
	if (!private_node(n, "composite")) {
		rk_composite_free(c);
		return -EINVAL;
	}
	file_clear(n);
	n->src = SRC_COMPOSITE;
	n->composite = c;
	n->size = c->size;
	return 0;
}

int vfs_file_set_store(struct node *n, const char *path, uint64_t size)
{
	char *d;

	if (!private_node(n, "store object"))
		return -EINVAL;
	if (!(d = strdup(path)))
		return -ENOMEM;
	file_clear(n);
	n->src = SRC_STORE;
	n->data = d;
	n->size = size;
	return 0;
}

int vfs_file_copy(struct node *n, const struct node *from)
{
	char *d = NULL;
	struct rk_composite *c = NULL;

	if (!private_node(n, "copy"))
		return -EINVAL;
	if ((from->data && !(d = strdup(from->data))) ||
	    (from->src == SRC_COMPOSITE && rk_composite_copy(from->composite, &c))) {
		free(d);
		return -ENOMEM;
	}
	file_clear(n);
	n->size = from->size;
	n->src = from->src;
	n->data = d;
	n->composite = c;
	return 0;
}

void vfs_node_set_mode(struct node *n, uint32_t mode)
{
	if (private_node(n, "mode"))
		n->mode = mode;
}

void vfs_node_set_origin(struct node *n, struct artifact *a)
{
	if (private_node(n, "origin"))
		n->origin = a;
}

uint32_t vfs_node_nlink_add(struct node *n, int delta)
{
	if (private_node(n, "link count"))
		n->nlink = (uint32_t)((int64_t)n->nlink + delta);
	return n->nlink;
}

void vfs_node_set_incomplete(struct node *dir, char *why)
{
	if (!why || !private_node(dir, "incomplete")) {
		free(why);
		return;
	}
	dir->incomplete = 1;
	if (dir->why_incomplete)
		free(why);
	else
		dir->why_incomplete = why;
}

void vfs_later_logged(struct node *n, int code)
{
	if (n->later && private_node(n, "later"))
		n->later->logged = code;
}

/* ---- constructors ---- */

/* n failed to be filled: take it out of dir and free it. */
static struct node *unmade(struct node *dir, struct node *n)
{
	vfs_dent_del(dir, n->name);
	vfs_tree_free(n);
	return NULL;
}

struct node *vfs_bytes_file(struct node *dir, const char *name, uint32_t mode, int64_t mtime,
			    const void *data, size_t len)
{
	char *d = malloc(len + 1);

	if (!d)
		return NULL;
	if (len)
		memcpy(d, data, len);
	d[len] = '\0';
	return vfs_bytes_adopt(dir, name, mode, mtime, d, len);
}

struct node *vfs_bytes_adopt(struct node *dir, const char *name, uint32_t mode, int64_t mtime,
			     char *data, size_t len)
{
	struct node *n = vfs_node_add(dir, name, mode, mtime);

	if (!n) {
		free(data);
		return NULL;
	}
	return vfs_file_set_bytes(n, data, len) ? unmade(dir, n) : n;
}

int vfs_bytes_at(struct node *root, const char *path, int64_t mtime, void *data, size_t len)
{
	const char *base;
	struct node *d = vfs_mkdirs(root, path, &base, mtime);

	if (!d) {
		free(data);
		return -ENOMEM;
	}
	return vfs_bytes_adopt(d, base, S_IFREG | 0444, mtime, data, len) ? 0 : -ENOMEM;
}

struct node *vfs_blob_file(struct node *dir, const char *name, uint32_t mode, int64_t mtime,
			   const char *id, uint64_t size)
{
	struct node *n = vfs_node_add(dir, name, mode, mtime);

	return n && vfs_file_set_blob(n, id, size) ? unmade(dir, n) : n;
}

struct node *vfs_composite_file(struct node *dir, const char *name, uint32_t mode, int64_t mtime,
				struct rk_composite *c)
{
	struct node *n = vfs_node_add(dir, name, mode, mtime);

	if (!n) {
		rk_composite_free(c);
		return NULL;
	}
	return vfs_file_set_composite(n, c) ? unmade(dir, n) : n;
}

struct node *vfs_store_file(struct node *dir, const char *name, uint32_t mode, int64_t mtime,
			    const char *path, uint64_t size)
{
	struct node *n = vfs_node_add(dir, name, mode, mtime);

	return n && vfs_file_set_store(n, path, size) ? unmade(dir, n) : n;
}

struct node *vfs_symlink(struct node *dir, const char *name, int64_t mtime, const char *target)
{
	struct node *n = vfs_node_add(dir, name, S_IFLNK | 0777, mtime);

	if (n && !(n->data = strdup(target)))
		return unmade(dir, n);
	if (n)
		n->size = strlen(n->data);
	return n;
}

struct node *vfs_ops_file(struct node *dir, const char *name, uint32_t mode, int64_t mtime,
			  uint64_t size, const struct vfs_file_ops *ops, void *ctx)
{
	struct node *n = vfs_node_add(dir, name, mode, mtime);

	if (!n) {
		if (ops->free)
			ops->free(ctx);
		return NULL;
	}
	n->src = SRC_OPS;
	n->fops = ops;
	n->fops_ctx = ctx;
	n->size_known = size != UINT64_MAX;
	n->size = n->size_known ? size : 0;
	return n;
}

/* ---- accessors ---- */

const char *vfs_node_name(const struct node *n)
{
	return n->name;
}

uint32_t vfs_node_mode(const struct node *n)
{
	return n->mode;
}

int vfs_node_is_dir(const struct node *n)
{
	return S_ISDIR(n->mode);
}

uint64_t vfs_node_size(const struct node *n)
{
	return n->size;
}

int64_t vfs_node_mtime(const struct node *n)
{
	return n->mtime;
}

uint32_t vfs_node_nlink(const struct node *n)
{
	return n->nlink;
}

struct node *vfs_node_parent(const struct node *n)
{
	return n->parent;
}

vfs_pop_fn vfs_node_pop(const struct node *n)
{
	return n->pop;
}

struct artifact *vfs_node_origin(const struct node *n)
{
	return n->origin;
}

struct rk_origin *vfs_node_blob_origin(const struct node *n)
{
	return n->origin ? &n->origin->blob_origin : NULL;
}

const char *vfs_node_blob(const struct node *n)
{
	return n->src == SRC_BLOB ? n->data : NULL;
}

const struct rk_composite *vfs_node_composite(const struct node *n)
{
	return n->src == SRC_COMPOSITE ? n->composite : NULL;
}

const char *vfs_node_bytes(const struct node *n)
{
	return n->src == SRC_BYTES ? n->data : NULL;
}

const char *vfs_node_target(const struct node *n)
{
	return S_ISLNK(n->mode) ? n->data : NULL;
}

int vfs_node_same(const struct node *x, const struct node *y)
{
	if ((x->mode & S_IFMT) != (y->mode & S_IFMT) || x->size != y->size)
		return 0;
	if (!x->data || !y->data)
		return x->data == y->data;
	return !strcmp(x->data, y->data);
}

size_t vfs_dir_count(const struct node *dir)
{
	return dir->nents;
}

struct node *vfs_dir_node(const struct node *dir, size_t i)
{
	return dir->order[i]->node;
}

const char *vfs_dir_name(const struct node *dir, size_t i)
{
	return dir->order[i]->name;
}

static int cmp_entry(const void *a, const void *b, void *dir)
{
	const struct node *d = dir;

	return strcmp(d->order[*(const size_t *)a]->name, d->order[*(const size_t *)b]->name);
}

size_t *vfs_dir_sorted(const struct node *dir)
{
	size_t *order = dir->nents ? malloc(dir->nents * sizeof(*order)) : NULL;

	if (!order)
		return NULL;
	for (size_t i = 0; i < dir->nents; i++)
		order[i] = i;
	qsort_r(order, dir->nents, sizeof(*order), cmp_entry, (void *)dir);
	return order;
}
