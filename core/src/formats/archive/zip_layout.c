/* zip_layout.c: a synthesized zip as a composite file (zip_layout.h). */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "util/le.h"
#include "formats/archive/zip_layout.h"

#define DOS_MIN 315532800 /* 1980-01-01 00:00:00 UTC */
#define DOS_MAX 4354819198LL /* 2107-12-31 23:59:58 UTC */

/* What one member's headers look like, given where its local header starts. */
struct plan {
	size_t nlen;
	unsigned lextra; /* bytes of zip64 extra field in the local header (0 or 20) */
	unsigned cfields; /* 8-byte fields in the central zip64 extra (0 to 3) */
	unsigned cextra; /* bytes of zip64 extra field in the central entry */
	uint16_t version; /* version needed to extract */
	uint64_t local_len; /* local header, name and extra */
	uint64_t cdir_len; /* central directory entry, name and extra */
};

/* The bytes of m's content in the archive. */
static uint64_t data_len(const struct rk_zip_member *m)
{
	return m->method == RK_ZIP_DEFLATED ? m->csize : m->size;
}

/* Whether m's headers carry zip64 sizes. */
static int is_big(const struct rk_zip_member *m)
{
	return m->size >= RK_ZIP_MAX32 || data_len(m) >= RK_ZIP_MAX32;
}

static int plan(const struct rk_zip_member *m, uint64_t off, struct plan *p)
{
	int big = is_big(m);

	p->nlen = m->name ? strlen(m->name) : 0;
	if (!p->nlen || p->nlen > RK_ZIP_MAX16 || !S_ISREG(m->mode))
		return -EINVAL;
	if (m->blob && !rk_is_sha256_hex(m->blob))
		return -EINVAL;
	if (m->method != RK_ZIP_STORED && m->method != RK_ZIP_DEFLATED)
		return -EINVAL;
	p->lextra = big ? 4 + 16 : 0;
	p->cfields = (big ? 2 : 0) + (off >= RK_ZIP_MAX32);
	p->cextra = p->cfields ? 4 + 8 * p->cfields : 0;
	p->version = p->lextra || p->cextra ? RK_ZIP_VERSION_ZIP64 : RK_ZIP_VERSION;
	p->local_len = RK_ZIP_LOCAL_LEN + p->nlen + p->lextra;
	p->cdir_len = RK_ZIP_CDIR_LEN + p->nlen + p->cextra;
	return 0;
}

/* Whether the end needs the zip64 records. 0xffff entries already needs them: readers take
 * a field of all ones as "see the zip64 record". */
static int needs_zip64(size_t n, uint64_t cdir_off, uint64_t cdir_len)
{
	return n >= RK_ZIP_MAX16 || cdir_off >= RK_ZIP_MAX32 || cdir_len >= RK_ZIP_MAX32;
}

static uint64_t tail_len(int zip64)
{
	return (zip64 ? RK_ZIP64_EOCD_LEN + RK_ZIP64_LOC_LEN : 0) + RK_ZIP_EOCD_LEN;
}

int rk_zip_layout_size(const struct rk_zip_member *m, size_t n, uint64_t *size)
{
	uint64_t off = 0, cdir = 0;
	struct plan p;
	int rc;

	for (size_t i = 0; i < n; i++) {
		if ((rc = plan(&m[i], off, &p)))
			return rc;
		off += p.local_len + data_len(&m[i]);
		cdir += p.cdir_len;
	}
	*size = off + cdir + tail_len(needs_zip64(n, off, cdir));
	return 0;
}

static void dos_time(int64_t t, uint16_t *time, uint16_t *date)
{
	time_t tt = (time_t)(t < DOS_MIN ? DOS_MIN : t > DOS_MAX ? DOS_MAX : t);
	struct tm tm;

	gmtime_r(&tt, &tm);
	*date = (uint16_t)((tm.tm_year - 80) << 9 | (tm.tm_mon + 1) << 5 | tm.tm_mday);
	*time = (uint16_t)(tm.tm_hour << 11 | tm.tm_min << 5 | tm.tm_sec / 2);
}

/* The fields local headers and central directory entries share, from "version needed":
 * version, flags, method, time, date, crc, csize, usize, name length, extra length. */
static unsigned char *common(unsigned char *h, const struct rk_zip_member *m, const struct plan *p,
			     uint16_t dtime, uint16_t ddate, int central)
{
	int big = is_big(m);

	rk_put_le16(h, p->version);
	rk_put_le16(h + 2, RK_ZIP_FLAG_UTF8);
	rk_put_le16(h + 4, (uint16_t)m->method);
	rk_put_le16(h + 6, dtime);
	rk_put_le16(h + 8, ddate);
	rk_put_le32(h + 10, m->crc);
	rk_put_le32(h + 14, big ? RK_ZIP_MAX32 : (uint32_t)data_len(m));
	rk_put_le32(h + 18, big ? RK_ZIP_MAX32 : (uint32_t)m->size);
	rk_put_le16(h + 22, (uint16_t)p->nlen);
	rk_put_le16(h + 24, (uint16_t)(central ? p->cextra : p->lextra));
	return h + 26;
}

static void local_header(unsigned char *h, const struct rk_zip_member *m, const struct plan *p,
			 uint16_t dtime, uint16_t ddate)
{
	rk_put_le32(h, RK_ZIP_SIG_LOCAL);
	h = common(h + 4, m, p, dtime, ddate, 0);
	memcpy(h, m->name, p->nlen);
	h += p->nlen;
	if (p->lextra) {
		rk_put_le16(h, RK_ZIP_EXTRA_ZIP64);
		rk_put_le16(h + 2, 16);
		rk_put_le64(h + 4, m->size);
		rk_put_le64(h + 12, data_len(m));
	}
}

static void central_entry(unsigned char *h, const struct rk_zip_member *m, const struct plan *p,
			  uint16_t dtime, uint16_t ddate, uint64_t off)
{
	rk_put_le32(h, RK_ZIP_SIG_CDIR);
	rk_put_le16(h + 4, (uint16_t)(RK_ZIP_MADE_BY_UNIX << 8 | p->version));
	h = common(h + 6, m, p, dtime, ddate, 1);
	rk_put_le16(h, 0); /* comment length */
	rk_put_le16(h + 2, 0); /* disk number start */
	rk_put_le16(h + 4, 0); /* internal attributes */
	rk_put_le32(h + 6, m->mode << 16);
	rk_put_le32(h + 10, off >= RK_ZIP_MAX32 ? RK_ZIP_MAX32 : (uint32_t)off);
	h += 14;
	memcpy(h, m->name, p->nlen);
	h += p->nlen;
	if (p->cextra) {
		rk_put_le16(h, RK_ZIP_EXTRA_ZIP64);
		rk_put_le16(h + 2, (uint16_t)(8 * p->cfields));
		h += 4;
		if (is_big(m)) {
			rk_put_le64(h, m->size);
			rk_put_le64(h + 8, data_len(m));
			h += 16;
		}
		if (off >= RK_ZIP_MAX32)
			rk_put_le64(h, off);
	}
}

static void end_records(unsigned char *h, size_t n, uint64_t cdir_off, uint64_t cdir_len)
{
	if (needs_zip64(n, cdir_off, cdir_len)) {
		rk_put_le32(h, RK_ZIP_SIG_Z64_EOCD);
		rk_put_le64(h + 4, RK_ZIP64_EOCD_LEN - 12); /* size of the rest of the record */
		rk_put_le16(h + 12, RK_ZIP_MADE_BY_UNIX << 8 | RK_ZIP_VERSION_ZIP64);
		rk_put_le16(h + 14, RK_ZIP_VERSION_ZIP64);
		rk_put_le32(h + 16, 0); /* this disk */
		rk_put_le32(h + 20, 0); /* the disk holding the central directory */
		rk_put_le64(h + 24, n);
		rk_put_le64(h + 32, n);
		rk_put_le64(h + 40, cdir_len);
		rk_put_le64(h + 48, cdir_off);
		h += RK_ZIP64_EOCD_LEN;
		rk_put_le32(h, RK_ZIP_SIG_Z64_LOC);
		rk_put_le32(h + 4, 0); /* the disk holding the zip64 end record */
		rk_put_le64(h + 8, cdir_off + cdir_len);
		rk_put_le32(h + 16, 1); /* disks */
		h += RK_ZIP64_LOC_LEN;
	}
	rk_put_le32(h, RK_ZIP_SIG_EOCD);
	rk_put_le16(h + 4, 0);
	rk_put_le16(h + 6, 0);
	rk_put_le16(h + 8, (uint16_t)(n >= RK_ZIP_MAX16 ? RK_ZIP_MAX16 : n));
	rk_put_le16(h + 10, (uint16_t)(n >= RK_ZIP_MAX16 ? RK_ZIP_MAX16 : n));
	rk_put_le32(h + 12, cdir_len >= RK_ZIP_MAX32 ? RK_ZIP_MAX32 : (uint32_t)cdir_len);
	rk_put_le32(h + 16, cdir_off >= RK_ZIP_MAX32 ? RK_ZIP_MAX32 : (uint32_t)cdir_off);
	rk_put_le16(h + 20, 0); /* comment length */
}

int rk_zip_layout_build(const struct rk_zip_member *m, size_t n, int64_t mtime,
			struct rk_composite *out)
{
	struct rk_composite c = RK_COMPOSITE_INIT;
	uint64_t off = 0, cdir = 0, cdir_off;
	uint16_t dtime, ddate;
	unsigned char *h;
	struct plan p;
	int rc = 0;

	/* First pass: check every member. */
	for (size_t i = 0; i < n; i++) {
		if ((rc = plan(&m[i], off, &p)))
			return rc;
		if (!m[i].blob && data_len(&m[i]) && !m[i].data && !m[i].composite)
			return -EINVAL;
		if (!m[i].blob && !m[i].data && m[i].composite &&
		    m[i].composite->size != data_len(&m[i]))
			return -EINVAL;
		off += p.local_len + data_len(&m[i]);
		cdir += p.cdir_len;
	}
	cdir_off = off;
	dos_time(mtime, &dtime, &ddate);

	/* Local headers and data. */
	for (size_t i = 0; !rc && i < n; i++) {
		uint32_t src;

		plan(&m[i], c.size, &p);
		if (!(h = rk_composite_bytes_room(&c, (size_t)p.local_len))) {
			rc = -ENOMEM;
			break;
		}
		local_header(h, &m[i], &p, dtime, ddate);
		if (m[i].blob) {
			uint64_t len = data_len(&m[i]);

			if (len &&
			    !(rc = rk_composite_add_source(&c, m[i].blob, len, m[i].origin, &src)))
				rc = rk_composite_source(&c, src, 0, len);
		} else if (!m[i].data && m[i].composite) {
			rc = rk_composite_append(&c, m[i].composite);
		} else {
			rc = rk_composite_bytes(&c, m[i].data, (size_t)data_len(&m[i]));
		}
	}
	assert(rc || c.size == cdir_off);

	/* The central directory, walking the local header offsets again. */
	off = 0;
	for (size_t i = 0; !rc && i < n; i++) {
		plan(&m[i], off, &p);
		if (!(h = rk_composite_bytes_room(&c, (size_t)p.cdir_len))) {
			rc = -ENOMEM;
			break;
		}
		central_entry(h, &m[i], &p, dtime, ddate, off);
		off += p.local_len + data_len(&m[i]);
	}
	if (!rc &&
	    !(h = rk_composite_bytes_room(&c, (size_t)tail_len(needs_zip64(n, cdir_off, cdir)))))
		rc = -ENOMEM;
	if (rc) {
		rk_composite_release(&c);
		return rc;
	}
	end_records(h, n, cdir_off, cdir);
	*out = c;
	return 0;
}
