/* array.c: growing arrays and name-list comparison (util/array.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"

int rk_grow(void *arrp, size_t *cap, size_t n, size_t elem, size_t first)
{
	void *a, *na;
	size_t ncap;

	if (n < *cap)
		return 0;
	if (!elem || *cap > SIZE_MAX / 2 / elem || n >= SIZE_MAX / elem)
		return -ENOMEM; /* the new size would not fit in a size_t */
	ncap = *cap ? *cap * 2 : (first ? first : 1);
	if (ncap <= n)
		ncap = n + 1;
	if (ncap > SIZE_MAX / elem)
		return -ENOMEM;
	memcpy(&a, arrp, sizeof(a));
	if (!(na = realloc(a, ncap * elem)))
		return -ENOMEM; /* the old array stays the caller's */
	memcpy(arrp, &na, sizeof(na));
	*cap = ncap;
	return 0;
}

int rk_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}
