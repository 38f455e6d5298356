/* test_splice.c: pieces, edits and reads of rk/splice.h against a flat model. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rk/splice.h"
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
static void check(const struct rk_splice *s, const unsigned char *model, size_t len)
{
	unsigned char *buf = malloc(len + 1);

	RK_ASSERT(buf);
	RK_ASSERT_EQ_INT(len, s->size);
	RK_ASSERT_EQ_INT(len, rk_splice_pread(s, read_src, NULL, buf, len + 10, 0));
	RK_ASSERT_EQ_MEM(model, buf, len);
	for (size_t off = 0; off < len; off += 37) {
		size_t n = len - off < 301 ? len - off : 301;

		RK_ASSERT_EQ_INT(n, rk_splice_pread(s, read_src, NULL, buf, n, off));
		RK_ASSERT_EQ_MEM(model + off, buf, n);
	}
	for (size_t i = 0; i < s->n; i++) {
		RK_ASSERT(s->v[i].len > 0);
		RK_ASSERT_EQ_INT(i ? s->v[i - 1].off + s->v[i - 1].len : 0, s->v[i].off);
	}
	RK_ASSERT_EQ_INT(0, rk_splice_pread(s, read_src, NULL, buf, 1, len));
	free(buf);
}

RK_TEST(append_merges_and_reads)
{
	struct rk_splice s = RK_SPLICE_INIT;
	unsigned char model[4096 + 100];

	fill();
	RK_ASSERT_EQ_INT(0, rk_splice_src(&s, 0, 0, 1000));
	RK_ASSERT_EQ_INT(0, rk_splice_src(&s, 0, 1000, 1000)); /* continues: merged */
	RK_ASSERT_EQ_INT(1, s.n);
	RK_ASSERT_EQ_INT(0, rk_splice_bytes(&s, "hello", 5));
	RK_ASSERT_EQ_INT(0, rk_splice_zero(&s, 95));
	RK_ASSERT_EQ_INT(0, rk_splice_src(&s, 1, 100, 2000));
	RK_ASSERT_EQ_INT(0, rk_splice_src(&s, 0, 0, 0)); /* empty: nothing */
	memcpy(model, src0, 2000);
	memcpy(model + 2000, "hello", 5);
	memset(model + 2005, 0, 95);
	memcpy(model + 2100, src1 + 100, 2000);
	check(&s, model, 4100);
	RK_ASSERT_EQ_INT(4, s.n);
	rk_splice_release(&s);
}

RK_TEST(write_and_cut_match_a_flat_model)
{
	struct rk_splice s = RK_SPLICE_INIT;
	unsigned char model[8192], patch[300];
	size_t len = 4096;
	unsigned seed = 12345;

	fill();
	memcpy(model, src0, len);
	RK_ASSERT_EQ_INT(0, rk_splice_src(&s, 0, 0, len));
	for (int round = 0; round < 400; round++) {
		size_t off, n;

		seed = seed * 1103515245u + 12345u;
		off = (seed >> 8) % len;
		n = 1 + (seed >> 4) % 256;
		if (n > len - off)
			n = len - off;
		if (round % 3 == 2 && len > 600) {
			RK_ASSERT_EQ_INT(0, rk_splice_cut(&s, off, n));
			memmove(model + off, model + off + n, len - off - n);
			len -= n;
		} else if (round % 7 == 6 && len < 7000) {
			RK_ASSERT_EQ_INT(0, rk_splice_src(&s, 1, off, n));
			memcpy(model + len, src1 + off, n);
			len += n;
		} else {
			for (size_t i = 0; i < n; i++)
				patch[i] = (unsigned char)(round + i);
			RK_ASSERT_EQ_INT(0, rk_splice_write(&s, off, patch, n));
			memcpy(model + off, patch, n);
		}
		if (round % 50 == 0)
			check(&s, model, len);
	}
	check(&s, model, len);
	rk_splice_release(&s);
}

RK_TEST(edits_outside_are_refused)
{
	struct rk_splice s = RK_SPLICE_INIT;

	RK_ASSERT_EQ_INT(0, rk_splice_zero(&s, 10));
	RK_ASSERT_EQ_INT(-EINVAL, rk_splice_write(&s, 8, "abc", 3));
	RK_ASSERT_EQ_INT(-EINVAL, rk_splice_cut(&s, 11, 1));
	RK_ASSERT_EQ_INT(-EINVAL, rk_splice_cut(&s, 5, 6));
	RK_ASSERT_EQ_INT(0, rk_splice_cut(&s, 0, 10));
	RK_ASSERT_EQ_INT(0, s.size);
	RK_ASSERT(!rk_splice_find(&s, 0));
	rk_splice_release(&s);
}

static ssize_t short_src(void *ctx, uint32_t src, void *buf, size_t n, uint64_t off)
{
	(void)ctx, (void)src, (void)buf, (void)n, (void)off;
	return 0;
}

RK_TEST(short_source_is_an_error)
{
	struct rk_splice s = RK_SPLICE_INIT;
	char buf[10];

	RK_ASSERT_EQ_INT(0, rk_splice_src(&s, 0, 0, 10));
	RK_ASSERT_EQ_INT(-EIO, rk_splice_pread(&s, short_src, NULL, buf, 10, 0));
	rk_splice_release(&s);
}
