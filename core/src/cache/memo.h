/* memo.h: load a remembered value from the cache, or compute it and remember it (the
 * derived-value records of rk/cache.h, "memos"): python/'s file hashes and wheel member
 * sums, packages/' digests. A record that is absent or does not parse is computed again;
 * remembering is best effort (the value is still returned when it cannot be kept). */
#ifndef RK_CACHE_MEMO_H
#define RK_CACHE_MEMO_H

#include <stddef.h>

#include "rk/buf.h"
#include "rk/cache.h"
#include "rk/err.h"

struct rk_memo {
	/* Take the value from a record's payload (data[len], NUL-terminated, which it may
	 * change): 0, or nonzero when the record does not parse (it is then computed). */
	int (*load)(void *ctx, char *data, size_t len);
	/* Compute the value and append what to remember to rec. 0 or -errno. */
	int (*compute)(void *ctx, struct rk_buf *rec, struct rk_err *err);
	void *ctx;
	size_t max; /* the longest record read */
};

/* The value of record rel (in area, made as needed) through m; c NULL: always computed,
 * nothing remembered. Returns compute's error, else 0; *unkept (may be NULL) is set when
 * the value was computed but could not be remembered (the caller may say so). */
int rk_memo_load_or_compute(struct rk_cache *c, const char *area, const char *rel,
			    const struct rk_memo *m, int *unkept, struct rk_err *err);

#endif
