/* test_install.c: the install selection (rk/install.h) against install_rocm_from_artifacts.py
 * and fetch_artifacts.py at TheRock 89553ce (integration.install_upstream runs them). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rk/install.h"
#include "rk_test.h"

static int has(char **p, size_t n, const char *want)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(p[i], want))
			return 1;
	return 0;
}

static struct rk_install_spec spec(const char *name)
{
	struct rk_install_spec s;

	memset(&s, 0, sizeof(s));
	if (rk_install_spec_parse(name, &s, NULL))
		abort();
	return s;
}

RK_TEST(flags_table)
{
	const char *const *f = rk_install_flags();
	size_t n = 0;

	for (; f[n]; n++) {
		struct rk_install_spec s;
		char name[256], back[256];

		memset(&s, 0, sizeof(s));
		strcpy(s.family, "gfx942");
		RK_ASSERT_EQ_INT(0, rk_install_spec_set(&s, f[n], 1));
		RK_ASSERT(s.flags == 1ULL << n);
		RK_ASSERT(rk_install_spec_name(&s, name, sizeof(name)) > 0);
		s = spec(name);
		RK_ASSERT(rk_install_spec_name(&s, back, sizeof(back)) > 0);
		RK_ASSERT_EQ_STR(name, back);
	}
	RK_ASSERT_EQ_INT(33, (int)n); /* the script's any([...]) list */
	RK_ASSERT(n <= 64);
}

RK_TEST(parse)
{
	struct rk_install_spec s = spec("gfx110X-all@gfx1100,gfx1101+tests+rand+base-only");
	char name[256];

	RK_ASSERT_EQ_STR("gfx110X-all", s.family);
	RK_ASSERT_EQ_INT(2, (int)s.ntargets);
	RK_ASSERT_EQ_STR("gfx1101", s.targets[1]);
	RK_ASSERT(s.tests && s.base_only);
	RK_ASSERT(rk_install_spec_name(&s, name, sizeof(name)) > 0);
	RK_ASSERT_EQ_STR("gfx110X-all@gfx1100,gfx1101+rand+tests+base-only", name);
	RK_ASSERT_EQ_INT(-ENOENT, rk_install_spec_parse("+blas", &s, NULL));
	RK_ASSERT_EQ_INT(-ENOENT, rk_install_spec_parse("gfx942+blas+", &s, NULL));
	RK_ASSERT_EQ_INT(-ENOENT, rk_install_spec_parse("gfx942@", &s, NULL));
	RK_ASSERT_EQ_INT(-ENOENT, rk_install_spec_parse("gfx942@a,,b", &s, NULL));
	RK_ASSERT_EQ_INT(-ENOENT, rk_install_spec_parse("gfx942+nosuch", &s, NULL));
	RK_ASSERT_EQ_INT(-ENOENT, rk_install_spec_parse("../x", &s, NULL));
}

RK_TEST(patterns)
{
	struct rk_install_spec s = spec("gfx942");
	char **p;
	size_t n;

	RK_ASSERT_EQ_INT(0, rk_install_patterns(&s, &p, &n));
	RK_ASSERT_EQ_INT(0, (int)n); /* no flag: everything */
	rk_install_patterns_free(p, n);

	s = spec("gfx942+blas+tests+base-only");
	RK_ASSERT_EQ_INT(0, rk_install_patterns(&s, &p, &n));
	RK_ASSERT_EQ_INT(18, (int)n); /* base-only wins: the base patterns alone */
	RK_ASSERT(has(p, n, "core-hip_dev") && !has(p, n, "blas_lib"));
	rk_install_patterns_free(p, n);

	s = spec("gfx942+fft+tests");
	RK_ASSERT_EQ_INT(0, rk_install_patterns(&s, &p, &n));
	RK_ASSERT(has(p, n, "fft_lib") && has(p, n, "fftw3_test") && has(p, n, "base_lib"));
	rk_install_patterns_free(p, n);

	s = spec("gfx942+rocprofiler-systems");
	RK_ASSERT_EQ_INT(0, rk_install_patterns(&s, &p, &n));
	RK_ASSERT(has(p, n, "rocprofiler-systems_run") && !has(p, n, "rocprofiler-sdk_dev"));
	RK_ASSERT(!has(p, n, "rocprofiler-systems_test"));
	rk_install_patterns_free(p, n);
	s = spec("gfx942+rocprofiler-systems+tests");
	RK_ASSERT_EQ_INT(0, rk_install_patterns(&s, &p, &n));
	RK_ASSERT(has(p, n, "rocprofiler-sdk_dev") && has(p, n, "rocprofiler-systems_test"));
	rk_install_patterns_free(p, n);

	s = spec("gfx942+hipthreads+rand");
	RK_ASSERT_EQ_INT(0, rk_install_patterns(&s, &p, &n));
	RK_ASSERT(has(p, n, "rand_dev") && !has(p, n, "prim_dev") && has(p, n, "libhipcxx_lib"));
	RK_ASSERT(has(p, n, "base_dev_generic") && has(p, n, "core-hip_run"));
	rk_install_patterns_free(p, n);

	/* only a _test artifact: nothing for _lib */
	s = spec("gfx942+rocprofiler-systems-examples+tests");
	RK_ASSERT_EQ_INT(0, rk_install_patterns(&s, &p, &n));
	RK_ASSERT(has(p, n, "rocprofiler-systems-examples_test"));
	RK_ASSERT(!has(p, n, "rocprofiler-systems-examples_lib"));
	rk_install_patterns_free(p, n);
}

static struct rk_artifact art(const char *file)
{
	struct rk_artifact a;

	memset(&a, 0, sizeof(a));
	a.file = (char *)file;
	if (rk_artifact_name_parse(file, &a.an))
		abort();
	return a;
}

RK_TEST(select)
{
	struct rk_artifact arts[] = {
		art("base_lib_generic.tar.zst"),	art("blas_lib_gfx94X-dcgpu.tar.zst"),
		art("blas_lib_gfx942.tar.zst"),		art("blas_lib_gfx950.tar.zst"),
		art("blas_lib_gfx110X-all.tar.zst"),	art("hipblas_lib_gfx94X-dcgpu.tar.zst"),
		art("blas_test_gfx942:xnack+.tar.zst"), art("rand_lib_gfx94X-dcgpu.tar.zst"),
	};
	struct rk_run r;
	size_t *idx, n;
	struct rk_install_spec s;

	memset(&r, 0, sizeof(r));
	r.arts = arts;
	r.narts = sizeof(arts) / sizeof(arts[0]);

	/* the family's own targets are derived (gfx942), and "blas_lib" is found inside
	 * "hipblas_lib" as re.search finds it */
	s = spec("gfx94X-dcgpu+blas");
	RK_ASSERT_EQ_INT(0, rk_install_select(&s, &r, &idx, &n));
	RK_ASSERT_EQ_INT(4, (int)n);
	RK_ASSERT(idx[0] == 0 && idx[1] == 1 && idx[2] == 2 && idx[3] == 5);
	free(idx);

	/* --tests: the _test of gfx942:xnack+ (base arch gfx942) */
	s = spec("gfx94X-dcgpu+blas+tests");
	RK_ASSERT_EQ_INT(0, rk_install_select(&s, &r, &idx, &n));
	RK_ASSERT_EQ_INT(5, (int)n);
	free(idx);

	/* explicit targets replace the derived ones; the family's name still counts */
	s = spec("gfx94X-dcgpu@gfx950+blas");
	RK_ASSERT_EQ_INT(0, rk_install_select(&s, &r, &idx, &n));
	RK_ASSERT_EQ_INT(4, (int)n);
	RK_ASSERT(idx[2] == 3);
	free(idx);

	/* no flags: every artifact of the family */
	s = spec("gfx110X-all");
	RK_ASSERT_EQ_INT(0, rk_install_select(&s, &r, &idx, &n));
	RK_ASSERT_EQ_INT(2, (int)n);
	RK_ASSERT(idx[0] == 0 && idx[1] == 4);
	free(idx);
}
