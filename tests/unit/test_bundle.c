/* test_bundle.c: rk_fatbin_parse on .hip_fatbin sections built byte by byte here:
 * plain bundles laid out as clang-offload-bundler does, CCOB v1/v2/v3 with zlib and zstd,
 * several bundles in one section, hostile headers, and clang-offload-bundler 15 itself
 * as an oracle for the plain layout when it is installed. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libdeflate.h>
#include <openssl/evp.h>
#include <zstd.h>

#include "rk/bundle.h"
#include "rk_fixture.h"
#include "rk_test.h"

#define HOST "host-x86_64-unknown-linux-gnu-"
#define HIP(t) "hipv4-amdgcn-amd-amdhsa--" t

struct sec {
	unsigned char *p;
	size_t n, cap;
};

struct ent {
	const char *id;
	const unsigned char *data;
	size_t size;
};

static void sec_reserve(struct sec *s, size_t n)
{
	if (s->n + n <= s->cap)
		return;
	s->cap = (s->n + n) * 2;
	s->p = realloc(s->p, s->cap);
	RK_ASSERT(s->p);
}

static void sec_add(struct sec *s, const void *p, size_t n)
{
	sec_reserve(s, n);
	if (n)
		memcpy(s->p + s->n, p, n);
	s->n += n;
}

static void sec_zeros(struct sec *s, size_t n)
{
	sec_reserve(s, n);
	memset(s->p + s->n, 0, n);
	s->n += n;
}

static void sec_align(struct sec *s, size_t a)
{
	sec_zeros(s, (a - s->n % a) % a);
}

static void put16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* A plain bundle as clang-offload-bundler -bundle-align=align writes it (fx_bundle). */
static void mk_plain(struct sec *out, const struct ent *e, size_t n, size_t align)
{
	struct fx_bundle_entry *fe = calloc(n + 1, sizeof(*fe));
	unsigned char *b;
	size_t len;

	RK_ASSERT(fe);
	for (size_t i = 0; i < n; i++)
		fe[i] = (struct fx_bundle_entry){e[i].id, e[i].data, e[i].size};
	b = fx_bundle(fe, n, align, &len);
	sec_add(out, b, len);
	free(b);
	free(fe);
}

static void md5_8(const unsigned char *p, size_t n, unsigned char out[8])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned mdlen = 0;

	RK_ASSERT(EVP_Digest(p, n, md, &mdlen, EVP_md5(), NULL) == 1);
	memcpy(out, md, 8);
}

/* A CCOB of version v and method m (0 zlib, 1 zstd) around payload[0..n). */
static void mk_ccob(struct sec *out, int v, int m, const unsigned char *payload, size_t n)
{
	size_t bound = m ? ZSTD_compressBound(n) : n + n / 8 + 1024, clen, hs;
	unsigned char *c = malloc(bound), h[32] = "CCOB";

	RK_ASSERT(c);
	if (m) {
		clen = ZSTD_compress(c, bound, payload, n, 3);
		RK_ASSERT(!ZSTD_isError(clen));
	} else {
		struct libdeflate_compressor *z = libdeflate_alloc_compressor(6);

		RK_ASSERT(z);
		clen = libdeflate_zlib_compress(z, payload, n, c, bound);
		libdeflate_free_compressor(z);
		RK_ASSERT(clen);
	}
	put16(h + 4, (uint16_t)v);
	put16(h + 6, (uint16_t)m);
	hs = v == 1 ? 20 : v == 2 ? 24 : 32;
	if (v == 1) {
		put64(h + 8, n); /* u32, the next 4 bytes are the hash */
		md5_8(payload, n, h + 12);
	} else if (v == 2) {
		put64(h + 8, (uint64_t)(hs + clen) | (uint64_t)n << 32);
		md5_8(payload, n, h + 16);
	} else {
		put64(h + 8, hs + clen);
		put64(h + 16, n);
		md5_8(payload, n, h + 24);
	}
	sec_add(out, h, hs);
	sec_add(out, c, clen);
	free(c);
}

/* A code object stand-in: n bytes that depend on seed. */
static unsigned char *blob(unsigned seed, size_t n)
{
	unsigned char *p = malloc(n);

	RK_ASSERT(p);
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)((i * 31 + seed * 7 + (i >> 7)) % 251);
	return p;
}

static int parse(const struct sec *s, uint64_t max, struct rk_fatbin *f, struct rk_err *err)
{
	rk_err_clear(err);
	memset(f, 0xa5, sizeof(*f));
	return rk_fatbin_parse(s->p, s->n, max, f, err);
}

static void expect_fail(const struct sec *s, uint64_t max, const char *msg)
{
	struct rk_fatbin f;
	struct rk_err err;
	int rc = parse(s, max, &f, &err);

	if (rc == 0)
		rk_test_fail(__FILE__, __LINE__, "parse succeeded, expected '%s'", msg);
	RK_ASSERT_EQ_INT(-EBADMSG, rc);
	if (!strstr(err.msg, msg))
		rk_test_fail(__FILE__, __LINE__, "message '%s' lacks '%s'", err.msg, msg);
}

static void expect_entry(const struct rk_fatbin *f, const void *sec, size_t i, unsigned bundle,
			 const char *id, const char *arch, const unsigned char *data, size_t n)
{
	RK_ASSERT(i < f->nentries);
	RK_ASSERT_EQ_STR(id, f->entries[i].id);
	RK_ASSERT_EQ_STR(arch, f->entries[i].arch);
	RK_ASSERT_EQ_INT(bundle, f->entries[i].bundle);
	RK_ASSERT_EQ_INT(n, f->entries[i].size);
	RK_ASSERT_EQ_MEM(data, rk_fatbin_data(f, &f->entries[i], sec), n);
}

RK_TEST(plain_single)
{
	unsigned char *a = blob(1, 5000), *b = blob(2, 3000);
	struct ent e[] = {
		{HOST, NULL, 0}, {HIP("gfx1100"), a, 5000}, {HIP("gfx942:xnack+"), b, 3000}};
	struct sec s = {0};
	struct rk_fatbin f;
	struct rk_err err;

	mk_plain(&s, e, 3, 4096);
	RK_ASSERT_EQ_INT(0, parse(&s, 0, &f, &err));
	RK_ASSERT_EQ_INT(1, f.nbundles);
	RK_ASSERT_EQ_INT(RK_BUNDLE_PLAIN, f.bundles[0].format);
	RK_ASSERT_EQ_INT(0, f.bundles[0].off);
	RK_ASSERT_EQ_INT(s.n, f.bundles[0].len);
	RK_ASSERT_EQ_INT(s.n, f.bundles[0].usize);
	RK_ASSERT(!f.bundles[0].payload);
	RK_ASSERT_EQ_INT(2, f.nentries);
	expect_entry(&f, s.p, 0, 0, HIP("gfx1100"), "gfx1100", a, 5000);
	expect_entry(&f, s.p, 1, 0, HIP("gfx942:xnack+"), "gfx942:xnack+", b, 3000);
	RK_ASSERT_EQ_INT(4096, f.entries[0].off);
	RK_ASSERT_EQ_INT(12288, f.entries[1].off);
	rk_fatbin_release(&f);
	RK_ASSERT_EQ_INT(0, f.nbundles);
	rk_fatbin_release(&f); /* twice is fine */
	rk_fatbin_release(NULL);
	free(a);
	free(b);
	free(s.p);
}

/* Junk, then every kind of bundle, with zero padding between them: the order of
 * bundles and entries is the section's, and each entry's bytes are its code object. */
RK_TEST(section_of_every_kind)
{
	static const int kinds[][2] = {{0, 0}, {2, 1}, {3, 1}, {2, 0},
				       {3, 0}, {1, 0}, {1, 1}, {0, 0}};
	const size_t nk = sizeof(kinds) / sizeof(kinds[0]);
	unsigned char *co[16];
	size_t off[16];
	struct sec s = {0};
	struct rk_fatbin f;
	struct rk_err err;

	sec_add(&s, "junk before the first bundle: CCO", 33);
	sec_align(&s, 4096);
	for (size_t k = 0; k < nk; k++) {
		struct sec b = {0};
		char id1[64], id2[64];
		struct ent e[3] = {{HOST, NULL, 0}};

		co[2 * k] = blob((unsigned)(2 * k), 1000 + k * 10);
		co[2 * k + 1] = blob((unsigned)(2 * k + 1), 2000 + k);
		snprintf(id1, sizeof(id1), HIP("gfx110%zu"), k);
		snprintf(id2, sizeof(id2), HIP("gfx942:sramecc+:xnack-"));
		e[1] = (struct ent){id1, co[2 * k], 1000 + k * 10};
		e[2] = (struct ent){id2, co[2 * k + 1], 2000 + k};
		mk_plain(&b, e, 3, 4096);
		off[k] = s.n;
		if (kinds[k][0])
			mk_ccob(&s, kinds[k][0], kinds[k][1], b.p, b.n);
		else
			sec_add(&s, b.p, b.n);
		if (kinds[k][0] == 1)
			sec_zeros(&s, 100); /* v1 has no total size: the stream must end it */
		else
			sec_align(&s, 4096);
		free(b.p);
	}
	RK_ASSERT_EQ_INT(0, parse(&s, 0, &f, &err));
	RK_ASSERT_EQ_INT(nk, f.nbundles);
	RK_ASSERT_EQ_INT(2 * nk, f.nentries);
	for (size_t k = 0; k < nk; k++) {
		const struct rk_bundle *b = &f.bundles[k];
		char id1[64];

		RK_ASSERT_EQ_INT(off[k], b->off);
		RK_ASSERT_EQ_INT(kinds[k][0] ? RK_BUNDLE_CCOB : RK_BUNDLE_PLAIN, b->format);
		if (kinds[k][0]) {
			RK_ASSERT_EQ_INT(kinds[k][0], b->version);
			RK_ASSERT_EQ_INT(kinds[k][1], b->method);
			RK_ASSERT(b->payload);
		}
		snprintf(id1, sizeof(id1), HIP("gfx110%zu"), k);
		expect_entry(&f, s.p, 2 * k, (unsigned)k, id1, id1 + 25, co[2 * k], 1000 + k * 10);
		expect_entry(&f, s.p, 2 * k + 1, (unsigned)k, HIP("gfx942:sramecc+:xnack-"),
			     "gfx942:sramecc+:xnack-", co[2 * k + 1], 2000 + k);
		free(co[2 * k]);
		free(co[2 * k + 1]);
	}
	rk_fatbin_release(&f);
	free(s.p);
}

RK_TEST(zero_entries_and_align_1)
{
	unsigned char *a = blob(3, 10);
	struct ent e[] = {{"hip-amdgcn-amd-amdhsa--gfx90a", a, 10},
			  {"openmp-amdgcn-amd-amdhsa--gfx90a", a, 10}};
	struct sec s = {0};
	struct rk_fatbin f;
	struct rk_err err;

	mk_plain(&s, e, 0, 1);
	RK_ASSERT_EQ_INT(0, parse(&s, 0, &f, &err));
	RK_ASSERT_EQ_INT(1, f.nbundles);
	RK_ASSERT_EQ_INT(0, f.nentries);
	RK_ASSERT_EQ_INT(32, f.bundles[0].len);
	rk_fatbin_release(&f);
	mk_plain(&s, e, 2, 1); /* right after the empty one */
	RK_ASSERT_EQ_INT(0, parse(&s, 0, &f, &err));
	RK_ASSERT_EQ_INT(2, f.nbundles);
	RK_ASSERT_EQ_INT(2, f.nentries);
	RK_ASSERT_EQ_INT(32, f.bundles[1].off);
	expect_entry(&f, s.p, 1, 1, "openmp-amdgcn-amd-amdhsa--gfx90a", "gfx90a", a, 10);
	rk_fatbin_release(&f);
	free(a);
	free(s.p);
}

RK_TEST(no_bundle)
{
	struct sec s = {0};

	expect_fail(&s, 0, "no offload bundle");
	sec_zeros(&s, 10000);
	expect_fail(&s, 0, "no offload bundle");
	sec_add(&s, "__CLANG_OFFLOAD_BUNDLE_", 23);
	sec_add(&s, "CCO", 3);
	expect_fail(&s, 0, "no offload bundle");
	free(s.p);
}

/* Every prefix of a valid section shorter than its last bundle fails, and never reads
 * outside (ASan sees each prefix as its own allocation). */
RK_TEST(truncated_everywhere)
{
	unsigned char *a = blob(4, 700), *b = blob(5, 300);
	struct ent e[] = {{HOST, NULL, 0}, {HIP("gfx1100"), a, 700}, {HIP("gfx1101"), b, 300}};
	struct sec plain = {0};
	struct sec secs[5] = {{0}};

	mk_plain(&plain, e, 3, 64);
	sec_add(&secs[0], plain.p, plain.n);
	mk_ccob(&secs[1], 2, 1, plain.p, plain.n);
	mk_ccob(&secs[2], 3, 0, plain.p, plain.n);
	mk_ccob(&secs[3], 1, 0, plain.p, plain.n);
	mk_ccob(&secs[4], 1, 1, plain.p, plain.n);
	for (size_t k = 0; k < 5; k++) {
		for (size_t n = 0; n <= secs[k].n; n++) {
			unsigned char *p = malloc(n ? n : 1);
			struct rk_fatbin f;
			struct rk_err err = RK_ERR_INIT;
			int rc;

			memcpy(p, secs[k].p, n);
			rc = rk_fatbin_parse(p, n, 0, &f, &err);
			if (n == secs[k].n) {
				RK_ASSERT_EQ_INT(0, rc);
				RK_ASSERT_EQ_INT(2, f.nentries);
				rk_fatbin_release(&f);
			} else {
				RK_ASSERT_EQ_INT(-EBADMSG, rc);
				RK_ASSERT(err.msg[0]);
			}
			free(p);
		}
		free(secs[k].p);
	}
	free(plain.p);
	free(a);
	free(b);
}

/* A 3-entry plain bundle at 0x1000 whose header fields the bad-header tests edit. */
static void bad_base(struct sec *s, unsigned char **a)
{
	struct ent e[] = {
		{HOST, NULL, 0}, {HIP("gfx1100"), NULL, 0x800}, {HIP("gfx1101"), NULL, 0x400}};

	*a = blob(6, 0x800);
	e[1].data = *a;
	e[2].data = *a;
	memset(s, 0, sizeof(*s));
	sec_zeros(s, 0x1000);
	mk_plain(s, e, 3, 0x1000);
}

/* Field offsets in bad_base's bundle. */
#define B0 0x1000
#define NUM (B0 + 24)
#define E0 (B0 + 32)
#define E1 (E0 + 24 + 30)
#define E2 (E1 + 24 + 32)
/* Replace entry 2's 32-byte id. */
#define SET_ID2(lit)                                    \
	do {                                            \
		_Static_assert(sizeof(lit) == 33, lit); \
		memcpy(s.p + E2 + 24, lit, 32);         \
	} while (0)

RK_TEST(bad_plain_headers)
{
	struct sec s;
	unsigned char *a;

	bad_base(&s, &a);
	/* Sanity: the base is good, entry 2 at 0x2000 in the bundle, size 0x400. */
	{
		struct rk_fatbin f;
		struct rk_err err;

		RK_ASSERT_EQ_INT(0, parse(&s, 0, &f, &err));
		RK_ASSERT_EQ_INT(2, f.nentries);
		RK_ASSERT_EQ_INT(B0 + 0x2000, f.entries[1].off);
		rk_fatbin_release(&f);
	}
	put64(s.p + NUM, UINT64_MAX);
	expect_fail(&s, 0, "bundle at 0x1000: 18446744073709551615 entries do not fit");
	put64(s.p + NUM, (s.n - B0 - 32) / 24 + 1);
	expect_fail(&s, 0, "entries do not fit");
	put64(s.p + NUM, 4);
	expect_fail(&s, 0, "bundle at 0x1000: entry 3 id");
	put64(s.p + NUM, 3);

	put64(s.p + E1 + 16, UINT64_MAX); /* id_len */
	expect_fail(&s, 0, "entry 1 id (18446744073709551615 bytes) extends past the bundle");
	put64(s.p + E1 + 16, 0);
	expect_fail(&s, 0, "entry 1 id has 0 bytes");
	put64(s.p + E1 + 16, 32);

	put64(s.p + E2, 0);
	expect_fail(&s, 0, "bundle at 0x1000: entry 2 ('" HIP("gfx1101") "') has offset 0");
	put64(s.p + E2, 0x2400);
	expect_fail(&s, 0,
		    "bundle at 0x1000: entry 2 [0x2400, +0x400) extends past the bundle (0x2400)");
	put64(s.p + E2, UINT64_MAX - 0x100);
	expect_fail(&s, 0, "entry 2 [0xfffffffffffffeff, +0x400) extends past");
	put64(s.p + E2, 0x1400);
	expect_fail(&s, 0, "entries 1 [0x1000, +0x800) and 2 [0x1400, +0x400) overlap");
	put64(s.p + E2, 0x40);
	expect_fail(&s, 0, "entry 2 [0x40, +0x400) overlaps the bundle header");
	put64(s.p + E2, 0x2000);

	/* An empty entry may sit anywhere, even inside another. */
	put64(s.p + E0, 0x1100);
	{
		struct rk_fatbin f;
		struct rk_err err;

		RK_ASSERT_EQ_INT(0, parse(&s, 0, &f, &err));
		rk_fatbin_release(&f);
	}
	SET_ID2(HIP("gfx1100"));
	expect_fail(&s, 0, "entries 1 and 2 have the same id '" HIP("gfx1100") "'");
	SET_ID2("hipv5-amdgcn-amd-amdhsa--gfx1101");
	expect_fail(&s, 0, "entry 2 id 'hipv5-amdgcn-amd-amdhsa--gfx1101': unknown offload kind");
	SET_ID2("hipv4-amdgcn-amd-amdhsa-x-gfx110");
	expect_fail(&s, 0, "no target after the last '--'");
	SET_ID2("hipv4-amdgcn-amd-amdhsa-gfx110--");
	expect_fail(&s, 0, "no target after the last '--'");
	SET_ID2("hipv4-amdgcn--gfx1101-----------");
	expect_fail(&s, 0, "no target");
	SET_ID2("hipv4-amdgcn--gfx1101___________");
	expect_fail(&s, 0, "expected <kind>-<arch>-<vendor>-<os>-<env>-<target id>");
	SET_ID2("hipv4-amdgcn-amd-amdhsa--gfx1/01");
	expect_fail(&s, 0, "bad character in target");
	SET_ID2("hipv4-amdgcn-amd-amdhsa--gfx1\00001");
	expect_fail(&s, 0, "non-printable byte in id");
	free(s.p);
	free(a);
}

/* Patch a CCOB header field and expect msg. */
static void ccob_case(const struct sec *good, size_t at, uint64_t v, int width, uint64_t max,
		      const char *msg)
{
	struct sec s = {0};

	sec_add(&s, good->p, good->n);
	for (int i = 0; i < width; i++)
		s.p[at + i] = (unsigned char)(v >> (8 * i));
	expect_fail(&s, max, msg);
	free(s.p);
}

RK_TEST(bad_ccob_headers)
{
	unsigned char *a = blob(7, 3000);
	struct ent e[] = {{HOST, NULL, 0}, {HIP("gfx1100"), a, 3000}};
	struct sec plain = {0}, v2 = {0}, v3 = {0}, z2 = {0}, v1 = {0};
	size_t ulen;

	mk_plain(&plain, e, 2, 4096);
	ulen = plain.n;
	sec_zeros(&v2, 0x3000);
	mk_ccob(&v2, 2, 1, plain.p, plain.n);
	mk_ccob(&v3, 3, 1, plain.p, plain.n);
	mk_ccob(&z2, 2, 0, plain.p, plain.n);
	mk_ccob(&v1, 1, 1, plain.p, plain.n);

	ccob_case(&v2, 0x3004, 0, 2, 0, "ccob at 0x3000: unknown version 0");
	ccob_case(&v2, 0x3004, 4, 2, 0, "unknown version 4");
	ccob_case(&v2, 0x3006, 2, 2, 0, "unknown compression method 2");
	ccob_case(&v2, 0x3008, 23, 4, 0, "total size 0x17 outside [0x18,");
	ccob_case(&v2, 0x3008, v2.n - 0x3000 + 1, 4, 0, "outside [0x18, 0x");
	ccob_case(&v3, 8, UINT64_MAX, 8, 0, "total size 0xffffffffffffffff outside [0x20,");
	/* Uncompressed size: limit, too small, and each side of the truth. */
	ccob_case(&v2, 0x300c, ulen, 4, ulen - 1, "over the limit");
	ccob_case(&v3, 16, (UINT64_C(4) << 30) + 1, 8, 0, "over the limit 4294967296");
	ccob_case(&v3, 16, 31, 8, 0, "uncompressed size 31 is too small");
	ccob_case(&v2, 0x300c, ulen + 1, 4, 0, "decompresses to 7096 bytes, its header says 7097");
	ccob_case(&v2, 0x300c, ulen - 1, 4, 0, "decompresses to more than the 7095 bytes");
	ccob_case(&z2, 12, ulen + 1, 4, 0, "decompresses to 7096 bytes, its header says 7097");
	ccob_case(&z2, 12, ulen - 1, 4, 0, "decompresses to more than the 7095 bytes");
	ccob_case(&v1, 8, ulen + 1, 4, 0, "decompresses to 7096 bytes, its header says 7097");
	/* A bomb's claim costs nothing: zstd output grows with the stream, zlib's claim
	 * must be within deflate's ratio. */
	ccob_case(&v3, 16, UINT64_C(4) << 30, 8, 0,
		  "decompresses to 7096 bytes, its header says 4294967296");
	ccob_case(&z2, 12, UINT32_MAX, 4, UINT64_MAX, "4294967295 bytes cannot come from");
	/* Hash and data. */
	ccob_case(&v2, 0x3010, 0x1122334455667788ull, 8, 0,
		  "ccob at 0x3000: hash 1122334455667788 does not match");
	ccob_case(&v3, 40, 0xff, 1, 0, "ccob at 0x0: ");
	ccob_case(&z2, 30, 0xff, 1, 0, "ccob at 0x0: ");
	free(plain.p);
	free(v2.p);
	free(v3.p);
	free(z2.p);
	free(v1.p);
	free(a);
}

/* A CCOB whose payload is hostile is reported as the payload's. */
RK_TEST(bad_ccob_payload)
{
	unsigned char *a = blob(8, 100);
	struct ent e[] = {{HIP("gfx1100"), a, 100}, {HIP("gfx1100"), a, 100}};
	struct sec plain = {0}, s = {0};

	mk_plain(&plain, e, 2, 128);
	mk_ccob(&s, 3, 1, plain.p, plain.n);
	expect_fail(&s, 0, "ccob at 0x0: payload: entries 0 and 1 have the same id");
	s.n = 0;
	memcpy(plain.p, "__CLANG_OFFLOAD_BUNDLE_!", 24);
	mk_ccob(&s, 2, 0, plain.p, plain.n);
	expect_fail(&s, 0, "ccob at 0x0: payload: no '__CLANG_OFFLOAD_BUNDLE__' magic");
	free(plain.p);
	free(s.p);
	free(a);
}

/* 1 GiB of section, 128 plain bundles of 8 MiB: only headers and gaps are read. */
RK_TEST(large_section_is_fast)
{
	const size_t n = (size_t)1 << 30, step = (size_t)8 << 20;
	unsigned char *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	struct timespec t0, t1;
	struct rk_fatbin f;
	struct rk_err err = RK_ERR_INIT;
	double ms;

	if (p == MAP_FAILED)
		RK_SKIP("no 1 GiB mapping");
	for (size_t off = 0; off < n; off += step) {
		unsigned char *b = p + off;

		memcpy(b, "__CLANG_OFFLOAD_BUNDLE__", 24);
		put64(b + 24, 2);
		put64(b + 32, 4096);
		put64(b + 40, 0);
		put64(b + 48, 30);
		memcpy(b + 56, HOST, 30);
		put64(b + 86, 4096);
		put64(b + 94, step - 4096 - 1000);
		put64(b + 102, 32);
		memcpy(b + 110, HIP("gfx1100"), 32);
		b[4096] = 0x7f; /* the code objects are never read */
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	RK_ASSERT_EQ_INT(0, rk_fatbin_parse(p, n, 0, &f, &err));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	RK_ASSERT_EQ_INT(128, f.nbundles);
	RK_ASSERT_EQ_INT(128, f.nentries);
	RK_ASSERT(rk_fatbin_data(&f, &f.entries[127], p) == p + 127 * step + 4096);
	RK_ASSERT_EQ_INT(step - 1000, f.bundles[5].len);
	rk_fatbin_release(&f);
	munmap(p, n);
	if (ms > 100)
		rk_test_fail(__FILE__, __LINE__, "parse took %.1f ms", ms);
}

static int run(const char *cmd)
{
	int rc = system(cmd);

	return rc == -1 ? -1 : WEXITSTATUS(rc);
}

/* clang-offload-bundler 15 lays out a plain bundle; we find exactly its entries. */
RK_TEST(oracle_clang_offload_bundler)
{
	const char *tool = "/usr/lib/llvm-15/bin/clang-offload-bundler";
	unsigned char *a = blob(9, 5000), *b = blob(10, 333);
	struct sec s = {0};
	struct rk_fatbin f;
	struct rk_err err;
	char cmd[1024];
	FILE *fp;
	long n;

	if (access(tool, X_OK))
		RK_SKIP("%s not installed", tool);
	RK_ASSERT((fp = fopen("a.co", "wb")) && fwrite(a, 1, 5000, fp) == 5000 && !fclose(fp));
	RK_ASSERT((fp = fopen("b.co", "wb")) && fwrite(b, 1, 333, fp) == 333 && !fclose(fp));
	snprintf(cmd, sizeof(cmd),
		 "%s -type=o -bundle-align=4096 -targets=" HOST "," HIP("gfx1100") "," HIP(
			 "gfx942:xnack+") " -input=/dev/null -input=a.co -input=b.co "
					  "-output=b.bundle",
		 tool);
	RK_ASSERT_EQ_INT(0, run(cmd));
	RK_ASSERT((fp = fopen("b.bundle", "rb")));
	RK_ASSERT(!fseek(fp, 0, SEEK_END) && (n = ftell(fp)) > 0 && !fseek(fp, 0, SEEK_SET));
	sec_zeros(&s, (size_t)n);
	RK_ASSERT(fread(s.p, 1, (size_t)n, fp) == (size_t)n);
	fclose(fp);
	RK_ASSERT_EQ_INT(0, parse(&s, 0, &f, &err));
	RK_ASSERT_EQ_INT(1, f.nbundles);
	RK_ASSERT_EQ_INT(n, f.bundles[0].len);
	RK_ASSERT_EQ_INT(2, f.nentries);
	expect_entry(&f, s.p, 0, 0, HIP("gfx1100"), "gfx1100", a, 5000);
	expect_entry(&f, s.p, 1, 0, HIP("gfx942:xnack+"), "gfx942:xnack+", b, 333);
	rk_fatbin_release(&f);
	/* Our builder writes the same bytes. */
	{
		struct ent e[] = {
			{HOST, NULL, 0}, {HIP("gfx1100"), a, 5000}, {HIP("gfx942:xnack+"), b, 333}};
		struct sec mine = {0};

		mk_plain(&mine, e, 3, 4096);
		RK_ASSERT_EQ_INT(s.n, mine.n);
		RK_ASSERT_EQ_MEM(s.p, mine.p, s.n);
		free(mine.p);
	}
	free(s.p);
	free(a);
	free(b);
}
