/* test_flatten.c: the flatten service (services/flatten.c) without a mount: synthetic runs
 * in a temporary local store, flattened into private trees (vfs_flatten,
 * vfs_flatten_artifacts) and walked with vfs_find; the dist names of legacy and
 * kpack-split runs (vfs_dist_names, vfs_run_is_split). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk/cache.h"
#include "rk/log.h"
#include "rk/vfs.h"
#include "engine/vfs_int.h"
#include "services/flatten.h"
#include "rk_fixture.h"
#include "rk_test.h"

#define BASE_MANIFEST "base/aux-overlay/stage/share/therock/therock_manifest.json"

/* ---- a legacy run: generic artifacts and family artifacts ---- */

static const struct fx_member aa[] = {
	FX_MANIFEST("a/stage\n"),
	{FX_FILE, "a/stage/share/order.txt", "aa\n", -1, 0644},
	{FX_FILE, "a/stage/share/same.txt", "same\n", -1, 0644},
	{FX_FILE, "a/stage/share/d/inside.txt", "in d\n", -1, 0644},
	{FX_FILE, "a/stage/conf", "a conf file\n", -1, 0644},
	{FX_FILE, "a/stage/bin/tool", "#!/bin/sh\n", -1, 0750},
	{FX_FILE, "a/stage/lib/libz.so.1", "libz\n", -1, 0600},
	{FX_SYMLINK, "a/stage/lib/libz.so", "libz.so.1", 0, 0},
	{FX_HARDLINK, "a/stage/lib/libz-copy.so.1", "a/stage/lib/libz.so.1", 0, 0},
	{FX_DIR, "a/stage/private/", NULL, 0, 0700},
	{FX_FILE, "outside/ignored.txt", "not under a prefix\n", -1, 0644},
};

static const struct fx_member zz[] = {
	FX_MANIFEST("z/stage\n"),
	{FX_FILE, "z/stage/share/order.txt", "zz\n", -1, 0644},
	{FX_FILE, "z/stage/share/same.txt", "same\n", -1, 0644},
};

static const struct fx_member amd[] = {
	FX_MANIFEST("m/stage\n"),
	{FX_FILE, "m/stage/share/order.txt", "amd\n", -1, 0644},
	{FX_FILE, "m/stage/share/d", "a file where a directory is\n", -1, 0644},
	{FX_FILE, "m/stage/conf/inner.txt", "inner\n", -1, 0644},
};

/* three prefixes, the second inside the first */
static const struct fx_member blas[] = {
	FX_MANIFEST("p/one\np/one/inner\np/two\n"),
	{FX_FILE, "p/one/inner/f.txt", "claimed by p/one\n", -1, 0644},
	{FX_FILE, "p/one/lib/libblas.so", "blas\n", -1, 0755},
	{FX_FILE, "p/two/x.txt", "two\n", -1, 0644},
};

static const struct fx_member blas_test[] = {
	FX_MANIFEST("t/stage\n"),
	{FX_FILE, "t/stage/bin/test-blas", "test\n", -1, 0755},
};

static const struct fx_member fftw[] = {
	FX_MANIFEST("f/stage\n"),
	{FX_FILE, "f/stage/lib/libfftw3.so", "fftw\n", -1, 0644},
};

static const struct fx_member rocm110[] = {
	FX_MANIFEST("r/stage\n"),
	{FX_FILE, "r/stage/share/order.txt", "gfx110X\n", -1, 0644},
	{FX_FILE, "r/stage/lib/librocm110.so", "110\n", -1, 0644},
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void make_legacy(const char *run)
{
	fx_tar(fx_path("store/%s/aa_lib_generic.tar.zst", run), FX_ZSTD, aa, N(aa));
	fx_tar(fx_path("store/%s/zz_lib_generic.tar.zst", run), FX_ZSTD, zz, N(zz));
	fx_tar(fx_path("store/%s/amd_lib_gfx94X-dcgpu.tar.zst", run), FX_ZSTD, amd, N(amd));
	fx_tar(fx_path("store/%s/blas_lib_gfx94X-dcgpu.tar.zst", run), FX_ZSTD, blas, N(blas));
	fx_tar(fx_path("store/%s/blas_test_gfx94X-dcgpu.tar.zst", run), FX_ZSTD, blas_test,
	       N(blas_test));
	fx_tar(fx_path("store/%s/fftw3_lib_gfx94X-dcgpu.tar.zst", run), FX_ZSTD, fftw, N(fftw));
	fx_tar(fx_path("store/%s/rocm_lib_gfx110X-all.tar.zst", run), FX_ZSTD, rocm110, N(rocm110));
}

/* ---- kpack-split runs: single gfx targets ---- */

static const struct fx_member core[] = {
	FX_MANIFEST("c/stage\n"),
	{FX_FILE, "c/stage/bin/hipcc", "hipcc\n", -1, 0755},
};

static const struct fx_member b942[] = {
	FX_MANIFEST("b/stage\n"),
	{FX_FILE, "b/stage/lib/libblas-942.so", "942\n", -1, 0644},
};

static const struct fx_member b1100[] = {
	FX_MANIFEST("b/stage\n"),
	{FX_FILE, "b/stage/lib/libblas-1100.so", "1100\n", -1, 0644},
};

static const struct fx_member base_split[] = {
	FX_MANIFEST("base/aux-overlay/stage\n"),
	{FX_FILE, BASE_MANIFEST,
	 "{\"the_rock_commit\":\"abc\",\"flags\":{\"KPACK_SPLIT_ARTIFACTS\":true}}", -1, 0644},
};

static const struct fx_member base_legacy[] = {
	FX_MANIFEST("base/aux-overlay/stage\n"),
	{FX_FILE, BASE_MANIFEST,
	 "{\"the_rock_commit\":\"abc\",\"flags\":{\"KPACK_SPLIT_ARTIFACTS\":false}}", -1, 0644},
};

static void make_split(const char *run)
{
	fx_tar(fx_path("store/%s/core_lib_generic.tar.zst", run), FX_ZSTD, core, N(core));
	fx_tar(fx_path("store/%s/blas_lib_gfx942.tar.zst", run), FX_ZSTD, b942, N(b942));
	fx_tar(fx_path("store/%s/blas_lib_gfx1100.tar.zst", run), FX_ZSTD, b1100, N(b1100));
}

/* ---- helpers ---- */

static struct rk_vfs *open_vfs(void)
{
	struct rk_vfs_opts o = {.store = "store", .cache_dir = "cache", .ingest_jobs = 2};

	return fx_vfs_open(&o);
}

static struct run *get_run(struct rk_vfs *v, const char *name)
{
	const struct rk_run *cat = NULL;
	struct rk_err err = RK_ERR_INIT;
	int rc = rk_vfs_run(v, name, &cat, &err);

	if (rc)
		rk_test_fail(__FILE__, __LINE__, "rk_vfs_run('%s'): %s", name,
			     rk_err_str(&err, rc));
	for (struct run *r = v->runs; r; r = r->next)
		if (r->cat == cat)
			return r;
	rk_test_fail(__FILE__, __LINE__, "run '%s' not in v->runs", name);
}

static struct artifact *get_art(struct run *r, const char *stem)
{
	for (size_t i = 0; i < r->cat->narts; i++)
		if (!strcmp(r->artifacts[i].art->stem, stem))
			return &r->artifacts[i];
	rk_test_fail(__FILE__, __LINE__, "no artifact '%s'", stem);
}

/* The flatten of tree x of run r into a new private tree. */
static struct node *flatten(struct rk_vfs *v, struct run *r, const char *x, int release,
			    char **conflicts, unsigned *nconflicts)
{
	struct node *root = vfs_tree_new(x, S_IFDIR | 0755, 0);
	struct rk_err err = RK_ERR_INIT;
	int rc;

	RK_ASSERT(root != NULL);
	rc = vfs_flatten(v, r, x, release, root, conflicts, nconflicts, &err);
	if (rc)
		rk_test_fail(__FILE__, __LINE__, "vfs_flatten('%s'): %s", x, rk_err_str(&err, rc));
	return root;
}

static struct node *find(struct node *root, const char *path)
{
	struct node *n = vfs_find(root, path);

	if (!n)
		rk_test_fail(__FILE__, __LINE__, "'%s' is not in tree '%s'", path,
			     vfs_node_name(root));
	return n;
}

/* A file node's bytes (a cache blob or bytes in memory), malloc'd and NUL-terminated. */
static char *content(struct rk_vfs *v, const struct node *n)
{
	char *buf = malloc(vfs_node_size(n) + 1);
	int fd = -1;

	RK_ASSERT(buf != NULL);
	RK_ASSERT(S_ISREG(vfs_node_mode(n)));
	if (vfs_node_bytes(n)) {
		memcpy(buf, vfs_node_bytes(n), vfs_node_size(n));
	} else {
		RK_ASSERT(vfs_node_blob(n) != NULL);
		RK_ASSERT_EQ_INT(
			0, rk_blob_open(v->cache, vfs_node_blob(n), vfs_node_size(n), &fd, NULL));
		RK_ASSERT_EQ_INT((long long)vfs_node_size(n), pread(fd, buf, vfs_node_size(n), 0));
		close(fd);
	}
	buf[vfs_node_size(n)] = '\0';
	return buf;
}

static void expect_content(struct rk_vfs *v, struct node *root, const char *path, const char *want)
{
	char *got = content(v, find(root, path));

	RK_ASSERT_EQ_STR(want, got);
	free(got);
}

static void expect_names(struct rk_vfs *v, struct run *r, int release, const char *want)
{
	char **names = NULL, got[1024] = "";
	size_t n = 0;

	RK_ASSERT_EQ_INT(0, vfs_dist_names(v, r, release, &names, &n));
	for (size_t i = 0; i < n; i++) {
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", i ? " " : "",
			 names[i]);
		free(names[i]);
	}
	free(names);
	RK_ASSERT_EQ_STR(want, got);
}

/* ---- tests ---- */

RK_TEST(prefixes_stripped)
{
	struct rk_vfs *v;
	struct node *root;

	make_legacy("100-linux");
	v = open_vfs();
	root = flatten(v, get_run(v, "100-linux"), "gfx94X-dcgpu", 0, NULL, NULL);
	/* each member's manifest prefix is dropped; the manifest itself and members under no
	 * prefix are not part of the tree */
	expect_content(v, root, "share/same.txt", "same\n");
	expect_content(v, root, "bin/tool", "#!/bin/sh\n");
	expect_content(v, root, "x.txt", "two\n");
	expect_content(v, root, "lib/libblas.so", "blas\n");
	RK_ASSERT(vfs_find(root, "artifact_manifest.txt") == NULL);
	RK_ASSERT(vfs_find(root, "outside") == NULL);
	RK_ASSERT(vfs_find(root, "a") == NULL && vfs_find(root, "stage") == NULL);
	/* p/one/inner/f.txt belongs to p/one, the first prefix that holds it: it is
	 * inner/f.txt, and prefix p/one/inner does not place it again at the root */
	expect_content(v, root, "inner/f.txt", "claimed by p/one\n");
	RK_ASSERT(vfs_find(root, "f.txt") == NULL);
	/* the gfx110X-all artifact is not in this tree */
	RK_ASSERT(vfs_find(root, "lib/librocm110.so") == NULL);
	vfs_tree_free(root);
	fx_vfs_close(v);
}

RK_TEST(order_generic_first_then_name)
{
	struct rk_vfs *v;
	struct run *r;
	struct node *root;

	make_legacy("100-linux");
	v = open_vfs();
	r = get_run(v, "100-linux");
	/* aa_lib_generic, zz_lib_generic, then amd_lib_gfx94X-dcgpu: although "amd" sorts
	 * before "zz", the generic artifacts come first, and the last writer wins */
	root = flatten(v, r, "gfx94X-dcgpu", 0, NULL, NULL);
	expect_content(v, root, "share/order.txt", "amd\n");
	RK_ASSERT_EQ_STR("amd_lib_gfx94X-dcgpu",
			 vfs_node_origin(find(root, "share/order.txt"))->art->stem);
	RK_ASSERT_EQ_STR("aa_lib_generic", vfs_node_origin(find(root, "bin/tool"))->art->stem);
	vfs_tree_free(root);
	/* the other family's tree: its own artifact wins over both generic ones */
	root = flatten(v, r, "gfx110X-all", 0, NULL, NULL);
	expect_content(v, root, "share/order.txt", "gfx110X\n");
	RK_ASSERT(vfs_find(root, "lib/libblas.so") == NULL);
	vfs_tree_free(root);
	fx_vfs_close(v);
}

RK_TEST(flatten_artifacts_sorts)
{
	struct rk_vfs *v;
	struct run *r;
	struct artifact *as[3];
	struct node *root;
	struct rk_err err = RK_ERR_INIT;

	make_legacy("100-linux");
	v = open_vfs();
	r = get_run(v, "100-linux");
	as[0] = get_art(r, "amd_lib_gfx94X-dcgpu");
	as[1] = get_art(r, "zz_lib_generic");
	as[2] = get_art(r, "aa_lib_generic");
	root = vfs_tree_new("any", S_IFDIR | 0755, 0);
	RK_ASSERT_EQ_INT(0, vfs_flatten_artifacts(v, as, 3, root, &err));
	/* sorted into flatten order in place */
	RK_ASSERT(as[0] == get_art(r, "aa_lib_generic"));
	RK_ASSERT(as[1] == get_art(r, "zz_lib_generic"));
	RK_ASSERT(as[2] == get_art(r, "amd_lib_gfx94X-dcgpu"));
	expect_content(v, root, "share/order.txt", "amd\n");
	RK_ASSERT(S_ISDIR(vfs_node_mode(find(root, "conf"))));
	vfs_tree_free(root);

	/* only the two generic ones, given in reverse: zz wins */
	as[0] = get_art(r, "zz_lib_generic");
	as[1] = get_art(r, "aa_lib_generic");
	root = vfs_tree_new("any", S_IFDIR | 0755, 0);
	RK_ASSERT_EQ_INT(0, vfs_flatten_artifacts(v, as, 2, root, &err));
	expect_content(v, root, "share/order.txt", "zz\n");
	expect_content(v, root, "conf", "a conf file\n");
	vfs_tree_free(root);
	fx_vfs_close(v);
}

RK_TEST(conflict_lines)
{
	struct rk_vfs *v;
	struct node *root, *d;
	char *conflicts = NULL;
	unsigned n = 99;

	make_legacy("100-linux");
	v = open_vfs();
	root = flatten(v, get_run(v, "100-linux"), "gfx94X-dcgpu", 0, &conflicts, &n);
	RK_ASSERT_EQ_STR("share/order.txt\taa_lib_generic\tzz_lib_generic\tdifferent content\n"
			 "share/order.txt\tzz_lib_generic\tamd_lib_gfx94X-dcgpu\tdifferent "
			 "content\n"
			 "share/d\t-\tamd_lib_gfx94X-dcgpu\tfile dropped: a directory is there\n"
			 "conf\taa_lib_generic\tamd_lib_gfx94X-dcgpu\tdirectory replaces a file\n",
			 conflicts);
	RK_ASSERT_EQ_INT(4, n);
	/* the same content twice (share/same.txt) is no conflict; the directory stays, with
	 * its file, and the later directory replaced the file */
	d = find(root, "share/d");
	RK_ASSERT(S_ISDIR(vfs_node_mode(d)));
	expect_content(v, root, "share/d/inside.txt", "in d\n");
	d = find(root, "conf");
	RK_ASSERT(S_ISDIR(vfs_node_mode(d)));
	RK_ASSERT_EQ_INT(1, vfs_dir_count(d));
	expect_content(v, root, "conf/inner.txt", "inner\n");
	free(conflicts);
	vfs_tree_free(root);

	/* a tree without conflicts: an empty list */
	root = flatten(v, get_run(v, "100-linux"), "gfx110X-all", 0, &conflicts, &n);
	RK_ASSERT_EQ_STR("share/order.txt\taa_lib_generic\tzz_lib_generic\tdifferent content\n"
			 "share/order.txt\tzz_lib_generic\trocm_lib_gfx110X-all\tdifferent "
			 "content\n",
			 conflicts);
	RK_ASSERT_EQ_INT(2, n);
	free(conflicts);
	vfs_tree_free(root);
	fx_vfs_close(v);
}

RK_TEST(modes)
{
	struct rk_vfs *v;
	struct node *root, *n;

	make_legacy("100-linux");
	v = open_vfs();
	root = flatten(v, get_run(v, "100-linux"), "gfx94X-dcgpu", 0, NULL, NULL);
	/* files: the member's mode as tar -x keeps it under umask 022 */
	RK_ASSERT_EQ_INT(S_IFREG | 0750, vfs_node_mode(find(root, "bin/tool")));
	RK_ASSERT_EQ_INT(S_IFREG | 0600, vfs_node_mode(find(root, "lib/libz.so.1"))); /* kept */
	RK_ASSERT_EQ_INT(S_IFREG | 0755, vfs_node_mode(find(root, "lib/libblas.so")));
	RK_ASSERT_EQ_INT(S_IFREG | 0644, vfs_node_mode(find(root, "share/same.txt")));
	/* directories 0755, whatever the member said */
	RK_ASSERT_EQ_INT(S_IFDIR | 0755, vfs_node_mode(find(root, "private")));
	RK_ASSERT_EQ_INT(S_IFDIR | 0755, vfs_node_mode(find(root, "lib")));
	/* symlinks verbatim */
	n = find(root, "lib/libz.so");
	RK_ASSERT_EQ_INT(S_IFLNK | 0777, vfs_node_mode(n));
	RK_ASSERT_EQ_STR("libz.so.1", vfs_node_target(n));
	RK_ASSERT_EQ_INT(9, vfs_node_size(n));
	/* mtimes are the members' */
	RK_ASSERT_EQ_INT(FX_MTIME, vfs_node_mtime(find(root, "bin/tool")));
	vfs_tree_free(root);
	fx_vfs_close(v);
}

RK_TEST(hardlinks_one_node)
{
	struct rk_vfs *v;
	struct node *root, *a, *b;

	make_legacy("100-linux");
	v = open_vfs();
	root = flatten(v, get_run(v, "100-linux"), "gfx94X-dcgpu", 0, NULL, NULL);
	a = find(root, "lib/libz.so.1");
	b = find(root, "lib/libz-copy.so.1");
	RK_ASSERT(a == b);
	RK_ASSERT_EQ_INT(2, vfs_node_nlink(a));
	RK_ASSERT_EQ_INT(1, vfs_node_nlink(find(root, "share/same.txt")));
	RK_ASSERT(find(root, "lib/libz.so") != a);
	expect_content(v, root, "lib/libz-copy.so.1", "libz\n");
	vfs_tree_free(root);
	fx_vfs_close(v);
}

RK_TEST(release_drops_test_and_fftw3)
{
	struct rk_vfs *v;
	struct run *r;
	struct node *root;

	make_legacy("100-linux");
	v = open_vfs();
	r = get_run(v, "100-linux");
	root = flatten(v, r, "gfx94X-dcgpu", 0, NULL, NULL);
	expect_content(v, root, "bin/test-blas", "test\n");
	expect_content(v, root, "lib/libfftw3.so", "fftw\n");
	vfs_tree_free(root);
	root = flatten(v, r, "gfx94X-dcgpu", 1, NULL, NULL);
	RK_ASSERT(vfs_find(root, "bin/test-blas") == NULL);
	RK_ASSERT(vfs_find(root, "lib/libfftw3.so") == NULL);
	/* everything else is there */
	RK_ASSERT(vfs_find(root, "bin/tool") != NULL);
	expect_content(v, root, "lib/libblas.so", "blas\n");
	expect_content(v, root, "share/order.txt", "amd\n");
	vfs_tree_free(root);
	fx_vfs_close(v);
}

RK_TEST(names_legacy)
{
	struct rk_vfs *v;
	struct run *r;

	make_legacy("100-linux");
	v = open_vfs();
	r = get_run(v, "100-linux");
	RK_ASSERT_EQ_INT(0, vfs_run_is_split(v, r));
	/* each family, and each gfx target of it */
	expect_names(v, r, 0, "gfx1100 gfx1101 gfx1102 gfx1103 gfx110X-all gfx942 gfx94X-dcgpu");
	/* release tarballs: the families only */
	expect_names(v, r, 1, "gfx110X-all gfx94X-dcgpu");
	fx_vfs_close(v);
}

RK_TEST(names_split)
{
	struct rk_vfs *v;
	struct run *r;

	make_split("200-linux");
	v = open_vfs();
	r = get_run(v, "200-linux");
	RK_ASSERT_EQ_INT(1, vfs_run_is_split(v, r));
	/* each target, each release family holding one, and multiarch */
	expect_names(v, r, 0, "gfx1100 gfx110X-all gfx942 gfx94X-dcgpu multiarch");
	expect_names(v, r, 1, "gfx110X-all gfx94X-dcgpu multiarch");
	fx_vfs_close(v);
}

RK_TEST(names_from_manifest_flag)
{
	struct rk_vfs *v;
	struct run *r;

	/* the manifest says split although the names look legacy, and the other way round */
	fx_tar("store/300-linux/base_lib_generic.tar.zst", FX_ZSTD, base_split, N(base_split));
	fx_tar("store/300-linux/blas_lib_gfx94X-dcgpu.tar.zst", FX_ZSTD, blas, N(blas));
	fx_tar("store/400-linux/base_lib_generic.tar.zst", FX_ZSTD, base_legacy, N(base_legacy));
	make_split("400-linux");
	/* no manifest, generic and a single gfx target: split */
	fx_tar("store/500-linux/core_lib_generic.tar.zst", FX_ZSTD, core, N(core));
	fx_tar("store/500-linux/blas_lib_gfx942.tar.zst", FX_ZSTD, b942, N(b942));
	/* no manifest, only generic: not split */
	fx_tar("store/600-linux/core_lib_generic.tar.zst", FX_ZSTD, core, N(core));
	v = open_vfs();
	r = get_run(v, "300-linux");
	RK_ASSERT_EQ_INT(1, vfs_run_is_split(v, r));
	expect_names(v, r, 0, "gfx94X-dcgpu multiarch");
	r = get_run(v, "400-linux");
	RK_ASSERT_EQ_INT(0, vfs_run_is_split(v, r));
	expect_names(v, r, 0, "gfx1100 gfx942");
	expect_names(v, r, 1, "gfx1100 gfx942");
	r = get_run(v, "500-linux");
	RK_ASSERT_EQ_INT(1, vfs_run_is_split(v, r));
	expect_names(v, r, 0, "gfx942 gfx94X-dcgpu multiarch");
	r = get_run(v, "600-linux");
	RK_ASSERT_EQ_INT(0, vfs_run_is_split(v, r));
	expect_names(v, r, 0, "");
	fx_vfs_close(v);
}

RK_TEST(split_run_selection)
{
	struct rk_vfs *v;
	struct run *r;
	struct node *root;

	make_split("200-linux");
	v = open_vfs();
	r = get_run(v, "200-linux");
	root = flatten(v, r, "gfx942", 0, NULL, NULL);
	expect_content(v, root, "lib/libblas-942.so", "942\n");
	expect_content(v, root, "bin/hipcc", "hipcc\n");
	RK_ASSERT(vfs_find(root, "lib/libblas-1100.so") == NULL);
	vfs_tree_free(root);
	root = flatten(v, r, "gfx110X-all", 0, NULL, NULL);
	expect_content(v, root, "lib/libblas-1100.so", "1100\n");
	RK_ASSERT(vfs_find(root, "lib/libblas-942.so") == NULL);
	vfs_tree_free(root);
	root = flatten(v, r, "multiarch", 0, NULL, NULL);
	expect_content(v, root, "lib/libblas-1100.so", "1100\n");
	expect_content(v, root, "lib/libblas-942.so", "942\n");
	expect_content(v, root, "bin/hipcc", "hipcc\n");
	RK_ASSERT_EQ_INT(2, vfs_dir_count(find(root, "lib")));
	vfs_tree_free(root);
	fx_vfs_close(v);
}

RK_TEST(legacy_target_tree_uses_split_outputs)
{
	struct rk_vfs *v;
	struct run *r;
	struct node *root;
	char *conflicts = NULL;
	unsigned n = 0;

	make_legacy("100-linux");
	v = open_vfs();
	r = get_run(v, "100-linux");
	/* gfx942 of a legacy run: the generic artifacts and the kpack split of the
	 * gfx94X-dcgpu artifacts (no fat binaries here: one generic output each, named
	 * <name>_<component>_generic, so they sort among the generic artifacts) */
	root = flatten(v, r, "gfx942", 0, &conflicts, &n);
	expect_content(v, root, "lib/libblas.so", "blas\n");
	expect_content(v, root, "inner/f.txt", "claimed by p/one\n");
	expect_content(v, root, "bin/test-blas", "test\n");
	RK_ASSERT(vfs_find(root, "lib/librocm110.so") == NULL);
	RK_ASSERT(vfs_find(root, "artifact_manifest.txt") == NULL);
	/* aa, amd, blas, blas_test, fftw3, zz (all generic now): zz is the last writer */
	expect_content(v, root, "share/order.txt", "zz\n");
	RK_ASSERT_EQ_STR("amd_lib_generic",
			 vfs_node_origin(find(root, "conf/inner.txt"))->art->stem);
	RK_ASSERT(vfs_node_origin(find(root, "conf/inner.txt"))->source ==
		  get_art(r, "amd_lib_gfx94X-dcgpu"));
	RK_ASSERT(strstr(conflicts, "share/order.txt\taa_lib_generic\tamd_lib_generic\t"
				    "different content\n") != NULL);
	RK_ASSERT(strstr(conflicts, "share/order.txt\tamd_lib_generic\tzz_lib_generic\t"
				    "different content\n") != NULL);
	RK_ASSERT_EQ_INT(4, n);
	free(conflicts);
	vfs_tree_free(root);
	fx_vfs_close(v);
}
