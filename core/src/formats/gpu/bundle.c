/* bundle.c: clang offload bundles in a .hip_fatbin (see rk/bundle.h; kpack-format.md
 * section 5).
 *
 * The scan follows LLVM's extractOffloadBundle and rocm-kpack's parse_fatbin_data: at
 * "CCOB" decompress a compressed bundle and step over it, at the plain magic parse its
 * header and step to its end, and search for the next magic of either kind in between.
 * The section may be a 1+ GB mmap, so a plain bundle is never copied or scanned: only its
 * header is read, and the gap search starts at the end of its last entry. Where we are
 * stricter than LLVM (which stops reading a header at the first bad entry and keeps the
 * rest), a bad entry fails the whole section: a code object we cannot place is not one
 * we may silently drop from a split.
 *
 * A CCOB claims its uncompressed size up front. Before trusting it with memory, zstd
 * output grows with what the stream really produces, and a zlib claim must be within
 * deflate's maximum ratio (1032:1) of the compressed size. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>
#include <openssl/evp.h>
#include <zstd.h>

#include "rk/bundle.h"
#include "util/le.h"

#define PLAIN_MAGIC "__CLANG_OFFLOAD_BUNDLE__"
#define PLAIN_MAGIC_LEN 24
#define PLAIN_HDR 32 /* magic, u64 num_entries */
#define ENTRY_HDR 24 /* u64 offset, u64 size, u64 id_len, then the id */
#define CCOB_MAGIC "CCOB"
#define CCOB_MAGIC_LEN 4
#define ID_MAX 4096 /* real ids are < 100 bytes */
#define USIZE_DEFAULT (UINT64_C(4) << 30)
#define DEFLATE_MAX_RATIO 1032 /* 258 bytes from a 1-bit length and 1-bit distance code */
#define ZSTD_FIRST_CHUNK (1u << 20)
#define SCAN_FIRST_WINDOW 4096
#define SCAN_MAX_WINDOW (1u << 20)

struct parse {
	const unsigned char *sec;
	size_t n;
	uint64_t max_usize;
	struct rk_fatbin f;
	size_t bcap, ecap;
	struct rk_err *err;
};

/* One entry of a plain bundle header while it is being checked. */
struct hent {
	uint64_t off, size;
	const unsigned char *id;
	size_t idlen;
	size_t idx; /* position in the header */
	size_t arch; /* offset of the arch in id */
	int host;
};

/* The offset of the first plain or CCOB magic at or after pos, or n. The gap after a
 * bundle is zero padding up to the next page, so the zeros are skipped first and the
 * search window starts small; it only grows when the bytes are something else. */
static size_t find_magic(const unsigned char *s, size_t n, size_t pos)
{
	size_t win = SCAN_FIRST_WINDOW;

	while (pos < n) {
		const unsigned char *c, *b;
		size_t end, lim;

		while (pos < n && !s[pos])
			pos++;
		if (pos >= n)
			break;
		end = n - pos > win + PLAIN_MAGIC_LEN ? pos + win + PLAIN_MAGIC_LEN : n;
		c = memmem(s + pos, end - pos, CCOB_MAGIC, CCOB_MAGIC_LEN);
		/* A plain magic that starts before c ends before c + PLAIN_MAGIC_LEN - 1. */
		lim = c ? RK_MIN(end, (size_t)(c - s) + PLAIN_MAGIC_LEN - 1) : end;
		b = memmem(s + pos, lim - pos, PLAIN_MAGIC, PLAIN_MAGIC_LEN);
		if (b)
			return (size_t)(b - s);
		if (c)
			return (size_t)(c - s);
		if (end == n)
			break;
		pos = end - (PLAIN_MAGIC_LEN - 1); /* a magic may straddle the window's end */
		if (win < SCAN_MAX_WINDOW)
			win *= 2;
	}
	return n;
}

static int add_bundle(struct parse *ps, const struct rk_bundle *b)
{
	if (ps->f.nbundles == ps->bcap) {
		size_t ncap = ps->bcap ? ps->bcap * 2 : 8;
		struct rk_bundle *v = realloc(ps->f.bundles, ncap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		ps->f.bundles = v;
		ps->bcap = ncap;
	}
	ps->f.bundles[ps->f.nbundles++] = *b;
	return 0;
}

static int add_entry(struct parse *ps, const struct hent *h, size_t bidx, uint64_t base)
{
	struct rk_bundle_entry *e;
	char *id;

	if (ps->f.nentries == ps->ecap) {
		size_t ncap = ps->ecap ? ps->ecap * 2 : 16;
		struct rk_bundle_entry *v = realloc(ps->f.entries, ncap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		ps->f.entries = v;
		ps->ecap = ncap;
	}
	if (!(id = malloc(h->idlen + 1)))
		return -ENOMEM;
	memcpy(id, h->id, h->idlen);
	id[h->idlen] = '\0';
	e = &ps->f.entries[ps->f.nentries++];
	e->id = id;
	e->arch = id + h->arch;
	e->bundle = (unsigned)bidx;
	e->off = base + h->off;
	e->size = h->size;
	return 0;
}

/* Check an entry id, "<kind>-<arch>-<vendor>-<os>-<env>-<target id>": the kind is one
 * clang-offload-bundler knows; a device entry has the 4-field triple and a non-empty
 * target after the last "--" (rocm-kpack's arch key), short and made of target ID
 * characters. Returns NULL or what is wrong. */
static const char *check_id(struct hent *h)
{
	static const char *const kinds[] = {"host", "hip", "hipv4", "openmp"};
	const unsigned char *id = h->id, *dash;
	size_t kind, dashes = 0, arch = 0, i;

	for (i = 0; i < h->idlen; i++)
		if (id[i] < 0x21 || id[i] > 0x7e)
			return "non-printable byte in id";
	dash = memchr(id, '-', h->idlen);
	kind = dash ? (size_t)(dash - id) : h->idlen;
	for (i = 0; i < RK_ARRAY_SIZE(kinds); i++)
		if (strlen(kinds[i]) == kind && !memcmp(kinds[i], id, kind))
			break;
	if (i == RK_ARRAY_SIZE(kinds))
		return "unknown offload kind";
	h->host = i == 0;
	if (h->host)
		return NULL;
	for (i = 0; i < h->idlen; i++) {
		if (id[i] != '-')
			continue;
		dashes++;
		if (i + 1 < h->idlen && id[i + 1] == '-')
			arch = i + 2;
	}
	if (dashes < 5)
		return "expected <kind>-<arch>-<vendor>-<os>-<env>-<target id>";
	if (!arch || arch >= h->idlen)
		return "no target after the last '--'";
	if (h->idlen - arch >= RK_TARGET_MAX)
		return "target too long";
	for (i = arch; i < h->idlen; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:+-",
			    id[i]))
			return "bad character in target";
	h->arch = arch;
	return NULL;
}

static int cmp_off(const void *a, const void *b)
{
	const struct hent *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int cmp_id(const void *a, const void *b)
{
	const struct hent *x = a, *y = b;
	int c = memcmp(x->id, y->id, RK_MIN(x->idlen, y->idlen));

	if (c)
		return c;
	return x->idlen < y->idlen ? -1 : x->idlen > y->idlen;
}

/* Parse the plain bundle p[0..avail) as bundles[bidx]; entry offsets become base +
 * offset. ctx names the bundle in messages. *extent is where the bundle ends: the end
 * of its header or of its furthest entry. */
static int parse_plain(struct parse *ps, const unsigned char *p, uint64_t avail, size_t bidx,
		       uint64_t base, const char *ctx, uint64_t *extent)
{
	struct hent *h = NULL;
	uint64_t num, pos = PLAIN_HDR, end;
	int rc = 0;

	if (avail < PLAIN_HDR)
		return rk_err_set(ps->err, -EBADMSG, "%s: truncated header (%" PRIu64 " bytes)",
				  ctx, avail);
	if (memcmp(p, PLAIN_MAGIC, PLAIN_MAGIC_LEN))
		return rk_err_set(ps->err, -EBADMSG, "%s: no '%s' magic", ctx, PLAIN_MAGIC);
	num = rk_le64(p + PLAIN_MAGIC_LEN);
	if (num > (avail - PLAIN_HDR) / ENTRY_HDR)
		return rk_err_set(ps->err, -EBADMSG,
				  "%s: %" PRIu64 " entries do not fit in 0x%" PRIx64 " bytes", ctx,
				  num, avail);
	if (num && !(h = calloc((size_t)num, sizeof(*h))))
		return -ENOMEM;
	for (size_t i = 0; i < num; i++) {
		struct hent *e = &h[i];
		uint64_t idlen;
		const char *why;

		if (avail - pos < ENTRY_HDR) {
			rc = rk_err_set(ps->err, -EBADMSG,
					"%s: entry %zu truncated at 0x%" PRIx64 " (0x%" PRIx64 ")",
					ctx, i, pos, avail);
			goto out;
		}
		e->off = rk_le64(p + pos);
		e->size = rk_le64(p + pos + 8);
		idlen = rk_le64(p + pos + 16);
		e->idx = i;
		pos += ENTRY_HDR;
		if (idlen > avail - pos) {
			rc = rk_err_set(ps->err, -EBADMSG,
					"%s: entry %zu id (%" PRIu64
					" bytes) extends past the bundle (0x%" PRIx64 ")",
					ctx, i, idlen, avail);
			goto out;
		}
		if (!idlen || idlen > ID_MAX) {
			rc = rk_err_set(ps->err, -EBADMSG, "%s: entry %zu id has %" PRIu64 " bytes",
					ctx, i, idlen);
			goto out;
		}
		e->id = p + pos;
		e->idlen = (size_t)idlen;
		pos += idlen;
		if ((why = check_id(e))) {
			rc = rk_err_set(ps->err, -EBADMSG, "%s: entry %zu id '%.*s': %s", ctx, i,
					(int)RK_MIN(e->idlen, 128), (const char *)e->id, why);
			goto out;
		}
		if (!e->off) {
			rc = rk_err_set(ps->err, -EBADMSG, "%s: entry %zu ('%.*s') has offset 0",
					ctx, i, (int)e->idlen, (const char *)e->id);
			goto out;
		}
		if (e->size > avail || e->off > avail - e->size) {
			rc = rk_err_set(ps->err, -EBADMSG,
					"%s: entry %zu [0x%" PRIx64 ", +0x%" PRIx64
					") extends past the bundle (0x%" PRIx64 ")",
					ctx, i, e->off, e->size, avail);
			goto out;
		}
	}
	/* pos is now the end of the header. */
	end = pos;
	for (size_t i = 0; i < num; i++) {
		if (h[i].size && h[i].off < pos) {
			rc = rk_err_set(ps->err, -EBADMSG,
					"%s: entry %zu [0x%" PRIx64 ", +0x%" PRIx64
					") overlaps the bundle header (0x%" PRIx64 ")",
					ctx, i, h[i].off, h[i].size, pos);
			goto out;
		}
		end = RK_MAX(end, h[i].off + h[i].size);
	}
	if (num > 1) {
		const struct hent *prev = NULL;

		qsort(h, (size_t)num, sizeof(*h), cmp_off);
		for (size_t i = 0; i < num; i++) {
			if (!h[i].size)
				continue; /* an empty entry (the host's) overlaps nothing */
			if (prev && prev->off + prev->size > h[i].off) {
				rc = rk_err_set(ps->err, -EBADMSG,
						"%s: entries %zu [0x%" PRIx64 ", +0x%" PRIx64
						") and %zu [0x%" PRIx64 ", +0x%" PRIx64 ") overlap",
						ctx, prev->idx, prev->off, prev->size, h[i].idx,
						h[i].off, h[i].size);
				goto out;
			}
			prev = &h[i];
		}
		qsort(h, (size_t)num, sizeof(*h), cmp_id);
		for (size_t i = 1; i < num; i++) {
			if (!cmp_id(&h[i - 1], &h[i])) {
				rc = rk_err_set(ps->err, -EBADMSG,
						"%s: entries %zu and %zu have the same id '%.*s'",
						ctx, RK_MIN(h[i - 1].idx, h[i].idx),
						RK_MAX(h[i - 1].idx, h[i].idx), (int)h[i].idlen,
						(const char *)h[i].id);
				goto out;
			}
		}
		/* Back to header order, which is the order of rk_fatbin.entries. */
		for (size_t i = 0; i < num;) {
			size_t j = h[i].idx;
			struct hent t;

			if (j == i) {
				i++;
				continue;
			}
			t = h[j];
			h[j] = h[i];
			h[i] = t;
		}
	}
	for (size_t i = 0; i < num; i++)
		if (!h[i].host && (rc = add_entry(ps, &h[i], bidx, base)))
			goto out;
	*extent = end;
out:
	free(h);
	return rc;
}

/* Decompress a zstd stream into *out (exactly usize bytes). With one_frame (CCOB v1,
 * whose input runs to the end of the section) stop after the frame that completes
 * usize bytes; else the whole input must be frames. Output memory grows with what the
 * frames produce, not with what the header claims. */
static int unzstd(struct parse *ps, const char *ctx, const unsigned char *in, size_t inlen,
		  uint64_t usize, int one_frame, unsigned char **out, size_t *consumed)
{
	ZSTD_DCtx *d = ZSTD_createDCtx();
	size_t full = (size_t)usize + 1; /* one byte more shows an overlong stream */
	size_t cap = RK_MIN(full, (size_t)ZSTD_FIRST_CHUNK), ret;
	ZSTD_inBuffer ib = {in, inlen, 0};
	ZSTD_outBuffer ob = {NULL, cap, 0};
	unsigned char *buf = NULL;
	int rc = 0;

	if (!d || !(buf = malloc(cap))) {
		rc = -ENOMEM;
		goto out;
	}
	ob.dst = buf;
	for (;;) {
		if (ob.pos == ob.size) {
			unsigned char *nb;

			if (ob.size == full) {
				rc = rk_err_set(ps->err, -EBADMSG,
						"%s: decompresses to more than the %" PRIu64
						" bytes its header says",
						ctx, usize);
				goto out;
			}
			cap = cap > full / 2 ? full : cap * 2;
			if (!(nb = realloc(buf, cap))) {
				rc = -ENOMEM;
				goto out;
			}
			buf = nb;
			ob.dst = buf;
			ob.size = cap;
		}
		ret = ZSTD_decompressStream(d, &ob, &ib);
		if (ZSTD_isError(ret)) {
			rc = rk_err_set(ps->err, -EBADMSG, "%s: zstd: %s", ctx,
					ZSTD_getErrorName(ret));
			goto out;
		}
		if (!ret && (ib.pos == ib.size || (one_frame && ob.pos == usize)))
			break;
		if (ret && ib.pos == ib.size && ob.pos < ob.size) {
			rc = rk_err_set(ps->err, -EBADMSG, "%s: zstd: truncated frame", ctx);
			goto out;
		}
	}
	if (ob.pos != usize) {
		rc = ob.pos > usize
			     ? rk_err_set(ps->err, -EBADMSG,
					  "%s: decompresses to more than the %" PRIu64
					  " bytes its header says",
					  ctx, usize)
			     : rk_err_set(ps->err, -EBADMSG,
					  "%s: decompresses to %zu bytes, its header says %" PRIu64,
					  ctx, ob.pos, usize);
		goto out;
	}
	*out = buf;
	*consumed = ib.pos;
	buf = NULL;
out:
	free(buf);
	ZSTD_freeDCtx(d);
	return rc;
}

/* The same for a zlib stream (libdeflate wants the whole output buffer at once). */
static int unzlib(struct parse *ps, const char *ctx, const unsigned char *in, size_t inlen,
		  uint64_t usize, int one_frame, unsigned char **out, size_t *consumed)
{
	struct libdeflate_decompressor *d = NULL;
	unsigned char *buf = NULL;
	size_t ain = 0, aout = 0;
	enum libdeflate_result r;
	int rc = 0;

	if (usize / DEFLATE_MAX_RATIO > inlen)
		return rk_err_set(ps->err, -EBADMSG,
				  "%s: %" PRIu64 " bytes cannot come from %zu bytes of zlib data",
				  ctx, usize, inlen);
	if (!(buf = malloc((size_t)usize)) || !(d = libdeflate_alloc_decompressor())) {
		rc = -ENOMEM;
		goto out;
	}
	r = libdeflate_zlib_decompress_ex(d, in, inlen, buf, (size_t)usize, &ain, &aout);
	if (r == LIBDEFLATE_INSUFFICIENT_SPACE) {
		rc = rk_err_set(ps->err, -EBADMSG,
				"%s: decompresses to more than the %" PRIu64
				" bytes its header says",
				ctx, usize);
		goto out;
	}
	if (r != LIBDEFLATE_SUCCESS) {
		rc = rk_err_set(ps->err, -EBADMSG, "%s: zlib: %s", ctx,
				r == LIBDEFLATE_SHORT_OUTPUT ? "short output" : "bad data");
		goto out;
	}
	if (aout != usize) {
		rc = rk_err_set(ps->err, -EBADMSG,
				"%s: decompresses to %zu bytes, its header says %" PRIu64, ctx,
				aout, usize);
		goto out;
	}
	if (!one_frame && ain != inlen) {
		rc = rk_err_set(ps->err, -EBADMSG, "%s: %zu bytes after the zlib stream", ctx,
				inlen - ain);
		goto out;
	}
	*out = buf;
	*consumed = ain;
	buf = NULL;
out:
	free(buf);
	libdeflate_free_decompressor(d);
	return rc;
}

/* The compressed bundle at pos: header, decompression, hash, then its payload as a
 * plain bundle. *next is where it ends. */
static int parse_ccob(struct parse *ps, size_t pos, size_t *next)
{
	const unsigned char *p = ps->sec + pos, *hash;
	size_t rem = ps->n - pos, hs, inlen, consumed = 0;
	uint64_t total = 0, usize, extent;
	struct rk_bundle b = {0};
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned mdlen = 0;
	char ctx[64];
	int rc;

	snprintf(ctx, sizeof(ctx), "ccob at 0x%zx", pos);
	if (rem < 8)
		return rk_err_set(ps->err, -EBADMSG, "%s: truncated header (%zu bytes)", ctx, rem);
	b.format = RK_BUNDLE_CCOB;
	b.off = pos;
	b.version = rk_le16(p + 4);
	b.method = rk_le16(p + 6);
	switch (b.version) {
	case 1:
		hs = 20;
		break;
	case 2:
		hs = 24;
		break;
	case 3:
		hs = 32;
		break;
	default:
		return rk_err_set(ps->err, -EBADMSG, "%s: unknown version %u", ctx, b.version);
	}
	if (rem < hs)
		return rk_err_set(ps->err, -EBADMSG, "%s: truncated v%u header (%zu of %zu bytes)",
				  ctx, b.version, rem, hs);
	if (b.version == 1) {
		usize = rk_le32(p + 8);
		hash = p + 12;
	} else if (b.version == 2) {
		total = rk_le32(p + 8);
		usize = rk_le32(p + 12);
		hash = p + 16;
	} else {
		total = rk_le64(p + 8);
		usize = rk_le64(p + 16);
		hash = p + 24;
	}
	if (b.version >= 2 && (total < hs || total > rem))
		return rk_err_set(ps->err, -EBADMSG,
				  "%s: total size 0x%" PRIx64 " outside [0x%zx, 0x%zx]", ctx, total,
				  hs, rem);
	if (b.method > 1)
		return rk_err_set(ps->err, -EBADMSG,
				  "%s: unknown compression method %u (0 zlib, 1 zstd)", ctx,
				  b.method);
	if (usize > ps->max_usize || usize >= SIZE_MAX)
		return rk_err_set(ps->err, -EBADMSG,
				  "%s: uncompressed size %" PRIu64 " over the limit %" PRIu64, ctx,
				  usize, ps->max_usize);
	if (usize < PLAIN_HDR)
		return rk_err_set(ps->err, -EBADMSG,
				  "%s: uncompressed size %" PRIu64 " is too small for a bundle",
				  ctx, usize);
	inlen = b.version == 1 ? rem - hs : (size_t)total - hs;
	rc = b.method
		     ? unzstd(ps, ctx, p + hs, inlen, usize, b.version == 1, &b.payload, &consumed)
		     : unzlib(ps, ctx, p + hs, inlen, usize, b.version == 1, &b.payload, &consumed);
	if (rc)
		return rc;
	if (!EVP_Digest(b.payload, (size_t)usize, md, &mdlen, EVP_md5(), NULL) || mdlen < 8) {
		rc = rk_err_set(ps->err, -EIO, "%s: md5 failed", ctx);
		goto fail;
	}
	if (memcmp(md, hash, 8)) {
		rc = rk_err_set(ps->err, -EBADMSG,
				"%s: hash %016" PRIx64 " does not match the payload's %016" PRIx64,
				ctx, rk_le64(hash), rk_le64(md));
		goto fail;
	}
	b.len = b.version == 1 ? hs + consumed : total;
	b.usize = usize;
	if ((rc = add_bundle(ps, &b)))
		goto fail;
	/* The bundle (and its payload) belongs to ps from here. */
	snprintf(ctx, sizeof(ctx), "ccob at 0x%zx: payload", pos);
	rc = parse_plain(ps, b.payload, usize, ps->f.nbundles - 1, 0, ctx, &extent);
	if (rc)
		return rc;
	*next = pos + (size_t)b.len;
	return 0;
fail:
	free(b.payload);
	return rc;
}

static int parse_plain_at(struct parse *ps, size_t pos, size_t *next)
{
	struct rk_bundle b = {0};
	uint64_t extent = 0;
	char ctx[64];
	int rc;

	b.format = RK_BUNDLE_PLAIN;
	b.off = pos;
	if ((rc = add_bundle(ps, &b)))
		return rc;
	snprintf(ctx, sizeof(ctx), "bundle at 0x%zx", pos);
	rc = parse_plain(ps, ps->sec + pos, ps->n - pos, ps->f.nbundles - 1, pos, ctx, &extent);
	if (rc)
		return rc;
	ps->f.bundles[ps->f.nbundles - 1].len = extent;
	ps->f.bundles[ps->f.nbundles - 1].usize = extent;
	*next = pos + (size_t)extent;
	return 0;
}

int rk_fatbin_parse(const void *sec, size_t n, uint64_t max_usize, struct rk_fatbin *out,
		    struct rk_err *err)
{
	struct parse ps = {0};
	size_t pos = 0, next = 0;
	int rc = 0;

	ps.sec = sec;
	ps.n = n;
	ps.max_usize = max_usize ? max_usize : USIZE_DEFAULT;
	ps.err = err;
	while ((pos = find_magic(ps.sec, n, pos)) < n) {
		if (!memcmp(ps.sec + pos, CCOB_MAGIC, CCOB_MAGIC_LEN))
			rc = parse_ccob(&ps, pos, &next);
		else
			rc = parse_plain_at(&ps, pos, &next);
		if (rc)
			goto fail;
		pos = next;
	}
	if (!ps.f.nbundles) {
		rc = rk_err_set(err, -EBADMSG, "no offload bundle in 0x%zx bytes", n);
		goto fail;
	}
	*out = ps.f;
	return 0;
fail:
	if (rc == -ENOMEM)
		rk_err_set(err, rc, "out of memory parsing offload bundles");
	rk_fatbin_release(&ps.f);
	return rc;
}

void rk_fatbin_release(struct rk_fatbin *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nentries; i++)
		free(f->entries[i].id);
	for (size_t i = 0; i < f->nbundles; i++)
		free(f->bundles[i].payload);
	free(f->entries);
	free(f->bundles);
	memset(f, 0, sizeof(*f));
}

const unsigned char *rk_fatbin_data(const struct rk_fatbin *f, const struct rk_bundle_entry *e,
				    const void *sec)
{
	const struct rk_bundle *b;

	if (e->bundle >= f->nbundles)
		return NULL;
	b = &f->bundles[e->bundle];
	return (b->format == RK_BUNDLE_CCOB ? b->payload : (const unsigned char *)sec) + e->off;
}
