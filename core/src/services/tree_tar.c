/* tree_tar.c: a tree as GNU tar lays it out, a service of the views (tarballs/, and any
 * view that serves a tree as a tar archive): members sorted by name depth first (GNU
 * tar's --sort=name), rooted at "./", hardlinks as links to their first path, every
 * mtime the newest mtime in the tree (formats/archive/tar_layout.h has the bytes), as a composite
 * file. Reads the
 * tree only: a private tree, or a served one that no longer changes. Also an archive of
 * members listed one by one (the python view's _devel.tar and sdist). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rk/buf.h"
#include "engine/vfs_int.h"
#include "formats/archive/tar_layout.h"
#include "services/tree_tar.h"
#include "util/array.h"

struct seen_link {
	const struct node *node;
	char *path;
	UT_hash_handle hh;
};

struct collect {
	struct rk_tar_member *v;
	size_t n, cap;
	struct seen_link *links;
	int64_t newest;
};

static int push(struct collect *c, struct rk_tar_member *m)
{
	if (RK_GROW(c->v, c->cap, c->n, 256))
		return -ENOMEM;
	c->v[c->n++] = *m;
	return 0;
}

/* Members of dir (path "./..../", ending in '/'), depth first, names sorted as GNU tar's
 * --sort=name does. */
static int collect(struct collect *c, const struct node *dir, struct rk_buf *path)
{
	size_t *order = NULL;
	size_t len = path->len;
	int rc = 0;

	if (vfs_dir_count(dir) && !(order = vfs_dir_sorted(dir)))
		return -ENOMEM;
	for (size_t i = 0; !rc && i < vfs_dir_count(dir); i++) {
		const struct node *n = vfs_dir_node(dir, order[i]);
		struct rk_tar_member m = {0};
		struct seen_link *sl = NULL;

		if ((rc = rk_buf_adds(path, vfs_dir_name(dir, order[i]))) ||
		    (S_ISDIR(vfs_node_mode(n)) && (rc = rk_buf_adds(path, "/"))))
			break;
		if (vfs_node_mtime(n) > c->newest)
			c->newest = vfs_node_mtime(n);
		m.mode = vfs_node_mode(n);
		m.size = vfs_node_size(n);
		m.origin = vfs_node_blob_origin(n);
		if (!(m.path = strdup(path->buf))) {
			rc = -ENOMEM;
			break;
		}
		if (S_ISLNK(vfs_node_mode(n))) {
			m.link = vfs_node_target(n);
		} else if (S_ISREG(vfs_node_mode(n))) {
			m.blob = vfs_node_blob(n);
			/* a file rewritten by a service (a splice over its blob) */
			m.content = vfs_node_composite(n);
			if (vfs_node_nlink(n) > 1) {
				HASH_FIND(hh, c->links, &n, sizeof(n), sl);
				if (sl) {
					m.link = sl->path; /* the first path of this inode */
					m.hardlink = 1;
					m.content = NULL;
				} else if ((sl = calloc(1, sizeof(*sl)))) {
					sl->node = n;
					sl->path = (char *)m.path;
					HASH_ADD(hh, c->links, node, sizeof(sl->node), sl);
					if (rk_htab_oom()) {
						free(sl);
						rc = -ENOMEM;
					}
				} else {
					rc = -ENOMEM;
				}
			}
		}
		if (!rc && (rc = push(c, &m)))
			free((char *)m.path);
		if (!rc && S_ISDIR(vfs_node_mode(n)))
			rc = collect(c, n, path);
		path->len = len;
		path->buf[len] = '\0';
	}
	free(order);
	return rc;
}

static void collect_release(struct collect *c)
{
	struct seen_link *sl, *tmp;

	HASH_ITER(hh, c->links, sl, tmp) {
		HASH_DEL(c->links, sl);
		free(sl);
	}
	for (size_t i = 0; i < c->n; i++)
		free((char *)c->v[i].path);
	free(c->v);
}

int vfs_tree_tar(const struct node *root, struct rk_composite *out, int64_t *newest)
{
	struct rk_buf path = RK_BUF_INIT;
	struct collect c = {0};
	struct rk_tar_member top = {0};
	int rc;

	top.path = strdup("./");
	top.mode = vfs_node_mode(root);
	rc = top.path ? push(&c, &top) : -ENOMEM;
	if (!rc && !(rc = rk_buf_adds(&path, "./")))
		rc = collect(&c, root, &path);
	if (rc && top.path && (!c.n || c.v[0].path != top.path))
		free((char *)top.path);
	if (!rc)
		rc = rk_tar_layout_build(c.v, c.n, c.newest, out);
	if (!rc && newest)
		*newest = c.newest;
	collect_release(&c);
	rk_buf_release(&path);
	return rc;
}

/* ---- a list of members ---- */

int vfs_tar_list_push(struct vfs_tar_list *l, const char *path, uint32_t mode, uint64_t size,
		      const char *blob, const char *link, struct artifact *origin)
{
	struct rk_tar_member *m;

	if (RK_GROW(l->v, l->cap, l->n, 256))
		return -ENOMEM;
	m = &l->v[l->n];
	memset(m, 0, sizeof(*m));
	m->mode = mode;
	m->size = size;
	m->origin = origin ? &origin->blob_origin : NULL;
	if (!(m->path = strdup(path)) || (blob && !(m->blob = strdup(blob))) ||
	    (link && !(m->link = strdup(link)))) {
		free((char *)m->path);
		free((char *)m->blob);
		return -ENOMEM;
	}
	l->n++;
	return 0;
}

void vfs_tar_list_release(struct vfs_tar_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free((char *)l->v[i].path);
		free((char *)l->v[i].blob);
		free((char *)l->v[i].link);
	}
	free(l->v);
}

static int cmp_member(const void *a, const void *b)
{
	return strcmp(((const struct rk_tar_member *)a)->path,
		      ((const struct rk_tar_member *)b)->path);
}

int vfs_tar_list_layout(struct vfs_tar_list *l, int64_t mtime, struct rk_composite *out)
{
	if (l->n)
		qsort(l->v, l->n, sizeof(*l->v), cmp_member);
	return rk_tar_layout_build(l->v, l->n, mtime, out);
}
