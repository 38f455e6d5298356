/* rk/err.h: error reporting for the rockfs core.
 *
 * Every core function returns 0 (or a count) on success and a negative errno on
 * failure. Context travels separately in an optional struct rk_err, filled by the
 * function that detected the failure. rk_err_set() returns the code, so a failure
 * propagates in one line:
 *
 *	return rk_err_set(err, -EBADMSG, "'%s': truncated header", name);
 *
 * The message follows git's rules: lower case, no full stop, subjects in quotes.
 * err may be NULL everywhere. A struct rk_err is not shared between threads. */
#ifndef RK_ERR_H
#define RK_ERR_H

#include "rk/compiler.h"

struct rk_err {
	int code; /* negative errno, 0 when clear */
	char msg[512]; /* NUL-terminated context, "" when none */
};

#define RK_ERR_INIT   \
	{             \
		0, "" \
	}

/* Record code and a formatted message in err (if not NULL); return code. */
int rk_err_set(struct rk_err *err, int code, const char *fmt, ...) RK_PRINTF(3, 4);

/* Prefix the message already in err with "<fmt>: ", keeping the code; return the code. */
int rk_err_wrap(struct rk_err *err, int code, const char *fmt, ...) RK_PRINTF(3, 4);

/* Reset err to the clear state. */
void rk_err_clear(struct rk_err *err);

/* 1 when code (-errno) is a failure that may go away by itself, so that what failed is
 * tried again on the next access rather than kept as failed: the network (-ETIMEDOUT),
 * a full disk or quota (-ENOSPC, -EDQUOT: space comes back by eviction or by the user),
 * a cache that cannot be written now (-EROFS: read-only, its permissions, its directory
 * deleted; the cache reports every such write failure as -EROFS, rk/cache.h). */
int rk_err_transient(int code);

/* The message of err, or strerror of code if err holds none. Never NULL. */
const char *rk_err_str(const struct rk_err *err, int code);

#define RK_BUG(...) rk_bug(__FILE__, __LINE__, __VA_ARGS__)
RK_NORETURN void rk_bug(const char *file, int line, const char *fmt, ...) RK_PRINTF(3, 4);

#endif
