/* rk/buf.h: the one growable byte buffer (git's strbuf invariants).
 *
 * buf is never NULL (RK_BUF_INIT points it at a static empty string) and is always
 * NUL-terminated, yet binary-safe. On failure a buffer is left unchanged. Not
 * thread-safe; a buffer has one owner. */
#ifndef RK_BUF_H
#define RK_BUF_H

#include <stddef.h>

#include "rk/compiler.h"

struct rk_buf {
	char *buf;
	size_t len;
	size_t alloc; /* 0 while buf points at the static empty string */
};

extern char rk_buf_empty[1];
#define RK_BUF_INIT                \
	{                          \
		rk_buf_empty, 0, 0 \
	}

int rk_buf_add(struct rk_buf *b, const void *data, size_t len) RK_MUST_CHECK;
int rk_buf_adds(struct rk_buf *b, const char *s) RK_MUST_CHECK;
int rk_buf_addf(struct rk_buf *b, const char *fmt, ...) RK_PRINTF(2, 3) RK_MUST_CHECK;
/* Append s as a JSON string literal (quotes and escapes included). */
int rk_buf_add_json_str(struct rk_buf *b, const char *s) RK_MUST_CHECK;
/* Append s as XML text or attribute value: & < > " as references (as libxml2 writes
 * them), and
 * what XML 1.0 cannot carry at all (C0 controls but tab, newline and carriage return;
 * bytes that are not UTF-8) as U+FFFD, so the document stays well-formed whatever s is. */
int rk_buf_add_xml(struct rk_buf *b, const char *s) RK_MUST_CHECK;
/* Append s for a log line or a message: control characters, backslash and bytes that
 * are not UTF-8 as \xNN, so one name is one line and shows what it holds. */
int rk_buf_add_shown(struct rk_buf *b, const char *s) RK_MUST_CHECK;
/* Length of the UTF-8 sequence at s (1 to 4; a NUL is 1), or 0 when s does not start
 * one (overlong forms, surrogates and values over U+10FFFF are not UTF-8). Pure. */
size_t rk_utf8_len(const char *s);
/* Free the contents and return to RK_BUF_INIT. */
void rk_buf_release(struct rk_buf *b);
/* Hand the malloc'd contents to the caller (never NULL on success; NULL on ENOMEM). */
char *rk_buf_detach(struct rk_buf *b, size_t *len);

#endif
