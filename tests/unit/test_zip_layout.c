/* test_zip_layout.c: synthesized zips, read back by rk_wheel_metadata and by libarchive. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <libdeflate.h>

#include "util/le.h"
#include "rk/cache.h"
#include "rk/wheel.h"
#include "rk_fixture.h"
#include "rk_test.h"
#include "formats/archive/zip_layout.h"

#define GIB (1ull << 30)
#define META "Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n\n"
#define FAKE_ID "abababababababababababababababababababababababababababababababab"

static struct rk_cache *open_cache(void)
{
	struct rk_cache *c = NULL;
	struct rk_err err = RK_ERR_INIT;
	int rc = rk_cache_open("cache", 0, &c, &err);

	if (rc)
		rk_test_fail(__FILE__, __LINE__, "rk_cache_open: %s", rk_err_str(&err, rc));
	return c;
}

static uint32_t crc_of(const void *data, size_t len)
{
	return libdeflate_crc32(0, data, len);
}

static struct rk_zip_member data_member(const char *name, const char *data)
{
	struct rk_zip_member m = {name, S_IFREG | 0644, strlen(data), crc_of(data, strlen(data)),
				  NULL, data,		NULL};

	return m;
}

/* Every piece in order, without gaps; source pieces whole blobs; arena bytes in range. */
static void check_segments(const struct rk_composite *l)
{
	uint64_t off = 0;

	for (size_t i = 0; i < l->npieces; i++) {
		const struct rk_piece *s = &l->pieces[i];

		RK_ASSERT_EQ_INT(off, s->off);
		RK_ASSERT(s->len > 0);
		if (s->kind == RK_PIECE_SOURCE) {
			RK_ASSERT(s->src < l->nsources);
			RK_ASSERT_EQ_INT(0, s->at);
			RK_ASSERT_EQ_INT(s->len, l->sources[s->src].size);
		} else {
			RK_ASSERT_EQ_INT(RK_PIECE_BYTES, s->kind);
			RK_ASSERT(s->at + s->len <= l->arena_len);
		}
		off += s->len;
	}
	RK_ASSERT_EQ_INT(off, l->size);
	/* the archive ends with arena bytes: the central directory and end records */
	RK_ASSERT(l->npieces && l->pieces[l->npieces - 1].kind == RK_PIECE_BYTES);
}

/* The whole archive in memory: arena bytes and blob contents from c. */
static unsigned char *materialize(const struct rk_composite *l, struct rk_cache *c)
{
	unsigned char *z = malloc(l->size ? l->size : 1);

	RK_ASSERT(z != NULL);
	for (size_t i = 0; i < l->npieces; i++) {
		const struct rk_piece *s = &l->pieces[i];
		const struct rk_source *so = &l->sources[s->src];
		struct rk_err err = RK_ERR_INIT;
		int fd = -1;

		if (s->kind == RK_PIECE_BYTES) {
			memcpy(z + s->off, l->arena + s->at, s->len);
			continue;
		}
		RK_ASSERT_EQ_INT(0, rk_blob_open(c, so->id, so->size, &fd, &err));
		RK_ASSERT_EQ_INT((ssize_t)s->len, pread(fd, z + s->off, s->len, (off_t)s->at));
		close(fd);
	}
	return z;
}

/* The arena bytes at archive offset off (which must be in a literal piece). */
static const unsigned char *at(const struct rk_composite *l, uint64_t off)
{
	const struct rk_piece *s = rk_composite_find(l, off);

	RK_ASSERT(s && s->kind == RK_PIECE_BYTES && off < s->off + s->len);
	return (const unsigned char *)l->arena + s->at + (off - s->off);
}

/* The blobs' bytes read as zeros (for layout_pread). */
static ssize_t zero_source(void *ctx, uint32_t src, void *buf, size_t n, uint64_t off)
{
	(void)ctx, (void)src, (void)off;
	memset(buf, 0, n);
	return (ssize_t)n;
}

/* rk_pread_fn over a zip without its blobs: their bytes read as zeros (the reader
 * searches the last 64 KiB for the end record, and must not need them otherwise). */
static ssize_t layout_pread(void *ctx, void *buf, size_t n, uint64_t off)
{
	return rk_composite_pread(ctx, zero_source, NULL, buf, n, off);
}

/* Read the zip with libarchive and compare every entry with m[0..n). */
static void check_libarchive(const unsigned char *z, uint64_t size, const struct rk_zip_member *m,
			     size_t n, const void *const *content)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	size_t i = 0;
	int rc;

	RK_ASSERT(a != NULL);
	RK_ASSERT_EQ_INT(ARCHIVE_OK, archive_read_support_format_zip(a));
	RK_ASSERT_EQ_INT(ARCHIVE_OK, archive_read_open_memory(a, z, (size_t)size));
	while ((rc = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		char *got;

		if (i >= n)
			rk_test_fail(__FILE__, __LINE__, "extra entry '%s'",
				     archive_entry_pathname(e));
		RK_ASSERT_EQ_STR(m[i].name, archive_entry_pathname(e));
		RK_ASSERT_EQ_INT(m[i].size, archive_entry_size(e));
		RK_ASSERT_EQ_INT(m[i].mode, archive_entry_mode(e));
		RK_ASSERT_EQ_INT(FX_MTIME, archive_entry_mtime(e));
		got = malloc(m[i].size + 1);
		RK_ASSERT((ssize_t)m[i].size == archive_read_data(a, got, (size_t)m[i].size + 1));
		RK_ASSERT_EQ_MEM(content[i], got, (size_t)m[i].size);
		free(got);
		i++;
	}
	if (rc != ARCHIVE_EOF)
		rk_test_fail(__FILE__, __LINE__, "libarchive: %s", archive_error_string(a));
	RK_ASSERT_EQ_INT(n, i);
	archive_read_free(a);
}

static void utc(void)
{
	/* libarchive turns DOS times into time_t in local time */
	setenv("TZ", "UTC0", 1);
	tzset();
}

RK_TEST(zip_layout_blobs_and_data_read_back)
{
	struct rk_cache *c = open_cache();
	struct rk_err err = RK_ERR_INIT;
	static char big[200000];
	char id_big[RK_SHA256_HEX], id_empty[RK_SHA256_HEX];
	struct rk_zip_member m[5];
	const void *content[5];
	struct rk_composite l;
	struct rk_origin origin = {NULL};
	unsigned char *z;
	uint64_t size;
	size_t len, nblob = 0;
	char *meta = NULL;

	utc();
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (char)(i * 7 + i / 251);
	RK_ASSERT_EQ_INT(0, rk_blob_put(c, big, sizeof(big), id_big, &err));
	RK_ASSERT_EQ_INT(0, rk_blob_put(c, "", 0, id_empty, &err));
	m[0] = data_member("pkg/__init__.py", "print('hi')\n");
	m[1] = (struct rk_zip_member){
		"pkg/lib/libfoo.so", S_IFREG | 0755, sizeof(big), 0, id_big, NULL, &origin};
	RK_ASSERT_EQ_INT(0, rk_blob_crc32(c, id_big, sizeof(big), &m[1].crc, &err));
	RK_ASSERT_EQ_INT(crc_of(big, sizeof(big)), m[1].crc);
	m[2] = (struct rk_zip_member){"pkg/empty.txt", S_IFREG | 0644, 0, 0, id_empty, NULL, NULL};
	m[3] = data_member("pkg/py.typed", "");
	m[4] = data_member("pkg-1.0.dist-info/METADATA", META);
	content[0] = m[0].data;
	content[1] = big;
	content[2] = "";
	content[3] = "";
	content[4] = META;

	RK_ASSERT_EQ_INT(0, rk_zip_layout_build(m, 5, FX_MTIME, &l));
	check_segments(&l);
	for (size_t i = 0; i < l.npieces; i++) {
		if (l.pieces[i].kind != RK_PIECE_SOURCE)
			continue;
		/* only the non-empty blob member has a piece */
		RK_ASSERT_EQ_STR(id_big, l.sources[l.pieces[i].src].id);
		RK_ASSERT(l.sources[l.pieces[i].src].origin == &origin);
		RK_ASSERT_EQ_INT(sizeof(big), l.pieces[i].len);
		nblob++;
	}
	RK_ASSERT_EQ_INT(1, nblob);
	RK_ASSERT_EQ_INT(0, rk_zip_layout_size(m, 5, &size));
	RK_ASSERT_EQ_INT(l.size, size);

	z = materialize(&l, c);
	/* the first local header, field by field */
	RK_ASSERT_EQ_INT(RK_ZIP_SIG_LOCAL, rk_le32(z));
	RK_ASSERT_EQ_INT(20, rk_le16(z + 4));
	RK_ASSERT_EQ_INT(0x0800, rk_le16(z + 6));
	RK_ASSERT_EQ_INT(0, rk_le16(z + 8));
	RK_ASSERT_EQ_INT(0, rk_le16(z + 10)); /* 00:00:00 */
	RK_ASSERT_EQ_INT((2026 - 1980) << 9 | 1 << 5 | 1, rk_le16(z + 12));
	RK_ASSERT_EQ_INT(m[0].crc, rk_le32(z + 14));
	RK_ASSERT_EQ_INT(12, rk_le32(z + 18));
	RK_ASSERT_EQ_INT(12, rk_le32(z + 22));
	RK_ASSERT_EQ_INT(15, rk_le16(z + 26));
	RK_ASSERT_EQ_INT(0, rk_le16(z + 28));
	RK_ASSERT_EQ_MEM("pkg/__init__.py", z + 30, 15);
	RK_ASSERT_EQ_MEM("print('hi')\n", z + 45, 12);
	/* no zip64 end records: the end record directly follows the central directory */
	RK_ASSERT_EQ_INT(RK_ZIP_SIG_EOCD, rk_le32(z + l.size - RK_ZIP_EOCD_LEN));
	RK_ASSERT_EQ_INT(5, rk_le16(z + l.size - RK_ZIP_EOCD_LEN + 10));
	RK_ASSERT_EQ_INT(RK_ZIP_SIG_CDIR, rk_le32(z + rk_le32(z + l.size - RK_ZIP_EOCD_LEN + 16)));

	/* (a) our own reader (it checks the CRC) */
	RK_ASSERT_EQ_INT(0,
			 rk_wheel_metadata_mem(z, l.size, "pkg-1.0.dist-info", &meta, &len, &err));
	RK_ASSERT_EQ_STR(META, meta);
	free(meta);
	/* (b) libarchive */
	check_libarchive(z, l.size, m, 5, content);

	free(z);
	rk_composite_release(&l);
	rk_cache_close(c);
}

RK_TEST(zip_layout_empty_archive)
{
	struct rk_composite l;
	uint64_t size;

	RK_ASSERT_EQ_INT(0, rk_zip_layout_build(NULL, 0, FX_MTIME, &l));
	check_segments(&l);
	RK_ASSERT_EQ_INT(RK_ZIP_EOCD_LEN, l.size);
	RK_ASSERT_EQ_INT(RK_ZIP_SIG_EOCD, rk_le32(at(&l, 0)));
	RK_ASSERT_EQ_INT(0, rk_zip_layout_size(NULL, 0, &size));
	RK_ASSERT_EQ_INT(RK_ZIP_EOCD_LEN, size);
	check_libarchive((const unsigned char *)l.arena, l.size, NULL, 0, NULL);
	rk_composite_release(&l);
}

static void check_dos_time(int64_t mtime, unsigned want_time, unsigned want_date)
{
	struct rk_zip_member m = data_member("a", "x");
	struct rk_composite l;
	const unsigned char *cd;

	RK_ASSERT_EQ_INT(0, rk_zip_layout_build(&m, 1, mtime, &l));
	RK_ASSERT_EQ_INT(want_time, rk_le16(at(&l, 10)));
	RK_ASSERT_EQ_INT(want_date, rk_le16(at(&l, 12)));
	cd = at(&l, RK_ZIP_LOCAL_LEN + 1 + 1);
	RK_ASSERT_EQ_INT(RK_ZIP_SIG_CDIR, rk_le32(cd));
	RK_ASSERT_EQ_INT(want_time, rk_le16(cd + 12));
	RK_ASSERT_EQ_INT(want_date, rk_le16(cd + 14));
	rk_composite_release(&l);
}

RK_TEST(zip_layout_dos_time)
{
	/* 2026-01-01 00:00:03 UTC: two-second resolution, rounded down */
	check_dos_time(FX_MTIME + 3, 1, (2026 - 1980) << 9 | 1 << 5 | 1);
	/* 2001-09-09 01:46:40 UTC */
	check_dos_time(1000000000, 1 << 11 | 46 << 5 | 20, (2001 - 1980) << 9 | 9 << 5 | 9);
	/* before 1980: 1980-01-01 00:00:00 */
	check_dos_time(0, 0, 1 << 5 | 1);
	check_dos_time(-5000000000LL, 0, 1 << 5 | 1);
	check_dos_time(315532799, 0, 1 << 5 | 1);
	/* after 2107: 2107-12-31 23:59:58 */
	check_dos_time(INT64_MAX, 23 << 11 | 59 << 5 | 29, 127 << 9 | 12 << 5 | 31);
	check_dos_time(4354819199LL, 23 << 11 | 59 << 5 | 29, 127 << 9 | 12 << 5 | 31);
}

/* (c) A 5 GiB blob member, checked from the segments and the arena alone. */
RK_TEST(zip_layout_zip64_large_member)
{
	struct rk_zip_member m[2];
	const uint64_t big = 5 * GIB + 3;
	const uint64_t lh0 = RK_ZIP_LOCAL_LEN + 12 + 20; /* "big/blob.bin" + zip64 extra */
	const uint64_t lh1 = lh0 + big; /* the second local header: past 4 GiB */
	const uint64_t cdir = lh1 + RK_ZIP_LOCAL_LEN + 26 + strlen(META);
	const uint64_t cdir_len = (RK_ZIP_CDIR_LEN + 12 + 20) + (RK_ZIP_CDIR_LEN + 26 + 12);
	struct rk_err err = RK_ERR_INIT;
	const unsigned char *p;
	struct rk_composite l;
	char *meta = NULL;
	uint64_t size;
	size_t len;
	struct rk_origin origin = {NULL};

	m[0] = (struct rk_zip_member){"big/blob.bin", S_IFREG | 0644, big,    0x12345678,
				      FAKE_ID,	      NULL,	      &origin};
	m[1] = data_member("pkg-1.0.dist-info/METADATA", META);
	RK_ASSERT_EQ_INT(0, rk_zip_layout_build(m, 2, FX_MTIME, &l));
	check_segments(&l);
	RK_ASSERT_EQ_INT(3, l.npieces);
	RK_ASSERT_EQ_INT(cdir + cdir_len + RK_ZIP64_EOCD_LEN + RK_ZIP64_LOC_LEN + RK_ZIP_EOCD_LEN,
			 l.size);
	RK_ASSERT_EQ_INT(0, rk_zip_layout_size(m, 2, &size));
	RK_ASSERT_EQ_INT(l.size, size);
	RK_ASSERT_EQ_INT(l.size - lh1 + lh0, l.arena_len);

	/* the segments: header bytes, the whole blob, then arena bytes to the end */
	RK_ASSERT_EQ_INT(RK_PIECE_BYTES, l.pieces[0].kind);
	RK_ASSERT_EQ_INT(lh0, l.pieces[0].len);
	RK_ASSERT_EQ_INT(RK_PIECE_SOURCE, l.pieces[1].kind);
	RK_ASSERT_EQ_INT(lh0, l.pieces[1].off);
	RK_ASSERT_EQ_INT(big, l.pieces[1].len);
	RK_ASSERT_EQ_INT(big, l.sources[l.pieces[1].src].size);
	RK_ASSERT_EQ_STR(FAKE_ID, l.sources[l.pieces[1].src].id);
	RK_ASSERT(l.sources[l.pieces[1].src].origin == &origin);
	RK_ASSERT_EQ_INT(lh1, l.pieces[2].off);

	/* local header 0: both sizes 0xffffffff, the zip64 extra holds them */
	p = at(&l, 0);
	RK_ASSERT_EQ_INT(RK_ZIP_SIG_LOCAL, rk_le32(p));
	RK_ASSERT_EQ_INT(45, rk_le16(p + 4));
	RK_ASSERT_EQ_INT(0x12345678, rk_le32(p + 14));
	RK_ASSERT_EQ_INT(0xffffffffu, rk_le32(p + 18));
	RK_ASSERT_EQ_INT(0xffffffffu, rk_le32(p + 22));
	RK_ASSERT_EQ_INT(12, rk_le16(p + 26));
	RK_ASSERT_EQ_INT(20, rk_le16(p + 28));
	RK_ASSERT_EQ_MEM("big/blob.bin", p + 30, 12);
	RK_ASSERT_EQ_INT(1, rk_le16(p + 42));
	RK_ASSERT_EQ_INT(16, rk_le16(p + 44));
	RK_ASSERT_EQ_INT(big, rk_le64(p + 46));
	RK_ASSERT_EQ_INT(big, rk_le64(p + 54));
	/* local header 1: small, no extra; zip64 only in its central entry (the offset) */
	p = at(&l, lh1);
	RK_ASSERT_EQ_INT(RK_ZIP_SIG_LOCAL, rk_le32(p));
	RK_ASSERT_EQ_INT(45, rk_le16(p + 4));
	RK_ASSERT_EQ_INT(strlen(META), rk_le32(p + 18));
	RK_ASSERT_EQ_INT(strlen(META), rk_le32(p + 22));
	RK_ASSERT_EQ_INT(0, rk_le16(p + 28));

	/* the end record points to the locator, the locator to the zip64 end record */
	p = at(&l, l.size - RK_ZIP_EOCD_LEN);
	RK_ASSERT_EQ_INT(RK_ZIP_SIG_EOCD, rk_le32(p));
	RK_ASSERT_EQ_INT(0, rk_le16(p + 4));
	RK_ASSERT_EQ_INT(0, rk_le16(p + 6));
	RK_ASSERT_EQ_INT(2, rk_le16(p + 8));
	RK_ASSERT_EQ_INT(2, rk_le16(p + 10));
	RK_ASSERT_EQ_INT(cdir_len, rk_le32(p + 12));
	RK_ASSERT_EQ_INT(0xffffffffu, rk_le32(p + 16));
	RK_ASSERT_EQ_INT(0, rk_le16(p + 20));
	p = at(&l, l.size - RK_ZIP_EOCD_LEN - RK_ZIP64_LOC_LEN);
	RK_ASSERT_EQ_INT(RK_ZIP_SIG_Z64_LOC, rk_le32(p));
	RK_ASSERT_EQ_INT(0, rk_le32(p + 4));
	RK_ASSERT_EQ_INT(cdir + cdir_len, rk_le64(p + 8));
	RK_ASSERT_EQ_INT(1, rk_le32(p + 16));
	p = at(&l, cdir + cdir_len);
	RK_ASSERT_EQ_INT(RK_ZIP_SIG_Z64_EOCD, rk_le32(p));
	RK_ASSERT_EQ_INT(44, rk_le64(p + 4));
	RK_ASSERT_EQ_INT(3 << 8 | 45, rk_le16(p + 12));
	RK_ASSERT_EQ_INT(45, rk_le16(p + 14));
	RK_ASSERT_EQ_INT(0, rk_le32(p + 16));
	RK_ASSERT_EQ_INT(0, rk_le32(p + 20));
	RK_ASSERT_EQ_INT(2, rk_le64(p + 24));
	RK_ASSERT_EQ_INT(2, rk_le64(p + 32));
	RK_ASSERT_EQ_INT(cdir_len, rk_le64(p + 40));
	RK_ASSERT_EQ_INT(cdir, rk_le64(p + 48));

	/* central entry 0: sizes in the extra, offset in place */
	p = at(&l, cdir);
	RK_ASSERT_EQ_INT(RK_ZIP_SIG_CDIR, rk_le32(p));
	RK_ASSERT_EQ_INT(3 << 8 | 45, rk_le16(p + 4));
	RK_ASSERT_EQ_INT(45, rk_le16(p + 6));
	RK_ASSERT_EQ_INT(0x0800, rk_le16(p + 8));
	RK_ASSERT_EQ_INT(0, rk_le16(p + 10));
	RK_ASSERT_EQ_INT(0x12345678, rk_le32(p + 16));
	RK_ASSERT_EQ_INT(0xffffffffu, rk_le32(p + 20));
	RK_ASSERT_EQ_INT(0xffffffffu, rk_le32(p + 24));
	RK_ASSERT_EQ_INT(12, rk_le16(p + 28));
	RK_ASSERT_EQ_INT(20, rk_le16(p + 30));
	RK_ASSERT_EQ_INT(0, rk_le16(p + 32));
	RK_ASSERT_EQ_INT(0, rk_le16(p + 34));
	RK_ASSERT_EQ_INT(0, rk_le16(p + 36));
	RK_ASSERT_EQ_INT((S_IFREG | 0644u) << 16, rk_le32(p + 38));
	RK_ASSERT_EQ_INT(0, rk_le32(p + 42));
	RK_ASSERT_EQ_MEM("big/blob.bin", p + 46, 12);
	RK_ASSERT_EQ_INT(1, rk_le16(p + 58));
	RK_ASSERT_EQ_INT(16, rk_le16(p + 60));
	RK_ASSERT_EQ_INT(big, rk_le64(p + 62));
	RK_ASSERT_EQ_INT(big, rk_le64(p + 70));
	/* central entry 1: only the offset in the extra */
	p += RK_ZIP_CDIR_LEN + 12 + 20;
	RK_ASSERT_EQ_INT(RK_ZIP_SIG_CDIR, rk_le32(p));
	RK_ASSERT_EQ_INT(3 << 8 | 45, rk_le16(p + 4));
	RK_ASSERT_EQ_INT(45, rk_le16(p + 6));
	RK_ASSERT_EQ_INT(m[1].crc, rk_le32(p + 16));
	RK_ASSERT_EQ_INT(strlen(META), rk_le32(p + 20));
	RK_ASSERT_EQ_INT(strlen(META), rk_le32(p + 24));
	RK_ASSERT_EQ_INT(26, rk_le16(p + 28));
	RK_ASSERT_EQ_INT(12, rk_le16(p + 30));
	RK_ASSERT_EQ_INT(0xffffffffu, rk_le32(p + 42));
	RK_ASSERT_EQ_MEM("pkg-1.0.dist-info/METADATA", p + 46, 26);
	RK_ASSERT_EQ_INT(1, rk_le16(p + 72));
	RK_ASSERT_EQ_INT(8, rk_le16(p + 74));
	RK_ASSERT_EQ_INT(lh1, rk_le64(p + 76));

	/* our reader finds METADATA through the zip64 records without touching the blob */
	RK_ASSERT_EQ_INT(0, rk_wheel_metadata(layout_pread, &l, l.size, "pkg-1.0.dist-info", &meta,
					      &len, &err));
	RK_ASSERT_EQ_STR(META, meta);
	free(meta);
	rk_composite_release(&l);
}

/* (c) More than 65535 members: zip64 end records, read back whole by libarchive. */
RK_TEST(zip_layout_zip64_many_members)
{
	enum { N = 70000 };
	struct rk_zip_member *m = calloc(N, sizeof(*m));
	const void **content = calloc(N, sizeof(*content));
	char(*names)[16] = calloc(N, sizeof(*names));
	struct rk_err err = RK_ERR_INIT;
	const unsigned char *p;
	struct rk_composite l;
	uint64_t cdir, cdir_len;
	char *meta = NULL;
	size_t len;

	utc();
	RK_ASSERT(m && content && names);
	for (size_t i = 0; i < N - 1; i++) {
		snprintf(names[i], sizeof(names[i]), "d/%05zu", i);
		/* each file's contents: its own name, or nothing */
		m[i] = data_member(names[i], i % 3 ? names[i] : "");
		m[i].mode = S_IFREG | (i % 2 ? 0755 : 0644);
		content[i] = m[i].data;
	}
	m[N - 1] = data_member("pkg-1.0.dist-info/METADATA", META);
	content[N - 1] = META;
	RK_ASSERT_EQ_INT(0, rk_zip_layout_build(m, N, FX_MTIME, &l));
	check_segments(&l);
	RK_ASSERT_EQ_INT(1, l.npieces);

	p = at(&l, l.size - RK_ZIP_EOCD_LEN);
	RK_ASSERT_EQ_INT(RK_ZIP_SIG_EOCD, rk_le32(p));
	RK_ASSERT_EQ_INT(0xffff, rk_le16(p + 8));
	RK_ASSERT_EQ_INT(0xffff, rk_le16(p + 10));
	cdir_len = rk_le32(p + 12);
	cdir = rk_le32(p + 16);
	p = at(&l, l.size - RK_ZIP_EOCD_LEN - RK_ZIP64_LOC_LEN);
	RK_ASSERT_EQ_INT(RK_ZIP_SIG_Z64_LOC, rk_le32(p));
	RK_ASSERT_EQ_INT(cdir + cdir_len, rk_le64(p + 8));
	p = at(&l, cdir + cdir_len);
	RK_ASSERT_EQ_INT(RK_ZIP_SIG_Z64_EOCD, rk_le32(p));
	RK_ASSERT_EQ_INT(N, rk_le64(p + 24));
	RK_ASSERT_EQ_INT(N, rk_le64(p + 32));
	RK_ASSERT_EQ_INT(cdir_len, rk_le64(p + 40));
	RK_ASSERT_EQ_INT(cdir, rk_le64(p + 48));
	/* every entry stays version 20: only the end needs zip64 */
	RK_ASSERT_EQ_INT(20, rk_le16(at(&l, cdir) + 6));

	RK_ASSERT_EQ_INT(
		0, rk_wheel_metadata_mem(l.arena, l.size, "pkg-1.0.dist-info", &meta, &len, &err));
	RK_ASSERT_EQ_STR(META, meta);
	free(meta);
	check_libarchive((const unsigned char *)l.arena, l.size, m, N, content);
	rk_composite_release(&l);
	free(names);
	free(content);
	free(m);
}

/* 0xffff members already take the zip64 end records; 0xfffe do not. */
RK_TEST(zip_layout_zip64_threshold)
{
	const size_t n = RK_ZIP_MAX16;
	struct rk_zip_member *m = calloc(n, sizeof(*m));
	uint64_t a, b;

	RK_ASSERT(m != NULL);
	for (size_t i = 0; i < n; i++)
		m[i] = (struct rk_zip_member){"f", S_IFREG | 0644, 0, 0, NULL, NULL, NULL};
	RK_ASSERT_EQ_INT(0, rk_zip_layout_size(m, n - 1, &a));
	RK_ASSERT_EQ_INT(0, rk_zip_layout_size(m, n, &b));
	RK_ASSERT_EQ_INT((n - 1) * (RK_ZIP_LOCAL_LEN + 1 + RK_ZIP_CDIR_LEN + 1) + RK_ZIP_EOCD_LEN,
			 a);
	RK_ASSERT_EQ_INT(a + RK_ZIP_LOCAL_LEN + 1 + RK_ZIP_CDIR_LEN + 1 + RK_ZIP64_EOCD_LEN +
				 RK_ZIP64_LOC_LEN,
			 b);
	free(m);
}

/* (d) The same input gives the same segments and bytes. */
RK_TEST(zip_layout_deterministic)
{
	struct rk_zip_member m[3];
	struct rk_composite a, b;
	struct rk_origin origin = {NULL};

	m[0] = data_member("pkg/__init__.py", "");
	m[1] = (struct rk_zip_member){"pkg/big.bin", S_IFREG | 0755, 6 * GIB, 7,
				      FAKE_ID,	     NULL,	     &origin};
	m[2] = data_member("pkg-1.0.dist-info/METADATA", META);
	RK_ASSERT_EQ_INT(0, rk_zip_layout_build(m, 3, FX_MTIME, &a));
	RK_ASSERT_EQ_INT(0, rk_zip_layout_build(m, 3, FX_MTIME, &b));
	RK_ASSERT_EQ_INT(a.size, b.size);
	RK_ASSERT_EQ_INT(a.npieces, b.npieces);
	RK_ASSERT_EQ_INT(a.arena_len, b.arena_len);
	RK_ASSERT_EQ_MEM(a.pieces, b.pieces, a.npieces * sizeof(*a.pieces));
	RK_ASSERT_EQ_MEM(a.arena, b.arena, a.arena_len);
	RK_ASSERT_EQ_INT(a.nsources, b.nsources);
	RK_ASSERT_EQ_MEM(a.sources, b.sources, a.nsources * sizeof(*a.sources));
	rk_composite_release(&a);
	rk_composite_release(&b);
	/* released composites are empty */
	RK_ASSERT(a.pieces == NULL && a.arena == NULL && a.size == 0);
}

/* (e) Bad members: -EINVAL, and *out untouched. */
RK_TEST(zip_layout_rejects_bad_members)
{
	struct rk_zip_member ok = data_member("pkg/a.py", "x"), m[2] = {ok, ok};
	struct rk_composite l = {.size = 42};
	char *longname = malloc(RK_ZIP_MAX16 + 2);
	uint64_t size = 42;

	RK_ASSERT(longname != NULL);
	m[1].name = "";
	RK_ASSERT_EQ_INT(-EINVAL, rk_zip_layout_build(m, 2, FX_MTIME, &l));
	RK_ASSERT_EQ_INT(-EINVAL, rk_zip_layout_size(m, 2, &size));
	m[1].name = NULL;
	RK_ASSERT_EQ_INT(-EINVAL, rk_zip_layout_build(m, 2, FX_MTIME, &l));
	memset(longname, 'a', RK_ZIP_MAX16 + 1);
	longname[RK_ZIP_MAX16 + 1] = '\0';
	m[1].name = longname;
	RK_ASSERT_EQ_INT(-EINVAL, rk_zip_layout_build(m, 2, FX_MTIME, &l));
	m[1] = ok;
	m[1].mode = S_IFDIR | 0755;
	RK_ASSERT_EQ_INT(-EINVAL, rk_zip_layout_build(m, 2, FX_MTIME, &l));
	m[1] = ok;
	m[1].blob = "not-a-blob-id";
	RK_ASSERT_EQ_INT(-EINVAL, rk_zip_layout_build(m, 2, FX_MTIME, &l));
	m[1] = ok;
	m[1].data = NULL;
	RK_ASSERT_EQ_INT(-EINVAL, rk_zip_layout_build(m, 2, FX_MTIME, &l));
	RK_ASSERT_EQ_INT(42, l.size);
	RK_ASSERT(l.pieces == NULL);
	RK_ASSERT_EQ_INT(42, size);

	/* the longest name that fits is fine */
	longname[RK_ZIP_MAX16] = '\0';
	m[1] = ok;
	m[1].name = longname;
	RK_ASSERT_EQ_INT(0, rk_zip_layout_build(m, 2, FX_MTIME, &l));
	RK_ASSERT_EQ_INT(0, rk_zip_layout_size(m, 2, &size));
	RK_ASSERT_EQ_INT(l.size, size);
	RK_ASSERT_EQ_INT(RK_ZIP_MAX16, rk_le16(at(&l, RK_ZIP_LOCAL_LEN + 8 + 1) + 26));
	rk_composite_release(&l);
	free(longname);
}

static int collect(void *ctx, const void *b, size_t n)
{
	struct rk_buf *out = ctx;

	return rk_buf_add(out, b, n);
}

/* A member whose content is a composite (bytes, zeros, a range of a blob): appended
 * shifted into the zip, with its source; rk_wheel_list/rk_wheel_extract read it back. */
RK_TEST(zip_layout_member_is_a_layout)
{
	struct rk_cache *c = open_cache();
	struct rk_err err = RK_ERR_INIT;
	static const char want[] = "hello \0\0\0\0\0"
				   "3456!";
	char id[RK_SHA256_HEX];
	struct rk_composite inner = RK_COMPOSITE_INIT, zl = RK_COMPOSITE_INIT;
	uint32_t src;
	struct rk_zip_member m[2] = {data_member("a/first.txt", "first\n")};
	struct rk_buf z = RK_BUF_INIT, out = RK_BUF_INIT;
	struct rk_wheel_member *wm = NULL;
	struct rk_mem zm;
	size_t n = 0;

	RK_ASSERT_EQ_INT(0, rk_blob_put(c, "0123456789", 10, id, &err));
	RK_ASSERT_EQ_INT(0, rk_composite_bytes(&inner, "hello ", 6));
	RK_ASSERT_EQ_INT(0, rk_composite_zero(&inner, 5));
	RK_ASSERT_EQ_INT(0, rk_composite_add_source(&inner, id, 10, NULL, &src));
	RK_ASSERT_EQ_INT(0, rk_composite_source(&inner, src, 3, 4));
	RK_ASSERT_EQ_INT(0, rk_composite_bytes(&inner, "!", 1));
	RK_ASSERT_EQ_INT(4, inner.npieces);
	RK_ASSERT_EQ_INT(16, inner.size);
	m[1] = (struct rk_zip_member){.name = "b/lay.bin",
				      .mode = S_IFREG | 0755,
				      .size = 16,
				      .crc = crc_of(want, 16),
				      .composite = &inner};
	RK_ASSERT_EQ_INT(0, rk_zip_layout_build(m, 2, 0, &zl));
	/* the zip in memory: arena bytes, zeros, blob ranges */
	for (size_t i = 0; i < zl.npieces; i++) {
		const struct rk_piece *s = &zl.pieces[i];
		char tmp[64];
		int fd = -1;

		RK_ASSERT_EQ_INT(z.len, s->off);
		if (s->kind == RK_PIECE_BYTES) {
			RK_ASSERT_EQ_INT(0, rk_buf_add(&z, zl.arena + s->at, s->len));
		} else if (s->kind == RK_PIECE_ZERO) {
			memset(tmp, 0, sizeof(tmp));
			RK_ASSERT_EQ_INT(0, rk_buf_add(&z, tmp, s->len));
		} else {
			const struct rk_source *so = &zl.sources[s->src];

			RK_ASSERT_EQ_INT(3, s->at);
			RK_ASSERT_EQ_INT(0, rk_blob_open(c, so->id, so->size, &fd, &err));
			RK_ASSERT_EQ_INT((ssize_t)s->len, pread(fd, tmp, s->len, (off_t)s->at));
			close(fd);
			RK_ASSERT_EQ_INT(0, rk_buf_add(&z, tmp, s->len));
		}
	}
	RK_ASSERT_EQ_INT(zl.size, z.len);
	zm = (struct rk_mem){z.buf, z.len};
	RK_ASSERT_EQ_INT(0, rk_wheel_list(rk_mem_pread, &zm, z.len, &wm, &n, &err));
	RK_ASSERT_EQ_INT(2, n);
	RK_ASSERT_EQ_STR("b/lay.bin", wm[1].name);
	RK_ASSERT_EQ_INT(0755, wm[1].mode & 0777);
	RK_ASSERT_EQ_INT(0,
			 rk_wheel_extract(rk_mem_pread, &zm, z.len, &wm[1], collect, &out, &err));
	RK_ASSERT(out.len == 16 && !memcmp(out.buf, want, 16));
	/* a composite of another size is refused */
	m[1].size = 17;
	RK_ASSERT_EQ_INT(-EINVAL, rk_zip_layout_build(m, 2, 0, &inner));
	rk_wheel_members_free(wm, n);
	rk_buf_release(&z);
	rk_buf_release(&out);
	rk_composite_release(&inner);
	rk_composite_release(&zl);
	rk_cache_close(c);
}

/* A deflated member (method 8, its csize bytes of raw deflate as content) next to a stored
 * one: libarchive inflates it back; sizes and methods in both headers; another method is
 * refused. */
RK_TEST(zip_layout_deflated_member)
{
	static char text[50000];
	struct libdeflate_compressor *d = libdeflate_alloc_compressor(6);
	struct rk_zip_member m[2];
	const void *content[2];
	const unsigned char *cd;
	unsigned char packed[60000];
	struct rk_composite l;
	uint64_t size;
	size_t n;

	utc();
	for (size_t i = 0; i < sizeof(text); i++)
		text[i] = "rockfs deflates wheels\n"[i % 23];
	RK_ASSERT(d != NULL);
	n = libdeflate_deflate_compress(d, text, sizeof(text), packed, sizeof(packed));
	libdeflate_free_compressor(d);
	RK_ASSERT(n > 0 && n < sizeof(text) / 10);
	m[0] = (struct rk_zip_member){
		"pkg/text.txt", S_IFREG | 0644, sizeof(text), crc_of(text, sizeof(text)),
		NULL,		packed,		NULL};
	m[0].method = RK_ZIP_DEFLATED;
	m[0].csize = n;
	m[1] = data_member("pkg/plain.txt", "stored as it is\n");
	content[0] = text;
	content[1] = m[1].data;
	RK_ASSERT_EQ_INT(0, rk_zip_layout_build(m, 2, FX_MTIME, &l));
	check_segments(&l);
	RK_ASSERT_EQ_INT(0, rk_zip_layout_size(m, 2, &size));
	RK_ASSERT_EQ_INT(l.size, size);
	RK_ASSERT_EQ_INT(RK_ZIP_DEFLATED, rk_le16(at(&l, 8)));
	RK_ASSERT_EQ_INT(n, rk_le32(at(&l, 18)));
	RK_ASSERT_EQ_INT(sizeof(text), rk_le32(at(&l, 22)));
	cd = at(&l, 2 * RK_ZIP_LOCAL_LEN + strlen(m[0].name) + n + strlen(m[1].name) + m[1].size);
	RK_ASSERT_EQ_INT(RK_ZIP_SIG_CDIR, rk_le32(cd));
	RK_ASSERT_EQ_INT(RK_ZIP_DEFLATED, rk_le16(cd + 10));
	RK_ASSERT_EQ_INT(n, rk_le32(cd + 20));
	RK_ASSERT_EQ_INT(sizeof(text), rk_le32(cd + 24));
	check_libarchive((const unsigned char *)l.arena, l.size, m, 2, content);
	rk_composite_release(&l);
	m[0].method = 9;
	RK_ASSERT_EQ_INT(-EINVAL, rk_zip_layout_build(m, 2, FX_MTIME, &l));
}
