/* test_target.c: target IDs, runtime candidates, generic map, code object e_flags. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "rk/target.h"
#include "rk_test.h"

static void canon_ok(const char *in, const char *want)
{
	char out[RK_TARGET_MAX];

	RK_ASSERT_EQ_INT(0, rk_target_canon(in, out));
	RK_ASSERT_EQ_STR(want, out);
}

static void canon_bad(const char *in)
{
	char out[RK_TARGET_MAX];

	RK_ASSERT_EQ_INT(-EINVAL, rk_target_canon(in, out));
}

RK_TEST(canon)
{
	char longid[RK_TARGET_MAX + 8];

	canon_ok("gfx942", "gfx942");
	canon_ok("gfx90a:xnack-:sramecc+", "gfx90a:sramecc+:xnack-");
	canon_ok("gfx942:sramecc+:xnack+", "gfx942:sramecc+:xnack+");
	canon_ok("gfx9-4-generic:xnack+", "gfx9-4-generic:xnack+");
	canon_ok("gfx90c", "gfx90c");
	canon_bad("");
	canon_bad("gfx");
	canon_bad("sm_90");
	canon_bad("GFX942");
	canon_bad("gfx942:");
	canon_bad("gfx942:xnack");
	canon_bad("gfx942:+");
	canon_bad("gfx942:xnack+:xnack-");
	canon_bad("gfx942::xnack+");
	canon_bad("gfx 942");
	memset(longid, 'a', sizeof(longid));
	memcpy(longid, "gfx", 3);
	longid[RK_TARGET_MAX] = '\0';
	canon_bad(longid);
}

RK_TEST(processor_and_compatible)
{
	char out[RK_TARGET_MAX];

	rk_target_processor("gfx942:xnack+", out);
	RK_ASSERT_EQ_STR("gfx942", out);
	rk_target_processor("amdgcn-amd-amdhsa--gfx1100", out);
	RK_ASSERT_EQ_STR("gfx1100", out);
	RK_ASSERT(rk_target_compatible("gfx942", "gfx942:sramecc+:xnack-"));
	RK_ASSERT(rk_target_compatible("gfx942:xnack-", "gfx942:sramecc+:xnack-"));
	RK_ASSERT(rk_target_compatible("gfx942:xnack-:sramecc+", "gfx942:sramecc+:xnack-"));
	RK_ASSERT(!rk_target_compatible("gfx942:xnack+", "gfx942:sramecc+:xnack-"));
	RK_ASSERT(!rk_target_compatible("gfx942:xnack+", "gfx942"));
	RK_ASSERT(!rk_target_compatible("gfx942", "gfx950"));
	RK_ASSERT(!rk_target_compatible("gfx94", "gfx942"));
	RK_ASSERT(rk_target_compatible("gfx1100", "amdgcn-amd-amdhsa--gfx1100"));
	RK_ASSERT(!rk_target_compatible("bogus", "gfx1100"));
}

/* The runtime's expansion (isa_target_match: most specific first, input order kept). */
RK_TEST(candidates)
{
	char c[8][RK_TARGET_MAX];

	RK_ASSERT_EQ_INT(4,
			 rk_target_candidates("amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-", c, 8));
	RK_ASSERT_EQ_STR("gfx942:sramecc+:xnack-", c[0]);
	RK_ASSERT_EQ_STR("gfx942:sramecc+", c[1]);
	RK_ASSERT_EQ_STR("gfx942:xnack-", c[2]);
	RK_ASSERT_EQ_STR("gfx942", c[3]);
	RK_ASSERT_EQ_INT(2, rk_target_candidates("gfx942:xnack+", c, 8));
	RK_ASSERT_EQ_STR("gfx942:xnack+", c[0]);
	RK_ASSERT_EQ_STR("gfx942", c[1]);
	RK_ASSERT_EQ_INT(1, rk_target_candidates("gfx1100", c, 8));
	RK_ASSERT_EQ_STR("gfx1100", c[0]);
	RK_ASSERT_EQ_INT(1, rk_target_candidates("amdgcn-amd-amdhsa--gfx9-4-generic", c, 8));
	RK_ASSERT_EQ_STR("gfx9-4-generic", c[0]);
	RK_ASSERT_EQ_INT(2, rk_target_candidates("gfx942:sramecc+:xnack-", c, 2)); /* max */
	RK_ASSERT_EQ_INT(-EINVAL, rk_target_candidates("", c, 8));
	RK_ASSERT_EQ_INT(-EINVAL, rk_target_candidates("gfx942:xnack", c, 8));
}

RK_TEST(generic)
{
	RK_ASSERT_EQ_STR("gfx9-4-generic", rk_target_generic("gfx942"));
	RK_ASSERT_EQ_STR("gfx9-4-generic", rk_target_generic("gfx950"));
	RK_ASSERT_EQ_STR("gfx9-generic", rk_target_generic("gfx90c"));
	RK_ASSERT_EQ_STR("gfx10-1-generic", rk_target_generic("gfx1013"));
	RK_ASSERT_EQ_STR("gfx10-3-generic", rk_target_generic("gfx1036"));
	RK_ASSERT_EQ_STR("gfx11-generic", rk_target_generic("gfx1100"));
	RK_ASSERT_EQ_STR("gfx11-generic", rk_target_generic("gfx1153"));
	RK_ASSERT_EQ_STR("gfx12-generic", rk_target_generic("gfx1201"));
	RK_ASSERT_EQ_STR("gfx12-5-generic", rk_target_generic("gfx1250"));
	RK_ASSERT(!rk_target_generic("gfx90a"));
	RK_ASSERT(!rk_target_generic("gfx908"));
	RK_ASSERT(!rk_target_generic("gfx942:xnack+"));
}

/* A 64-byte AMDGPU ELF header. */
static void elf(unsigned char *b, unsigned abi, uint32_t flags)
{
	memset(b, 0, 64);
	memcpy(b, "\177ELF", 4);
	b[4] = 2;
	b[5] = 1;
	b[6] = 1;
	b[7] = 64;
	b[8] = (unsigned char)abi;
	b[16] = 3; /* ET_DYN */
	b[18] = 224;
	for (int i = 0; i < 4; i++)
		b[48 + i] = (unsigned char)(flags >> (8 * i));
}

static void co_ok(unsigned abi, uint32_t flags, const char *want)
{
	unsigned char b[64];
	char out[RK_TARGET_MAX];
	struct rk_err err = RK_ERR_INIT;

	elf(b, abi, flags);
	RK_ASSERT_EQ_INT(0, rk_codeobj_target(b, sizeof(b), out, &err));
	RK_ASSERT_EQ_STR(want, out);
}

static void co_bad(const unsigned char *b, size_t n, const char *msg)
{
	char out[RK_TARGET_MAX];
	struct rk_err err = RK_ERR_INIT;

	RK_ASSERT_EQ_INT(-EINVAL, rk_codeobj_target(b, n, out, &err));
	RK_ASSERT(strstr(err.msg, msg) != NULL);
}

RK_TEST(codeobj)
{
	unsigned char b[64];

	/* the demo's e_flags (docs/demo-store.md 3.1) */
	co_ok(3, 0x41, "gfx1100");
	co_ok(3, 0x46, "gfx1101");
	co_ok(3, 0x47, "gfx1102");
	co_ok(3, 0x44, "gfx1103");
	co_ok(3, 0x54C, "gfx942");
	co_ok(3, 0x74C, "gfx942:xnack+");
	/* V4+ feature fields */
	co_ok(2, 0x3F | 0x200 | 0xC00, "gfx90a:sramecc+:xnack-");
	co_ok(2, 0x3F | 0x300 | 0x800, "gfx90a:sramecc-:xnack+");
	co_ok(4, 0x5F | 0x100 | 0x400 | (1u << 24), "gfx9-4-generic");
	co_ok(4, 0x54, "gfx11-generic");
	co_ok(3, 0x4F | 0xC00 | 0x100, "gfx950:sramecc+");
	/* V3 (and V2, which LLVM writes with V3 flags): set bits are "on" */
	co_ok(1, 0x2F | 0x100, "gfx906:xnack+");
	co_ok(1, 0x2F | 0x300, "gfx906:sramecc+:xnack+");
	co_ok(1, 0x30, "gfx908");
	co_ok(0, 0x2C, "gfx900");

	co_bad((const unsigned char *)"\177ELF", 4, "truncated");
	co_bad((const unsigned char *)"MZ\0\0", 4, "not an ELF");
	elf(b, 3, 0x41);
	co_bad(b, 63, "truncated");
	b[18] = 62; /* x86-64 */
	co_bad(b, 64, "e_machine 62");
	elf(b, 3, 0x41);
	b[4] = 1;
	co_bad(b, 64, "ELF64");
	elf(b, 3, 0x27);
	co_bad(b, 64, "mach 0x27");
	elf(b, 3, 0x00);
	co_bad(b, 64, "mach 0x00");
	elf(b, 7, 0x41);
	co_bad(b, 64, "ABI version 7");
	elf(b, 3, 0x41);
	b[7] = 0;
	co_bad(b, 64, "OS ABI 0");
}
