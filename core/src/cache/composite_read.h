/* composite_read.h: reading a composite file (rk/composite.h) whose sources are cache
 * blobs: the vfs's open files, compressed tarballs, the python view's checksums.
 *
 * A cursor keeps one blob descriptor between reads, so a reader that walks a file opens
 * each blob once; a blob set keeps a few, for the vfs's open files, which many requests
 * read at once, and maps a read to extents (descriptor ranges and bytes) that the daemon
 * hands to the kernel without copying (splice). A source
 * whose blob is missing or damaged is re-created through the source's origin
 * (rk_origin.reopen), whatever made it: the cursor names nothing. */
#ifndef RK_COMPOSITE_READ_H
#define RK_COMPOSITE_READ_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "rk/cache.h"
#include "rk/composite.h"
#include "rk/err.h"
#include "rk/hash.h"

struct rk_blob_cursor {
	int fd; /* reads blob id, or -1 */
	char id[RK_SHA256_HEX];
	int blob; /* fd is the cache blob (rk_blob_open), not what the source's origin gave */
};

#define RK_BLOB_CURSOR_INIT \
	{                   \
		-1, "", 0   \
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

/* The blob descriptors one open composite keeps between reads: the last few sources read
 * (least recently used replaced), so readers walking the file, several requests at once
 * (the kernel's readahead), open each blob once instead of once per request. Readers get
 * a duplicate of a descriptor, so one may be replaced while another reader still uses
 * it. Thread-safe. */
#define RK_BLOB_SET_SLOTS 8
struct rk_blob_set {
	pthread_mutex_t lock;
	uint64_t tick;
	struct {
		int fd; /* -1: empty */
		int blob; /* fd is the cache blob: rechecked on use (rk_blob_recheck) */
		uint32_t src;
		uint64_t used;
	} slot[RK_BLOB_SET_SLOTS];
};

void rk_blob_set_init(struct rk_blob_set *set);
void rk_blob_set_release(struct rk_blob_set *set); /* closes the descriptors */

/* Exactly n bytes of comp's source src at off into buf, through set. 0 or -errno with err
 * set (-EIO: a blob shorter than its piece). */
int rk_blob_set_pread(struct rk_blob_set *set, struct rk_cache *c, const struct rk_composite *comp,
		      uint32_t src, void *buf, size_t n, uint64_t off, struct rk_err *err);

/* [off, off+n) of comp (clamped to its size) as extents, at most max, without reading a
 * byte: blob ranges as ranges of a descriptor of their own (a duplicate from set), literal
 * bytes as the composite's arena, zeros as a static zero page. Returns how many (0 past the
 * end), -E2BIG when more than max would be needed (read with a copy instead), or -errno
 * with err set (a blob that cannot be opened nor re-created). Close with
 * rk_extents_close. */
ssize_t rk_composite_extents(struct rk_blob_set *set, struct rk_cache *c,
			     const struct rk_composite *comp, uint64_t off, size_t n,
			     struct rk_extent *ext, size_t max, struct rk_err *err);

/* Read [off, off+n) of comp (clamped to its size) with a private cursor, so any number of
 * threads may call it. Returns the bytes read, or -EIO with the failure logged
 * ("composite read at OFF: ...") and set in err. */
ssize_t rk_composite_pread_blobs(struct rk_cache *c, const struct rk_composite *comp, void *buf,
				 size_t n, uint64_t off, struct rk_err *err);

#endif
