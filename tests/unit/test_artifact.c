/* test_artifact.c: TheRock archive names, ^([^_]+)_([^_]+)_([^_]+)\.tar\.(zst|xz)$. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rk/artifact.h"
#include "rk_test.h"

static void expect_ok(const char *file, const char *name, const char *comp, const char *target,
		      enum rk_compression c)
{
	struct rk_artifact_name an;

	memset(&an, 0, sizeof(an));
	if (rk_artifact_name_parse(file, &an))
		rk_test_fail(__FILE__, __LINE__, "'%s' should parse", file);
	RK_ASSERT_EQ_STR(name, an.name);
	RK_ASSERT_EQ_STR(comp, an.component);
	RK_ASSERT_EQ_STR(target, an.target);
	RK_ASSERT_EQ_INT(c, an.compression);
}

static void expect_bad(const char *file)
{
	struct rk_artifact_name an;

	memset(&an, 0x5a, sizeof(an));
	if (rk_artifact_name_parse(file, &an) != -EINVAL)
		rk_test_fail(__FILE__, __LINE__, "'%s' should be rejected with -EINVAL", file);
	/* out untouched on failure */
	for (size_t i = 0; i < sizeof(an); i++)
		if (((unsigned char *)&an)[i] != 0x5a)
			rk_test_fail(__FILE__, __LINE__, "'%s': out written on failure", file);
}

RK_TEST(parse_real_names)
{
	expect_ok("base_lib_generic.tar.zst", "base", "lib", "generic", RK_COMP_ZSTD);
	expect_ok("amd-llvm_dev_generic.tar.zst", "amd-llvm", "dev", "generic", RK_COMP_ZSTD);
	expect_ok("blas_lib_gfx942.tar.zst", "blas", "lib", "gfx942", RK_COMP_ZSTD);
	expect_ok("blas_lib_gfx94X-dcgpu.tar.xz", "blas", "lib", "gfx94X-dcgpu", RK_COMP_XZ);
	expect_ok("sysdeps-amd-mesa_run_generic.tar.xz", "sysdeps-amd-mesa", "run", "generic",
		  RK_COMP_XZ);
	expect_ok("core-hip_test_gfx110X-all.tar.zst", "core-hip", "test", "gfx110X-all",
		  RK_COMP_ZSTD);
}

RK_TEST(parse_target_with_features)
{
	expect_ok("rccl_lib_gfx942:xnack+.tar.zst", "rccl", "lib", "gfx942:xnack+", RK_COMP_ZSTD);
	expect_ok("rand_lib_gfx90a:sramecc-:xnack+.tar.xz", "rand", "lib", "gfx90a:sramecc-:xnack+",
		  RK_COMP_XZ);
}

RK_TEST(parse_nonstandard_fields_match_regex)
{
	/* the regex does not check the component: "not_an_artifact" is name/component/target */
	expect_ok("not_an_artifact.tar.zst", "not", "an", "artifact", RK_COMP_ZSTD);
	expect_ok("a_b_c.tar.zst", "a", "b", "c", RK_COMP_ZSTD);
	expect_ok("a.b_c.d_e.f.tar.xz", "a.b", "c.d", "e.f", RK_COMP_XZ);
	/* a field may itself end in ".tar.zst": only the last suffix is the extension */
	expect_ok("a_b_c.tar.zst.tar.zst", "a", "b", "c.tar.zst", RK_COMP_ZSTD);
}

RK_TEST(reject_wrong_field_count)
{
	expect_bad("foo_bar.tar.zst");
	expect_bad("a_b_c_d.tar.zst");
	expect_bad("too_many_under_scores.tar.zst");
	expect_bad("abc.tar.zst");
	expect_bad("a_b_c_.tar.zst");
}

RK_TEST(reject_empty_fields)
{
	expect_bad("_b_c.tar.zst");
	expect_bad("a__c.tar.zst");
	expect_bad("a_b_.tar.zst");
	expect_bad("__.tar.zst");
	expect_bad(".tar.zst");
	expect_bad("");
}

RK_TEST(reject_other_extensions)
{
	expect_bad("a_b_c.tar.gz");
	expect_bad("a_b_c.tar");
	expect_bad("a_b_c.zst");
	expect_bad("a_b_c.tar.zst.sha256sum");
	expect_bad("a_b_c.tar.xz.sha256sum");
	expect_bad("a_b_c.TAR.ZST");
	expect_bad("a_b_c.tar.zstd");
	expect_bad("a_b_c.tar.zst ");
	expect_bad("a_b_c");
	expect_bad("noext_lib_generic.tar");
	expect_bad("nocomp_lib_generic.tar.gz");
}

RK_TEST(reject_slash)
{
	expect_bad("dir/a_b_c.tar.zst");
	expect_bad("a_b/c_d.tar.zst");
}

RK_TEST(field_length_limit)
{
	char name[3 * RK_ARTIFACT_FIELD + 32];
	struct rk_artifact_name an;

	/* the longest field that fits: RK_ARTIFACT_FIELD - 1 bytes */
	memset(name, 'x', RK_ARTIFACT_FIELD - 1);
	snprintf(name + RK_ARTIFACT_FIELD - 1, 32, "_lib_generic.tar.zst");
	RK_ASSERT_EQ_INT(0, rk_artifact_name_parse(name, &an));
	RK_ASSERT_EQ_INT(RK_ARTIFACT_FIELD - 1, strlen(an.name));
	memset(name, 'x', RK_ARTIFACT_FIELD);
	snprintf(name + RK_ARTIFACT_FIELD, 32, "_lib_generic.tar.zst");
	RK_ASSERT_EQ_INT(-EINVAL, rk_artifact_name_parse(name, &an));
	/* same for the target */
	memcpy(name, "a_b_", 4);
	memset(name + 4, 'g', RK_ARTIFACT_FIELD);
	snprintf(name + 4 + RK_ARTIFACT_FIELD, 28, ".tar.xz");
	RK_ASSERT_EQ_INT(-EINVAL, rk_artifact_name_parse(name, &an));
}

RK_TEST(stem)
{
	struct rk_artifact_name an;
	char out[64];

	RK_ASSERT_EQ_INT(0, rk_artifact_name_parse("rccl_lib_gfx942:xnack+.tar.zst", &an));
	RK_ASSERT_EQ_INT(strlen("rccl_lib_gfx942:xnack+"), rk_artifact_stem(&an, out, sizeof(out)));
	RK_ASSERT_EQ_STR("rccl_lib_gfx942:xnack+", out);
	/* exactly fits: 22 chars + NUL */
	RK_ASSERT_EQ_INT(22, rk_artifact_stem(&an, out, 23));
	RK_ASSERT_EQ_INT(-ENAMETOOLONG, rk_artifact_stem(&an, out, 22));
	RK_ASSERT_EQ_INT(-ENAMETOOLONG, rk_artifact_stem(&an, out, 0));
}

RK_TEST(standard_components)
{
	static const char *const yes[] = {"lib", "run", "dbg", "dev", "doc", "test"};
	static const char *const no[] = {"", "Lib", "libs", "li", "tests", "an", "generic"};

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		RK_ASSERT(rk_component_is_standard(yes[i]));
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		RK_ASSERT(!rk_component_is_standard(no[i]));
}
