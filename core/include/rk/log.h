/* rk/log.h: the core's only way to say something.
 *
 * The core never prints. It sends messages through a handler that the program
 * installs (the daemon: stderr under -f, syslog otherwise; rockpack: stderr).
 * The level check happens in the macro, so arguments are not evaluated when the
 * level is off. The handler may be called from any thread at once. */
#ifndef RK_LOG_H
#define RK_LOG_H

#include <stdarg.h>

#include "rk/compiler.h"

enum rk_log_level { RK_LOG_ERR = 0, RK_LOG_WARN, RK_LOG_INFO, RK_LOG_DEBUG };

typedef void (*rk_log_fn)(enum rk_log_level level, const char *msg);

extern int rk_log_level; /* messages above this level are dropped; default RK_LOG_WARN */

/* Install handler (NULL: default, which writes "rockfs: msg" to stderr). Not thread-safe:
 * call before starting threads. */
void rk_log_set_handler(rk_log_fn fn);

void rk_log_emit(enum rk_log_level level, const char *fmt, ...) RK_PRINTF(2, 3);

/* Where this thread's work is, as a mount path ("RUN/dist/gfx1100"), or NULL: every
 * message emitted meanwhile starts with it ("RUN/dist/gfx1100: ..."), so that a line a
 * view or service logs names the run, view and path without knowing them. The engine
 * sets it around the work it hands to views; save and restore it when nesting. */
extern _Thread_local const char *rk_log_where;

#define rk_log(l, ...)                               \
	do {                                         \
		if ((int)(l) <= rk_log_level)        \
			rk_log_emit(l, __VA_ARGS__); \
	} while (0)
#define rk_err_log(...) rk_log(RK_LOG_ERR, __VA_ARGS__)
#define rk_warn(...) rk_log(RK_LOG_WARN, __VA_ARGS__)
#define rk_info(...) rk_log(RK_LOG_INFO, __VA_ARGS__)
#define rk_debug(...) rk_log(RK_LOG_DEBUG, __VA_ARGS__)

#endif
