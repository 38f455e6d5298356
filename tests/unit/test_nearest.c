/* test_nearest.c: edit distance and the nearest names (rk/nearest.h). */
#include <stddef.h>

#include "rk/nearest.h"
#include "rk_test.h"

RK_TEST(edit_distance_counts_each_edit)
{
	RK_ASSERT_EQ_INT(0, rk_edit_distance("", ""));
	RK_ASSERT_EQ_INT(0, rk_edit_distance("abc", "abc"));
	RK_ASSERT_EQ_INT(3, rk_edit_distance("", "abc"));
	RK_ASSERT_EQ_INT(3, rk_edit_distance("abc", ""));
	RK_ASSERT_EQ_INT(1, rk_edit_distance("abc", "abd")); /* substitute */
	RK_ASSERT_EQ_INT(1, rk_edit_distance("abc", "abxc")); /* insert */
	RK_ASSERT_EQ_INT(1, rk_edit_distance("abxc", "abc")); /* delete */
	RK_ASSERT_EQ_INT(3, rk_edit_distance("kitten", "sitting"));
	RK_ASSERT_EQ_INT(3, rk_edit_distance("sitting", "kitten")); /* symmetric */
	RK_ASSERT_EQ_INT(2, rk_edit_distance("24205988455-linux", "24205988545-linux"));
}

RK_TEST(nearest_names_closest_first_ties_in_order)
{
	static const char *const runs[] = {
		"24205988454-linux", /* 0: distance 1 from ...456 */
		"24205988455-linux", /* 1: 1 */
		"24205988455-windows", /* 2: 1 + 7 */
		"11111111111-linux", /* 3: far */
		"24205988457-linux", /* 4: 1 */
	};
	size_t idx[3] = {99, 99, 99};

	RK_ASSERT_EQ_INT(3, rk_nearest_names("24205988456-linux", runs, 5, 3, idx));
	RK_ASSERT_EQ_INT(0, idx[0]);
	RK_ASSERT_EQ_INT(1, idx[1]);
	RK_ASSERT_EQ_INT(4, idx[2]);
	/* a closer name later in the list goes first */
	RK_ASSERT_EQ_INT(2, rk_nearest_names("24205988455-windows", runs, 5, 2, idx));
	RK_ASSERT_EQ_INT(2, idx[0]);
	RK_ASSERT_EQ_INT(1, idx[1]);
}

RK_TEST(nearest_names_fewer_names_than_asked)
{
	static const char *const one[] = {"only"};
	size_t idx[3] = {99, 99, 99};

	RK_ASSERT_EQ_INT(1, rk_nearest_names("x", one, 1, 3, idx));
	RK_ASSERT_EQ_INT(0, idx[0]);
	RK_ASSERT_EQ_INT(99, idx[1]);
	RK_ASSERT_EQ_INT(0, rk_nearest_names("x", one, 0, 3, idx));
	RK_ASSERT_EQ_INT(0, rk_nearest_names("x", one, 1, 0, idx));
}
