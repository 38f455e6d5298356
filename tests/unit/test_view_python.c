/* test_view_python.c: RUN/python/ (view_python.c) over a temporary store: groups, a
 * duplicate name, a damaged wheel, an sdist, the cache records, a run without python/. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rk/hash.h"
#include "rk/log.h"
#include "rk/vfs.h"
#include "rk_fixture.h"
#include "rk_test.h"

static const struct fx_member small[] = {
	FX_MANIFEST("s/stage\n"),
	{FX_FILE, "s/stage/hello.txt", "hello\n", -1, 0644},
};

static void quiet(enum rk_log_level l, const char *msg)
{
	(void)l;
	(void)msg;
}

static void make_store(void)
{
	fx_tar("store/100-linux/small_lib_generic.tar.zst", FX_ZSTD, small, 2);
	fx_write("store/100-linux/python/g1/pkg-1.0-py3-none-any.whl", fx_wheel_zip,
		 sizeof(fx_wheel_zip));
	fx_writes("store/100-linux/python/g1/Pkg.Name-2.0.tar.gz", "not really a tarball\n");
	fx_writes("store/100-linux/python/g2/pkg-1.0-py3-none-any.whl", "another file\n");
	fx_writes("store/100-linux/python/broken-1.0-py3-none-any.whl", "not a zip at all\n");
	fx_writes("store/100-linux/python/index.html", "<html></html>\n");
	fx_writes("store/100-linux/python/README.txt", "not a package\n");
	fx_tar("store/200-linux/small_lib_generic.tar.zst", FX_ZSTD, small, 2);
}

static struct rk_vfs *open_vfs(void)
{
	struct rk_vfs_opts o = {.store = "store", .cache_dir = "cache", .ingest_jobs = 1};
	struct rk_vfs *v = NULL;
	struct rk_err err = RK_ERR_INIT;
	int rc;

	rk_log_set_handler(quiet);
	rc = rk_vfs_open(&o, &v, &err);
	if (rc)
		rk_test_fail(__FILE__, __LINE__, "rk_vfs_open: %s", rk_err_str(&err, rc));
	return v;
}

static char *read_all(struct rk_vfs *v, const char *path, size_t *len)
{
	struct rk_attr a;
	struct rk_file *f = NULL;
	struct rk_err err = RK_ERR_INIT;
	char *buf;
	size_t got = 0;
	int rc = rk_vfs_resolve(v, path, &a, &err);

	if (rc)
		rk_test_fail(__FILE__, __LINE__, "resolve('%s'): %s", path, rk_err_str(&err, rc));
	if ((rc = rk_vfs_open_file(v, a.ino, &f, &err)))
		rk_test_fail(__FILE__, __LINE__, "open('%s'): %s", path, rk_err_str(&err, rc));
	buf = malloc(a.size + 1);
	RK_ASSERT(buf != NULL);
	while (got < a.size) {
		ssize_t n = rk_file_pread(f, buf + got, a.size - got, got, NULL);

		RK_ASSERT(n > 0);
		got += (size_t)n;
	}
	buf[got] = '\0';
	rk_file_close(f);
	if (len)
		*len = got;
	return buf;
}

static int count_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return d ? n : -1;
}

RK_TEST(python_index)
{
	struct rk_vfs *v;
	struct rk_attr a;
	char *t, want[512], sha[RK_SHA256_HEX], msha[RK_SHA256_HEX];
	size_t len;

	make_store();
	v = open_vfs();
	RK_ASSERT_EQ_INT(-ENOENT, rk_vfs_resolve(v, "200-linux/python", &a, NULL));
	RK_ASSERT_EQ_INT(0, rk_vfs_resolve(v, "100-linux/python", &a, NULL));
	RK_ASSERT(S_ISDIR(a.mode));

	t = read_all(v, "100-linux/python/simple/index.html", NULL);
	RK_ASSERT(!strncmp(t, "<!DOCTYPE html>\n", 16));
	RK_ASSERT(strstr(t, "<a href=\"broken/\">broken</a><br>\n<a href=\"pkg/\">pkg</a><br>\n"
			    "<a href=\"pkg-name/\">pkg-name</a><br>\n") != NULL);
	free(t);

	RK_ASSERT_EQ_INT(0, rk_sha256_buf(fx_wheel_zip, sizeof(fx_wheel_zip), sha));
	RK_ASSERT_EQ_INT(0, rk_sha256_buf(fx_wheel_meta, strlen(fx_wheel_meta), msha));
	t = read_all(v, "100-linux/python/simple/pkg/index.html", NULL);
	snprintf(want, sizeof(want),
		 "<a href=\"../../files/pkg-1.0-py3-none-any.whl#sha256=%s\" "
		 "data-requires-python=\"&gt;=3.9\" data-core-metadata=\"sha256=%s\" "
		 "data-dist-info-metadata=\"sha256=%s\">pkg-1.0-py3-none-any.whl</a>",
		 sha, msha, msha);
	RK_ASSERT(strstr(t, want) != NULL);
	RK_ASSERT(strstr(t, "<title>Links for pkg</title>") != NULL);
	free(t);

	t = read_all(v, "100-linux/python/files/pkg-1.0-py3-none-any.whl.metadata", &len);
	RK_ASSERT_EQ_STR(fx_wheel_meta, t);
	free(t);
	t = read_all(v, "100-linux/python/files/pkg-1.0-py3-none-any.whl", &len);
	RK_ASSERT(len == sizeof(fx_wheel_zip) && !memcmp(t, fx_wheel_zip, len));
	free(t);

	/* the damaged wheel: listed, hashed, no metadata */
	t = read_all(v, "100-linux/python/simple/broken/index.html", NULL);
	RK_ASSERT(strstr(t, "broken-1.0-py3-none-any.whl#sha256=") != NULL);
	RK_ASSERT(strstr(t, "data-core-metadata") == NULL);
	free(t);
	RK_ASSERT_EQ_INT(
		-ENOENT,
		rk_vfs_resolve(v, "100-linux/python/files/broken-1.0-py3-none-any.whl.metadata", &a,
			       NULL));

	/* sdist: project from the name, no metadata */
	t = read_all(v, "100-linux/python/simple/pkg-name/index.html", NULL);
	RK_ASSERT(strstr(t, "href=\"../../files/Pkg.Name-2.0.tar.gz#sha256=") != NULL);
	RK_ASSERT(strstr(t, "data-core-metadata") == NULL);
	free(t);

	t = read_all(v, "100-linux/python/PROVENANCE", NULL);
	RK_ASSERT(
		strstr(t, "pkg-1.0-py3-none-any.whl\tstored python/g1/pkg-1.0-py3-none-any.whl\n"));
	RK_ASSERT(strstr(t, "g2/pkg-1.0-py3-none-any.whl\tnot served: same name as stored "
			    "python/g1/pkg-1.0-py3-none-any.whl\n"));
	RK_ASSERT(strstr(t, "README") == NULL && strstr(t, "index.html") == NULL);
	free(t);

	RK_ASSERT_EQ_INT(
		0, rk_vfs_resolve(v, "100-linux/python/find-links/Pkg.Name-2.0.tar.gz", &a, NULL));
	RK_ASSERT(S_ISLNK(a.mode));
	RK_ASSERT_EQ_INT(-ENOENT, rk_vfs_resolve(v, "100-linux/python/files/index.html", &a, NULL));
	rk_vfs_close(v);

	/* three files hashed (the duplicate is not), and the one good wheel's METADATA, kept
	 * for the next mount */
	RK_ASSERT_EQ_INT(4, count_dir("cache/pyhash"));
	v = open_vfs();
	t = read_all(v, "100-linux/python/simple/pkg/index.html", NULL);
	RK_ASSERT(strstr(t, want) != NULL);
	free(t);
	rk_vfs_close(v);
}
