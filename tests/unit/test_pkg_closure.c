/* test_pkg_closure.c: the fixed point that leaves out the dependents of a left-out
 * package (formats/packages/pkg_closure.h), over small graphs: a chain, a diamond,
 * alternatives, a cycle, pins and another repository's names. */
#include <string.h>

#include "formats/packages/pkg_closure.h"
#include "rk_test.h"

struct graph {
	const char *names[8];
	const char *depends[8];
	size_t n;
	const char *absent[4];
	size_t nabsent;
	unsigned char gone[8];
	const char *needs[8];
};

static size_t run(struct graph *g)
{
	return pkg_closure(g->names, g->depends, g->n, g->absent, g->nabsent, g->gone, g->needs);
}

/* c needs b needs the absent a (pinned, DEB and RPM forms); d needs only libc6 */
RK_TEST(chain)
{
	struct graph g = {
		.names = {"amdrocm-b7.13", "amdrocm-c7.13", "amdrocm-d"},
		.depends = {"amdrocm-a7.13 (= 7.13.0-1)", "amdrocm-b7.13 = 7.13.0-1", "libc6"},
		.n = 3,
		.absent = {"amdrocm-a7.13"},
		.nabsent = 1,
	};

	RK_ASSERT_EQ_INT(2, (int)run(&g));
	RK_ASSERT(g.gone[0] && g.gone[1] && !g.gone[2]);
	RK_ASSERT_EQ_STR("amdrocm-a7.13", g.needs[0]);
	RK_ASSERT_EQ_STR("amdrocm-b7.13", g.needs[1]);
	RK_ASSERT(!g.needs[2]);
}

/* top needs left and right, both need base (gone: a damaged artifact); other needs right
 * only through an alternative that is served */
RK_TEST(diamond)
{
	struct graph g = {
		.names = {"base", "left", "right", "top", "other", "x"},
		.depends = {"", "base", "base (>= 1)", "left, right", "right | x", NULL},
		.n = 6,
		.gone = {1},
	};

	RK_ASSERT_EQ_INT(3, (int)run(&g));
	RK_ASSERT(g.gone[0] && g.gone[1] && g.gone[2] && g.gone[3]);
	RK_ASSERT(!g.gone[4] && !g.gone[5]);
	RK_ASSERT(!g.needs[0]); /* gone on entry: not the closure's */
	RK_ASSERT_EQ_STR("left", g.needs[3]);
}

/* a | b where both are left out leaves the dependent out; a | b where b is another
 * repository's keeps it */
RK_TEST(alternatives)
{
	struct graph g = {
		.names = {"p", "q", "r", "s"},
		.depends = {"gone-a | gone-b", "gone-a|libstdc++6", "amdrocm-x (= 1) | gone-b",
			    "q"},
		.n = 4,
		.absent = {"gone-a", "gone-b", "amdrocm-x"},
		.nabsent = 3,
	};

	RK_ASSERT_EQ_INT(2, (int)run(&g));
	RK_ASSERT(g.gone[0] && !g.gone[1] && g.gone[2] && !g.gone[3]);
	RK_ASSERT_EQ_STR("gone-a", g.needs[0]);
	RK_ASSERT_EQ_STR("amdrocm-x", g.needs[2]);
}

/* a cycle a -> b -> c -> a stays while nothing in it is gone, and goes whole when one
 * needs an absent package; names are whole words (amdrocm-a is not amdrocm-a7) */
RK_TEST(cycle)
{
	struct graph g = {
		.names = {"amdrocm-a", "amdrocm-b", "amdrocm-c", "amdrocm-a7"},
		.depends = {"amdrocm-b", "amdrocm-c", "amdrocm-a", "amdrocm-a"},
		.n = 4,
	};

	RK_ASSERT_EQ_INT(0, (int)run(&g));
	g.depends[1] = "amdrocm-c, amdrocm-missing";
	g.absent[0] = "amdrocm-missing";
	g.nabsent = 1;
	RK_ASSERT_EQ_INT(4, (int)run(&g));
	RK_ASSERT_EQ_STR("amdrocm-missing", g.needs[1]);
	g.absent[0] = "amdrocm-a7";
	memset(g.gone, 0, sizeof(g.gone));
	g.depends[1] = "amdrocm-c, amdrocm-a7";
	g.names[3] = "amdrocm-d";
	RK_ASSERT_EQ_INT(4, (int)run(&g));
}

RK_TEST(relation_words)
{
	const char *pos = "a (= 1) | b, c = 2,d", *w;
	size_t len;
	int alt;
	const char *want[] = {"a", "b", "c", "d"};
	int walt[] = {0, 1, 0, 0};

	for (int i = 0; i < 4; i++) {
		RK_ASSERT(pkg_relation_next(&pos, &w, &len, &alt));
		RK_ASSERT_EQ_INT((int)strlen(want[i]), (int)len);
		RK_ASSERT(!strncmp(want[i], w, len));
		RK_ASSERT_EQ_INT(walt[i], alt);
	}
	RK_ASSERT(!pkg_relation_next(&pos, &w, &len, &alt));
}
