/* remote_parse.c: S3 ListObjectsV2 pages, HTML directory indexes and SigV4 (rk/remote.h). */
#include <ctype.h>
#include <errno.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "rk/buf.h"
#include "rk/hash.h"
#include "rk/remote.h"

/* ---- helpers ---- */

static const char *find(const char *p, const char *end, const char *s)
{
	size_t n = strlen(s);

	while ((size_t)(end - p) >= n) {
		const char *q = memchr(p, s[0], (size_t)(end - p) - n + 1);

		if (!q)
			return NULL;
		if (!memcmp(q, s, n))
			return q;
		p = q + 1;
	}
	return NULL;
}

static int put_utf8(struct rk_buf *b, unsigned long cp)
{
	char u[4];
	size_t n;

	if (cp == 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return -EBADMSG;
	if (cp < 0x80) {
		u[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		u[0] = (char)(0xf0 | (cp >> 18));
		u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	return rk_buf_add(b, u, n) ? -ENOMEM : 0;
}

/* XML/HTML character data [p, end) with entities decoded, onto b. -EBADMSG on a bad
 * entity or a NUL. */
static int unentity(const char *p, const char *end, struct rk_buf *b)
{
	static const struct {
		const char *name;
		char c;
	} named[] = {{"amp;", '&'}, {"lt;", '<'}, {"gt;", '>'}, {"quot;", '"'}, {"apos;", '\''}};

	while (p < end) {
		const char *amp = memchr(p, '&', (size_t)(end - p));
		const char *stop = amp ? amp : end;
		size_t i;

		if (memchr(p, '\0', (size_t)(stop - p)))
			return -EBADMSG;
		if (rk_buf_add(b, p, (size_t)(stop - p)))
			return -ENOMEM;
		if (!amp)
			break;
		p = amp + 1;
		for (i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
			size_t n = strlen(named[i].name);

			if ((size_t)(end - p) >= n && !memcmp(p, named[i].name, n)) {
				if (rk_buf_add(b, &named[i].c, 1))
					return -ENOMEM;
				p += n;
				break;
			}
		}
		if (i < sizeof(named) / sizeof(named[0]))
			continue;
		if (p < end && *p == '#') {
			unsigned long cp = 0;
			int hex = p + 1 < end && (p[1] == 'x' || p[1] == 'X'), digits = 0, rc;

			p += hex ? 2 : 1;
			while (p < end && *p != ';' && digits < 8) {
				int d = isdigit((unsigned char)*p) ? *p - '0'
					: hex && isxdigit((unsigned char)*p)
						? (tolower((unsigned char)*p) - 'a' + 10)
						: -1;

				if (d < 0)
					return -EBADMSG;
				cp = cp * (hex ? 16 : 10) + (unsigned long)d;
				p++;
				digits++;
			}
			if (p >= end || *p != ';' || !digits)
				return -EBADMSG;
			p++;
			if ((rc = put_utf8(b, cp)))
				return rc;
			continue;
		}
		return -EBADMSG;
	}
	return 0;
}

/* The text of the first <tag>...</tag> in [p, end), decoded onto b (reset first). 1
 * found, 0 absent, <0 error. */
static int element(const char *p, const char *end, const char *tag, struct rk_buf *b)
{
	char open[64], close[64];
	const char *s, *e;

	snprintf(open, sizeof(open), "<%s>", tag);
	snprintf(close, sizeof(close), "</%s>", tag);
	b->len = 0;
	if (b->alloc)
		b->buf[0] = '\0';
	if (!(s = find(p, end, open)))
		return 0;
	s += strlen(open);
	if (!(e = find(s, end, close)))
		return -EBADMSG;
	return unentity(s, e, b) ?: 1;
}

static int valid_name(const char *s)
{
	return s[0] && strcmp(s, ".") && strcmp(s, "..") && !strchr(s, '/') && !strchr(s, '\n') &&
	       !strchr(s, '\r');
}

static int add_entry(struct rk_store_list *out, const char *name, int is_dir, uint64_t size,
		     int64_t mtime)
{
	struct rk_store_entry *v;

	/* capacity: 16, then doubling (out starts empty: {0}) */
	if (!out->v || (out->n >= 16 && !(out->n & (out->n - 1)))) {
		size_t cap = out->n < 16 ? 16 : out->n * 2;

		v = realloc(out->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		out->v = v;
	}
	v = &out->v[out->n];
	memset(v, 0, sizeof(*v));
	if (!(v->name = strdup(name)))
		return -ENOMEM;
	v->is_dir = is_dir;
	v->size = is_dir ? 0 : size;
	if (mtime < 0 || mtime > INT64_MAX / 1000000000)
		mtime = 0; /* unknown rather than an overflow */
	v->mtime = mtime;
	v->mtime_ns = mtime * 1000000000;
	out->n++;
	return 0;
}

/* "2026-11-22T00:31:40.000Z" -> seconds; 0 when malformed. */
static int64_t iso8601(const char *s)
{
	struct tm tm = {0};
	int y, mo, d, h, mi, se;

	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d", &y, &mo, &d, &h, &mi, &se) != 6 || y < 1970 ||
	    mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60 || h < 0 ||
	    mi < 0 || se < 0)
		return 0;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = se;
	return (int64_t)timegm(&tm);
}

/* ---- S3 ListObjectsV2 ---- */

static int valid_path(const char *s)
{
	char comp[1024];

	if (!*s)
		return 0;
	while (*s) {
		size_t n = strcspn(s, "/");

		if (!n || n >= sizeof(comp))
			return 0;
		memcpy(comp, s, n);
		comp[n] = '\0';
		if (!valid_name(comp))
			return 0;
		s += n;
		if (*s == '/' && !*++s)
			return 0;
	}
	return 1;
}

int rk_s3_parse_list(const char *xml, size_t len, const char *prefix, int recursive,
		     struct rk_store_list *out, char **next, struct rk_err *err)
{
	const char *p = xml, *end = xml + len;
	struct rk_buf t = RK_BUF_INIT;
	size_t plen = strlen(prefix);
	int rc = 0, truncated = 0;

	*next = NULL;
	if (!find(xml, end, "<ListBucketResult")) {
		if (find(xml, end, "<Error>") && element(xml, end, "Code", &t) > 0)
			rc = rk_err_set(err, -EBADMSG, "S3 error '%s'", t.buf);
		else
			rc = rk_err_set(err, -EBADMSG, "not a ListObjectsV2 response");
		rk_buf_release(&t);
		return rc;
	}
	for (;;) {
		const char *c = find(p, end, "<Contents>"), *cp = find(p, end, "<CommonPrefixes>");
		const char *s, *e;
		int is_dir;

		if (!c && !cp)
			break;
		is_dir = !c || (cp && cp < c);
		s = is_dir ? cp : c;
		e = find(s, end, is_dir ? "</CommonPrefixes>" : "</Contents>");
		if (!e) {
			rc = rk_err_set(err, -EBADMSG, "unterminated %s",
					is_dir ? "CommonPrefixes" : "Contents");
			break;
		}
		p = e + 1;
		rc = element(s, e, is_dir ? "Prefix" : "Key", &t);
		if (rc <= 0) {
			rc = rk_err_set(err, -EBADMSG, "%s without %s",
					is_dir ? "CommonPrefixes" : "Contents",
					is_dir ? "Prefix" : "Key");
			break;
		}
		rc = 0;
		if (t.len < plen || memcmp(t.buf, prefix, plen) || strlen(t.buf) != t.len)
			continue; /* not below the prefix (or an embedded NUL) */
		{
			char *name = t.buf + plen;
			size_t n = strlen(name);
			uint64_t size = 0;
			int64_t mtime = 0;

			if (is_dir) {
				if (!n || name[n - 1] != '/')
					continue;
				name[n - 1] = '\0';
			}
			if (recursive ? !valid_path(name) : !valid_name(name))
				continue; /* a directory marker, or deeper */
			name = strdup(name);
			if (!name) {
				rc = -ENOMEM;
				break;
			}
			if (!is_dir) {
				char *endp;

				if (element(s, e, "Size", &t) > 0) {
					errno = 0;
					size = strtoull(t.buf, &endp, 10);
					if (errno || endp == t.buf || *endp || t.buf[0] == '-') {
						rc = rk_err_set(err, -EBADMSG, "'%s': bad Size",
								name);
						free(name);
						break;
					}
				}
				if (element(s, e, "LastModified", &t) > 0)
					mtime = iso8601(t.buf);
			}
			rc = add_entry(out, name, is_dir, size, mtime);
			free(name);
			if (rc)
				break;
		}
	}
	if (!rc && element(xml, end, "IsTruncated", &t) > 0)
		truncated = !strcmp(t.buf, "true");
	if (!rc && truncated) {
		if (element(xml, end, "NextContinuationToken", &t) <= 0 || !t.len)
			rc = rk_err_set(err, -EBADMSG,
					"truncated page without a continuation token");
		else if (!(*next = strdup(t.buf)))
			rc = -ENOMEM;
	}
	rk_buf_release(&t);
	if (rc < 0 && rc != -ENOMEM && !(err && err->msg[0]))
		rc = rk_err_set(err, -EBADMSG, "malformed ListObjectsV2 response");
	return rc;
}

/* ---- HTML indexes ---- */

static int hexval(int c)
{
	return isdigit(c) ? c - '0' : isxdigit(c) ? tolower(c) - 'a' + 10 : -1;
}

/* Percent-decode s in place; -1 on a bad escape or a decoded NUL. */
static int pct_decode(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (*s == '%') {
			int a = hexval((unsigned char)s[1]),
			    b = a < 0 ? -1 : hexval((unsigned char)s[2]);

			if (a < 0 || b < 0 || (a == 0 && b == 0))
				return -1;
			*o++ = (char)(a * 16 + b);
			s += 2;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
	return 0;
}

static int is_absolute(const char *s)
{
	const char *p = s;

	if (!isalpha((unsigned char)*p))
		return 0;
	while (isalnum((unsigned char)*p) || *p == '+' || *p == '-' || *p == '.')
		p++;
	return (*p == ':' && p[1] == '/' && p[2] == '/') || !strncasecmp(s, "mailto:", 7) ||
	       !strncasecmp(s, "javascript:", 11) || !strncasecmp(s, "data:", 5);
}

static int html_link(struct rk_store_list *out, char *href)
{
	size_t n;
	int is_dir = 0;

	if (!href[0] || href[0] == '/' || href[0] == '?' || href[0] == '#' || is_absolute(href) ||
	    strpbrk(href, "?#"))
		return 0;
	while (!strncmp(href, "./", 2))
		href += 2;
	n = strlen(href);
	if (n > 11 && !strcmp(href + n - 11, "/index.html")) {
		href[n - 10] = '\0';
		n -= 10;
	}
	if (n && href[n - 1] == '/') {
		href[--n] = '\0';
		is_dir = 1;
	}
	if (pct_decode(href) || !valid_name(href))
		return 0;
	return add_entry(out, href, is_dir, 0, 0);
}

int rk_html_parse_index(const char *html, size_t len, struct rk_store_list *out, struct rk_err *err)
{
	const char *p = html, *end = html + len;
	struct rk_buf v = RK_BUF_INIT;
	int rc = 0;

	while (p < end) {
		const char *a = memchr(p, '<', (size_t)(end - p)), *gt, *h;

		if (!a)
			break;
		p = a + 1;
		if (end - a < 3 || (a[1] != 'a' && a[1] != 'A') || !isspace((unsigned char)a[2]))
			continue;
		gt = memchr(a, '>', (size_t)(end - a));
		if (!gt)
			break;
		p = gt + 1;
		for (h = a + 2; h < gt; h++) {
			const char *vs, *ve;

			if (strncasecmp(h, "href", 4) || !isspace((unsigned char)h[-1]))
				continue;
			vs = h + 4;
			while (vs < gt && isspace((unsigned char)*vs))
				vs++;
			if (vs >= gt || *vs != '=')
				continue;
			vs++;
			while (vs < gt && isspace((unsigned char)*vs))
				vs++;
			if (vs < gt && (*vs == '"' || *vs == '\'')) {
				char q = *vs++;

				ve = memchr(vs, q, (size_t)(gt - vs));
				if (!ve)
					break;
			} else {
				ve = vs;
				while (ve < gt && !isspace((unsigned char)*ve))
					ve++;
			}
			v.len = 0;
			if (v.alloc)
				v.buf[0] = '\0';
			if (unentity(vs, ve, &v) == -ENOMEM) {
				rc = -ENOMEM;
				goto out;
			}
			if (strlen(v.buf) == v.len && (rc = html_link(out, v.buf)))
				goto out;
			break;
		}
	}
out:
	rk_buf_release(&v);
	if (rc)
		return rc;
	(void)err;
	return 0;
}

/* ---- SigV4 ---- */

static void hex(const unsigned char *d, size_t n, char *out)
{
	static const char x[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = x[d[i] >> 4];
		out[2 * i + 1] = x[d[i] & 15];
	}
	out[2 * n] = '\0';
}

static int sha256_hex(const void *d, size_t n, char out[65])
{
	unsigned char md[32];
	unsigned int mdlen = 0;

	if (!EVP_Digest(d, n, md, &mdlen, EVP_sha256(), NULL) || mdlen != 32)
		return -EIO;
	hex(md, 32, out);
	return 0;
}

static int hmac(const void *key, size_t klen, const char *msg, unsigned char out[32])
{
	unsigned int n = 32;

	return HMAC(EVP_sha256(), key, (int)klen, (const unsigned char *)msg, strlen(msg), out, &n)
		       ? 0
		       : -EIO;
}

int rk_sigv4_sign(const struct rk_sigv4_key *k, const char *method, const char *url, time_t now,
		  char *hdrs, size_t n, struct rk_err *err)
{
	static const char empty_hash[] =
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
	struct rk_buf creq = RK_BUF_INIT, sts = RK_BUF_INIT, sk = RK_BUF_INIT;
	const char *host, *path, *query;
	char amzdate[17], date[9], creq_hash[65], sig[65];
	unsigned char kd[32], kr[32], ks[32], kk[32], mac[32];
	struct tm tm;
	int rc = -ENOMEM, used;

	host = strstr(url, "://");
	if (!host)
		return rk_err_set(err, -EINVAL, "'%s': not an absolute URL", url);
	host += 3;
	path = host + strcspn(host, "/?");
	query = strchr(path, '?');
	if (!gmtime_r(&now, &tm))
		return -EINVAL;
	strftime(amzdate, sizeof(amzdate), "%Y%m%dT%H%M%SZ", &tm);
	strftime(date, sizeof(date), "%Y%m%d", &tm);
	if (rk_buf_addf(&creq, "%s\n", method))
		goto out;
	if (path == query || !*path
		    ? rk_buf_adds(&creq, "/")
		    : rk_buf_add(&creq, path, query ? (size_t)(query - path) : strlen(path)))
		goto out;
	if (rk_buf_addf(&creq, "\n%s\nhost:%.*s\nx-amz-content-sha256:%s\nx-amz-date:%s\n",
			query ? query + 1 : "", (int)(path - host), host, empty_hash, amzdate))
		goto out;
	if (k->token && rk_buf_addf(&creq, "x-amz-security-token:%s\n", k->token))
		goto out;
	if (rk_buf_addf(&creq, "\nhost;x-amz-content-sha256;x-amz-date%s\n%s",
			k->token ? ";x-amz-security-token" : "", empty_hash))
		goto out;
	if ((rc = sha256_hex(creq.buf, creq.len, creq_hash)))
		goto out;
	rc = -ENOMEM;
	if (rk_buf_addf(&sts, "AWS4-HMAC-SHA256\n%s\n%s/%s/%s/aws4_request\n%s", amzdate, date,
			k->region, k->service, creq_hash) ||
	    rk_buf_addf(&sk, "AWS4%s", k->secret_key))
		goto out;
	if ((rc = hmac(sk.buf, sk.len, date, kd)) || (rc = hmac(kd, 32, k->region, kr)) ||
	    (rc = hmac(kr, 32, k->service, ks)) || (rc = hmac(ks, 32, "aws4_request", kk)) ||
	    (rc = hmac(kk, 32, sts.buf, mac)))
		goto out;
	hex(mac, 32, sig);
	used = snprintf(hdrs, n,
			"Authorization: AWS4-HMAC-SHA256 Credential=%s/%s/%s/%s/aws4_request, "
			"SignedHeaders=host;x-amz-content-sha256;x-amz-date%s, Signature=%s%c"
			"x-amz-date: %s%cx-amz-content-sha256: %s%c",
			k->access_key, date, k->region, k->service,
			k->token ? ";x-amz-security-token" : "", sig, 0, amzdate, 0, empty_hash, 0);
	if (used < 0 || (size_t)used >= n) {
		rc = -ENOSPC;
		goto out;
	}
	if (k->token) {
		int t = snprintf(hdrs + used, n - (size_t)used, "x-amz-security-token: %s%c",
				 k->token, 0);

		if (t < 0 || (size_t)t >= n - (size_t)used) {
			rc = -ENOSPC;
			goto out;
		}
		used += t;
	}
	rc = used;
out:
	rk_buf_release(&creq);
	rk_buf_release(&sts);
	rk_buf_release(&sk);
	return rc;
}
