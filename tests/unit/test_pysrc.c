/* test_pysrc.c: the Python files embedded from core/python/ (pysrc.h) are all
 * there, sorted, and byte-identical to their sources. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "views/python/pysrc.h"
#include "rk_test.h"

/* The files the C side puts into the synthesized packages (the contract). */
static const char *const expected[] = {
	"core/_cli.py",
	"profiler/_cli.py",
	"pure/__init__.py",
	"rocm_sdk/__init__.py",
	"rocm_sdk/__main__.py",
	"rocm_sdk/_devel.py",
	"rocm_sdk/_dist_info.py",
	"rocm_sdk/_locate.py",
	"rocm_sdk/tests/__init__.py",
	"rocm_sdk/tests/base_test.py",
	"rocm_sdk/tests/core_test.py",
	"rocm_sdk/tests/devel_test.py",
	"rocm_sdk/tests/libraries_test.py",
	"rocm_sdk/tests/utils.py",
	"sdist/pyproject.toml",
	"sdist/setup.py",
};

static unsigned char *read_source(const char *rel, size_t *len)
{
	char path[4096];
	FILE *f;
	unsigned char *buf = NULL;
	size_t cap = 0, n = 0, got;

	snprintf(path, sizeof(path), "%s/%s", RK_PYSRC_DIR, rel);
	f = fopen(path, "rb");
	if (!f)
		rk_test_fail(__FILE__, __LINE__, "cannot open %s", path);
	do {
		if (n == cap) {
			cap = cap ? cap * 2 : 4096;
			buf = realloc(buf, cap);
			RK_ASSERT(buf != NULL);
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	RK_ASSERT(!ferror(f));
	fclose(f);
	*len = n;
	return buf;
}

RK_TEST(pysrc_all_present)
{
	for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++) {
		const struct rk_pysrc *p = rk_pysrc_find(expected[i]);
		size_t len;
		unsigned char *src;

		if (!p)
			rk_test_fail(__FILE__, __LINE__, "%s is not embedded", expected[i]);
		RK_ASSERT_EQ_STR(expected[i], p->path);
		RK_ASSERT(p->len > 0);
		RK_ASSERT_EQ_INT(0, p->data[p->len]);
		src = read_source(expected[i], &len);
		RK_ASSERT_EQ_INT((long long)len, (long long)p->len);
		RK_ASSERT_EQ_MEM(src, p->data, len);
		free(src);
	}
	RK_ASSERT_EQ_INT(sizeof(expected) / sizeof(expected[0]), rk_npysrc);
}

RK_TEST(pysrc_sorted_and_lookup)
{
	for (size_t i = 1; i < rk_npysrc; i++)
		RK_ASSERT(strcmp(rk_pysrc[i - 1].path, rk_pysrc[i].path) < 0);
	for (size_t i = 0; i < rk_npysrc; i++)
		RK_ASSERT(rk_pysrc_find(rk_pysrc[i].path) == &rk_pysrc[i]);
	RK_ASSERT(rk_pysrc_find("") == NULL);
	RK_ASSERT(rk_pysrc_find("rocm_sdk") == NULL);
	RK_ASSERT(rk_pysrc_find("rocm_sdk/__init__.pyc") == NULL);
	RK_ASSERT(rk_pysrc_find("zzz") == NULL);
	RK_ASSERT(rk_pysrc_find(NULL) == NULL);
	/* the sdist's setup.py loads _dist_info by path, and names the console script */
	RK_ASSERT(strstr((const char *)rk_pysrc_find("sdist/setup.py")->data,
			 "rocm-sdk = rocm_sdk.__main__:main") != NULL);
}
