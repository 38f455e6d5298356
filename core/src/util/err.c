/* err.c: struct rk_err helpers. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk/err.h"

int rk_err_set(struct rk_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

int rk_err_wrap(struct rk_err *err, int code, const char *fmt, ...)
{
	char head[256], old[sizeof(err->msg)];
	va_list ap;

	if (!err)
		return code;
	va_start(ap, fmt);
	vsnprintf(head, sizeof(head), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	if (old[0])
		snprintf(err->msg, sizeof(err->msg), "%s: %s", head, old);
	else
		snprintf(err->msg, sizeof(err->msg), "%s: %s", head, strerror(-code));
	err->code = code;
	return code;
}

void rk_err_clear(struct rk_err *err)
{
	if (err) {
		err->code = 0;
		err->msg[0] = '\0';
	}
}

const char *rk_err_str(const struct rk_err *err, int code)
{
	if (err && err->msg[0])
		return err->msg;
	return strerror(code < 0 ? -code : code);
}

void rk_bug(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "BUG: %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

int rk_err_transient(int code)
{
	return code == -ETIMEDOUT || code == -ENOSPC || code == -EDQUOT || code == -EROFS;
}
