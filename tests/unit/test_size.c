/* test_size.c: human byte sizes. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "rk/size.h"
#include "rk_test.h"

static uint64_t parse_ok(const char *s)
{
	uint64_t v = 12345;

	if (rk_size_parse(s, &v))
		rk_test_fail(__FILE__, __LINE__, "'%s' should parse", s);
	return v;
}

static void parse_bad(const char *s)
{
	uint64_t v = 12345;

	if (rk_size_parse(s, &v) != -EINVAL)
		rk_test_fail(__FILE__, __LINE__, "'%s' should be -EINVAL", s);
	RK_ASSERT_EQ_INT(12345, v); /* untouched */
}

RK_TEST(parse_plain)
{
	RK_ASSERT_EQ_INT(0, parse_ok("0"));
	RK_ASSERT_EQ_INT(123, parse_ok("123"));
	RK_ASSERT_EQ_INT(UINT64_MAX, parse_ok("18446744073709551615"));
}

RK_TEST(parse_units)
{
	RK_ASSERT_EQ_INT(64ull << 10, parse_ok("64K"));
	RK_ASSERT_EQ_INT(64ull << 10, parse_ok("64k"));
	RK_ASSERT_EQ_INT(512ull << 20, parse_ok("512M"));
	RK_ASSERT_EQ_INT(20ull << 30, parse_ok("20G"));
	RK_ASSERT_EQ_INT(1ull << 40, parse_ok("1T"));
	RK_ASSERT_EQ_INT(2ull << 50, parse_ok("2P"));
	RK_ASSERT_EQ_INT(20ull << 30, parse_ok("20GiB"));
	RK_ASSERT_EQ_INT(20ull << 30, parse_ok("20gib"));
	RK_ASSERT_EQ_INT(20ull << 30, parse_ok("20GB"));
	RK_ASSERT_EQ_INT(0, parse_ok("0G"));
}

RK_TEST(parse_bounds)
{
	/* 2^64 - 1 >> 10 is the largest K value */
	RK_ASSERT_EQ_INT((UINT64_MAX >> 10) << 10, parse_ok("18014398509481983K"));
	parse_bad("18014398509481984K");
	RK_ASSERT_EQ_INT(16383ull << 50, parse_ok("16383P"));
	parse_bad("16384P");
	parse_bad("18446744073709551616"); /* 2^64 */
	parse_bad("99999999999999999999999");
}

RK_TEST(parse_rejects_garbage)
{
	parse_bad("");
	parse_bad("G");
	parse_bad("-1");
	parse_bad("-1G");
	parse_bad("1.5G");
	parse_bad("1 G");
	parse_bad("1G ");
	parse_bad("1X");
	parse_bad("1E");
	parse_bad("1GG");
	parse_bad("1GiBx");
	parse_bad("1iB");
	parse_bad("0x10");
	parse_bad("abc");
}

RK_TEST(parse_rejects_null)
{
	uint64_t v;

	RK_ASSERT_EQ_INT(-EINVAL, rk_size_parse(NULL, &v));
}

RK_TEST(parse_rejects_sign_after_whitespace)
{
	/* strtoull skips blanks and accepts a sign: " -1" must not become 2^64 - 1 */
	parse_bad(" -1");
	parse_bad("\t-5G");
}

static void fmt(uint64_t v, const char *want)
{
	char out[32];

	rk_size_format(v, out, sizeof(out));
	if (strcmp(out, want))
		rk_test_fail(__FILE__, __LINE__, "format(%llu) = '%s', want '%s'",
			     (unsigned long long)v, out, want);
}

RK_TEST(format)
{
	fmt(0, "0 B");
	fmt(1, "1 B");
	fmt(1023, "1023 B");
	fmt(1024, "1.0 KiB");
	fmt(1536, "1.5 KiB");
	fmt(512ull << 20, "512.0 MiB");
	fmt(3ull << 29, "1.5 GiB");
	fmt(1ull << 40, "1.0 TiB");
	fmt(1ull << 50, "1.0 PiB");
	fmt(UINT64_MAX, "16384.0 PiB"); /* PiB is the largest unit */
}

RK_TEST(format_truncates_safely)
{
	char out[4];

	memset(out, 'x', sizeof(out));
	rk_size_format(3ull << 29, out, sizeof(out));
	RK_ASSERT_EQ_STR("1.5", out);
	rk_size_format(5, out, 1);
	RK_ASSERT_EQ_STR("", out);
}
