/* memo.c: load a remembered value from the cache, or compute it and remember it
 * (cache/memo.h). */
#include <stdlib.h>

#include "cache/memo.h"

int rk_memo_load_or_compute(struct rk_cache *c, const char *area, const char *rel,
			    const struct rk_memo *m, int *unkept, struct rk_err *err)
{
	struct rk_buf rec = RK_BUF_INIT;
	char *data = NULL;
	size_t len = 0;
	int rc;

	if (unkept)
		*unkept = 0;
	if (c && rel && !rk_cache_get_file(c, rel, m->max, &data, &len, NULL)) {
		rc = m->load(m->ctx, data, len);
		free(data);
		if (!rc)
			return 0; /* a record that does not parse is made again */
	}
	if ((rc = m->compute(m->ctx, &rec, err))) {
		rk_buf_release(&rec);
		return rc;
	}
	if (c && rel &&
	    (rk_cache_area(c, area) || rk_cache_put_file(c, rel, rec.buf, rec.len, NULL)) && unkept)
		*unkept = 1;
	rk_buf_release(&rec);
	return 0;
}
