/* http.h: the libcurl transport shared by the remote stores (store_s3.c, store_http.c).
 *
 * One struct rk_http per store. DNS and TLS sessions are shared by every request of the
 * store (a curl share handle); easy handles are pooled and reused, each with its own
 * kept-alive connections (a connection cache shared by concurrent threads is not
 * supported by libcurl: http.c), HTTP/2
 * is used where the server offers it, and proxies come from the environment as libcurl
 * reads it (http_proxy, HTTPS_PROXY, NO_PROXY; libcurl ignores upper-case HTTP_PROXY).
 *
 * Every operation has a deadline (timeout_ms from its start): transient failures (5xx,
 * 429, resets, refused connections, stalls, timeouts, truncated bodies) are retried with
 * exponential backoff until retries or the deadline run out, then the operation fails
 * with -ETIMEDOUT (transient: the vfs tries again on a later access, and answers EIO)
 * and one warning in the log. A failed attempt's connection is closed, not kept alive
 * (it may hold the rest of a body longer than its Content-Length said). 404 is -ENOENT,
 * 401/403 -EACCES, anything else unexpected -EIO, without retries.
 *
 * Redirects are followed by http.c itself (at most 5): never from https to http (-EIO),
 * and to another origin (scheme, host, port) without the signer's headers or the URL's
 * user:password@. All functions are thread-safe. */
#ifndef RK_HTTP_H
#define RK_HTTP_H

#include <stdint.h>
#include <sys/types.h>

#include "rk/buf.h"
#include "rk/err.h"

struct rk_http;
struct curl_slist;

struct rk_http_opts {
	unsigned timeout_ms; /* per operation; 0: 60 s */
	unsigned retries; /* attempts after the first; 0: 6 */
	unsigned stall_ms; /* a transfer with no byte for this long is retried; 0: 15 s */
};

/* Headers for one attempt of a request (SigV4 signs each attempt: the date changes).
 * Append to *hdrs; 0 or -errno. */
typedef int (*rk_http_sign_fn)(void *ctx, const char *method, const char *url,
			       struct curl_slist **hdrs, struct rk_err *err);

struct rk_http_target {
	const char *url;
	rk_http_sign_fn sign; /* NULL: unsigned */
	void *sign_ctx;
	/* The object's size as listed, 0: unknown. A GET whose answer says the object has
	 * another size (Content-Range total, or Content-Length of a whole body) fails with
	 * -EBADMSG and a message naming the URL and both sizes, not retried: the listing was
	 * wrong, and a file served at its size would be cut short or padded. */
	uint64_t size;
};

struct rk_http_meta {
	long status;
	uint64_t length; /* of the whole object: Content-Range total, else Content-Length */
	int64_t mtime; /* Last-Modified, seconds; -1 when absent */
	char content_type[64];
};

int rk_http_new(const struct rk_http_opts *o, struct rk_http **out, struct rk_err *err);
void rk_http_free(struct rk_http *h); /* NULL ok */

/* GET (or HEAD when head) t into body (appended; at most max bytes, else -EFBIG). With
 * len > 0, only bytes [off, off+len) are asked for (a Range request) and exactly
 * min(len, object size - off) bytes are expected. meta may be NULL. */
int rk_http_get(struct rk_http *h, const struct rk_http_target *t, int head, uint64_t off,
		uint64_t len, size_t max, struct rk_buf *body, struct rk_http_meta *meta,
		struct rk_err *err);

/* A sequential download of an object of known size (t->size is ignored: size is checked
 * against the first response the same way), handed to the caller as it arrives
 * (no temp copy). A broken transfer is resumed with a Range request from the first byte
 * not yet received, with If-Match on the first response's ETag (a replaced object is
 * an error, 412, not a splice of two objects). url and the signer must stay valid until
 * rk_http_stream_close. */
struct rk_http_stream;
int rk_http_stream_open(struct rk_http *h, const struct rk_http_target *t, uint64_t size,
			struct rk_http_stream **out, struct rk_err *err);
/* Up to n bytes; 0 at the end. Each call has the operation deadline. */
ssize_t rk_http_stream_read(struct rk_http_stream *s, void *buf, size_t n, struct rk_err *err);
void rk_http_stream_close(struct rk_http_stream *s); /* NULL ok */

/* Percent-encode s (RFC 3986 unreserved kept; '/' kept when keep_slash) onto b. */
int rk_http_escape(struct rk_buf *b, const char *s, int keep_slash);

/* Requests made by every rk_http so far (attempts, including retries): for tests. */
uint64_t rk_http_requests(const struct rk_http *h);
/* Bytes of response bodies received so far (for status). */
uint64_t rk_http_bytes(const struct rk_http *h);

#endif
