/* test_wheel.c: wheel METADATA from zip, PEP 427/503 names, HTML escaping. */
#include <errno.h>
#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>

#include "util/le.h"
#include "rk/wheel.h"
#include "rk_fixture.h"
#include "rk_test.h"

RK_TEST(wheel_metadata_deflate)
{
	struct rk_err err = RK_ERR_INIT;
	char *m = NULL, *rp = NULL;
	size_t len = 0;

	RK_ASSERT_EQ_INT(0, rk_wheel_metadata_mem(fx_wheel_zip, sizeof(fx_wheel_zip),
						  "pkg-1.0.dist-info", &m, &len, &err));
	RK_ASSERT_EQ_INT((int)strlen(fx_wheel_meta), (int)len);
	RK_ASSERT_EQ_STR(fx_wheel_meta, m);
	RK_ASSERT_EQ_INT(0, rk_metadata_field(m, len, "requires-python", &rp));
	RK_ASSERT_EQ_STR(">=3.9", rp);
	free(rp);
	RK_ASSERT_EQ_INT(-ENOENT, rk_metadata_field(m, len, "Requires-Dist", &rp));
	free(m);
	/* any top-level .dist-info */
	RK_ASSERT_EQ_INT(
		0, rk_wheel_metadata_mem(fx_wheel_zip, sizeof(fx_wheel_zip), NULL, &m, &len, &err));
	free(m);
	RK_ASSERT_EQ_INT(-ENOENT, rk_wheel_metadata_mem(fx_wheel_zip, sizeof(fx_wheel_zip),
							"other-1.0.dist-info", &m, &len, &err));
}

RK_TEST(wheel_metadata_damaged)
{
	unsigned char buf[sizeof(fx_wheel_zip)];

	/* every truncation and every single-byte change: an error or the right bytes */
	for (size_t cut = 0; cut < sizeof(fx_wheel_zip); cut++) {
		struct rk_err err = RK_ERR_INIT;
		char *m = NULL;
		size_t len;
		int rc = rk_wheel_metadata_mem(fx_wheel_zip, cut, "pkg-1.0.dist-info", &m, &len,
					       &err);

		RK_ASSERT(rc < 0);
		RK_ASSERT(m == NULL);
	}
	for (size_t i = 0; i < sizeof(fx_wheel_zip); i++) {
		for (int x = 1; x < 256; x <<= 1) {
			struct rk_err err = RK_ERR_INIT;
			char *m = NULL;
			size_t len;
			int rc;

			memcpy(buf, fx_wheel_zip, sizeof(buf));
			buf[i] ^= (unsigned char)x;
			rc = rk_wheel_metadata_mem(buf, sizeof(buf), "pkg-1.0.dist-info", &m, &len,
						   &err);
			if (!rc) {
				RK_ASSERT_EQ_INT((int)strlen(fx_wheel_meta), (int)len);
				RK_ASSERT(!memcmp(m, fx_wheel_meta, len));
			}
			free(m);
		}
	}
}

RK_TEST(wheel_metadata_not_a_zip)
{
	struct rk_err err = RK_ERR_INIT;
	char *m = NULL;
	size_t len;

	RK_ASSERT_EQ_INT(-EBADMSG, rk_wheel_metadata_mem("", 0, NULL, &m, &len, &err));
	RK_ASSERT_EQ_INT(-EBADMSG, rk_wheel_metadata_mem("hello, world; not a zip file at all", 35,
							 NULL, &m, &len, &err));
}

static void norm(const char *in, const char *want)
{
	char out[64];

	RK_ASSERT_EQ_INT(0, rk_pep503_normalize(in, out, sizeof(out)));
	RK_ASSERT_EQ_STR(want, out);
}

RK_TEST(pep503_normalize)
{
	char small[4];

	norm("rocm_sdk_libraries_gfx110X_all", "rocm-sdk-libraries-gfx110x-all");
	norm("Friendly-Bard", "friendly-bard");
	norm("FRIENDLY-._-BARD", "friendly-bard");
	norm("a.b", "a-b");
	norm("rocm", "rocm");
	RK_ASSERT_EQ_INT(-ENAMETOOLONG, rk_pep503_normalize("abcd", small, sizeof(small)));
}

RK_TEST(pyfile_parse)
{
	char p[64], d[128];

	RK_ASSERT_EQ_INT(
		RK_PYFILE_WHEEL,
		rk_pyfile_parse("rocm_sdk_core-7.13.0.dev0+abc1234-py3-none-linux_x86_64.whl", p,
				sizeof(p), d, sizeof(d)));
	RK_ASSERT_EQ_STR("rocm-sdk-core", p);
	RK_ASSERT_EQ_STR("rocm_sdk_core-7.13.0.dev0+abc1234.dist-info", d);
	RK_ASSERT_EQ_INT(RK_PYFILE_WHEEL, rk_pyfile_parse("pkg-1.0-1build-py3-none-any.whl", p,
							  sizeof(p), d, sizeof(d)));
	RK_ASSERT_EQ_STR("pkg-1.0.dist-info", d);
	RK_ASSERT_EQ_INT(RK_PYFILE_SDIST,
			 rk_pyfile_parse("rocm-7.13.0.dev0+abc1234.tar.gz", p, sizeof(p), NULL, 0));
	RK_ASSERT_EQ_STR("rocm", p);
	RK_ASSERT_EQ_INT(RK_PYFILE_SDIST,
			 rk_pyfile_parse("my.pkg-name-2.0.tar.gz", p, sizeof(p), NULL, 0));
	RK_ASSERT_EQ_STR("my-pkg-name", p);
	RK_ASSERT_EQ_INT(RK_PYFILE_NONE, rk_pyfile_parse("index.html", p, sizeof(p), NULL, 0));
	RK_ASSERT_EQ_INT(RK_PYFILE_NONE, rk_pyfile_parse("a-b.whl", p, sizeof(p), NULL, 0));
	RK_ASSERT_EQ_INT(RK_PYFILE_NONE, rk_pyfile_parse("-1.0.tar.gz", p, sizeof(p), NULL, 0));
	RK_ASSERT_EQ_INT(RK_PYFILE_NONE, rk_pyfile_parse("x-.tar.gz", p, sizeof(p), NULL, 0));
	RK_ASSERT_EQ_INT(RK_PYFILE_NONE,
			 rk_pyfile_parse(".x-1-py3-none-any.whl", p, sizeof(p), NULL, 0));
}

RK_TEST(html_escape)
{
	struct rk_buf b = RK_BUF_INIT;

	RK_ASSERT_EQ_INT(0, rk_buf_add_html(&b, ">=3.9, <4 & \"'x'\""));
	RK_ASSERT_EQ_STR("&gt;=3.9, &lt;4 &amp; &quot;&#39;x&#39;&quot;", b.buf);
	rk_buf_release(&b);
}

/* ---- member lists and extraction ---- */

struct sink {
	char buf[4096];
	size_t len;
};

static int sink_write(void *ctx, const void *b, size_t n)
{
	struct sink *s = ctx;

	if (n > sizeof(s->buf) - s->len)
		return -EFBIG;
	memcpy(s->buf + s->len, b, n);
	s->len += n;
	return 0;
}

RK_TEST(wheel_list_extract_deflate)
{
	struct rk_mem z = {fx_wheel_zip, sizeof(fx_wheel_zip)};
	struct rk_err err = RK_ERR_INIT;
	struct rk_wheel_member *m = NULL;
	size_t n = 0, found = 0;

	RK_ASSERT_EQ_INT(0, rk_wheel_list(rk_mem_pread, &z, z.n, &m, &n, &err));
	RK_ASSERT(n >= 2);
	for (size_t i = 0; i < n; i++) {
		struct sink s = {.len = 0};

		RK_ASSERT_EQ_INT(
			0, rk_wheel_extract(rk_mem_pread, &z, z.n, &m[i], sink_write, &s, &err));
		RK_ASSERT_EQ_INT((int)m[i].usize, (int)s.len);
		if (!strcmp(m[i].name, "pkg-1.0.dist-info/METADATA")) {
			found++;
			RK_ASSERT_EQ_INT(8, (int)m[i].method);
			RK_ASSERT(s.len == strlen(fx_wheel_meta) &&
				  !memcmp(s.buf, fx_wheel_meta, s.len));
		}
	}
	RK_ASSERT_EQ_INT(1, (int)found);
	rk_wheel_members_free(m, n);
}

RK_TEST(wheel_list_damaged)
{
	unsigned char buf[sizeof(fx_wheel_zip)];

	/* a truncated zip never lists */
	for (size_t cut = 0; cut < sizeof(fx_wheel_zip); cut++) {
		struct rk_mem z = {fx_wheel_zip, cut};
		struct rk_err err = RK_ERR_INIT;
		struct rk_wheel_member *m = NULL;
		size_t n = 0;

		RK_ASSERT(rk_wheel_list(rk_mem_pread, &z, cut, &m, &n, &err) < 0);
		RK_ASSERT(m == NULL);
	}
	/* any bit flipped: every member extracts to its CRC or fails, never beyond the buffer */
	for (size_t i = 0; i < sizeof(fx_wheel_zip); i++) {
		for (int x = 1; x < 256; x <<= 1) {
			struct rk_mem z = {buf, sizeof(buf)};
			struct rk_err err = RK_ERR_INIT;
			struct rk_wheel_member *m = NULL;
			size_t n = 0;

			memcpy(buf, fx_wheel_zip, sizeof(buf));
			buf[i] ^= (unsigned char)x;
			if (rk_wheel_list(rk_mem_pread, &z, z.n, &m, &n, &err))
				continue;
			for (size_t k = 0; k < n; k++) {
				struct sink s = {.len = 0};
				int rc = rk_wheel_extract(rk_mem_pread, &z, z.n, &m[k], sink_write,
							  &s, &err);

				RK_ASSERT(rc == 0 || rc < 0);
				if (!rc)
					RK_ASSERT_EQ_INT((int)m[k].usize, (int)s.len);
			}
			rk_wheel_members_free(m, n);
		}
	}
}

/* A one-member zip of data (stored or raw deflate), as Python's zipfile writes it. */
static unsigned char *one_member_zip(const char *name, const unsigned char *data, size_t n,
				     int deflate, size_t *len)
{
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(6);
	size_t nl = strlen(name), bound = libdeflate_deflate_compress_bound(c, n);
	unsigned char *z = malloc(30 + nl + bound + 46 + nl + 22), *p = z, *d;
	size_t cs = n;
	uint32_t crc = (uint32_t)libdeflate_crc32(0, data, n);

	RK_ASSERT(c && z);
	d = z + 30 + nl;
	if (deflate)
		cs = libdeflate_deflate_compress(c, data, n, d, bound);
	else
		memcpy(d, data, n);
	libdeflate_free_compressor(c);
	RK_ASSERT(cs > 0 || !n);
	/* local header */
	rk_put_le32(p, 0x04034b50);
	rk_put_le16(p + 4, 20);
	rk_put_le16(p + 6, 0);
	rk_put_le16(p + 8, deflate ? 8 : 0);
	rk_put_le32(p + 10, 0);
	rk_put_le32(p + 14, crc);
	rk_put_le32(p + 18, (uint32_t)cs);
	rk_put_le32(p + 22, (uint32_t)n);
	rk_put_le16(p + 26, (uint16_t)nl);
	rk_put_le16(p + 28, 0);
	memcpy(p + 30, name, nl);
	p = d + cs;
	/* central directory entry */
	memset(p, 0, 46);
	rk_put_le32(p, 0x02014b50);
	rk_put_le16(p + 4, 3 << 8 | 20);
	rk_put_le16(p + 6, 20);
	rk_put_le16(p + 10, deflate ? 8 : 0);
	rk_put_le32(p + 16, crc);
	rk_put_le32(p + 20, (uint32_t)cs);
	rk_put_le32(p + 24, (uint32_t)n);
	rk_put_le16(p + 28, (uint16_t)nl);
	rk_put_le32(p + 38, (uint32_t)(0100755) << 16);
	rk_put_le32(p + 42, 0);
	memcpy(p + 46, name, nl);
	/* end record */
	d = p + 46 + nl;
	memset(d, 0, 22);
	rk_put_le32(d, 0x06054b50);
	rk_put_le16(d + 8, 1);
	rk_put_le16(d + 10, 1);
	rk_put_le32(d + 12, (uint32_t)(46 + nl));
	rk_put_le32(d + 16, (uint32_t)(p - z));
	*len = (size_t)(d + 22 - z);
	return z;
}

struct hash_sink {
	uint64_t n;
	uint32_t crc;
	size_t calls;
};

static int hash_write(void *ctx, const void *b, size_t n)
{
	struct hash_sink *h = ctx;

	RK_ASSERT(n <= (1u << 20));
	h->crc = (uint32_t)libdeflate_crc32(h->crc, b, n);
	h->n += n;
	h->calls++;
	return 0;
}

/* Members over the 1 MiB chunk: streamed (stored and deflated), sizes and CRC checked. */
RK_TEST(wheel_extract_streams_large_members)
{
	size_t n = (5u << 20) + 12345, zl;
	unsigned char *data = malloc(n);

	RK_ASSERT(data != NULL);
	for (size_t i = 0; i < n; i++)
		data[i] = (unsigned char)((i * 2654435761u) >> 13 ^ (i % 251 ? 0 : i));
	for (int deflate = 0; deflate < 2; deflate++) {
		unsigned char *z = one_member_zip("lib/libbig.so.1", data, n, deflate, &zl);
		struct rk_mem zm = {z, zl};
		struct rk_err err = RK_ERR_INIT;
		struct rk_wheel_member *m = NULL;
		struct hash_sink h = {0, 0, 0};
		size_t cnt = 0;

		RK_ASSERT_EQ_INT(0, rk_wheel_list(rk_mem_pread, &zm, zl, &m, &cnt, &err));
		RK_ASSERT_EQ_INT(1, (int)cnt);
		RK_ASSERT_EQ_INT(0755, (int)(m[0].mode & 0777));
		RK_ASSERT_EQ_INT(
			0, rk_wheel_extract(rk_mem_pread, &zm, zl, &m[0], hash_write, &h, &err));
		RK_ASSERT(h.n == n && h.crc == (uint32_t)libdeflate_crc32(0, data, n));
		RK_ASSERT(h.calls >= 5);
		/* a wrong listed size or CRC: refused */
		m[0].usize--;
		if (!deflate)
			m[0].csize--;
		RK_ASSERT_EQ_INT(-EBADMSG, rk_wheel_extract(rk_mem_pread, &zm, zl, &m[0],
							    hash_write, &h, &err));
		m[0].usize++;
		if (!deflate)
			m[0].csize++;
		m[0].crc ^= 1;
		RK_ASSERT_EQ_INT(-EBADMSG, rk_wheel_extract(rk_mem_pread, &zm, zl, &m[0],
							    hash_write, &h, &err));
		rk_wheel_members_free(m, cnt);
		free(z);
	}
	free(data);
}
