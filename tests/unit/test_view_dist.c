/* test_view_dist.c: RUN/dist/ (views/view_dist.c) through rk/vfs.h, without a mount: the
 * tree names, each tree's files read back equal to their browse/ members, modes, and
 * RUN/dist/.rockfs/<X>.conflicts. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk/log.h"
#include "rk/vfs.h"
#include "rk_fixture.h"
#include "rk_test.h"

static const struct fx_member aa[] = {
	FX_MANIFEST("a/stage\n"),
	{FX_FILE, "a/stage/share/order.txt", "aa\n", -1, 0644},
	{FX_FILE, "a/stage/conf", "a conf file\n", -1, 0644},
	{FX_FILE, "a/stage/bin/tool", "#!/bin/sh\necho tool\n", -1, 0750},
	{FX_FILE, "a/stage/lib/libz.so.1", "libz\n", -1, 0644},
	{FX_HARDLINK, "a/stage/lib/libz-copy.so.1", "a/stage/lib/libz.so.1", 0, 0},
	{FX_SYMLINK, "a/stage/lib/libz.so", "libz.so.1", 0, 0},
};

static const struct fx_member amd[] = {
	FX_MANIFEST("m/stage\n"),
	{FX_FILE, "m/stage/share/order.txt", "amd\n", -1, 0644},
	{FX_FILE, "m/stage/conf/inner.txt", "inner\n", -1, 0644},
};

static const struct fx_member rocm110[] = {
	FX_MANIFEST("r/stage\n"),
	{FX_FILE, "r/stage/lib/librocm110.so", "110\n", -1, 0644},
};

static const struct fx_member b942[] = {
	FX_MANIFEST("b/stage\n"),
	{FX_FILE, "b/stage/lib/libblas-942.so", "942\n", -1, 0644},
};

static const struct fx_member b1100[] = {
	FX_MANIFEST("b/stage\n"),
	{FX_FILE, "b/stage/lib/libblas-1100.so", "1100\n", -1, 0644},
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* 100-linux: legacy (families); 200-linux: kpack-split (single targets); 300-linux: no
 * artifacts. */
static void make_store(void)
{
	fx_tar("store/100-linux/aa_lib_generic.tar.zst", FX_ZSTD, aa, N(aa));
	fx_tar("store/100-linux/amd_lib_gfx94X-dcgpu.tar.zst", FX_ZSTD, amd, N(amd));
	fx_tar("store/100-linux/rocm_lib_gfx110X-all.tar.zst", FX_ZSTD, rocm110, N(rocm110));
	fx_tar("store/200-linux/aa_lib_generic.tar.zst", FX_ZSTD, aa, N(aa));
	fx_tar("store/200-linux/blas_lib_gfx942.tar.zst", FX_ZSTD, b942, N(b942));
	fx_tar("store/200-linux/blas_lib_gfx1100.tar.zst", FX_ZSTD, b1100, N(b1100));
	fx_writes("store/300-linux/logs/log.txt", "log\n");
	fx_tar("store/300-linux/x_lib_generic.tar.zst", FX_ZSTD, b942, N(b942));
}

static struct rk_vfs *open_vfs(void)
{
	struct rk_vfs_opts o = {.store = "store", .cache_dir = "cache", .ingest_jobs = 2};

	return fx_vfs_open(&o);
}

/* The whole file at path, malloc'd and NUL-terminated. */
static char *read_all(struct rk_vfs *v, const char *path)
{
	struct rk_attr a = fx_resolve(v, path);
	struct rk_file *f = NULL;
	struct rk_err err = RK_ERR_INIT;
	char *buf = malloc(a.size + 1);
	size_t got = 0;
	int rc = rk_vfs_open_file(v, a.ino, &f, &err);

	if (rc)
		rk_test_fail(__FILE__, __LINE__, "open_file('%s'): %s", path, rk_err_str(&err, rc));
	RK_ASSERT(buf != NULL);
	RK_ASSERT_EQ_INT(a.size, rk_file_size(f));
	while (got < a.size) {
		ssize_t n = rk_file_pread(f, buf + got, a.size - got, got, NULL);

		RK_ASSERT(n > 0);
		got += (size_t)n;
	}
	RK_ASSERT_EQ_INT(0, rk_file_pread(f, buf, 1, a.size, NULL));
	buf[got] = '\0';
	rk_file_close(f);
	return buf;
}

struct listing {
	char text[2048]; /* names, space-separated, in readdir order */
	size_t n;
};

static int fill(void *ctx, const char *name, const struct rk_attr *a, uint64_t next)
{
	struct listing *l = ctx;
	size_t len = strlen(l->text);

	(void)a;
	(void)next;
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return 0;
	snprintf(l->text + len, sizeof(l->text) - len, "%s%s", l->n ? " " : "", name);
	l->n++;
	return 0;
}

static void expect_listing(struct rk_vfs *v, const char *path, const char *want)
{
	struct rk_attr a = fx_resolve(v, path);
	struct listing l = {"", 0};

	RK_ASSERT_EQ_INT(0, rk_vfs_readdir(v, a.ino, 0, fill, &l, NULL));
	RK_ASSERT_EQ_STR(want, l.text);
}

/* dist/<X>/rel reads the same bytes as browse/<stem>/<member>. */
static void expect_same(struct rk_vfs *v, const char *dist, const char *browse)
{
	char *a = read_all(v, dist), *b = read_all(v, browse);

	RK_ASSERT_EQ_STR(b, a);
	free(a);
	free(b);
}

RK_TEST(listing_legacy)
{
	struct rk_vfs *v;

	make_store();
	v = open_vfs();
	expect_listing(v, "100-linux/dist",
		       "gfx1100 gfx1101 gfx1102 gfx1103 gfx110X-all gfx942 gfx94X-dcgpu .rockfs");
	RK_ASSERT_EQ_INT(S_IFDIR | 0755, fx_resolve(v, "100-linux/dist/gfx94X-dcgpu").mode);
	expect_listing(v, "100-linux/dist/gfx94X-dcgpu", "share conf bin lib");
	expect_listing(v, "100-linux/dist/gfx94X-dcgpu/lib", "libz.so.1 libz-copy.so.1 libz.so");
	expect_listing(v, "100-linux/dist/gfx110X-all/lib",
		       "libz.so.1 libz-copy.so.1 libz.so librocm110.so");
	fx_vfs_close(v);
}

RK_TEST(listing_split)
{
	struct rk_vfs *v;
	struct rk_attr a;

	make_store();
	v = open_vfs();
	expect_listing(v, "200-linux/dist",
		       "gfx1100 gfx110X-all gfx942 gfx94X-dcgpu multiarch .rockfs");
	expect_listing(v, "200-linux/dist/multiarch/lib",
		       "libz.so.1 libz-copy.so.1 libz.so libblas-1100.so libblas-942.so");
	expect_listing(v, "200-linux/dist/gfx942/lib",
		       "libz.so.1 libz-copy.so.1 libz.so libblas-942.so");
	RK_ASSERT_EQ_INT(-ENOENT, rk_vfs_resolve(v, "200-linux/dist/gfx90a", &a, NULL));
	fx_vfs_close(v);
}

RK_TEST(contents_equal_browse)
{
	struct rk_vfs *v;
	struct rk_attr a, b;

	make_store();
	v = open_vfs();
	expect_same(v, "100-linux/dist/gfx94X-dcgpu/bin/tool",
		    "100-linux/browse/aa_lib_generic/a/stage/bin/tool");
	expect_same(v, "100-linux/dist/gfx94X-dcgpu/share/order.txt",
		    "100-linux/browse/amd_lib_gfx94X-dcgpu/m/stage/share/order.txt");
	expect_same(v, "100-linux/dist/gfx94X-dcgpu/conf/inner.txt",
		    "100-linux/browse/amd_lib_gfx94X-dcgpu/m/stage/conf/inner.txt");
	expect_same(v, "100-linux/dist/gfx110X-all/lib/librocm110.so",
		    "100-linux/browse/rocm_lib_gfx110X-all/r/stage/lib/librocm110.so");
	expect_same(v, "200-linux/dist/multiarch/lib/libblas-1100.so",
		    "200-linux/browse/blas_lib_gfx1100/b/stage/lib/libblas-1100.so");
	/* the gfx110X-all tree keeps the generic file */
	expect_same(v, "100-linux/dist/gfx110X-all/share/order.txt",
		    "100-linux/browse/aa_lib_generic/a/stage/share/order.txt");
	/* modes, a hardlink, a symlink */
	a = fx_resolve(v, "100-linux/dist/gfx94X-dcgpu/bin/tool");
	RK_ASSERT_EQ_INT(S_IFREG | 0750, a.mode);
	RK_ASSERT_EQ_INT(20, a.size);
	a = fx_resolve(v, "100-linux/dist/gfx94X-dcgpu/lib/libz.so.1");
	b = fx_resolve(v, "100-linux/dist/gfx94X-dcgpu/lib/libz-copy.so.1");
	RK_ASSERT_EQ_INT(a.ino, b.ino);
	RK_ASSERT_EQ_INT(2, b.nlink);
	a = fx_resolve(v, "100-linux/dist/gfx94X-dcgpu/lib/libz.so");
	RK_ASSERT(S_ISLNK(a.mode));
	{
		char buf[64];

		RK_ASSERT_EQ_INT(9, rk_vfs_readlink(v, a.ino, buf, sizeof(buf), NULL));
		RK_ASSERT_EQ_STR("libz.so.1", buf);
	}
	fx_vfs_close(v);
}

RK_TEST(conflicts_file)
{
	struct rk_vfs *v;
	struct rk_attr a;
	char *t;

	make_store();
	v = open_vfs();
	expect_listing(v, "100-linux/dist/.rockfs",
		       "gfx1100.conflicts gfx1101.conflicts gfx1102.conflicts gfx1103.conflicts "
		       "gfx110X-all.conflicts gfx942.conflicts gfx94X-dcgpu.conflicts");
	t = read_all(v, "100-linux/dist/.rockfs/gfx94X-dcgpu.conflicts");
	RK_ASSERT_EQ_STR(
		"share/order.txt\taa_lib_generic\tamd_lib_gfx94X-dcgpu\tdifferent content\n"
		"conf\taa_lib_generic\tamd_lib_gfx94X-dcgpu\tdirectory replaces a file\n",
		t);
	free(t);
	a = fx_resolve(v, "100-linux/dist/.rockfs/gfx94X-dcgpu.conflicts");
	RK_ASSERT_EQ_INT(S_IFREG | 0444, a.mode);
	/* a tree with no conflicts has an empty list */
	t = read_all(v, "100-linux/dist/.rockfs/gfx110X-all.conflicts");
	RK_ASSERT_EQ_STR("", t);
	free(t);
	RK_ASSERT_EQ_INT(0, fx_resolve(v, "100-linux/dist/.rockfs/gfx1100.conflicts").size);
	RK_ASSERT_EQ_INT(-ENOENT,
			 rk_vfs_resolve(v, "100-linux/dist/.rockfs/multiarch.conflicts", &a, NULL));
	fx_vfs_close(v);
}

RK_TEST(conflicts_after_tree_read)
{
	struct rk_vfs *v;
	char *t;

	/* the tree flattened first (its list kept), then the notes directory */
	make_store();
	v = open_vfs();
	t = read_all(v, "100-linux/dist/gfx94X-dcgpu/share/order.txt");
	RK_ASSERT_EQ_STR("amd\n", t);
	free(t);
	t = read_all(v, "100-linux/dist/.rockfs/gfx94X-dcgpu.conflicts");
	RK_ASSERT(strstr(t, "directory replaces a file") != NULL);
	free(t);
	t = read_all(v, "100-linux/dist/gfx94X-dcgpu/conf/inner.txt");
	RK_ASSERT_EQ_STR("inner\n", t);
	free(t);
	fx_vfs_close(v);
}

RK_TEST(generic_only_run)
{
	struct rk_vfs *v;

	/* artifacts but no GPU target: dist/ exists and is empty (no .rockfs either) */
	make_store();
	v = open_vfs();
	expect_listing(v, "300-linux/dist", "");
	fx_vfs_close(v);
}
