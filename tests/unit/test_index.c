/* test_index.c: struct rk_index, its serialized form and artifact_manifest.txt. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk/index.h"
#include "rk/path.h"
#include "rk_test.h"

#define BLOB_A "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define BLOB_B "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
#define HEADER 88 /* "RKIX" u32 u64 char[64] u32 u32 */

static void add(struct rk_index *idx, int type, const char *path, const char *link, uint64_t size,
		int64_t mtime, uint32_t mode, const char *blob)
{
	struct rk_member m = {0};

	m.type = (uint8_t)type;
	m.path = (char *)path;
	m.link = (char *)link;
	m.size = size;
	m.mtime = mtime;
	m.mode = mode;
	snprintf(m.blob, sizeof(m.blob), "%s", blob ? blob : "");
	RK_ASSERT_EQ_INT(0, rk_index_add(idx, &m));
}

/* An index with every member type and the edge values of each field. */
static void sample(struct rk_index *idx)
{
	memset(idx, 0, sizeof(*idx));
	RK_ASSERT_EQ_INT(0, rk_index_add_prefix(idx, "p1/stage"));
	RK_ASSERT_EQ_INT(0, rk_index_add_prefix(idx, "math-libs/BLAS/rocBLAS/stage"));
	idx->archive_size = 0x123456789abcull;
	memcpy(idx->archive_sha256, BLOB_B, RK_SHA256_HEX);
	add(idx, RK_MEMBER_FILE, "artifact_manifest.txt", NULL, 9, 1767225600, 0644, BLOB_A);
	add(idx, RK_MEMBER_DIR, "p1", NULL, 0, 0, 0755, NULL);
	add(idx, RK_MEMBER_DIR, "p1/stage/lib", NULL, 0, -1, 01777, NULL);
	add(idx, RK_MEMBER_FILE, "p1/stage/lib/libx.so.1", NULL, UINT64_MAX, INT64_MIN, 0755,
	    BLOB_B);
	add(idx, RK_MEMBER_FILE, "p1/stage/empty", NULL, 0, INT64_MAX, 0, NULL);
	add(idx, RK_MEMBER_SYMLINK, "p1/stage/lib/libx.so", "libx.so.1", 9, 5, 0777, NULL);
	add(idx, RK_MEMBER_HARDLINK, "p1/stage/lib/libx-copy.so.1", "p1/stage/lib/libx.so.1",
	    UINT64_MAX, 7, 0755, BLOB_B);
	add(idx, RK_MEMBER_HARDLINK, "p1/stage/empty2", "p1/stage/empty", 0, 7, 0600, NULL);
}

static void assert_same(const struct rk_index *a, const struct rk_index *b)
{
	RK_ASSERT_EQ_INT(a->archive_size, b->archive_size);
	RK_ASSERT_EQ_STR(a->archive_sha256, b->archive_sha256);
	RK_ASSERT_EQ_INT(a->nprefixes, b->nprefixes);
	for (size_t i = 0; i < a->nprefixes; i++)
		RK_ASSERT_EQ_STR(a->prefixes[i], b->prefixes[i]);
	RK_ASSERT_EQ_INT(a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		const struct rk_member *x = &a->v[i], *y = &b->v[i];

		RK_ASSERT_EQ_STR(x->path, y->path);
		RK_ASSERT_EQ_STR(x->link, y->link);
		RK_ASSERT_EQ_INT(x->type, y->type);
		RK_ASSERT_EQ_INT(x->mode, y->mode);
		RK_ASSERT_EQ_INT(x->size, y->size);
		RK_ASSERT_EQ_INT(x->mtime, y->mtime);
		RK_ASSERT_EQ_STR(x->blob, y->blob);
	}
}

static struct rk_buf serialize(const struct rk_index *idx)
{
	struct rk_buf b = RK_BUF_INIT;

	RK_ASSERT_EQ_INT(0, rk_index_serialize(idx, &b));
	return b;
}

static int parse(const void *data, size_t len)
{
	struct rk_index idx;
	struct rk_err err = RK_ERR_INIT;
	int rc = rk_index_parse(data, len, &idx, &err);

	if (!rc)
		rk_index_release(&idx);
	else
		RK_ASSERT_EQ_INT(rc, err.code);
	return rc;
}

/* Serialize idx (released), check that parse rejects it with -EBADMSG. */
static void expect_rejected(struct rk_index *idx, int line)
{
	struct rk_buf b = serialize(idx);
	int rc = parse(b.buf, b.len);

	rk_index_release(idx);
	rk_buf_release(&b);
	if (rc != -EBADMSG)
		rk_test_fail(__FILE__, line, "parse returned %d, want -EBADMSG", rc);
}

RK_TEST(round_trip_all_member_types)
{
	struct rk_index idx, back;
	struct rk_buf b, b2;

	sample(&idx);
	b = serialize(&idx);
	RK_ASSERT_EQ_MEM("RKIX\1\0\0\0", b.buf, 8);
	RK_ASSERT_EQ_INT(0, rk_index_parse(b.buf, b.len, &back, NULL));
	assert_same(&idx, &back);
	/* and the bytes are stable */
	b2 = serialize(&back);
	RK_ASSERT_EQ_INT(b.len, b2.len);
	RK_ASSERT_EQ_MEM(b.buf, b2.buf, b.len);
	rk_buf_release(&b);
	rk_buf_release(&b2);
	rk_index_release(&idx);
	rk_index_release(&back);
}

RK_TEST(round_trip_empty_index)
{
	struct rk_index idx = {0}, back;
	struct rk_buf b = serialize(&idx);

	RK_ASSERT_EQ_INT(HEADER, b.len);
	RK_ASSERT_EQ_INT(0, rk_index_parse(b.buf, b.len, &back, NULL));
	RK_ASSERT_EQ_INT(0, back.n);
	RK_ASSERT_EQ_INT(0, back.nprefixes);
	RK_ASSERT_EQ_STR("", back.archive_sha256);
	rk_index_release(&back);
	rk_buf_release(&b);
}

RK_TEST(round_trip_many_members)
{
	struct rk_index idx = {0}, back;
	struct rk_buf b;
	char path[64];

	for (int i = 0; i < 1000; i++) {
		snprintf(path, sizeof(path), "d%d/f%d", i % 7, i);
		add(&idx, RK_MEMBER_FILE, path, NULL, (uint64_t)i, i, 0644, i ? BLOB_A : NULL);
	}
	RK_ASSERT(idx.cap >= idx.n);
	b = serialize(&idx);
	RK_ASSERT_EQ_INT(0, rk_index_parse(b.buf, b.len, &back, NULL));
	assert_same(&idx, &back);
	rk_index_release(&idx);
	rk_index_release(&back);
	rk_buf_release(&b);
}

RK_TEST(parse_rejects_every_truncation)
{
	struct rk_index idx;
	struct rk_buf b;

	sample(&idx);
	b = serialize(&idx);
	for (size_t len = 0; len < b.len; len++) {
		/* a copy of exactly len bytes, so ASan sees any overread */
		char *p = malloc(len ? len : 1);
		int rc;

		memcpy(p, b.buf, len);
		rc = parse(p, len);
		free(p);
		if (rc != -EBADMSG)
			rk_test_fail(__FILE__, __LINE__, "truncated to %zu of %zu bytes: %d", len,
				     b.len, rc);
	}
	RK_ASSERT_EQ_INT(0, parse(b.buf, b.len));
	rk_buf_release(&b);
	rk_index_release(&idx);
}

RK_TEST(parse_rejects_trailing_bytes)
{
	struct rk_index idx;
	struct rk_buf b;

	sample(&idx);
	b = serialize(&idx);
	RK_ASSERT_EQ_INT(0, rk_buf_add(&b, "\0", 1));
	RK_ASSERT_EQ_INT(-EBADMSG, parse(b.buf, b.len));
	rk_buf_release(&b);
	rk_index_release(&idx);
}

RK_TEST(parse_rejects_bad_magic_and_version)
{
	struct rk_index idx = {0};
	struct rk_buf b = serialize(&idx);

	b.buf[0] = 'r';
	RK_ASSERT_EQ_INT(-EBADMSG, parse(b.buf, b.len));
	b.buf[0] = 'R';
	RK_ASSERT_EQ_INT(0, parse(b.buf, b.len));
	b.buf[4] = 2; /* version 2 */
	RK_ASSERT_EQ_INT(-EBADMSG, parse(b.buf, b.len));
	b.buf[4] = 0;
	RK_ASSERT_EQ_INT(-EBADMSG, parse(b.buf, b.len));
	b.buf[4] = 1;
	b.buf[7] = 1; /* 0x01000001 */
	RK_ASSERT_EQ_INT(-EBADMSG, parse(b.buf, b.len));
	rk_buf_release(&b);
	RK_ASSERT_EQ_INT(-EBADMSG, parse("RKIY", 4));
	RK_ASSERT_EQ_INT(-EBADMSG, parse("", 0));
}

RK_TEST(parse_rejects_bad_archive_sha)
{
	struct rk_index idx = {0};
	struct rk_buf b;

	memcpy(idx.archive_sha256, BLOB_A, RK_SHA256_HEX);
	b = serialize(&idx);
	RK_ASSERT_EQ_INT(0, parse(b.buf, b.len));
	b.buf[16 + 10] = 'G'; /* not hex */
	RK_ASSERT_EQ_INT(-EBADMSG, parse(b.buf, b.len));
	b.buf[16 + 10] = 'A'; /* upper case is not the canonical form */
	RK_ASSERT_EQ_INT(-EBADMSG, parse(b.buf, b.len));
	b.buf[16 + 10] = '\0';
	RK_ASSERT_EQ_INT(-EBADMSG, parse(b.buf, b.len));
	rk_buf_release(&b);
}

RK_TEST(parse_rejects_non_normalized_paths)
{
	static const char *const bad[] = {"/abs", "a//b",   "a/",   "./a", "a/./b",
					  "..",	  "a/../b", "a/..", "."};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rk_index idx = {0};

		add(&idx, RK_MEMBER_DIR, bad[i], NULL, 0, 0, 0755, NULL);
		expect_rejected(&idx, __LINE__);
		memset(&idx, 0, sizeof(idx));
		RK_ASSERT_EQ_INT(0, rk_index_add_prefix(&idx, bad[i]));
		expect_rejected(&idx, __LINE__);
	}
}

/* an index an older rockfs wrote with names ingest now refuses: corrupt, so the archive
 * is ingested again and the names refused with a line each */
RK_TEST(parse_rejects_unwritable_member_names)
{
	static const char *const bad[] = {"a/ctl\x01", "a/new\nline", "bad\xffname"};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rk_index idx = {0};

		add(&idx, RK_MEMBER_FILE, bad[i], NULL, 0, 0, 0644, NULL);
		expect_rejected(&idx, __LINE__);
	}
}

RK_TEST(parse_rejects_empty_and_long_paths)
{
	struct rk_index idx = {0};
	char *longp = malloc(RK_INDEX_MAX_PATH + 2);

	add(&idx, RK_MEMBER_DIR, "", NULL, 0, 0, 0755, NULL);
	expect_rejected(&idx, __LINE__);
	memset(&idx, 0, sizeof(idx));
	RK_ASSERT_EQ_INT(0, rk_index_add_prefix(&idx, ""));
	expect_rejected(&idx, __LINE__);
	/* RK_PATH_OUT_MAX bytes is the longest accepted path (ingest refuses longer ones:
	 * rk_path_unwritable), in components of at most 255 bytes */
	for (size_t i = 0; i < RK_PATH_OUT_MAX; i++)
		longp[i] = i % 200 == 199 ? '/' : 'x';
	longp[RK_PATH_OUT_MAX] = '\0';
	memset(&idx, 0, sizeof(idx));
	add(&idx, RK_MEMBER_DIR, longp, NULL, 0, 0, 0755, NULL);
	{
		struct rk_buf b = serialize(&idx);

		RK_ASSERT_EQ_INT(0, parse(b.buf, b.len));
		rk_buf_release(&b);
	}
	rk_index_release(&idx);
	longp[RK_PATH_OUT_MAX] = 'x';
	longp[RK_PATH_OUT_MAX + 1] = '\0';
	add(&idx, RK_MEMBER_DIR, longp, NULL, 0, 0, 0755, NULL);
	expect_rejected(&idx, __LINE__);
	memset(longp, 'x', RK_INDEX_MAX_PATH + 1);
	longp[RK_INDEX_MAX_PATH + 1] = '\0';
	add(&idx, RK_MEMBER_DIR, longp, NULL, 0, 0, 0755, NULL);
	expect_rejected(&idx, __LINE__);
	free(longp);
}

RK_TEST(parse_rejects_nul_in_path)
{
	struct rk_index idx = {0};
	struct rk_buf b;
	char *p;

	add(&idx, RK_MEMBER_DIR, "abcd", NULL, 0, 0, 0755, NULL);
	b = serialize(&idx);
	p = memmem(b.buf, b.len, "abcd", 4);
	RK_ASSERT(p != NULL);
	p[2] = '\0';
	RK_ASSERT_EQ_INT(-EBADMSG, parse(b.buf, b.len));
	rk_buf_release(&b);
	rk_index_release(&idx);
}

RK_TEST(parse_rejects_blob_flag_mismatch)
{
	struct rk_index idx = {0};

	/* an empty file with a blob */
	add(&idx, RK_MEMBER_FILE, "f", NULL, 0, 0, 0644, BLOB_A);
	expect_rejected(&idx, __LINE__);
	/* a directory with a blob */
	add(&idx, RK_MEMBER_DIR, "d", NULL, 0, 0, 0755, BLOB_A);
	expect_rejected(&idx, __LINE__);
	/* a symlink with a blob */
	add(&idx, RK_MEMBER_SYMLINK, "l", "t", 1, 0, 0777, BLOB_A);
	expect_rejected(&idx, __LINE__);
}

/* A file or hardlink with content but no blob: a member the cache could not hold
 * (ingest.c refuses it; its reads fail), kept as such. */
RK_TEST(parse_accepts_refused_member)
{
	struct rk_index idx = {0};
	struct rk_buf b;

	add(&idx, RK_MEMBER_FILE, "f", NULL, 10, 0, 0644, NULL);
	add(&idx, RK_MEMBER_HARDLINK, "h", "f", 10, 0, 0644, NULL);
	b = serialize(&idx);
	RK_ASSERT_EQ_INT(0, parse(b.buf, b.len));
	rk_index_release(&idx);
	rk_buf_release(&b);
}

RK_TEST(parse_rejects_blob_flag_values)
{
	struct rk_index idx = {0};
	struct rk_buf b;
	size_t flag = HEADER + 1 + 4 + 8 + 8;

	add(&idx, RK_MEMBER_FILE, "f", NULL, 3, 0, 0644, BLOB_A);
	b = serialize(&idx);
	RK_ASSERT_EQ_INT(1, b.buf[flag]);
	RK_ASSERT_EQ_INT(0, parse(b.buf, b.len));
	b.buf[flag] = 2;
	RK_ASSERT_EQ_INT(-EBADMSG, parse(b.buf, b.len));
	b.buf[flag] = (char)0xff;
	RK_ASSERT_EQ_INT(-EBADMSG, parse(b.buf, b.len));
	rk_buf_release(&b);
	rk_index_release(&idx);
}

RK_TEST(parse_rejects_link_mismatch)
{
	struct rk_index idx = {0};

	add(&idx, RK_MEMBER_SYMLINK, "l", NULL, 0, 0, 0777, NULL);
	expect_rejected(&idx, __LINE__);
	add(&idx, RK_MEMBER_HARDLINK, "h", NULL, 0, 0, 0644, NULL);
	expect_rejected(&idx, __LINE__);
	add(&idx, RK_MEMBER_FILE, "f", "target", 0, 0, 0644, NULL);
	expect_rejected(&idx, __LINE__);
	add(&idx, RK_MEMBER_DIR, "d", "target", 0, 0, 0755, NULL);
	expect_rejected(&idx, __LINE__);
}

RK_TEST(parse_rejects_bad_type_and_mode)
{
	static const int types[] = {0, 5, 255};

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		struct rk_index idx = {0};

		add(&idx, types[i], "x", NULL, 0, 0, 0644, NULL);
		expect_rejected(&idx, __LINE__);
	}
	{
		struct rk_index idx = {0};

		add(&idx, RK_MEMBER_FILE, "x", NULL, 0, 0, 0100644, NULL); /* S_IFREG bits */
		expect_rejected(&idx, __LINE__);
	}
}

RK_TEST(parse_rejects_huge_counts_without_allocating)
{
	struct rk_index idx = {0};
	struct rk_buf b = serialize(&idx);

	/* nmembers = 0xffffffff with no data: rejected at once (no 16M-member calloc) */
	memset(b.buf + 84, 0xff, 4);
	RK_ASSERT_EQ_INT(-EBADMSG, parse(b.buf, b.len));
	memset(b.buf + 84, 0, 4);
	memset(b.buf + 80, 0xff, 4); /* nprefixes */
	RK_ASSERT_EQ_INT(-EBADMSG, parse(b.buf, b.len));
	memset(b.buf + 80, 0, 4);
	b.buf[80] = 1; /* one prefix promised, none there */
	RK_ASSERT_EQ_INT(-EBADMSG, parse(b.buf, b.len));
	rk_buf_release(&b);
}

RK_TEST(parse_rejects_string_length_past_end)
{
	struct rk_index idx = {0};
	struct rk_buf b;
	size_t lenpos = HEADER + 1 + 4 + 8 + 8 + 1;

	add(&idx, RK_MEMBER_DIR, "d", NULL, 0, 0, 0755, NULL);
	b = serialize(&idx);
	RK_ASSERT_EQ_INT(1, b.buf[lenpos]);
	memset(b.buf + lenpos, 0xff, 4);
	RK_ASSERT_EQ_INT(-EBADMSG, parse(b.buf, b.len));
	b.buf[lenpos] = 2;
	memset(b.buf + lenpos + 1, 0, 3);
	RK_ASSERT_EQ_INT(-EBADMSG, parse(b.buf, b.len));
	rk_buf_release(&b);
	rk_index_release(&idx);
}

RK_TEST(add_copies_strings)
{
	struct rk_index idx = {0};
	char path[] = "a/b", link[] = "c";
	struct rk_member m = {.path = path, .link = link, .type = RK_MEMBER_SYMLINK};

	RK_ASSERT_EQ_INT(0, rk_index_add(&idx, &m));
	path[0] = 'X';
	link[0] = 'Y';
	RK_ASSERT_EQ_STR("a/b", idx.v[0].path);
	RK_ASSERT_EQ_STR("c", idx.v[0].link);
	RK_ASSERT(idx.v[0].path != path);
	rk_index_release(&idx);
	RK_ASSERT(idx.v == NULL && idx.n == 0 && idx.prefixes == NULL);
	rk_index_release(&idx); /* twice is fine */
}

/* ---- artifact_manifest.txt ---- */

static int manifest(struct rk_index *idx, const char *text)
{
	memset(idx, 0, sizeof(*idx));
	return rk_index_parse_manifest(idx, text, strlen(text), NULL);
}

RK_TEST(manifest_lines)
{
	struct rk_index idx;

	RK_ASSERT_EQ_INT(0, manifest(&idx, "math-libs/BLAS/hipBLAS-common/stage\n"
					   "math-libs/BLAS/rocBLAS/stage\n"));
	RK_ASSERT_EQ_INT(2, idx.nprefixes);
	RK_ASSERT_EQ_STR("math-libs/BLAS/hipBLAS-common/stage", idx.prefixes[0]);
	RK_ASSERT_EQ_STR("math-libs/BLAS/rocBLAS/stage", idx.prefixes[1]);
	rk_index_release(&idx);
	/* no trailing newline */
	RK_ASSERT_EQ_INT(0, manifest(&idx, "a/stage\nb/stage"));
	RK_ASSERT_EQ_INT(2, idx.nprefixes);
	RK_ASSERT_EQ_STR("b/stage", idx.prefixes[1]);
	rk_index_release(&idx);
}

RK_TEST(manifest_blank_lines_and_crlf)
{
	struct rk_index idx;

	RK_ASSERT_EQ_INT(0, manifest(&idx, "\n\na/stage\r\n\r\n  \n\t\nb/stage\r\n\n"));
	RK_ASSERT_EQ_INT(2, idx.nprefixes);
	RK_ASSERT_EQ_STR("a/stage", idx.prefixes[0]);
	RK_ASSERT_EQ_STR("b/stage", idx.prefixes[1]);
	rk_index_release(&idx);
	RK_ASSERT_EQ_INT(0, manifest(&idx, ""));
	RK_ASSERT_EQ_INT(0, idx.nprefixes);
	RK_ASSERT_EQ_INT(0, manifest(&idx, "\n\r\n"));
	RK_ASSERT_EQ_INT(0, idx.nprefixes);
}

RK_TEST(manifest_bad_prefixes)
{
	static const char *const bad[] = {"/abs/stage\n", "./a\n",    "a/\n",
					  "a//b\n",	  "a/../b\n", "..\n",
					  "a/./b\n",	  ".\n",      "ok\n/bad\n"};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rk_index idx;
		struct rk_err err = RK_ERR_INIT;

		memset(&idx, 0, sizeof(idx));
		if (rk_index_parse_manifest(&idx, bad[i], strlen(bad[i]), &err) != -EPROTO)
			rk_test_fail(__FILE__, __LINE__, "'%s' should be -EPROTO", bad[i]);
		RK_ASSERT(err.msg[0] != '\0');
		rk_index_release(&idx);
	}
}

RK_TEST(manifest_nul_and_long_lines)
{
	struct rk_index idx = {0};
	static const char nul[] = "a/stage\nb\0c\n";
	char *longl = malloc(RK_INDEX_MAX_PATH + 3);

	RK_ASSERT_EQ_INT(-EPROTO, rk_index_parse_manifest(&idx, nul, sizeof(nul) - 1, NULL));
	rk_index_release(&idx);
	memset(longl, 'x', RK_INDEX_MAX_PATH);
	longl[RK_INDEX_MAX_PATH] = '\n';
	RK_ASSERT_EQ_INT(0, rk_index_parse_manifest(&idx, longl, RK_INDEX_MAX_PATH + 1, NULL));
	RK_ASSERT_EQ_INT(1, idx.nprefixes);
	rk_index_release(&idx);
	longl[RK_INDEX_MAX_PATH] = 'x';
	longl[RK_INDEX_MAX_PATH + 1] = '\n';
	RK_ASSERT_EQ_INT(-EPROTO,
			 rk_index_parse_manifest(&idx, longl, RK_INDEX_MAX_PATH + 2, NULL));
	rk_index_release(&idx);
	free(longl);
}

RK_TEST(manifest_prefixes_survive_round_trip)
{
	struct rk_index idx, back;
	struct rk_buf b;

	RK_ASSERT_EQ_INT(0, manifest(&idx, "a/stage\nb c/stage\n"));
	b = serialize(&idx);
	RK_ASSERT_EQ_INT(0, rk_index_parse(b.buf, b.len, &back, NULL));
	assert_same(&idx, &back);
	rk_buf_release(&b);
	rk_index_release(&idx);
	rk_index_release(&back);
}
