/* stored_dir.c: a folder of the store passed through as it is: a lazy directory that
 * lists its store path on first look, serves each file from the store (SRC_STORE, the
 * stored bytes, read-only) and each subfolder as another such directory. The one
 * mechanism for what CI stored beside a run's archives (RUN/logs/, RUN/manifests/,
 * stored tarballs/ and packages/ folders) and for the store's prefixes that are neither
 * runs nor namespaces. docs/views.md ("Stored and synthesized") gives the rule. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rk/buf.h"

#include "engine/vfs_int.h"
#include "engine/engine.h"

/* Serve the entries of listing l of store path in served directory dir (v->tree held
 * for writing): files from the store, folders as lazy stored directories. A name dir
 * has already is left as it is. */
static int serve_listing(struct rk_vfs *v, struct node *dir, const char *path,
			 const struct rk_store_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct rk_store_entry *e = &l->v[i];
		struct node *n;

		if (vfs_dent_find(dir, e->name))
			continue;
		if (e->is_dir) {
			n = served_lazy_dir(v, dir, e->name, vfs_pop_stored, e->mtime);
			if (!n || !(n->ctx = join_path(path, e->name)))
				return -ENOMEM;
			continue;
		}
		n = served_add(v, dir, e->name, S_IFREG | 0444, e->mtime);
		if (!n || !(n->data = join_path(path, e->name)))
			return -ENOMEM;
		n->src = SRC_STORE;
		n->size = e->size;
	}
	return 0;
}

int vfs_pop_stored(struct rk_vfs *v, struct node *dir, struct rk_err *err)
{
	struct rk_store_list l;
	int rc = rk_store_list(v->store, dir->ctx ? dir->ctx : "", &l, err);

	if (rc)
		return rc;
	pthread_rwlock_wrlock(&v->tree);
	rc = serve_listing(v, dir, dir->ctx ? dir->ctx : "", &l);
	pthread_rwlock_unlock(&v->tree);
	rk_store_list_release(&l);
	return rc;
}

int vfs_stored_files(struct rk_vfs *v, struct node *dir, const char *path,
		     const struct rk_store_list *l)
{
	struct rk_store_list files = {.v = l->v, .n = 0};
	int rc = 0;

	pthread_rwlock_wrlock(&v->tree);
	for (size_t i = 0; !rc && i < l->n; i++)
		if (!l->v[i].is_dir) {
			files.v = &l->v[i];
			files.n = 1;
			rc = serve_listing(v, dir, path, &files);
		}
	pthread_rwlock_unlock(&v->tree);
	return rc;
}

struct node *vfs_stored_dir(struct node *dir, const char *name, const char *path, int64_t mtime)
{
	struct node *n = vfs_lazy_dir(dir, name, vfs_pop_stored, mtime);

	if (n && !(n->ctx = strdup(path)))
		return NULL; /* freed with dir's tree */
	return n;
}

int vfs_stored_overlay(struct rk_vfs *v, struct node *out, const char *path, struct rk_buf *said,
		       struct rk_err *err)
{
	struct rk_store_list l = {0};
	int rc = rk_store_list(v->store, path, &l, err);

	if (rc == -ENOENT) { /* nothing stored there */
		rk_err_clear(err);
		return 0;
	}
	for (size_t i = 0; !rc && i < l.n; i++) {
		const struct rk_store_entry *e = &l.v[i];
		struct node *old = vfs_dent_del(out, e->name), *n;
		char *sp = join_path(path, e->name);

		if (said && sp)
			rc = rk_buf_addf(said, "%s%s\tstored %s%s%s\n", e->name,
					 e->is_dir ? "/" : "", sp, e->is_dir ? "/" : "",
					 old ? " (what rockfs makes of this name is not served)"
					     : "");
		vfs_tree_free(old);
		if (!sp || rc) {
			free(sp);
			rc = -ENOMEM;
			break;
		}
		n = e->is_dir ? vfs_stored_dir(out, e->name, sp, e->mtime)
			      : vfs_store_file(out, e->name, S_IFREG | 0444, e->mtime, sp, e->size);
		free(sp);
		if (!n)
			rc = -ENOMEM;
	}
	/* then what out has that the store does not: made by rockfs */
	for (size_t i = 0; !rc && said && i < out->nents; i++) {
		const char *name = out->order[i]->name;
		struct node *n = out->order[i]->node;

		if (!rk_store_list_find(&l, name))
			rc = rk_buf_addf(said, "%s%s\tmade by rockfs\n", name,
					 S_ISDIR(n->mode) ? "/" : "");
	}
	rk_store_list_release(&l);
	return rc;
}

int vfs_run_stored_over(struct rk_vfs *v, struct run *r, const char *folder, struct node *out,
			struct rk_err *err)
{
	struct rk_buf b = RK_BUF_INIT;
	char *path, *data;
	size_t len;
	int rc;

	if (!rk_run_has_dir(r->cat, folder))
		return 0;
	if (!(path = join_path(r->cat->path, folder)))
		return -ENOMEM;
	rc = vfs_stored_overlay(v, out, path, &b, err);
	free(path);
	data = rc || !b.len ? NULL : rk_buf_detach(&b, &len);
	if (!rc && (!data || vfs_dent_find(out, "PROVENANCE")))
		free(data); /* CI stored one: it stays */
	else if (!rc && !(data && vfs_bytes_adopt(out, "PROVENANCE", S_IFREG | 0444,
						  vfs_node_mtime(out), data, len)))
		rc = -ENOMEM;
	rk_buf_release(&b);
	return rc;
}
