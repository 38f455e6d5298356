/* readahead.h: the engine's read-ahead of cache blobs (readahead.c). A walk that reads
 * a directory's files one after another (rsync, cp -a, tar) waits on the disk once per
 * file, and so does a read of a composite of many small pieces (a tarball of small
 * members) once per piece; read-ahead opens the next files' or pieces' blobs on worker
 * threads (rk_blob_open: the check reads the blob, so its pages are in memory and it is
 * known good; a blob checked before is read with POSIX_FADV_WILLNEED), several at a
 * time, while the reader is still busy with the one before. */
#ifndef RK_ENGINE_READAHEAD_H
#define RK_ENGINE_READAHEAD_H

#include <stddef.h>
#include <stdint.h>

#include "rk/cache.h"
#include "rk/composite.h"

struct vfs_ahead;

/* Read-ahead over cache with nthreads workers, started at the first push (0 threads:
 * read-ahead off; *out NULL then). */
int vfs_ahead_new(struct rk_cache *cache, unsigned nthreads, struct vfs_ahead **out);
/* What a read-ahead was for (counted apart: status, tests). */
enum vfs_ahead_kind {
	VFS_AHEAD_FILE, /* the next files of a directory (file.c) */
	VFS_AHEAD_PIECE, /* the next pieces of a composite (vfs_ahead_pieces) */
	VFS_AHEAD_KINDS
};

/* Queue [off, off + len) of blob id (size bytes; len 0: to its end) to be read ahead;
 * dropped when the queue is full. */
void vfs_ahead_push(struct vfs_ahead *a, const char *id, uint64_t size, uint64_t off, uint64_t len,
		    enum vfs_ahead_kind kind);
/* A read of [off, off + n) of composite c: queue the blobs of the pieces that begin in
 * the few MiB past it. *to (the reader's, zero at first) is how far that was done
 * before, so a sequential reader queues each piece once; several readers of one file
 * may call at once. */
void vfs_ahead_pieces(struct vfs_ahead *a, const struct rk_composite *c, _Atomic uint64_t *to,
		      uint64_t off, size_t n);
/* Stop the workers (queued blobs are dropped) and free (NULL ok). */
void vfs_ahead_free(struct vfs_ahead *a);
/* Blobs read ahead so far for kind (for tests and status). */
uint64_t vfs_ahead_done(const struct vfs_ahead *a, enum vfs_ahead_kind kind);

#endif
