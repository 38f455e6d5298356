/* test_url.c: URLs as rockfs shows them (rk/url.h). */
#include <string.h>

#include "rk/url.h"
#include "rk_test.h"

static const char *shown(const char *url)
{
	static char buf[256];

	return rk_url_shown(url, buf, sizeof(buf));
}

RK_TEST(password_query_and_token_hidden)
{
	RK_ASSERT_EQ_STR("http://user:***@host/runs/", shown("http://user:pw@host/runs/"));
	RK_ASSERT_EQ_STR("https://u:***@h:8443", shown("https://u:p@ss:w@h:8443"));
	RK_ASSERT_EQ_STR("https://***@h/x", shown("https://ghp_token@h/x"));
	RK_ASSERT_EQ_STR("https://h/x?***", shown("https://h/x?X-Amz-Signature=abc"));
	RK_ASSERT_EQ_STR("https://u:***@h/x?***", shown("https://u:p@h/x?sig=1#frag"));
	RK_ASSERT_EQ_STR("https://h/x", shown("https://h/x#frag"));
	/* an '@' in the path is not userinfo */
	RK_ASSERT_EQ_STR("http://h/a@b", shown("http://h/a@b"));
	RK_ASSERT_EQ_STR("endpoint=http://k:***@h", shown("endpoint=http://k:secret@h"));
}

RK_TEST(no_secret_unchanged)
{
	RK_ASSERT_EQ_STR("s3://bucket/prefix", shown("s3://bucket/prefix"));
	RK_ASSERT_EQ_STR("/srv/store?x@y", shown("/srv/store?x@y"));
	RK_ASSERT_EQ_STR("./ftp://x", shown("./ftp://x"));
}

RK_TEST(cut_to_fit)
{
	char b[12];

	RK_ASSERT_EQ_STR("http://u:**", rk_url_shown("http://u:secretpassword@h/", b, sizeof(b)));
}

/* the argument area as the kernel shows it (/proc/PID/cmdline): one block of strings */
RK_TEST(scrub_argv_compacts)
{
	static const char args[] = "rockfs\0http://user:longpassword@h/runs/\0/mnt\0-f";
	char area[sizeof(args)];
	char *argv[5];
	int off = 0;

	memcpy(area, args, sizeof(args));
	for (int i = 0; i < 4; i++, off += (int)strlen(area + off) + 1)
		argv[i] = area + off;
	argv[4] = NULL;
	rk_url_scrub_argv(4, argv);
	RK_ASSERT_EQ_STR("rockfs", argv[0]);
	RK_ASSERT_EQ_STR("http://user:***@h/runs/", argv[1]);
	RK_ASSERT_EQ_STR("/mnt", argv[2]);
	RK_ASSERT_EQ_STR("-f", argv[3]);
	RK_ASSERT(argv[2] == argv[1] + strlen(argv[1]) + 1);
	RK_ASSERT(memmem(area, sizeof(area), "longpassword", 12) == NULL);
	for (const char *p = argv[3] + 3; p < area + sizeof(area); p++)
		RK_ASSERT(*p == 0);
}

RK_TEST(scrub_argv_short_password)
{
	static const char args[] = "rockfs\0http://u:p@h/\0/mnt";
	char area[sizeof(args)];
	char *argv[3] = {area, area + 7, area + 21};

	memcpy(area, args, sizeof(args));
	rk_url_scrub_argv(3, argv);
	/* no room for "***": the URL is cut in its own bytes, the password gone */
	RK_ASSERT(memmem(area, sizeof(area), ":p@", 3) == NULL);
	RK_ASSERT_EQ_STR("http://u:***@", argv[1]);
	RK_ASSERT_EQ_STR("/mnt", argv[2]);
}
