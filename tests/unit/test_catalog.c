/* test_catalog.c: one run directory listing -> artifacts and targets. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rk/catalog.h"
#include "rk_fixture.h"
#include "rk_test.h"

static struct rk_store *open_store(const char *loc)
{
	struct rk_store *s = NULL;

	RK_ASSERT_EQ_INT(0, rk_store_open(loc, &s, NULL));
	return s;
}

static struct rk_run *load(struct rk_store *s, const char *path, const char *name)
{
	struct rk_run *r = NULL;
	struct rk_err err = RK_ERR_INIT;
	int rc = rk_run_load(s, path, name, &r, &err);

	if (rc)
		rk_test_fail(__FILE__, __LINE__, "rk_run_load('%s'): %s", path,
			     rk_err_str(&err, rc));
	return r;
}

/* A run directory as TheRock's CI leaves it (the files are empty: only names matter). */
static void make_run(const char *dir)
{
	static const char *const files[] = {
		"base_lib_generic.tar.zst",
		"base_lib_generic.tar.zst.sha256sum",
		"blas_lib_gfx94X-dcgpu.tar.xz",
		"blas_lib_gfx94X-dcgpu.tar.zst",
		"blas_lib_gfx94X-dcgpu.tar.xz.sha256sum",
		"blas_lib_gfx942.tar.zst",
		"rccl_lib_gfx942:xnack+.tar.zst",
		"rand_dev_gfx1100.tar.xz",
		"rand_dev_gfx1100.tar.xz.sha256sum",
		"amd-llvm_dev_generic.tar.zst",
		"index.html",
		"foo_bar.tar.zst",
		"too_many_under_scores.tar.zst",
		"nocomp_lib_generic.tar.gz",
		"ninja_logs.tar.gz",
	};

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		fx_writes(fx_path("%s/%s", dir, files[i]), files[i]);
	fx_mkdirs(fx_path("%s/logs/build", dir));
	fx_mkdirs(fx_path("%s/python", dir));
}

static const struct rk_store_entry *file(const struct rk_run *r, const char *name)
{
	for (size_t i = 0; i < r->files.n; i++)
		if (!strcmp(r->files.v[i].name, name))
			return &r->files.v[i];
	return NULL;
}

RK_TEST(run_name_valid)
{
	RK_ASSERT(rk_run_name_valid("24205988455-linux"));
	RK_ASSERT(rk_run_name_valid("1-windows"));
	RK_ASSERT(rk_run_name_valid("0-x"));
	RK_ASSERT(rk_run_name_valid("local-linux"));
	RK_ASSERT(rk_run_name_valid("local-windows"));
	RK_ASSERT(!rk_run_name_valid("local-"));
	RK_ASSERT(!rk_run_name_valid("locals-linux"));
	RK_ASSERT(!rk_run_name_valid("python-deps"));
	RK_ASSERT(!rk_run_name_valid(""));
	RK_ASSERT(!rk_run_name_valid("-linux"));
	RK_ASSERT(!rk_run_name_valid("123"));
	RK_ASSERT(!rk_run_name_valid("123-"));
	RK_ASSERT(!rk_run_name_valid("123-Linux"));
	RK_ASSERT(!rk_run_name_valid("123-linux-2"));
	RK_ASSERT(!rk_run_name_valid("123-linux/"));
	RK_ASSERT(!rk_run_name_valid("12a-linux"));
	RK_ASSERT(!rk_run_name_valid("123_linux"));
	RK_ASSERT(!rk_run_name_valid("ROCm-TheRock"));
	RK_ASSERT(!rk_run_name_valid(" 123-linux"));
	RK_ASSERT(!rk_run_name_valid("123-linux "));
	RK_ASSERT(!rk_run_name_valid("123--linux"));
}

RK_TEST(listing_has_artifacts)
{
	char n0[] = "index.html", n1[] = "a_b_c.tar.zst";
	struct rk_store_entry e[2] = {{n0, 1, 0, 0, 0}, {n1, 0, 0, 0, 1}};
	struct rk_store_list l = {e, 2};

	/* a directory named like an archive does not count */
	RK_ASSERT(!rk_listing_has_artifacts(&l));
	e[1].is_dir = 0;
	RK_ASSERT(rk_listing_has_artifacts(&l));
	l.n = 0;
	RK_ASSERT(!rk_listing_has_artifacts(&l));
}

RK_TEST(artifacts_parsed_and_sorted)
{
	struct rk_store *s;
	struct rk_run *r;
	static const char *const stems[] = {
		"amd-llvm_dev_generic",	 "base_lib_generic", "blas_lib_gfx942",
		"blas_lib_gfx94X-dcgpu", "rand_dev_gfx1100", "rccl_lib_gfx942:xnack+",
	};

	make_run("store/24205988455-linux");
	s = open_store("store");
	r = load(s, "24205988455-linux", "24205988455-linux");
	RK_ASSERT_EQ_STR("24205988455-linux", r->name);
	RK_ASSERT_EQ_STR("24205988455-linux", r->path);
	RK_ASSERT_EQ_INT(6, r->narts);
	for (size_t i = 0; i < r->narts; i++)
		RK_ASSERT_EQ_STR(stems[i], r->arts[i].stem);
	{
		const struct rk_artifact *a = rk_run_find(r, "rccl_lib_gfx942:xnack+");

		RK_ASSERT(a != NULL);
		RK_ASSERT_EQ_STR("rccl_lib_gfx942:xnack+.tar.zst", a->file);
		RK_ASSERT_EQ_STR("rccl", a->an.name);
		RK_ASSERT_EQ_STR("lib", a->an.component);
		RK_ASSERT_EQ_STR("gfx942:xnack+", a->an.target);
		RK_ASSERT_EQ_INT(RK_COMP_ZSTD, a->an.compression);
		RK_ASSERT_EQ_INT(strlen("rccl_lib_gfx942:xnack+.tar.zst"), a->size);
		RK_ASSERT(a->mtime_ns > 0);
		RK_ASSERT(a->sidecar == NULL);
	}
	RK_ASSERT(rk_run_find(r, "foo_bar") == NULL);
	RK_ASSERT(rk_run_find(r, "base_lib_generic.tar.zst") == NULL);
	RK_ASSERT(rk_run_find(r, "") == NULL);
	rk_run_free(r);
	rk_run_free(NULL);
	rk_store_close(s);
}

RK_TEST(zst_preferred_over_xz_twin)
{
	struct rk_store *s;
	struct rk_run *r;
	const struct rk_artifact *a;

	make_run("store/1-linux");
	s = open_store("store");
	r = load(s, "1-linux", "1-linux");
	a = rk_run_find(r, "blas_lib_gfx94X-dcgpu");
	RK_ASSERT(a != NULL);
	RK_ASSERT_EQ_STR("blas_lib_gfx94X-dcgpu.tar.zst", a->file);
	RK_ASSERT_EQ_INT(RK_COMP_ZSTD, a->an.compression);
	RK_ASSERT_EQ_INT(1, a->has_xz_twin);
	/* the xz twin's sidecar is not the zst's */
	RK_ASSERT(a->sidecar == NULL);
	/* an xz without a twin is used as is */
	a = rk_run_find(r, "rand_dev_gfx1100");
	RK_ASSERT(a != NULL);
	RK_ASSERT_EQ_STR("rand_dev_gfx1100.tar.xz", a->file);
	RK_ASSERT_EQ_INT(RK_COMP_XZ, a->an.compression);
	RK_ASSERT_EQ_INT(0, a->has_xz_twin);
	RK_ASSERT_EQ_STR("rand_dev_gfx1100.tar.xz.sha256sum", a->sidecar);
	/* only one artifact for the twin pair */
	for (size_t i = 1; i < r->narts; i++)
		RK_ASSERT(strcmp(r->arts[i - 1].stem, r->arts[i].stem) < 0);
	rk_run_free(r);
	rk_store_close(s);
}

RK_TEST(sidecar_detected)
{
	struct rk_store *s;
	struct rk_run *r;
	const struct rk_artifact *a;

	make_run("store/1-linux");
	s = open_store("store");
	r = load(s, "1-linux", "1-linux");
	a = rk_run_find(r, "base_lib_generic");
	RK_ASSERT(a != NULL);
	RK_ASSERT_EQ_STR("base_lib_generic.tar.zst.sha256sum", a->sidecar);
	RK_ASSERT(rk_run_find(r, "amd-llvm_dev_generic")->sidecar == NULL);
	rk_run_free(r);
	rk_store_close(s);
}

RK_TEST(non_matching_names_are_files_not_artifacts)
{
	struct rk_store *s;
	struct rk_run *r;

	make_run("store/1-linux");
	s = open_store("store");
	r = load(s, "1-linux", "1-linux");
	RK_ASSERT(file(r, "index.html") != NULL);
	RK_ASSERT(file(r, "foo_bar.tar.zst") != NULL);
	RK_ASSERT(file(r, "too_many_under_scores.tar.zst") != NULL);
	RK_ASSERT(file(r, "nocomp_lib_generic.tar.gz") != NULL);
	RK_ASSERT(file(r, "base_lib_generic.tar.zst.sha256sum") != NULL);
	RK_ASSERT(file(r, "blas_lib_gfx94X-dcgpu.tar.xz") != NULL); /* the twin stays a file */
	for (size_t i = 1; i < r->files.n; i++)
		RK_ASSERT(strcmp(r->files.v[i - 1].name, r->files.v[i].name) < 0);
	for (size_t i = 0; i < r->narts; i++) {
		RK_ASSERT(strcmp(r->arts[i].stem, "foo_bar") != 0);
		RK_ASSERT(strstr(r->arts[i].file, ".gz") == NULL);
	}
	rk_run_free(r);
	rk_store_close(s);
}

/* rk/catalog.h: "files: every regular file at the run root, sorted". The listing's
 * subdirectories (logs/, python/, manifests/) are not regular files. */
RK_TEST(files_holds_only_regular_files)
{
	struct rk_store *s;
	struct rk_run *r;

	make_run("store/1-linux");
	s = open_store("store");
	r = load(s, "1-linux", "1-linux");
	for (size_t i = 0; i < r->files.n; i++)
		if (r->files.v[i].is_dir)
			rk_test_fail(__FILE__, __LINE__, "files[%zu] = '%s' is a directory", i,
				     r->files.v[i].name);
	rk_run_free(r);
	rk_store_close(s);
}

RK_TEST(targets_sorted_distinct)
{
	struct rk_store *s;
	struct rk_run *r;
	static const char *const want[] = {"generic", "gfx1100", "gfx942", "gfx942:xnack+",
					   "gfx94X-dcgpu"};

	make_run("store/1-linux");
	s = open_store("store");
	r = load(s, "1-linux", "1-linux");
	RK_ASSERT_EQ_INT(5, r->ntargets);
	for (size_t i = 0; i < r->ntargets; i++)
		RK_ASSERT_EQ_STR(want[i], r->targets[i]);
	rk_run_free(r);
	rk_store_close(s);
}

RK_TEST(manifest_detection)
{
	struct rk_store *s;
	struct rk_run *r;

	make_run("store/1-linux");
	make_run("store/2-linux");
	fx_writes("store/1-linux/manifests/therock_manifest.json", "{}");
	fx_writes("store/2-linux/manifests/gfx94X-dcgpu/therock_manifest.json", "{}");
	s = open_store("store");
	r = load(s, "1-linux", "1-linux");
	RK_ASSERT_EQ_INT(1, r->has_manifest);
	rk_run_free(r);
	r = load(s, "2-linux", "2-linux"); /* the legacy per-group place is not the run's */
	RK_ASSERT_EQ_INT(0, r->has_manifest);
	rk_run_free(r);
	rk_store_close(s);
}

RK_TEST(store_is_the_run)
{
	struct rk_store *s;
	struct rk_run *r;

	make_run("run");
	s = open_store("run");
	r = load(s, "", "24205988455-linux");
	RK_ASSERT_EQ_STR("", r->path);
	RK_ASSERT_EQ_INT(6, r->narts);
	rk_run_free(r);
	rk_store_close(s);
}

RK_TEST(run_under_org_dir)
{
	struct rk_store *s;
	struct rk_run *r;

	make_run("store/ROCm-TheRock/77-windows");
	s = open_store("store");
	r = load(s, "ROCm-TheRock/77-windows", "ROCm-TheRock/77-windows");
	RK_ASSERT_EQ_INT(6, r->narts);
	rk_run_free(r);
	rk_store_close(s);
}

RK_TEST(empty_and_missing_runs)
{
	struct rk_store *s;
	struct rk_run *r = NULL;

	fx_mkdirs("store/5-linux");
	fx_writes("store/6-linux/readme.txt", "no artifacts");
	s = open_store("store");
	r = load(s, "5-linux", "5-linux");
	RK_ASSERT_EQ_INT(0, r->narts);
	RK_ASSERT_EQ_INT(0, r->ntargets);
	RK_ASSERT(rk_run_find(r, "x") == NULL);
	rk_run_free(r);
	r = load(s, "6-linux", "6-linux");
	RK_ASSERT_EQ_INT(0, r->narts);
	RK_ASSERT_EQ_INT(1, r->files.n);
	rk_run_free(r);
	r = NULL;
	RK_ASSERT_EQ_INT(-ENOENT, rk_run_load(s, "7-linux", "7-linux", &r, NULL));
	RK_ASSERT(r == NULL);
	RK_ASSERT_EQ_INT(-EINVAL, rk_run_load(s, "../x", "x", &r, NULL));
	rk_store_close(s);
}

RK_TEST(long_names)
{
	struct rk_store *s;
	struct rk_run *r;
	char name[256];

	/* two long fields; the sidecar's name must still fit in NAME_MAX */
	memset(name, 'n', 110);
	snprintf(name + 110, sizeof(name) - 110, "_lib_%0110d.tar.xz", 7);
	fx_writes(fx_path("store/1-linux/%s", name), "");
	fx_writes(fx_path("store/1-linux/%s.sha256sum", name), "");
	s = open_store("store");
	r = load(s, "1-linux", "1-linux");
	RK_ASSERT_EQ_INT(1, r->narts);
	RK_ASSERT_EQ_STR(name, r->arts[0].file);
	RK_ASSERT(r->arts[0].sidecar != NULL);
	rk_run_free(r);
	rk_store_close(s);
}
