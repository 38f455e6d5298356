/* buf.c: struct rk_buf. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
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

size_t rk_utf8_len(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned char c = s[0];
	size_t n;
	uint32_t u;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, u = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, u = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, u = c & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0; /* a NUL ends the loop here too */
		u = u << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && u < 0x800) || (n == 4 && (u < 0x10000 || u > 0x10ffff)) ||
	    (u >= 0xd800 && u <= 0xdfff))
		return 0;
	return n;
}

int rk_buf_add_xml(struct rk_buf *b, const char *s)
{
	int rc = 0;

	while (!rc && *s) {
		unsigned char c = (unsigned char)*s;
		size_t n = rk_utf8_len(s);
		const char *e = c == '&'    ? "&amp;"
				: c == '<'  ? "&lt;"
				: c == '>'  ? "&gt;"
				: c == '"'  ? "&quot;"
					    : NULL;

		if (!n || (c < 0x20 && c != '\t' && c != '\n' && c != '\r'))
			e = "\xef\xbf\xbd"; /* U+FFFD */
		rc = e ? rk_buf_adds(b, e) : rk_buf_add(b, s, n);
		s += n ? n : 1;
	}
	return rc;
}

int rk_buf_add_shown(struct rk_buf *b, const char *s)
{
	int rc = 0;

	while (!rc && *s) {
		unsigned char c = (unsigned char)*s;
		size_t n = rk_utf8_len(s);

		if (!n || c < 0x20 || c == 0x7f || c == '\\')
			rc = rk_buf_addf(b, "\\x%02x", c), n = 1;
		else
			rc = rk_buf_add(b, s, n);
		s += n;
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
