/* log.c: replaceable log handler. */
#include <stdio.h>

#include "rk/log.h"
#include "util/htab.h"

int rk_log_level = RK_LOG_WARN;

static void default_handler(enum rk_log_level level, const char *msg)
{
	static const char *const names[] = {"error", "warning", "info", "debug"};

	fprintf(stderr, "rockfs: %s: %s\n", names[level], msg);
}

static rk_log_fn handler = default_handler;

void rk_log_set_handler(rk_log_fn fn)
{
	handler = fn ? fn : default_handler;
}

void rk_log_emit(enum rk_log_level level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	handler(level, msg);
}

/* htab.h's out-of-memory flag lives here, with the other process-wide bits. */
__thread int rk_htab_oom_flag;
