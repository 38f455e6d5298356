/* trim.c: the memory a mount holds (rk_vfs_opts.memory_target). The kernel's references
 * to the nodes of each run (counted by rk_vfs_lookup_ref and rk_vfs_readdir_ref, given
 * back by rk_vfs_forget), the files open on them, and when the run was last used; a
 * thread that, when the process holds more than its target, drops the trees of runs
 * nobody uses (no reference, no open file, no ingest, unused for TRIM_IDLE_S): their
 * nodes, artifacts and views' state are freed and the run directory is unpopulated, so
 * that its next access builds it again from the store's listing and the cache (indexes,
 * derived values) without decompressing anything. What it holds, by kind, for status.
 * The rules: docs/internals/vfs.md "Node lifetime". */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rk/log.h"

#include "engine/vfs_int.h"
#include "engine/engine.h"

#define TRIM_IDLE_S 5 /* a run unused for this long may be dropped */
#define TRIM_TICK_S 1 /* how often the memory is measured */
/* a run the kernel holds (its dentries cached) and nobody used for this long: the
 * kernel is asked to forget it (rk_vfs_opts.forget_entry), at most once per this long */
#define TRIM_FORGET_S 30

struct vfs_trim {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	atomic_int started; /* 1: the thread runs, 2: it could not be made (set under lock) */
	int stop; /* lock */
};

static void trim_begin(struct rk_vfs *v);

int64_t mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

/* What the process holds: its resident size, or more when the heap in use and what was
 * resident at open (code, libraries, stacks) say more (pages not touched yet). */
static uint64_t resident(void)
{
	long pages = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
			rss = 0;
		fclose(f);
	}
	return (uint64_t)rss * (uint64_t)sysconf(_SC_PAGESIZE);
}

static uint64_t heap_used(void)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
#else
	return 0;
#endif
}

static uint64_t mem_used(struct rk_vfs *v)
{
	uint64_t h = heap_used() + v->mem_base, r = resident();

	return h > r ? h : r;
}

/* ---- references ---- */

/* k references of the kernel (negative: given back), or an open file (open), on served n;
 * v->tree held (a run directory's run is set under it). */
void node_ref(struct rk_vfs *v, struct node *n, int64_t k, int open)
{
	struct run *r = vfs_node_run(n);

	if (!r)
		return;
	if (v->trim && !atomic_load_explicit(&v->trim->started, memory_order_acquire))
		trim_begin(v);
	r->used_s = mono_s();
	if (open)
		r->opens += k;
	else if (n != r->dir && atomic_fetch_add(&r->krefs, k) + k < 0 && k < 0)
		rk_err_log("internal: run '%s': the kernel forgot more than it was given",
			   r->cat->name); /* never dropped then (krefs is not 0) */
}

void rk_vfs_forget(struct rk_vfs *v, uint64_t ino, uint64_t nlookup)
{
	struct node *n;

	pthread_rwlock_rdlock(&v->life);
	pthread_rwlock_rdlock(&v->tree);
	if ((n = find_ino(v, ino)))
		node_ref(v, n, -(int64_t)nlookup, 0);
	pthread_rwlock_unlock(&v->tree);
	pthread_rwlock_unlock(&v->life);
}

/* ---- dropping runs ---- */

/* r may be dropped as far as its tree says: its directory is listed, nothing uses it.
 * v->life held for writing, v->tree for reading. */
static int unused(struct run *r, int64_t now)
{
	struct node *d = r->dir;

	return d && d->run == r && d->parent && !d->lists_runs && !r->krefs && !r->opens &&
	       now - r->used_s >= TRIM_IDLE_S && vfs_dent_find(d->parent, d->name) == d;
}

/* ... and its populate is done and no ingest of it runs. v->life held for writing (the
 * wait_lock is never held with v->tree). */
static int settled(struct rk_vfs *v, struct run *r)
{
	int ok;

	pthread_mutex_lock(&v->wait_lock);
	ok = r->dir->pop_state == PS_DONE && !r->dir->pop_rc;
	for (size_t i = 0; ok && i < r->cat->narts; i++)
		ok = r->artifacts[i].state != ART_RUNNING;
	pthread_mutex_unlock(&v->wait_lock);
	return ok;
}

/* r is held only by the kernel's cache of its entries: no file open but those kept for
 * that cache (rk_file_kept), no use for TRIM_FORGET_S, not asked to forget for as long,
 * nor since the kernel answered it holds none of its entries. v->life held for writing,
 * v->tree for reading. */
static int kernel_held(struct run *r, int64_t now)
{
	struct node *d = r->dir;
	int64_t used = r->used_s;

	return d && d->run == r && d->parent && !d->lists_runs && r->krefs > 0 &&
	       r->opens == r->kept && now - used >= TRIM_FORGET_S &&
	       now - r->forget_s >= TRIM_FORGET_S && used != r->forget_used &&
	       vfs_dent_find(d->parent, d->name) == d;
}

/* Ask the kernel to forget up to k of the runs in rs[0..n) that only its cache holds,
 * least recently used first (rs sorted so); their FORGETs let a later tick drop them.
 * v->life held for writing (released before the kernel is asked: the requests that a
 * forget may cause take it for reading). Returns with v->life released. */
static void forget_held(struct rk_vfs *v, struct run **rs, size_t n, size_t k, int64_t now)
{
	struct {
		struct run *run; /* (freed by this thread only: drop_runs) */
		int64_t used;
		uint64_t parent;
		char *name;
	} *e = k ? calloc(k, sizeof(*e)) : NULL;
	size_t m = 0;

	if (e) {
		pthread_rwlock_rdlock(&v->tree);
		for (size_t i = 0; i < n && m < k; i++) {
			if (!kernel_held(rs[i], now) || !(e[m].name = strdup(rs[i]->dir->name)))
				continue;
			e[m].run = rs[i];
			e[m].used = rs[i]->used_s;
			e[m++].parent = rs[i]->dir->parent->ino;
			rs[i]->forget_s = now;
		}
		pthread_rwlock_unlock(&v->tree);
	}
	pthread_rwlock_unlock(&v->life);
	for (size_t i = 0; i < m; i++) {
		if (v->forget_entry(v->forget_ctx, e[i].parent, e[i].name) == -ENOENT)
			e[i].run->forget_used = e[i].used;
		free(e[i].name);
	}
	if (m)
		rk_debug("memory: asked the kernel to forget %zu runs it alone holds", m);
	free(e);
}

static int by_use(const void *a, const void *b)
{
	const struct run *x = *(struct run *const *)a, *y = *(struct run *const *)b;

	return (x->used_s > y->used_s) - (x->used_s < y->used_s);
}

/* ---- the end of a run (engine.h), here and in rk_vfs_close ---- */
void run_stop_views(struct run *r)
{
	for (size_t i = 0; i < vfs_nviews; i++)
		if (r->vstate[i] && vfs_views[i]->stop)
			vfs_views[i]->stop(r->vstate[i]);
}

void run_release(struct run *r)
{
	for (size_t i = 0; i < r->cat->narts; i++) {
		if (r->artifacts[i].started)
			pthread_join(r->artifacts[i].thread, NULL);
		vfs_artifact_release(&r->artifacts[i]);
	}
	for (size_t i = 0; i < vfs_nviews; i++)
		if (r->vstate[i] && vfs_views[i]->free)
			vfs_views[i]->free(r->vstate[i]);
}

void run_free(struct run *r)
{
	free(r->artifacts);
	free(r->vstate);
	rk_run_free(r->cat);
	free(r);
}

/* Free the trees of runs rs (k of them, marked dropping) and unpopulate their
 * directories, in rk_vfs_close's order. v->life held for writing. */
static void drop_runs(struct rk_vfs *v, struct run **rs, size_t k)
{
	struct node *n, *tmp, **dead = NULL;
	size_t ndead = 0, cap = 0;

	for (size_t j = 0; j < k; j++)
		run_stop_views(rs[j]);
	for (size_t j = 0; j < k; j++)
		run_release(rs[j]);
	pthread_rwlock_wrlock(&v->tree);
	HASH_ITER(hh, v->inodes, n, tmp) {
		struct run *r = vfs_node_run(n);

		if (!r || !r->dropping || n == r->dir)
			continue;
		if (ndead == cap) {
			size_t ncap = cap ? cap * 2 : 1024;
			struct node **nd = realloc(dead, ncap * sizeof(*nd));

			if (!nd)
				continue; /* it stays (unreachable, freed at unmount) */
			dead = nd;
			cap = ncap;
		}
		dead[ndead++] = n;
	}
	for (size_t i = 0; i < ndead; i++)
		HASH_DEL(v->inodes, dead[i]);
	v->n_nodes -= ndead;
	for (size_t j = 0; j < k; j++)
		dir_clear(rs[j]->dir);
	pthread_rwlock_unlock(&v->tree);
	for (size_t i = 0; i < ndead; i++) /* not before: parents are read until all are out */
		free_node(dead[i]);
	free(dead);
	pthread_mutex_lock(&v->wait_lock);
	for (size_t j = 0; j < k; j++) {
		struct run **p = &v->runs;

		rs[j]->dir->pop_state = PS_TODO;
		rs[j]->dir->pop_rc = 0;
		while (*p && *p != rs[j])
			p = &(*p)->next;
		if (*p)
			*p = rs[j]->next;
	}
	pthread_mutex_unlock(&v->wait_lock);
	for (size_t j = 0; j < k; j++)
		run_free(rs[j]);
	v->n_dropped += k;
}

/* Above the target: drop the runs nobody uses, least recently used first, as many as
 * the runs' average size says bring it under 7/8 of the target; when those are not
 * enough, ask the kernel to forget as many of the runs only its cache holds (a later
 * tick drops them once their FORGETs came). */
static void trim_once(struct rk_vfs *v)
{
	uint64_t used = mem_used(v), want = v->mem_target / 8 * 7;
	struct run **rs = NULL, **held = NULL, *r;
	size_t n = 0, m, nheld = 0, nruns = 0, k = 0, need;
	int64_t now = mono_s();

	if (used <= v->mem_target)
		return;
#ifdef __GLIBC__
	malloc_trim(0); /* freed pages the allocator kept (ingest threads' arenas) go first */
	if ((used = mem_used(v)) <= v->mem_target)
		return;
#endif
	if (pthread_rwlock_trywrlock(&v->life))
		return;
	pthread_rwlock_rdlock(&v->tree);
	for (r = v->runs; r; r = r->next)
		nruns++;
	if (nruns && (rs = malloc(nruns * sizeof(*rs))) && (held = malloc(nruns * sizeof(*held))))
		for (r = v->runs; r; r = r->next) {
			if (unused(r, now))
				rs[n++] = r;
			else if (v->forget_entry && kernel_held(r, now))
				held[nheld++] = r;
		}
	pthread_rwlock_unlock(&v->tree);
	if (!held) {
		pthread_rwlock_unlock(&v->life);
		free(rs);
		return;
	}
	m = n;
	n = 0;
	for (size_t i = 0; i < m; i++)
		if (settled(v, rs[i]))
			rs[n++] = rs[i];
	need = (size_t)((used - want) / ((used > v->mem_base ? used - v->mem_base : used) / nruns + 1) + 1);
	if (n) {
		k = need < n ? need : n;
		qsort(rs, n, sizeof(*rs), by_use);
		for (size_t j = 0; j < k; j++)
			rs[j]->dropping = 1;
		drop_runs(v, rs, k);
		rk_debug("memory: %.1f MiB over a target of %.1f MiB: dropped %zu of %zu runs",
			 (double)used / (1 << 20), (double)v->mem_target / (1 << 20), k, nruns);
	}
	qsort(held, nheld, sizeof(*held), by_use);
	forget_held(v, held, nheld, need - k, now); /* (releases v->life) */
	free(rs);
	free(held);
#ifdef __GLIBC__
	if (k)
		malloc_trim(0); /* give the freed pages back: the target is resident memory */
#endif
}

static void *trim_main(void *p)
{
	struct rk_vfs *v = p;
	struct vfs_trim *t = v->trim;

	pthread_mutex_lock(&t->lock);
	while (!t->stop) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += TRIM_TICK_S;
		pthread_cond_timedwait(&t->cond, &t->lock, &ts);
		if (t->stop)
			break;
		pthread_mutex_unlock(&t->lock);
		trim_once(v);
		pthread_mutex_lock(&t->lock);
	}
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

/* What the process held before any run: code, libraries, stacks. */
static uint64_t mem_base(void)
{
	uint64_t rss = resident(), heap = heap_used();

	return rss > heap ? rss - heap : 0;
}

int trim_start(struct rk_vfs *v, uint64_t target)
{
	struct vfs_trim *t;

	v->mem_target = target;
	v->mem_base = mem_base();
	if (!target)
		return 0;
	if (!(t = calloc(1, sizeof(*t))))
		return -ENOMEM;
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->cond, NULL);
	v->trim = t;
	return 0;
}

/* The thread starts with the first reference the kernel takes, not at open: rockfs
 * forks into the background after opening (fuse_daemonize), and a thread made before
 * stays in the parent, its condition variable waited on for ever in the child's
 * memory (pthread_cond_destroy at unmount then never returns). */
static void trim_begin(struct rk_vfs *v)
{
	struct vfs_trim *t = v->trim;

	pthread_mutex_lock(&t->lock);
	if (!atomic_load(&t->started) && !t->stop) {
		if (!pthread_create(&t->thread, NULL, trim_main, v)) {
			atomic_store_explicit(&t->started, 1, memory_order_release);
		} else {
			atomic_store_explicit(&t->started, 2, memory_order_release);
			rk_warn("memory_target: no thread to honour it (%s); runs are never "
				"dropped",
				strerror(EAGAIN));
		}
	}
	pthread_mutex_unlock(&t->lock);
}

void trim_stop(struct rk_vfs *v)
{
	struct vfs_trim *t = v->trim;

	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	t->stop = 1;
	pthread_cond_signal(&t->cond);
	pthread_mutex_unlock(&t->lock);
	if (atomic_load(&t->started) == 1)
		pthread_join(t->thread, NULL);
	pthread_mutex_destroy(&t->lock);
	pthread_cond_destroy(&t->cond);
	free(t);
	v->trim = NULL;
}

/* ---- what it holds ---- */

static uint64_t list_bytes(const struct rk_store_list *l)
{
	uint64_t b = l->n * sizeof(*l->v);

	for (size_t i = 0; i < l->n; i++)
		b += strlen(l->v[i].name) + 1;
	return b;
}

/* A run's catalog: its listings and artifacts (names, about). */
static uint64_t run_bytes(const struct rk_run *c)
{
	uint64_t b = sizeof(*c) + list_bytes(&c->files) + list_bytes(&c->dirs);

	b += c->narts * (sizeof(*c->arts) + 64);
	return b;
}

void trim_stats(struct rk_vfs *v, struct rk_vfs_stats *st)
{
	uint64_t lists = 0, idx = 0, loaded = 0;

	pthread_rwlock_rdlock(&v->life);
	pthread_mutex_lock(&v->wait_lock);
	for (struct run *r = v->runs; r; r = r->next) {
		loaded++;
		lists += run_bytes(r->cat);
		for (size_t i = 0; i < r->cat->narts; i++) {
			const struct artifact *a = &r->artifacts[i];

			if (a->state != ART_DONE) /* prefixes are set before DONE */
				continue;
			for (size_t j = 0; j < a->nprefixes; j++)
				idx += strlen(a->prefixes[j]) + 1 + sizeof(char *);
		}
	}
	pthread_mutex_unlock(&v->wait_lock);
	pthread_rwlock_unlock(&v->life);
	st->mem_target = v->mem_target;
	st->mem_used = mem_used(v);
	st->mem_nodes = tree_mem();
	st->mem_listings = lists;
	st->mem_indexes = idx;
	st->runs_loaded = loaded;
	st->runs_dropped = v->n_dropped;
	st->runs_rebuilt = v->n_rebuilt;
}
