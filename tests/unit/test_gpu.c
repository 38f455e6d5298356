/* test_gpu.c: the family table against therock-formats.md section 4. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rk/gpu.h"
#include "rk_test.h"

/* therock-formats.md section 4, "Family to targets" (each target also maps to itself) */
static const struct {
	const char *family;
	const char *targets;
} families[] = {
	{"dgpu-all", " gfx900 gfx906 gfx1010 gfx1011 gfx1012 gfx1030 gfx1031 gfx1032 gfx1034 "
		     "gfx1100 gfx1101 gfx1102 gfx1200 gfx1201 "},
	{"igpu-all", " gfx90c gfx1033 gfx1035 gfx1036 gfx1103 gfx1150 gfx1151 gfx1152 gfx1153 "},
	{"dcgpu-all", " gfx908 gfx90a gfx942 gfx950 gfx1250 "},
	{"gfx900-dgpu", " gfx900 "},
	{"gfx906-dgpu", " gfx906 "},
	{"gfx90c-igpu", " gfx90c "},
	{"gfx908-dcgpu", " gfx908 "},
	{"gfx90a-dcgpu", " gfx90a "},
	{"gfx94X-all", " gfx942 "},
	{"gfx94X-dcgpu", " gfx942 "},
	{"gfx950-all", " gfx950 "},
	{"gfx950-dcgpu", " gfx950 "},
	{"gfx101X-all", " gfx1010 gfx1011 gfx1012 "},
	{"gfx101X-dgpu", " gfx1010 gfx1011 gfx1012 "},
	{"gfx103X-all", " gfx1030 gfx1031 gfx1032 gfx1033 gfx1034 gfx1035 gfx1036 "},
	{"gfx103X-dgpu", " gfx1030 gfx1031 gfx1032 gfx1034 "},
	{"gfx103X-igpu", " gfx1033 gfx1035 gfx1036 "},
	{"gfx110X-all", " gfx1100 gfx1101 gfx1102 gfx1103 "},
	{"gfx110X-dgpu", " gfx1100 gfx1101 gfx1102 "},
	{"gfx110X-igpu", " gfx1103 "},
	{"gfx115X-all", " gfx1150 gfx1151 gfx1152 gfx1153 "},
	{"gfx115X-igpu", " gfx1150 gfx1151 gfx1152 gfx1153 "},
	{"gfx120X-all", " gfx1200 gfx1201 "},
	{"gfx125X-all", " gfx1250 "},
	{"gfx125X-dcgpu", " gfx1250 "},
};

static int listed(const char *list, const char *t)
{
	char w[32];

	snprintf(w, sizeof(w), " %s ", t);
	return strstr(list, w) != NULL;
}

RK_TEST(table_order_and_size)
{
	static const char *const order[] = {
		"gfx900",  "gfx90c",  "gfx906",	 "gfx908",  "gfx90a",  "gfx942",  "gfx950",
		"gfx1010", "gfx1011", "gfx1012", "gfx1030", "gfx1031", "gfx1032", "gfx1033",
		"gfx1034", "gfx1035", "gfx1036", "gfx1100", "gfx1101", "gfx1102", "gfx1103",
		"gfx1150", "gfx1151", "gfx1152", "gfx1153", "gfx1200", "gfx1201", "gfx1250"};
	size_t n = 0;
	const struct rk_gpu_target *t = rk_gpu_targets(&n);

	RK_ASSERT_EQ_INT(sizeof(order) / sizeof(order[0]), n);
	for (size_t i = 0; i < n; i++) {
		RK_ASSERT_EQ_STR(order[i], t[i].name);
		RK_ASSERT(t[i].product && t[i].product[0]);
		RK_ASSERT(t[i].families != NULL);
	}
}

RK_TEST(every_family_matches_the_spec)
{
	size_t n;
	const struct rk_gpu_target *t = rk_gpu_targets(&n);

	for (size_t f = 0; f < sizeof(families) / sizeof(families[0]); f++) {
		if (!rk_gpu_is_family(families[f].family))
			rk_test_fail(__FILE__, __LINE__, "'%s' is not a family",
				     families[f].family);
		for (size_t i = 0; i < n; i++) {
			int want = listed(families[f].targets, t[i].name);

			if (!!rk_gpu_family_has(families[f].family, t[i].name) != want)
				rk_test_fail(__FILE__, __LINE__,
					     "family_has('%s', '%s') should be %d",
					     families[f].family, t[i].name, want);
		}
	}
}

RK_TEST(every_target_is_its_own_family)
{
	size_t n;
	const struct rk_gpu_target *t = rk_gpu_targets(&n);

	for (size_t i = 0; i < n; i++) {
		RK_ASSERT(rk_gpu_is_family(t[i].name));
		RK_ASSERT(rk_gpu_family_has(t[i].name, t[i].name));
		for (size_t j = 0; j < n; j++)
			if (i != j)
				RK_ASSERT(!rk_gpu_family_has(t[i].name, t[j].name));
	}
}

RK_TEST(gfx110X_all)
{
	RK_ASSERT(rk_gpu_family_has("gfx110X-all", "gfx1100"));
	RK_ASSERT(rk_gpu_family_has("gfx110X-all", "gfx1101"));
	RK_ASSERT(rk_gpu_family_has("gfx110X-all", "gfx1102"));
	RK_ASSERT(rk_gpu_family_has("gfx110X-all", "gfx1103"));
	RK_ASSERT(!rk_gpu_family_has("gfx110X-all", "gfx1150"));
	RK_ASSERT(!rk_gpu_family_has("gfx110X-dgpu", "gfx1103"));
	RK_ASSERT(rk_gpu_family_has("gfx110X-igpu", "gfx1103"));
}

RK_TEST(features_are_ignored)
{
	RK_ASSERT(rk_gpu_family_has("gfx94X-dcgpu", "gfx942"));
	RK_ASSERT(rk_gpu_family_has("gfx94X-dcgpu", "gfx942:xnack+"));
	RK_ASSERT(rk_gpu_family_has("gfx94X-dcgpu", "gfx942:sramecc+:xnack-"));
	RK_ASSERT(rk_gpu_family_has("gfx942", "gfx942:xnack+"));
	RK_ASSERT(rk_gpu_family_has("gfx942:xnack-", "gfx942:xnack+"));
	RK_ASSERT(rk_gpu_family_has("dcgpu-all", "gfx90a:xnack+"));
	RK_ASSERT(!rk_gpu_family_has("gfx94X-dcgpu", "gfx950:xnack+"));
	RK_ASSERT(!rk_gpu_family_has("gfx110X-all", "gfx942:xnack+"));
}

RK_TEST(gfx120X_has_no_dgpu_family)
{
	RK_ASSERT(rk_gpu_is_family("gfx120X-all"));
	RK_ASSERT(!rk_gpu_is_family("gfx120X-dgpu"));
	RK_ASSERT(!rk_gpu_family_has("gfx120X-dgpu", "gfx1200"));
	RK_ASSERT(rk_gpu_family_has("gfx120X-all", "gfx1201"));
	RK_ASSERT(rk_gpu_family_has("dgpu-all", "gfx1200"));
}

RK_TEST(unknown_names)
{
	RK_ASSERT(!rk_gpu_is_family(""));
	RK_ASSERT(!rk_gpu_is_family("generic"));
	RK_ASSERT(!rk_gpu_is_family("gfx94X"));
	RK_ASSERT(!rk_gpu_is_family("gfx9999"));
	RK_ASSERT(!rk_gpu_is_family("all"));
	RK_ASSERT(!rk_gpu_is_family("dgpu-all "));
	RK_ASSERT(!rk_gpu_is_family("gfx942:xnack+")); /* a target id, not a family */
	RK_ASSERT(!rk_gpu_family_has("generic", "gfx942"));
	RK_ASSERT(!rk_gpu_family_has("gfx94X-dcgpu", "generic"));
	RK_ASSERT(!rk_gpu_family_has("gfx9999-all", "gfx9999"));
	RK_ASSERT(!rk_gpu_family_has("dgpu", "gfx900")); /* no partial words */
	RK_ASSERT(!rk_gpu_family_has("gfx94X", "gfx942"));
	RK_ASSERT(!rk_gpu_family_has("", "gfx942"));
	RK_ASSERT(!rk_gpu_family_has("gfx94X-dcgpu", ""));
	RK_ASSERT(rk_gpu_target_find("gfx9999") == NULL);
	RK_ASSERT(rk_gpu_target_find("gfx942:xnack+") == NULL); /* exact names only */
	RK_ASSERT(rk_gpu_target_find("") == NULL);
}

RK_TEST(target_find)
{
	const struct rk_gpu_target *t = rk_gpu_target_find("gfx1100");

	RK_ASSERT(t != NULL);
	RK_ASSERT_EQ_STR("gfx1100", t->name);
	RK_ASSERT_EQ_STR("AMD RX 7900 XTX", t->product);
	t = rk_gpu_target_find("gfx1200");
	RK_ASSERT(t && !strstr(t->families, "dgpu "));
}

RK_TEST(base_arch)
{
	char out[16];

	RK_ASSERT_EQ_INT(6, rk_gpu_base_arch("gfx942:xnack+", out, sizeof(out)));
	RK_ASSERT_EQ_STR("gfx942", out);
	RK_ASSERT_EQ_INT(6, rk_gpu_base_arch("gfx90a:sramecc-:xnack+", out, sizeof(out)));
	RK_ASSERT_EQ_STR("gfx90a", out);
	RK_ASSERT_EQ_INT(7, rk_gpu_base_arch("generic", out, sizeof(out)));
	RK_ASSERT_EQ_STR("generic", out);
	RK_ASSERT_EQ_INT(0, rk_gpu_base_arch(":xnack+", out, sizeof(out)));
	RK_ASSERT_EQ_STR("", out);
	RK_ASSERT_EQ_INT(0, rk_gpu_base_arch("", out, sizeof(out)));
	/* bounds: "gfx942" needs 7 bytes */
	RK_ASSERT_EQ_INT(6, rk_gpu_base_arch("gfx942:xnack+", out, 7));
	RK_ASSERT_EQ_INT(-ENAMETOOLONG, rk_gpu_base_arch("gfx942:xnack+", out, 6));
	RK_ASSERT_EQ_INT(-ENAMETOOLONG, rk_gpu_base_arch("gfx942", out, 0));
}

RK_TEST(long_names_do_not_match)
{
	char longname[200];

	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	RK_ASSERT(!rk_gpu_is_family(longname));
	RK_ASSERT(!rk_gpu_family_has(longname, "gfx942"));
	RK_ASSERT(!rk_gpu_family_has("gfx94X-dcgpu", longname));
}
