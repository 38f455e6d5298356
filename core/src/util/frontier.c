/* frontier.c: the readable prefix of a file being written (rk/frontier.h). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "rk/frontier.h"

struct rk_frontier {
	_Atomic uint64_t done; /* written so far; readers below it take no lock */
	_Atomic int state; /* 0 writing, 1 whole, < 0 failed */
	_Atomic unsigned refs;
	uint64_t size;
	unsigned waiters; /* under lock: the writer wakes only when someone waits */
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

struct rk_frontier *rk_frontier_new(uint64_t size)
{
	struct rk_frontier *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->size = size;
	f->refs = 1;
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->cond, NULL);
	return f;
}

struct rk_frontier *rk_frontier_get(struct rk_frontier *f)
{
	if (f)
		atomic_fetch_add(&f->refs, 1);
	return f;
}

void rk_frontier_put(struct rk_frontier *f)
{
	if (!f || atomic_fetch_sub(&f->refs, 1) != 1)
		return;
	pthread_mutex_destroy(&f->lock);
	pthread_cond_destroy(&f->cond);
	free(f);
}

void rk_frontier_advance(struct rk_frontier *f, uint64_t done)
{
	pthread_mutex_lock(&f->lock);
	atomic_store(&f->done, done);
	if (f->waiters)
		pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
}

void rk_frontier_end(struct rk_frontier *f, int rc)
{
	pthread_mutex_lock(&f->lock);
	if (atomic_load(&f->state) >= 0)
		atomic_store(&f->state, rc < 0 ? rc : 1);
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
}

int rk_frontier_wait(struct rk_frontier *f, uint64_t want)
{
	int state = atomic_load(&f->state);

	if (want > f->size)
		want = f->size;
	if (state)
		return state < 0 ? state : 0;
	if (atomic_load(&f->done) >= want)
		return 0;
	pthread_mutex_lock(&f->lock);
	f->waiters++;
	while (!(state = atomic_load(&f->state)) && atomic_load(&f->done) < want)
		pthread_cond_wait(&f->cond, &f->lock);
	f->waiters--;
	pthread_mutex_unlock(&f->lock);
	return state < 0 ? state : 0;
}
