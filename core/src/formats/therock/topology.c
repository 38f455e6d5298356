/* topology.c: the split_databases lists of TheRock's BUILD_TOPOLOGY.toml (rk/topology.h).
 *
 * A TOML 1.0 reader for what that file may hold, keeping one thing. It walks the text
 * once: table headers ([a.b], [[a.b]]) set the key path, each key = value line extends
 * it, and a value is read whole (strings of the four kinds with their escapes, arrays
 * over several lines, inline tables, bare numbers, booleans and dates) so that a syntax
 * error anywhere is reported with its line. Only a value whose full key path is
 * artifacts.<name>.split_databases, outside any array and any [[...]] table, is kept:
 * its strings must be handler names (rk/kpack_db.h). Not checked, as a full TOML parser
 * would: keys or tables defined twice (but split_databases twice for one artifact is an
 * error), the exact grammar of numbers and dates, UTF-8. Bounded: 16 keys in a path,
 * 255 bytes per key, 64 nested arrays or inline tables. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk/buf.h"
#include "rk/topology.h"
#include "util/file_read.h"

#define KEY_MAX 256
#define KEYS_MAX 16
#define DEPTH_MAX 64

struct tp {
	const char *p, *end;
	unsigned line;
	const char *name;
	struct rk_err *err;
	struct rk_topology *t;
	char keys[KEYS_MAX][KEY_MAX];
	int nkeys; /* the key path so far */
	int hdr; /* keys of the current table header */
	int aot; /* the current header is [[...]] */
	int arr; /* arrays the value being read is in */
	int depth; /* arrays and inline tables open */
	int have_artifacts;
	struct rk_kpack_db_set *cur; /* the list being read, or NULL */
	struct rk_buf s; /* the last string read */
};

static int bad(struct tp *x, const char *fmt, ...) RK_PRINTF(2, 3);

static int bad(struct tp *x, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return rk_err_set(x->err, -EINVAL, "%s:%u: %s", x->name, x->line, msg);
}

static int is_ctl(unsigned char c)
{
	return (c < 0x20 && c != '\t') || c == 0x7f;
}

static int at_eol(const struct tp *x)
{
	return x->p >= x->end || *x->p == '\n' ||
	       (*x->p == '\r' && x->p + 1 < x->end && x->p[1] == '\n');
}

static int newline(struct tp *x)
{
	if (x->p < x->end && *x->p == '\n') {
		x->p++;
	} else if (x->end - x->p >= 2 && x->p[0] == '\r' && x->p[1] == '\n') {
		x->p += 2;
	} else {
		return 0;
	}
	x->line++;
	return 1;
}

static void ws(struct tp *x)
{
	while (x->p < x->end && (*x->p == ' ' || *x->p == '\t'))
		x->p++;
}

/* A comment, if one starts here: up to the end of the line. */
static int comment(struct tp *x)
{
	if (x->p >= x->end || *x->p != '#')
		return 0;
	for (; !at_eol(x); x->p++)
		if (is_ctl((unsigned char)*x->p))
			return bad(x, "control character 0x%02x in a comment",
				   (unsigned char)*x->p);
	return 0;
}

/* Blanks, comments and new lines (between the items of an array). */
static int ws_nl(struct tp *x)
{
	int rc;

	for (;;) {
		ws(x);
		if ((rc = comment(x)))
			return rc;
		if (!newline(x))
			return 0;
	}
}

/* The rest of the line after a header or a value: blanks and a comment only. */
static int eol(struct tp *x, const char *after)
{
	int rc;

	ws(x);
	if ((rc = comment(x)))
		return rc;
	if (!at_eol(x))
		return bad(x, "unexpected '%c' after %s", *x->p, after);
	newline(x);
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The escape at x->p (after the '\'), appended to out as UTF-8. */
static int escape(struct tp *x, struct rk_buf *out)
{
	static const char from[] = "btnfr\"\\", to[] = "\b\t\n\f\r\"\\";
	const char *f;
	unsigned long u = 0;
	unsigned char b[4];
	int n, len;

	if (x->p >= x->end)
		return bad(x, "unterminated string");
	if ((f = strchr(from, *x->p)) && *x->p) {
		x->p++;
		return rk_buf_add(out, &to[f - from], 1);
	}
	if (*x->p != 'u' && *x->p != 'U')
		return bad(x, "bad escape '\\%c' in a string", *x->p);
	n = *x->p++ == 'u' ? 4 : 8;
	if (x->end - x->p < n)
		return bad(x, "unterminated string");
	for (int i = 0; i < n; i++) {
		int h = hexval((unsigned char)*x->p++);

		if (h < 0)
			return bad(x, "bad \\u escape in a string");
		u = u << 4 | (unsigned long)h;
	}
	if (u > 0x10ffff || (u >= 0xd800 && u <= 0xdfff))
		return bad(x, "\\u escape U+%lX is not a Unicode scalar value", u);
	if (u < 0x80) {
		b[0] = (unsigned char)u;
		len = 1;
	} else if (u < 0x800) {
		b[0] = (unsigned char)(0xc0 | u >> 6);
		b[1] = (unsigned char)(0x80 | (u & 0x3f));
		len = 2;
	} else if (u < 0x10000) {
		b[0] = (unsigned char)(0xe0 | u >> 12);
		b[1] = (unsigned char)(0x80 | (u >> 6 & 0x3f));
		b[2] = (unsigned char)(0x80 | (u & 0x3f));
		len = 3;
	} else {
		b[0] = (unsigned char)(0xf0 | u >> 18);
		b[1] = (unsigned char)(0x80 | (u >> 12 & 0x3f));
		b[2] = (unsigned char)(0x80 | (u >> 6 & 0x3f));
		b[3] = (unsigned char)(0x80 | (u & 0x3f));
		len = 4;
	}
	return rk_buf_add(out, b, (size_t)len);
}

/* A string of any kind at x->p, its value in out (replaced). */
static int string(struct tp *x, struct rk_buf *out, int multiline_ok)
{
	char q = *x->p;
	int ml = x->end - x->p >= 3 && x->p[1] == q && x->p[2] == q, rc = 0;

	out->len = 0;
	if (rk_buf_add(out, "", 0))
		return -ENOMEM;
	out->buf[0] = '\0';
	if (ml && !multiline_ok)
		return bad(x, "a multi-line string cannot be a key");
	x->p += ml ? 3 : 1;
	if (ml)
		newline(x); /* a new line right after the opening quotes is not part of it */
	for (;;) {
		unsigned char c;

		if (x->p >= x->end || (!ml && at_eol(x)))
			return bad(x, "unterminated string");
		c = (unsigned char)*x->p;
		if (c == (unsigned char)q) {
			size_t run = 1;

			if (!ml) {
				x->p++;
				return 0;
			}
			while (x->p + run < x->end && x->p[run] == q)
				run++;
			if (run >= 3) {
				if (run > 5)
					return bad(x, "too many quotes closing a string");
				rc = rk_buf_add(out, x->p, run - 3);
				x->p += run;
				return rc;
			}
			rc = rk_buf_add(out, x->p, run);
			x->p += run;
		} else if (c == '\\' && q == '"') {
			const char *s = ++x->p;

			if (ml) { /* a line-ending backslash eats the blanks and new lines after it
				   */
				while (s < x->end && (*s == ' ' || *s == '\t'))
					s++;
				if (s >= x->end || *s == '\n' || *s == '\r') {
					x->p = s;
					do
						ws(x);
					while (newline(x));
					continue;
				}
			}
			rc = escape(x, out);
		} else if (ml && (c == '\n' || c == '\r')) {
			if (!newline(x))
				return bad(x, "bare carriage return in a string");
			rc = rk_buf_add(out, "\n", 1);
		} else if (is_ctl(c)) {
			return bad(x, "control character 0x%02x in a string", c);
		} else {
			rc = rk_buf_add(out, x->p++, 1);
		}
		if (rc)
			return rc;
	}
}

static int is_bare(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

/* One key (bare or quoted) into x->keys[x->nkeys++]. */
static int simple_key(struct tp *x)
{
	char *k;
	size_t n;
	int rc;

	if (x->nkeys >= KEYS_MAX)
		return bad(x, "key path of more than %d keys", KEYS_MAX);
	k = x->keys[x->nkeys];
	if (x->p < x->end && (*x->p == '"' || *x->p == '\'')) {
		if ((rc = string(x, &x->s, 0)))
			return rc;
		if (strlen(x->s.buf) != x->s.len)
			return bad(x, "NUL in a key");
		n = x->s.len;
		if (n >= KEY_MAX)
			return bad(x, "key longer than %d bytes", KEY_MAX - 1);
		memcpy(k, x->s.buf, n);
	} else {
		const char *s = x->p;

		while (x->p < x->end && is_bare((unsigned char)*x->p))
			x->p++;
		n = (size_t)(x->p - s);
		if (!n)
			return x->p < x->end && !at_eol(x)
				       ? bad(x, "unexpected '%c', expected a key", *x->p)
				       : bad(x, "expected a key");
		if (n >= KEY_MAX)
			return bad(x, "key longer than %d bytes", KEY_MAX - 1);
		memcpy(k, s, n);
	}
	k[n] = '\0';
	x->nkeys++;
	return 0;
}

/* A dotted key path appended to x->keys. */
static int key_path(struct tp *x)
{
	int rc;

	for (;;) {
		if ((rc = simple_key(x)))
			return rc;
		ws(x);
		if (x->p >= x->end || *x->p != '.')
			return 0;
		x->p++;
		ws(x);
	}
}

/* Whether the value about to be read is a split_databases list to keep. */
static int wanted(const struct tp *x)
{
	return x->nkeys == 3 && !x->arr && !x->aot && !strcmp(x->keys[0], "artifacts") &&
	       !strcmp(x->keys[2], "split_databases");
}

static int value(struct tp *x);

/* One handler name of the list being kept. */
static int handler(struct tp *x)
{
	int rc, h;

	if (x->p >= x->end || (*x->p != '"' && *x->p != '\''))
		return bad(x, "artifacts.%s.split_databases: want an array of strings", x->keys[1]);
	if ((rc = string(x, &x->s, 1)))
		return rc;
	h = strlen(x->s.buf) == x->s.len ? rk_kpack_db_handler(x->s.buf) : -1;
	if (h < 0) {
		char known[200] = "";

		for (int i = 0; i < RK_KPACK_DB_NHANDLERS; i++)
			snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s",
				 i ? ", " : "", rk_kpack_db_name(i));
		return bad(x,
			   "artifacts.%s.split_databases: unknown database handler '%.64s' "
			   "(rocm-kpack has: %s)",
			   x->keys[1], x->s.buf, known);
	}
	rk_kpack_db_set_add(x->cur, h);
	return 0;
}

static int array(struct tp *x)
{
	struct rk_kpack_db_set *keep = x->cur;
	int rc;

	x->p++;
	x->arr++;
	x->cur = NULL; /* nested arrays are not the list */
	for (;;) {
		if ((rc = ws_nl(x)))
			return rc;
		if (x->p < x->end && *x->p == ']')
			break;
		if (keep && x->arr == 1) {
			x->cur = keep;
			rc = handler(x);
			x->cur = NULL;
		} else {
			rc = value(x);
		}
		if (rc || (rc = ws_nl(x)))
			return rc;
		if (x->p < x->end && *x->p == ',') {
			x->p++;
			continue;
		}
		if (x->p < x->end && *x->p == ']')
			break;
		return x->p < x->end
			       ? bad(x, "unexpected '%c' in an array, expected ',' or ']'", *x->p)
			       : bad(x, "unterminated array");
	}
	x->p++;
	x->arr--;
	x->cur = keep;
	return 0;
}

static int inline_table(struct tp *x)
{
	int base = x->nkeys, rc;

	x->p++;
	ws(x);
	if (x->p < x->end && *x->p == '}') {
		x->p++;
		return 0;
	}
	for (;;) {
		ws(x);
		if ((rc = key_path(x)))
			return rc;
		if (x->p >= x->end || *x->p != '=')
			return bad(x, "expected '=' after a key");
		x->p++;
		ws(x);
		if ((rc = value(x)))
			return rc;
		x->nkeys = base;
		ws(x);
		if (x->p < x->end && *x->p == ',') {
			x->p++;
			continue;
		}
		if (x->p < x->end && *x->p == '}') {
			x->p++;
			return 0;
		}
		return at_eol(x) ? bad(x, "unterminated inline table")
				 : bad(x, "unexpected '%c' in an inline table, expected ',' or '}'",
				       *x->p);
	}
}

static int is_scalar(int c)
{
	return is_bare(c) || c == '+' || c == '.' || c == ':';
}

/* A number, boolean or date: its characters, loosely checked. */
static int scalar(struct tp *x)
{
	const char *s = x->p;
	size_t n;

	while (x->p < x->end && is_scalar((unsigned char)*x->p))
		x->p++;
	/* a date and a time may be separated by a blank: 1979-05-27 07:32:00 */
	if (x->p - s == 10 && s[4] == '-' && x->end - x->p >= 2 && *x->p == ' ' && x->p[1] >= '0' &&
	    x->p[1] <= '9')
		for (x->p++; x->p < x->end && is_scalar((unsigned char)*x->p);)
			x->p++;
	n = (size_t)(x->p - s);
	if (!n)
		return x->p < x->end && !at_eol(x)
			       ? bad(x, "unexpected '%c', expected a value", *x->p)
			       : bad(x, "expected a value");
	if ((n == 4 && !memcmp(s, "true", 4)) || (n == 5 && !memcmp(s, "false", 5)))
		return 0;
	if (*s == '+' || *s == '-') {
		s++;
		n--;
	}
	if ((n == 3 && (!memcmp(s, "inf", 3) || !memcmp(s, "nan", 3))) ||
	    (n && *s >= '0' && *s <= '9'))
		return 0;
	return bad(x, "bad value '%.*s'", (int)n, s);
}

static int value(struct tp *x)
{
	int keep = wanted(x), rc;

	if (x->p >= x->end)
		return bad(x, "expected a value");
	if (x->depth >= DEPTH_MAX)
		return bad(x, "arrays or inline tables nested more than %d deep", DEPTH_MAX);
	if (keep) {
		struct rk_topology *t = x->t;
		struct rk_topology_entry *e;

		if (*x->p != '[')
			return bad(x, "artifacts.%s.split_databases: want an array of strings",
				   x->keys[1]);
		for (size_t i = 0; i < t->n; i++)
			if (!strcmp(t->e[i].name, x->keys[1]))
				return bad(x, "artifacts.%s.split_databases given twice",
					   x->keys[1]);
		e = realloc(t->e, (t->n + 1) * sizeof(*e));
		if (!e)
			return -ENOMEM;
		t->e = e;
		e += t->n;
		memset(e, 0, sizeof(*e));
		if (!(e->name = strdup(x->keys[1])))
			return -ENOMEM;
		x->cur = &t->e[t->n++].dbs;
	}
	x->depth++;
	switch (*x->p) {
	case '"':
	case '\'':
		rc = string(x, &x->s, 1);
		break;
	case '[':
		rc = array(x);
		break;
	case '{':
		rc = inline_table(x);
		break;
	default:
		rc = scalar(x);
	}
	x->depth--;
	if (keep)
		x->cur = NULL;
	return rc;
}

static int header(struct tp *x)
{
	int rc;

	x->aot = x->end - x->p >= 2 && x->p[1] == '[';
	x->p += x->aot ? 2 : 1;
	x->nkeys = 0;
	ws(x);
	if ((rc = key_path(x)))
		return rc;
	if (x->p >= x->end || *x->p != ']' || (x->aot && (x->end - x->p < 2 || x->p[1] != ']')))
		return bad(x, "expected '%s' closing a table header", x->aot ? "]]" : "]");
	x->p += x->aot ? 2 : 1;
	x->hdr = x->nkeys;
	if (!strcmp(x->keys[0], "artifacts"))
		x->have_artifacts = 1;
	return eol(x, "a table header");
}

static int keyval(struct tp *x)
{
	int rc;

	x->nkeys = x->hdr;
	if ((rc = key_path(x)))
		return rc;
	if (x->p >= x->end || *x->p != '=')
		return bad(x, "expected '=' after a key");
	x->p++;
	ws(x);
	if (!strcmp(x->keys[0], "artifacts"))
		x->have_artifacts = 1;
	if ((rc = value(x)))
		return rc;
	return eol(x, "a value");
}

int rk_topology_parse(const char *text, size_t len, const char *name, struct rk_topology *t,
		      struct rk_err *err)
{
	struct tp *x = calloc(1, sizeof(*x));
	int rc = 0;

	memset(t, 0, sizeof(*t));
	if (!x)
		return -ENOMEM;
	*x = (struct tp){.p = text, .end = text + len, .line = 1, .name = name, .err = err, .t = t};
	x->s = (struct rk_buf)RK_BUF_INIT;
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		x->p += 3; /* a UTF-8 byte order mark */
	while (!rc && x->p < x->end) {
		ws(x);
		if ((rc = comment(x)) || newline(x) || x->p >= x->end)
			continue;
		rc = *x->p == '[' ? header(x) : keyval(x);
	}
	if (!rc && !x->have_artifacts)
		rc = rk_err_set(err, -EINVAL, "%s: no [artifacts] table: not a BUILD_TOPOLOGY.toml",
				name);
	if (rc == -ENOMEM)
		rk_err_set(err, rc, "%s: out of memory", name);
	rk_buf_release(&x->s);
	free(x);
	if (rc)
		rk_topology_release(t);
	return rc;
}

int rk_topology_load(const char *path, struct rk_topology *t, struct rk_err *err)
{
	char *text = NULL;
	size_t got = 0;
	int rc;

	memset(t, 0, sizeof(*t));
	rc = rk_file_read(path, RK_TOPOLOGY_MAX, &text, &got);
	if (rc == -EINVAL)
		return rk_err_set(err, rc, "%s: not a regular file", path);
	if (rc == -EFBIG)
		return rk_err_set(err, rc, "%s: larger than %u bytes", path, RK_TOPOLOGY_MAX);
	if (rc == -EIO)
		return rk_err_set(err, rc, "%s: shorter than its size", path);
	if (rc)
		return rk_err_set(err, rc, "%s: %s", path, strerror(-rc));
	rc = rk_topology_parse(text, got, path, t, err);
	free(text);
	return rc;
}

static struct rk_topology builtin;
static int builtin_ok;
static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;

static void builtin_init(void)
{
	builtin_ok = !rk_topology_parse(rk_topology_toml, rk_topology_toml_len,
					"therock-topology.toml", &builtin, NULL);
}

const struct rk_topology *rk_topology_builtin(void)
{
	pthread_once(&builtin_once, builtin_init);
	return builtin_ok ? &builtin : NULL;
}

const struct rk_kpack_db_set *rk_topology_dbs(const struct rk_topology *t, const char *name)
{
	static const struct rk_kpack_db_set none;

	if (!t && !(t = rk_topology_builtin()))
		return &none;
	if (t->every)
		return &t->all;
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->e[i].name, name))
			return &t->e[i].dbs;
	return &none;
}

void rk_topology_wheel_dbs(const struct rk_topology *t, struct rk_kpack_db_set *out)
{
	unsigned char asked[RK_KPACK_DB_NHANDLERS] = {0};

	memset(out, 0, sizeof(*out));
	if (!t && !(t = rk_topology_builtin()))
		return;
	if (t->every) {
		*out = t->all;
		return;
	}
	for (size_t i = 0; i < t->n; i++)
		for (size_t j = 0; j < t->e[i].dbs.n; j++)
			asked[t->e[i].dbs.h[j]] = 1;
	for (unsigned h = 0; h < RK_KPACK_DB_NHANDLERS; h++)
		if (asked[h])
			out->h[out->n++] = (unsigned char)h;
}

void rk_topology_release(struct rk_topology *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->e[i].name);
	free(t->e);
	memset(t, 0, sizeof(*t));
}
