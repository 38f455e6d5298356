/* vfs.c: the engine's lifetime: rk_vfs_open, rk_vfs_close, rk_vfs_stats. The engine is
 * the served inode tree (tree.c, and the grafting of private trees views build), lazy
 * population (populate.c), the artifacts' life cycle (artifact.c: ingest threads,
 * publish, wait, refill), lookup and readdir (lookup.c), file content (file.c), runs
 * (runs.c). It names no view: it walks vfs_views[] (views/view_registry.c).
 * docs/internals/vfs.md explains it.
 *
 * Locks, in the order they may be taken (all of them: docs/internals/vfs.md):
 *   a->derived_lock    one computation of what a service derives from an artifact
 *   rk_tarz lock       one computation of a compressed tarball's pieces (tar_compress.c,
 *                      taken by services/tarz_file.c's ready, an SRC_OPS file)
 *   open-file locks    one open file's cached descriptors (composite: its rk_blob_set's
 *                      lock; a compressed tarball: its piece's, services/tarz_file.c)
 *   a->refill          one re-ingest of an artifact at a time
 *   v->life (rwlock)   held for reading by every rk/vfs.h call while it uses nodes (and
 *                      across its I/O), for writing only by trim.c (trywrlock: never
 *                      waits) while it frees the trees of runs nobody uses
 *   v->tree (rwlock)   protects: v->inodes, every served node's fields below "mutable"
 *   v->refresh_lock    protects: listed_ms of populated root/org/run directories and
 *                      of store views' directories; held across the store listing
 *                      (one listing again at a time)
 *   v->wait_lock       protects: node pop_state/pop_rc, artifact state/rc/gen, v->active,
 *                      v->runs; v->wait_cond is broadcast on every change
 *   v->ahead_lock      protects: directories' read-ahead counters (taken under v->tree)
 * v->tree and v->wait_lock are never held across store or cache I/O, nor together
 * (populate functions run with none held; vfs_graft takes v->tree for writing to serve
 * a private tree). The locks above them serialize work on one object and are held
 * across its I/O: readers of other files never wait for them. Views and services never
 * take v->tree or v->wait_lock. */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine/readahead.h"
#include "engine/vfs_int.h"
#include "engine/engine.h"

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
	pthread_rwlock_init(&v->life, NULL);
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
	if ((rc = rk_store_open_opts(o->store, &ro, &v->store, err)) ||
	    (rc = vfs_check_run_store(v, o->store, &ro, err)))
		goto fail;
	if ((rc = vfs_ahead_new(v->cache, AHEAD_THREADS, &v->ahead)))
		goto fail;
	if ((rc = store_views_open(v, err)))
		goto fail;
	root = served_lazy_dir(v, NULL, "", pop_root, v->mount_time);
	if (!root) {
		rc = -ENOMEM;
		goto fail;
	}
	root->lists_runs = 1;
	v->forget_entry = o->forget_entry;
	v->forget_ctx = o->forget_ctx;
	if ((rc = trim_start(v, o->memory_target))) {
		rc = rk_err_set(err, rc, "cannot start the memory thread: %s", strerror(-rc));
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
	trim_stop(v);
	v->cancel = 1;
	vfs_ahead_free(v->ahead);
	pthread_mutex_lock(&v->wait_lock);
	while (v->active)
		pthread_cond_wait(&v->wait_cond, &v->wait_lock);
	pthread_mutex_unlock(&v->wait_lock);
	/* background work may read what nodes own; private trees (of views' state and of
	 * what services derived) go while the served nodes they may link to are there */
	store_views_stop(v);
	for (r = v->runs; r; r = r->next)
		run_stop_views(r);
	store_views_free(v); /* before the artifacts: a store view may read their values */
	for (r = v->runs; r; r = r->next)
		run_release(r);
	HASH_ITER(hh, v->inodes, n, tmp) {
		HASH_DEL(v->inodes, n);
		free_node(n);
	}
	while ((r = v->runs)) {
		v->runs = r->next;
		run_free(r);
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
	pthread_rwlock_destroy(&v->life);
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
	st->read_ahead = vfs_ahead_done(v->ahead, VFS_AHEAD_FILE);
	st->read_ahead_pieces = vfs_ahead_done(v->ahead, VFS_AHEAD_PIECE);
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
	trim_stats(v, st);
}

struct rk_cache *rk_vfs_cache(struct rk_vfs *v)
{
	return v->cache;
}
