/* wheel.c: PEP 427/503 names and a wheel's METADATA from its zip (rk/wheel.h).
 *
 * The zip reader follows APPNOTE.TXT 4.3: the end of central directory record (EOCD) is
 * searched backwards in the last 64 KiB + 22 bytes; a zip64 locator just before it
 * points to the zip64 EOCD. The central directory is read whole (bounded by
 * RK_WHEEL_MAX_CDIR), its entries walked with every length checked against the buffer,
 * and the one member wanted is read through its local header, stored or deflated, and
 * checked against its CRC-32. */
#include <ctype.h>
#include <errno.h>
#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#include "util/le.h"
#include "rk/wheel.h"

#define SIG_EOCD 0x06054b50u
#define SIG_Z64_LOC 0x07064b50u
#define SIG_Z64_EOCD 0x06064b50u
#define SIG_CDIR 0x02014b50u
#define SIG_LOCAL 0x04034b50u
#define EOCD_LEN 22u
#define Z64_LOC_LEN 20u
#define Z64_EOCD_LEN 56u
#define CDIR_LEN 46u
#define LOCAL_LEN 30u

/* Exactly n bytes at off. */
static int read_at(rk_pread_fn rd, void *ctx, void *buf, size_t n, uint64_t off, struct rk_err *err)
{
	for (size_t got = 0; got < n;) {
		ssize_t r = rd(ctx, (char *)buf + got, n - got, off + got);

		if (r < 0)
			return rk_err_set(err, (int)r, "zip: read at %llu: %s",
					  (unsigned long long)(off + got), strerror((int)-r));
		if (r == 0)
			return rk_err_set(err, -EBADMSG, "zip: short read at %llu",
					  (unsigned long long)(off + got));
		got += (size_t)r;
	}
	return 0;
}

struct cdir {
	uint64_t off, size, n;
};

static int find_cdir(rk_pread_fn rd, void *ctx, uint64_t size, struct cdir *cd, struct rk_err *err)
{
	size_t tail = size < 65535 + EOCD_LEN ? (size_t)size : 65535 + EOCD_LEN;
	uint64_t base = size - tail, eocd = UINT64_MAX;
	unsigned char *t, z[Z64_EOCD_LEN];
	int rc;

	if (size < EOCD_LEN)
		return rk_err_set(err, -EBADMSG, "zip: %llu bytes is too small",
				  (unsigned long long)size);
	if (!(t = malloc(tail)))
		return -ENOMEM;
	if ((rc = read_at(rd, ctx, t, tail, base, err))) {
		free(t);
		return rc;
	}
	for (size_t i = tail - EOCD_LEN + 1; i-- > 0;)
		if (rk_le32(t + i) == SIG_EOCD && i + EOCD_LEN + rk_le16(t + i + 20) <= tail) {
			eocd = i;
			break;
		}
	if (eocd == UINT64_MAX) {
		free(t);
		return rk_err_set(err, -EBADMSG, "zip: no end of central directory record");
	}
	cd->n = rk_le16(t + eocd + 10);
	cd->size = rk_le32(t + eocd + 12);
	cd->off = rk_le32(t + eocd + 16);
	if (eocd >= Z64_LOC_LEN && rk_le32(t + eocd - Z64_LOC_LEN) == SIG_Z64_LOC) {
		uint64_t zoff = rk_le64(t + eocd - Z64_LOC_LEN + 8);

		free(t);
		if (size < Z64_EOCD_LEN || zoff > size - Z64_EOCD_LEN)
			return rk_err_set(err, -EBADMSG, "zip: zip64 record out of range");
		if ((rc = read_at(rd, ctx, z, sizeof(z), zoff, err)))
			return rc;
		if (rk_le32(z) != SIG_Z64_EOCD)
			return rk_err_set(err, -EBADMSG, "zip: bad zip64 record");
		cd->n = rk_le64(z + 32);
		cd->size = rk_le64(z + 40);
		cd->off = rk_le64(z + 48);
	} else {
		free(t);
	}
	if (cd->off > size || cd->size > size - cd->off)
		return rk_err_set(err, -EBADMSG, "zip: central directory out of range");
	if (cd->size > RK_WHEEL_MAX_CDIR)
		return rk_err_set(err, -EFBIG, "zip: central directory of %llu bytes",
				  (unsigned long long)cd->size);
	return 0;
}

/* The zip64 extended information field of a central directory entry: replaces the
 * 0xffffffff values, in order usize, csize, offset. */
static int zip64_extra(const unsigned char *x, size_t xlen, uint64_t *usize, uint64_t *csize,
		       uint64_t *lho)
{
	while (xlen >= 4) {
		unsigned id = rk_le16(x), len = rk_le16(x + 2);
		uint64_t *want[3] = {usize, csize, lho};
		size_t p = 4;

		if (len > xlen - 4)
			return -EBADMSG;
		if (id == 0x0001) {
			for (int i = 0; i < 3; i++) {
				if (*want[i] != 0xffffffffu)
					continue;
				if (p + 8 > 4u + len)
					return -EBADMSG;
				*want[i] = rk_le64(x + p);
				p += 8;
			}
			return 0;
		}
		x += 4 + len;
		xlen -= 4 + len;
	}
	return 0;
}

/* Whether member name is "<dist_info>/METADATA" (any top-level *.dist-info without). */
static int is_metadata(const unsigned char *name, size_t nlen, const char *dist_info)
{
	static const char tail[] = ".dist-info/METADATA";
	size_t tl = sizeof(tail) - 1;

	if (dist_info) {
		size_t dl = strlen(dist_info);

		return nlen == dl + 9 && !memcmp(name, dist_info, dl) &&
		       !memcmp(name + dl, "/METADATA", 9);
	}
	if (nlen <= tl || memcmp(name + nlen - tl, tail, tl))
		return 0;
	return !memchr(name, '/', nlen - tl);
}

static int read_member(rk_pread_fn rd, void *ctx, uint64_t size, const struct cdir *cd,
		       unsigned method, uint32_t crc, uint64_t csize, uint64_t usize, uint64_t lho,
		       char **data, size_t *len, struct rk_err *err)
{
	unsigned char lh[LOCAL_LEN];
	unsigned char *in = NULL;
	char *out = NULL;
	uint64_t start;
	int rc;

	if (usize > RK_WHEEL_MAX_METADATA)
		return rk_err_set(err, -EFBIG, "zip: METADATA of %llu bytes",
				  (unsigned long long)usize);
	if (lho > size || LOCAL_LEN > size - lho)
		return rk_err_set(err, -EBADMSG, "zip: local header out of range");
	if ((rc = read_at(rd, ctx, lh, sizeof(lh), lho, err)))
		return rc;
	if (rk_le32(lh) != SIG_LOCAL)
		return rk_err_set(err, -EBADMSG, "zip: bad local header signature");
	start = lho + LOCAL_LEN + rk_le16(lh + 26) + rk_le16(lh + 28);
	if (start > cd->off || csize > cd->off - start)
		return rk_err_set(err, -EBADMSG, "zip: member data out of range");
	if (method == 0 && csize != usize)
		return rk_err_set(err, -EBADMSG, "zip: stored member with two sizes");
	if (method != 0 && method != 8)
		return rk_err_set(err, -EBADMSG, "zip: compression method %u", method);
	if (method == 8 && csize > usize * 1032 + 64)
		return rk_err_set(err, -EBADMSG, "zip: deflate sizes disagree");
	if (!(out = malloc((size_t)usize + 1)) || !(in = malloc(csize ? (size_t)csize : 1))) {
		free(out);
		return -ENOMEM;
	}
	if (!(rc = read_at(rd, ctx, in, (size_t)csize, start, err))) {
		if (method == 0) {
			memcpy(out, in, (size_t)csize);
		} else {
			struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
			size_t got = 0;

			if (!d)
				rc = -ENOMEM;
			else if (libdeflate_deflate_decompress(d, in, (size_t)csize, out,
							       (size_t)usize,
							       &got) != LIBDEFLATE_SUCCESS ||
				 got != usize)
				rc = rk_err_set(err, -EBADMSG, "zip: bad deflate data");
			libdeflate_free_decompressor(d);
		}
	}
	if (!rc && libdeflate_crc32(0, out, (size_t)usize) != crc)
		rc = rk_err_set(err, -EBADMSG, "zip: CRC-32 mismatch");
	free(in);
	if (rc) {
		free(out);
		return rc;
	}
	out[usize] = '\0';
	*data = out;
	*len = (size_t)usize;
	return 0;
}

int rk_wheel_metadata(rk_pread_fn rd, void *ctx, uint64_t size, const char *dist_info, char **data,
		      size_t *len, struct rk_err *err)
{
	struct cdir cd = {0};
	unsigned char *c;
	size_t p = 0;
	int rc;

	if ((rc = find_cdir(rd, ctx, size, &cd, err)))
		return rc;
	if (!(c = malloc(cd.size ? (size_t)cd.size : 1)))
		return -ENOMEM;
	if ((rc = read_at(rd, ctx, c, (size_t)cd.size, cd.off, err))) {
		free(c);
		return rc;
	}
	rc = -ENOENT;
	for (uint64_t i = 0; i < cd.n; i++) {
		size_t nlen, xlen, clen;
		uint64_t csize, usize, lho;

		if (cd.size - p < CDIR_LEN || rk_le32(c + p) != SIG_CDIR) {
			rc = rk_err_set(err, -EBADMSG, "zip: bad central directory entry %llu",
					(unsigned long long)i);
			break;
		}
		nlen = rk_le16(c + p + 28);
		xlen = rk_le16(c + p + 30);
		clen = rk_le16(c + p + 32);
		if (cd.size - p - CDIR_LEN < nlen + xlen + clen) {
			rc = rk_err_set(err, -EBADMSG,
					"zip: central directory entry %llu overflows",
					(unsigned long long)i);
			break;
		}
		if (is_metadata(c + p + CDIR_LEN, nlen, dist_info)) {
			csize = rk_le32(c + p + 20);
			usize = rk_le32(c + p + 24);
			lho = rk_le32(c + p + 42);
			if (zip64_extra(c + p + CDIR_LEN + nlen, xlen, &usize, &csize, &lho)) {
				rc = rk_err_set(err, -EBADMSG, "zip: bad zip64 extra field");
				break;
			}
			rc = read_member(rd, ctx, size, &cd, rk_le16(c + p + 10),
					 rk_le32(c + p + 16), csize, usize, lho, data, len, err);
			break;
		}
		p += CDIR_LEN + nlen + xlen + clen;
	}
	free(c);
	if (rc == -ENOENT)
		rk_err_set(err, rc, "zip: no %s/METADATA", dist_info ? dist_info : "*.dist-info");
	return rc;
}

/* ---- every member ---- */

void rk_wheel_members_free(struct rk_wheel_member *m, size_t n)
{
	for (size_t i = 0; m && i < n; i++)
		free(m[i].name);
	free(m);
}

int rk_wheel_list(rk_pread_fn rd, void *ctx, uint64_t size, struct rk_wheel_member **out, size_t *n,
		  struct rk_err *err)
{
	struct rk_wheel_member *v = NULL;
	struct cdir cd = {0};
	unsigned char *c;
	size_t p = 0, k = 0;
	int rc;

	if ((rc = find_cdir(rd, ctx, size, &cd, err)))
		return rc;
	/* every entry takes at least CDIR_LEN bytes: a count beyond that is a lie */
	if (cd.n > cd.size / CDIR_LEN)
		return rk_err_set(err, -EBADMSG, "zip: %llu entries in %llu bytes",
				  (unsigned long long)cd.n, (unsigned long long)cd.size);
	if (!(c = malloc(cd.size ? (size_t)cd.size : 1)) ||
	    !(v = calloc((size_t)cd.n + 1, sizeof(*v)))) {
		free(c);
		return -ENOMEM;
	}
	if ((rc = read_at(rd, ctx, c, (size_t)cd.size, cd.off, err)))
		goto out;
	for (; k < cd.n; k++) {
		struct rk_wheel_member *m = &v[k];
		size_t nlen, xlen, clen;

		if (cd.size - p < CDIR_LEN || rk_le32(c + p) != SIG_CDIR) {
			rc = rk_err_set(err, -EBADMSG, "zip: bad central directory entry %zu", k);
			goto out;
		}
		nlen = rk_le16(c + p + 28);
		xlen = rk_le16(c + p + 30);
		clen = rk_le16(c + p + 32);
		if (cd.size - p - CDIR_LEN < nlen + xlen + clen) {
			rc = rk_err_set(err, -EBADMSG, "zip: central directory entry %zu overflows",
					k);
			goto out;
		}
		if (!nlen || memchr(c + p + CDIR_LEN, 0, nlen)) {
			rc = rk_err_set(err, -EBADMSG, "zip: entry %zu: bad name", k);
			goto out;
		}
		m->method = rk_le16(c + p + 10);
		m->crc = rk_le32(c + p + 16);
		m->csize = rk_le32(c + p + 20);
		m->usize = rk_le32(c + p + 24);
		m->lho = rk_le32(c + p + 42);
		m->mode = (c[p + 5] == 3) ? rk_le32(c + p + 38) >> 16 : 0;
		m->limit = cd.off;
		if (zip64_extra(c + p + CDIR_LEN + nlen, xlen, &m->usize, &m->csize, &m->lho)) {
			rc = rk_err_set(err, -EBADMSG, "zip: entry %zu: bad zip64 extra field", k);
			goto out;
		}
		if (m->lho > cd.off || m->csize > cd.off - m->lho ||
		    LOCAL_LEN > cd.off - m->lho - m->csize ||
		    (m->method == 0 && m->csize != m->usize) ||
		    (m->method == 8 &&
		     (m->csize > m->usize * 1032 + 64 || m->usize > m->csize * 1032 + 1024))) {
			rc = rk_err_set(err, -EBADMSG,
					"zip: entry %zu: sizes or offset out of range", k);
			goto out;
		}
		if (!(m->name = strndup((const char *)c + p + CDIR_LEN, nlen))) {
			rc = -ENOMEM;
			goto out;
		}
		p += CDIR_LEN + nlen + xlen + clen;
	}
out:
	free(c);
	if (rc) {
		rk_wheel_members_free(v, k + 1);
		return rc;
	}
	*out = v;
	*n = (size_t)cd.n;
	return 0;
}

int rk_wheel_extract(rk_pread_fn rd, void *ctx, uint64_t size, const struct rk_wheel_member *m,
		     rk_write_fn wr, void *wctx, struct rk_err *err)
{
	unsigned char lh[LOCAL_LEN], *in = NULL, *out = NULL;
	uint64_t start, limit = m->limit < size ? m->limit : size;
	uint32_t crc = 0;
	int rc;

	if (m->method != 0 && m->method != 8)
		return rk_err_set(err, -EBADMSG, "zip: '%s': compression method %u", m->name,
				  m->method);
	if (m->lho > limit || LOCAL_LEN > limit - m->lho)
		return rk_err_set(err, -EBADMSG, "zip: '%s': local header out of range", m->name);
	if ((rc = read_at(rd, ctx, lh, sizeof(lh), m->lho, err)))
		return rc;
	if (rk_le32(lh) != SIG_LOCAL)
		return rk_err_set(err, -EBADMSG, "zip: '%s': bad local header signature", m->name);
	start = m->lho + LOCAL_LEN + rk_le16(lh + 26) + rk_le16(lh + 28);
	if (start > limit || m->csize > limit - start)
		return rk_err_set(err, -EBADMSG, "zip: '%s': data out of range", m->name);
	if (m->method == 0) {
		size_t chunk = 1 << 20;

		if (m->csize != m->usize)
			return rk_err_set(err, -EBADMSG, "zip: '%s': stored with two sizes",
					  m->name);
		if (!(in = malloc(chunk)))
			return -ENOMEM;
		for (uint64_t off = 0; !rc && off < m->usize;) {
			size_t k = (size_t)RK_MIN((uint64_t)chunk, m->usize - off);

			if (!(rc = read_at(rd, ctx, in, k, start + off, err))) {
				crc = libdeflate_crc32(crc, in, k);
				rc = wr(wctx, in, k);
				off += k;
			}
		}
	} else {
		size_t chunk = 1 << 20;
		uint64_t off = 0, done = 0;
		z_stream zs;
		int zr = Z_OK;

		/* deflate expands at most about 1032:1: a bigger claim is a lie */
		if (m->csize > m->usize * 1032 + 64 || m->usize > m->csize * 1032 + 1024)
			return rk_err_set(err, -EBADMSG, "zip: '%s': deflate sizes disagree",
					  m->name);
		memset(&zs, 0, sizeof(zs));
		in = malloc(chunk);
		out = malloc(chunk);
		if (!in || !out || inflateInit2(&zs, -15) != Z_OK) {
			free(in);
			free(out);
			return -ENOMEM;
		}
		/* streamed: a member of any size takes two 1 MiB buffers */
		while (!rc && zr != Z_STREAM_END) {
			size_t got;

			if (!zs.avail_in) {
				size_t k = (size_t)RK_MIN((uint64_t)chunk, m->csize - off);

				if (!k) {
					rc = rk_err_set(err, -EBADMSG,
							"zip: '%s': deflate data ends early",
							m->name);
					break;
				}
				if ((rc = read_at(rd, ctx, in, k, start + off, err)))
					break;
				off += k;
				zs.next_in = in;
				zs.avail_in = (uInt)k;
			}
			zs.next_out = out;
			zs.avail_out = (uInt)chunk;
			zr = inflate(&zs, Z_NO_FLUSH);
			if (zr == Z_MEM_ERROR) {
				rc = -ENOMEM;
				break;
			}
			if (zr != Z_OK && zr != Z_STREAM_END &&
			    !(zr == Z_BUF_ERROR && !zs.avail_in)) {
				rc = rk_err_set(err, -EBADMSG, "zip: '%s': bad deflate data",
						m->name);
				break;
			}
			got = chunk - zs.avail_out;
			if (got > m->usize - done) {
				rc = rk_err_set(err, -EBADMSG, "zip: '%s': more than %llu bytes",
						m->name, (unsigned long long)m->usize);
				break;
			}
			crc = libdeflate_crc32(crc, out, got);
			done += got;
			if (got)
				rc = wr(wctx, out, got);
		}
		inflateEnd(&zs);
		if (!rc && done != m->usize)
			rc = rk_err_set(err, -EBADMSG, "zip: '%s': %llu bytes, listed %llu",
					m->name, (unsigned long long)done,
					(unsigned long long)m->usize);
	}
	free(in);
	free(out);
	if (rc)
		return rc;
	if (crc != m->crc)
		return rk_err_set(err, -EBADMSG, "zip: '%s': CRC-32 mismatch", m->name);
	return 0;
}

ssize_t rk_mem_pread(void *ctx, void *buf, size_t n, uint64_t off)
{
	const struct rk_mem *m = ctx;

	if (off >= m->n)
		return 0;
	if (n > m->n - off)
		n = m->n - (size_t)off;
	memcpy(buf, (const unsigned char *)m->p + off, n);
	return (ssize_t)n;
}

int rk_wheel_metadata_mem(const void *zip, size_t size, const char *dist_info, char **data,
			  size_t *len, struct rk_err *err)
{
	struct rk_mem m = {zip, size};

	return rk_wheel_metadata(rk_mem_pread, &m, size, dist_info, data, len, err);
}

int rk_metadata_field(const char *meta, size_t len, const char *name, char **out)
{
	size_t nl = strlen(name);
	const char *p = meta, *end = meta + len;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *le = eol ? eol : end;

		if (le == p || (le == p + 1 && *p == '\r'))
			break; /* end of the header */
		if ((size_t)(le - p) > nl && p[nl] == ':' && !strncasecmp(p, name, nl)) {
			const char *v = p + nl + 1;

			while (v < le && (*v == ' ' || *v == '\t'))
				v++;
			while (le > v && (le[-1] == ' ' || le[-1] == '\t' || le[-1] == '\r'))
				le--;
			if (!(*out = strndup(v, (size_t)(le - v))))
				return -ENOMEM;
			return 0;
		}
		p = eol ? eol + 1 : end;
	}
	return -ENOENT;
}

int rk_pep503_normalize(const char *name, char *out, size_t n)
{
	size_t o = 0;

	for (const char *s = name; *s; s++) {
		int sep = *s == '-' || *s == '_' || *s == '.';

		if (sep && o && out[o - 1] == '-')
			continue;
		if (o + 1 >= n)
			return -ENAMETOOLONG;
		out[o++] = sep ? '-' : (char)tolower((unsigned char)*s);
	}
	if (!n)
		return -ENAMETOOLONG;
	out[o] = '\0';
	return 0;
}

static int ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);

	return a > b && !strcmp(s + a - b, suf);
}

int rk_pyfile_parse(const char *file, char *project, size_t n, char *dist_info, size_t dn)
{
	char name[256];
	const char *dash;
	size_t len;

	if (strchr(file, '/') || file[0] == '.')
		return RK_PYFILE_NONE;
	if (ends_with(file, ".whl")) {
		unsigned dashes = 0;
		const char *d2;

		for (const char *s = file; *s; s++)
			dashes += *s == '-';
		if (dashes != 4 && dashes != 5)
			return RK_PYFILE_NONE;
		dash = strchr(file, '-');
		d2 = strchr(dash + 1, '-');
		len = (size_t)(dash - file);
		if (!len || len >= sizeof(name) || d2 == dash + 1)
			return RK_PYFILE_NONE;
		memcpy(name, file, len);
		name[len] = '\0';
		if (dist_info && (size_t)(d2 - file) + sizeof(".dist-info") > dn)
			return RK_PYFILE_NONE;
		if (dist_info) {
			memcpy(dist_info, file, (size_t)(d2 - file));
			memcpy(dist_info + (d2 - file), ".dist-info", sizeof(".dist-info"));
		}
		return rk_pep503_normalize(name, project, n) ? RK_PYFILE_NONE : RK_PYFILE_WHEEL;
	}
	if (ends_with(file, ".tar.gz")) {
		len = strlen(file) - 7;
		dash = NULL;
		for (size_t i = 0; i < len; i++)
			if (file[i] == '-')
				dash = file + i;
		if (!dash || dash == file || (size_t)(dash - file) + 1 >= len)
			return RK_PYFILE_NONE;
		len = (size_t)(dash - file);
		if (len >= sizeof(name))
			return RK_PYFILE_NONE;
		memcpy(name, file, len);
		name[len] = '\0';
		return rk_pep503_normalize(name, project, n) ? RK_PYFILE_NONE : RK_PYFILE_SDIST;
	}
	return RK_PYFILE_NONE;
}

int rk_buf_add_html(struct rk_buf *b, const char *s)
{
	int rc = 0;

	/* rk_buf_add_xml between apostrophes, which an attribute in either quote needs */
	for (const char *q; !rc && (q = strchr(s, '\'')); s = q + 1) {
		char *part = strndup(s, (size_t)(q - s));

		rc = part ? rk_buf_add_xml(b, part) : -ENOMEM;
		free(part);
		if (!rc)
			rc = rk_buf_adds(b, "&#39;");
	}
	return rc ? rc : rk_buf_add_xml(b, s);
}
