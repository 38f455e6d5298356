/* walk.c: the runs of a directory that lists them (the root, {owner}-{repo}/) listed in
 * parallel, a bounded number at a time (as aws-cli and s5cmd list), when the directory
 * is read (a readdir, rockpack ls; a lookup of one run lists only that run): each run's
 * store listing is then remembered by the store (a finished run's for good, in the
 * cache) for its populate, and the run's mtime is its newest object's time, the
 * directory's the newest run's. docs/internals/vfs.md. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "rk/log.h"

#include "engine/vfs_int.h"
#include "engine/engine.h"

/* listings in flight at once; aws-cli's max_concurrent_requests is 10, s5cmd's 256 */
#define WALK_JOBS 16

struct walk {
	struct rk_store *store;
	char **paths;
	int64_t *newest;
	size_t n;
	atomic_size_t next;
};

int64_t listing_newest(const struct rk_store_list *l)
{
	int64_t newest = 0;

	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].mtime > newest)
			newest = l->v[i].mtime;
	return newest;
}

static void *walk_one(void *arg)
{
	struct walk *w = arg;
	size_t i;

	while ((i = atomic_fetch_add(&w->next, 1)) < w->n) {
		struct rk_store_list l;

		/* a failure is the run's populate's to report (it asks again) */
		if (!rk_store_list(w->store, w->paths[i], &l, NULL)) {
			w->newest[i] = listing_newest(&l);
			rk_store_list_release(&l);
		}
	}
	return NULL;
}

static int walk_runs(struct rk_vfs *v, struct node *dir, struct node **runs, size_t n, int first)
{
	struct walk w = {.store = v->store, .n = n};
	pthread_t tid[WALK_JOBS];
	size_t started = 0, jobs = n < WALK_JOBS ? n : WALK_JOBS;
	int64_t dir_newest = 0;

	if (!n)
		return 0;
	w.paths = calloc(n, sizeof(*w.paths));
	w.newest = calloc(n, sizeof(*w.newest));
	if (!w.paths || !w.newest) {
		free(w.paths);
		free(w.newest);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		w.paths[i] = runs[i]->ctx; /* immutable */
	atomic_init(&w.next, 0);
	for (; started + 1 < jobs; started++)
		if (pthread_create(&tid[started], NULL, walk_one, &w))
			break;
	walk_one(&w); /* this thread is one of them (all of them if none started) */
	for (size_t i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	pthread_rwlock_wrlock(&v->tree);
	for (size_t i = 0; i < n; i++) {
		if (w.newest[i] > 0)
			runs[i]->mtime = w.newest[i];
		if (w.newest[i] > dir_newest)
			dir_newest = w.newest[i];
	}
	/* a listing again that adds runs moves dir's mtime on already (add_listed) */
	if (dir_newest > 0 && (first || dir_newest > dir->mtime))
		dir->mtime = dir_newest;
	pthread_rwlock_unlock(&v->tree);
	rk_debug("listed %zu run%s, %zu at a time", n, n == 1 ? "" : "s", jobs);
	free(w.paths);
	free(w.newest);
	return 0;
}

int walk_later(struct rk_vfs *v, struct node *dir, struct node **runs, size_t n)
{
	struct node **all;
	int rc = 0;

	pthread_mutex_lock(&v->wait_lock);
	if (n && !dir->nunwalked) {
		free(dir->unwalked);
		dir->unwalked = runs;
		dir->nunwalked = n;
		runs = NULL;
	} else if (n && (all = realloc(dir->unwalked, (dir->nunwalked + n) * sizeof(*all)))) {
		memcpy(all + dir->nunwalked, runs, n * sizeof(*all));
		dir->unwalked = all;
		dir->nunwalked += n;
	} else if (n) {
		rc = -ENOMEM;
	}
	pthread_mutex_unlock(&v->wait_lock);
	free(runs);
	return rc;
}

void walk_due(struct rk_vfs *v, struct node *dir)
{
	struct node **runs;
	size_t n;

	if (!dir->lists_runs)
		return;
	pthread_mutex_lock(&v->wait_lock);
	n = dir->nunwalked + dir->walking;
	pthread_mutex_unlock(&v->wait_lock);
	if (!n) /* nothing to walk, nor a walk to wait for */
		return;
	/* one walk at a time: a second reader waits for the times the first is fetching */
	pthread_mutex_lock(&v->refresh_lock);
	pthread_mutex_lock(&v->wait_lock);
	runs = dir->unwalked;
	n = dir->nunwalked;
	dir->unwalked = NULL;
	dir->nunwalked = 0;
	dir->walking = 1;
	pthread_mutex_unlock(&v->wait_lock);
	if (n && walk_runs(v, dir, runs, n, !dir->walked))
		rk_warn("'%s': listing its runs: out of memory", dir->parent ? dir->name : "/");
	dir->walked = 1;
	pthread_mutex_lock(&v->wait_lock);
	dir->walking = 0;
	pthread_mutex_unlock(&v->wait_lock);
	pthread_mutex_unlock(&v->refresh_lock);
	free(runs);
}
