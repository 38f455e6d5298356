/* tar_compress.c: .tar.gz and .tar.zst as concatenations of cached pieces. */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libdeflate.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include "rk/log.h"
#include "cache/composite_read.h"
#include "cache/tar_compress.h"
#include "util/le.h"
#include "util/array.h"

#define PIECE_MIN (1u << 20) /* cut at a member header once a piece has this much */
#define PIECE_SMALL (64u << 10) /* ... or at a content-chosen header past this much */
#define DATA_CHUNK (4u << 20) /* file data longer than this is cut into such chunks */
#define SEEKABLE_MAGIC 0x8F92EAB1u
#define SKIPPABLE_MAGIC 0x184D2A5Eu
#define TRAILER 16 /* after a piece's compressed bytes: the record trailer (rk/cache.h) */

static int add_piece(struct rk_tarz *z, size_t *cap, uint64_t uoff, uint64_t ulen)
{
	if (!ulen)
		return 0;
	if (rk_grow(&z->pieces, cap, z->npieces, sizeof(*z->pieces), 64))
		return -ENOMEM;
	memset(&z->pieces[z->npieces], 0, sizeof(z->pieces[0]));
	z->pieces[z->npieces].uoff = uoff;
	z->pieces[z->npieces].ulen = ulen;
	z->npieces++;
	return 0;
}

/* Content-chosen cut: a function of the member header's first bytes only. */
static int cut_here(const struct rk_composite *l, const struct rk_piece *s)
{
	const unsigned char *h = (const unsigned char *)l->arena + s->at;
	uint32_t x = 2166136261u;

	for (int i = 0; i < 100 && h[i]; i++)
		x = (x ^ h[i]) * 16777619u;
	return (x & 15) == 0;
}

/* The key of one piece: codec, level and a description of its bytes. */
static int piece_key(const struct rk_tarz *z, const struct rk_composite *l, struct rk_tarz_piece *p)
{
	struct rk_sha256 h;
	uint64_t off = p->uoff, end = p->uoff + p->ulen;
	char head[64];
	int rc = rk_sha256_init(&h);

	if (rc)
		return rc;
	if (z->codec == RK_CODEC_DEFLATE)
		snprintf(head, sizeof(head), "rockfs-piece 1 %d %d %d", z->codec, z->level,
			 p->last);
	else
		snprintf(head, sizeof(head), "rockfs-piece 1 %d %d", z->codec, z->level);
	rk_sha256_update(&h, head, strlen(head) + 1);
	while (off < end) {
		const struct rk_piece *s = rk_composite_find(l, off);
		uint64_t within = off - s->off, n = s->len - within;
		char d[128];

		if (n > end - off)
			n = end - off;
		/* a source's range is named by its offset in the source (a tar member's
		 * content is a whole blob: at is 0); a deflated member's literal bytes by
		 * themselves alone (where adjacent bytes merged is no part of them) */
		snprintf(d, sizeof(d), "%d %llu %llu ", s->kind,
			 (unsigned long long)(s->kind == RK_PIECE_SOURCE     ? s->at + within
					      : z->codec == RK_CODEC_DEFLATE ? 0
									     : within),
			 (unsigned long long)n);
		rk_sha256_update(&h, d, strlen(d));
		/* a tar member's content is a whole blob: its id names the bytes */
		if (s->kind == RK_PIECE_BYTES)
			rk_sha256_update(&h, l->arena + s->at + within, (size_t)n);
		else if (s->kind == RK_PIECE_SOURCE)
			rk_sha256_update(&h, l->sources[s->src].id, 64);
		off += n;
	}
	rk_sha256_final(&h, p->key);
	return 0;
}

static int mark_same(struct rk_tarz *z);

static struct rk_tarz *tarz_new(int codec, int level)
{
	struct rk_tarz *z = calloc(1, sizeof(*z));

	if (z) {
		z->codec = codec;
		z->level = level;
		pthread_mutex_init(&z->lock, NULL);
	}
	return z;
}

/* The end of a plan: each piece's key, the pieces made alike marked; z is freed on a
 * failure (rc, or one here). */
static int plan_done(struct rk_tarz *z, const struct rk_composite *l, int rc, struct rk_tarz **out)
{
	for (size_t i = 0; !rc && i < z->npieces; i++)
		rc = piece_key(z, l, &z->pieces[i]);
	if (!rc)
		rc = mark_same(z);
	if (rc) {
		rk_tarz_free(z);
		return rc;
	}
	*out = z;
	return 0;
}

int rk_tarz_plan(const struct rk_composite *l, int codec, int level, struct rk_tarz **out)
{
	struct rk_tarz *z = tarz_new(codec, level);
	size_t cap = 0;
	uint64_t start = 0;
	int rc = 0;

	if (!z)
		return -ENOMEM;
	for (size_t i = 0; !rc && i < l->npieces; i++) {
		const struct rk_piece *s = &l->pieces[i];
		uint64_t have = s->off - start;

		if (s->kind == RK_PIECE_BYTES &&
		    (have >= PIECE_MIN || (have >= PIECE_SMALL && cut_here(l, s)))) {
			rc = add_piece(z, &cap, start, have);
			start = s->off;
		} else if (s->kind == RK_PIECE_SOURCE && s->len > DATA_CHUNK) {
			/* headers so far, then the data in chunks counted from its own start */
			rc = add_piece(z, &cap, start, s->off - start);
			for (uint64_t o = 0; !rc && o + DATA_CHUNK < s->len; o += DATA_CHUNK)
				rc = add_piece(z, &cap, s->off + o, DATA_CHUNK);
			start = s->off + (s->len - 1) / DATA_CHUNK * DATA_CHUNK;
		}
	}
	if (!rc)
		rc = add_piece(z, &cap, start, l->size - start);
	return plan_done(z, l, rc, out);
}

static int cmp_key(const void *a, const void *b)
{
	const struct rk_tarz_piece *const *x = a, *const *y = b;
	int d = strcmp((*x)->key, (*y)->key);

	return d ? d : (*x < *y ? -1 : *x > *y);
}

/* Each piece's same: pieces with one key (a file twice in an archive) are made once. */
static int mark_same(struct rk_tarz *z)
{
	struct rk_tarz_piece **v = malloc((z->npieces + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < z->npieces; i++)
		v[i] = &z->pieces[i];
	qsort(v, z->npieces, sizeof(*v), cmp_key);
	for (size_t i = 0; i < z->npieces; i++) {
		size_t first = (size_t)(v[i] - z->pieces);

		if (i && !strcmp(v[i]->key, v[i - 1]->key))
			first = v[i - 1]->same;
		v[i]->same = first;
	}
	free(v);
	return 0;
}

int rk_tarz_plan_members(const struct rk_composite *l, const uint64_t *ends, size_t n, int level,
			 struct rk_tarz **out)
{
	struct rk_tarz *z = tarz_new(RK_CODEC_DEFLATE, level);
	size_t cap = 0;
	uint64_t start = 0;
	int rc = 0;

	if (!z)
		return -ENOMEM;
	for (size_t i = 0; !rc && i < n; i++) {
		for (uint64_t o = start; !rc && o < ends[i]; o += DATA_CHUNK) {
			uint64_t len = RK_MIN((uint64_t)DATA_CHUNK, ends[i] - o);

			if (!(rc = add_piece(z, &cap, o, len)))
				z->pieces[z->npieces - 1].last = o + len == ends[i];
		}
		start = ends[i];
	}
	if (!rc && start != l->size)
		rc = -EINVAL;
	return plan_done(z, l, rc, out);
}

void rk_tarz_free(struct rk_tarz *z)
{
	if (!z)
		return;
	pthread_mutex_destroy(&z->lock);
	free(z->pieces);
	free(z->header);
	free(z->trailer);
	free(z);
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

/* Raw deflate (zlib, no header) of in[0..len) into out: a stream's end when last, else a
 * sync flush (an empty stored block: byte-aligned, not final) so that what follows may
 * be the next piece's. Every piece starts with a fresh state, so it depends only on its
 * own bytes. */
static int raw_deflate(int level, int last, const char *in, size_t len, char *out, size_t cap,
		       size_t *n, struct rk_err *err)
{
	z_stream s;
	int rc;

	memset(&s, 0, sizeof(s));
	if (deflateInit2(&s, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return rk_err_set(err, -ENOMEM, "deflate: cannot start");
	s.next_in = (Bytef *)in;
	s.avail_in = (uInt)len;
	s.next_out = (Bytef *)out;
	s.avail_out = (uInt)cap;
	rc = deflate(&s, last ? Z_FINISH : Z_SYNC_FLUSH);
	*n = cap - s.avail_out;
	deflateEnd(&s);
	if (s.avail_in || (last ? rc != Z_STREAM_END : rc != Z_OK))
		return rk_err_set(err, -EIO, "deflate: %d (%u bytes left)", rc, s.avail_in);
	return 0;
}

/* One xz block of in[0..len): LZMA2 at level's preset, its dictionary no larger than
 * the piece (the same bytes, less memory to make and to read), CRC64 as xz's default.
 * *pad: the block padding, which the stream's index leaves out. */
static int xz_block(int level, const char *in, size_t len, char *out, size_t cap, size_t *n,
		    uint8_t *pad, struct rk_err *err)
{
	lzma_options_lzma opt;
	lzma_filter f[2] = {{LZMA_FILTER_LZMA2, &opt}, {LZMA_VLI_UNKNOWN, NULL}};
	lzma_block b;
	lzma_ret r;

	if (lzma_lzma_preset(&opt, (uint32_t)level))
		return rk_err_set(err, -EINVAL, "xz: no preset %d", level);
	if (opt.dict_size > len)
		opt.dict_size = len < LZMA_DICT_SIZE_MIN ? LZMA_DICT_SIZE_MIN : (uint32_t)len;
	memset(&b, 0, sizeof(b));
	b.check = LZMA_CHECK_CRC64;
	b.filters = f;
	*n = 0;
	if ((r = lzma_block_buffer_encode(&b, NULL, (const uint8_t *)in, len, (uint8_t *)out, n,
					  cap)) != LZMA_OK)
		return rk_err_set(err, r == LZMA_MEM_ERROR ? -ENOMEM : -EIO, "xz: error %d", r);
	*pad = (uint8_t)(*n - lzma_block_unpadded_size(&b));
	return 0;
}

/* The padding of the xz block a cached piece holds (clen bytes at fd), from its header
 * (which names its compressed size: lzma_block_buffer_encode writes it). */
static int xz_block_pad(int fd, uint64_t clen, uint8_t *pad)
{
	uint8_t h[LZMA_BLOCK_HEADER_SIZE_MAX];
	lzma_filter f[LZMA_FILTERS_MAX + 1];
	lzma_block b;
	ssize_t got = pread(fd, h, sizeof(h), 0);
	lzma_vli unpadded;

	if (got < 1)
		return -EIO;
	memset(&b, 0, sizeof(b));
	b.check = LZMA_CHECK_CRC64;
	b.filters = f;
	b.header_size = lzma_block_header_size_decode(h[0]);
	if ((size_t)got < b.header_size || lzma_block_header_decode(&b, NULL, h) != LZMA_OK)
		return -EBADMSG;
	for (size_t i = 0; f[i].id != LZMA_VLI_UNKNOWN; i++)
		free(f[i].options);
	unpadded = lzma_block_unpadded_size(&b);
	if (!unpadded || unpadded > clen || clen - unpadded > 3)
		return -EBADMSG;
	*pad = (uint8_t)(clen - unpadded);
	return 0;
}

/* Reading the uncompressed file's sources: its blobs, through one cursor. */
struct src_read {
	struct rk_cache *c;
	const struct rk_composite *l;
	struct rk_blob_cursor cur;
	struct rk_err *err;
};

static ssize_t src_read(void *ctx, uint32_t src, void *buf, size_t n, uint64_t off)
{
	struct src_read *r = ctx;
	int rc = src < r->l->nsources
			 ? rk_blob_cursor_pread(&r->cur, r->c, &r->l->sources[src], buf, n, off,
						r->err)
			 : rk_err_set(r->err, -EINVAL, "source %u is not in the table", src);

	return rc ? rc : (ssize_t)n;
}

/* Compress piece p (reading the .tar tar) into a blob. A failure is in err, not logged:
 * whoever asked for the piece logs it (once). */
static int compress_piece(struct rk_tarz *z, struct rk_tarz_piece *p, struct rk_cache *c,
			  const struct rk_composite *tar, struct rk_err *err)
{
	size_t bound = z->codec == RK_CODEC_ZSTD      ? ZSTD_compressBound((size_t)p->ulen)
		       : z->codec == RK_CODEC_DEFLATE ? compressBound((uLong)p->ulen) + 64
		       : z->codec == RK_CODEC_XZ      ? lzma_block_buffer_bound((size_t)p->ulen)
						      : (size_t)p->ulen + p->ulen / 8 + 1024;
	char *in = malloc((size_t)p->ulen), *out = malloc(bound), rel[100];
	size_t got = 0, n = 0;
	int rc = 0;

	if (!in || !out)
		rc = -ENOMEM;
	while (!rc && got < p->ulen) {
		struct src_read sr = {c, tar, RK_BLOB_CURSOR_INIT, err};
		ssize_t r = rk_composite_pread(tar, src_read, &sr, in + got,
					       (size_t)(p->ulen - got), p->uoff + got);

		rk_blob_cursor_close(&sr.cur);
		if (r <= 0)
			rc = r < 0 ? (int)r : rk_err_set(err, -EIO, "piece ends early");
		else
			got += (size_t)r;
	}
	if (!rc && z->codec == RK_CODEC_DEFLATE) {
		rc = raw_deflate(z->level, p->last, in, (size_t)p->ulen, out, bound, &n, err);
	} else if (!rc && z->codec == RK_CODEC_XZ) {
		rc = xz_block(z->level, in, (size_t)p->ulen, out, bound, &n, &p->pad, err);
	} else if (!rc && z->codec == RK_CODEC_ZSTD) {
		n = ZSTD_compress(out, bound, in, (size_t)p->ulen, z->level);
		if (ZSTD_isError(n))
			rc = rk_err_set(err, -EIO, "zstd: %s", ZSTD_getErrorName(n));
	} else if (!rc) {
		struct libdeflate_compressor *d = libdeflate_alloc_compressor(z->level);

		if (!d)
			rc = -ENOMEM;
		else if (!(n = libdeflate_gzip_compress(d, in, (size_t)p->ulen, out, bound)))
			rc = rk_err_set(err, -EIO, "gzip: output larger than its bound");
		libdeflate_free_compressor(d);
	}
	if (!rc) {
		p->clen = n;
		p->crc = (uint32_t)libdeflate_crc32(0, out, n);
		snprintf(rel, sizeof(rel), "pieces/%s", p->key);
		rc = rk_cache_put_file(c, rel, out, n, err);
		if (!rc)
			rk_cache_added(c, n + TRAILER);
	}
	free(in);
	free(out);
	return rc;
}

/* A piece compressed before (by any archive, any process): its size and CRC32 (an xz
 * block's padding read from its header; one that cannot be read is made again). */
static int find_piece(const struct rk_tarz *z, struct rk_tarz_piece *p, struct rk_cache *c)
{
	char rel[100];
	int fd, ok = 1;

	snprintf(rel, sizeof(rel), "pieces/%s", p->key);
	if (rk_cache_open_file(c, rel, &fd, &p->clen, &p->crc))
		return 0;
	if (z->codec == RK_CODEC_XZ)
		ok = !xz_block_pad(fd, p->clen, &p->pad);
	close(fd);
	return ok;
}

struct job {
	struct rk_tarz *z;
	struct rk_cache *c;
	const struct rk_composite *tar;
	_Atomic size_t next;
	_Atomic unsigned compressed, reused;
	pthread_mutex_t lock; /* protects: err */
	_Atomic int rc; /* the first failure */
	struct rk_err err;
};

static void *worker(void *arg)
{
	struct job *j = arg;
	size_t i;

	while ((i = atomic_fetch_add(&j->next, 1)) < j->z->npieces) {
		struct rk_err err = RK_ERR_INIT;
		int rc = 0;

		if (j->rc)
			break;
		if (j->z->pieces[i].same != i) /* made as its first (after the workers) */
			j->reused++;
		else if (find_piece(j->z, &j->z->pieces[i], j->c))
			j->reused++;
		else if (!(rc = compress_piece(j->z, &j->z->pieces[i], j->c, j->tar, &err)))
			j->compressed++;
		if (rc) {
			int none = 0;

			pthread_mutex_lock(&j->lock);
			if (atomic_compare_exchange_strong(&j->rc, &none, rc))
				j->err = err;
			pthread_mutex_unlock(&j->lock);
		}
	}
	return NULL;
}

/* The zstd seekable format's seek table: a skippable frame listing every frame. */
static int seek_table(struct rk_tarz *z)
{
	size_t n = z->npieces, len = 8 + 8 * n + 9;
	unsigned char *t = malloc(len);

	if (!t)
		return -ENOMEM;
	put32(t, SKIPPABLE_MAGIC);
	put32(t + 4, (uint32_t)(len - 8));
	for (size_t i = 0; i < n; i++) {
		put32(t + 8 + 8 * i, (uint32_t)z->pieces[i].clen);
		put32(t + 12 + 8 * i, (uint32_t)z->pieces[i].ulen);
	}
	put32(t + 8 + 8 * n, (uint32_t)n);
	t[12 + 8 * n] = 0; /* descriptor: no checksums */
	put32(t + 13 + 8 * n, SEEKABLE_MAGIC);
	z->trailer = t;
	z->trailer_len = len;
	return 0;
}

/* xz: the stream header before the blocks, the index and stream footer after them. */
static int xz_frame(struct rk_tarz *z)
{
	lzma_stream_flags fl = {.version = 0, .check = LZMA_CHECK_CRC64};
	lzma_index *ix = lzma_index_init(NULL);
	size_t pos = 0, len;
	int rc = ix ? 0 : -ENOMEM;

	for (size_t i = 0; !rc && i < z->npieces; i++)
		if (lzma_index_append(ix, NULL, z->pieces[i].clen - z->pieces[i].pad,
				      z->pieces[i].ulen) != LZMA_OK)
			rc = -EIO;
	if (rc)
		goto out;
	fl.backward_size = lzma_index_size(ix);
	len = (size_t)fl.backward_size + LZMA_STREAM_HEADER_SIZE;
	if (!(z->header = malloc(LZMA_STREAM_HEADER_SIZE)) || !(z->trailer = malloc(len))) {
		rc = -ENOMEM;
		goto out;
	}
	if (lzma_stream_header_encode(&fl, z->header) != LZMA_OK ||
	    lzma_index_buffer_encode(ix, z->trailer, &pos, len) != LZMA_OK ||
	    lzma_stream_footer_encode(&fl, z->trailer + pos) != LZMA_OK) {
		rc = -EIO;
		goto out;
	}
	z->header_len = LZMA_STREAM_HEADER_SIZE;
	z->trailer_len = len;
out:
	if (rc) {
		free(z->header);
		free(z->trailer);
		z->header = z->trailer = NULL;
	}
	lzma_index_end(ix, NULL);
	return rc;
}

int rk_tarz_compute(struct rk_tarz *z, struct rk_cache *c, const struct rk_composite *tar,
		    unsigned threads, struct rk_err *err)
{
	struct job j = {z, c, tar, 0, 0, 0, PTHREAD_MUTEX_INITIALIZER, 0, RK_ERR_INIT};
	pthread_t t[16];
	unsigned started = 0;
	int rc = 0;

	pthread_mutex_lock(&z->lock);
	if (z->ready) {
		pthread_mutex_unlock(&z->lock);
		return 0;
	}
	if (threads < 1)
		threads = 1;
	if (threads > 16)
		threads = 16;
	for (unsigned i = 1; i < threads; i++)
		if (!pthread_create(&t[started], NULL, worker, &j))
			started++;
	worker(&j);
	for (unsigned i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	rc = j.rc;
	if (rc && err)
		*err = j.err;
	if (!rc) {
		uint64_t off = z->codec == RK_CODEC_XZ ? LZMA_STREAM_HEADER_SIZE : 0;

		for (size_t i = 0; i < z->npieces; i++) {
			const struct rk_tarz_piece *first = &z->pieces[z->pieces[i].same];

			z->pieces[i].clen = first->clen;
			z->pieces[i].crc = first->crc;
			z->pieces[i].pad = first->pad;
			z->pieces[i].coff = off;
			off += z->pieces[i].clen;
		}
		if (z->codec == RK_CODEC_ZSTD && !z->trailer)
			rc = seek_table(z);
		else if (z->codec == RK_CODEC_XZ && !z->trailer)
			rc = xz_frame(z);
		z->size = off + z->trailer_len;
		z->compressed = j.compressed;
		z->reused = j.reused;
		z->ready = !rc;
	}
	pthread_mutex_unlock(&z->lock);
	pthread_mutex_destroy(&j.lock);
	return rc;
}

/* Open piece p (the cache checks its bytes) and check it is the one the layout has. */
static int open_checked(struct rk_tarz_piece *p, struct rk_cache *c, int *out)
{
	uint64_t clen;
	uint32_t crc;
	char rel[100];
	int fd, rc;

	snprintf(rel, sizeof(rel), "pieces/%s", p->key);
	if ((rc = rk_cache_open_file(c, rel, &fd, &clen, &crc)))
		return rc;
	if (clen != p->clen || crc != p->crc) {
		close(fd);
		rk_warn("cache: compressed piece %.12s is not the one expected; discarded", p->key);
		rk_cache_remove_file(c, rel);
		return -EBADMSG;
	}
	*out = fd;
	return 0;
}

int rk_tarz_open_piece(struct rk_tarz *z, size_t i, struct rk_cache *c,
		       const struct rk_composite *tar, int *fd, struct rk_err *err)
{
	struct rk_tarz_piece p = z->pieces[i];
	int rc = open_checked(&z->pieces[i], c, fd);

	if (rc != -ENOENT && rc != -EBADMSG)
		return rc;
	if ((rc = compress_piece(z, &p, c, tar, err)))
		return rc;
	if (p.clen != z->pieces[i].clen || p.crc != z->pieces[i].crc)
		return rk_err_set(err, -EIO, "piece %zu compressed differently this time", i);
	return open_checked(&z->pieces[i], c, fd);
}

size_t rk_tarz_find(const struct rk_tarz *z, uint64_t off)
{
	size_t lo = 0, hi = z->npieces;

	if (!z->npieces || off < z->header_len || off >= z->size - z->trailer_len)
		return z->npieces;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (z->pieces[mid].coff <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The source's origin: the cached piece whose key is id. */
static int piece_reopen(struct rk_origin *o, const char *id, uint64_t size, int *fd,
			struct rk_err *err)
{
	struct rk_tarz_origin *t = (struct rk_tarz_origin *)o;

	for (size_t i = 0; i < t->z->npieces; i++)
		if (!strcmp(t->z->pieces[i].key, id) && t->z->pieces[i].clen == size)
			return rk_tarz_open_piece(t->z, i, t->c, t->tar, fd, err);
	return rk_err_set(err, -ENOENT, "compressed piece %.12s: not in this file", id);
}

int rk_tarz_append(struct rk_tarz_origin *o, struct rk_composite *out)
{
	const struct rk_tarz *z = o->z;
	int rc = z->ready ? 0 : -EINVAL;

	o->o.reopen = piece_reopen;
	if (!rc && z->header_len)
		rc = rk_composite_bytes(out, z->header, z->header_len);
	for (size_t i = 0; !rc && i < z->npieces; i++) {
		uint32_t src;

		if (!(rc = rk_composite_add_source(out, z->pieces[i].key, z->pieces[i].clen, &o->o,
						   &src)))
			rc = rk_composite_source(out, src, 0, z->pieces[i].clen);
	}
	if (!rc && z->trailer_len)
		rc = rk_composite_bytes(out, z->trailer, z->trailer_len);
	return rc;
}
