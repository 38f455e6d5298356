/* test_ingest.c: archives made here with libarchive's writer, streamed through rk_ingest. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rk/cache.h"
#include "rk/frontier.h"
#include "rk/hash.h"
#include "rk/ingest.h"
#include "rk/log.h"
#include "rk_fixture.h"
#include "rk_test.h"

#define MANIFEST_TEXT "p1/stage\np2/stage\n"

static const struct fx_member basic[] = {
	FX_MANIFEST(MANIFEST_TEXT),
	{FX_DIR, "p1/stage/lib/", NULL, 0, 0755},
	{FX_FILE, "p1/stage/lib/libx.so.1", "ELF-ish bytes", -1, 0755},
	{FX_SYMLINK, "p1/stage/lib/libx.so", "libx.so.1", 0, 0},
	{FX_FILE, "p1/stage/share/doc/README", "read me\n", -1, 0644},
	{FX_FILE, "p1/stage/empty", "", 0, 0600},
};
#define NBASIC (sizeof(basic) / sizeof(basic[0]))

static void quiet(enum rk_log_level l, const char *msg)
{
	(void)l;
	(void)msg;
}

/* Ingest file (relative to the test dir). opts may be NULL. */
static int ingest(const char *file, struct rk_cache *c, struct rk_ingest_opts *opts,
		  struct rk_index *idx, struct rk_err *err)
{
	struct rk_ingest_opts def = {0};
	struct rk_store *s = NULL;
	struct rk_object *obj = NULL;
	int rc;

	rk_log_set_handler(quiet); /* drops are logged: keep the output readable */
	if (!opts)
		opts = &def;
	if (!opts->name)
		opts->name = file;
	RK_ASSERT_EQ_INT(0, rk_store_open(".", &s, NULL));
	RK_ASSERT_EQ_INT(0, rk_store_object_open(s, file, &obj, NULL));
	memset(idx, 0, sizeof(*idx));
	rc = rk_ingest(c, obj, opts, idx, err);
	rk_object_close(obj);
	rk_store_close(s);
	return rc;
}

static const struct rk_member *find(const struct rk_index *idx, const char *path)
{
	for (size_t i = 0; i < idx->n; i++)
		if (!strcmp(idx->v[i].path, path))
			return &idx->v[i];
	return NULL;
}

static struct rk_cache *open_cache(void)
{
	struct rk_cache *c = NULL;

	RK_ASSERT_EQ_INT(0, rk_cache_open("cache", 0, &c, NULL));
	return c;
}

static void assert_blob(struct rk_cache *c, const struct rk_member *m, const char *content)
{
	char hex[RK_SHA256_HEX], *buf = malloc(m->size + 1);
	int fd = -1;

	RK_ASSERT_EQ_INT(strlen(content), m->size);
	RK_ASSERT_EQ_INT(0, rk_sha256_buf(content, strlen(content), hex));
	RK_ASSERT_EQ_STR(hex, m->blob);
	RK_ASSERT_EQ_INT(0, rk_blob_open(c, m->blob, m->size, &fd, NULL));
	RK_ASSERT_EQ_INT((ssize_t)m->size, pread(fd, buf, m->size + 1, 0));
	RK_ASSERT_EQ_MEM(content, buf, m->size);
	close(fd);
	free(buf);
}

static size_t count_tmp(void)
{
	FILE *p = popen("ls -A cache/tmp", "r");
	char line[256];
	size_t n = 0;

	while (p && fgets(line, sizeof(line), p))
		n++;
	if (p)
		pclose(p);
	return n;
}

static void check_basic(const struct rk_index *idx)
{
	const struct rk_member *m;

	RK_ASSERT_EQ_INT(2, idx->nprefixes);
	RK_ASSERT_EQ_STR("p1/stage", idx->prefixes[0]);
	RK_ASSERT_EQ_STR("p2/stage", idx->prefixes[1]);
	RK_ASSERT_EQ_INT(NBASIC, idx->n);
	RK_ASSERT_EQ_STR("artifact_manifest.txt", idx->v[0].path);
	RK_ASSERT_EQ_INT(RK_MEMBER_FILE, idx->v[0].type);
	RK_ASSERT_EQ_INT(strlen(MANIFEST_TEXT), idx->v[0].size);
	m = find(idx, "p1/stage/lib"); /* trailing '/' dropped */
	RK_ASSERT(m != NULL);
	RK_ASSERT_EQ_INT(RK_MEMBER_DIR, m->type);
	RK_ASSERT_EQ_INT(0755, m->mode);
	RK_ASSERT_EQ_INT(FX_MTIME, m->mtime);
	m = find(idx, "p1/stage/lib/libx.so.1");
	RK_ASSERT(m != NULL);
	RK_ASSERT_EQ_INT(RK_MEMBER_FILE, m->type);
	RK_ASSERT_EQ_INT(13, m->size);
	RK_ASSERT_EQ_INT(0755, m->mode);
	RK_ASSERT_EQ_INT(FX_MTIME, m->mtime);
	RK_ASSERT(m->link == NULL);
	m = find(idx, "p1/stage/lib/libx.so");
	RK_ASSERT(m != NULL);
	RK_ASSERT_EQ_INT(RK_MEMBER_SYMLINK, m->type);
	RK_ASSERT_EQ_STR("libx.so.1", m->link);
	RK_ASSERT_EQ_INT(9, m->size);
	RK_ASSERT_EQ_STR("", m->blob);
	m = find(idx, "p1/stage/empty");
	RK_ASSERT(m != NULL);
	RK_ASSERT_EQ_INT(RK_MEMBER_FILE, m->type);
	RK_ASSERT_EQ_INT(0, m->size);
	RK_ASSERT_EQ_INT(0600, m->mode);
	RK_ASSERT_EQ_STR("", m->blob); /* no blob for an empty file */
}

static void basic_with(enum fx_comp comp)
{
	struct rk_index idx;
	struct rk_err err = RK_ERR_INIT;
	size_t size = fx_tar("a_lib_generic.tar", comp, basic, NBASIC);
	int rc = ingest("a_lib_generic.tar", NULL, NULL, &idx, &err);

	if (rc)
		rk_test_fail(__FILE__, __LINE__, "ingest: %s", rk_err_str(&err, rc));
	check_basic(&idx);
	/* no cache: members are checked, no blob is written */
	RK_ASSERT_EQ_STR("", find(&idx, "p1/stage/lib/libx.so.1")->blob);
	RK_ASSERT_EQ_INT(size, idx.archive_size);
	RK_ASSERT_EQ_STR("", idx.archive_sha256);
	rk_index_release(&idx);
}

RK_TEST(zstd_archive)
{
	basic_with(FX_ZSTD);
}

RK_TEST(xz_archive)
{
	basic_with(FX_XZ);
}

RK_TEST(gzip_archive)
{
	basic_with(FX_GZIP);
}

RK_TEST(uncompressed_archive)
{
	basic_with(FX_NONE);
}

RK_TEST(blobs_written_to_cache)
{
	struct rk_cache *c = open_cache();
	struct rk_index idx;
	struct rk_cache_stats st;

	fx_tar("a.tar.zst", FX_ZSTD, basic, NBASIC);
	RK_ASSERT_EQ_INT(0, ingest("a.tar.zst", c, NULL, &idx, NULL));
	check_basic(&idx);
	assert_blob(c, &idx.v[0], MANIFEST_TEXT);
	assert_blob(c, find(&idx, "p1/stage/lib/libx.so.1"), "ELF-ish bytes");
	assert_blob(c, find(&idx, "p1/stage/share/doc/README"), "read me\n");
	RK_ASSERT_EQ_INT(0, rk_cache_stats(c, &st, NULL));
	RK_ASSERT_EQ_INT(3, st.blobs); /* the empty file has none */
	RK_ASSERT_EQ_INT(0, count_tmp());
	rk_index_release(&idx);
	/* a second ingest of the same archive dedups */
	RK_ASSERT_EQ_INT(0, ingest("a.tar.zst", c, NULL, &idx, NULL));
	RK_ASSERT_EQ_INT(0, rk_cache_stats(c, &st, NULL));
	RK_ASSERT_EQ_INT(3, st.blobs);
	rk_index_release(&idx);
	rk_cache_close(c);
}

RK_TEST(large_file_streams)
{
	struct rk_cache *c = open_cache();
	struct rk_index idx;
	size_t big = 3 << 20;
	char *data = malloc(big + 1);
	struct fx_member m[2] = {FX_MANIFEST("p\n"), {FX_FILE, "p/big.bin", NULL, 0, 0}};

	for (size_t i = 0; i < big; i++)
		data[i] = (char)('a' + (i * 7919) % 26);
	data[big] = '\0';
	m[1].data = data;
	m[1].len = (long)big;
	fx_tar("big.tar.xz", FX_XZ, m, 2);
	RK_ASSERT_EQ_INT(0, ingest("big.tar.xz", c, NULL, &idx, NULL));
	assert_blob(c, find(&idx, "p/big.bin"), data);
	rk_index_release(&idx);
	free(data);
	rk_cache_close(c);
}

static void expect_eproto(const struct fx_member *m, size_t n, int line)
{
	struct rk_index idx;
	struct rk_err err = RK_ERR_INIT;
	int rc;

	fx_tar("x.tar.zst", FX_ZSTD, m, n);
	rc = ingest("x.tar.zst", NULL, NULL, &idx, &err);
	rk_index_release(&idx);
	if (rc != -EPROTO)
		rk_test_fail(__FILE__, line, "ingest returned %d (%s), want -EPROTO", rc,
			     rk_err_str(&err, rc));
	if (!err.msg[0])
		rk_test_fail(__FILE__, line, "no error message");
}

RK_TEST(manifest_must_come_first)
{
	const struct fx_member late[] = {
		{FX_FILE, "p/a.txt", "a", -1, 0},
		FX_MANIFEST("p\n"),
	};
	const struct fx_member dir_first[] = {
		{FX_DIR, "p/", NULL, 0, 0},
		FX_MANIFEST("p\n"),
	};
	const struct fx_member root_first[] = {
		{FX_DIR, "./", NULL, 0, 0},
		FX_MANIFEST("p\n"),
	};
	const struct fx_member nested[] = {
		{FX_FILE, "p/artifact_manifest.txt", "p\n", -1, 0},
	};
	const struct fx_member as_dir[] = {
		{FX_DIR, "artifact_manifest.txt", NULL, 0, 0},
	};
	const struct fx_member as_link[] = {
		{FX_SYMLINK, "artifact_manifest.txt", "x", 0, 0},
		{FX_FILE, "x", "p\n", -1, 0},
	};
	const struct fx_member as_hardlink[] = {
		{FX_HARDLINK, "artifact_manifest.txt", "x", 0, 0},
	};
	const struct fx_member escaping[] = {
		{FX_FILE, "../artifact_manifest.txt", "p\n", -1, 0},
	};

	expect_eproto(late, 2, __LINE__);
	expect_eproto(dir_first, 2, __LINE__);
	expect_eproto(root_first, 2, __LINE__);
	expect_eproto(nested, 1, __LINE__);
	expect_eproto(as_dir, 1, __LINE__);
	expect_eproto(as_link, 2, __LINE__);
	expect_eproto(as_hardlink, 1, __LINE__);
	expect_eproto(escaping, 1, __LINE__);
}

RK_TEST(manifest_name_may_be_dotted_or_absolute)
{
	static const char *const names[] = {"./artifact_manifest.txt", "/artifact_manifest.txt"};

	for (size_t i = 0; i < 2; i++) {
		struct fx_member m[2] = {{FX_FILE, names[i], "p\n", -1, 0},
					 {FX_FILE, "p/a", "a", -1, 0}};
		struct rk_index idx;

		fx_tar("x.tar.zst", FX_ZSTD, m, 2);
		RK_ASSERT_EQ_INT(0, ingest("x.tar.zst", NULL, NULL, &idx, NULL));
		RK_ASSERT_EQ_STR("artifact_manifest.txt", idx.v[0].path);
		RK_ASSERT_EQ_INT(1, idx.nprefixes);
		rk_index_release(&idx);
	}
}

RK_TEST(manifest_bad_prefix_is_eproto)
{
	const struct fx_member m[] = {FX_MANIFEST("ok/stage\n../evil\n"),
				      {FX_FILE, "a", "a", -1, 0}};

	expect_eproto(m, 2, __LINE__);
}

RK_TEST(manifest_blank_lines_and_crlf)
{
	const struct fx_member m[] = {FX_MANIFEST("\r\na/stage\r\n\r\nb/stage\r\n\n")};
	struct rk_index idx;

	fx_tar("x.tar.gz", FX_GZIP, m, 1);
	RK_ASSERT_EQ_INT(0, ingest("x.tar.gz", NULL, NULL, &idx, NULL));
	RK_ASSERT_EQ_INT(2, idx.nprefixes);
	RK_ASSERT_EQ_STR("b/stage", idx.prefixes[1]);
	rk_index_release(&idx);
}

RK_TEST(manifest_too_large)
{
	size_t big = (1u << 20) + 10;
	char *text = malloc(big + 1);
	struct fx_member m[1] = {FX_MANIFEST(NULL)};

	for (size_t i = 0; i < big; i++)
		text[i] = (i % 8 == 7) ? '\n' : 'a';
	text[big] = '\0';
	m[0].data = text;
	expect_eproto(m, 1, __LINE__);
	free(text);
}

RK_TEST(empty_archive)
{
	struct rk_index idx;
	struct rk_err err = RK_ERR_INIT;
	int rc;

	fx_tar("x.tar.zst", FX_ZSTD, NULL, 0);
	RK_ASSERT_EQ_INT(-EPROTO, ingest("x.tar.zst", NULL, NULL, &idx, &err));
	RK_ASSERT(err.msg[0]);
	rk_index_release(&idx);
	/* a zero-byte file is not an archive at all */
	fx_write("zero.tar.zst", "", 0);
	rc = ingest("zero.tar.zst", NULL, NULL, &idx, NULL);
	RK_ASSERT(rc == -EBADMSG || rc == -EPROTO);
	rk_index_release(&idx);
}

RK_TEST(not_an_archive)
{
	struct rk_index idx;
	struct rk_err err = RK_ERR_INIT;
	char junk[4096];

	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (char)(i * 131 + 7);
	fx_write("junk.tar.zst", junk, sizeof(junk));
	RK_ASSERT_EQ_INT(-EBADMSG, ingest("junk.tar.zst", NULL, NULL, &idx, &err));
	RK_ASSERT(err.msg[0]);
	rk_index_release(&idx);
	fx_writes("text.tar.xz", "just some text, not a tar stream\n");
	RK_ASSERT_EQ_INT(-EBADMSG, ingest("text.tar.xz", NULL, NULL, &idx, NULL));
	rk_index_release(&idx);
}

static void truncated_with(enum fx_comp comp)
{
	struct rk_cache *c = open_cache();
	size_t big = 256 << 10, len;
	char *data = malloc(big + 1);
	struct fx_member m[3] = {FX_MANIFEST("p\n"),
				 {FX_FILE, "p/big.bin", NULL, 0, 0},
				 {FX_FILE, "p/after", "after", -1, 0}};
	unsigned char *tar;
	struct rk_index idx;
	struct rk_err err = RK_ERR_INIT;
	int rc;

	/* pseudo-random bytes: the compressed stream stays large */
	for (size_t i = 0; i < big; i++)
		data[i] = (char)((i * 2654435761u) >> 13);
	m[1].data = data;
	m[1].len = (long)big;
	tar = fx_tar_mem(comp, m, 3, &len);
	fx_write("cut.tar", tar, len / 2);
	rc = ingest("cut.tar", c, NULL, &idx, &err);
	if (rc != -EBADMSG)
		rk_test_fail(__FILE__, __LINE__, "compression %d: ingest returned %d (%s)", comp,
			     rc, rk_err_str(&err, rc));
	RK_ASSERT(err.msg[0]);
	RK_ASSERT(find(&idx, "p/after") == NULL);
	RK_ASSERT_EQ_INT(0, count_tmp()); /* no half-written blob left behind */
	rk_index_release(&idx);
	/* the whole stream is fine */
	fx_write("whole.tar", tar, len);
	RK_ASSERT_EQ_INT(0, ingest("whole.tar", c, NULL, &idx, NULL));
	RK_ASSERT(find(&idx, "p/after") != NULL);
	rk_index_release(&idx);
	free(tar);
	free(data);
	rk_cache_close(c);
}

RK_TEST(truncated_zstd)
{
	truncated_with(FX_ZSTD);
}

RK_TEST(truncated_xz)
{
	truncated_with(FX_XZ);
}

RK_TEST(truncated_gzip)
{
	truncated_with(FX_GZIP);
}

RK_TEST(truncated_tar)
{
	truncated_with(FX_NONE);
}

RK_TEST(truncated_at_every_tar_block)
{
	struct fx_member m[] = {FX_MANIFEST("p\n"),
				{FX_FILE, "p/a", "0123456789", -1, 0},
				{FX_FILE, "p/b", "b", -1, 0}};
	size_t len;
	unsigned char *tar = fx_tar_mem(FX_NONE, m, 3, &len);

	/* cutting inside a member's data is always an error, never a short file */
	for (size_t cut = 512; cut < len; cut += 512) {
		struct rk_index idx;
		const struct rk_member *a;
		int rc;

		fx_write("cut.tar", tar, cut);
		rc = ingest("cut.tar", NULL, NULL, &idx, NULL);
		a = find(&idx, "p/a");
		if (a && a->size != 10)
			rk_test_fail(__FILE__, __LINE__, "cut at %zu: 'p/a' has %llu bytes", cut,
				     (unsigned long long)a->size);
		if (rc && rc != -EBADMSG && rc != -EPROTO)
			rk_test_fail(__FILE__, __LINE__, "cut at %zu: rc %d", cut, rc);
		rk_index_release(&idx);
	}
	free(tar);
}

RK_TEST(dotdot_names_dropped_absolute_stripped)
{
	const struct fx_member m[] = {
		FX_MANIFEST("escape/stage\n"),
		{FX_FILE, "../../escape.txt", "escape\n", -1, 0},
		{FX_FILE, "/abs/etc/passwd", "root:x:0\n", -1, 0},
		{FX_FILE, "a/../../up.txt", "up\n", -1, 0},
		{FX_FILE, "escape/stage/../../../../outside.txt", "outside\n", -1, 0},
		{FX_FILE, "escape/stage/ok.txt", "ok\n", -1, 0},
		{FX_FILE, "./escape/stage/./dotted.txt", "d\n", -1, 0},
		{FX_DIR, "..", NULL, 0, 0},
		{FX_DIR, "./", NULL, 0, 0},
	};
	struct rk_index idx;

	fx_tar("x.tar.zst", FX_ZSTD, m, sizeof(m) / sizeof(m[0]));
	RK_ASSERT_EQ_INT(0, ingest("x.tar.zst", NULL, NULL, &idx, NULL));
	RK_ASSERT_EQ_INT(4, idx.n);
	RK_ASSERT_EQ_STR("artifact_manifest.txt", idx.v[0].path);
	RK_ASSERT_EQ_STR("abs/etc/passwd", idx.v[1].path);
	RK_ASSERT_EQ_STR("escape/stage/ok.txt", idx.v[2].path);
	RK_ASSERT_EQ_STR("escape/stage/dotted.txt", idx.v[3].path);
	for (size_t i = 0; i < idx.n; i++)
		RK_ASSERT(!strstr(idx.v[i].path, ".."));
	rk_index_release(&idx);
}

RK_TEST(long_names_dropped)
{
	char *longname = malloc(RK_INDEX_MAX_PATH + 10);
	struct fx_member m[3] = {
		FX_MANIFEST("p\n"), {FX_FILE, NULL, "x", -1, 0}, {FX_FILE, "p/kept", "k", -1, 0}};
	struct rk_index idx;

	for (int i = 0; i < RK_INDEX_MAX_PATH + 9; i++)
		longname[i] = i % 100 == 99 ? '/' : 'n';
	longname[RK_INDEX_MAX_PATH + 9] = '\0';
	m[1].name = longname;
	fx_tar("x.tar.zst", FX_ZSTD, m, 3);
	RK_ASSERT_EQ_INT(0, ingest("x.tar.zst", NULL, NULL, &idx, NULL));
	RK_ASSERT_EQ_INT(2, idx.n);
	RK_ASSERT_EQ_STR("p/kept", idx.v[1].path);
	rk_index_release(&idx);
	free(longname);
}

RK_TEST(escaping_symlinks_dropped)
{
	const struct fx_member m[] = {
		FX_MANIFEST("escape/stage\n"),
		{FX_SYMLINK, "escape/stage/evil", "/etc/passwd", 0, 0},
		{FX_SYMLINK, "escape/stage/up", "../../../../..", 0, 0},
		{FX_SYMLINK, "escape/stage/up2", "../../../x", 0, 0},
		{FX_SYMLINK, "top", "..", 0, 0},
		{FX_SYMLINK, "escape/stage/in1", "../../x", 0, 0},
		{FX_SYMLINK, "escape/stage/sneaky", "../stage/../../../etc", 0, 0},
		{FX_SYMLINK, "escape/stage/lib/libx.so", "libx.so.1", 0, 0},
		{FX_SYMLINK, "escape/stage/bin/clang", "../lib/llvm/bin/clang-20", 0, 0},
		{FX_SYMLINK, "escape/stage/self", ".", 0, 0},
	};
	struct rk_index idx;

	fx_tar("x.tar.zst", FX_ZSTD, m, sizeof(m) / sizeof(m[0]));
	RK_ASSERT_EQ_INT(0, ingest("x.tar.zst", NULL, NULL, &idx, NULL));
	RK_ASSERT(find(&idx, "escape/stage/evil") == NULL);
	RK_ASSERT(find(&idx, "escape/stage/up") == NULL);
	RK_ASSERT(find(&idx, "escape/stage/up2") == NULL);
	RK_ASSERT(find(&idx, "top") == NULL);
	RK_ASSERT(find(&idx, "escape/stage/sneaky") == NULL);
	RK_ASSERT(find(&idx, "escape/stage/in1") != NULL); /* the root's "x" */
	RK_ASSERT(find(&idx, "escape/stage/lib/libx.so") != NULL);
	RK_ASSERT(find(&idx, "escape/stage/bin/clang") != NULL);
	RK_ASSERT(find(&idx, "escape/stage/self") != NULL);
	RK_ASSERT_EQ_INT(5, idx.n);
	rk_index_release(&idx);
}

/* Resolve target from directory base through the index's own symlinks (as the kernel
 * would, one component at a time). -1 when it climbs above the root. */
static int resolve(const struct rk_index *idx, const char *base, const char *target, char *out,
		   size_t outn, int hops)
{
	char cur[8192];
	const char *p = target;

	if (target[0] == '/')
		return -1;
	snprintf(cur, sizeof(cur), "%s", base);
	while (*p) {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.') {
			char *s = strrchr(cur, '/');

			if (!cur[0])
				return -1;
			if (s)
				*s = '\0';
			else
				cur[0] = '\0';
		} else if (n && !(n == 1 && p[0] == '.')) {
			const struct rk_member *m;
			size_t l = strlen(cur);

			snprintf(cur + l, sizeof(cur) - l, "%s%.*s", l ? "/" : "", (int)n, p);
			m = find(idx, cur);
			if (m && m->type == RK_MEMBER_SYMLINK && hops < 40) {
				char dir[8192], *s;

				snprintf(dir, sizeof(dir), "%s", cur);
				s = strrchr(dir, '/');
				if (s)
					*s = '\0';
				else
					dir[0] = '\0';
				if (resolve(idx, dir, m->link, cur, sizeof(cur), hops + 1) < 0)
					return -1;
			}
		}
		p += n;
		while (*p == '/')
			p++;
	}
	snprintf(out, outn, "%s", cur);
	return 0;
}

/* rk/ingest.h: "symlinks whose target leaves the archive root are dropped". The check is
 * rk_path_link_escapes, which is purely lexical: a kept link to ".." at depth 4 lands on
 * the root, and a second link that goes through it climbs out of the artifact even
 * though its own text stays "inside". Every symlink kept must resolve inside the root
 * when the links before it are followed. */
RK_TEST(symlink_chain_cannot_escape)
{
	const struct fx_member m[] = {
		FX_MANIFEST("a/b/c/d\n"),
		{FX_DIR, "a/b/c/d", NULL, 0, 0},
		{FX_SYMLINK, "a/b/c/d/root", "../../../..", 0, 0},
		{FX_SYMLINK, "a/b/c/d/out", "root/../../../../../etc/passwd", 0, 0},
		{FX_SYMLINK, "x/l", "..", 0, 0},
		{FX_SYMLINK, "x/l2", "l/..", 0, 0},
	};
	struct rk_index idx;
	char where[8192];

	fx_tar("x.tar.zst", FX_ZSTD, m, sizeof(m) / sizeof(m[0]));
	RK_ASSERT_EQ_INT(0, ingest("x.tar.zst", NULL, NULL, &idx, NULL));
	RK_ASSERT(find(&idx, "a/b/c/d/root") != NULL); /* legitimate: it is the root */
	for (size_t i = 0; i < idx.n; i++) {
		const struct rk_member *s = &idx.v[i];
		char dir[8192], *slash;

		if (s->type != RK_MEMBER_SYMLINK)
			continue;
		snprintf(dir, sizeof(dir), "%s", s->path);
		slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
		else
			dir[0] = '\0';
		if (resolve(&idx, dir, s->link, where, sizeof(where), 0) < 0)
			rk_test_fail(__FILE__, __LINE__,
				     "kept symlink '%s' -> '%s' resolves outside "
				     "the archive root",
				     s->path, s->link);
	}
	rk_index_release(&idx);
}

RK_TEST(hardlinks_resolved_to_earlier_file)
{
	struct rk_cache *c = open_cache();
	const struct fx_member m[] = {
		FX_MANIFEST("p\n"),
		{FX_FILE, "p/lib/libx.so.1", "shared content", -1, 0751},
		{FX_HARDLINK, "p/lib/libx-copy.so.1", "p/lib/libx.so.1", 0, 0644},
		{FX_HARDLINK, "p/abs-copy", "/p/lib/libx.so.1", 0, 0},
		{FX_HARDLINK, "p/dot-copy", "./p/lib/libx.so.1", 0, 0},
		{FX_HARDLINK, "p/lib/hardabs", "/etc/passwd", 0, 0},
		{FX_HARDLINK, "p/lib/hardup", "../../../../etc/passwd", 0, 0},
		{FX_HARDLINK, "p/forward", "p/later", 0, 0},
		{FX_DIR, "p/dir", NULL, 0, 0},
		{FX_HARDLINK, "p/to-dir", "p/dir", 0, 0},
		{FX_SYMLINK, "p/sym", "lib/libx.so.1", 0, 0},
		{FX_HARDLINK, "p/to-sym", "p/sym", 0, 0},
		{FX_FILE, "p/later", "later", -1, 0},
		{FX_FILE, "p/empty", "", 0, 0},
		{FX_HARDLINK, "p/empty-copy", "p/empty", 0, 0},
	};
	struct rk_index idx;
	const struct rk_member *f, *h;

	fx_tar("x.tar.zst", FX_ZSTD, m, sizeof(m) / sizeof(m[0]));
	RK_ASSERT_EQ_INT(0, ingest("x.tar.zst", c, NULL, &idx, NULL));
	f = find(&idx, "p/lib/libx.so.1");
	RK_ASSERT(f != NULL);
	assert_blob(c, f, "shared content");
	h = find(&idx, "p/lib/libx-copy.so.1");
	RK_ASSERT(h != NULL);
	RK_ASSERT_EQ_INT(RK_MEMBER_HARDLINK, h->type);
	RK_ASSERT_EQ_STR("p/lib/libx.so.1", h->link);
	RK_ASSERT_EQ_INT(f->size, h->size);
	RK_ASSERT_EQ_STR(f->blob, h->blob);
	RK_ASSERT_EQ_INT(0751, h->mode); /* one inode: the file's mode */
	h = find(&idx, "p/abs-copy");
	RK_ASSERT(h != NULL);
	RK_ASSERT_EQ_STR("p/lib/libx.so.1", h->link); /* normalized */
	RK_ASSERT_EQ_STR(f->blob, h->blob);
	h = find(&idx, "p/dot-copy");
	RK_ASSERT(h != NULL);
	RK_ASSERT_EQ_STR("p/lib/libx.so.1", h->link);
	RK_ASSERT(find(&idx, "p/lib/hardabs") == NULL);
	RK_ASSERT(find(&idx, "p/lib/hardup") == NULL);
	RK_ASSERT(find(&idx, "p/forward") == NULL); /* target not seen yet */
	RK_ASSERT(find(&idx, "p/to-dir") == NULL);
	RK_ASSERT(find(&idx, "p/to-sym") == NULL);
	h = find(&idx, "p/empty-copy");
	RK_ASSERT(h != NULL);
	RK_ASSERT_EQ_INT(0, h->size);
	RK_ASSERT_EQ_STR("", h->blob);
	/* the index with hardlinks survives its own serialization */
	{
		struct rk_buf b = RK_BUF_INIT;
		struct rk_index back;

		RK_ASSERT_EQ_INT(0, rk_index_serialize(&idx, &b));
		RK_ASSERT_EQ_INT(0, rk_index_parse(b.buf, b.len, &back, NULL));
		RK_ASSERT_EQ_INT(idx.n, back.n);
		rk_index_release(&back);
		rk_buf_release(&b);
	}
	rk_index_release(&idx);
	rk_cache_close(c);
}

RK_TEST(special_files_dropped)
{
	const struct fx_member m[] = {
		FX_MANIFEST("p\n"),
		{FX_FIFO, "p/fifo", NULL, 0, 0},
		{FX_FILE, "p/ok", "ok", -1, 0},
	};
	struct rk_index idx;

	fx_tar("x.tar.zst", FX_ZSTD, m, sizeof(m) / sizeof(m[0]));
	RK_ASSERT_EQ_INT(0, ingest("x.tar.zst", NULL, NULL, &idx, NULL));
	RK_ASSERT_EQ_INT(2, idx.n);
	RK_ASSERT(find(&idx, "p/fifo") == NULL);
	rk_index_release(&idx);
}

RK_TEST(setuid_bits_cleared)
{
	const struct fx_member m[] = {
		FX_MANIFEST("p\n"),
		{FX_FILE, "p/suid", "x", -1, 06755},
		{FX_DIR, "p/sticky", NULL, 0, 01777},
	};
	struct rk_index idx;

	fx_tar("x.tar.zst", FX_ZSTD, m, sizeof(m) / sizeof(m[0]));
	RK_ASSERT_EQ_INT(0, ingest("x.tar.zst", NULL, NULL, &idx, NULL));
	RK_ASSERT_EQ_INT(0755, find(&idx, "p/suid")->mode);
	RK_ASSERT_EQ_INT(01777, find(&idx, "p/sticky")->mode);
	rk_index_release(&idx);
}

struct calls {
	char paths[64][128];
	size_t pos[64];
	size_t n;
	int fail_at;
	char staged[64][128];
	int staged_fd[64];
	struct rk_frontier *staged_fr[64];
	size_t nstaged;
};

static int on_member(void *ctx, const struct rk_index *idx, size_t pos)
{
	struct calls *c = ctx;

	RK_ASSERT(pos < idx->n);
	if (c->n < 64) {
		snprintf(c->paths[c->n], sizeof(c->paths[0]), "%s", idx->v[pos].path);
		c->pos[c->n] = pos;
	}
	c->n++;
	return c->fail_at && (int)c->n == c->fail_at ? -EXDEV : 0;
}

/* Keeps what a reader would: a dup of the file and a reference to its frontier. */
static int on_staged(void *ctx, const struct rk_member *m, int fd, struct rk_frontier *fr)
{
	struct calls *c = ctx;

	RK_ASSERT_EQ_STR("", m->blob);
	RK_ASSERT(fd >= 0 && fr);
	if (c->nstaged < 64) {
		snprintf(c->staged[c->nstaged], sizeof(c->staged[0]), "%s", m->path);
		c->staged_fd[c->nstaged] = dup(fd);
		c->staged_fr[c->nstaged] = rk_frontier_get(fr);
	}
	c->nstaged++;
	return 0;
}

/* Staged file i as a reader sees it once its frontier lets it: the bytes, or the
 * frontier's failure as "<errno>". */
static const char *staged_read(struct calls *c, size_t i, char *buf, size_t len)
{
	int rc = rk_frontier_wait(c->staged_fr[i], UINT64_MAX);
	ssize_t n;

	if (rc) {
		snprintf(buf, len, "<%d>", -rc);
		return buf;
	}
	n = pread(c->staged_fd[i], buf, len - 1, 0);
	buf[n < 0 ? 0 : n] = '\0';
	return buf;
}

static void staged_release(struct calls *c)
{
	for (size_t i = 0; i < c->nstaged && i < 64; i++) {
		close(c->staged_fd[i]);
		rk_frontier_put(c->staged_fr[i]);
	}
}

RK_TEST(duplicate_names_last_wins)
{
	struct rk_cache *c = open_cache();
	const struct fx_member m[] = {
		FX_MANIFEST("p\n"),
		{FX_FILE, "p/dup", "first version", -1, 0644},
		{FX_FILE, "p/other", "o", -1, 0},
		{FX_FILE, "p/dup", "second", -1, 0600},
		{FX_SYMLINK, "p/link", "other", 0, 0},
		{FX_SYMLINK, "p/link", "dup", 0, 0},
	};
	struct rk_index idx;
	const struct rk_member *d;
	size_t count = 0;
	struct calls calls = {0};
	struct rk_ingest_opts o = {.on_member = on_member, .ctx = &calls};

	fx_tar("x.tar.zst", FX_ZSTD, m, sizeof(m) / sizeof(m[0]));
	RK_ASSERT_EQ_INT(0, ingest("x.tar.zst", c, &o, &idx, NULL));
	/* every member is reported; a replacement reports the slot it took over */
	RK_ASSERT_EQ_INT(6, calls.n);
	RK_ASSERT_EQ_INT(1, calls.pos[1]);
	RK_ASSERT_EQ_INT(1, calls.pos[3]);
	RK_ASSERT_EQ_INT(calls.pos[4], calls.pos[5]);
	for (size_t i = 0; i < idx.n; i++)
		count += !strcmp(idx.v[i].path, "p/dup");
	RK_ASSERT_EQ_INT(1, count);
	RK_ASSERT_EQ_INT(4, idx.n);
	RK_ASSERT_EQ_STR("p/dup", idx.v[1].path); /* keeps its first position */
	d = find(&idx, "p/dup");
	assert_blob(c, d, "second");
	RK_ASSERT_EQ_INT(0600, d->mode);
	RK_ASSERT_EQ_STR("dup", find(&idx, "p/link")->link);
	rk_index_release(&idx);
	rk_cache_close(c);
}

RK_TEST(on_member_called_in_archive_order)
{
	const struct fx_member m[] = {
		FX_MANIFEST("p\n"),
		{FX_FILE, "p/z", "z", -1, 0},
		{FX_DIR, "p/a", NULL, 0, 0},
		{FX_FILE, "../dropped", "d", -1, 0},
		{FX_SYMLINK, "p/m", "z", 0, 0},
		{FX_HARDLINK, "p/h", "p/z", 0, 0},
		{FX_FILE, "p/b", "", 0, 0},
		{FX_HARDLINK, "p/missing", "p/nothing", 0, 0},
		{FX_DIR, "p/a/c", NULL, 0, 0},
	};
	static const char *const want[] = {
		"artifact_manifest.txt", "p/z", "p/a", "p/m", "p/h", "p/b", "p/a/c"};
	struct rk_cache *c = open_cache();
	struct calls calls = {0};
	struct rk_ingest_opts o = {.on_member = on_member, .ctx = &calls};
	struct rk_index idx;

	fx_tar("x.tar.zst", FX_ZSTD, m, sizeof(m) / sizeof(m[0]));
	RK_ASSERT_EQ_INT(0, ingest("x.tar.zst", c, &o, &idx, NULL));
	RK_ASSERT_EQ_INT(7, calls.n);
	for (size_t i = 0; i < calls.n; i++) {
		RK_ASSERT_EQ_STR(want[i], calls.paths[i]);
		RK_ASSERT_EQ_INT(i, calls.pos[i]);
		RK_ASSERT_EQ_STR(want[i], idx.v[i].path);
	}
	RK_ASSERT_EQ_INT(7, idx.n);
	rk_index_release(&idx);
	rk_cache_close(c);
}

RK_TEST(on_member_error_stops_ingest)
{
	const struct fx_member m[] = {
		FX_MANIFEST("p\n"),
		{FX_FILE, "p/a", "a", -1, 0},
		{FX_FILE, "p/b", "b", -1, 0},
		{FX_FILE, "p/c", "c", -1, 0},
	};
	struct calls calls = {.fail_at = 2};
	struct rk_ingest_opts o = {.on_member = on_member, .ctx = &calls};
	struct rk_index idx;

	fx_tar("x.tar.zst", FX_ZSTD, m, sizeof(m) / sizeof(m[0]));
	RK_ASSERT_EQ_INT(-EXDEV, ingest("x.tar.zst", NULL, &o, &idx, NULL));
	RK_ASSERT_EQ_INT(2, calls.n);
	rk_index_release(&idx);
}

RK_TEST(on_staged_sees_file_bytes_first)
{
	const struct fx_member m[] = {
		FX_MANIFEST("p\n"),
		{FX_FILE, "p/a", "alpha", -1, 0},
		{FX_FILE, "p/empty", "", 0, 0},
		{FX_DIR, "p/d", NULL, 0, 0},
		{FX_FILE, "p/b", "beta", -1, 0},
	};
	struct rk_cache *c = open_cache();
	struct calls calls = {0};
	struct rk_ingest_opts o = {.on_staged = on_staged, .ctx = &calls};
	struct rk_index idx;
	char buf[32];

	fx_tar("x.tar.zst", FX_ZSTD, m, sizeof(m) / sizeof(m[0]));
	RK_ASSERT_EQ_INT(0, ingest("x.tar.zst", c, &o, &idx, NULL));
	/* files with bytes only: the manifest, a and b */
	RK_ASSERT_EQ_INT(3, calls.nstaged);
	RK_ASSERT_EQ_STR("artifact_manifest.txt", calls.staged[0]);
	RK_ASSERT_EQ_STR("p\n", staged_read(&calls, 0, buf, sizeof(buf)));
	RK_ASSERT_EQ_STR("p/a", calls.staged[1]);
	RK_ASSERT_EQ_STR("alpha", staged_read(&calls, 1, buf, sizeof(buf)));
	RK_ASSERT_EQ_STR("p/b", calls.staged[2]);
	RK_ASSERT_EQ_STR("beta", staged_read(&calls, 2, buf, sizeof(buf)));
	staged_release(&calls);
	rk_index_release(&idx);
	rk_cache_close(c);
}

/* A corrupt archive fails the frontier of every file it staged, also of files it wrote
 * whole before the damage: a reader never goes on with bytes of a bad archive. */
RK_TEST(bad_archive_fails_every_staged_file)
{
	size_t big = 256 << 10, len;
	char *data = malloc(big);
	struct fx_member m[3] = {FX_MANIFEST("p\n"),
				 {FX_FILE, "p/a", "alpha", -1, 0},
				 {FX_FILE, "p/big.bin", NULL, 0, 0}};
	struct rk_cache *c = open_cache();
	struct calls calls = {0};
	struct rk_ingest_opts o = {.on_staged = on_staged, .ctx = &calls};
	struct rk_index idx;
	unsigned char *tar;
	char buf[32];

	for (size_t i = 0; i < big; i++)
		data[i] = (char)((i * 2654435761u) >> 13);
	m[2].data = data;
	m[2].len = (long)big;
	tar = fx_tar_mem(FX_NONE, m, 3, &len);
	fx_write("cut.tar", tar, len / 2); /* within p/big.bin */
	RK_ASSERT_EQ_INT(-EBADMSG, ingest("cut.tar", c, &o, &idx, NULL));
	RK_ASSERT_EQ_INT(3, calls.nstaged);
	RK_ASSERT_EQ_STR("p/a", calls.staged[1]);
	RK_ASSERT_EQ_STR("p/big.bin", calls.staged[2]);
	for (size_t i = 0; i < calls.nstaged; i++)
		RK_ASSERT_EQ_STR("<74>", staged_read(&calls, i, buf, sizeof(buf))); /* EBADMSG */
	staged_release(&calls);
	rk_index_release(&idx);
	free(tar);
	free(data);
	rk_cache_close(c);
}

static void sha_of_file(const char *path, char hex[RK_SHA256_HEX])
{
	size_t len;
	char *data = fx_read(path, &len);

	RK_ASSERT_EQ_INT(0, rk_sha256_buf(data, len, hex));
	free(data);
}

RK_TEST(sidecar_sha_checked)
{
	char hex[RK_SHA256_HEX];
	struct rk_ingest_opts o = {0};
	struct rk_index idx;
	struct rk_err err = RK_ERR_INIT;

	fx_tar("x.tar.zst", FX_ZSTD, basic, NBASIC);
	sha_of_file("x.tar.zst", hex);
	o.expect_sha256 = hex;
	RK_ASSERT_EQ_INT(0, ingest("x.tar.zst", NULL, &o, &idx, NULL));
	RK_ASSERT_EQ_STR(hex, idx.archive_sha256);
	rk_index_release(&idx);
	hex[10] = hex[10] == '0' ? '1' : '0';
	RK_ASSERT_EQ_INT(-EBADMSG, ingest("x.tar.zst", NULL, &o, &idx, &err));
	RK_ASSERT(strstr(err.msg, "sidecar") != NULL);
	RK_ASSERT_EQ_STR("", idx.archive_sha256);
	rk_index_release(&idx);
}

RK_TEST(sidecar_sha_covers_trailing_bytes)
{
	char hex[RK_SHA256_HEX];
	struct rk_ingest_opts o = {0};
	struct rk_index idx;
	size_t len;
	unsigned char *tar = fx_tar_mem(FX_NONE, basic, NBASIC, &len);
	unsigned char *padded = calloc(1, len + 3 * 1024 * 1024);

	/* a plain tar with megabytes of zero padding after the end-of-archive blocks: the
	 * hash is of the whole object, not of what libarchive happened to read */
	memcpy(padded, tar, len);
	fx_write("x.tar", padded, len + 3 * 1024 * 1024);
	sha_of_file("x.tar", hex);
	o.expect_sha256 = hex;
	RK_ASSERT_EQ_INT(0, ingest("x.tar", NULL, &o, &idx, NULL));
	RK_ASSERT_EQ_STR(hex, idx.archive_sha256);
	RK_ASSERT_EQ_INT(len + 3 * 1024 * 1024, idx.archive_size);
	rk_index_release(&idx);
	free(tar);
	free(padded);
}

RK_TEST(sidecar_sha_large_archive)
{
	char hex[RK_SHA256_HEX];
	struct rk_ingest_opts o = {0};
	struct rk_index idx;
	size_t big = 5 << 20;
	char *data = malloc(big + 1);
	struct fx_member m[2] = {FX_MANIFEST("p\n"), {FX_FILE, "p/big", NULL, 0, 0}};

	for (size_t i = 0; i < big; i++)
		data[i] = (char)((i * 2654435761u) >> 11);
	m[1].data = data;
	m[1].len = (long)big;
	fx_tar("x.tar.gz", FX_GZIP, m, 2); /* several read chunks */
	sha_of_file("x.tar.gz", hex);
	o.expect_sha256 = hex;
	RK_ASSERT_EQ_INT(0, ingest("x.tar.gz", NULL, &o, &idx, NULL));
	RK_ASSERT_EQ_STR(hex, idx.archive_sha256);
	rk_index_release(&idx);
	free(data);
}

RK_TEST(cancel_before_start)
{
	_Atomic int cancel = 1;
	struct rk_ingest_opts o = {.cancel = &cancel};
	struct rk_index idx;

	fx_tar("x.tar.zst", FX_ZSTD, basic, NBASIC);
	RK_ASSERT_EQ_INT(-ECANCELED, ingest("x.tar.zst", NULL, &o, &idx, NULL));
	rk_index_release(&idx);
}

static int cancel_on_second(void *ctx, const struct rk_member *m, int fd, struct rk_frontier *fr)
{
	(void)fd;
	(void)fr;
	if (strcmp(m->path, "artifact_manifest.txt"))
		*(_Atomic int *)ctx = 1;
	return 0;
}

RK_TEST(cancel_midway)
{
	_Atomic int cancel = 0;
	struct rk_ingest_opts o = {
		.cancel = &cancel, .on_staged = cancel_on_second, .ctx = &cancel};
	struct rk_cache *c = open_cache();
	struct rk_index idx;
	struct fx_member m[40];
	char names[40][16];

	m[0] = (struct fx_member)FX_MANIFEST("p\n");
	for (int i = 1; i < 40; i++) {
		snprintf(names[i], sizeof(names[i]), "p/f%02d", i);
		m[i] = (struct fx_member){FX_FILE, names[i], names[i], -1, 0};
	}
	fx_tar("x.tar.zst", FX_ZSTD, m, 40);
	/* cancelled while the second member is read: the archive is not finished */
	RK_ASSERT_EQ_INT(-ECANCELED, ingest("x.tar.zst", c, &o, &idx, NULL));
	RK_ASSERT(idx.n < 40);
	RK_ASSERT_EQ_INT(0, count_tmp());
	rk_index_release(&idx);
	rk_cache_close(c);
}

RK_TEST(progress_counts_compressed_bytes)
{
	_Atomic uint64_t progress = 0;
	struct rk_ingest_opts o = {.progress = &progress};
	struct rk_index idx;
	size_t size = fx_tar("x.tar.xz", FX_XZ, basic, NBASIC);

	RK_ASSERT_EQ_INT(0, ingest("x.tar.xz", NULL, &o, &idx, NULL));
	RK_ASSERT(progress > 0);
	RK_ASSERT(progress <= size);
	rk_index_release(&idx);
}

RK_TEST(cache_tmp_clean_after_failures)
{
	struct rk_cache *c = open_cache();
	const struct fx_member late[] = {{FX_FILE, "p/a", "a", -1, 0}, FX_MANIFEST("p\n")};
	char hex[RK_SHA256_HEX];
	struct rk_ingest_opts o = {0};
	struct rk_index idx;

	fx_tar("late.tar.zst", FX_ZSTD, late, 2);
	RK_ASSERT_EQ_INT(-EPROTO, ingest("late.tar.zst", c, NULL, &idx, NULL));
	rk_index_release(&idx);
	fx_tar("x.tar.zst", FX_ZSTD, basic, NBASIC);
	memset(hex, 'a', 64);
	hex[64] = '\0';
	o.expect_sha256 = hex;
	RK_ASSERT_EQ_INT(-EBADMSG, ingest("x.tar.zst", c, &o, &idx, NULL));
	rk_index_release(&idx);
	RK_ASSERT_EQ_INT(0, count_tmp());
	rk_cache_close(c);
}
