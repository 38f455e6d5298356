/* readahead.c: worker threads that open cache blobs ahead of their readers
 * (readahead.h). A bounded ring of blob ranges under one mutex; a push never blocks (a
 * full ring drops the range: read-ahead is a hint). A worker's rk_blob_open checks the
 * blob (reading it into the page cache), or asks the kernel to read the range when it
 * was checked before, and closes it; a failure is left for the real open to report. The
 * workers start at the first push: the daemon opens its vfs before it forks into the
 * background, and threads do not survive a fork. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rk/compiler.h"
#include "rk/hash.h"
#include "engine/readahead.h"

#define AHEAD_RING 256 /* queued blobs at most */
/* A composite's read-ahead: the pieces that start in the next PIECES_BYTES past a read,
 * at most PIECES_MAX of them per read, each read ahead for at most PIECES_BYTES (a
 * large piece's blob is read on by the kernel's own readahead, as the reader goes). */
#define PIECES_BYTES (4u << 20)
#define PIECES_MAX 64
#define AHEAD_THREADS_MAX 8

struct ahead_item {
	char id[RK_SHA256_HEX];
	uint64_t size, off, len; /* len 0: to the end */
	enum vfs_ahead_kind kind;
};

struct vfs_ahead {
	struct rk_cache *cache;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct ahead_item ring[AHEAD_RING];
	unsigned head, count; /* lock */
	int stop; /* lock */
	unsigned want, nthreads; /* lock (nthreads: started, at the first push) */
	pthread_t threads[AHEAD_THREADS_MAX];
	_Atomic uint64_t done[VFS_AHEAD_KINDS];
};

static void *worker(void *p)
{
	struct vfs_ahead *a = p;
	struct ahead_item it;
	int fd;

	pthread_mutex_lock(&a->lock);
	for (;;) {
		while (!a->count && !a->stop)
			pthread_cond_wait(&a->cond, &a->lock);
		if (a->stop)
			break;
		it = a->ring[a->head];
		a->head = (a->head + 1) % AHEAD_RING;
		a->count--;
		pthread_mutex_unlock(&a->lock);
		if (!rk_blob_open(a->cache, it.id, it.size, &fd, NULL)) {
			/* a blob checked before (in this process) was not read by the check */
			posix_fadvise(fd, (off_t)it.off, (off_t)it.len, POSIX_FADV_WILLNEED);
			close(fd);
			a->done[it.kind]++;
		}
		pthread_mutex_lock(&a->lock);
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

int vfs_ahead_new(struct rk_cache *cache, unsigned nthreads, struct vfs_ahead **out)
{
	struct vfs_ahead *a;

	*out = NULL;
	if (!nthreads || !cache)
		return 0;
	if (!(a = calloc(1, sizeof(*a))))
		return -ENOMEM;
	a->cache = cache;
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->cond, NULL);
	a->want = nthreads < AHEAD_THREADS_MAX ? nthreads : AHEAD_THREADS_MAX;
	*out = a;
	return 0;
}

void vfs_ahead_push(struct vfs_ahead *a, const char *id, uint64_t size, uint64_t off, uint64_t len,
		    enum vfs_ahead_kind kind)
{
	struct ahead_item *it;

	pthread_mutex_lock(&a->lock);
	for (; a->nthreads < a->want; a->nthreads++)
		if (pthread_create(&a->threads[a->nthreads], NULL, worker, a)) {
			a->want = a->nthreads; /* read-ahead with fewer threads, or none */
			break;
		}
	if (a->nthreads && a->count < AHEAD_RING) {
		it = &a->ring[(a->head + a->count) % AHEAD_RING];
		memcpy(it->id, id, RK_SHA256_HEX);
		it->size = size;
		it->off = off;
		it->len = len;
		it->kind = kind;
		a->count++;
		pthread_cond_signal(&a->cond);
	}
	pthread_mutex_unlock(&a->lock);
}

void vfs_ahead_free(struct vfs_ahead *a)
{
	if (!a)
		return;
	pthread_mutex_lock(&a->lock);
	a->stop = 1;
	pthread_cond_broadcast(&a->cond);
	pthread_mutex_unlock(&a->lock);
	for (unsigned i = 0; i < a->nthreads; i++)
		pthread_join(a->threads[i], NULL);
	pthread_cond_destroy(&a->cond);
	pthread_mutex_destroy(&a->lock);
	free(a);
}

uint64_t vfs_ahead_done(const struct vfs_ahead *a, enum vfs_ahead_kind kind)
{
	return a ? a->done[kind] : 0;
}

void vfs_ahead_pieces(struct vfs_ahead *a, const struct rk_composite *c, _Atomic uint64_t *to,
		      uint64_t off, size_t n)
{
	uint64_t end = off + n, want = end + PIECES_BYTES, seen = *to, from = seen;
	unsigned pushed = 0;

	if (!a || !c->nsources || end >= c->size)
		return;
	if (from < end || from > want + PIECES_BYTES) /* behind the read, or a jump back */
		from = end;
	if (from >= want || !atomic_compare_exchange_strong(to, &seen, want))
		return; /* nothing new, or another reader moved the window meanwhile */
	for (const struct rk_piece *p = rk_composite_find(c, from);
	     p && p < c->pieces + c->npieces && p->off < want && pushed < PIECES_MAX; p++) {
		const struct rk_source *s;

		if (p->kind != RK_PIECE_SOURCE || p->off < from || p->src >= c->nsources)
			continue; /* (a piece begun before from was pushed before, or is read) */
		s = &c->sources[p->src];
		vfs_ahead_push(a, s->id, s->size, p->at, RK_MIN(p->len, (uint64_t)PIECES_BYTES),
			       VFS_AHEAD_PIECE);
		pushed++;
	}
}
