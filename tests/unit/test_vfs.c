/* test_vfs.c: the inode tree over a temporary store of archives made with libarchive. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk/cache.h"
#include "rk/log.h"
#include "rk/manifest.h"
#include "rk/vfs.h"
#include "rk_fixture.h"
#include "rk_test.h"

#define BASE_MANIFEST "base/aux-overlay/stage/share/therock/therock_manifest.json"
#define LIBX "libx contents: not really an ELF file\n"

static const struct fx_member blas[] = {
	FX_MANIFEST("p/stage\n"),
	{FX_DIR, "p/stage/", NULL, 0, 0755},
	{FX_DIR, "p/stage/lib/", NULL, 0, 0755},
	{FX_FILE, "p/stage/lib/libx.so.1", LIBX, -1, 0755},
	{FX_SYMLINK, "p/stage/lib/libx.so", "libx.so.1", 0, 0},
	{FX_HARDLINK, "p/stage/lib/libx-copy.so.1", "p/stage/lib/libx.so.1", 0, 0},
	{FX_FILE, "p/stage/share/doc/README.md", "# doc\n", -1, 0644},
	{FX_FILE, "p/stage/empty", "", 0, 0644},
	{FX_FILE, "../../escape.txt", "escape\n", -1, 0644},
};

static const struct fx_member base[] = {
	FX_MANIFEST("base/aux-overlay/stage\n"),
	{FX_FILE, BASE_MANIFEST,
	 "{\"the_rock_commit\":\"abc\",\"flags\":{\"KPACK_SPLIT_ARTIFACTS\":true}}", -1, 0644},
};

static const struct fx_member small[] = {
	FX_MANIFEST("s/stage\n"),
	{FX_FILE, "s/stage/hello.txt", "hello\n", -1, 0644},
};

/* store/100-linux: three good artifacts and a corrupt one; store/200-linux: one
 * artifact and manifests/; store/ROCm-TheRock/300-windows: one artifact, no manifest. */
static void make_store(void)
{
	char junk[2048];

	fx_tar("store/100-linux/blas_lib_gfx942.tar.xz", FX_XZ, blas,
	       sizeof(blas) / sizeof(blas[0]));
	fx_tar("store/100-linux/base_lib_generic.tar.zst", FX_ZSTD, base, 2);
	fx_sidecar("store/100-linux/base_lib_generic.tar.zst");
	fx_tar("store/100-linux/small_run_generic.tar.zst", FX_ZSTD, small, 2);
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (char)(i * 37 + 11);
	memcpy(junk, "\x28\xb5\x2f\xfd", 4); /* a zstd magic, then garbage */
	fx_write("store/100-linux/bad_lib_generic.tar.zst", junk, sizeof(junk));
	fx_writes("store/100-linux/index.html", "<html></html>\n");
	fx_writes("store/100-linux/logs/build/log.txt", "log\n");
	fx_tar("store/200-linux/small_lib_generic.tar.zst", FX_ZSTD, small, 2);
	fx_writes("store/200-linux/manifests/therock_manifest.json",
		  "{\"the_rock_commit\":\"from-manifests\",\"rocm_version\":\"7.13.0\"}");
	fx_tar("store/ROCm-TheRock/300-windows/small_lib_generic.tar.zst", FX_ZSTD, small, 2);
	fx_writes("store/notarun/x_y_z.tar.zst", "ignored");
	fx_writes("store/stray-file", "a file at the top");
}

static struct rk_vfs *open_vfs(const char *store)
{
	struct rk_vfs_opts o = {.store = store, .cache_dir = "cache", .ingest_jobs = 2};

	return fx_vfs_open(&o);
}

/* The whole file at path, malloc'd; *len its size. */
static char *read_all(struct rk_vfs *v, const char *path, size_t *len)
{
	struct rk_attr a = fx_resolve(v, path);
	struct rk_file *f = NULL;
	struct rk_err err = RK_ERR_INIT;
	char *buf = malloc(a.size + 1);
	size_t got = 0;
	int rc = rk_vfs_open_file(v, a.ino, &f, &err);

	if (rc)
		rk_test_fail(__FILE__, __LINE__, "open_file('%s'): %s", path, rk_err_str(&err, rc));
	RK_ASSERT_EQ_INT(a.size, rk_file_size(f));
	while (got < a.size) {
		ssize_t n = rk_file_pread(f, buf + got, a.size - got, got, NULL);

		RK_ASSERT(n > 0);
		got += (size_t)n;
	}
	RK_ASSERT_EQ_INT(0, rk_file_pread(f, buf, 1, a.size, NULL)); /* EOF */
	buf[got] = '\0';
	rk_file_close(f);
	if (len)
		*len = got;
	return buf;
}

struct listing {
	char names[64][256];
	struct rk_attr attrs[64];
	uint64_t next[64];
	size_t n, stop_after;
};

static int fill(void *ctx, const char *name, const struct rk_attr *a, uint64_t next)
{
	struct listing *l = ctx;

	if (l->n < 64) {
		snprintf(l->names[l->n], sizeof(l->names[0]), "%s", name);
		l->attrs[l->n] = *a;
		l->next[l->n] = next;
	}
	l->n++;
	return l->stop_after && l->n >= l->stop_after;
}

static int has(const struct listing *l, const char *name)
{
	for (size_t i = 0; i < l->n && i < 64; i++)
		if (!strcmp(l->names[i], name))
			return 1;
	return 0;
}

static void list(struct rk_vfs *v, const char *path, struct listing *l)
{
	struct rk_attr a = fx_resolve(v, path);
	int rc;

	memset(l, 0, sizeof(*l));
	rc = rk_vfs_readdir(v, a.ino, 0, fill, l, NULL);
	if (rc)
		rk_test_fail(__FILE__, __LINE__, "readdir('%s'): %d", path, rc);
}

RK_TEST(root_of_a_multi_run_store)
{
	struct rk_vfs *v;
	struct listing l;
	struct rk_attr a;

	make_store();
	v = open_vfs("store");
	RK_ASSERT_EQ_INT(0, rk_vfs_getattr(v, RK_ROOT_INO, &a, NULL));
	RK_ASSERT_EQ_INT(RK_ROOT_INO, a.ino);
	RK_ASSERT(S_ISDIR(a.mode));
	list(v, "", &l);
	RK_ASSERT(has(&l, "README"));
	RK_ASSERT(has(&l, "100-linux"));
	RK_ASSERT(has(&l, "200-linux"));
	RK_ASSERT(has(&l, "ROCm-TheRock"));
	/* what is neither a run nor a namespace is passed through as stored */
	RK_ASSERT(has(&l, "notarun"));
	RK_ASSERT(has(&l, "stray-file"));
	RK_ASSERT_EQ_INT(7, l.n);
	RK_ASSERT(has(&l, "release")); /* the store view release/ */
	a = fx_resolve(v, "ROCm-TheRock/300-windows");
	RK_ASSERT(S_ISDIR(a.mode));
	a = fx_resolve(v, "notarun/x_y_z.tar.zst");
	RK_ASSERT(S_ISREG(a.mode));
	RK_ASSERT_EQ_INT(0444, a.mode & 07777);
	{
		char *text = read_all(v, "stray-file", NULL);

		RK_ASSERT_EQ_STR("a file at the top", text);
		free(text);
		text = read_all(v, "notarun/x_y_z.tar.zst", NULL);
		RK_ASSERT_EQ_STR("ignored", text);
		free(text);
	}
	fx_vfs_close(v);
	rk_vfs_close(NULL);
}

RK_TEST(readme_present)
{
	struct rk_vfs *v;
	struct rk_attr a;
	char *text;
	size_t len;

	make_store();
	v = open_vfs("store");
	a = fx_resolve(v, "README");
	RK_ASSERT(S_ISREG(a.mode));
	RK_ASSERT_EQ_INT(0444, a.mode & 07777);
	text = read_all(v, "README", &len);
	RK_ASSERT_EQ_INT(a.size, len);
	RK_ASSERT(strstr(text, "rockfs") != NULL);
	RK_ASSERT(strstr(text, "browse/") != NULL);
	free(text);
	fx_vfs_close(v);
}

RK_TEST(run_directory_layout)
{
	struct rk_vfs *v;
	struct listing l;

	make_store();
	v = open_vfs("store");
	list(v, "100-linux", &l);
	RK_ASSERT_EQ_INT(10, l.n);
	RK_ASSERT(has(&l, "install")); /* specs made on lookup */
	RK_ASSERT(has(&l, "README")); /* what is stored, what is made */
	RK_ASSERT(has(&l, "logs")); /* a folder CI stored: as stored */
	RK_ASSERT(has(&l, "python")); /* base_lib_generic: a manifest to version packages */
	RK_ASSERT(has(&l, "artifacts"));
	RK_ASSERT(has(&l, "browse"));
	RK_ASSERT(has(&l, "dist"));
	RK_ASSERT(has(&l, "kpack"));
	RK_ASSERT(has(&l, "tarballs"));
	RK_ASSERT(has(&l, "packages"));
	list(v, "100-linux/browse", &l);
	RK_ASSERT_EQ_INT(4, l.n); /* one per artifact, the corrupt one included */
	RK_ASSERT(has(&l, "base_lib_generic"));
	RK_ASSERT(has(&l, "blas_lib_gfx942"));
	RK_ASSERT(has(&l, "small_run_generic"));
	RK_ASSERT(has(&l, "bad_lib_generic"));
	for (size_t i = 0; i < l.n; i++)
		RK_ASSERT(S_ISDIR(l.attrs[i].mode));
	fx_vfs_close(v);
}

RK_TEST(artifacts_pass_through)
{
	struct rk_vfs *v;
	struct listing l;
	size_t len, want_len;
	char *got, *want;

	make_store();
	v = open_vfs("store");
	list(v, "100-linux/artifacts", &l);
	RK_ASSERT(has(&l, "blas_lib_gfx942.tar.xz"));
	RK_ASSERT(has(&l, "base_lib_generic.tar.zst.sha256sum"));
	RK_ASSERT(has(&l, "bad_lib_generic.tar.zst"));
	RK_ASSERT(has(&l, "index.html"));
	RK_ASSERT(!has(&l, "logs"));
	RK_ASSERT_EQ_INT(6, l.n);
	got = read_all(v, "100-linux/artifacts/blas_lib_gfx942.tar.xz", &len);
	want = fx_read("store/100-linux/blas_lib_gfx942.tar.xz", &want_len);
	RK_ASSERT_EQ_INT(want_len, len);
	RK_ASSERT_EQ_MEM(want, got, len);
	free(got);
	free(want);
	fx_vfs_close(v);
}

/* docs/views.md, "Stored and synthesized": a run's stored folders are served as stored,
 * a stored tarball wins over the made one of its name, a failed run (logs only) says
 * so, a Windows run has no packages/, local-{platform} is a run. */
RK_TEST(stored_folders_of_a_run)
{
	struct rk_vfs *v;
	struct listing l;
	struct rk_attr a;
	char *text;

	make_store();
	fx_writes("store/100-linux/tarballs/therock-dist-linux-gfx94X-dcgpu-unversioned.tar.gz",
		  "stored by CI");
	fx_writes("store/100-linux/packages/deb/dists/stable/Release", "Origin: CI\n");
	fx_writes("store/400-linux/logs/build/log.txt", "failed\n");
	fx_tar("store/local-linux/small_lib_generic.tar.zst", FX_ZSTD, small, 2);
	v = open_vfs("store");
	text = read_all(v, "100-linux/logs/build/log.txt", NULL);
	RK_ASSERT_EQ_STR("log\n", text);
	free(text);
	a = fx_resolve(v, "100-linux/logs/build/log.txt");
	RK_ASSERT_EQ_INT(0444, a.mode & 07777);
	text = read_all(v, "100-linux/tarballs/therock-dist-linux-gfx94X-dcgpu-unversioned.tar.gz",
			NULL);
	RK_ASSERT_EQ_STR("stored by CI", text);
	free(text);
	text = read_all(v, "100-linux/tarballs/PROVENANCE", NULL);
	RK_ASSERT(strstr(text, "therock-dist-linux-gfx94X-dcgpu-unversioned.tar.gz\tstored ") !=
		  NULL);
	RK_ASSERT(strstr(text, "therock-dist-linux-gfx94X-dcgpu-unversioned.tar\tmade by rockfs") !=
		  NULL);
	free(text);
	text = read_all(v, "100-linux/packages/deb/dists/stable/Release", NULL);
	RK_ASSERT_EQ_STR("Origin: CI\n", text);
	free(text);
	list(v, "100-linux/packages", &l);
	RK_ASSERT(has(&l, "rpm")); /* not stored: made */
	text = read_all(v, "100-linux/README", NULL);
	RK_ASSERT(strstr(text, "logs/ ") != NULL);
	free(text);
	list(v, "400-linux", &l);
	RK_ASSERT_EQ_INT(4, l.n); /* README artifacts browse logs */
	RK_ASSERT(has(&l, "logs"));
	text = read_all(v, "400-linux/README", NULL);
	RK_ASSERT(strstr(text, "HAS NO ARTIFACTS") != NULL);
	free(text);
	list(v, "ROCm-TheRock/300-windows", &l);
	RK_ASSERT(has(&l, "tarballs"));
	RK_ASSERT(!has(&l, "packages"));
	list(v, "local-linux/browse", &l);
	RK_ASSERT(has(&l, "small_lib_generic"));
	fx_vfs_close(v);
}

RK_TEST(failed_run_at_root)
{
	struct rk_vfs *v;
	char *text;

	fx_writes("store/400-linux/logs/build/log.txt", "failed\n");
	v = open_vfs("store/400-linux");
	text = read_all(v, "README", NULL);
	RK_ASSERT(!strncmp(text, "RUN 400-linux HAS NO ARTIFACTS", 30));
	RK_ASSERT(strstr(text, "THIS STORE WAS EMPTY") == NULL);
	free(text);
	text = read_all(v, "logs/build/log.txt", NULL);
	RK_ASSERT_EQ_STR("failed\n", text);
	free(text);
	fx_vfs_close(v);
}

RK_TEST(browse_lookup_and_read)
{
	struct rk_vfs *v;
	struct rk_attr a, d;
	struct rk_file *f = NULL;
	char buf[64], *text;
	size_t len;

	make_store();
	v = open_vfs("store");
	a = fx_resolve(v, "100-linux/browse/blas_lib_gfx942/p/stage/lib/libx.so.1");
	RK_ASSERT(S_ISREG(a.mode));
	RK_ASSERT_EQ_INT(0755, a.mode & 07777);
	RK_ASSERT_EQ_INT(strlen(LIBX), a.size);
	RK_ASSERT_EQ_INT(FX_MTIME, a.mtime);
	text = read_all(v, "100-linux/browse/blas_lib_gfx942/p/stage/lib/libx.so.1", &len);
	RK_ASSERT_EQ_STR(LIBX, text);
	free(text);
	/* positional reads */
	RK_ASSERT_EQ_INT(0, rk_vfs_open_file(v, a.ino, &f, NULL));
	RK_ASSERT_EQ_INT(8, rk_file_pread(f, buf, 8, 5, NULL));
	RK_ASSERT_EQ_MEM("contents", buf, 8);
	RK_ASSERT_EQ_INT(3, rk_file_pread(f, buf, sizeof(buf), a.size - 3, NULL));
	RK_ASSERT_EQ_INT(0, rk_file_pread(f, buf, sizeof(buf), a.size + 100, NULL));
	rk_file_close(f);
	rk_file_close(NULL);
	/* the prefix directory and the manifest */
	d = fx_resolve(v, "100-linux/browse/blas_lib_gfx942/p/stage");
	RK_ASSERT(S_ISDIR(d.mode));
	text = read_all(v, "100-linux/browse/blas_lib_gfx942/artifact_manifest.txt", NULL);
	RK_ASSERT_EQ_STR("p/stage\n", text);
	free(text);
	/* an empty file */
	a = fx_resolve(v, "100-linux/browse/blas_lib_gfx942/p/stage/empty");
	RK_ASSERT_EQ_INT(0, a.size);
	RK_ASSERT_EQ_INT(0, rk_vfs_open_file(v, a.ino, &f, NULL));
	RK_ASSERT_EQ_INT(0, rk_file_pread(f, buf, sizeof(buf), 0, NULL));
	rk_file_close(f);
	/* the hostile member is not there */
	RK_ASSERT_EQ_INT(-ENOENT, rk_vfs_resolve(v, "100-linux/browse/blas_lib_gfx942/escape.txt",
						 &a, NULL));
	RK_ASSERT_EQ_INT(-ENOENT, rk_vfs_resolve(v, "100-linux/escape.txt", &a, NULL));
	fx_vfs_close(v);
}

RK_TEST(browse_readdir)
{
	struct rk_vfs *v;
	struct listing l, part;
	struct rk_attr dir;

	make_store();
	v = open_vfs("store");
	list(v, "100-linux/browse/blas_lib_gfx942", &l);
	RK_ASSERT(has(&l, "artifact_manifest.txt"));
	RK_ASSERT(has(&l, "p"));
	RK_ASSERT_EQ_INT(2, l.n);
	list(v, "100-linux/browse/blas_lib_gfx942/p/stage/lib", &l);
	RK_ASSERT_EQ_INT(3, l.n);
	RK_ASSERT(has(&l, "libx.so.1"));
	RK_ASSERT(has(&l, "libx.so"));
	RK_ASSERT(has(&l, "libx-copy.so.1"));
	/* resuming from each position gives the rest of the same listing */
	dir = fx_resolve(v, "100-linux/browse/blas_lib_gfx942/p/stage/lib");
	for (size_t i = 0; i < l.n; i++) {
		memset(&part, 0, sizeof(part));
		RK_ASSERT_EQ_INT(0, rk_vfs_readdir(v, dir.ino, i == 0 ? 0 : l.next[i - 1], fill,
						   &part, NULL));
		RK_ASSERT_EQ_INT(l.n - i, part.n);
		RK_ASSERT_EQ_STR(l.names[i], part.names[0]);
	}
	/* past the end: nothing */
	memset(&part, 0, sizeof(part));
	RK_ASSERT_EQ_INT(0, rk_vfs_readdir(v, dir.ino, 1000, fill, &part, NULL));
	RK_ASSERT_EQ_INT(0, part.n);
	/* the filler can stop early */
	memset(&part, 0, sizeof(part));
	part.stop_after = 1;
	RK_ASSERT_EQ_INT(0, rk_vfs_readdir(v, dir.ino, 0, fill, &part, NULL));
	RK_ASSERT_EQ_INT(1, part.n);
	fx_vfs_close(v);
}

RK_TEST(symlinks_and_hardlinks)
{
	struct rk_vfs *v;
	struct rk_attr s, f, h;
	char buf[64];

	make_store();
	v = open_vfs("store");
	s = fx_resolve(v, "100-linux/browse/blas_lib_gfx942/p/stage/lib/libx.so");
	RK_ASSERT(S_ISLNK(s.mode));
	RK_ASSERT_EQ_INT(9, s.size);
	RK_ASSERT_EQ_INT(9, rk_vfs_readlink(v, s.ino, buf, sizeof(buf), NULL));
	RK_ASSERT_EQ_STR("libx.so.1", buf);
	RK_ASSERT_EQ_INT(-ENAMETOOLONG, rk_vfs_readlink(v, s.ino, buf, 9, NULL));
	RK_ASSERT_EQ_INT(9, rk_vfs_readlink(v, s.ino, buf, 10, NULL));
	f = fx_resolve(v, "100-linux/browse/blas_lib_gfx942/p/stage/lib/libx.so.1");
	h = fx_resolve(v, "100-linux/browse/blas_lib_gfx942/p/stage/lib/libx-copy.so.1");
	RK_ASSERT_EQ_INT(f.ino, h.ino);
	RK_ASSERT_EQ_INT(2, h.nlink);
	RK_ASSERT_EQ_INT(-EINVAL, rk_vfs_readlink(v, f.ino, buf, sizeof(buf), NULL));
	fx_vfs_close(v);
}

RK_TEST(dot_and_dotdot)
{
	struct rk_vfs *v;
	struct rk_attr run, a;

	make_store();
	v = open_vfs("store");
	run = fx_resolve(v, "100-linux");
	a = fx_resolve(v, "100-linux/browse/..");
	RK_ASSERT_EQ_INT(run.ino, a.ino);
	a = fx_resolve(v, "100-linux/./browse/./..");
	RK_ASSERT_EQ_INT(run.ino, a.ino);
	a = fx_resolve(v, "..");
	RK_ASSERT_EQ_INT(RK_ROOT_INO, a.ino);
	a = fx_resolve(v, "//100-linux//");
	RK_ASSERT_EQ_INT(run.ino, a.ino);
	fx_vfs_close(v);
}

RK_TEST(errors)
{
	struct rk_vfs *v;
	struct rk_attr a, dir, file, link;
	struct rk_file *f = NULL;
	struct listing l = {0};
	char buf[16], longname[300];

	make_store();
	v = open_vfs("store");
	RK_ASSERT_EQ_INT(-ENOENT, rk_vfs_getattr(v, 0x123456789ull, &a, NULL));
	RK_ASSERT_EQ_INT(-ENOENT, rk_vfs_lookup(v, 0x123456789ull, "x", &a, NULL));
	RK_ASSERT_EQ_INT(-ENOENT, rk_vfs_open_file(v, 0x123456789ull, &f, NULL));
	RK_ASSERT_EQ_INT(-ENOENT, rk_vfs_readlink(v, 0x123456789ull, buf, sizeof(buf), NULL));
	RK_ASSERT_EQ_INT(-ENOENT, rk_vfs_resolve(v, "999-linux", &a, NULL));
	dir = fx_resolve(v, "100-linux/browse/blas_lib_gfx942/p");
	file = fx_resolve(v, "100-linux/browse/blas_lib_gfx942/artifact_manifest.txt");
	link = fx_resolve(v, "100-linux/browse/blas_lib_gfx942/p/stage/lib/libx.so");
	RK_ASSERT_EQ_INT(-EISDIR, rk_vfs_open_file(v, dir.ino, &f, NULL));
	RK_ASSERT_EQ_INT(-EINVAL, rk_vfs_open_file(v, link.ino, &f, NULL));
	RK_ASSERT(f == NULL);
	RK_ASSERT_EQ_INT(-ENOTDIR, rk_vfs_lookup(v, file.ino, "x", &a, NULL));
	RK_ASSERT_EQ_INT(-ENOTDIR, rk_vfs_readdir(v, file.ino, 0, fill, &l, NULL));
	RK_ASSERT_EQ_INT(-ENOENT, rk_vfs_lookup(v, dir.ino, "nope", &a, NULL));
	RK_ASSERT_EQ_INT(-EINVAL, rk_vfs_readlink(v, dir.ino, buf, sizeof(buf), NULL));
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	RK_ASSERT_EQ_INT(-ENAMETOOLONG, rk_vfs_resolve(v, longname, &a, NULL));
	fx_vfs_close(v);
}

RK_TEST(open_errors)
{
	struct rk_vfs_opts o = {.store = "missing", .cache_dir = "cache"};
	struct rk_vfs *v = NULL;
	struct rk_err err = RK_ERR_INIT;

	fx_quiet_logs();
	RK_ASSERT_EQ_INT(-ENOENT, rk_vfs_open(&o, &v, &err));
	RK_ASSERT(v == NULL);
	RK_ASSERT(err.msg[0]);
	fx_mkdirs("store");
	fx_writes("cachefile", "x");
	o.store = "store";
	o.cache_dir = "cachefile";
	RK_ASSERT(rk_vfs_open(&o, &v, NULL) < 0);
	RK_ASSERT(v == NULL);
}

RK_TEST(corrupt_archive_is_eio_good_one_works)
{
	struct rk_vfs *v;
	struct rk_attr a;
	struct rk_vfs_stats st;
	struct listing l = {0};
	char *text;

	make_store();
	v = open_vfs("store");
	a = fx_resolve(v, "100-linux/browse/bad_lib_generic");
	RK_ASSERT(S_ISDIR(a.mode));
	RK_ASSERT_EQ_INT(-EIO, rk_vfs_lookup(v, a.ino, "anything", &a, NULL));
	a = fx_resolve(v, "100-linux/browse/bad_lib_generic");
	RK_ASSERT_EQ_INT(-EIO, rk_vfs_readdir(v, a.ino, 0, fill, &l, NULL));
	/* again: still EIO, not a hang or a different error */
	RK_ASSERT_EQ_INT(-EIO, rk_vfs_lookup(v, a.ino, "artifact_manifest.txt", &a, NULL));
	text = read_all(v, "100-linux/browse/small_run_generic/s/stage/hello.txt", NULL);
	RK_ASSERT_EQ_STR("hello\n", text);
	free(text);
	/* and the corrupt archive is still passed through under artifacts/ */
	a = fx_resolve(v, "100-linux/artifacts/bad_lib_generic.tar.zst");
	RK_ASSERT_EQ_INT(2048, a.size);
	rk_vfs_stats(v, &st);
	RK_ASSERT(st.ingest_failures >= 1);
	RK_ASSERT(st.nodes > 0);
	fx_vfs_close(v);
}

RK_TEST(wrong_sidecar_is_eio)
{
	struct rk_vfs *v;
	struct rk_attr a, b;
	struct listing l = {0};

	fx_tar("run/small_lib_generic.tar.zst", FX_ZSTD, small, 2);
	fx_writes("run/small_lib_generic.tar.zst.sha256sum",
		  "0000000000000000000000000000000000000000000000000000000000000000\n");
	fx_tar("run/other_lib_generic.tar.zst", FX_ZSTD, small, 2);
	fx_writes("run/other_lib_generic.tar.zst.sha256sum", "not a hash\n");
	v = open_vfs("run");
	/* members stream out while the archive is read; the hash is known at its end, so
	 * wait for that with readdir (complete listings only), then everything is EIO */
	a = fx_resolve(v, "browse/small_lib_generic");
	RK_ASSERT_EQ_INT(-EIO, rk_vfs_readdir(v, a.ino, 0, fill, &l, NULL));
	RK_ASSERT_EQ_INT(-EIO, rk_vfs_lookup(v, a.ino, "s", &b, NULL));
	a = fx_resolve(v, "browse/other_lib_generic");
	RK_ASSERT_EQ_INT(-EIO, rk_vfs_readdir(v, a.ino, 0, fill, &l, NULL));
	RK_ASSERT_EQ_INT(-EIO, rk_vfs_lookup(v, a.ino, "s", &b, NULL));
	RK_ASSERT_EQ_INT(-EIO, rk_vfs_prefetch(v, "", NULL, NULL, NULL));
	fx_vfs_close(v);
}

RK_TEST(sidecar_formats_accepted)
{
	struct rk_vfs *v;
	char hex[RK_SHA256_HEX], line[200], *data, *text;
	size_t len;

	fx_tar("run/a_lib_generic.tar.zst", FX_ZSTD, small, 2);
	fx_tar("run/b_lib_generic.tar.zst", FX_ZSTD, small, 2);
	data = fx_read("run/a_lib_generic.tar.zst", &len);
	RK_ASSERT_EQ_INT(0, rk_sha256_buf(data, len, hex));
	free(data);
	/* "hash  filename" (sha256sum's format) */
	snprintf(line, sizeof(line), "%s  a_lib_generic.tar.zst\n", hex);
	fx_writes("run/a_lib_generic.tar.zst.sha256sum", line);
	/* upper case, no newline */
	for (int i = 0; i < 64; i++)
		if (hex[i] >= 'a' && hex[i] <= 'f')
			hex[i] = (char)(hex[i] - 'a' + 'A');
	fx_writes("run/b_lib_generic.tar.zst.sha256sum", hex);
	v = open_vfs("run");
	text = read_all(v, "browse/a_lib_generic/s/stage/hello.txt", NULL);
	RK_ASSERT_EQ_STR("hello\n", text);
	free(text);
	text = read_all(v, "browse/b_lib_generic/s/stage/hello.txt", NULL);
	RK_ASSERT_EQ_STR("hello\n", text);
	free(text);
	fx_vfs_close(v);
}

RK_TEST(single_run_store_at_root)
{
	struct rk_vfs *v;
	struct listing l;
	const struct rk_run *run = NULL;
	char **names = NULL, *text;
	size_t n = 0;

	make_store();
	v = open_vfs("store/200-linux");
	list(v, "", &l);
	RK_ASSERT_EQ_INT(10, l.n);
	RK_ASSERT(has(&l, "install"));
	RK_ASSERT(has(&l, "manifests")); /* stored */
	RK_ASSERT(has(&l, "python"));
	RK_ASSERT(has(&l, "README"));
	RK_ASSERT(has(&l, "artifacts"));
	RK_ASSERT(has(&l, "browse"));
	RK_ASSERT(has(&l, "dist"));
	RK_ASSERT(has(&l, "kpack"));
	RK_ASSERT(has(&l, "tarballs"));
	text = read_all(v, "browse/small_lib_generic/s/stage/hello.txt", NULL);
	RK_ASSERT_EQ_STR("hello\n", text);
	free(text);
	RK_ASSERT_EQ_INT(0, rk_vfs_run(v, "", &run, NULL));
	RK_ASSERT_EQ_STR("200-linux", run->name);
	RK_ASSERT_EQ_INT(1, run->narts);
	RK_ASSERT_EQ_INT(0, rk_vfs_run(v, "whatever", &run, NULL));
	RK_ASSERT_EQ_INT(0, rk_vfs_list_runs(v, &names, &n, NULL));
	RK_ASSERT_EQ_INT(1, n);
	RK_ASSERT_EQ_STR("200-linux", names[0]);
	free(names[0]);
	free(names);
	fx_vfs_close(v);
}

RK_TEST(list_runs)
{
	struct rk_vfs *v;
	char **names = NULL;
	size_t n = 0;

	make_store();
	v = open_vfs("store");
	RK_ASSERT_EQ_INT(0, rk_vfs_list_runs(v, &names, &n, NULL));
	RK_ASSERT_EQ_INT(3, n);
	RK_ASSERT_EQ_STR("100-linux", names[0]);
	RK_ASSERT_EQ_STR("200-linux", names[1]);
	RK_ASSERT_EQ_STR("ROCm-TheRock/300-windows", names[2]);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	fx_vfs_close(v);
}

RK_TEST(list_runs_empty_store)
{
	struct rk_vfs *v;
	char **names = NULL;
	size_t n = 99;

	fx_mkdirs("store");
	v = open_vfs("store");
	RK_ASSERT_EQ_INT(0, rk_vfs_list_runs(v, &names, &n, NULL));
	RK_ASSERT_EQ_INT(0, n);
	free(names);
	fx_vfs_close(v);
}

RK_TEST(vfs_run)
{
	struct rk_vfs *v;
	const struct rk_run *run = NULL;
	struct rk_err err = RK_ERR_INIT;

	make_store();
	v = open_vfs("store");
	RK_ASSERT_EQ_INT(-EINVAL, rk_vfs_run(v, "", &run, &err));
	RK_ASSERT(err.msg[0]);
	RK_ASSERT_EQ_INT(-EINVAL, rk_vfs_run(v, NULL, &run, NULL));
	RK_ASSERT_EQ_INT(0, rk_vfs_run(v, "100-linux", &run, NULL));
	RK_ASSERT_EQ_STR("100-linux", run->name);
	RK_ASSERT_EQ_INT(4, run->narts);
	RK_ASSERT(rk_run_find(run, "blas_lib_gfx942") != NULL);
	RK_ASSERT(rk_run_find(run, "base_lib_generic")->sidecar != NULL);
	RK_ASSERT_EQ_INT(0, rk_vfs_run(v, "ROCm-TheRock/300-windows", &run, NULL));
	RK_ASSERT_EQ_INT(1, run->narts);
	RK_ASSERT_EQ_INT(-ENOENT, rk_vfs_run(v, "999-linux", &run, NULL));
	RK_ASSERT_EQ_INT(-ENOENT, rk_vfs_run(v, "ROCm-TheRock", &run, NULL));
	fx_vfs_close(v);
}

RK_TEST(run_manifest_sources)
{
	struct rk_vfs *v;
	struct rk_manifest m;
	struct rk_err err = RK_ERR_INIT;

	make_store();
	v = open_vfs("store");
	/* from manifests/therock_manifest.json */
	RK_ASSERT_EQ_INT(0, rk_vfs_run_manifest(v, "200-linux", &m, NULL));
	RK_ASSERT_EQ_STR("from-manifests", m.the_rock_commit);
	RK_ASSERT_EQ_STR("7.13.0", m.rocm_version);
	RK_ASSERT_EQ_INT(0, m.kpack_split);
	rk_manifest_release(&m);
	/* from inside base_lib_generic */
	RK_ASSERT_EQ_INT(0, rk_vfs_run_manifest(v, "100-linux", &m, NULL));
	RK_ASSERT_EQ_STR("abc", m.the_rock_commit);
	RK_ASSERT_EQ_INT(1, m.kpack_split);
	rk_manifest_release(&m);
	/* neither */
	RK_ASSERT_EQ_INT(-ENOENT, rk_vfs_run_manifest(v, "ROCm-TheRock/300-windows", &m, &err));
	RK_ASSERT(err.msg[0]);
	fx_vfs_close(v);
}

RK_TEST(run_manifest_base_without_file)
{
	struct rk_vfs *v;
	struct rk_manifest m;

	fx_tar("run/base_lib_generic.tar.zst", FX_ZSTD, small, 2);
	v = open_vfs("run");
	RK_ASSERT_EQ_INT(-ENOENT, rk_vfs_run_manifest(v, "", &m, NULL));
	fx_vfs_close(v);
}

RK_TEST(run_manifest_invalid_json)
{
	struct rk_vfs *v;
	struct rk_manifest m;

	fx_tar("run/small_lib_generic.tar.zst", FX_ZSTD, small, 2);
	fx_writes("run/manifests/therock_manifest.json", "{not json");
	v = open_vfs("run");
	RK_ASSERT_EQ_INT(-EPROTO, rk_vfs_run_manifest(v, "", &m, NULL));
	fx_vfs_close(v);
}

struct progress {
	unsigned calls, last_finished, last_count;
	uint64_t last_done, last_total;
};

static void on_progress(void *ctx, uint64_t done, uint64_t total, unsigned finished, unsigned count)
{
	struct progress *p = ctx;

	RK_ASSERT(done <= total);
	RK_ASSERT(finished <= count);
	p->calls++;
	p->last_done = done;
	p->last_total = total;
	p->last_finished = finished;
	p->last_count = count;
}

RK_TEST(prefetch)
{
	struct rk_vfs *v;
	struct progress p = {0};
	struct rk_vfs_stats st;
	struct rk_cache_stats cs;
	struct rk_err err = RK_ERR_INIT;

	make_store();
	v = open_vfs("store");
	RK_ASSERT_EQ_INT(0, rk_vfs_prefetch(v, "200-linux", on_progress, &p, NULL));
	RK_ASSERT(p.calls >= 1);
	RK_ASSERT_EQ_INT(p.last_total, p.last_done);
	RK_ASSERT_EQ_INT(1, p.last_finished);
	RK_ASSERT_EQ_INT(1, p.last_count);
	rk_vfs_stats(v, &st);
	RK_ASSERT_EQ_INT(1, st.ingests);
	/* a run with a corrupt artifact: every artifact is attempted, the failure reported */
	memset(&p, 0, sizeof(p));
	RK_ASSERT_EQ_INT(-EIO, rk_vfs_prefetch(v, "100-linux", on_progress, &p, &err));
	RK_ASSERT(strstr(err.msg, "bad_lib_generic") != NULL);
	RK_ASSERT_EQ_INT(4, p.last_finished);
	rk_vfs_stats(v, &st);
	RK_ASSERT_EQ_INT(5, st.ingests);
	RK_ASSERT_EQ_INT(1, st.ingest_failures);
	/* prefetched again: nothing new */
	RK_ASSERT_EQ_INT(0, rk_vfs_prefetch(v, "200-linux", NULL, NULL, NULL));
	rk_vfs_stats(v, &st);
	RK_ASSERT_EQ_INT(5, st.ingests);
	RK_ASSERT_EQ_INT(0, rk_cache_stats(rk_vfs_cache(v), &cs, NULL));
	RK_ASSERT_EQ_INT(4, cs.indexes); /* one per good archive */
	RK_ASSERT_EQ_INT(-ENOENT, rk_vfs_prefetch(v, "999-linux", NULL, NULL, NULL));
	fx_vfs_close(v);
}

RK_TEST(second_mount_loads_indexes)
{
	struct rk_vfs *v;
	struct rk_vfs_stats st;
	struct rk_attr a1, a2;
	char *text;

	make_store();
	v = open_vfs("store");
	RK_ASSERT_EQ_INT(0, rk_vfs_prefetch(v, "200-linux", NULL, NULL, NULL));
	a1 = fx_resolve(v, "200-linux/browse/small_lib_generic/s/stage/hello.txt");
	fx_vfs_close(v);
	v = open_vfs("store");
	a2 = fx_resolve(v, "200-linux/browse/small_lib_generic/s/stage/hello.txt");
	RK_ASSERT_EQ_INT(a1.ino, a2.ino); /* inode numbers are stable across mounts */
	text = read_all(v, "200-linux/browse/small_lib_generic/s/stage/hello.txt", NULL);
	RK_ASSERT_EQ_STR("hello\n", text);
	free(text);
	RK_ASSERT_EQ_INT(0, rk_vfs_prefetch(v, "200-linux", NULL, NULL, NULL)); /* wait */
	rk_vfs_stats(v, &st);
	RK_ASSERT_EQ_INT(0, st.ingests);
	RK_ASSERT_EQ_INT(1, st.index_loads);
	fx_vfs_close(v);
}

RK_TEST(corrupt_cached_index_is_rebuilt)
{
	struct rk_vfs *v;
	struct rk_vfs_stats st;
	char *text, cmd[256];

	make_store();
	v = open_vfs("store");
	RK_ASSERT_EQ_INT(0, rk_vfs_prefetch(v, "200-linux", NULL, NULL, NULL));
	fx_vfs_close(v);
	snprintf(cmd, sizeof(cmd), "for f in cache/index/*.rkix; do printf garbage > $f; done");
	RK_ASSERT_EQ_INT(0, system(cmd));
	v = open_vfs("store");
	text = read_all(v, "200-linux/browse/small_lib_generic/s/stage/hello.txt", NULL);
	RK_ASSERT_EQ_STR("hello\n", text);
	free(text);
	RK_ASSERT_EQ_INT(0, rk_vfs_prefetch(v, "200-linux", NULL, NULL, NULL)); /* wait */
	rk_vfs_stats(v, &st);
	RK_ASSERT_EQ_INT(1, st.ingests);
	RK_ASSERT_EQ_INT(0, st.index_loads);
	fx_vfs_close(v);
}

RK_TEST(missing_blob_is_refilled)
{
	struct rk_vfs *v;
	struct rk_cache_stats cs;
	char *text;

	make_store();
	v = open_vfs("store");
	RK_ASSERT_EQ_INT(0, rk_vfs_prefetch(v, "200-linux", NULL, NULL, NULL));
	fx_vfs_close(v);
	v = open_vfs("store");
	/* evict every blob: the index survives, the contents must come back */
	RK_ASSERT_EQ_INT(0, rk_cache_gc(rk_vfs_cache(v), 0, &cs, NULL));
	RK_ASSERT(cs.evicted >= 1);
	text = read_all(v, "200-linux/browse/small_lib_generic/s/stage/hello.txt", NULL);
	RK_ASSERT_EQ_STR("hello\n", text);
	free(text);
	fx_vfs_close(v);
}

RK_TEST(corrupt_blob_is_refilled)
{
	struct rk_vfs *v;
	char *text, cmd[512];
	struct rk_attr a;

	make_store();
	v = open_vfs("store");
	a = fx_resolve(v, "200-linux/browse/small_lib_generic/s/stage/hello.txt");
	RK_ASSERT_EQ_INT(6, a.size);
	RK_ASSERT_EQ_INT(0, rk_vfs_prefetch(v, "200-linux", NULL, NULL, NULL));
	fx_vfs_close(v);
	/* flip the blob's bytes (same size) behind the cache's back */
	snprintf(cmd, sizeof(cmd),
		 "f=$(grep -rl --include='*' -x hello cache/blobs | head -1); "
		 "test -n \"$f\" && chmod u+w $f && printf 'jello\\n' > $f");
	RK_ASSERT_EQ_INT(0, system(cmd));
	v = open_vfs("store");
	text = read_all(v, "200-linux/browse/small_lib_generic/s/stage/hello.txt", NULL);
	RK_ASSERT_EQ_STR("hello\n", text);
	free(text);
	fx_vfs_close(v);
}

RK_TEST(concurrent_first_lookups)
{
	struct rk_vfs *v;
	char *a, *b;

	make_store();
	v = open_vfs("store");
	/* two archives of one run, first access to each: both ingests run and finish */
	a = read_all(v, "100-linux/browse/small_run_generic/s/stage/hello.txt", NULL);
	b = read_all(v, "100-linux/browse/blas_lib_gfx942/p/stage/share/doc/README.md", NULL);
	RK_ASSERT_EQ_STR("hello\n", a);
	RK_ASSERT_EQ_STR("# doc\n", b);
	free(a);
	free(b);
	fx_vfs_close(v); /* with other archives never touched: nothing to wait for */
}

RK_TEST(close_while_ingesting)
{
	struct rk_vfs *v;
	struct rk_attr a;
	size_t big = 8 << 20;
	char *data = malloc(big + 1);
	struct fx_member m[2] = {FX_MANIFEST("p\n"), {FX_FILE, "p/big", NULL, 0, 0}};

	for (size_t i = 0; i < big; i++)
		data[i] = (char)((i * 2654435761u) >> 11);
	m[1].data = data;
	m[1].len = (long)big;
	fx_tar("run/big_lib_generic.tar.xz", FX_XZ, m, 2);
	free(data);
	v = open_vfs("run");
	a = fx_resolve(v, "browse/big_lib_generic/artifact_manifest.txt"); /* ingest running */
	RK_ASSERT(S_ISREG(a.mode));
	fx_vfs_close(v); /* cancels and waits */
}

/* rk/vfs.h: rk_vfs_close "cancels running ingests, waits for them, frees everything".
 * Ingest threads are detached and close waits only for a counter they decrement just
 * before returning, so a thread can outlive close (and its exit-time work, such as
 * OpenSSL's per-thread state, races with process exit: intermittent LSan reports of
 * 904 bytes from CRYPTO_zalloc in ASan builds). */
RK_TEST(close_leaves_no_threads)
{
	int before = fx_thread_count();

	RK_ASSERT(before >= 1);
	fx_tar("run/small_lib_generic.tar.zst", FX_ZSTD, small, 2);
	for (int i = 0; i < 20; i++) {
		struct rk_vfs *v;
		char *text;

		fx_mkdirs(fx_path("cache%d", i));
		{
			struct rk_vfs_opts o = {.store = "run",
						.cache_dir = fx_path("cache%d", i),
						.ingest_jobs = 1};

			fx_quiet_logs();
			RK_ASSERT_EQ_INT(0, rk_vfs_open(&o, &v, NULL));
		}
		text = read_all(v, "browse/small_lib_generic/s/stage/hello.txt", NULL);
		free(text);
		rk_vfs_close(v);
		/* pthread_join returns once the kernel has cleared the thread id, which can be a
		 * moment before its /proc/self/task entry goes: allow that moment, no more */
		for (int t = 0; t < 200 && fx_thread_count() != before; t++)
			usleep(5000);
		if (fx_thread_count() != before)
			rk_test_fail(__FILE__, __LINE__,
				     "round %d: %d threads after rk_vfs_close, "
				     "%d before open",
				     i, fx_thread_count(), before);
	}
}
