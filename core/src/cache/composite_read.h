/* composite_read.h: reading a composite file (rk/composite.h) whose sources are cache
 * blobs: the vfs's open files, compressed tarballs, the python view's checksums.
 *
 * A cursor keeps one blob descriptor between reads, so a reader that walks a file opens
 * each blob once (the vfs keeps one per open file, under that file's lock). A source
 * whose blob is missing or damaged is re-created through the source's origin
 * (rk_origin.reopen), whatever made it: the cursor names nothing. */
#ifndef RK_COMPOSITE_READ_H
#define RK_COMPOSITE_READ_H

#include <stdint.h>
#include <sys/types.h>

#include "rk/cache.h"
#include "rk/composite.h"
#include "rk/err.h"
#include "rk/hash.h"

struct rk_blob_cursor {
	int fd; /* reads blob id, or -1 */
	char id[RK_SHA256_HEX];
};

#define RK_BLOB_CURSOR_INIT \
	{                   \
		-1, ""      \
	}

/* Make cur->fd read source s's blob: kept when it already does, else opened from cache
 * c (a missing or damaged blob re-created through s->origin when it has one). Not
 * thread-safe: one cursor, one reader at a time. 0 or -errno with err set. */
int rk_blob_cursor_open(struct rk_blob_cursor *cur, struct rk_cache *c, const struct rk_source *s,
			struct rk_err *err);
/* Exactly n bytes of source s at off into buf, through cur (opened as above); a blob
 * shorter than asked for is damaged (-EIO). 0 or -errno. */
int rk_blob_cursor_pread(struct rk_blob_cursor *cur, struct rk_cache *c, const struct rk_source *s,
			 void *buf, size_t n, uint64_t off, struct rk_err *err);
void rk_blob_cursor_close(struct rk_blob_cursor *cur);

/* Read [off, off+n) of comp (clamped to its size) with a private cursor, so any number of
 * threads may call it. Returns the bytes read, or -EIO with the failure logged
 * ("composite read at OFF: ...") and set in err. */
ssize_t rk_composite_pread_blobs(struct rk_cache *c, const struct rk_composite *comp, void *buf,
				 size_t n, uint64_t off, struct rk_err *err);

#endif
