/* test_pep503.c: formats/archive/pep503.h, the pages of python/ as bytes: the simple index (one
 * link per project of no family, percent-encoded href, HTML-escaped text), a project page
 * (hash, data-requires-python, PEP 658/714 metadata attributes) and the find-links pages
 * (all files; a family's page: its own files, the generic ones it does not replace, no
 * kpack-split products). */
#include <string.h>

#include "rk/buf.h"
#include "formats/archive/pep503.h"
#include "rk_test.h"

#define HEAD(t, h1)                                                                    \
	"<!DOCTYPE html>\n<html>\n<head>\n<meta name=\"pypi:repository-version\" "   \
	"content=\"1.0\">\n<title>" t "</title>\n</head>\n<body>\n" h1
#define TAIL "</body>\n</html>\n"
#define SHA_A "aa00000000000000000000000000000000000000000000000000000000000000"
#define SHA_M "mm00000000000000000000000000000000000000000000000000000000000000"

static const struct rk_pyindex_file files[] = {
	{.file = "rocm-7.1.tar.gz", .project = "rocm", .family = "", .sha = SHA_A},
	{.file = "rocm-7.1.tar.gz", .project = "rocm", .family = "gfx110X-all", .sha = SHA_A},
	{.file = "rocm_sdk_core-7.1-py3-none-linux_x86_64.whl",
	 .project = "rocm-sdk-core",
	 .family = "",
	 .sha = SHA_A,
	 .requires_python = ">=3.9",
	 .meta_sha = SHA_M},
	{.file = "rocm_sdk_device_gfx1100-7.1-py3-none-linux_x86_64.whl",
	 .project = "rocm-sdk-device-gfx1100",
	 .family = "",
	 .sha = SHA_A,
	 .split_product = 1},
};

RK_TEST(simple_root)
{
	struct rk_buf b = RK_BUF_INIT;

	RK_ASSERT_EQ_INT(0, rk_pep503_root(files, 4, &b));
	RK_ASSERT_EQ_STR(HEAD("Simple index", "") "<a href=\"rocm/\">rocm</a><br>\n"
						  "<a href=\"rocm-sdk-core/\">rocm-sdk-core</a><br>\n"
						  "<a href=\"rocm-sdk-device-gfx1100/\">"
						  "rocm-sdk-device-gfx1100</a><br>\n" TAIL,
			 b.buf);
	rk_buf_release(&b);
}

RK_TEST(project_page)
{
	struct rk_buf b = RK_BUF_INIT;

	RK_ASSERT_EQ_INT(0, rk_pep503_project("rocm-sdk-core", files + 2, 1, &b));
	RK_ASSERT_EQ_STR(HEAD("Links for rocm-sdk-core", "<h1>Links for rocm-sdk-core</h1>\n")
			 "<a href=\"../../files/rocm_sdk_core-7.1-py3-none-linux_x86_64.whl#sha256=" SHA_A
			 "\" data-requires-python=\"&gt;=3.9\" data-core-metadata=\"sha256=" SHA_M
			 "\" data-dist-info-metadata=\"sha256=" SHA_M
			 "\">rocm_sdk_core-7.1-py3-none-linux_x86_64.whl</a><br>\n" TAIL,
			 b.buf);
	b.len = 0;
	/* a project whose files are all in a family's directory (or unreadable): no link */
	RK_ASSERT_EQ_INT(0, rk_pep503_project("rocm", files + 1, 1, &b));
	RK_ASSERT(!strstr(b.buf, "<a "));
	rk_buf_release(&b);
}

RK_TEST(find_links_pages)
{
	struct rk_buf b = RK_BUF_INIT;

	RK_ASSERT_EQ_INT(0, rk_pep503_flat(files, 4, NULL, &b));
	RK_ASSERT_EQ_STR(HEAD("Package Index", "<h1>Package Index</h1>\n")
			 "<a href=\"files/rocm-7.1.tar.gz\">rocm-7.1.tar.gz</a><br>\n"
			 "<a href=\"files/rocm_sdk_core-7.1-py3-none-linux_x86_64.whl\">"
			 "rocm_sdk_core-7.1-py3-none-linux_x86_64.whl</a><br>\n"
			 "<a href=\"files/rocm_sdk_device_gfx1100-7.1-py3-none-linux_x86_64.whl\">"
			 "rocm_sdk_device_gfx1100-7.1-py3-none-linux_x86_64.whl</a><br>\n" TAIL,
			 b.buf);
	b.len = 0;
	RK_ASSERT_EQ_INT(0, rk_pep503_flat(files, 4, "gfx110X-all", &b));
	RK_ASSERT_EQ_STR(HEAD("ROCm Python Packages - gfx110X-all",
			      "<h1>ROCm Python Packages - gfx110X-all</h1>\n")
			 "<a href=\"./rocm-7.1.tar.gz\">rocm-7.1.tar.gz</a><br>\n"
			 "<a href=\"../files/rocm_sdk_core-7.1-py3-none-linux_x86_64.whl\">"
			 "rocm_sdk_core-7.1-py3-none-linux_x86_64.whl</a><br>\n" TAIL,
			 b.buf);
	rk_buf_release(&b);
}
