/* lookup.c: the tree as rk/vfs.h shows it: lookup, getattr, readlink, readdir, resolve
 * (a path), rk_vfs_refresh. The locks: vfs.c; docs/internals/vfs.md. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/vfs_int.h"
#include "engine/engine.h"

static void fill_attr(const struct node *n, struct rk_attr *a)
{
	a->ino = n->ino;
	a->mode = n->mode;
	a->nlink = S_ISDIR(n->mode) ? 1 : n->nlink; /* 1: "unknown", so find never prunes */
	a->size = n->size;
	a->mtime = n->mtime;
	a->live = n->lists_runs && !n->run;
	a->run = (n->pop == pop_run && n->parent) || n->renew;
	a->pending = node_pending(n);
}

/* Find ino and make sure it is a populated directory. */
int get_dir(struct rk_vfs *v, uint64_t ino, struct node **out, struct rk_err *err)
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
	int rc = 0;

	pthread_rwlock_rdlock(&v->life);
	pthread_rwlock_rdlock(&v->tree);
	dir = find_ino(v, ino);
	pthread_rwlock_unlock(&v->tree);
	if (dir && S_ISDIR(dir->mode) && dir->lists_runs)
		rc = refresh_listing(v, dir);
	pthread_rwlock_unlock(&v->life);
	return rc;
}

/* rk_vfs_lookup; ref: count a reference of the kernel on the entry. v->life held. */
static int lookup(struct rk_vfs *v, uint64_t parent, const char *name, struct rk_attr *out, int ref,
		  struct rk_err *err)
{
	struct node *dir, *n;
	uint64_t gen = 0;
	int rc, state = ART_DONE, missed = 0;

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
			n = n->renew ? renew_dir(v, dir, n) : refresh_run(v, dir, n);
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
		if (n && ref) {
			pthread_rwlock_rdlock(&v->tree);
			node_ref(v, n, 1, 0);
			pthread_rwlock_unlock(&v->tree);
		}
		if (n)
			return 0;
		if (dir->miss && !missed) {
			missed = 1; /* the view makes the name, or says there is none */
			rc = dir->miss(v, dir, name, err);
			if (!rc || rc == -EEXIST)
				continue;
			return rc;
		}
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

int rk_vfs_lookup(struct rk_vfs *v, uint64_t parent, const char *name, struct rk_attr *out,
		  struct rk_err *err)
{
	int rc;

	pthread_rwlock_rdlock(&v->life);
	rc = lookup(v, parent, name, out, 0, err);
	pthread_rwlock_unlock(&v->life);
	return rc;
}

int rk_vfs_lookup_ref(struct rk_vfs *v, uint64_t parent, const char *name, struct rk_attr *out,
		      struct rk_err *err)
{
	int rc;

	pthread_rwlock_rdlock(&v->life);
	rc = lookup(v, parent, name, out, 1, err);
	pthread_rwlock_unlock(&v->life);
	return rc;
}

static int getattr(struct rk_vfs *v, uint64_t ino, struct rk_attr *out, struct rk_err *err)
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

int rk_vfs_getattr(struct rk_vfs *v, uint64_t ino, struct rk_attr *out, struct rk_err *err)
{
	int rc;

	pthread_rwlock_rdlock(&v->life);
	rc = getattr(v, ino, out, err);
	pthread_rwlock_unlock(&v->life);
	return rc;
}

int rk_vfs_readlink(struct rk_vfs *v, uint64_t ino, char *buf, size_t size, struct rk_err *err)
{
	struct node *n;
	int rc;

	(void)err;
	pthread_rwlock_rdlock(&v->life);
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
	pthread_rwlock_unlock(&v->life);
	return rc;
}

/* rk_vfs_readdir; whole: an incomplete listing's error also after its last entry was
 * filled in this call (rk_vfs_readdir_all), not only on the call after it; ref: count a
 * reference of the kernel on each entry filled whose size is known. v->life held. */
static int readdir_from(struct rk_vfs *v, uint64_t ino, uint64_t off, int whole, int ref,
			rk_dir_fill_fn fill, void *ctx, struct rk_err *err)
{
	struct node *dir;
	int rc, state = ART_DONE;
	uint64_t gen, start;

	if ((rc = get_dir(v, ino, &dir, err)))
		return rc;
	walk_due(v, dir); /* the times of runs listed since the last readdir */
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
		if (ref && !a.pending)
			node_ref(v, dir->order[off]->node, 1, 0);
	}
	if (dir->incomplete && off >= dir->nents && (whole || off == start))
		rc = rk_err_set(err, -EIO, "'%s': listing incomplete: %s", dir->name,
				dir->why_incomplete ? dir->why_incomplete : "a damaged artifact");
	pthread_rwlock_unlock(&v->tree);
	return rc;
}

static int readdir_locked(struct rk_vfs *v, uint64_t ino, uint64_t off, int whole, int ref,
			  rk_dir_fill_fn fill, void *ctx, struct rk_err *err)
{
	int rc;

	pthread_rwlock_rdlock(&v->life);
	rc = readdir_from(v, ino, off, whole, ref, fill, ctx, err);
	pthread_rwlock_unlock(&v->life);
	return rc;
}

int rk_vfs_readdir(struct rk_vfs *v, uint64_t ino, uint64_t off, rk_dir_fill_fn fill, void *ctx,
		   struct rk_err *err)
{
	return readdir_locked(v, ino, off, 0, 0, fill, ctx, err);
}

int rk_vfs_readdir_ref(struct rk_vfs *v, uint64_t ino, uint64_t off, rk_dir_fill_fn fill, void *ctx,
		       struct rk_err *err)
{
	return readdir_locked(v, ino, off, 0, 1, fill, ctx, err);
}

int rk_vfs_readdir_all(struct rk_vfs *v, uint64_t ino, rk_dir_fill_fn fill, void *ctx,
		       struct rk_err *err)
{
	return readdir_locked(v, ino, 0, 1, 0, fill, ctx, err);
}

int rk_vfs_resolve(struct rk_vfs *v, const char *path, struct rk_attr *out, struct rk_err *err)
{
	char comp[NAME_MAX + 1];
	struct rk_attr a;
	int rc;

	/* (each step holds v->life: nodes are not kept between them, only inode numbers) */
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
