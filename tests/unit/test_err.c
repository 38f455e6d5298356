/* test_err.c: struct rk_err and the log handler. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rk/err.h"
#include "rk/log.h"
#include "rk_test.h"

RK_TEST(set_returns_code)
{
	struct rk_err err = RK_ERR_INIT;

	RK_ASSERT_EQ_INT(-EBADMSG, rk_err_set(&err, -EBADMSG, "'%s': truncated", "x.tar.zst"));
	RK_ASSERT_EQ_INT(-EBADMSG, err.code);
	RK_ASSERT_EQ_STR("'x.tar.zst': truncated", err.msg);
	RK_ASSERT_EQ_STR("'x.tar.zst': truncated", rk_err_str(&err, -EBADMSG));
}

RK_TEST(null_err_everywhere)
{
	RK_ASSERT_EQ_INT(-EIO, rk_err_set(NULL, -EIO, "x"));
	RK_ASSERT_EQ_INT(-EIO, rk_err_wrap(NULL, -EIO, "x"));
	rk_err_clear(NULL);
	RK_ASSERT_EQ_STR(strerror(ENOENT), rk_err_str(NULL, -ENOENT));
	RK_ASSERT_EQ_STR(strerror(ENOENT), rk_err_str(NULL, ENOENT));
}

RK_TEST(wrap_prefixes)
{
	struct rk_err err = RK_ERR_INIT;

	rk_err_set(&err, -EIO, "read failed");
	RK_ASSERT_EQ_INT(-EPROTO, rk_err_wrap(&err, -EPROTO, "'%s'", "a.tar.xz"));
	RK_ASSERT_EQ_STR("'a.tar.xz': read failed", err.msg);
	RK_ASSERT_EQ_INT(-EPROTO, err.code);
	rk_err_clear(&err);
	/* nothing to wrap: strerror of the code */
	rk_err_wrap(&err, -ENOENT, "store");
	RK_ASSERT_EQ_INT(0, strncmp(err.msg, "store: ", 7));
	RK_ASSERT_EQ_STR(strerror(ENOENT), err.msg + 7);
}

RK_TEST(long_messages_are_cut)
{
	struct rk_err err = RK_ERR_INIT;
	char big[2000];

	memset(big, 'm', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	rk_err_set(&err, -EIO, "%s", big);
	RK_ASSERT_EQ_INT(sizeof(err.msg) - 1, strlen(err.msg));
	rk_err_wrap(&err, -EIO, "%s", big);
	RK_ASSERT_EQ_INT(sizeof(err.msg) - 1, strlen(err.msg));
}

RK_TEST(clear)
{
	struct rk_err err = RK_ERR_INIT;

	rk_err_set(&err, -EIO, "x");
	rk_err_clear(&err);
	RK_ASSERT_EQ_INT(0, err.code);
	RK_ASSERT_EQ_STR("", err.msg);
	RK_ASSERT_EQ_STR(strerror(EIO), rk_err_str(&err, -EIO));
}

static int log_calls;
static enum rk_log_level log_last_level;
static char log_last[1100];

static void capture(enum rk_log_level level, const char *msg)
{
	log_calls++;
	log_last_level = level;
	snprintf(log_last, sizeof(log_last), "%s", msg);
}

static int evaluated;

static int side_effect(void)
{
	return ++evaluated;
}

RK_TEST(log_levels_and_handler)
{
	int saved = rk_log_level;

	rk_log_set_handler(capture);
	rk_log_level = RK_LOG_WARN;
	rk_warn("cache: blob %s", "abc");
	RK_ASSERT_EQ_INT(1, log_calls);
	RK_ASSERT_EQ_INT(RK_LOG_WARN, log_last_level);
	RK_ASSERT_EQ_STR("cache: blob abc", log_last);
	rk_err_log("e");
	RK_ASSERT_EQ_INT(2, log_calls);
	RK_ASSERT_EQ_INT(RK_LOG_ERR, log_last_level);
	/* above the level: dropped, and arguments are not evaluated */
	rk_debug("%d", side_effect());
	rk_info("%d", side_effect());
	RK_ASSERT_EQ_INT(2, log_calls);
	RK_ASSERT_EQ_INT(0, evaluated);
	rk_log_level = RK_LOG_DEBUG;
	rk_debug("%d", side_effect());
	RK_ASSERT_EQ_INT(3, log_calls);
	RK_ASSERT_EQ_STR("1", log_last);
	rk_log_set_handler(NULL); /* back to the default */
	rk_log_level = saved;
}

RK_TEST(log_long_message_is_cut)
{
	char big[3000];

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	rk_log_set_handler(capture);
	rk_warn("%s", big);
	RK_ASSERT_EQ_INT(1023, strlen(log_last));
	rk_log_set_handler(NULL);
}
