/* test_path.c: member name normalization and symlink escape checks. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rk/path.h"
#include "rk_test.h"

static void norm_ok(const char *in, const char *want)
{
	char out[256], again[256];
	int n = rk_path_normalize(in, out, sizeof(out));

	if (n != (int)strlen(want) || strcmp(out, want))
		rk_test_fail(__FILE__, __LINE__, "normalize('%s') = %d '%s', want '%s'", in, n,
			     n >= 0 ? out : "", want);
	/* idempotent */
	n = rk_path_normalize(out, again, sizeof(again));
	if (n != (int)strlen(want) || strcmp(again, want))
		rk_test_fail(__FILE__, __LINE__, "normalize is not idempotent on '%s'", out);
}

static void norm_err(const char *in, int want)
{
	char out[256];
	int n = rk_path_normalize(in, out, sizeof(out));

	if (n != want)
		rk_test_fail(__FILE__, __LINE__, "normalize('%s') = %d, want %d", in, n, want);
}

RK_TEST(normalize_plain)
{
	norm_ok("a", "a");
	norm_ok("a/b/c.txt", "a/b/c.txt");
	norm_ok("artifact_manifest.txt", "artifact_manifest.txt");
	norm_ok("math-libs/BLAS/rocBLAS/stage/lib/librocblas.so.4",
		"math-libs/BLAS/rocBLAS/stage/lib/librocblas.so.4");
}

RK_TEST(normalize_leading_slash_and_dot)
{
	norm_ok("/a/b", "a/b");
	norm_ok("///a", "a");
	norm_ok("./a", "a");
	norm_ok("././a/./b/.", "a/b");
	norm_ok("/./a", "a");
	norm_ok("./artifact_manifest.txt", "artifact_manifest.txt");
}

RK_TEST(normalize_repeated_and_trailing_slash)
{
	norm_ok("a//b", "a/b");
	norm_ok("a///b////c", "a/b/c");
	norm_ok("a/", "a");
	norm_ok("a/b//", "a/b");
	norm_ok("p1/stage/lib/", "p1/stage/lib");
}

RK_TEST(normalize_root_itself)
{
	norm_ok("", "");
	norm_ok("/", "");
	norm_ok("./", "");
	norm_ok(".", "");
	norm_ok("//./././/", "");
}

RK_TEST(normalize_dotdot_rejected)
{
	norm_err("..", -EINVAL);
	norm_err("../a", -EINVAL);
	norm_err("a/..", -EINVAL);
	norm_err("a/../b", -EINVAL);
	norm_err("/../etc/passwd", -EINVAL);
	norm_err("a/b/../../../c", -EINVAL);
	norm_err("./../a", -EINVAL);
	norm_err("a/../", -EINVAL);
}

RK_TEST(normalize_dots_in_names_are_names)
{
	norm_ok("...", "...");
	norm_ok("a/.../b", "a/.../b");
	norm_ok("..a", "..a");
	norm_ok("a..", "a..");
	norm_ok(".hidden/.x", ".hidden/.x");
	norm_ok("a/. /b", "a/. /b");
	norm_ok(" ../a", " ../a");
}

RK_TEST(normalize_bounds)
{
	char out[8];

	/* "abc/def" is 7 bytes + NUL: fits exactly in 8 */
	RK_ASSERT_EQ_INT(7, rk_path_normalize("/abc//def/", out, 8));
	RK_ASSERT_EQ_STR("abc/def", out);
	RK_ASSERT_EQ_INT(-ENAMETOOLONG, rk_path_normalize("abc/defg", out, 8));
	RK_ASSERT_EQ_INT(-ENAMETOOLONG, rk_path_normalize("abcdefgh", out, 8));
	RK_ASSERT_EQ_INT(1, rk_path_normalize("a", out, 2));
	RK_ASSERT_EQ_INT(-ENAMETOOLONG, rk_path_normalize("a", out, 1));
	RK_ASSERT_EQ_INT(-ENAMETOOLONG, rk_path_normalize("a", out, 0));
	/* nothing left needs only the NUL; n == 0 writes nothing */
	RK_ASSERT_EQ_INT(0, rk_path_normalize("./", out, 1));
	RK_ASSERT_EQ_STR("", out);
	RK_ASSERT_EQ_INT(0, rk_path_normalize("", out, 0));
}

RK_TEST(normalize_long_path)
{
	char in[5000], out[4097];

	memset(in, 'x', sizeof(in) - 1);
	in[sizeof(in) - 1] = '\0';
	RK_ASSERT_EQ_INT(-ENAMETOOLONG, rk_path_normalize(in, out, sizeof(out)));
	in[4096] = '\0';
	RK_ASSERT_EQ_INT(4096, rk_path_normalize(in, out, sizeof(out)));
	/* the separators count: 2048 x "a/" normalizes to 4095 bytes */
	for (int i = 0; i < 2048; i++)
		memcpy(in + 2 * i, "a/", 2);
	in[4096] = '\0';
	RK_ASSERT_EQ_INT(4095, rk_path_normalize(in, out, sizeof(out)));
	RK_ASSERT_EQ_INT(-ENAMETOOLONG, rk_path_normalize(in, out, 4095));
}

RK_TEST(link_absolute_escapes)
{
	RK_ASSERT(rk_path_link_escapes("a", "/etc/passwd"));
	RK_ASSERT(rk_path_link_escapes("a/b/c", "/"));
	RK_ASSERT(rk_path_link_escapes("p/stage/evil", "//x"));
}

RK_TEST(link_empty_target_escapes)
{
	RK_ASSERT(rk_path_link_escapes("a", ""));
}

RK_TEST(link_climbing_above_root)
{
	/* a link at the root: any ".." leaves */
	RK_ASSERT(rk_path_link_escapes("link", ".."));
	RK_ASSERT(rk_path_link_escapes("link", "../x"));
	RK_ASSERT(rk_path_link_escapes("link", "./../x"));
	/* depth 1: one ".." is the root, two leave */
	RK_ASSERT(!rk_path_link_escapes("d/link", ".."));
	RK_ASSERT(!rk_path_link_escapes("d/link", "../x"));
	RK_ASSERT(rk_path_link_escapes("d/link", "../../x"));
	/* depth 3 */
	RK_ASSERT(!rk_path_link_escapes("a/b/c/link", "../../../x"));
	RK_ASSERT(rk_path_link_escapes("a/b/c/link", "../../../../x"));
	RK_ASSERT(rk_path_link_escapes("escape/stage/up", "../../../../.."));
	/* ".." after a name is refused: the name may be a symlink pointing anywhere, so the
	 * climb cannot be judged lexically (a chain of links could leave the root) */
	RK_ASSERT(rk_path_link_escapes("d/link", "x/../../y"));
	RK_ASSERT(rk_path_link_escapes("a/b/link", "../c/../../d"));
	RK_ASSERT(rk_path_link_escapes("link", "..x/.."));
	RK_ASSERT(rk_path_link_escapes("d/link", "x/../../../y"));
	RK_ASSERT(rk_path_link_escapes("link", "x/../../y"));
	/* the escape may happen in the middle and come back in: still an escape */
	RK_ASSERT(rk_path_link_escapes("d/link", "../../d/x"));
	RK_ASSERT(rk_path_link_escapes("link", "../link2"));
}

RK_TEST(link_staying_inside)
{
	RK_ASSERT(!rk_path_link_escapes("lib/libfoo.so", "libfoo.so.1"));
	RK_ASSERT(!rk_path_link_escapes("link", "."));
	RK_ASSERT(!rk_path_link_escapes("link", "x"));
	RK_ASSERT(!rk_path_link_escapes("link", "./x/./y/"));
	RK_ASSERT(!rk_path_link_escapes("link", "x//y"));
	RK_ASSERT(!rk_path_link_escapes("a/b/link", "../../c/d"));
	RK_ASSERT(!rk_path_link_escapes("p/stage/bin/clang", "../lib/llvm/bin/clang-20"));
	RK_ASSERT(!rk_path_link_escapes("link", "..."));
	RK_ASSERT(!rk_path_link_escapes("link", "..x/y"));
}

RK_TEST(unwritable_names)
{
	char big[RK_PATH_OUT_MAX + 2];

	RK_ASSERT(!rk_path_unwritable("a/b/c.txt"));
	RK_ASSERT(!rk_path_unwritable("share/doc/caf\xc3\xa9 \xe2\x82\xac.txt")); /* UTF-8 */
	/* a tab: our own lists (dist/.rockfs/X.conflicts) separate fields with it */
	RK_ASSERT_EQ_STR("control character in name", rk_path_unwritable("tab\there"));
	RK_ASSERT_EQ_STR("control character in name", rk_path_unwritable("new\nline"));
	RK_ASSERT_EQ_STR("control character in name", rk_path_unwritable("a/\x01"));
	RK_ASSERT_EQ_STR("control character in name", rk_path_unwritable("del\x7f"));
	RK_ASSERT_EQ_STR("name not in UTF-8", rk_path_unwritable("bad\xffname"));
	RK_ASSERT_EQ_STR("name not in UTF-8", rk_path_unwritable("\xc0\xaf")); /* overlong */
	RK_ASSERT_EQ_STR("name not in UTF-8", rk_path_unwritable("\xed\xa0\x80")); /* surrogate */
	RK_ASSERT_EQ_STR("name not in UTF-8", rk_path_unwritable("cut\xe2\x82"));
	/* 255 bytes is NAME_MAX: fine; 256 is not */
	memset(big, 'x', 256);
	big[256] = '\0';
	RK_ASSERT_EQ_STR("name component over 255 bytes", rk_path_unwritable(big));
	big[255] = '\0';
	RK_ASSERT(!rk_path_unwritable(big));
	/* many short components, over RK_PATH_OUT_MAX in all */
	for (size_t i = 0; i < sizeof(big) - 1; i++)
		big[i] = i % 2 ? '/' : 'd';
	big[sizeof(big) - 1] = '\0';
	RK_ASSERT_EQ_STR("path over 3840 bytes", rk_path_unwritable(big));
	big[RK_PATH_OUT_MAX] = '\0';
	RK_ASSERT(!rk_path_unwritable(big));
}
