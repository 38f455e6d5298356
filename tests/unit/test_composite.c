/* test_composite.c: pieces, edits, sources and reads of rk/composite.h (against a flat
 * model), and reading one over cache blobs (cache/composite_read.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rk/cache.h"
#include "rk/composite.h"
#include "cache/composite_read.h"
#include "rk_test.h"

static unsigned char src0[4096], src1[4096];

static ssize_t read_src(void *ctx, uint32_t src, void *buf, size_t n, uint64_t off)
{
	const unsigned char *s = src ? src1 : src0;

	(void)ctx;
	if (off >= sizeof(src0))
		return 0;
	if (n > sizeof(src0) - off)
		n = sizeof(src0) - off;
	memcpy(buf, s + off, n);
	return (ssize_t)n;
}

static void fill(void)
{
	for (size_t i = 0; i < sizeof(src0); i++) {
		src0[i] = (unsigned char)(i * 7 + 1);
		src1[i] = (unsigned char)(i * 13 + 5);
	}
}

/* Every byte and every sub-range of s equals model[0..len). */
static void check(const struct rk_composite *s, const unsigned char *model, size_t len)
{
	unsigned char *buf = malloc(len + 1);

	RK_ASSERT(buf);
	RK_ASSERT_EQ_INT(len, s->size);
	RK_ASSERT_EQ_INT(len, rk_composite_pread(s, read_src, NULL, buf, len + 10, 0));
	RK_ASSERT_EQ_MEM(model, buf, len);
	for (size_t off = 0; off < len; off += 37) {
		size_t n = len - off < 301 ? len - off : 301;

		RK_ASSERT_EQ_INT(n, rk_composite_pread(s, read_src, NULL, buf, n, off));
		RK_ASSERT_EQ_MEM(model + off, buf, n);
	}
	for (size_t i = 0; i < s->npieces; i++) {
		RK_ASSERT(s->pieces[i].len > 0);
		RK_ASSERT_EQ_INT(i ? s->pieces[i - 1].off + s->pieces[i - 1].len : 0,
				 s->pieces[i].off);
	}
	RK_ASSERT_EQ_INT(0, rk_composite_pread(s, read_src, NULL, buf, 1, len));
	free(buf);
}

RK_TEST(append_merges_and_reads)
{
	struct rk_composite s = RK_COMPOSITE_INIT;
	unsigned char model[4096 + 100];

	fill();
	RK_ASSERT_EQ_INT(0, rk_composite_source(&s, 0, 0, 1000));
	RK_ASSERT_EQ_INT(0, rk_composite_source(&s, 0, 1000, 1000)); /* continues: merged */
	RK_ASSERT_EQ_INT(1, s.npieces);
	RK_ASSERT_EQ_INT(0, rk_composite_bytes(&s, "hello", 5));
	RK_ASSERT_EQ_INT(0, rk_composite_zero(&s, 95));
	RK_ASSERT_EQ_INT(0, rk_composite_source(&s, 1, 100, 2000));
	RK_ASSERT_EQ_INT(0, rk_composite_source(&s, 0, 0, 0)); /* empty: nothing */
	memcpy(model, src0, 2000);
	memcpy(model + 2000, "hello", 5);
	memset(model + 2005, 0, 95);
	memcpy(model + 2100, src1 + 100, 2000);
	check(&s, model, 4100);
	RK_ASSERT_EQ_INT(4, s.npieces);
	rk_composite_release(&s);
}

RK_TEST(write_and_cut_match_a_flat_model)
{
	struct rk_composite s = RK_COMPOSITE_INIT;
	unsigned char model[8192], patch[300];
	size_t len = 4096;
	unsigned seed = 12345;

	fill();
	memcpy(model, src0, len);
	RK_ASSERT_EQ_INT(0, rk_composite_source(&s, 0, 0, len));
	for (int round = 0; round < 400; round++) {
		size_t off, n;

		seed = seed * 1103515245u + 12345u;
		off = (seed >> 8) % len;
		n = 1 + (seed >> 4) % 256;
		if (n > len - off)
			n = len - off;
		if (round % 3 == 2 && len > 600) {
			RK_ASSERT_EQ_INT(0, rk_composite_cut(&s, off, n));
			memmove(model + off, model + off + n, len - off - n);
			len -= n;
		} else if (round % 7 == 6 && len < 7000) {
			RK_ASSERT_EQ_INT(0, rk_composite_source(&s, 1, off, n));
			memcpy(model + len, src1 + off, n);
			len += n;
		} else {
			for (size_t i = 0; i < n; i++)
				patch[i] = (unsigned char)(round + i);
			RK_ASSERT_EQ_INT(0, rk_composite_write(&s, off, patch, n));
			memcpy(model + off, patch, n);
		}
		if (round % 50 == 0)
			check(&s, model, len);
	}
	check(&s, model, len);
	rk_composite_release(&s);
}

RK_TEST(edits_outside_are_refused)
{
	struct rk_composite s = RK_COMPOSITE_INIT;

	RK_ASSERT_EQ_INT(0, rk_composite_zero(&s, 10));
	RK_ASSERT_EQ_INT(-EINVAL, rk_composite_write(&s, 8, "abc", 3));
	RK_ASSERT_EQ_INT(-EINVAL, rk_composite_cut(&s, 11, 1));
	RK_ASSERT_EQ_INT(-EINVAL, rk_composite_cut(&s, 5, 6));
	RK_ASSERT_EQ_INT(0, rk_composite_cut(&s, 0, 10));
	RK_ASSERT_EQ_INT(0, s.size);
	RK_ASSERT(!rk_composite_find(&s, 0));
	rk_composite_release(&s);
}

static ssize_t short_src(void *ctx, uint32_t src, void *buf, size_t n, uint64_t off)
{
	(void)ctx, (void)src, (void)buf, (void)n, (void)off;
	return 0;
}

RK_TEST(short_source_is_an_error)
{
	struct rk_composite s = RK_COMPOSITE_INIT;
	char buf[10];

	RK_ASSERT_EQ_INT(0, rk_composite_source(&s, 0, 0, 10));
	RK_ASSERT_EQ_INT(-EIO, rk_composite_pread(&s, short_src, NULL, buf, 10, 0));
	rk_composite_release(&s);
}

#define ID_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define ID_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

/* Source 0 reads src0, every other source src1 (for composites with a table). */
static ssize_t read_by_table(void *ctx, uint32_t src, void *buf, size_t n, uint64_t off)
{
	const struct rk_composite *c = ctx;

	RK_ASSERT(src < c->nsources);
	return read_src(NULL, strcmp(c->sources[src].id, ID_A) ? 1 : 0, buf, n, off);
}

RK_TEST(sources_travel_with_append_and_copy)
{
	struct rk_composite in = RK_COMPOSITE_INIT, out = RK_COMPOSITE_INIT, *dup = NULL;
	struct rk_origin o = {NULL};
	unsigned char model[700], *room;
	uint32_t a, b;

	fill();
	RK_ASSERT_EQ_INT(0, rk_composite_add_source(&in, ID_A, 4096, &o, &a));
	RK_ASSERT_EQ_INT(0, rk_composite_add_source(&in, ID_B, 4096, NULL, &b));
	RK_ASSERT_EQ_INT(0, a);
	RK_ASSERT_EQ_INT(1, b);
	RK_ASSERT_EQ_INT(0, rk_composite_source(&in, b, 10, 100));
	RK_ASSERT_EQ_INT(0, rk_composite_bytes(&in, "xy", 2));
	RK_ASSERT_EQ_INT(0, rk_composite_source(&in, a, 20, 98));
	/* out has a source of its own: in's are renumbered after it */
	RK_ASSERT_EQ_INT(0, rk_composite_add_source(&out, ID_A, 4096, NULL, NULL));
	RK_ASSERT_EQ_INT(0, rk_composite_source(&out, 0, 0, 300));
	RK_ASSERT((room = rk_composite_bytes_room(&out, 200)) != NULL);
	RK_ASSERT_EQ_INT(0, room[0] | room[199]);
	memset(room, 'z', 200);
	RK_ASSERT_EQ_INT(0, rk_composite_append(&out, &in));
	RK_ASSERT_EQ_INT(3, out.nsources);
	RK_ASSERT_EQ_STR(ID_B, out.sources[2].id);
	RK_ASSERT(out.sources[1].origin == &o);
	RK_ASSERT_EQ_INT(2, out.pieces[2].src);
	memcpy(model, src0, 300);
	memset(model + 300, 'z', 200);
	memcpy(model + 500, src1 + 10, 100);
	memcpy(model + 600, "xy", 2);
	memcpy(model + 602, src0 + 20, 98);
	RK_ASSERT_EQ_INT(700, out.size);
	/* "zz" and "xy" are not next to each other in the arena: 5 pieces */
	RK_ASSERT_EQ_INT(5, out.npieces);
	RK_ASSERT_EQ_INT(0, rk_composite_copy(&out, &dup));
	rk_composite_release(&out);
	rk_composite_release(&in);
	{
		unsigned char buf[700];

		RK_ASSERT_EQ_INT(700, rk_composite_pread(dup, read_by_table, dup, buf, 700, 0));
		RK_ASSERT_EQ_MEM(model, buf, 700);
	}
	/* a piece numbered past the table cannot be appended */
	RK_ASSERT_EQ_INT(0, rk_composite_source(&in, 3, 0, 1));
	RK_ASSERT_EQ_INT(-EINVAL, rk_composite_append(&out, &in));
	rk_composite_release(&in);
	rk_composite_release(&out);
	rk_composite_free(dup);
	rk_composite_free(NULL);
}

/* An origin that re-creates its blob from src0 and counts the calls. */
struct test_origin {
	struct rk_origin o; /* first */
	struct rk_cache *c;
	unsigned calls;
};

static int test_reopen(struct rk_origin *o, const char *id, uint64_t size, int *fd,
		       struct rk_err *err)
{
	struct test_origin *t = (struct test_origin *)o;
	char made[RK_SHA256_HEX];
	int rc;

	t->calls++;
	if ((rc = rk_blob_put(t->c, src0, (size_t)size, made, err)))
		return rc;
	RK_ASSERT_EQ_STR(id, made);
	return rk_blob_open(t->c, id, size, fd, err);
}

RK_TEST(blob_reader_reopens_through_the_origin)
{
	struct rk_err err = RK_ERR_INIT;
	struct rk_cache *c = NULL;
	struct test_origin t = {{test_reopen}, NULL, 0};
	struct rk_composite comp = RK_COMPOSITE_INIT;
	struct rk_blob_cursor cur = RK_BLOB_CURSOR_INIT;
	unsigned char buf[1100];
	char id[RK_SHA256_HEX];
	int fd;

	fill();
	RK_ASSERT_EQ_INT(0, rk_cache_open("cache", 0, &c, &err));
	t.c = c;
	RK_ASSERT_EQ_INT(0, rk_sha256_buf(src0, 1000, id)); /* a blob the cache lacks */
	RK_ASSERT_EQ_INT(0, rk_composite_bytes(&comp, "head", 4));
	RK_ASSERT_EQ_INT(0, rk_composite_add_source(&comp, id, 1000, &t.o, NULL));
	RK_ASSERT_EQ_INT(0, rk_composite_source(&comp, 0, 500, 500));
	RK_ASSERT_EQ_INT(0, rk_composite_zero(&comp, 96));
	RK_ASSERT_EQ_INT(0, rk_composite_source(&comp, 0, 0, 500));
	RK_ASSERT_EQ_INT(1100, rk_composite_pread_blobs(c, &comp, buf, 1100, 0, &err));
	RK_ASSERT_EQ_INT(1, t.calls);
	RK_ASSERT_EQ_MEM("head", buf, 4);
	RK_ASSERT_EQ_MEM(src0 + 500, buf + 4, 500);
	RK_ASSERT_EQ_INT(0, buf[504] | buf[599]);
	RK_ASSERT_EQ_MEM(src0, buf + 600, 500);
	/* now it is cached: no second call; a cursor keeps its descriptor */
	RK_ASSERT_EQ_INT(0, rk_blob_cursor_open(&cur, c, &comp.sources[0], &err));
	fd = cur.fd;
	RK_ASSERT_EQ_INT(0, rk_blob_cursor_pread(&cur, c, &comp.sources[0], buf, 10, 990, &err));
	RK_ASSERT_EQ_INT(fd, cur.fd);
	RK_ASSERT_EQ_MEM(src0 + 990, buf, 10);
	/* past the blob's end: damaged */
	RK_ASSERT_EQ_INT(-EIO, rk_blob_cursor_pread(&cur, c, &comp.sources[0], buf, 20, 990, &err));
	rk_blob_cursor_close(&cur);
	RK_ASSERT_EQ_INT(-1, cur.fd);
	RK_ASSERT_EQ_INT(1, t.calls);
	/* without an origin a missing blob is a read error */
	comp.sources[0].origin = NULL;
	memcpy(comp.sources[0].id, ID_B, RK_SHA256_HEX);
	RK_ASSERT_EQ_INT(-EIO, rk_composite_pread_blobs(c, &comp, buf, 10, 0, &err));
	RK_ASSERT_EQ_INT(1, t.calls);
	rk_composite_release(&comp);
	rk_cache_close(c);
}

/* Extents (what the daemon splices) hold exactly the bytes the copying reader reads, for
 * every offset and size, across piece boundaries and long zero runs. */
RK_TEST(extents_equal_the_copying_reader)
{
	static unsigned char want[80000], got[80000];
	struct rk_err err = RK_ERR_INIT;
	struct rk_cache *c = NULL;
	struct rk_composite comp = RK_COMPOSITE_INIT;
	struct rk_blob_set set;
	struct rk_extent ext[16];
	char id0[RK_SHA256_HEX], id1[RK_SHA256_HEX];
	static const uint64_t offs[] = {0,     1,     6,     7,	    8,	   2899,  2900,	 2907,
					40000, 72906, 72907, 77002, 77003, 77006, 77007, 77016};
	static const size_t sizes[] = {1, 2, 4095, 4096, 65537, 80000};

	fill();
	RK_ASSERT_EQ_INT(0, rk_cache_open("cache", 0, &c, &err));
	RK_ASSERT_EQ_INT(0, rk_blob_put(c, src0, sizeof(src0), id0, &err));
	RK_ASSERT_EQ_INT(0, rk_blob_put(c, src1, sizeof(src1), id1, &err));
	RK_ASSERT_EQ_INT(0, rk_composite_add_source(&comp, id0, sizeof(src0), NULL, NULL));
	RK_ASSERT_EQ_INT(0, rk_composite_add_source(&comp, id1, sizeof(src1), NULL, NULL));
	RK_ASSERT_EQ_INT(0, rk_composite_bytes(&comp, "header!", 7)); /* [0, 7) */
	RK_ASSERT_EQ_INT(0, rk_composite_source(&comp, 0, 100, 2900)); /* [7, 2907) */
	RK_ASSERT_EQ_INT(0, rk_composite_zero(&comp, 70000)); /* [2907, 72907): two extents */
	RK_ASSERT_EQ_INT(0, rk_composite_source(&comp, 1, 0, 4096)); /* [72907, 77003) */
	RK_ASSERT_EQ_INT(0, rk_composite_bytes(&comp, "tail", 4)); /* [77003, 77007) */
	RK_ASSERT_EQ_INT(0, rk_composite_source(&comp, 0, 0, 10)); /* [77007, 77017) */
	rk_blob_set_init(&set);
	for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		for (size_t j = 0; j < sizeof(sizes) / sizeof(sizes[0]); j++) {
			ssize_t n =
				rk_composite_pread_blobs(c, &comp, want, sizes[j], offs[i], &err);
			ssize_t k = rk_composite_extents(&set, c, &comp, offs[i], sizes[j], ext, 16,
							 &err);
			size_t len = 0;

			RK_ASSERT(n > 0);
			RK_ASSERT(k > 0);
			for (ssize_t e = 0; e < k; e++) {
				if (ext[e].fd >= 0)
					RK_ASSERT_EQ_INT((ssize_t)ext[e].len,
							 pread(ext[e].fd, got + len, ext[e].len,
							       (off_t)ext[e].pos));
				else
					memcpy(got + len, ext[e].mem, ext[e].len);
				len += ext[e].len;
			}
			rk_extents_close(ext, (size_t)k);
			RK_ASSERT_EQ_INT(n, (ssize_t)len);
			RK_ASSERT_EQ_MEM(want, got, len);
		}
	}
	RK_ASSERT_EQ_INT(0, rk_composite_extents(&set, c, &comp, comp.size, 10, ext, 16, &err));
	RK_ASSERT_EQ_INT(-E2BIG, rk_composite_extents(&set, c, &comp, 0, 80000, ext, 3, &err));
	/* a missing blob without an origin is an error, and leaks no descriptor */
	memcpy(comp.sources[1].id, ID_B, RK_SHA256_HEX);
	rk_blob_set_release(&set);
	rk_blob_set_init(&set);
	RK_ASSERT(rk_composite_extents(&set, c, &comp, 0, 80000, ext, 16, &err) < 0);
	rk_blob_set_release(&set);
	rk_composite_release(&comp);
	rk_cache_close(c);
}
