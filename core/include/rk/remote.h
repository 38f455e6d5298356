/* rk/remote.h: the parsers and the request signer behind the remote stores, public so
 * that unit tests and fuzz targets reach them (docs/remote-stores.md). Nothing here does
 * I/O. All input is untrusted: a parser either fills its output or fails with -EBADMSG
 * and a reason; it never reads past len. */
#ifndef RK_REMOTE_H
#define RK_REMOTE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "rk/err.h"
#include "rk/store.h"

/* Append one directory level of an S3 ListObjectsV2 response page to out (unsorted,
 * names relative to prefix, which is "" or ends in '/'): Contents become files,
 * CommonPrefixes directories; keys that are not directly below prefix are skipped.
 * recursive (a listing without delimiter): file names are relative paths "a/b/c" instead.
 * *next is the NextContinuationToken (malloc'd) when the page is truncated, else NULL. */
int rk_s3_parse_list(const char *xml, size_t len, const char *prefix, int recursive,
		     struct rk_store_list *out, char **next, struct rk_err *err);

/* Append the entries of an HTML directory index (TheRock's generated index.html, nginx
 * and Apache autoindex) to out: every relative link to a child ("name" is a file, "name/"
 * or "name/index.html" a directory), percent- and entity-decoded, de-duplicated; size
 * and mtime are 0 (the caller asks the server). Links elsewhere are ignored. */
int rk_html_parse_index(const char *html, size_t len, struct rk_store_list *out,
			struct rk_err *err);

/* AWS Signature Version 4 for a request without body to S3. url is absolute with its
 * path and query already in canonical form (RFC 3986 encoded, query sorted). Appends
 * "Authorization: ...", "x-amz-date: ..." and "x-amz-content-sha256: ..." (and
 * "x-amz-security-token: ..." when token) header lines, each NUL-terminated, to hdrs
 * (a buffer of n bytes); returns the bytes used or -ENOSPC/-EINVAL. */
struct rk_sigv4_key {
	const char *access_key, *secret_key, *token; /* token may be NULL */
	const char *region;
	const char *service; /* "s3" */
};
int rk_sigv4_sign(const struct rk_sigv4_key *k, const char *method, const char *url, time_t now,
		  char *hdrs, size_t n, struct rk_err *err);

#endif
