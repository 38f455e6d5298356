/* test_buf.c: struct rk_buf. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rk/buf.h"
#include "rk_test.h"

RK_TEST(init_is_empty_string)
{
	struct rk_buf b = RK_BUF_INIT;

	RK_ASSERT(b.buf != NULL);
	RK_ASSERT_EQ_STR("", b.buf);
	RK_ASSERT_EQ_INT(0, b.len);
	RK_ASSERT_EQ_INT(0, b.alloc);
	rk_buf_release(&b); /* releasing an unused buffer is fine */
	RK_ASSERT(b.buf == rk_buf_empty);
}

RK_TEST(addf_grows)
{
	struct rk_buf b = RK_BUF_INIT;

	RK_ASSERT_EQ_INT(0, rk_buf_addf(&b, "%s-%d", "x", 7));
	RK_ASSERT_EQ_STR("x-7", b.buf);
	RK_ASSERT_EQ_INT(3, b.len);
	RK_ASSERT(b.alloc > b.len);
	RK_ASSERT_EQ_INT(0, rk_buf_addf(&b, "%05u|%c", 42u, 'z'));
	RK_ASSERT_EQ_STR("x-700042|z", b.buf);
	RK_ASSERT_EQ_INT(0, rk_buf_addf(&b, "%s", ""));
	RK_ASSERT_EQ_INT(10, b.len);
	rk_buf_release(&b);
}

RK_TEST(addf_long_output)
{
	struct rk_buf b = RK_BUF_INIT;
	char big[5000];

	memset(big, 'q', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	RK_ASSERT_EQ_INT(0, rk_buf_addf(&b, "<%s>", big));
	RK_ASSERT_EQ_INT(5001, b.len);
	RK_ASSERT_EQ_INT('<', b.buf[0]);
	RK_ASSERT_EQ_INT('>', b.buf[5000]);
	RK_ASSERT_EQ_INT('\0', b.buf[5001]);
	rk_buf_release(&b);
}

RK_TEST(growth_keeps_contents)
{
	struct rk_buf b = RK_BUF_INIT;
	size_t prev_alloc = 0, grows = 0;

	for (int i = 0; i < 10000; i++) {
		char c = (char)('a' + i % 26);

		RK_ASSERT_EQ_INT(0, rk_buf_add(&b, &c, 1));
		RK_ASSERT(b.alloc > b.len);
		RK_ASSERT_EQ_INT('\0', b.buf[b.len]);
		if (b.alloc != prev_alloc) {
			grows++;
			prev_alloc = b.alloc;
		}
	}
	RK_ASSERT_EQ_INT(10000, b.len);
	for (int i = 0; i < 10000; i++)
		if (b.buf[i] != (char)('a' + i % 26))
			rk_test_fail(__FILE__, __LINE__, "byte %d changed", i);
	RK_ASSERT(grows < 20); /* geometric growth */
	rk_buf_release(&b);
}

RK_TEST(binary_safe)
{
	struct rk_buf b = RK_BUF_INIT;
	static const char data[] = {'a', '\0', 'b', '\0', '\0'};

	RK_ASSERT_EQ_INT(0, rk_buf_add(&b, data, sizeof(data)));
	RK_ASSERT_EQ_INT(5, b.len);
	RK_ASSERT_EQ_MEM(data, b.buf, sizeof(data));
	RK_ASSERT_EQ_INT(0, rk_buf_adds(&b, "cd"));
	RK_ASSERT_EQ_INT(7, b.len);
	RK_ASSERT_EQ_MEM("cd", b.buf + 5, 3);
	rk_buf_release(&b);
}

RK_TEST(add_zero_bytes)
{
	struct rk_buf b = RK_BUF_INIT;

	RK_ASSERT_EQ_INT(0, rk_buf_add(&b, NULL, 0));
	RK_ASSERT_EQ_INT(0, b.len);
	RK_ASSERT_EQ_STR("", b.buf);
	RK_ASSERT_EQ_INT(0, rk_buf_adds(&b, ""));
	RK_ASSERT_EQ_INT(0, b.len);
	rk_buf_release(&b);
	RK_ASSERT_EQ_INT('\0', rk_buf_empty[0]); /* the shared empty string stays empty */
}

RK_TEST(huge_add_fails_unchanged)
{
	struct rk_buf b = RK_BUF_INIT;

	RK_ASSERT_EQ_INT(0, rk_buf_adds(&b, "keep"));
	RK_ASSERT_EQ_INT(-ENOMEM, rk_buf_add(&b, "x", (size_t)-1 / 2));
	RK_ASSERT_EQ_INT(-ENOMEM, rk_buf_add(&b, "x", (size_t)-1));
	RK_ASSERT_EQ_STR("keep", b.buf);
	RK_ASSERT_EQ_INT(4, b.len);
	rk_buf_release(&b);
}

RK_TEST(json_escaping)
{
	struct rk_buf b = RK_BUF_INIT;

	RK_ASSERT_EQ_INT(0, rk_buf_add_json_str(&b, "plain"));
	RK_ASSERT_EQ_STR("\"plain\"", b.buf);
	rk_buf_release(&b);
	RK_ASSERT_EQ_INT(0, rk_buf_add_json_str(&b, ""));
	RK_ASSERT_EQ_STR("\"\"", b.buf);
	rk_buf_release(&b);
	RK_ASSERT_EQ_INT(0, rk_buf_add_json_str(&b, "a\"b\\c/d"));
	RK_ASSERT_EQ_STR("\"a\\\"b\\\\c/d\"", b.buf);
	rk_buf_release(&b);
	RK_ASSERT_EQ_INT(0, rk_buf_add_json_str(&b, "\n\t\r\x01\x1f "));
	RK_ASSERT_EQ_STR("\"\\u000a\\u0009\\u000d\\u0001\\u001f \"", b.buf);
	rk_buf_release(&b);
	/* UTF-8 and DEL pass through untouched */
	RK_ASSERT_EQ_INT(0, rk_buf_add_json_str(&b, "gfx942:xnack+ caf\xc3\xa9\x7f"));
	RK_ASSERT_EQ_STR("\"gfx942:xnack+ caf\xc3\xa9\x7f\"", b.buf);
	rk_buf_release(&b);
}

RK_TEST(json_appends)
{
	struct rk_buf b = RK_BUF_INIT;

	RK_ASSERT_EQ_INT(0, rk_buf_adds(&b, "{\"k\":"));
	RK_ASSERT_EQ_INT(0, rk_buf_add_json_str(&b, "v"));
	RK_ASSERT_EQ_INT(0, rk_buf_adds(&b, "}"));
	RK_ASSERT_EQ_STR("{\"k\":\"v\"}", b.buf);
	rk_buf_release(&b);
}

RK_TEST(detach)
{
	struct rk_buf b = RK_BUF_INIT;
	size_t len = 99;
	char *p;

	RK_ASSERT_EQ_INT(0, rk_buf_adds(&b, "hello"));
	p = rk_buf_detach(&b, &len);
	RK_ASSERT_EQ_STR("hello", p);
	RK_ASSERT_EQ_INT(5, len);
	RK_ASSERT(b.buf == rk_buf_empty);
	RK_ASSERT_EQ_INT(0, b.len);
	RK_ASSERT_EQ_INT(0, b.alloc);
	free(p);
	/* the buffer is reusable after detach */
	RK_ASSERT_EQ_INT(0, rk_buf_adds(&b, "again"));
	RK_ASSERT_EQ_STR("again", b.buf);
	rk_buf_release(&b);
}

RK_TEST(detach_empty_is_malloced)
{
	struct rk_buf b = RK_BUF_INIT;
	size_t len = 99;
	char *p = rk_buf_detach(&b, &len);

	RK_ASSERT(p != NULL);
	RK_ASSERT(p != rk_buf_empty);
	RK_ASSERT_EQ_STR("", p);
	RK_ASSERT_EQ_INT(0, len);
	free(p); /* must be freeable */
	p = rk_buf_detach(&b, NULL);
	RK_ASSERT(p != NULL);
	free(p);
}

RK_TEST(xml_escaping)
{
	struct rk_buf b = RK_BUF_INIT;

	RK_ASSERT_EQ_INT(0, rk_buf_add_xml(&b, "a&b<c>d\"e'f\tg\nh"));
	RK_ASSERT_EQ_STR("a&amp;b&lt;c&gt;d&quot;e'f\tg\nh", b.buf);
	rk_buf_release(&b);
	/* what XML 1.0 cannot carry: U+FFFD, one per control or stray byte */
	RK_ASSERT_EQ_INT(0, rk_buf_add_xml(&b, "x\x01y\xffz\xc3\xa9"));
	RK_ASSERT_EQ_STR("x\xef\xbf\xbdy\xef\xbf\xbdz\xc3\xa9", b.buf);
	rk_buf_release(&b);
	RK_ASSERT_EQ_INT(0, rk_buf_add_shown(&b, "a\nb\\c\xff\xc3\xa9"));
	RK_ASSERT_EQ_STR("a\\x0ab\\x5cc\\xff\xc3\xa9", b.buf);
	rk_buf_release(&b);
}
