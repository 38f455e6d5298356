/* test_tar_compress.c: cache/tar_compress.h as the packages use it. A composite of
 * literal bytes and cache blobs (one over 4 MiB: its own pieces) compressed as zstd and
 * as xz: the pieces appended to another composite (rk_tarz_append) read back through the
 * cache decompress to exactly the input (xz: one stream of many blocks, its index right,
 * as liblzma's single-stream decoder checks); a second file sharing the big blob finds
 * its pieces in the cache (xz: each block's padding read back from its header); a piece
 * removed from the cache is made again through the composite's origin. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lzma.h>
#include <zstd.h>

#include "rk/cache.h"
#include "cache/composite_read.h"
#include "cache/tar_compress.h"
#include "rk_test.h"

#define BIG (9u << 20) /* three data pieces: 4 + 4 + 1 MiB */
#define SMALL (300u << 10)

static struct rk_cache *open_cache(void)
{
	struct rk_cache *c = NULL;
	struct rk_err err = RK_ERR_INIT;

	RK_ASSERT_EQ_INT(0, rk_cache_open("cache", 0, &c, &err));
	return c;
}

/* Compressible bytes that differ with seed. */
static char *bytes(size_t n, unsigned seed)
{
	char *p = malloc(n);
	uint32_t x = seed * 2654435761u + 1;

	RK_ASSERT(p != NULL);
	for (size_t i = 0; i < n; i++) {
		if (i % 64 == 0)
			x = x * 1664525u + 1013904223u;
		p[i] = (char)('a' + (x >> (i % 5)) % 16);
	}
	return p;
}

/* A file like a tar: headers (literal), the big blob, headers, a small blob, a trailer;
 * head varies the first header (another archive sharing the big blob). *plain: its bytes. */
static void make_file(struct rk_cache *c, int head, struct rk_composite *l, char **plain)
{
	char *big = bytes(BIG, 1), *small = bytes(SMALL, 2), *h = bytes(70000, 3 + head);
	char idb[RK_SHA256_HEX], ids[RK_SHA256_HEX];
	struct rk_err err = RK_ERR_INIT;
	uint32_t sb, ss;
	size_t off = 0;

	*l = (struct rk_composite)RK_COMPOSITE_INIT;
	RK_ASSERT_EQ_INT(0, rk_blob_put(c, big, BIG, idb, &err));
	RK_ASSERT_EQ_INT(0, rk_blob_put(c, small, SMALL, ids, &err));
	RK_ASSERT_EQ_INT(0, rk_composite_add_source(l, idb, BIG, NULL, &sb));
	RK_ASSERT_EQ_INT(0, rk_composite_add_source(l, ids, SMALL, NULL, &ss));
	RK_ASSERT_EQ_INT(0, rk_composite_bytes(l, h, 512));
	RK_ASSERT_EQ_INT(0, rk_composite_source(l, sb, 0, BIG));
	for (int i = 0; i < 30; i++) /* many headers: cut at content-chosen ones */
		RK_ASSERT_EQ_INT(0, rk_composite_bytes(l, h + 512 + i * 2000, 2000));
	RK_ASSERT_EQ_INT(0, rk_composite_source(l, ss, 0, SMALL));
	RK_ASSERT_EQ_INT(0, rk_composite_zero(l, 1024));
	*plain = malloc(l->size);
	RK_ASSERT(*plain != NULL);
	memcpy(*plain, h, 512), off += 512;
	memcpy(*plain + off, big, BIG), off += BIG;
	memcpy(*plain + off, h + 512, 60000), off += 60000;
	memcpy(*plain + off, small, SMALL), off += SMALL;
	memset(*plain + off, 0, 1024), off += 1024;
	RK_ASSERT_EQ_INT(l->size, off);
	free(big), free(small), free(h);
}

/* z over l, computed, appended to out (its origin o). */
static struct rk_tarz *compress(struct rk_cache *c, const struct rk_composite *l, int codec,
				int level, struct rk_tarz_origin *o, struct rk_composite *out)
{
	struct rk_err err = RK_ERR_INIT;
	struct rk_tarz *z;

	RK_ASSERT_EQ_INT(0, rk_tarz_plan(l, codec, level, &z));
	RK_ASSERT(z->npieces >= 4);
	RK_ASSERT_EQ_INT(0, rk_tarz_compute(z, c, l, 2, &err));
	*o = (struct rk_tarz_origin){.z = z, .c = c, .tar = l};
	*out = (struct rk_composite)RK_COMPOSITE_INIT;
	RK_ASSERT_EQ_INT(0, rk_composite_bytes(out, "HEAD", 4));
	RK_ASSERT_EQ_INT(0, rk_tarz_append(o, out));
	RK_ASSERT_EQ_INT(4 + z->size, out->size);
	return z;
}

/* out's bytes after "HEAD", read through the cache, decompressed: must be plain. */
static void check(struct rk_cache *c, const struct rk_composite *out, int codec, const char *plain,
		  size_t len)
{
	struct rk_err err = RK_ERR_INIT;
	size_t n = (size_t)out->size - 4, got = 0;
	char *packed = malloc(n), *back = malloc(len + 1);

	RK_ASSERT(packed && back);
	RK_ASSERT_EQ_INT(n, rk_composite_pread_blobs(c, out, packed, n, 4, &err));
	if (codec == RK_CODEC_ZSTD) {
		got = ZSTD_decompress(back, len + 1, packed, n);
		RK_ASSERT(!ZSTD_isError(got));
	} else {
		lzma_stream s = LZMA_STREAM_INIT;

		/* no LZMA_CONCATENATED: one stream, as dpkg and rpm read it */
		RK_ASSERT_EQ_INT(LZMA_OK, lzma_stream_decoder(&s, UINT64_MAX, 0));
		s.next_in = (const uint8_t *)packed;
		s.avail_in = n;
		s.next_out = (uint8_t *)back;
		s.avail_out = len + 1;
		RK_ASSERT_EQ_INT(LZMA_STREAM_END, lzma_code(&s, LZMA_FINISH));
		RK_ASSERT_EQ_INT(0, s.avail_in);
		got = (size_t)s.total_out;
		lzma_end(&s);
	}
	RK_ASSERT_EQ_INT(len, got);
	RK_ASSERT(!memcmp(plain, back, len));
	free(packed), free(back);
}

static void round_trip(int codec, int level)
{
	struct rk_cache *c = open_cache();
	struct rk_composite l1, l2, o1, o2, o3;
	struct rk_tarz_origin g1, g2, g3;
	struct rk_tarz *z1, *z2, *z3;
	char *p1, *p2, rel[100];

	make_file(c, 0, &l1, &p1);
	z1 = compress(c, &l1, codec, level, &g1, &o1);
	RK_ASSERT_EQ_INT(0, z1->reused);
	check(c, &o1, codec, p1, (size_t)l1.size);

	/* another file sharing the big blob: its data pieces are found */
	make_file(c, 1, &l2, &p2);
	z2 = compress(c, &l2, codec, level, &g2, &o2);
	RK_ASSERT(z2->reused >= 2);
	RK_ASSERT(z2->compressed >= 1);
	check(c, &o2, codec, p2, (size_t)l2.size);

	/* the first again, every piece found: the same bytes */
	z3 = compress(c, &l1, codec, level, &g3, &o3);
	RK_ASSERT_EQ_INT(0, z3->compressed);
	RK_ASSERT_EQ_INT(z1->size, z3->size);
	check(c, &o3, codec, p1, (size_t)l1.size);

	/* a piece lost: made again through the origin, on read */
	snprintf(rel, sizeof(rel), "pieces/%s", z1->pieces[1].key);
	RK_ASSERT_EQ_INT(0, rk_cache_remove_file(c, rel));
	check(c, &o1, codec, p1, (size_t)l1.size);
	RK_ASSERT(rk_cache_has_file(c, rel));

	rk_composite_release(&o1), rk_composite_release(&o2), rk_composite_release(&o3);
	rk_tarz_free(z1), rk_tarz_free(z2), rk_tarz_free(z3);
	rk_composite_release(&l1), rk_composite_release(&l2);
	free(p1), free(p2);
	rk_cache_close(c);
}

RK_TEST(zstd_pieces_in_a_composite)
{
	round_trip(RK_CODEC_ZSTD, 3);
}

RK_TEST(xz_blocks_in_one_stream)
{
	round_trip(RK_CODEC_XZ, 6);
}

/* Not computed: nothing to append. */
RK_TEST(append_needs_compute)
{
	struct rk_composite l = RK_COMPOSITE_INIT, out = RK_COMPOSITE_INIT;
	struct rk_tarz_origin o = {0};

	RK_ASSERT_EQ_INT(0, rk_composite_bytes(&l, "abc", 3));
	RK_ASSERT_EQ_INT(0, rk_tarz_plan(&l, RK_CODEC_XZ, 6, &o.z));
	RK_ASSERT_EQ_INT(-EINVAL, rk_tarz_append(&o, &out));
	rk_tarz_free(o.z);
	rk_composite_release(&l);
}
