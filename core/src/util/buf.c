/* buf.c: struct rk_buf. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk/buf.h"

char rk_buf_empty[1];

static int grow(struct rk_buf *b, size_t extra)
{
	size_t want, n;
	char *p;

	if (extra > (size_t)-1 / 2 - b->len)
		return -ENOMEM;
	want = b->len + extra + 1;
	if (want <= b->alloc)
		return 0;
	n = b->alloc ? b->alloc : 64;
	while (n < want)
		n *= 2;
	p = b->alloc ? realloc(b->buf, n) : malloc(n);
	if (!p)
		return -ENOMEM;
	if (!b->alloc)
		p[0] = '\0';
	b->buf = p;
	b->alloc = n;
	return 0;
}

int rk_buf_add(struct rk_buf *b, const void *data, size_t len)
{
	int rc = grow(b, len);

	if (rc)
		return rc;
	if (len)
		memcpy(b->buf + b->len, data, len);
	b->len += len;
	b->buf[b->len] = '\0';
	return 0;
}

int rk_buf_adds(struct rk_buf *b, const char *s)
{
	return rk_buf_add(b, s, strlen(s));
}

int rk_buf_addf(struct rk_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n, rc;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	rc = grow(b, (size_t)n);
	if (rc)
		return rc;
	va_start(ap, fmt);
	vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

int rk_buf_add_json_str(struct rk_buf *b, const char *s)
{
	size_t old = b->len;
	int rc = rk_buf_add(b, "\"", 1);

	for (; !rc && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			rc = rk_buf_addf(b, "\\%c", c);
		else if (c < 0x20)
			rc = rk_buf_addf(b, "\\u%04x", c);
		else
			rc = rk_buf_add(b, s, 1);
	}
	if (!rc)
		rc = rk_buf_add(b, "\"", 1);
	if (rc && b->alloc) {
		b->len = old;
		b->buf[old] = '\0';
	}
	return rc;
}

void rk_buf_release(struct rk_buf *b)
{
	if (b->alloc)
		free(b->buf);
	b->buf = rk_buf_empty;
	b->len = 0;
	b->alloc = 0;
}

char *rk_buf_detach(struct rk_buf *b, size_t *len)
{
	char *p = b->alloc ? b->buf : strdup("");

	if (len)
		*len = b->len;
	b->buf = rk_buf_empty;
	b->len = 0;
	b->alloc = 0;
	return p;
}
