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

_Thread_local const char *rk_log_where;

void rk_log_emit(enum rk_log_level level, const char *fmt, ...)
{
	char msg[1024];
	int n = 0;
	va_list ap;

	if (rk_log_where && rk_log_where[0])
		n = snprintf(msg, sizeof(msg), "%s: ", rk_log_where);
	if (n < 0 || (size_t)n >= sizeof(msg))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	va_end(ap);
	handler(level, msg);
}

/* htab.h's out-of-memory flag lives here, with the other process-wide bits. */
__thread int rk_htab_oom_flag;
