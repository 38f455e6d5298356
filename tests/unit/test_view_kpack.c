/* test_view_kpack.c: RUN/kpack/ of the demo store through the public API, with the kpack
 * view's options unset and set (kpack_compression, topology, split_databases), the
 * selection of rk/kpack_view.h, and the options refused at rk_vfs_open. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk/kpack_view.h"
#include "rk/vfs.h"
#include "fx_views.h"
#include "rk_fixture.h"
#include "rk_test.h"

#define KP "/" FX_LEGACY "/kpack/"
#define GFX1100 KP "blas_lib_gfx1100/"
#define KPACK_FILE GFX1100 "math-libs/BLAS/hipBLASLt/stage/.kpack/blas_lib_gfx1100.kpack"
#define ROCBLAS_DB \
	"math-libs/BLAS/rocBLAS/stage/lib/rocblas/library/TensileLibrary_lazy_gfx1100.dat"
#define HIPBLASLT_DB "math-libs/BLAS/hipBLASLt/stage/lib/hipblaslt/library/extop_gfx1100.co"
/* the size of blas_lib_gfx1100.kpack without compression (mkdemo.py's code objects) */
#define KPACK_NONE_SIZE 15567

static const char legacy_outputs[] =
	"blas_dev_generic/ blas_lib_generic/ blas_lib_gfx1100/ blas_lib_gfx1101/ "
	"blas_lib_gfx1102/ blas_lib_gfx1103/ blas_lib_gfx942/ blas_test_generic/ "
	"rand_dev_generic/ rand_lib_generic/ rand_lib_gfx1100/ rand_lib_gfx1101/ "
	"rand_lib_gfx1102/ rand_lib_gfx1103/ rand_lib_gfx942/ rand_lib_gfx942:xnack+/";

/* Whether path exists in v. */
static int exists(struct rk_vfs *v, const char *path)
{
	struct rk_attr a;

	return !rk_vfs_resolve(v, path, &a, NULL);
}

static int has_bytes(const char *buf, size_t len, const char *s)
{
	return memmem(buf, len, s, strlen(s)) != NULL;
}

RK_TEST(legacy_run_defaults)
{
	struct rk_vfs *v = fx_demo_open("cache", NULL, 0);
	char *ls = fx_ls(v, KP), *buf;
	size_t len;

	RK_ASSERT_EQ_STR(legacy_outputs, ls);
	free(ls);
	ls = fx_ls(v, GFX1100);
	RK_ASSERT_EQ_STR("math-libs/ artifact_manifest.txt", ls);
	free(ls);
	buf = fx_cat(v, GFX1100 "artifact_manifest.txt", &len);
	RK_ASSERT_EQ_STR("math-libs/BLAS/hipBLASLt/stage\nmath-libs/BLAS/rocBLAS/stage\n", buf);
	free(buf);
	/* kpack_compression=none (the default): the archive rocm-kpack writes uncompressed */
	buf = fx_cat(v, KPACK_FILE, &len);
	RK_ASSERT_EQ_INT(KPACK_NONE_SIZE, len);
	RK_ASSERT_EQ_MEM("KPAK\x01\0\0\0", buf, 8);
	RK_ASSERT(!has_bytes(buf, len, "zstd-per-kernel"));
	free(buf);
	/* the built-in topology: blas moves its rocBLAS and hipBLASLt databases per arch */
	RK_ASSERT(exists(v, GFX1100 ROCBLAS_DB));
	RK_ASSERT(exists(v, GFX1100 HIPBLASLT_DB));
	RK_ASSERT(!exists(v, KP "blas_lib_generic/" ROCBLAS_DB));
	fx_vfs_close(v);
}

RK_TEST(kpack_split_run_links_stored)
{
	struct rk_vfs *v = fx_demo_open("cache", NULL, 0);
	char *ls = fx_ls(v, "/" FX_KPACKED "/kpack/"), target[256];
	struct rk_attr a = fx_resolve(v, "/" FX_KPACKED "/kpack/rand_lib_gfx942:xnack+");
	size_t n = 0;

	/* its stored split artifacts, as links into browse/ */
	for (const char *p = ls; p; p = strchr(p, ' '), p = p ? p + 1 : NULL)
		n++;
	RK_ASSERT_EQ_INT(26, n);
	RK_ASSERT(fx_has(ls, "amd-llvm_dev_generic@"));
	RK_ASSERT(fx_has(ls, "blas_lib_gfx1103@"));
	RK_ASSERT(!strchr(ls, '/'));
	RK_ASSERT_EQ_INT(strlen("../browse/rand_lib_gfx942:xnack+"),
			 rk_vfs_readlink(v, a.ino, target, sizeof(target), NULL));
	RK_ASSERT_EQ_STR("../browse/rand_lib_gfx942:xnack+", target);
	free(ls);
	fx_vfs_close(v);
}

RK_TEST(compression_zstd)
{
	static const struct rk_vfs_opt z[] = {{.name = "kpack_compression", .value = "zstd"}};
	struct rk_vfs *v = fx_demo_open("cache", z, 1);
	char *ls = fx_ls(v, KP), *buf;
	size_t len;

	RK_ASSERT_EQ_STR(legacy_outputs, ls);
	free(ls);
	buf = fx_cat(v, KPACK_FILE, &len);
	RK_ASSERT_EQ_MEM("KPAK\x01\0\0\0", buf, 8);
	RK_ASSERT(has_bytes(buf, len, "zstd-per-kernel"));
	RK_ASSERT(len != KPACK_NONE_SIZE);
	free(buf);
	fx_vfs_close(v);
	/* "none" given is the default */
	{
		static const struct rk_vfs_opt none[] = {
			{.name = "kpack_compression", .value = "none"}};

		v = fx_demo_open("cache", none, 1);
		buf = fx_cat(v, KPACK_FILE, &len);
		RK_ASSERT_EQ_INT(KPACK_NONE_SIZE, len);
		free(buf);
		fx_vfs_close(v);
	}
}

RK_TEST(split_databases)
{
	static const struct rk_vfs_opt none[] = {{.name = "split_databases", .value = "none"}};
	static const struct rk_vfs_opt lt[] = {{.name = "split_databases", .value = "hipblaslt"}};
	struct rk_vfs *v = fx_demo_open("cache", none, 1);
	char *ls = fx_ls(v, GFX1100 "math-libs/BLAS/");

	/* no handler: the databases stay in the generic output */
	RK_ASSERT_EQ_STR("hipBLASLt/", ls);
	free(ls);
	RK_ASSERT(!exists(v, GFX1100 ROCBLAS_DB));
	RK_ASSERT(!exists(v, GFX1100 HIPBLASLT_DB));
	RK_ASSERT(exists(v, KP "blas_lib_generic/" ROCBLAS_DB));
	RK_ASSERT(exists(v, KP "blas_lib_generic/" HIPBLASLT_DB));
	fx_vfs_close(v);
	v = fx_demo_open("cache", lt, 1);
	RK_ASSERT(!exists(v, GFX1100 ROCBLAS_DB));
	RK_ASSERT(exists(v, GFX1100 HIPBLASLT_DB));
	fx_vfs_close(v);
}

RK_TEST(topology_file)
{
	static const struct rk_vfs_opt t[] = {{.name = "topology", .value = "topo.toml"}};
	struct rk_vfs *v;

	fx_writes("topo.toml", "[artifacts.blas]\nsplit_databases = [\"rocblas\"]\n");
	v = fx_demo_open("cache", t, 1);
	RK_ASSERT(exists(v, GFX1100 ROCBLAS_DB));
	RK_ASSERT(!exists(v, GFX1100 HIPBLASLT_DB));
	RK_ASSERT(exists(v, KP "blas_lib_generic/" HIPBLASLT_DB));
	/* read at open: the file may go */
	RK_ASSERT_EQ_INT(0, remove("topo.toml"));
	RK_ASSERT(exists(v, KP "rand_lib_gfx942:xnack+/"));
	fx_vfs_close(v);
}

RK_TEST(selection)
{
	struct rk_vfs *v = fx_demo_open("cache", NULL, 0);
	const char *stems[] = {"rand_lib_gfx94X-dcgpu"};
	char *ls;

	RK_ASSERT_EQ_INT(0, rk_kpack_view_select(v, stems, 1));
	ls = fx_ls(v, KP);
	RK_ASSERT_EQ_STR("rand_lib_generic/ rand_lib_gfx942/ rand_lib_gfx942:xnack+/", ls);
	free(ls);
	fx_vfs_close(v);
}

RK_TEST(options_refused)
{
	char msg[512];
	struct {
		struct rk_vfs_opt o[2];
		size_t n;
		int rc;
		const char *msg; /* the start of the message */
	} cases[] = {
		{{{"kpack_compression", "lz4", NULL}},
		 1,
		 -EINVAL,
		 "kpack_compression 'lz4': want none or zstd"},
		{{{"kpack_compression", "lz4", "split: --compression"}},
		 1,
		 -EINVAL,
		 "split: --compression 'lz4': want none or zstd"},
		{{{"kpack_compression", NULL, NULL}},
		 1,
		 -EINVAL,
		 "kpack_compression: needs a value"},
		{{{"topology", "no-such.toml", NULL}},
		 1,
		 -ENOENT,
		 "topology: no-such.toml: No such file or directory"},
		{{{"topology", "no-such.toml", "split: --topology"}},
		 1,
		 -ENOENT,
		 "split: --topology: no-such.toml: No such file or directory"},
		{{{"split_databases", "rocblas:rocsolver", NULL}},
		 1,
		 -EINVAL,
		 "split_databases: unknown database handler 'rocsolver' (want none or some of: "},
		{{{"split_databases", "none:rocblas", NULL}},
		 1,
		 -EINVAL,
		 "split_databases: unknown database handler 'none'"},
		{{{"topology", "t.toml", NULL}, {"split_databases", "rocblas", NULL}},
		 2,
		 -EINVAL,
		 "topology and split_databases exclude each other"},
		{{{"frobnicate", NULL, NULL}}, 1, -EINVAL, "frobnicate: no view takes this option"},
		{{{"packages_multiarch", "1", NULL}},
		 1,
		 -EINVAL,
		 "packages_multiarch: takes no value"},
	};

	fx_writes("t.toml", "[artifacts.blas]\nsplit_databases = [\"rocblas\"]\n");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		RK_ASSERT_EQ_INT(cases[i].rc,
				 fx_demo_refused(cases[i].o, cases[i].n, msg, sizeof(msg)));
		if (strncmp(msg, cases[i].msg, strlen(cases[i].msg)))
			rk_test_fail(__FILE__, __LINE__, "case %zu: '%s', want '%s...'", i, msg,
				     cases[i].msg);
	}
}

RK_TEST(option_table)
{
	const struct rk_vfs_opt_decl *d;
	const char *view = NULL;
	struct rk_err err = RK_ERR_INIT;
	size_t n = 0;

	for (; (d = rk_vfs_opt_at(n, &view)); n++) {
		RK_ASSERT(d->help && d->man && view);
		RK_ASSERT(rk_vfs_opt_find(d->name) == d); /* names are unique */
		RK_ASSERT((d->type == RK_VFS_OPT_FLAG) == !d->arg);
		/* a default is a value the option takes */
		RK_ASSERT(!d->def || !rk_vfs_opt_check(d, d->def, NULL, &err));
		RK_ASSERT(!d->flag_def || !rk_vfs_opt_check(d, d->flag_def, NULL, &err));
		RK_ASSERT(!d->flag_value || !rk_vfs_opt_check(d, d->flag_value, NULL, &err));
		RK_ASSERT(!d->excludes || rk_vfs_opt_find(d->excludes));
	}
	RK_ASSERT_EQ_INT(12, n);
	d = rk_vfs_opt_find("split_databases");
	RK_ASSERT(d && d->type == RK_VFS_OPT_LIST);
	RK_ASSERT(rk_vfs_opt_at(0, &view) == rk_vfs_opt_find("kpack_compression"));
	RK_ASSERT_EQ_STR("kpack", view);
	RK_ASSERT(rk_vfs_opt_find("wheel_compression"));
	RK_ASSERT(rk_vfs_opt_find("packages_compress"));
	RK_ASSERT_EQ_INT(-EINVAL,
			 rk_vfs_opt_check(rk_vfs_opt_find("packages_compress"), "gzip", "x", &err));
	RK_ASSERT(!rk_vfs_opt_find("cache"));
	RK_ASSERT_EQ_INT(0, rk_vfs_opt_check(d, "rocblas:miopen", "x", &err));
	RK_ASSERT_EQ_INT(0, rk_vfs_opt_check(d, "none", "x", &err));
	RK_ASSERT_EQ_INT(-EINVAL, rk_vfs_opt_check(d, "", "x", &err));
	RK_ASSERT_EQ_INT(-EINVAL, rk_vfs_opt_check(d, "rocblas:", "x", &err));
}
