/* http.c: the libcurl transport of the remote stores (http.h). */
#include <curl/curl.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "rk/log.h"
#include "rk/url.h"
#include "store/http.h"

#define POOL_MAX 16

struct rk_http {
	CURLSH *share;
	pthread_mutex_t locks[CURL_LOCK_DATA_LAST];
	pthread_mutex_t pool_lock;
	CURL *pool[POOL_MAX];
	unsigned npool;
	unsigned timeout_ms, retries, stall_ms;
	char *cainfo; /* $CURL_CA_BUNDLE or $SSL_CERT_FILE: the CA certificates to trust */
	_Atomic uint64_t requests;
	_Atomic uint64_t bytes; /* response bodies received */
};

/* url as logs and error messages show it (rk_url_shown: no password, no query string),
 * so that no secret leaves the process. */
static const char *url_shown(const char *url)
{
	static _Thread_local char buf[4][1024];
	static _Thread_local unsigned next;

	return rk_url_shown(url, buf[next++ % 4], sizeof(buf[0]));
}

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static CURLcode global_rc;

static void global_init(void)
{
	global_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

static void share_lock(CURL *e, curl_lock_data data, curl_lock_access access, void *ctx)
{
	struct rk_http *h = ctx;

	(void)e;
	(void)access;
	pthread_mutex_lock(&h->locks[data]);
}

static void share_unlock(CURL *e, curl_lock_data data, void *ctx)
{
	struct rk_http *h = ctx;

	(void)e;
	pthread_mutex_unlock(&h->locks[data]);
}

int rk_http_new(const struct rk_http_opts *o, struct rk_http **out, struct rk_err *err)
{
	struct rk_http *h;

	pthread_once(&global_once, global_init);
	if (global_rc)
		return rk_err_set(err, -EIO, "libcurl: %s", curl_easy_strerror(global_rc));
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	{
		const char *ca = getenv("CURL_CA_BUNDLE");

		if (!ca || !ca[0])
			ca = getenv("SSL_CERT_FILE");
		if (ca && ca[0] && !(h->cainfo = strdup(ca))) {
			free(h);
			return -ENOMEM;
		}
	}
	h->timeout_ms = o && o->timeout_ms ? o->timeout_ms : 60000;
	h->retries = o && o->retries ? o->retries : 6;
	h->stall_ms = o && o->stall_ms ? o->stall_ms : 15000;
	if (h->stall_ms > h->timeout_ms)
		h->stall_ms = h->timeout_ms;
	for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
		pthread_mutex_init(&h->locks[i], NULL);
	pthread_mutex_init(&h->pool_lock, NULL);
	h->share = curl_share_init();
	if (!h->share) {
		rk_http_free(h);
		return -ENOMEM;
	}
	curl_share_setopt(h->share, CURLSHOPT_LOCKFUNC, share_lock);
	curl_share_setopt(h->share, CURLSHOPT_UNLOCKFUNC, share_unlock);
	curl_share_setopt(h->share, CURLSHOPT_USERDATA, h);
	curl_share_setopt(h->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
	curl_share_setopt(h->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
	/* Not CURL_LOCK_DATA_CONNECT: libcurl does not support a connection cache shared by
	 * concurrent threads (CURLSHOPT_SHARE(3); KNOWN_BUGS "A shared connection cache is
	 * not thread-safe", curl#4915), and ours are: listing, ingest and reader threads.
	 * Helgrind finds races inside libcurl with it; the likely cause of the one heap
	 * corruption seen under load (glibc "malloc(): invalid next size", never
	 * reproduced). Each pooled easy handle keeps its own connections, so a
	 * handle taken from the pool still reuses a kept-alive connection. */
	*out = h;
	return 0;
}

void rk_http_free(struct rk_http *h)
{
	if (!h)
		return;
	for (unsigned i = 0; i < h->npool; i++)
		curl_easy_cleanup(h->pool[i]);
	if (h->share)
		curl_share_cleanup(h->share);
	for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
		pthread_mutex_destroy(&h->locks[i]);
	pthread_mutex_destroy(&h->pool_lock);
	free(h->cainfo);
	free(h);
}

uint64_t rk_http_requests(const struct rk_http *h)
{
	return atomic_load(&h->requests);
}

uint64_t rk_http_bytes(const struct rk_http *h)
{
	return atomic_load(&h->bytes);
}

static CURL *easy_get(struct rk_http *h)
{
	CURL *e = NULL;

	pthread_mutex_lock(&h->pool_lock);
	if (h->npool)
		e = h->pool[--h->npool];
	pthread_mutex_unlock(&h->pool_lock);
	if (e)
		curl_easy_reset(e);
	else
		e = curl_easy_init();
	return e;
}

/* Back to the pool with its kept-alive connection when reuse, else closed: after a failed
 * transfer the connection may hold the rest of a response that said it was shorter than
 * it was (a short Content-Length), which the next request would read as its answer. */
static void easy_put(struct rk_http *h, CURL *e, int reuse)
{
	if (!e)
		return;
	pthread_mutex_lock(&h->pool_lock);
	if (reuse && h->npool < POOL_MAX) {
		h->pool[h->npool++] = e;
		e = NULL;
	}
	pthread_mutex_unlock(&h->pool_lock);
	if (e)
		curl_easy_cleanup(e);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* A per-thread xorshift: rand() is not thread-safe, and jitter needs no quality. */
static uint64_t jitter(void)
{
	static _Thread_local uint64_t x;

	if (!x)
		x = now_ms() ^ (uint64_t)(uintptr_t)&x ^ 0x9e3779b97f4a7c15ull;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

/* Sleep before attempt (1-based), never past the deadline: 100 ms doubling to 5 s, with
 * jitter so that many readers do not retry in step. */
static void backoff(unsigned attempt, uint64_t deadline)
{
	uint64_t ms = 100ull << (attempt < 7 ? attempt - 1 : 6), now = now_ms();

	if (ms > 5000)
		ms = 5000;
	ms = ms / 2 + jitter() % (ms / 2 + 1);
	if (now + ms > deadline)
		ms = deadline > now ? deadline - now : 0;
	if (ms)
		usleep((useconds_t)(ms * 1000));
}

int rk_http_escape(struct rk_buf *b, const char *s, int keep_slash)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		int keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
			   (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' || c == '~' ||
			   (keep_slash && c == '/');
		char enc[3] = {'%', hex[c >> 4], hex[c & 15]};

		if (keep ? rk_buf_add(b, s, 1) : rk_buf_add(b, enc, 3))
			return -ENOMEM;
	}
	return 0;
}

/* A retry asks caching proxies on the way for a fresh copy: the one they hold may be
 * what failed (cvmfs does the same). */
static int no_cache(struct curl_slist **hdrs)
{
	struct curl_slist *n = curl_slist_append(*hdrs, "Cache-Control: no-cache");

	if (!n) {
		curl_slist_free_all(*hdrs);
		*hdrs = NULL;
		return -ENOMEM;
	}
	*hdrs = n;
	return 0;
}

/* ---- redirects ----
 * Followed here, not by libcurl, at most MAX_REDIRS per request, by these rules:
 *  - only to http or https, never from https to http (refused: the request fails, -EIO,
 *    and the message names both URLs without their secrets);
 *  - a target of another origin (scheme, host and port) than the URL asked for gets the
 *    request without anything secret: the signer is not called (no SigV4 Authorization,
 *    no x-amz-security-token) and the URL's user:password@ is dropped. Once off its
 *    origin a request stays so, even when sent back to it.
 * libcurl's own rules (CURLOPT_UNRESTRICTED_AUTH) cover Authorization and cookies but not
 * other custom headers, which it would send on to any host. */
#define MAX_REDIRS 5

struct hop {
	char *url; /* where the request goes now (malloc'd); NULL: the target's own URL */
	int cross; /* left the target's origin: nothing secret is sent */
	unsigned n; /* redirects followed */
};

static const char *hop_url(const struct hop *hp, const struct rk_http_target *t)
{
	return hp->url ? hp->url : t->url;
}

static void hop_reset(struct hop *hp)
{
	free(hp->url);
	*hp = (struct hop){0};
}

static int is_redirect(long status)
{
	return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

/* 1 when a and b have the same scheme, host and port (default ports made explicit),
 * 0 when not or when either does not parse. */
static int same_origin(const char *a, const char *b)
{
	static const CURLUPart parts[] = {CURLUPART_SCHEME, CURLUPART_HOST, CURLUPART_PORT};
	CURLU *ua = curl_url(), *ub = curl_url();
	int same = ua && ub && !curl_url_set(ua, CURLUPART_URL, a, 0) &&
		   !curl_url_set(ub, CURLUPART_URL, b, 0);

	for (size_t i = 0; same && i < sizeof(parts) / sizeof(parts[0]); i++) {
		char *pa = NULL, *pb = NULL;

		same = !curl_url_get(ua, parts[i], &pa, CURLU_DEFAULT_PORT) &&
		       !curl_url_get(ub, parts[i], &pb, CURLU_DEFAULT_PORT) && !strcasecmp(pa, pb);
		curl_free(pa);
		curl_free(pb);
	}
	curl_url_cleanup(ua);
	curl_url_cleanup(ub);
	return same;
}

/* url without user:password@ (malloc'd), or NULL (out of memory, or it does not parse). */
static char *without_userinfo(const char *url)
{
	CURLU *u = curl_url();
	char *s = NULL, *out = NULL;

	if (u && !curl_url_set(u, CURLUPART_URL, url, 0) &&
	    !curl_url_set(u, CURLUPART_USER, NULL, 0) &&
	    !curl_url_set(u, CURLUPART_PASSWORD, NULL, 0) &&
	    !curl_url_set(u, CURLUPART_OPTIONS, NULL, 0) && !curl_url_get(u, CURLUPART_URL, &s, 0))
		out = strdup(s);
	curl_free(s);
	curl_url_cleanup(u);
	return out;
}

/* After a redirect answer on e (before e goes back to the pool): move hp to where it
 * points, by the rules above. 0, or -EIO (refused; err says why) or -ENOMEM. */
static int redirect_next(const struct rk_http_target *t, struct hop *hp, CURL *e, long status,
			 struct rk_err *err)
{
	const char *from = hop_url(hp, t);
	char *loc = NULL, *next;

	curl_easy_getinfo(e, CURLINFO_REDIRECT_URL, &loc);
	if (!loc)
		return rk_err_set(err, -EIO, "'%s': HTTP %ld without a Location", url_shown(from),
				  status);
	if (++hp->n > MAX_REDIRS)
		return rk_err_set(err, -EIO, "'%s': more than %d redirects", url_shown(t->url),
				  MAX_REDIRS);
	if (strncasecmp(loc, "http://", 7) && strncasecmp(loc, "https://", 8))
		return rk_err_set(err, -EIO, "'%s': redirect to '%s' refused: not http or https",
				  url_shown(from), url_shown(loc));
	if (!strncasecmp(from, "https://", 8) && !strncasecmp(loc, "http://", 7))
		return rk_err_set(err, -EIO, "'%s': redirect to '%s' refused: https to http",
				  url_shown(from), url_shown(loc));
	if (!hp->cross && !same_origin(t->url, loc)) {
		hp->cross = 1;
		rk_info("'%s': redirected to '%s', another origin: asked without credentials",
			url_shown(from), url_shown(loc));
	}
	next = hp->cross ? without_userinfo(loc) : strdup(loc);
	if (!next)
		return hp->cross ? rk_err_set(err, -EIO, "'%s': redirect to a bad URL '%s'",
					      url_shown(from), url_shown(loc))
				 : -ENOMEM;
	free(hp->url);
	hp->url = next;
	return 0;
}

/* The headers of one request to where hp points: the signer's (on the target's origin
 * only), Cache-Control on a retry, then the non-empty lines of extra (NULL-ended). */
static int request_headers(const struct rk_http_target *t, const struct hop *hp, const char *method,
			   unsigned attempt, const char *const *extra, struct curl_slist **out,
			   struct rk_err *err)
{
	struct curl_slist *hdrs = NULL, *n;
	int rc;

	if (t->sign && !hp->cross &&
	    (rc = t->sign(t->sign_ctx, method, hop_url(hp, t), &hdrs, err))) {
		curl_slist_free_all(hdrs);
		return rc;
	}
	if (attempt && (rc = no_cache(&hdrs)))
		return rc;
	for (; extra && *extra; extra++) {
		if (!**extra)
			continue;
		if (!(n = curl_slist_append(hdrs, *extra))) {
			curl_slist_free_all(hdrs);
			return -ENOMEM;
		}
		hdrs = n;
	}
	*out = hdrs;
	return 0;
}

/* ---- one request ---- */

struct xfer {
	struct rk_http_meta meta;
	uint64_t range_total; /* from Content-Range, 0 if none */
	int has_range;
	/* body sink */
	struct rk_buf *body;
	size_t max;
	int too_big;
	/* stream sink: skip bytes first (a server that ignored Range), then into ring */
	uint64_t skip;
	char etag[128]; /* of this response, "" when none */
};

static size_t header_cb(char *p, size_t size, size_t n, void *ctx)
{
	struct xfer *x = ctx;
	size_t len = size * n;

	if (len > 14 && !strncasecmp(p, "content-range:", 14)) {
		const char *slash = memchr(p, '/', len);

		if (slash && slash[1] >= '0' && slash[1] <= '9') {
			x->range_total = strtoull(slash + 1, NULL, 10);
			x->has_range = 1;
		}
	} else if (len > 13 && !strncasecmp(p, "content-type:", 13)) {
		size_t i = 13, k = 0;

		while (i < len && p[i] == ' ')
			i++;
		while (i < len && p[i] != '\r' && p[i] != '\n' && p[i] != ';' &&
		       k + 1 < sizeof(x->meta.content_type))
			x->meta.content_type[k++] = p[i++];
		x->meta.content_type[k] = '\0';
	} else if (len > 5 && !strncasecmp(p, "etag:", 5)) {
		size_t i = 5, k = 0;

		while (i < len && p[i] == ' ')
			i++;
		while (i < len && p[i] != '\r' && p[i] != '\n' && k + 1 < sizeof(x->etag))
			x->etag[k++] = p[i++];
		x->etag[k] = '\0';
	} else if (len >= 5 && !strncmp(p, "HTTP/", 5)) {
		/* a new response (redirect, 100-continue): forget the previous one's headers */
		x->has_range = 0;
		x->range_total = 0;
		x->meta.content_type[0] = '\0';
		x->etag[0] = '\0';
	}
	return len;
}

static size_t body_cb(char *p, size_t size, size_t n, void *ctx)
{
	struct xfer *x = ctx;
	size_t len = size * n;

	if (x->body->len + len > x->max) {
		x->too_big = 1;
		return 0;
	}
	if (rk_buf_add(x->body, p, len))
		return 0;
	return len;
}

static int setup(struct rk_http *h, CURL *e, const char *url, struct curl_slist *hdrs,
		 struct xfer *x, uint64_t timeout_ms)
{
	long stall_s = (long)((h->stall_ms + 999) / 1000);

	curl_easy_setopt(e, CURLOPT_URL, url);
	curl_easy_setopt(e, CURLOPT_SHARE, h->share);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	/* redirects are followed here, not by libcurl (redirect_next): libcurl would send
	 * our custom headers (SigV4's Authorization, x-amz-security-token) to any host */
	curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
	curl_easy_setopt(e, CURLOPT_USERAGENT, "rockfs/0.1");
	curl_easy_setopt(e, CURLOPT_FILETIME, 1L);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
			 (long)(timeout_ms < 10000 ? timeout_ms : 10000));
	curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, stall_s ? stall_s : 1L);
	curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, header_cb);
	curl_easy_setopt(e, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, hdrs);
	/* TLS is always verified; only which CAs are trusted can be chosen (https only: plain
	 * http has no use for a CA file) */
	if (h->cainfo && !strncmp(url, "https://", 8))
		curl_easy_setopt(e, CURLOPT_CAINFO, h->cainfo);
	return 0;
}

/* What failed, for one log line: a certificate problem says how to fix it. */
static void curl_what(CURLcode cc, char *out, size_t n)
{
	if (cc == CURLE_PEER_FAILED_VERIFICATION || cc == CURLE_SSL_CACERT_BADFILE)
		snprintf(
			out, n,
			"%s: the server's TLS certificate is not trusted here; give the CA "
			"certificate that signed it with CURL_CA_BUNDLE=FILE or SSL_CERT_FILE=FILE",
			curl_easy_strerror(cc));
	else
		snprintf(out, n, "%s", curl_easy_strerror(cc));
}

/* What to do after a failed attempt: 1 retry, else the final -errno. */
static int classify(CURLcode cc, long status, int *retry)
{
	*retry = 0;
	if (cc == CURLE_OK) {
		if (status == 404 || status == 410)
			return -ENOENT;
		if (status == 401 || status == 403)
			return -EACCES;
		if (status == 416)
			return -EINVAL;
		if (status == 429 || status >= 500 || status == 408) {
			*retry = 1;
			return -EIO;
		}
		return -EIO;
	}
	/* CURLE_UNSUPPORTED_PROTOCOL is retried: the scheme was checked when the store was
	 * opened and redirects are ours, so it is an answer that is not HTTP (libcurl's
	 * "HTTP/0.9 when not allowed"): the rest of an earlier body on a kept-alive
	 * connection, which a new connection does not have */
	switch (cc) {
	case CURLE_PEER_FAILED_VERIFICATION: /* asking again changes nothing */
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_URL_MALFORMAT:
	case CURLE_OUT_OF_MEMORY:
	case CURLE_TOO_MANY_REDIRECTS:
		return cc == CURLE_OUT_OF_MEMORY ? -ENOMEM : -EIO;
	default:
		*retry = 1;
		return -EIO;
	}
}

static void fill_meta(CURL *e, struct xfer *x)
{
	curl_off_t cl = -1, ft = -1;

	curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &x->meta.status);
	curl_easy_getinfo(e, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl);
	curl_easy_getinfo(e, CURLINFO_FILETIME_T, &ft);
	x->meta.length = x->has_range ? x->range_total : cl >= 0 ? (uint64_t)cl : 0;
	x->meta.mtime = ft;
}

/* The server says the object has total bytes, its listing said t->size: the listing's
 * size is what stat showed, and serving the object at it would cut it short (or pad
 * it), so the read fails: -EBADMSG (the vfs logs it and answers EIO), not retried; the
 * message names the URL and both sizes. The object's
 * size is the Content-Range total of a ranged answer, or a whole body's Content-Length
 * when longer than listed; a whole body shorter than listed may be a body cut short
 * with a Content-Length to match, so that is retried (transient) like any short body. */
static void size_what(char *out, size_t n, uint64_t total, uint64_t listed)
{
	snprintf(out, n,
		 "the server sends %" PRIu64 " bytes, the listing said %" PRIu64
		 " (rockpack cache refresh RUN lists the run again)",
		 total, listed);
}

static int size_differs(const struct rk_http_target *t, uint64_t total, struct rk_err *err)
{
	char what[200];

	size_what(what, sizeof(what), total, t->size);
	return rk_err_set(err, -EBADMSG, "'%s': %s", url_shown(t->url), what);
}

int rk_http_get(struct rk_http *h, const struct rk_http_target *t, int head, uint64_t off,
		uint64_t len, size_t max, struct rk_buf *body, struct rk_http_meta *meta,
		struct rk_err *err)
{
	uint64_t start = now_ms(), deadline = start + h->timeout_ms;
	size_t base = body->len;
	char what[400] = "", range[64] = "";
	const char *extra[] = {range, NULL};
	int rc = -EIO;

	if (len)
		snprintf(range, sizeof(range), "Range: bytes=%" PRIu64 "-%" PRIu64, off,
			 off + len - 1);
	for (unsigned attempt = 0;; attempt++) {
		struct hop hp = {0};
		struct xfer x;
		CURLcode cc;
		int retry, redirected;

		if (attempt)
			backoff(attempt, deadline);
		do { /* one request and the redirects it meets */
			struct curl_slist *hdrs = NULL;
			CURL *e;

			x = (struct xfer){.body = body, .max = base + max};
			body->len = base; /* a retry (or a redirect) starts over */
			if (body->alloc)
				body->buf[base] = '\0';
			if ((rc = request_headers(t, &hp, head ? "HEAD" : "GET", attempt, extra,
						  &hdrs, err))) {
				hop_reset(&hp);
				return rc;
			}
			if (!(e = easy_get(h))) {
				curl_slist_free_all(hdrs);
				hop_reset(&hp);
				return -ENOMEM;
			}
			setup(h, e, hop_url(&hp, t), hdrs, &x, h->timeout_ms);
			{
				uint64_t now = now_ms(), left = deadline > now ? deadline - now : 1;

				curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)left);
			}
			if (head)
				curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
			curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, body_cb);
			curl_easy_setopt(e, CURLOPT_WRITEDATA, &x);
			atomic_fetch_add(&h->requests, 1);
			cc = curl_easy_perform(e);
			{
				curl_off_t got = 0;

				if (!curl_easy_getinfo(e, CURLINFO_SIZE_DOWNLOAD_T, &got) &&
				    got > 0)
					atomic_fetch_add(&h->bytes, (uint64_t)got);
			}
			fill_meta(e, &x);
			redirected = cc == CURLE_OK && is_redirect(x.meta.status);
			rc = redirected ? redirect_next(t, &hp, e, x.meta.status, err) : 0;
			easy_put(h, e,
				 cc == CURLE_OK && x.meta.status < 300 &&
					 (!len || head || body->len - base == len));
			curl_slist_free_all(hdrs);
		} while (redirected && !rc);
		hop_reset(&hp);
		if (rc)
			return rc;
		if (x.too_big && len && !head && x.meta.status == 200)
			return rk_err_set(err, -EOPNOTSUPP,
					  "'%s': the server ignores Range requests (HTTP 200 with "
					  "the whole file, not 206): serve the store with one that "
					  "honours Range (nginx, Apache, S3; python -m http.server "
					  "does not)",
					  url_shown(t->url));
		if (x.too_big)
			return rk_err_set(err, -EFBIG, "'%s': larger than %zu bytes",
					  url_shown(t->url), max);
		if (cc == CURLE_OK && x.meta.status >= 200 && x.meta.status < 300) {
			uint64_t got = body->len - base;

			if (len && !head) {
				if (x.meta.status == 200) {
					/* the server ignored Range: keep our slice */
					uint64_t total = got, want;

					if (off > total)
						off = total;
					want = RK_MIN(len, total - off);
					memmove(body->buf + base, body->buf + base + off, want);
					body->len = base + want;
					body->buf[body->len] = '\0';
					x.meta.length = total;
					got = want;
				}
				if (x.meta.length &&
				    got == RK_MIN(len,
						  x.meta.length - RK_MIN(off, x.meta.length))) {
					if (t->size && x.meta.length != t->size &&
					    (x.has_range || x.meta.length > t->size))
						return size_differs(t, x.meta.length, err);
					if (meta)
						*meta = x.meta;
					return 0;
				}
				snprintf(what, sizeof(what), "short body (%" PRIu64 " bytes)", got);
			} else {
				if (meta)
					*meta = x.meta;
				return 0;
			}
			retry = 1;
			rc = -EIO;
		} else {
			rc = classify(cc, x.meta.status, &retry);
			if (cc != CURLE_OK)
				curl_what(cc, what, sizeof(what));
			else
				snprintf(what, sizeof(what), "HTTP %ld", x.meta.status);
		}
		if (!retry)
			return rk_err_set(err, rc, "'%s': %s", url_shown(t->url), what);
		if (attempt >= h->retries || now_ms() >= deadline) {
			rk_warn("'%s': giving up after %u attempts in %.1f s: %s",
				url_shown(t->url), attempt + 1, (double)(now_ms() - start) / 1000,
				what);
			return rk_err_set(err, -ETIMEDOUT, "'%s': %s (after %u attempts)",
					  url_shown(t->url), what, attempt + 1);
		}
		rk_info("'%s': %s; retrying", url_shown(t->url), what);
	}
}

/* ---- sequential streams ---- */

struct rk_http_stream {
	struct rk_http *h;
	struct rk_http_target t;
	uint64_t size;
	uint64_t pos; /* next byte the transfer will hand us (object offset) */
	CURLM *m;
	CURL *e;
	struct curl_slist *hdrs;
	struct xfer x;
	struct hop hop; /* where the transfer goes after redirects */
	int status_checked, bad_status, paused, redirect, bad_size;
	char etag[128]; /* of the first response: a resume must get the same object */
	char *ring; /* received, not yet read: ring[rstart, rstart+rlen) */
	size_t rstart, rlen, rcap;
	unsigned attempt;
	char what[480];
};

#define RING_MAX (4u << 20)

static size_t stream_cb(char *p, size_t size, size_t n, void *ctx)
{
	struct rk_http_stream *s = ctx;
	size_t len = size * n;

	if (s->redirect)
		return size * n;
	if (!s->status_checked) {
		long st = 0;

		curl_easy_getinfo(s->e, CURLINFO_RESPONSE_CODE, &st);
		s->x.meta.status = st;
		s->status_checked = 1;
		if (is_redirect(st))
			s->redirect = 1; /* its body is dropped; rk_http_stream_read follows */
		if (s->redirect)
			return size * n;
		if (!s->etag[0] && s->x.etag[0] && strlen(s->x.etag) < sizeof(s->etag))
			memcpy(s->etag, s->x.etag, strlen(s->x.etag) + 1);
		if (st == 200 || st == 206) {
			curl_off_t cl = -1;
			uint64_t total;

			curl_easy_getinfo(s->e, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl);
			total = 0;
			if (s->x.has_range)
				total = s->x.range_total;
			else if (st == 200 && cl >= 0 && (uint64_t)cl > s->size)
				total = (uint64_t)cl;
			if (total && total != s->size) {
				size_what(s->what, sizeof(s->what), total, s->size);
				s->bad_size = 1;
				return 0;
			}
		}
		if (st == 200 && s->pos)
			s->x.skip = s->pos; /* Range ignored: drop what we have */
		else if (st != 206 && !(st == 200 && !s->pos)) {
			s->bad_status = 1;
			return 0;
		}
	}
	if (s->x.skip) {
		size_t k = (size_t)RK_MIN((uint64_t)len, s->x.skip);

		s->x.skip -= k;
		p += k;
		len -= k;
		if (!len)
			return size * n;
	}
	if (s->pos + len > s->size) {
		snprintf(s->what, sizeof(s->what), "longer than the listed %" PRIu64 " bytes",
			 s->size);
		return 0;
	}
	if (s->rlen && s->rlen + len > RING_MAX) {
		s->paused = 1;
		return CURL_WRITEFUNC_PAUSE;
	}
	if (s->rstart + s->rlen + len > s->rcap) {
		if (s->rstart) {
			memmove(s->ring, s->ring + s->rstart, s->rlen);
			s->rstart = 0;
		}
		if (s->rlen + len > s->rcap) {
			size_t ncap = RK_MAX(s->rlen + len, (size_t)256 << 10);
			char *r = realloc(s->ring, ncap);

			if (!r)
				return 0;
			s->ring = r;
			s->rcap = ncap;
		}
	}
	memcpy(s->ring + s->rstart + s->rlen, p, len);
	s->rlen += len;
	s->pos += len;
	atomic_fetch_add(&s->h->bytes, size * n);
	return size * n;
}

/* reuse: the transfer ended as its response said (easy_put) */
static void stream_stop(struct rk_http_stream *s, int reuse)
{
	if (s->e) {
		curl_multi_remove_handle(s->m, s->e);
		easy_put(s->h, s->e, reuse);
		s->e = NULL;
	}
	curl_slist_free_all(s->hdrs);
	s->hdrs = NULL;
}

static int stream_start(struct rk_http_stream *s, struct rk_err *err)
{
	char range[64];
	int rc;

	char im[160] = "";
	const char *extra[] = {range, im, NULL};

	memset(&s->x, 0, sizeof(s->x));
	s->status_checked = s->bad_status = s->paused = s->redirect = s->bad_size = 0;
	s->what[0] = '\0';
	range[0] = '\0';
	if (s->pos) {
		snprintf(range, sizeof(range), "Range: bytes=%" PRIu64 "-", s->pos);
		if (s->etag[0]) /* the rest of the same object, or 412 */
			snprintf(im, sizeof(im), "If-Match: %s", s->etag);
	}
	if ((rc = request_headers(&s->t, &s->hop, "GET", s->attempt, extra, &s->hdrs, err)))
		return rc;
	if (!(s->e = easy_get(s->h)))
		return -ENOMEM;
	setup(s->h, s->e, hop_url(&s->hop, &s->t), s->hdrs, &s->x, s->h->timeout_ms);
	curl_easy_setopt(s->e, CURLOPT_WRITEFUNCTION, stream_cb);
	curl_easy_setopt(s->e, CURLOPT_WRITEDATA, s);
	if (curl_multi_add_handle(s->m, s->e)) {
		easy_put(s->h, s->e, 1);
		s->e = NULL;
		return -ENOMEM;
	}
	atomic_fetch_add(&s->h->requests, 1);
	return 0;
}

int rk_http_stream_open(struct rk_http *h, const struct rk_http_target *t, uint64_t size,
			struct rk_http_stream **out, struct rk_err *err)
{
	struct rk_http_stream *s = calloc(1, sizeof(*s));

	(void)err;
	if (!s)
		return -ENOMEM;
	s->h = h;
	s->t = *t;
	s->size = size;
	if (!(s->m = curl_multi_init())) {
		free(s);
		return -ENOMEM;
	}
	*out = s;
	return 0;
}

void rk_http_stream_close(struct rk_http_stream *s)
{
	if (!s)
		return;
	stream_stop(s, 0);
	curl_multi_cleanup(s->m);
	hop_reset(&s->hop);
	free(s->ring);
	free(s);
}

ssize_t rk_http_stream_read(struct rk_http_stream *s, void *buf, size_t n, struct rk_err *err)
{
	uint64_t start = now_ms(), deadline = start + s->h->timeout_ms;
	int rc;

	while (!s->rlen) {
		int running = 0, msgs;
		CURLMsg *msg;

		if (s->pos >= s->size && !s->e)
			return 0;
		if (!s->e) {
			if (s->attempt)
				backoff(s->attempt, deadline);
			if ((rc = stream_start(s, err)))
				return rc;
		}
		if (s->paused) {
			s->paused = 0;
			curl_easy_pause(s->e, CURLPAUSE_CONT); /* may deliver into the ring */
			if (s->rlen)
				break;
		}
		curl_multi_perform(s->m, &running);
		while ((msg = curl_multi_info_read(s->m, &msgs))) {
			CURLcode cc;
			int retry = 1;

			if (msg->msg != CURLMSG_DONE)
				continue;
			cc = msg->data.result;
			curl_easy_getinfo(s->e, CURLINFO_RESPONSE_CODE, &s->x.meta.status);
			if (cc == CURLE_OK && (s->redirect || is_redirect(s->x.meta.status))) {
				/* (s->redirect is unset when the answer had no body) */
				rc = redirect_next(&s->t, &s->hop, s->e, s->x.meta.status, err);
				stream_stop(s, 1);
				if (rc)
					return rc;
				break; /* asked again where it points */
			}
			if (cc == CURLE_OK && s->pos == s->size && !s->bad_status) {
				stream_stop(s, 1); /* complete; the ring may still hold bytes */
				break;
			}
			if (s->bad_status || (s->x.meta.status && s->x.meta.status != 200 &&
					      s->x.meta.status != 206)) {
				rc = classify(CURLE_OK, s->x.meta.status, &retry);
				snprintf(s->what, sizeof(s->what), "HTTP %ld", s->x.meta.status);
			} else if (cc == CURLE_OK) {
				snprintf(s->what, sizeof(s->what),
					 "body ended at %" PRIu64 " of %" PRIu64 " bytes", s->pos,
					 s->size);
				rc = -EIO;
			} else {
				rc = classify(cc, 0, &retry);
				if (!s->what[0]) {
					char why[400];

					curl_what(cc, why, sizeof(why));
					snprintf(s->what, sizeof(s->what), "%s at byte %" PRIu64,
						 why, s->pos);
				} else {
					retry = 0; /* longer than listed: the object changed */
					if (s->bad_size)
						rc = -EBADMSG;
				}
			}
			stream_stop(s, 0);
			if (!retry)
				return rk_err_set(err, rc, "'%s': %s", url_shown(s->t.url),
						  s->what);
			s->attempt++;
			if (s->attempt > s->h->retries || now_ms() >= deadline) {
				rk_warn("'%s': giving up after %u attempts: %s",
					url_shown(s->t.url), s->attempt, s->what);
				return rk_err_set(err, -ETIMEDOUT, "'%s': %s (after %u attempts)",
						  url_shown(s->t.url), s->what, s->attempt);
			}
			rk_info("'%s': %s; resuming", url_shown(s->t.url), s->what);
			break;
		}
		if (s->rlen)
			break;
		if (s->e && now_ms() >= deadline) {
			stream_stop(s, 0);
			rk_warn("'%s': no data for %u ms at byte %" PRIu64 "; giving up",
				url_shown(s->t.url), s->h->timeout_ms, s->pos);
			return rk_err_set(err, -ETIMEDOUT, "'%s': timed out at byte %" PRIu64,
					  url_shown(s->t.url), s->pos);
		}
		if (s->e)
			curl_multi_poll(s->m, NULL, 0, 200, NULL);
	}
	n = RK_MIN(n, s->rlen);
	memcpy(buf, s->ring + s->rstart, n);
	s->rstart += n;
	s->rlen -= n;
	if (!s->rlen)
		s->rstart = 0;
	s->attempt = 0; /* progress: a later break gets the full number of retries */
	return (ssize_t)n;
}
