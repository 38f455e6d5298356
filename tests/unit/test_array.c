/* test_array.c: util/array.h: rk_grow (doubling, the first capacity, the array kept when
 * the size overflows) and rk_cmp_str with qsort and bsearch. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "rk_test.h"

RK_TEST(grow_doubles_and_keeps)
{
	int *v = NULL;
	size_t n = 0, cap = 0;

	for (int i = 0; i < 100; i++) {
		RK_ASSERT_EQ_INT(0, RK_GROW(v, cap, n, 4));
		v[n++] = i;
		RK_ASSERT(cap >= n);
	}
	RK_ASSERT_EQ_INT(128, (int)cap);
	for (int i = 0; i < 100; i++)
		RK_ASSERT_EQ_INT(i, v[i]);
	/* no room needed: nothing changes */
	RK_ASSERT_EQ_INT(0, rk_grow(&v, &cap, 5, sizeof(*v), 4));
	RK_ASSERT_EQ_INT(128, (int)cap);
	free(v);
}

RK_TEST(grow_overflow_keeps_the_array)
{
	char *v = malloc(4), *old = v;
	size_t cap = SIZE_MAX / 2 + 1;

	RK_ASSERT(v != NULL);
	RK_ASSERT_EQ_INT(-ENOMEM, rk_grow(&v, &cap, cap, 1, 4));
	RK_ASSERT(v == old);
	RK_ASSERT(cap == SIZE_MAX / 2 + 1);
	free(v);
}

RK_TEST(cmp_str_sorts_and_finds)
{
	const char *names[] = {"gfx942", "gfx1100", "generic", "gfx90a"};
	const char *key = "gfx90a", **hit;

	qsort(names, 4, sizeof(*names), rk_cmp_str);
	RK_ASSERT_EQ_STR("generic", names[0]);
	RK_ASSERT_EQ_STR("gfx1100", names[1]);
	RK_ASSERT_EQ_STR("gfx90a", names[2]);
	RK_ASSERT_EQ_STR("gfx942", names[3]);
	hit = bsearch(&key, names, 4, sizeof(*names), rk_cmp_str);
	RK_ASSERT(hit == &names[2]);
	key = "gfx1030";
	RK_ASSERT(bsearch(&key, names, 4, sizeof(*names), rk_cmp_str) == NULL);
}
