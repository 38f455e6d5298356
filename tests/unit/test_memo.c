/* test_memo.c: cache/memo.h, load a remembered value or compute and remember it: the
 * first call computes and keeps the record, the second loads it, a record that does not
 * parse is computed again (and replaced), no cache computes every time, and a failure of
 * the computation is returned with nothing kept. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk/cache.h"
#include "cache/memo.h"
#include "rk_test.h"

struct val {
	int computed, fail;
	char v[32];
};

static int load(void *ctx, char *data, size_t len)
{
	struct val *x = ctx;

	if (len < 4 || strncmp(data, "val:", 4))
		return -EINVAL;
	snprintf(x->v, sizeof(x->v), "%s", data + 4);
	return 0;
}

static int compute(void *ctx, struct rk_buf *rec, struct rk_err *err)
{
	struct val *x = ctx;

	x->computed++;
	if (x->fail)
		return rk_err_set(err, -EIO, "cannot");
	snprintf(x->v, sizeof(x->v), "42");
	return rk_buf_addf(rec, "val:%s", x->v);
}

static struct rk_cache *open_cache(void)
{
	struct rk_cache *c = NULL;
	struct rk_err err = RK_ERR_INIT;

	RK_ASSERT_EQ_INT(0, rk_cache_open("cache", 0, &c, &err));
	return c;
}

RK_TEST(compute_then_load)
{
	struct rk_cache *c = open_cache();
	struct val x = {0};
	const struct rk_memo m = {load, compute, &x, 64};
	struct rk_err err = RK_ERR_INIT;
	int unkept = -1;
	char *data;
	size_t len;

	RK_ASSERT_EQ_INT(0, rk_memo_load_or_compute(c, "pyhash", "pyhash/k1", &m, &unkept, &err));
	RK_ASSERT_EQ_INT(1, x.computed);
	RK_ASSERT_EQ_INT(0, unkept);
	RK_ASSERT_EQ_STR("42", x.v);
	x.v[0] = '\0';
	RK_ASSERT_EQ_INT(0, rk_memo_load_or_compute(c, "pyhash", "pyhash/k1", &m, &unkept, &err));
	RK_ASSERT_EQ_INT(1, x.computed); /* loaded */
	RK_ASSERT_EQ_STR("42", x.v);
	/* a record that does not parse: computed again, and replaced */
	RK_ASSERT_EQ_INT(0, rk_cache_put_file(c, "pyhash/k1", "junk", 4, NULL));
	RK_ASSERT_EQ_INT(0, rk_memo_load_or_compute(c, "pyhash", "pyhash/k1", &m, NULL, &err));
	RK_ASSERT_EQ_INT(2, x.computed);
	RK_ASSERT_EQ_INT(0, rk_cache_get_file(c, "pyhash/k1", 64, &data, &len, NULL));
	RK_ASSERT_EQ_STR("val:42", data);
	free(data);
	rk_cache_close(c);
}

RK_TEST(no_cache_and_failure)
{
	struct rk_cache *c = open_cache();
	struct val x = {0};
	const struct rk_memo m = {load, compute, &x, 64};
	struct rk_err err = RK_ERR_INIT;

	RK_ASSERT_EQ_INT(0, rk_memo_load_or_compute(NULL, "pyhash", "pyhash/k2", &m, NULL, &err));
	RK_ASSERT_EQ_INT(0, rk_memo_load_or_compute(NULL, "pyhash", "pyhash/k2", &m, NULL, &err));
	RK_ASSERT_EQ_INT(2, x.computed);
	x.fail = 1;
	RK_ASSERT_EQ_INT(-EIO, rk_memo_load_or_compute(c, "pyhash", "pyhash/k2", &m, NULL, &err));
	RK_ASSERT(!rk_cache_has_file(c, "pyhash/k2"));
	rk_err_clear(&err);
	rk_cache_close(c);
}
