/* store_s3.c: s3://bucket[/prefix] stores: ListObjectsV2 (delimiter "/", every page),
 * GETs of objects, unsigned or SigV4 (docs/remote-stores.md): the "s3" backend
 * (rk_store_s3). Uses store_remote.c, http.c, remote_parse.c and store_list.c, never
 * store.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>

#include "rk/buf.h"
#include "rk/log.h"
#include "rk/remote.h"
#include "store/store_remote.h"

struct s3_store {
	struct remote_store r;
	char *bucket;
	char *prefix; /* "" or "a/b" (no slashes at either end) */
	char *base; /* "http://host:port/bucket" (path-style) or "https://bucket.host" */
	struct rk_sigv4_key key;
	char *access_key, *secret_key, *token, *region;
};

/* ---- credentials ---- */

/* [profile] key = value from ~/.aws/credentials (or $AWS_SHARED_CREDENTIALS_FILE). */
static void read_credentials(struct s3_store *s)
{
	const char *file = getenv("AWS_SHARED_CREDENTIALS_FILE"), *home = getenv("HOME");
	const char *profile = getenv("AWS_PROFILE");
	char path[4096], line[1024];
	int in = 0;
	FILE *f;

	if (!profile || !*profile)
		profile = "default";
	if (file && *file)
		snprintf(path, sizeof(path), "%s", file);
	else if (home && *home)
		snprintf(path, sizeof(path), "%s/.aws/credentials", home);
	else
		return;
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *eq, *k, *v, **dst = NULL;
		size_t n;

		p += strspn(p, " \t");
		p[strcspn(p, "\r\n")] = '\0';
		if (*p == '[') {
			char *e = strchr(p, ']');

			in = e && (size_t)(e - p - 1) == strlen(profile) &&
			     !strncmp(p + 1, profile, (size_t)(e - p - 1));
			continue;
		}
		if (!in || !(eq = strchr(p, '=')))
			continue;
		k = p;
		n = strcspn(k, " \t=");
		k[n] = '\0';
		v = eq + 1;
		v += strspn(v, " \t");
		for (size_t l = strlen(v); l && (v[l - 1] == ' ' || v[l - 1] == '\t'); l--)
			v[l - 1] = '\0';
		if (!strcmp(k, "aws_access_key_id"))
			dst = &s->access_key;
		else if (!strcmp(k, "aws_secret_access_key"))
			dst = &s->secret_key;
		else if (!strcmp(k, "aws_session_token"))
			dst = &s->token;
		if (dst && !*dst)
			*dst = strdup(v);
	}
	fclose(f);
}

static int s3_sign(void *ctx, const char *method, const char *url, struct curl_slist **hdrs,
		   struct rk_err *err)
{
	struct s3_store *s = ctx;
	char buf[4096];
	int n = rk_sigv4_sign(&s->key, method, url, time(NULL), buf, sizeof(buf), err);

	if (n < 0)
		return n;
	for (int off = 0; off < n; off += (int)strlen(buf + off) + 1) {
		struct curl_slist *l = curl_slist_append(*hdrs, buf + off);

		if (!l)
			return -ENOMEM;
		*hdrs = l;
	}
	return 0;
}

/* ---- backend ---- */

static int key_of(struct s3_store *s, const char *path, struct rk_buf *b)
{
	return rk_buf_addf(b, "%s%s%s", s->prefix, s->prefix[0] && path[0] ? "/" : "", path)
		       ? -ENOMEM
		       : 0;
}

static int s3_url(struct remote_store *r, const char *path, struct rk_buf *out)
{
	struct s3_store *s = (struct s3_store *)r;
	struct rk_buf key = RK_BUF_INIT;
	int rc = key_of(s, path, &key);

	if (!rc && rk_buf_addf(out, "%s/", s->base))
		rc = -ENOMEM;
	if (!rc)
		rc = rk_http_escape(out, key.buf, 1);
	rk_buf_release(&key);
	return rc;
}

/* ListObjectsV2 of path's prefix, every page: one level (delimiter "/"), or every key
 * below it (recursive: names are relative paths). */
static int s3_list_pages(struct remote_store *r, const char *path, int recursive,
			 struct rk_store_list *out, struct rk_err *err)
{
	struct s3_store *s = (struct s3_store *)r;
	struct rk_buf prefix = RK_BUF_INIT, url = RK_BUF_INIT, body = RK_BUF_INIT;
	struct rk_store_list l = {0}, page = {0};
	char *token = NULL;
	unsigned pages = 0;
	int rc = key_of(s, path, &prefix);

	if (!rc && prefix.len && rk_buf_adds(&prefix, "/"))
		rc = -ENOMEM;
	while (!rc) {
		struct rk_http_target t;
		char *next = NULL;

		/* the query is in canonical (sorted) order, as SigV4 wants it */
		url.len = 0;
		body.len = 0;
		if (rk_buf_addf(&url, "%s?", s->base) ||
		    (token && (rk_buf_adds(&url, "continuation-token=") ||
			       rk_http_escape(&url, token, 0) || rk_buf_adds(&url, "&"))) ||
		    rk_buf_adds(&url, recursive ? "list-type=2&prefix="
						: "delimiter=%2F&list-type=2&prefix=") ||
		    rk_http_escape(&url, prefix.buf, 0)) {
			rc = -ENOMEM;
			break;
		}
		t = (struct rk_http_target){url.buf, r->sign, r->sign_ctx};
		/* a page that does not parse may have been cut short on the way (a body that
		 * ended early with a Content-Length to match): ask for it again, twice */
		for (int tries = 0;; tries++) {
			struct rk_store_entry *v;

			body.len = 0;
			if ((rc = rk_http_get(r->http, &t, 0, 0, 0, 64u << 20, &body, NULL, err)))
				break;
			rc = rk_s3_parse_list(body.buf, body.len, prefix.buf, recursive, &page,
					      &next, err);
			if (!rc && page.n) {
				if (!(v = realloc(l.v, (l.n + page.n) * sizeof(*v)))) {
					rc = -ENOMEM;
				} else {
					l.v = v;
					memcpy(l.v + l.n, page.v, page.n * sizeof(*v));
					l.n += page.n;
					free(page.v);
					page = (struct rk_store_list){0};
				}
			}
			rk_store_list_release(&page);
			if (!rc || rc == -ENOMEM || tries >= 2)
				break;
			rk_info("'s3://%s/%s': %s; asking again", s->bucket, prefix.buf,
				rk_err_str(err, rc));
			rk_err_clear(err);
		}
		if (rc) {
			free(next);
			if (rc == -EBADMSG)
				rk_err_wrap(err, rc, "'s3://%s/%s'", s->bucket, prefix.buf);
			break;
		}
		pages++;
		free(token);
		token = next;
		if (!token)
			break;
	}
	free(token);
	rk_buf_release(&prefix);
	rk_buf_release(&url);
	rk_buf_release(&body);
	if (rc) {
		rk_store_list_release(&l);
		return rc;
	}
	/* S3 has no directories: an empty listing of a prefix is "no such directory" */
	if (!l.n && path[0])
		return rk_err_set(err, -ENOENT, "'%s': no such directory", path);
	rk_debug("s3: listed '%s'%s in %u page(s), %zu entries", path, recursive ? " (tree)" : "",
		 pages, l.n);
	*out = l;
	return 0;
}

static int s3_list(struct remote_store *r, const char *path, struct rk_store_list *out,
		   struct rk_err *err)
{
	return s3_list_pages(r, path, 0, out, err);
}

struct tree {
	char **paths;
	struct rk_store_list *lists;
	size_t n, cap;
};

/* The index of directory dir in t, added (with an entry in its parent) when new. */
static int tree_dir(struct tree *t, const char *root, const char *dir, size_t *idx)
{
	struct rk_store_entry *v;
	struct rk_store_list *pl;
	const char *slash;
	char *parent;
	size_t pi;
	int rc;

	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->paths[i], dir)) {
			*idx = i;
			return 0;
		}
	slash = strrchr(dir, '/');
	/* dir is below root: its parent is root or deeper */
	parent = strndup(dir, slash ? (size_t)(slash - dir) : 0);
	if (!parent)
		return -ENOMEM;
	rc = tree_dir(t, root, parent, &pi);
	free(parent);
	if (rc)
		return rc;
	pl = &t->lists[pi];
	v = realloc(pl->v, (pl->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	pl->v = v;
	memset(&v[pl->n], 0, sizeof(*v));
	if (!(v[pl->n].name = strdup(slash ? slash + 1 : dir)))
		return -ENOMEM;
	v[pl->n].is_dir = 1;
	pl->n++;
	if (t->n == t->cap) {
		size_t ncap = t->cap * 2;
		char **p = realloc(t->paths, ncap * sizeof(*p));
		struct rk_store_list *l;

		if (!p)
			return -ENOMEM;
		t->paths = p;
		if (!(l = realloc(t->lists, ncap * sizeof(*l))))
			return -ENOMEM;
		t->lists = l;
		t->cap = ncap;
	}
	if (!(t->paths[t->n] = strdup(dir)))
		return -ENOMEM;
	t->lists[t->n] = (struct rk_store_list){0};
	*idx = t->n++;
	return 0;
}

/* Object o (name relative to root) makes each folder above it at least as new as itself:
 * the folder's entry in its parent's listing. */
static void tree_times(struct tree *t, const char *root, const struct rk_store_entry *o)
{
	size_t rl = strlen(root) + (root[0] ? 1 : 0);

	for (size_t i = 1; i < t->n; i++) {
		const char *rel = t->paths[i] + rl, *slash = strrchr(t->paths[i], '/');
		size_t n = strlen(rel);
		struct rk_store_list *pl = NULL;

		if (strncmp(o->name, rel, n) || o->name[n] != '/')
			continue;
		for (size_t j = 0; j < t->n; j++) /* the parent: the path before the last '/' */
			if (slash && strlen(t->paths[j]) == (size_t)(slash - t->paths[i]) &&
			    !strncmp(t->paths[j], t->paths[i], (size_t)(slash - t->paths[i])))
				pl = &t->lists[j];
		if (!slash && !root[0])
			pl = &t->lists[0];
		for (size_t k = 0; pl && k < pl->n; k++)
			if (pl->v[k].is_dir && !strcmp(pl->v[k].name, slash ? slash + 1 : rel) &&
			    o->mtime_ns > pl->v[k].mtime_ns) {
				pl->v[k].mtime_ns = o->mtime_ns;
				pl->v[k].mtime = o->mtime;
			}
	}
}

static int s3_list_tree(struct remote_store *r, const char *path, char ***paths,
			struct rk_store_list **lists, size_t *n, struct rk_err *err)
{
	struct rk_store_list all = {0};
	struct tree t = {0};
	int rc = s3_list_pages(r, path, 1, &all, err);
	struct rk_buf dir = RK_BUF_INIT;

	if (rc)
		return rc;
	t.cap = 8;
	t.paths = calloc(t.cap, sizeof(*t.paths));
	t.lists = calloc(t.cap, sizeof(*t.lists));
	if (!t.paths || !t.lists || !(t.paths[0] = strdup(path))) {
		rc = -ENOMEM;
		goto out;
	}
	t.n = 1;
	for (size_t i = 0; i < all.n && !rc; i++) {
		const char *name = all.v[i].name, *slash = strrchr(name, '/');
		struct rk_store_list *l;
		struct rk_store_entry *v;
		size_t idx = 0;

		dir.len = 0;
		if (slash && rk_buf_addf(&dir, "%s%s%.*s", path, path[0] ? "/" : "",
					 (int)(slash - name), name)) {
			rc = -ENOMEM;
			break;
		}
		if (slash && (rc = tree_dir(&t, path, dir.buf, &idx)))
			break;
		l = &t.lists[idx];
		if (!(v = realloc(l->v, (l->n + 1) * sizeof(*v)))) {
			rc = -ENOMEM;
			break;
		}
		l->v = v;
		v[l->n] = all.v[i];
		if (!(v[l->n].name = strdup(slash ? slash + 1 : name))) {
			rc = -ENOMEM;
			break;
		}
		l->n++;
	}
	/* S3 has no directories: a folder's time is its newest object's */
	for (size_t i = 0; i < all.n && !rc; i++)
		tree_times(&t, path, &all.v[i]);
out:
	rk_buf_release(&dir);
	rk_store_list_release(&all);
	if (rc) {
		for (size_t i = 0; i < t.n; i++) {
			free(t.paths[i]);
			rk_store_list_release(&t.lists[i]);
		}
		free(t.paths);
		free(t.lists);
		return rc;
	}
	if (t.n == 1 && !t.lists[0].n && path[0]) {
		free(t.paths[0]);
		free(t.paths);
		free(t.lists);
		return rk_err_set(err, -ENOENT, "'%s': no such directory", path);
	}
	*paths = t.paths;
	*lists = t.lists;
	*n = t.n;
	return 0;
}

static void s3_free(struct remote_store *r)
{
	struct s3_store *s = (struct s3_store *)r;

	free(s->bucket);
	free(s->prefix);
	free(s->base);
	free(s->access_key);
	free(s->secret_key);
	free(s->token);
	free(s->region);
}

static const struct remote_ops s3_ops = {s3_list, s3_list_tree, s3_url, s3_free};

static char *env_dup(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? strdup(v) : NULL;
}

static int s3_store_open(const char *location, const struct rk_store_opts *o, struct rk_store **out,
			 struct rk_err *err)
{
	struct s3_store *s = calloc(1, sizeof(*s));
	struct rk_buf b = RK_BUF_INIT;
	const char *p = location + 5, *slash, *endpoint = o->endpoint;
	int path_style, rc;

	if (!s)
		return -ENOMEM;
	s->r.rops = &s3_ops;
	slash = strchr(p, '/');
	s->bucket = strndup(p, slash ? (size_t)(slash - p) : strlen(p));
	s->prefix = strdup(slash ? slash + 1 : "");
	if (!s->bucket || !s->prefix) {
		rc = -ENOMEM;
		goto fail;
	}
	for (size_t n = strlen(s->prefix); n && s->prefix[n - 1] == '/'; n--)
		s->prefix[n - 1] = '\0';
	if (!s->bucket[0] || strpbrk(s->bucket, "?#%@:") || strstr(s->prefix, "//")) {
		rc = rk_err_set(err, -EINVAL, "'%s': not s3://bucket[/prefix]", location);
		goto fail;
	}
	s->region = o->region && *o->region ? strdup(o->region) : env_dup("AWS_REGION");
	if (!s->region)
		s->region = env_dup("AWS_DEFAULT_REGION");
	if (!endpoint || !*endpoint)
		endpoint = getenv("AWS_ENDPOINT_URL_S3");
	if (!endpoint || !*endpoint)
		endpoint = getenv("AWS_ENDPOINT_URL");
	if (endpoint && !*endpoint)
		endpoint = NULL;
	path_style = o->addressing ? o->addressing == 'p' : endpoint != NULL;
	if (endpoint) {
		const char *host = strstr(endpoint, "://");
		size_t n = strlen(endpoint);

		while (n && endpoint[n - 1] == '/')
			n--;
		if (!host) {
			rc = rk_err_set(err, -EINVAL, "endpoint '%s': not a URL", endpoint);
			goto fail;
		}
		if (path_style)
			rc = rk_buf_addf(&b, "%.*s/%s", (int)n, endpoint, s->bucket);
		else
			rc = rk_buf_addf(&b, "%.*s%s.%.*s", (int)(host + 3 - endpoint), endpoint,
					 s->bucket, (int)(n - (size_t)(host + 3 - endpoint)),
					 host + 3);
	} else if (path_style) {
		rc = rk_buf_addf(&b, "https://s3.%s.amazonaws.com/%s",
				 s->region ? s->region : "us-east-1", s->bucket);
	} else if (s->region) {
		rc = rk_buf_addf(&b, "https://%s.s3.%s.amazonaws.com", s->bucket, s->region);
	} else {
		rc = rk_buf_addf(&b, "https://%s.s3.amazonaws.com", s->bucket);
	}
	if (rc || !(s->base = rk_buf_detach(&b, NULL))) {
		rc = -ENOMEM;
		goto fail;
	}
	if (!o->no_sign && !o->offline) {
		s->access_key = env_dup("AWS_ACCESS_KEY_ID");
		s->secret_key = env_dup("AWS_SECRET_ACCESS_KEY");
		s->token = env_dup("AWS_SESSION_TOKEN");
		if (!s->access_key || !s->secret_key) {
			free(s->access_key);
			free(s->secret_key);
			free(s->token);
			s->access_key = s->secret_key = s->token = NULL;
			read_credentials(s);
		}
		if (s->access_key && s->secret_key) {
			s->key = (struct rk_sigv4_key){s->access_key, s->secret_key, s->token,
						       s->region ? s->region : "us-east-1", "s3"};
			s->r.sign = s3_sign;
			s->r.sign_ctx = s;
		}
	}
	if (rk_buf_addf(&b, "s3://%s%s%s", s->bucket, s->prefix[0] ? "/" : "", s->prefix) ||
	    !(s->r.base.id = rk_buf_detach(&b, NULL))) {
		rc = -ENOMEM;
		goto fail;
	}
	if ((rc = remote_init(&s->r, o, err)))
		goto fail_init;
	rk_info("s3: '%s' at %s (%s-style, %s)", s->r.base.id, s->base,
		path_style ? "path" : "virtual-host", s->r.sign ? "SigV4" : "unsigned");
	*out = &s->r.base;
	return 0;
fail:
	s->r.base.ops = NULL;
	rk_buf_release(&b);
	s3_free(&s->r);
	free(s->r.base.id);
	free(s);
	return rc;
fail_init:
	remote_store_ops.close(&s->r.base);
	return rc;
}

static const char *const s3_schemes[] = {"s3://", NULL};

const struct rk_store_backend rk_store_s3 = {
	.name = "s3",
	.schemes = s3_schemes,
	.remote = 1,
	.open = s3_store_open,
};
