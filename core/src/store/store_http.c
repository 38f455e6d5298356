/* store_http.c: http(s):// stores whose directories have HTML index listings (TheRock's
 * generated index.html, nginx or Apache autoindex). A directory is GET <dir>/ (or
 * <dir>/index.html when the server has no directory index, as S3 itself); the size
 * and mtime of each file come from HEAD requests, made in parallel, once per listing
 * (listings inside runs are then cached for good: store_remote.h). The "http" backend
 * (rk_store_http). Uses store_remote.c, http.c, remote_parse.c and store_list.c, never
 * store.c. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "rk/buf.h"
#include "rk/log.h"
#include "rk/remote.h"
#include "rk/url.h"
#include "store/store_remote.h"

#define HEAD_THREADS 8
#define GONE UINT64_MAX /* entry size: the file's HEAD said 404 */

struct http_store {
	struct remote_store r;
	char *base; /* the location without trailing '/' */
};

static int http_url(struct remote_store *r, const char *path, struct rk_buf *out)
{
	struct http_store *s = (struct http_store *)r;

	if (rk_buf_addf(out, "%s/", s->base))
		return -ENOMEM;
	return rk_http_escape(out, path, 1);
}

struct heads {
	struct remote_store *r;
	const char *dir;
	struct rk_store_list *l;
	atomic_size_t next;
	atomic_int rc;
	struct rk_err err; /* the first failure (under lock) */
	pthread_mutex_t lock;
};

static void *head_worker(void *arg)
{
	struct heads *h = arg;
	size_t i;

	while ((i = atomic_fetch_add(&h->next, 1)) < h->l->n && !atomic_load(&h->rc)) {
		struct rk_store_entry *e = &h->l->v[i];
		struct rk_buf url = RK_BUF_INIT, body = RK_BUF_INIT, path = RK_BUF_INIT;
		struct rk_err err = RK_ERR_INIT;
		struct rk_http_meta m = {0};
		int rc;

		if (e->is_dir)
			continue;
		rc = rk_buf_addf(&path, "%s%s%s", h->dir, h->dir[0] ? "/" : "", e->name) ? -ENOMEM
											 : 0;
		if (!rc)
			rc = http_url(h->r, path.buf, &url);
		if (!rc) {
			struct rk_http_target t = {url.buf, h->r->sign, h->r->sign_ctx};

			rc = rk_http_get(h->r->http, &t, 1, 0, 0, 0, &body, &m, &err);
		}
		if (!rc) {
			e->size = m.length;
			e->mtime = m.mtime > 0 ? m.mtime : 0;
			e->mtime_ns = e->mtime * 1000000000;
		} else if (rc == -ENOENT) {
			/* in the index but not on the server (a stale index.html): leave it out,
			 * the rest of the directory is fine */
			char shown[1024];

			rk_warn("'%s': listed in the index but not found (404); left out",
				rk_url_shown(url.buf, shown, sizeof(shown)));
			e->size = GONE;
			rc = 0;
		}
		if (rc) {
			pthread_mutex_lock(&h->lock);
			if (!atomic_load(&h->rc)) {
				h->err = err;
				atomic_store(&h->rc, rc);
			}
			pthread_mutex_unlock(&h->lock);
		}
		rk_buf_release(&url);
		rk_buf_release(&body);
		rk_buf_release(&path);
	}
	return NULL;
}

/* Remove the entries head_worker found missing (sorted order is kept). */
static void drop_gone(struct rk_store_list *l)
{
	size_t k = 0;

	for (size_t i = 0; i < l->n; i++) {
		if (!l->v[i].is_dir && l->v[i].size == GONE)
			free(l->v[i].name);
		else
			l->v[k++] = l->v[i];
	}
	l->n = k;
}

static int http_list(struct remote_store *r, const char *path, struct rk_store_list *out,
		     struct rk_err *err)
{
	struct rk_buf url = RK_BUF_INIT, body = RK_BUF_INIT;
	struct rk_store_list l = {0};
	struct rk_http_meta m = {0};
	int rc = http_url(r, path, &url);

	if (!rc && path[0] && rk_buf_adds(&url, "/"))
		rc = -ENOMEM;
	if (!rc) {
		struct rk_http_target t = {url.buf, r->sign, r->sign_ctx};

		rc = rk_http_get(r->http, &t, 0, 0, 0, 64u << 20, &body, &m, err);
		/* servers that map no index to a directory URL (S3 itself: TheRock uploads an
		 * index.html into every directory) answer 404 or 403: ask for the file */
		if ((rc == -ENOENT || rc == -EACCES) && !rk_buf_adds(&url, "index.html")) {
			struct rk_err e2 = RK_ERR_INIT;

			t.url = url.buf;
			body.len = 0;
			if (!rk_http_get(r->http, &t, 0, 0, 0, 64u << 20, &body, &m, &e2)) {
				rc = 0;
				rk_err_clear(err);
			}
		}
	}
	if (!rc && m.content_type[0] && strncmp(m.content_type, "text/html", 9)) {
		char shown[1024];

		rc = rk_err_set(err, -ENOTDIR, "'%s': not an HTML index (%s)",
				rk_url_shown(url.buf, shown, sizeof(shown)), m.content_type);
	}
	if (!rc)
		rc = rk_html_parse_index(body.buf, body.len, &l, err);
	rk_buf_release(&url);
	rk_buf_release(&body);
	if (!rc) {
		rk_store_list_sort(&l);
		if (l.n) {
			struct heads h = {.r = r, .dir = path, .l = &l};
			pthread_t th[HEAD_THREADS];
			unsigned nth = 0;

			pthread_mutex_init(&h.lock, NULL);
			for (unsigned i = 0; i < HEAD_THREADS && i < l.n; i++)
				if (!pthread_create(&th[nth], NULL, head_worker, &h))
					nth++;
			if (!nth)
				head_worker(&h);
			for (unsigned i = 0; i < nth; i++)
				pthread_join(th[i], NULL);
			pthread_mutex_destroy(&h.lock);
			if ((rc = atomic_load(&h.rc)) && err)
				*err = h.err;
			drop_gone(&l);
		}
	}
	if (rc) {
		rk_store_list_release(&l);
		return rc;
	}
	*out = l;
	return 0;
}

static void http_free(struct remote_store *r)
{
	free(((struct http_store *)r)->base);
}

static const struct remote_ops http_ops = {http_list, NULL, http_url, http_free};

/* The doors that lead nowhere (issue 29): an S3 bucket's REST address (S3 serves no
 * directory pages: every listing would fail) and a page (TheRock's job summary links
 * RUN/index.html). Each is refused with the URL to use instead. */
static int http_door(const char *location, size_t n, struct rk_err *err)
{
	const char *host = strstr(location, "://") + 3, *end = location + n, *slash, *at, *s3;
	char shown[1024], bucket[256] = "";
	size_t hl, pl;
	const char *path;

	slash = memchr(host, '/', (size_t)(end - host));
	if (!slash)
		slash = end;
	at = memchr(host, '@', (size_t)(slash - host));
	if (at)
		host = at + 1;
	hl = (size_t)(slash - host);
	path = slash < end ? slash + 1 : end;
	pl = (size_t)(end - path);
	if (pl >= 10 && !strncmp(end - 10, "index.html", 10) && (pl == 10 || end[-11] == '/'))
		pl -= pl == 10 ? 10 : 11; /* the page's directory */
	if (hl > 14 && !strncmp(host + hl - 14, ".amazonaws.com", 14)) {
		/* BUCKET.s3[.-]REGION.amazonaws.com, or s3[.-]REGION.amazonaws.com/BUCKET */
		s3 = host;
		if (strncmp(host, "s3.", 3) && strncmp(host, "s3-", 3)) {
			for (s3 = host; s3 < host + hl - 3; s3++)
				if (!strncmp(s3, ".s3.", 4) || !strncmp(s3, ".s3-", 4))
					break;
			if (s3 >= host + hl - 3)
				return 0;
			snprintf(bucket, sizeof(bucket), "%.*s", (int)(s3 - host), host);
		} else {
			size_t bl = strcspn(path, "/");

			if (bl > pl)
				bl = pl;
			snprintf(bucket, sizeof(bucket), "%.*s", (int)bl, path);
			path += bl + (bl < pl);
			pl -= bl + (bl < pl);
		}
		if (!bucket[0])
			return 0;
		return rk_err_set(err, -EINVAL,
				  "'%s': an S3 bucket's REST address (S3 serves no directory "
				  "pages); use s3://%s%s%.*s instead",
				  rk_url_shown(location, shown, sizeof(shown)), bucket,
				  pl ? "/" : "", (int)pl, path);
	}
	if (pl != (size_t)(end - path)) {
		size_t dl = (size_t)(path + pl - location);

		while (dl && location[dl - 1] == '/')
			dl--;
		return rk_err_set(err, -EINVAL, "'%s': a page, not a directory; use %.*s/ instead",
				  rk_url_shown(location, shown, sizeof(shown)), (int)dl, location);
	}
	return 0;
}

static int http_store_open(const char *location, const struct rk_store_opts *o,
			   struct rk_store **out, struct rk_err *err)
{
	struct http_store *s = calloc(1, sizeof(*s));
	size_t n = strlen(location);
	int rc;

	if (!s)
		return -ENOMEM;
	while (n && location[n - 1] == '/')
		n--;
	if (strpbrk(location, "?#")) {
		char shown[1024];

		free(s);
		return rk_err_set(err, -EINVAL, "'%s': a store URL has no query",
				  rk_url_shown(location, shown, sizeof(shown)));
	}
	if ((rc = http_door(location, n, err))) {
		free(s);
		return rc;
	}
	s->r.rops = &http_ops;
	if (!(s->base = strndup(location, n)) || !(s->r.base.id = strdup(s->base))) {
		free(s->base);
		free(s);
		return -ENOMEM;
	}
	if ((rc = remote_init(&s->r, o, err))) {
		remote_store_ops.close(&s->r.base);
		return rc;
	}
	*out = &s->r.base;
	return 0;
}

static const char *const http_schemes[] = {"http://", "https://", NULL};

const struct rk_store_backend rk_store_http = {
	.name = "http",
	.schemes = http_schemes,
	.remote = 1,
	.open = http_store_open,
};
