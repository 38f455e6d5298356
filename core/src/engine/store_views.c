/* store_views.c: store-level views, the views whose directory /<name>/ is at the root of
 * a store of runs and in each {owner}-{repo}/ (struct vfs_view.place VFS_VIEW_STORE):
 * which views they are (checked once, at rk_vfs_open), their directories in every
 * directory that lists runs, the per-store state, the runs a view sees, and stop/free at
 * unmount. A view's name keeps its directory: a run or org of the same name is not
 * listed there (logged once). The locks: vfs.c; docs/internals/vfs.md. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rk/artifact.h"
#include "rk/log.h"

#include "engine/vfs_int.h"
#include "engine/engine.h"

/* A directory that lists runs and its store views' state. */
struct vfs_store {
	struct node *dir; /* the root of a store of runs, or an {owner}-{repo}/ */
	void **vstate; /* per store view (v->stores->views order): its state, or NULL */
	_Atomic uint8_t *hide_logged; /* per store view: an entry it hides was logged */
	struct vfs_store *next;
};

struct vfs_stores {
	const struct vfs_view **views; /* the store views: vfs_views[]'s, then the test's */
	size_t n;
	struct vfs_store *list; /* v->wait_lock */
};

/* vfs_test_store_views (unit tests only): read by rk_vfs_open. */
static const struct vfs_view *const *test_views;
static size_t ntest_views;

void vfs_test_store_views(const struct vfs_view *const *views, size_t n)
{
	test_views = views;
	ntest_views = n;
}

/* Whether a store view's name can be a directory next to runs: one path component that
 * is not the README nor a run's name (those would hide a run, not an org). */
static int name_ok(const char *name)
{
	return name && name[0] && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..") &&
	       strcmp(name, "README") && !rk_run_name_valid(name);
}

int store_views_open(struct rk_vfs *v, struct rk_err *err)
{
	struct vfs_stores *s = calloc(1, sizeof(*s));
	size_t max = vfs_nviews + ntest_views;

	if (!s || !(s->views = calloc(max + 1, sizeof(*s->views)))) {
		free(s);
		return -ENOMEM;
	}
	v->stores = s;
	for (size_t i = 0; i < max; i++) {
		const struct vfs_view *w =
			i < vfs_nviews ? vfs_views[i] : test_views[i - vfs_nviews];

		if (w->place != VFS_VIEW_STORE)
			continue;
		if (!name_ok(w->name))
			return rk_err_set(
				err, -EINVAL,
				"store view '%s': not a name for a directory next to runs",
				w->name ? w->name : "");
		for (size_t j = 0; j < s->n; j++)
			if (!strcmp(s->views[j]->name, w->name))
				return rk_err_set(err, -EINVAL, "store view '%s': listed twice",
						  w->name);
		s->views[s->n++] = w;
	}
	return 0;
}

int store_views_add(struct rk_vfs *v, struct node *dir)
{
	struct vfs_stores *ss = v->stores;
	struct vfs_store *s;
	int rc = 0;

	if (!ss->n)
		return 0;
	s = calloc(1, sizeof(*s));
	if (!s || !(s->vstate = calloc(ss->n, sizeof(*s->vstate))) ||
	    !(s->hide_logged = calloc(ss->n, sizeof(*s->hide_logged)))) {
		if (s)
			free(s->vstate);
		free(s);
		return -ENOMEM;
	}
	s->dir = dir;
	pthread_mutex_lock(&v->wait_lock);
	s->next = ss->list;
	ss->list = s;
	pthread_mutex_unlock(&v->wait_lock);
	pthread_rwlock_wrlock(&v->tree);
	for (size_t i = 0; !rc && i < ss->n; i++) {
		struct node *n = served_lazy_dir(v, dir, ss->views[i]->name, ss->views[i]->populate,
						 dir->mtime);

		if (!n)
			rc = -ENOMEM;
		else
			n->store_view = 1;
	}
	pthread_rwlock_unlock(&v->tree);
	return rc;
}

const struct vfs_view *store_view_named(struct rk_vfs *v, const char *name)
{
	struct vfs_stores *ss = v->stores;

	for (size_t i = 0; ss && i < ss->n; i++)
		if (!strcmp(ss->views[i]->name, name))
			return ss->views[i];
	return NULL;
}

struct node *store_dir(const struct node *n)
{
	while (n && !(n->lists_runs && !n->run))
		n = n->parent;
	return (struct node *)n;
}

/* The store of store directory dir, and view's index in v->stores->views (-1: none). */
static struct vfs_store *store_of(struct rk_vfs *v, const struct node *dir,
				  const struct vfs_view *view, const char *name, int *idx)
{
	struct vfs_stores *ss = v->stores;
	struct vfs_store *s;

	*idx = -1;
	for (size_t i = 0; i < ss->n; i++)
		if (ss->views[i] == view || (name && !strcmp(ss->views[i]->name, name)))
			*idx = (int)i;
	if (*idx < 0)
		return NULL;
	pthread_mutex_lock(&v->wait_lock);
	for (s = ss->list; s && s->dir != dir; s = s->next)
		;
	pthread_mutex_unlock(&v->wait_lock);
	return s;
}

void store_views_hides(struct rk_vfs *v, struct node *dir, const char *path, const char *name)
{
	int i;
	struct vfs_store *s = store_of(v, dir, NULL, name, &i);

	if (s && !atomic_exchange(&s->hide_logged[i], 1))
		rk_warn("'%s': the store's '%s' is not listed: the store view %s/ has its name",
			path[0] ? path : "/", name, name);
}

void **vfs_store_state(struct rk_vfs *v, const struct node *dir, const struct vfs_view *view)
{
	int i;
	struct vfs_store *s = store_of(v, store_dir(dir), view, NULL, &i);

	return s ? &s->vstate[i] : NULL; /* NULL: not a store view's node, a programming error */
}

void store_views_stop(struct rk_vfs *v)
{
	struct vfs_stores *ss = v->stores;

	for (struct vfs_store *s = ss ? ss->list : NULL; s; s = s->next)
		for (size_t i = 0; i < ss->n; i++)
			if (s->vstate[i] && ss->views[i]->stop)
				ss->views[i]->stop(s->vstate[i]);
}

void store_views_free(struct rk_vfs *v)
{
	struct vfs_stores *ss = v->stores;
	struct vfs_store *s;

	if (!ss)
		return;
	while ((s = ss->list)) {
		ss->list = s->next;
		for (size_t i = 0; i < ss->n; i++)
			if (s->vstate[i] && ss->views[i]->free)
				ss->views[i]->free(s->vstate[i]);
		free(s->vstate);
		free((void *)s->hide_logged);
		free(s);
	}
	free(ss->views);
	free(ss);
	v->stores = NULL;
}
