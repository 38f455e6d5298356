/* test_msgpack_read.c: the bounded msgpack reader (core/src/formats/archive/msgpack_read.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/archive/msgpack_read.h"
#include "rk_test.h"

#define ANY RK_MP_ANY_DEPTH

/* The header of b[0..n): its kind and count, and how many bytes the header took. */
static void head_is(const char *b, size_t n, enum rk_mp_kind kind, uint64_t count, size_t hlen)
{
	struct rk_mp_cursor c = RK_MP_CURSOR(b, n);
	struct rk_mp_head h;

	RK_ASSERT_EQ_INT(0, rk_mp_head(&c, &h));
	RK_ASSERT_EQ_INT((unsigned char)b[0], h.type);
	RK_ASSERT_EQ_INT(kind, h.kind);
	RK_ASSERT_EQ_INT(count, h.count);
	RK_ASSERT_EQ_INT(hlen, c.off);
}

static int skip(const void *b, size_t n, unsigned depth, size_t *end)
{
	struct rk_mp_cursor c = RK_MP_CURSOR(b, n);
	int rc = rk_mp_skip(&c, depth);

	if (end)
		*end = rc ? (size_t)-1 : c.off;
	return rc;
}

/* levels nested one-element arrays around nil (an empty array when empty_inner). */
static unsigned char *nested(size_t levels, int empty_inner, size_t *n)
{
	unsigned char *b = malloc(levels + 1);

	RK_ASSERT(b);
	memset(b, 0x91, levels);
	b[levels] = 0xc0;
	*n = levels + 1;
	if (empty_inner)
		b[levels - 1] = 0x90, *n = levels;
	return b;
}

RK_TEST(head_kinds)
{
	head_is("\x00", 1, RK_MP_INT, 0, 1);
	head_is("\x7f", 1, RK_MP_INT, 0, 1);
	head_is("\xe0", 1, RK_MP_INT, 0, 1);
	head_is("\xc0", 1, RK_MP_NIL, 0, 1);
	head_is("\xc2", 1, RK_MP_BOOL, 0, 1);
	head_is("\xc3", 1, RK_MP_BOOL, 0, 1);
	head_is("\x8f", 1, RK_MP_MAP, 15, 1);
	head_is("\x9f", 1, RK_MP_ARRAY, 15, 1);
	head_is("\xbf", 1, RK_MP_STR, 31, 1);
	head_is("\xc4\x05", 2, RK_MP_BIN, 5, 2);
	head_is("\xc5\x01\x02", 3, RK_MP_BIN, 0x102, 3);
	head_is("\xc6\x01\x02\x03\x04", 5, RK_MP_BIN, 0x01020304, 5);
	head_is("\xc7\x05", 2, RK_MP_EXT, 6, 2); /* + the ext type byte */
	head_is("\xc8\x00\x05", 3, RK_MP_EXT, 6, 3);
	head_is("\xc9\xff\xff\xff\xff", 5, RK_MP_EXT, 0x100000000ull, 5);
	head_is("\xca", 1, RK_MP_FLOAT, 4, 1);
	head_is("\xcb", 1, RK_MP_FLOAT, 8, 1);
	head_is("\xcc", 1, RK_MP_INT, 1, 1);
	head_is("\xcd", 1, RK_MP_INT, 2, 1);
	head_is("\xce", 1, RK_MP_INT, 4, 1);
	head_is("\xcf", 1, RK_MP_INT, 8, 1);
	head_is("\xd0", 1, RK_MP_INT, 1, 1);
	head_is("\xd3", 1, RK_MP_INT, 8, 1);
	head_is("\xd4", 1, RK_MP_EXT, 2, 1);
	head_is("\xd8", 1, RK_MP_EXT, 17, 1);
	head_is("\xd9\x22", 2, RK_MP_STR, 0x22, 2);
	head_is("\xda\x11\x70", 3, RK_MP_STR, 0x1170, 3);
	head_is("\xdb\x00\x00\x01\x00", 5, RK_MP_STR, 256, 5);
	head_is("\xdc\x00\x03", 3, RK_MP_ARRAY, 3, 3);
	head_is("\xdd\xff\xff\xff\xff", 5, RK_MP_ARRAY, 0xffffffffull, 5);
	head_is("\xde\x00\x02", 3, RK_MP_MAP, 2, 3);
	head_is("\xdf\x00\x00\x00\x01", 5, RK_MP_MAP, 1, 5);
}

RK_TEST(head_rejects)
{
	struct rk_mp_cursor c = RK_MP_CURSOR("", 0);
	struct rk_mp_head h;

	RK_ASSERT_EQ_INT(-EBADMSG, rk_mp_head(&c, &h)); /* nothing there */
	c = RK_MP_CURSOR("\xc1", 1);
	RK_ASSERT_EQ_INT(-EBADMSG, rk_mp_head(&c, &h)); /* the unused type */
	c = RK_MP_CURSOR("\xda\x00", 2);
	RK_ASSERT_EQ_INT(-EBADMSG, rk_mp_head(&c, &h)); /* length field cut off */
	c = RK_MP_CURSOR("\xdd\x00\x00\x00", 4);
	RK_ASSERT_EQ_INT(-EBADMSG, rk_mp_head(&c, &h));
	c = RK_MP_CURSOR("\xc7", 1);
	RK_ASSERT_EQ_INT(-EBADMSG, rk_mp_head(&c, &h));
}

RK_TEST(skip_ends_after_one_object)
{
	size_t end;

	/* {"a": [1, "xy"], "b": nil} then bytes that are never read */
	RK_ASSERT_EQ_INT(0, skip("\x82\xa1"
				 "a\x92\x01\xa2xy\xa1"
				 "b\xc0\xc1\xff",
				 13, ANY, &end));
	RK_ASSERT_EQ_INT(11, end);
	RK_ASSERT_EQ_INT(0, skip("\xcf\x01\x02\x03\x04\x05\x06\x07\x08", 9, ANY, &end));
	RK_ASSERT_EQ_INT(9, end);
	RK_ASSERT_EQ_INT(0, skip("\xd8\x01"
				 "0123456789abcdef",
				 18, ANY, &end));
	RK_ASSERT_EQ_INT(18, end);
	RK_ASSERT_EQ_INT(0, skip("\xc7\x02\x05xy", 5, ANY, &end)); /* ext8: type byte + 2 */
	RK_ASSERT_EQ_INT(5, end);
	RK_ASSERT_EQ_INT(0, skip("\x90", 1, 1, &end));
	RK_ASSERT_EQ_INT(1, end);
}

RK_TEST(skip_truncated)
{
	RK_ASSERT_EQ_INT(-EBADMSG, skip("\xa5xy", 3, ANY, NULL)); /* str body short */
	RK_ASSERT_EQ_INT(-EBADMSG, skip("\xcf\x01", 2, ANY, NULL)); /* uint64 payload short */
	RK_ASSERT_EQ_INT(-EBADMSG, skip("\xc7\x02\x05x", 4, ANY, NULL)); /* ext data short */
	RK_ASSERT_EQ_INT(-EBADMSG, skip("\x92\x01", 2, ANY, NULL)); /* an element missing */
	RK_ASSERT_EQ_INT(-EBADMSG, skip("\x81\xa1k", 3, ANY, NULL)); /* a value missing */
	RK_ASSERT_EQ_INT(-EBADMSG, skip("\x92\x91", 2, ANY, NULL)); /* nested, cut off */
	RK_ASSERT_EQ_INT(-EBADMSG, skip("\x91\xc1", 2, ANY, NULL)); /* 0xc1 inside */
	RK_ASSERT_EQ_INT(-EBADMSG, skip("", 0, ANY, NULL));
}

/* Counts are checked against the bytes left before they are used: a few bytes cannot
 * announce billions of elements, nor can an inner container claim bytes its siblings
 * still need. */
RK_TEST(skip_hostile_counts)
{
	RK_ASSERT_EQ_INT(-EBADMSG, skip("\xdd\xff\xff\xff\xff", 5, ANY, NULL));
	RK_ASSERT_EQ_INT(-EBADMSG, skip("\xdf\xff\xff\xff\xff", 5, ANY, NULL));
	RK_ASSERT_EQ_INT(-EBADMSG, skip("\xdf\xff\xff\xff\xff", 5, 8, NULL));
	RK_ASSERT_EQ_INT(-EBADMSG, skip("\xdb\xff\xff\xff\xff", 5, ANY, NULL));
	RK_ASSERT_EQ_INT(-EBADMSG, skip("\xc9\xff\xff\xff\xff\x00", 6, ANY, NULL));
	/* [[x, y, z], w]: the inner array's 3 fit the 4 bytes left, but not with w's */
	RK_ASSERT_EQ_INT(-EBADMSG, skip("\x92\x93\x01\x02\x03", 5, ANY, NULL));
	RK_ASSERT_EQ_INT(-EBADMSG, skip("\x81\x82\x01\x02\x03\x04", 6, ANY, NULL));
	RK_ASSERT_EQ_INT(0, skip("\x92\x93\x01\x02\x03\x04", 6, ANY, NULL));
}

/* kpack_elf.c's marker check allows 32 container levels per key or value. */
RK_TEST(skip_depth_limit)
{
	size_t n, end;
	unsigned char *b;

	b = nested(32, 0, &n);
	RK_ASSERT_EQ_INT(0, skip(b, n, 32, &end));
	RK_ASSERT_EQ_INT(n, end);
	free(b);
	b = nested(33, 0, &n);
	RK_ASSERT_EQ_INT(-ELOOP, skip(b, n, 32, NULL));
	RK_ASSERT_EQ_INT(0, skip(b, n, 33, NULL));
	RK_ASSERT_EQ_INT(0, skip(b, n, RK_MP_ANY_DEPTH, NULL));
	free(b);
	/* an empty container counts as a level */
	b = nested(33, 1, &n);
	RK_ASSERT_EQ_INT(-ELOOP, skip(b, n, 32, NULL));
	free(b);
	b = nested(32, 1, &n);
	RK_ASSERT_EQ_INT(0, skip(b, n, 32, NULL));
	free(b);
	/* levels close: [[[nil]], [[nil]]] is 3 deep, not 5 */
	RK_ASSERT_EQ_INT(0, skip("\x92\x91\x91\xc0\x91\x91\xc0", 7, 3, NULL));
	RK_ASSERT_EQ_INT(-ELOOP, skip("\x92\x91\x91\xc0\x91\x91\xc0", 7, 2, NULL));
	/* a map's values nest too */
	RK_ASSERT_EQ_INT(-ELOOP, skip("\x81\xa1k\x81\xa1k\x90", 7, 2, NULL));
	RK_ASSERT_EQ_INT(0, skip("\x81\xa1k\x81\xa1k\x90", 7, 3, NULL));
	RK_ASSERT_EQ_INT(-EINVAL, skip("\x90", 1, RK_MP_MAX_DEPTH + 1, NULL));
	RK_ASSERT_EQ_INT(0, skip("\xc0", 1, 0, NULL)); /* 0: scalars only */
	RK_ASSERT_EQ_INT(-ELOOP, skip("\x90", 1, 0, NULL));
}

/* Without a limit the walk is iterative: a million levels do not touch the C stack. */
RK_TEST(skip_deep_iterative)
{
	size_t n, end;
	unsigned char *b = nested(1000000, 0, &n);

	RK_ASSERT_EQ_INT(0, skip(b, n, RK_MP_ANY_DEPTH, &end));
	RK_ASSERT_EQ_INT(n, end);
	RK_ASSERT_EQ_INT(-EBADMSG, skip(b, n - 1, RK_MP_ANY_DEPTH, NULL));
	RK_ASSERT_EQ_INT(-ELOOP, skip(b, n, RK_MP_MAX_DEPTH, NULL));
	free(b);
}

RK_TEST(skip_body_after_head)
{
	/* {"kernel_name": "n", "x": [1]} walked key by key, as kpack_elf.c does */
	const char m[] = "\x82\xabkernel_name\xa1n\xa1x\x91\x01";
	struct rk_mp_cursor c = RK_MP_CURSOR(m, sizeof(m) - 1);
	struct rk_mp_head h, k, v;
	const unsigned char *key;

	RK_ASSERT_EQ_INT(0, rk_mp_head(&c, &h));
	RK_ASSERT_EQ_INT(RK_MP_MAP, h.kind);
	RK_ASSERT_EQ_INT(0, rk_mp_head(&c, &k));
	key = c.p + c.off;
	RK_ASSERT_EQ_INT(0, rk_mp_skip_body(&c, &k, 1));
	RK_ASSERT(rk_mp_head_is(&k, key, "kernel_name"));
	RK_ASSERT(!rk_mp_head_is(&k, key, "kernel_nam"));
	RK_ASSERT_EQ_INT(0, rk_mp_head(&c, &v));
	RK_ASSERT_EQ_INT(RK_MP_STR, v.kind);
	RK_ASSERT_EQ_INT(0, rk_mp_skip_body(&c, &v, 1));
	RK_ASSERT_EQ_INT(0, rk_mp_head(&c, &k));
	RK_ASSERT_EQ_INT(0, rk_mp_skip_body(&c, &k, 1));
	RK_ASSERT_EQ_INT(0, rk_mp_head(&c, &v));
	RK_ASSERT_EQ_INT(RK_MP_ARRAY, v.kind);
	{
		struct rk_mp_cursor again = c;

		RK_ASSERT_EQ_INT(-ELOOP, rk_mp_skip_body(&again, &v, 0));
	}
	RK_ASSERT_EQ_INT(0, rk_mp_skip_body(&c, &v, 1));
	RK_ASSERT_EQ_INT(sizeof(m) - 1, c.off);
}

static int unpack(const void *b, size_t n, msgpack_unpacked *u)
{
	msgpack_unpacked_init(u);
	return rk_mp_unpack(b, n, u);
}

RK_TEST(unpack_tree)
{
	/* {"k": [1, "v"], "k": 2, "n": -1, "s": int8 5} */
	const char m[] = "\x84\xa1k\x92\x01\xa1v\xa1k\x02\xa1n\xff\xa1s\xd0\x05";
	msgpack_unpacked u;
	const msgpack_object *o;
	uint64_t v;
	char show[64];
	int rc = 0;
	char *s;

	RK_ASSERT_EQ_INT(0, unpack(m, sizeof(m) - 1, &u));
	RK_ASSERT_EQ_INT(MSGPACK_OBJECT_MAP, u.data.type);
	o = rk_mp_get(&u.data, "k"); /* the first "k" */
	RK_ASSERT(o && o->type == MSGPACK_OBJECT_ARRAY && o->via.array.size == 2);
	RK_ASSERT(rk_mp_is_str(&o->via.array.ptr[1], "v"));
	RK_ASSERT(!rk_mp_is_str(&o->via.array.ptr[1], "vv"));
	RK_ASSERT(!rk_mp_is_str(&o->via.array.ptr[0], "v"));
	RK_ASSERT_EQ_INT(0, rk_mp_uint(&o->via.array.ptr[0], &v));
	RK_ASSERT_EQ_INT(1, v);
	RK_ASSERT_EQ_INT(-1, rk_mp_uint(rk_mp_get(&u.data, "n"), &v));
	RK_ASSERT_EQ_INT(0, rk_mp_uint(rk_mp_get(&u.data, "s"), &v)); /* msgpack-c: >= 0 */
	RK_ASSERT_EQ_INT(5, v);
	RK_ASSERT_EQ_INT(-1, rk_mp_uint(rk_mp_get(&u.data, "missing"), &v));
	RK_ASSERT(!(s = rk_mp_strdup(o, &rc)));
	RK_ASSERT_EQ_INT(-EBADMSG, rc);
	RK_ASSERT((s = rk_mp_strdup(&o->via.array.ptr[1], &rc)));
	RK_ASSERT_EQ_STR("v", s);
	free(s);
	rk_mp_show(o, show);
	RK_ASSERT_EQ_STR("<msgpack type 6>", show);
	msgpack_unpacked_destroy(&u);
}

RK_TEST(unpack_rejects)
{
	msgpack_unpacked u;

	RK_ASSERT_EQ_INT(-EBADMSG, unpack("\xdd\xff\xff\xff\xff", 5, &u)); /* before msgpack-c */
	msgpack_unpacked_destroy(&u);
	RK_ASSERT_EQ_INT(-EBADMSG, unpack("\x92\x01", 2, &u));
	msgpack_unpacked_destroy(&u);
	RK_ASSERT_EQ_INT(-EBADMSG, unpack("\x90\xc0", 2, &u)); /* not exactly one object */
	msgpack_unpacked_destroy(&u);
	RK_ASSERT_EQ_INT(-EBADMSG, unpack("", 0, &u));
	msgpack_unpacked_destroy(&u);
}

/* msgpack-c keeps 32 open containers on a fixed stack and reports a 33rd as
 * MSGPACK_UNPACK_NOMEM_ERROR; kpack.c has always turned that into "out of memory". */
RK_TEST(unpack_depth_is_msgpack_c_stack)
{
	msgpack_unpacked u;
	unsigned char *b;
	size_t n;

	b = nested(32, 0, &n);
	RK_ASSERT_EQ_INT(0, unpack(b, n, &u));
	msgpack_unpacked_destroy(&u);
	free(b);
	b = nested(33, 1, &n);
	RK_ASSERT_EQ_INT(-ENOMEM, unpack(b, n, &u));
	msgpack_unpacked_destroy(&u);
	free(b);
}

RK_TEST(strdup_and_show)
{
	/* ["a\0b", "\x01tab\there", 70 x 'x'] */
	unsigned char m[128] = "\x93\xa3"
			       "a\0b\xa9\x01tab\there\xd9\x46";
	size_t n = 17;
	msgpack_unpacked u;
	char show[64];
	int rc = 0;

	memset(m + n, 'x', 70);
	n += 70;
	RK_ASSERT_EQ_INT(0, unpack(m, n, &u));
	RK_ASSERT(!rk_mp_strdup(&u.data.via.array.ptr[0], &rc));
	RK_ASSERT_EQ_INT(-EBADMSG, rc);
	rk_mp_show(&u.data.via.array.ptr[0], show);
	RK_ASSERT_EQ_STR("a?b", show);
	rk_mp_show(&u.data.via.array.ptr[1], show);
	RK_ASSERT_EQ_STR("?tab?here", show);
	rk_mp_show(&u.data.via.array.ptr[2], show);
	RK_ASSERT_EQ_INT(60, strlen(show));
	msgpack_unpacked_destroy(&u);
}
