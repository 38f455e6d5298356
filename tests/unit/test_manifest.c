/* test_manifest.c: therock_manifest.json (therock-formats.md section 8). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rk/manifest.h"
#include "rk_test.h"

/* therock-formats.md section 8, "Minimal example" (the "..." flag kept as written) */
static const char example[] =
	"{\"the_rock_commit\":\"89553ce3...\",\"github_job\":\"build\","
	"\"github_run_id\":\"12345678901\",\n"
	" \"rocm_package_version\":\"10.1.0a20260822\",\"rocm_version\":\"10.1.0\",\n"
	" \"submodules\":[{\"submodule_name\":\"rocm-libraries\",\"submodule_path\":"
	"\"rocm-libraries\",\n"
	"   \"submodule_url\":\"https://github.com/ROCm/rocm-libraries.git\",\"pin_sha\":\"...\","
	"\"patches\":[]}],\n"
	" \"flags\":{\"ROCM_BUILD_FLAGS_CANARY_BOOL_FALSE\":false,"
	"\"ROCM_BUILD_FLAGS_CANARY_BOOL_TRUE\":true,\n"
	"   \"ROCM_BUILD_FLAGS_CANARY_INTEGER_NEGATIVE\":-17,\"KPACK_SPLIT_ARTIFACTS\":true, "
	"\"...\":false}}\n";

static int parse(const char *json, struct rk_manifest *m, struct rk_err *err)
{
	return rk_manifest_parse(json, strlen(json), m, err);
}

static const struct rk_manifest_flag *flag(const struct rk_manifest *m, const char *name)
{
	for (size_t i = 0; i < m->nflags; i++)
		if (!strcmp(m->flags[i].name, name))
			return &m->flags[i];
	return NULL;
}

RK_TEST(spec_example)
{
	struct rk_manifest m;
	struct rk_err err = RK_ERR_INIT;
	const struct rk_manifest_flag *f;

	RK_ASSERT_EQ_INT(0, parse(example, &m, &err));
	RK_ASSERT_EQ_STR("89553ce3...", m.the_rock_commit);
	RK_ASSERT_EQ_STR("12345678901", m.github_run_id);
	RK_ASSERT_EQ_STR("10.1.0a20260822", m.rocm_package_version);
	RK_ASSERT_EQ_STR("10.1.0", m.rocm_version);
	RK_ASSERT_EQ_INT(1, m.nsubmodules);
	RK_ASSERT_EQ_INT(5, m.nflags);
	RK_ASSERT_EQ_INT(1, m.kpack_split);
	f = flag(&m, "ROCM_BUILD_FLAGS_CANARY_INTEGER_NEGATIVE");
	RK_ASSERT(f != NULL);
	RK_ASSERT_EQ_INT(-17, f->value);
	RK_ASSERT_EQ_INT(0, f->is_bool);
	f = flag(&m, "ROCM_BUILD_FLAGS_CANARY_BOOL_TRUE");
	RK_ASSERT(f && f->is_bool && f->value == 1);
	f = flag(&m, "ROCM_BUILD_FLAGS_CANARY_BOOL_FALSE");
	RK_ASSERT(f && f->is_bool && f->value == 0);
	RK_ASSERT(flag(&m, "...") != NULL);
	rk_manifest_release(&m);
	RK_ASSERT(m.the_rock_commit == NULL && m.flags == NULL && m.nflags == 0);
}

RK_TEST(kpack_flag)
{
	struct rk_manifest m;

	RK_ASSERT_EQ_INT(0, parse("{\"flags\":{\"KPACK_SPLIT_ARTIFACTS\":true}}", &m, NULL));
	RK_ASSERT_EQ_INT(1, m.kpack_split);
	rk_manifest_release(&m);
	RK_ASSERT_EQ_INT(0, parse("{\"flags\":{\"KPACK_SPLIT_ARTIFACTS\":false}}", &m, NULL));
	RK_ASSERT_EQ_INT(0, m.kpack_split);
	rk_manifest_release(&m);
	/* absent key: legacy per-family mode */
	RK_ASSERT_EQ_INT(0, parse("{\"flags\":{\"OTHER\":true}}", &m, NULL));
	RK_ASSERT_EQ_INT(0, m.kpack_split);
	rk_manifest_release(&m);
	/* no flags at all, or null */
	RK_ASSERT_EQ_INT(0, parse("{\"the_rock_commit\":null}", &m, NULL));
	RK_ASSERT_EQ_INT(0, m.kpack_split);
	RK_ASSERT_EQ_INT(0, m.nflags);
	rk_manifest_release(&m);
	RK_ASSERT_EQ_INT(0, parse("{\"flags\":null}", &m, NULL));
	RK_ASSERT_EQ_INT(0, m.kpack_split);
	rk_manifest_release(&m);
	/* an integer flag (CMake ON as 1) counts as set */
	RK_ASSERT_EQ_INT(0, parse("{\"flags\":{\"KPACK_SPLIT_ARTIFACTS\":1}}", &m, NULL));
	RK_ASSERT_EQ_INT(1, m.kpack_split);
	rk_manifest_release(&m);
	RK_ASSERT_EQ_INT(0, parse("{\"flags\":{\"KPACK_SPLIT_ARTIFACTS\":0}}", &m, NULL));
	RK_ASSERT_EQ_INT(0, m.kpack_split);
	rk_manifest_release(&m);
	/* case matters */
	RK_ASSERT_EQ_INT(0, parse("{\"flags\":{\"kpack_split_artifacts\":true}}", &m, NULL));
	RK_ASSERT_EQ_INT(0, m.kpack_split);
	rk_manifest_release(&m);
}

RK_TEST(null_and_absent_fields)
{
	struct rk_manifest m;

	RK_ASSERT_EQ_INT(0, parse("{}", &m, NULL));
	RK_ASSERT(m.the_rock_commit == NULL);
	RK_ASSERT(m.github_run_id == NULL);
	RK_ASSERT(m.rocm_package_version == NULL);
	RK_ASSERT(m.rocm_version == NULL);
	RK_ASSERT_EQ_INT(0, m.nsubmodules);
	rk_manifest_release(&m);
	RK_ASSERT_EQ_INT(0, parse("{\"the_rock_commit\":null,\"submodules\":null,"
				  "\"unknown\":[1,2,{\"x\":3}]}",
				  &m, NULL));
	RK_ASSERT(m.the_rock_commit == NULL);
	RK_ASSERT_EQ_INT(0, m.nsubmodules);
	rk_manifest_release(&m);
	RK_ASSERT_EQ_INT(0, parse("{\"submodules\":[]}", &m, NULL));
	RK_ASSERT_EQ_INT(0, m.nsubmodules);
	rk_manifest_release(&m);
}

RK_TEST(wrong_types)
{
	static const char *const bad[] = {
		"{\"the_rock_commit\":5}",
		"{\"the_rock_commit\":true}",
		"{\"github_run_id\":12345678901}",
		"{\"rocm_package_version\":[\"7\"]}",
		"{\"rocm_version\":{}}",
		"{\"submodules\":{}}",
		"{\"submodules\":\"x\"}",
		"{\"flags\":[]}",
		"{\"flags\":\"KPACK_SPLIT_ARTIFACTS\"}",
		"{\"flags\":{\"KPACK_SPLIT_ARTIFACTS\":\"true\"}}",
		"{\"flags\":{\"X\":1.5}}",
		"{\"flags\":{\"X\":null}}",
		"{\"flags\":{\"X\":{}}}",
		"[]",
		"\"manifest\"",
		"42",
		"null",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rk_manifest m;
		struct rk_err err = RK_ERR_INIT;
		int rc = parse(bad[i], &m, &err);

		if (rc != -EPROTO)
			rk_test_fail(__FILE__, __LINE__, "%s: got %d, want -EPROTO", bad[i], rc);
		RK_ASSERT_EQ_INT(-EPROTO, err.code);
		RK_ASSERT(err.msg[0] != '\0');
	}
}

RK_TEST(error_after_partial_flags_does_not_leak)
{
	struct rk_manifest m;

	/* several good flags then a bad one: everything allocated so far is freed (LSan) */
	RK_ASSERT_EQ_INT(-EPROTO, parse("{\"the_rock_commit\":\"abc\",\"flags\":{\"A\":true,"
					"\"B\":2,\"C\":\"no\"}}",
					&m, NULL));
	RK_ASSERT_EQ_INT(-EPROTO,
			 parse("{\"the_rock_commit\":\"abc\",\"rocm_version\":7}", &m, NULL));
}

RK_TEST(duplicate_keys)
{
	struct rk_manifest m;

	RK_ASSERT_EQ_INT(-EPROTO,
			 parse("{\"the_rock_commit\":\"a\",\"the_rock_commit\":\"b\"}", &m, NULL));
	RK_ASSERT_EQ_INT(-EPROTO, parse("{\"flags\":{\"KPACK_SPLIT_ARTIFACTS\":false,"
					"\"KPACK_SPLIT_ARTIFACTS\":true}}",
					&m, NULL));
}

RK_TEST(invalid_json)
{
	static const char *const bad[] = {
		"",
		" ",
		"{",
		"}",
		"{\"a\":}",
		"{\"a\" 1}",
		"{'a':1}",
		"{\"a\":1,}",
		"{} {}",
		"{\"a\":\"\\u0000\"}",
		"{\"a\":tru}",
		"\xff\xfe{}",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rk_manifest m;
		struct rk_err err = RK_ERR_INIT;

		if (parse(bad[i], &m, &err) != -EPROTO)
			rk_test_fail(__FILE__, __LINE__, "'%s' should be -EPROTO", bad[i]);
		RK_ASSERT(err.msg[0] != '\0');
	}
}

RK_TEST(embedded_nul_is_not_the_end)
{
	struct rk_manifest m;
	static const char data[] = "{}\0garbage";

	/* len covers the NUL: trailing bytes after the value are an error */
	RK_ASSERT_EQ_INT(-EPROTO, rk_manifest_parse(data, sizeof(data) - 1, &m, NULL));
	/* and a length that stops before the end is honoured */
	RK_ASSERT_EQ_INT(0, rk_manifest_parse("{}xyz", 2, &m, NULL));
	rk_manifest_release(&m);
}

RK_TEST(oversize)
{
	size_t len = RK_MANIFEST_MAX + 1;
	char *big = malloc(len);
	struct rk_manifest m;
	struct rk_err err = RK_ERR_INIT;

	RK_ASSERT(big != NULL);
	memset(big, ' ', len);
	big[0] = '{';
	big[len - 1] = '}';
	RK_ASSERT_EQ_INT(-EFBIG, rk_manifest_parse(big, len, &m, &err));
	RK_ASSERT_EQ_INT(-EFBIG, err.code);
	/* exactly at the limit is parsed */
	big[len - 2] = '}';
	RK_ASSERT_EQ_INT(0, rk_manifest_parse(big, len - 1, &m, NULL));
	rk_manifest_release(&m);
	free(big);
}

RK_TEST(unicode_strings)
{
	struct rk_manifest m;

	RK_ASSERT_EQ_INT(0, parse("{\"the_rock_commit\":\"caf\\u00e9\"}", &m, NULL));
	RK_ASSERT_EQ_STR("caf\xc3\xa9", m.the_rock_commit);
	rk_manifest_release(&m);
}

RK_TEST(release_twice_is_safe)
{
	struct rk_manifest m;

	RK_ASSERT_EQ_INT(0, parse(example, &m, NULL));
	rk_manifest_release(&m);
	rk_manifest_release(&m);
}
