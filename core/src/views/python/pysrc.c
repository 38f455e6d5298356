/* pysrc.c: lookup in the embedded Python files (pysrc.h), and what is made of them alone:
 * _dist_info.py, an exec stub. */
#include "views/python/pysrc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/archive/wheel_text.h"

const struct rk_pysrc *rk_pysrc_find(const char *path)
{
	size_t lo = 0, hi = rk_npysrc;

	if (!path)
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(path, rk_pysrc[mid].path);

		if (c == 0)
			return &rk_pysrc[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

int pywheel_dist_info_py(const char *version, int split, char **families, size_t n,
			 const char *entry, const char *family, struct rk_buf *b)
{
	const struct rk_pysrc *t = rk_pysrc_find("rocm_sdk/_dist_info.py");

	return t ? rk_wheel_dist_info_py((const char *)t->data, t->len, version, split, families,
					 n, entry, family, b)
		 : -ENOENT;
}

int rk_exe_stub_for(const char *rp, char **out)
{
	const char *mark =
		memmem(rk_exe_stub, rk_exe_stub_len, RK_EXE_STUB_MARK, strlen(RK_EXE_STUB_MARK));
	size_t at = mark ? (size_t)(mark - rk_exe_stub) : 0;

	if (!mark || strlen(rp) >= RK_EXE_STUB_TARGET_MAX ||
	    rk_exe_stub_len - at < RK_EXE_STUB_TARGET_MAX)
		return -ENAMETOOLONG;
	if (!(*out = malloc(rk_exe_stub_len)))
		return -ENOMEM;
	memcpy(*out, rk_exe_stub, rk_exe_stub_len);
	memset(*out + at, 0, RK_EXE_STUB_TARGET_MAX);
	memcpy(*out + at, rp, strlen(rp));
	return 0;
}
