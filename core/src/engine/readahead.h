/* readahead.h: the engine's read-ahead of cache blobs (readahead.c). A walk that reads
 * a directory's files one after another (rsync, cp -a, tar) waits on the disk once per
 * file; read-ahead opens the next files' blobs on worker threads (rk_blob_open: the
 * check reads the blob, so its pages are in memory and it is known good), several at a
 * time, while the reader is still busy with the file before. */
#ifndef RK_ENGINE_READAHEAD_H
#define RK_ENGINE_READAHEAD_H

#include <stdint.h>

#include "rk/cache.h"

struct vfs_ahead;

/* Read-ahead over cache with nthreads workers, started at the first push (0 threads:
 * read-ahead off; *out NULL then). */
int vfs_ahead_new(struct rk_cache *cache, unsigned nthreads, struct vfs_ahead **out);
/* Queue blob id (size bytes) to be read ahead; dropped when the queue is full. */
void vfs_ahead_push(struct vfs_ahead *a, const char *id, uint64_t size);
/* Stop the workers (queued blobs are dropped) and free (NULL ok). */
void vfs_ahead_free(struct vfs_ahead *a);
/* Blobs read ahead so far (for tests and status). */
uint64_t vfs_ahead_done(const struct vfs_ahead *a);

#endif
