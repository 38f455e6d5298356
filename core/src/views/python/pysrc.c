/* pysrc.c: lookup in the embedded Python files (pysrc.h). */
#include "views/python/pysrc.h"

#include <string.h>

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
