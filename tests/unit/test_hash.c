/* test_hash.c: SHA-256 (FIPS 180-2 vectors) and FNV-1a. */
#include <stdio.h>
#include <string.h>

#include "rk/hash.h"
#include "rk_test.h"

#define SHA_EMPTY "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define SHA_ABC "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
#define SHA_448 "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
#define SHA_MILLION_A "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"

RK_TEST(sha256_known_vectors)
{
	char hex[RK_SHA256_HEX];

	RK_ASSERT_EQ_INT(0, rk_sha256_buf("", 0, hex));
	RK_ASSERT_EQ_STR(SHA_EMPTY, hex);
	RK_ASSERT_EQ_INT(0, rk_sha256_buf("abc", 3, hex));
	RK_ASSERT_EQ_STR(SHA_ABC, hex);
	RK_ASSERT_EQ_INT(
		0,
		rk_sha256_buf("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, hex));
	RK_ASSERT_EQ_STR(SHA_448, hex);
	RK_ASSERT(rk_is_sha256_hex(hex));
}

RK_TEST(sha256_streaming)
{
	static char chunk[1000];
	struct rk_sha256 h;
	char hex[RK_SHA256_HEX];

	memset(chunk, 'a', sizeof(chunk));
	RK_ASSERT_EQ_INT(0, rk_sha256_init(&h));
	for (int i = 0; i < 1000; i++)
		rk_sha256_update(&h, chunk, sizeof(chunk));
	rk_sha256_final(&h, hex);
	RK_ASSERT_EQ_STR(SHA_MILLION_A, hex);
	RK_ASSERT(h.ctx == NULL); /* final releases */
	rk_sha256_release(&h); /* and a second release is harmless */
}

RK_TEST(sha256_split_updates_match)
{
	struct rk_sha256 h;
	char hex[RK_SHA256_HEX];

	RK_ASSERT_EQ_INT(0, rk_sha256_init(&h));
	rk_sha256_update(&h, "a", 1);
	rk_sha256_update(&h, "", 0);
	rk_sha256_update(&h, "bc", 2);
	rk_sha256_final(&h, hex);
	RK_ASSERT_EQ_STR(SHA_ABC, hex);
}

RK_TEST(sha256_release_without_final)
{
	struct rk_sha256 h;

	RK_ASSERT_EQ_INT(0, rk_sha256_init(&h));
	rk_sha256_update(&h, "abc", 3);
	rk_sha256_release(&h); /* no leak (LSan) */
	RK_ASSERT(h.ctx == NULL);
}

RK_TEST(is_sha256_hex)
{
	char s[70];

	RK_ASSERT(rk_is_sha256_hex(SHA_ABC));
	RK_ASSERT(!rk_is_sha256_hex(""));
	RK_ASSERT(!rk_is_sha256_hex("abc"));
	RK_ASSERT(!rk_is_sha256_hex(
		"BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD"));
	snprintf(s, sizeof(s), "%s0", SHA_ABC); /* 65 digits */
	RK_ASSERT(!rk_is_sha256_hex(s));
	snprintf(s, sizeof(s), "%.63s", SHA_ABC); /* 63 digits */
	RK_ASSERT(!rk_is_sha256_hex(s));
	snprintf(s, sizeof(s), "%.63sg", SHA_ABC);
	RK_ASSERT(!rk_is_sha256_hex(s));
	snprintf(s, sizeof(s), "%s\n", SHA_ABC);
	RK_ASSERT(!rk_is_sha256_hex(s));
}

RK_TEST(fnv64)
{
	/* FNV-1a 64 reference values */
	RK_ASSERT_EQ_INT(0xcbf29ce484222325ull, rk_fnv64(RK_FNV_SEED, "", 0));
	RK_ASSERT_EQ_INT(0xaf63dc4c8601ec8cull, rk_fnv64(RK_FNV_SEED, "a", 1));
	RK_ASSERT_EQ_INT(0x85944171f73967e8ull, rk_fnv64(RK_FNV_SEED, "foobar", 6));
	/* chaining is the same as one call */
	RK_ASSERT_EQ_INT(rk_fnv64(RK_FNV_SEED, "foobar", 6),
			 rk_fnv64(rk_fnv64(RK_FNV_SEED, "foo", 3), "bar", 3));
}
