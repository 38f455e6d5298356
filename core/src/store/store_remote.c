/* store_remote.c: listings, caching, streaming and coalesced reads for the remote
 * stores (store_remote.h), under store_s3.c and store_http.c. Uses http.c, store_list.c,
 * the cache and run names (formats/therock/artifact_name.c); never store.c, a backend or the
 * catalog. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk/buf.h"
#include "rk/cache.h"
#include "rk/artifact.h"
#include "rk/hash.h"
#include "rk/log.h"
#include "rk/remote.h"
#include "store/store_remote.h"
#include "util/array.h"

#define BLOCK_SIZE (1u << 20)
#define BLOCKS_MAX 32
#define SMALL_MAX (64u << 10)
#define LISTING_MAX (256u << 20)

struct remote_list {
	struct remote_list *next;
	char *path;
	int state; /* 0 loading, 1 ready */
	char kind; /* where a run's listing stands: 'l' final, 'u' still being uploaded */
	struct rk_store_list l;
};

struct remote_block {
	struct remote_block *next;
	char *path;
	uint64_t idx;
	int state; /* 0 loading, 1 ready, -1 failed (unlinked) */
	int rc;
	unsigned refs;
	uint64_t used;
	struct rk_buf data;
	struct rk_err err;
};

struct remote_object {
	struct rk_object base;
	struct remote_store *r;
	char *path;
	char *url;
	char *small; /* the whole object, when small and cached (or fetched) */
	uint64_t pos; /* sequential position */
	struct rk_http_stream *stream;
};

/* ---- paths and cache files ---- */

static int has_run_component(const char *p)
{
	while (*p) {
		char comp[256];
		size_t n;

		p += strspn(p, "/");
		n = strcspn(p, "/");
		if (n && n < sizeof(comp)) {
			memcpy(comp, p, n);
			comp[n] = '\0';
			if (rk_run_name_valid(comp))
				return 1;
		}
		p += n;
	}
	return 0;
}

/* True when root/path lies inside a run ({run_id}-{platform} component): immutable. */
static int in_run(const struct remote_store *r, const char *path)
{
	return has_run_component(r->root) || has_run_component(path);
}

/* True when root/path is a run directory itself. */
static int is_run_dir(const struct remote_store *r, const char *path)
{
	const char *full = path[0] ? path : r->root, *last = strrchr(full, '/');

	return rk_run_name_valid(last ? last + 1 : full);
}

/* "remote/<store key>-<kind>-<escaped path>" (kind 'l' listing, 'u' listing of a run
 * still being uploaded, 'o' object). */
static int cache_rel(const struct remote_store *r, char kind, const char *path, struct rk_buf *b)
{
	struct rk_buf esc = RK_BUF_INIT, full = RK_BUF_INIT;
	int rc = rk_buf_addf(&full, "%s%s%s", r->root, r->root[0] && path[0] ? "/" : "", path)
			 ? -ENOMEM
			 : 0;

	if (!rc)
		rc = rk_http_escape(&esc, full.buf, 0);
	path = full.buf;

	if (!rc && esc.len > 180) {
		char h[RK_SHA256_HEX];

		if (!(rc = rk_sha256_buf(path, strlen(path), h))) {
			esc.len = 0;
			rc = rk_buf_addf(&esc, "h%s", h) ? -ENOMEM : 0;
		}
	}
	if (!rc && rk_buf_addf(b, "remote/%s-%c-%s", r->key, kind, esc.buf))
		rc = -ENOMEM;
	rk_buf_release(&esc);
	rk_buf_release(&full);
	return rc;
}

/* Listing file: "rockfs-listing 1\n" then "<d|f> <size> <mtime_ns> <name>\n" lines. */
static int listing_format(const struct rk_store_list *l, struct rk_buf *b)
{
	if (rk_buf_adds(b, "rockfs-listing 1\n"))
		return -ENOMEM;
	for (size_t i = 0; i < l->n; i++)
		if (rk_buf_addf(b, "%c %" PRIu64 " %" PRId64 " %s\n", l->v[i].is_dir ? 'd' : 'f',
				l->v[i].size, l->v[i].mtime_ns, l->v[i].name))
			return -ENOMEM;
	return 0;
}

static int listing_parse(char *data, size_t len, struct rk_store_list *out)
{
	static const char magic[] = "rockfs-listing 1\n";
	char *p = data, *end = data + len;
	struct rk_store_list l = {0};
	size_t cap = 0;

	if (len < sizeof(magic) - 1 || memcmp(data, magic, sizeof(magic) - 1) ||
	    memchr(data, '\0', len))
		return -EBADMSG;
	p += sizeof(magic) - 1;
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p)), *q;
		struct rk_store_entry e = {0};
		char kind;

		if (!nl)
			goto bad;
		*nl = '\0';
		kind = *p;
		if ((kind != 'd' && kind != 'f') || p[1] != ' ')
			goto bad;
		errno = 0;
		e.size = strtoull(p + 2, &q, 10);
		if (errno || *q != ' ')
			goto bad;
		e.mtime_ns = strtoll(q + 1, &q, 10);
		if (errno || *q != ' ' || !q[1] || strchr(q + 1, '/'))
			goto bad;
		e.is_dir = kind == 'd';
		e.mtime = e.mtime_ns / 1000000000;
		if (RK_GROW(l.v, cap, l.n, 32))
			goto nomem;
		if (!(e.name = strdup(q + 1)))
			goto nomem;
		l.v[l.n++] = e;
		p = nl + 1;
	}
	*out = l;
	return 0;
bad:
	rk_store_list_release(&l);
	return -EBADMSG;
nomem:
	rk_store_list_release(&l);
	return -ENOMEM;
}

static int list_copy(const struct rk_store_list *from, struct rk_store_list *to)
{
	struct rk_store_list l = {0};

	if (from->n && !(l.v = calloc(from->n, sizeof(*l.v))))
		return -ENOMEM;
	for (size_t i = 0; i < from->n; i++) {
		l.v[i] = from->v[i];
		if (!(l.v[i].name = strdup(from->v[i].name))) {
			rk_store_list_release(&l);
			return -ENOMEM;
		}
		l.n++;
	}
	*to = l;
	return 0;
}

/* ---- listings ---- */

static int disk_listing(struct remote_store *r, char kind, const char *path,
			struct rk_store_list *out)
{
	struct rk_buf rel = RK_BUF_INIT;
	char *data = NULL;
	size_t len;
	int rc;

	if (!r->cache)
		return -ENOENT;
	if ((rc = cache_rel(r, kind, path, &rel)))
		return rc;
	rc = rk_cache_get_file(r->cache, rel.buf, LISTING_MAX, &data, &len, NULL);
	if (!rc) {
		rc = listing_parse(data, len, out);
		if (!rc)
			rk_store_list_sort(out); /* lookups binary-search it */
		if (rc == -EBADMSG) {
			rk_warn("cache: '%s': malformed listing; removed", rel.buf);
			rk_cache_remove_file(r->cache, rel.buf);
			rc = -ENOENT;
		}
	}
	free(data);
	rk_buf_release(&rel);
	return rc;
}

/* A run's listings are final (kept for good, never asked again) once its newest object
 * is older than run_final_age: a run is immutable once CI has finished uploading it.
 * Until then they are kept as unfinished ('u'), which only offline mounts use. Entries
 * without a time (some HTML listings) count as old. */
static int64_t newest_entry(const struct rk_store_list *l, int64_t newest)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].mtime_ns > newest)
			newest = l->v[i].mtime_ns;
	return newest;
}

static char listing_kind(const struct remote_store *r, const char *path, int64_t newest)
{
	int64_t now = (int64_t)time(NULL) * 1000000000;

	if (!in_run(r, path) || r->final_age < 0 || now - newest >= r->final_age * 1000000000)
		return 'l';
	if (is_run_dir(r, path))
		rk_info("run '%s': still being uploaded (its newest object is %lld s old, "
			"run_final_age %lld s); listed again on the next mount",
			path, (long long)((now - newest) / 1000000000), (long long)r->final_age);
	return 'u';
}

static void save_listing(struct remote_store *r, char kind, const char *path,
			 const struct rk_store_list *l)
{
	struct rk_buf rel = RK_BUF_INIT, b = RK_BUF_INIT, other = RK_BUF_INIT;
	struct rk_err err = RK_ERR_INIT;
	int rc;

	if (!r->cache)
		return;
	if (!(rc = cache_rel(r, kind, path, &rel)) && !(rc = listing_format(l, &b)))
		rc = rk_cache_put_file(r->cache, rel.buf, b.buf, b.len, &err);
	if (rc)
		rk_warn("cache: listing of '%s' not kept: %s", path, rk_err_str(&err, rc));
	else if (kind == 'l' && !cache_rel(r, 'u', path, &other))
		rk_cache_remove_file(r->cache, other.buf); /* an unfinished one, if any */
	rk_buf_release(&rel);
	rk_buf_release(&b);
	rk_buf_release(&other);
}

static void remember_locked(struct remote_store *r, char *path, struct rk_store_list *l, char kind)
{
	struct remote_list *e;

	for (e = r->lists; e; e = e->next)
		if (!strcmp(e->path, path))
			break;
	if (e || !(e = calloc(1, sizeof(*e)))) {
		free(path);
		rk_store_list_release(l);
		return;
	}
	e->path = path;
	e->l = *l;
	e->state = 1;
	e->kind = kind;
	e->next = r->lists;
	r->lists = e;
}

/* A run directory and everything below it, in one go: the subdirectories' listings are
 * kept (memory and cache dir) for the lookups that follow. */
static int load_tree(struct remote_store *r, const char *path, struct rk_store_list *out,
		     char *kind, struct rk_err *err)
{
	struct rk_store_list *lists = NULL;
	char **paths = NULL;
	size_t n = 0;
	int64_t newest = 0;
	int rc = r->rops->list_tree(r, path, &paths, &lists, &n, err);

	if (rc)
		return rc;
	*out = lists[0];
	free(paths[0]);
	for (size_t i = 0; i < n; i++)
		newest = newest_entry(&lists[i], newest);
	*kind = listing_kind(r, path, newest);
	for (size_t i = 1; i < n; i++) {
		rk_store_list_sort(&lists[i]);
		save_listing(r, *kind, paths[i], &lists[i]);
		pthread_mutex_lock(&r->lock);
		remember_locked(r, paths[i], &lists[i], *kind);
		pthread_mutex_unlock(&r->lock);
	}
	free(paths);
	free(lists);
	return 0;
}

/* Load the listing of path: cache file or server; *kind says where a run's listing
 * stands ('l' final, 'u' still being uploaded). */
static int load_listing(struct remote_store *r, const char *path, struct rk_store_list *out,
			char *kind, struct rk_err *err)
{
	int immutable = in_run(r, path), rc;

	*kind = 'l';
	if (r->offline || (immutable && !r->refresh)) {
		rc = disk_listing(r, 'l', path, out);
		if (rc == -ENOENT && r->offline) {
			rc = disk_listing(r, 'u', path, out);
			*kind = 'u';
		}
		if (rc != -ENOENT || r->offline) {
			if (rc == -ENOENT)
				return rk_err_set(err, -EIO, "'%s': offline, and not in the cache",
						  path[0] ? path : "/");
			return rc;
		}
	}
	*kind = 0;
	if (r->rops->list_tree && is_run_dir(r, path))
		rc = load_tree(r, path, out, kind, err);
	else
		rc = r->rops->list(r, path, out, err);
	if ((rc == -EIO || rc == -ETIMEDOUT) && !immutable && !disk_listing(r, 'l', path, out)) {
		rk_warn("'%s': %s; serving the cached listing", path[0] ? path : "/",
			rk_err_str(err, rc));
		rk_err_clear(err);
		*kind = 'l';
		return 0;
	}
	if (rc)
		return rc;
	rk_store_list_sort(out);
	if (!*kind)
		*kind = listing_kind(r, path, newest_entry(out, 0));
	save_listing(r, *kind, path, out);
	return 0;
}

static int remote_list(struct rk_store *s, const char *path, struct rk_store_list *out,
		       struct rk_err *err)
{
	struct remote_store *r = (struct remote_store *)s;
	struct remote_list *e, **pp;
	struct rk_store_list l = {0};
	char kind = 0;
	int rc;

	pthread_mutex_lock(&r->lock);
	for (;;) {
		for (e = r->lists; e; e = e->next)
			if (!strcmp(e->path, path))
				break;
		if (!e || e->state)
			break;
		pthread_cond_wait(&r->cond, &r->lock);
	}
	if (e) {
		rc = list_copy(&e->l, out);
		pthread_mutex_unlock(&r->lock);
		return rc;
	}
	e = calloc(1, sizeof(*e));
	if (!e || !(e->path = strdup(path))) {
		pthread_mutex_unlock(&r->lock);
		free(e);
		return -ENOMEM;
	}
	e->next = r->lists;
	r->lists = e;
	pthread_mutex_unlock(&r->lock);

	rc = load_listing(r, path, &l, &kind, err);

	pthread_mutex_lock(&r->lock);
	if (rc) {
		/* failures are not remembered: the next call asks again */
		for (pp = &r->lists; *pp != e; pp = &(*pp)->next)
			;
		*pp = e->next;
		free(e->path);
		free(e);
	} else {
		e->l = l;
		e->state = 1;
		e->kind = kind;
		rc = list_copy(&e->l, out);
	}
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
	return rc;
}

/* The entry name in the remembered listing of dir (r->lock held), or NULL. Listings are
 * sorted, so this is a binary search: no copy of a 2000-entry listing per open. */
static const struct rk_store_entry *find_entry_locked(struct remote_store *r, const char *dir,
						      const char *name)
{
	const struct remote_list *e;
	size_t lo = 0, hi;

	for (e = r->lists; e; e = e->next)
		if (e->state && !strcmp(e->path, dir))
			break;
	if (!e)
		return NULL;
	hi = e->l.n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(e->l.v[mid].name, name);

		if (!c)
			return &e->l.v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The listed entry for path (size, mtime), from the parent's listing. */
static int stat_path(struct remote_store *r, const char *path, struct rk_store_entry *out,
		     struct rk_err *err)
{
	const char *slash = strrchr(path, '/');
	char *parent = strndup(path, slash ? (size_t)(slash - path) : 0);
	const char *name = slash ? slash + 1 : path;
	const struct rk_store_entry *e;
	int rc = 0;

	if (!parent)
		return -ENOMEM;
	for (int pass = 0; pass < 2; pass++) {
		pthread_mutex_lock(&r->lock);
		e = find_entry_locked(r, parent, name);
		if (e) {
			*out = *e;
			out->name = NULL;
		}
		pthread_mutex_unlock(&r->lock);
		if (e || pass)
			break;
		{
			struct rk_store_list l = {0};

			/* not remembered yet: list the parent (which remembers it) */
			if ((rc = remote_list(&r->base, parent, &l, err)))
				break;
			rk_store_list_release(&l);
		}
	}
	free(parent);
	if (rc)
		return rc;
	if (!e)
		return rk_err_set(err, -ENOENT, "'%s': no such object", path);
	if (out->is_dir)
		return rk_err_set(err, -EISDIR, "'%s': a directory", path);
	return 0;
}

/* ---- blocks: positional reads, coalesced ---- */

static void block_unref_locked(struct remote_store *r, struct remote_block *b)
{
	if (--b->refs)
		return;
	if (b->state < 0) {
		free(b->path);
		rk_buf_release(&b->data);
		free(b);
		return;
	}
	/* keep it; evict the least recently used idle blocks above the limit */
	while (r->nblocks > BLOCKS_MAX) {
		struct remote_block **pp, **lru = NULL, *v;

		for (pp = &r->blocks; *pp; pp = &(*pp)->next)
			if (!(*pp)->refs && (*pp)->state == 1 &&
			    (!lru || (*pp)->used < (*lru)->used))
				lru = pp;
		if (!lru)
			break;
		v = *lru;
		*lru = v->next;
		r->nblocks--;
		free(v->path);
		rk_buf_release(&v->data);
		free(v);
	}
}

static int block_get(struct remote_store *r, struct remote_object *o, uint64_t idx,
		     struct remote_block **out, struct rk_err *err)
{
	struct remote_block *b, **pp;
	struct rk_http_target t = {o->url, r->sign, r->sign_ctx, o->base.size};
	uint64_t off = idx * BLOCK_SIZE;
	int rc;

	pthread_mutex_lock(&r->lock);
	for (b = r->blocks; b; b = b->next)
		if (b->idx == idx && !strcmp(b->path, o->path))
			break;
	if (b) {
		b->refs++;
		while (!b->state)
			pthread_cond_wait(&r->cond, &r->lock);
		b->used = ++r->tick;
		rc = b->state < 0 ? b->rc : 0;
		if (rc) {
			if (err)
				*err = b->err;
			block_unref_locked(r, b);
			pthread_mutex_unlock(&r->lock);
			return rc;
		}
		pthread_mutex_unlock(&r->lock);
		*out = b;
		return 0;
	}
	b = calloc(1, sizeof(*b));
	if (!b || !(b->path = strdup(o->path))) {
		free(b);
		pthread_mutex_unlock(&r->lock);
		return -ENOMEM;
	}
	b->idx = idx;
	b->refs = 1;
	b->data = (struct rk_buf)RK_BUF_INIT;
	b->next = r->blocks;
	r->blocks = b;
	r->nblocks++;
	pthread_mutex_unlock(&r->lock);

	rc = rk_http_get(r->http, &t, 0, off, RK_MIN((uint64_t)BLOCK_SIZE, o->base.size - off),
			 BLOCK_SIZE, &b->data, NULL, &b->err);

	pthread_mutex_lock(&r->lock);
	b->used = ++r->tick;
	if (rc) {
		b->state = -1;
		b->rc = rc;
		for (pp = &r->blocks; *pp != b; pp = &(*pp)->next)
			;
		*pp = b->next;
		r->nblocks--;
		if (err)
			*err = b->err;
		pthread_cond_broadcast(&r->cond);
		block_unref_locked(r, b);
		pthread_mutex_unlock(&r->lock);
		return rc;
	}
	b->state = 1;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
	*out = b;
	return 0;
}

static ssize_t obj_pread(struct rk_object *ob, void *buf, size_t n, uint64_t off,
			 struct rk_err *err)
{
	struct remote_object *o = (struct remote_object *)ob;
	struct remote_store *r = o->r;
	size_t done = 0;

	if (off >= ob->size)
		return 0;
	n = (size_t)RK_MIN((uint64_t)n, ob->size - off);
	if (o->small) {
		memcpy(buf, o->small + off, n);
		return (ssize_t)n;
	}
	if (r->offline)
		return rk_err_set(err, -EIO, "'%s': offline", o->path);
	while (done < n) {
		uint64_t at = off + done, idx = at / BLOCK_SIZE, in = at % BLOCK_SIZE;
		struct remote_block *b;
		size_t k;
		int rc = block_get(r, o, idx, &b, err);

		if (rc)
			return done ? (ssize_t)done : rc;
		k = (size_t)RK_MIN((uint64_t)(n - done), b->data.len > in ? b->data.len - in : 0);
		memcpy((char *)buf + done, b->data.buf + in, k);
		pthread_mutex_lock(&r->lock);
		block_unref_locked(r, b);
		pthread_mutex_unlock(&r->lock);
		if (!k)
			return done ? (ssize_t)done
				    : rk_err_set(err, -EIO, "'%s': short block at %" PRIu64,
						 o->path, at);
		done += k;
	}
	return (ssize_t)done;
}

static ssize_t obj_read(struct rk_object *ob, void *buf, size_t n, struct rk_err *err)
{
	struct remote_object *o = (struct remote_object *)ob;
	ssize_t got;
	int rc;

	if (o->pos >= ob->size)
		return 0;
	if (o->small) {
		n = (size_t)RK_MIN((uint64_t)n, ob->size - o->pos);
		memcpy(buf, o->small + o->pos, n);
		o->pos += n;
		return (ssize_t)n;
	}
	if (o->r->offline)
		return rk_err_set(err, -EIO, "'%s': offline, and not in the cache", o->path);
	if (!o->stream) {
		struct rk_http_target t = {o->url, o->r->sign, o->r->sign_ctx};

		if ((rc = rk_http_stream_open(o->r->http, &t, ob->size, &o->stream, err)))
			return rc;
	}
	got = rk_http_stream_read(o->stream, buf, n, err);
	if (got > 0)
		o->pos += (uint64_t)got;
	else if (got == 0 && o->pos < ob->size)
		return rk_err_set(err, -EIO, "'%s': ended at %" PRIu64 " of %" PRIu64 " bytes",
				  o->path, o->pos, ob->size);
	return got;
}

static int obj_fd(const struct rk_object *o)
{
	(void)o;
	return -1;
}

static void obj_close(struct rk_object *ob)
{
	struct remote_object *o = (struct remote_object *)ob;

	rk_http_stream_close(o->stream);
	free(o->small);
	free(o->path);
	free(o->url);
	free(o);
}

static const struct rk_object_ops remote_object_ops = {obj_read, obj_pread, obj_fd, obj_close};

/* A small object inside a run: from the cache dir, else fetched and kept there. */
static int load_small(struct remote_store *r, struct remote_object *o, struct rk_err *err)
{
	struct rk_buf rel = RK_BUF_INIT, body = RK_BUF_INIT;
	struct rk_http_target t = {o->url, r->sign, r->sign_ctx, o->base.size};
	char *data = NULL;
	size_t len;
	int rc, cacheable = r->cache && in_run(r, o->path);

	if (cacheable) {
		if ((rc = cache_rel(r, 'o', o->path, &rel)))
			return rc;
		if (!rk_cache_get_file(r->cache, rel.buf, SMALL_MAX, &data, &len, NULL)) {
			if (len == o->base.size) {
				o->small = data;
				rk_buf_release(&rel);
				return 0;
			}
			free(data);
		}
	}
	if (r->offline) {
		rk_buf_release(&rel);
		return rk_err_set(err, -EIO, "'%s': offline, and not in the cache", o->path);
	}
	/* a Range of exactly the listed size: a body cut short is noticed and asked again */
	rc = rk_http_get(r->http, &t, 0, 0, o->base.size, SMALL_MAX, &body, NULL, err);
	if (!rc && body.len != o->base.size)
		rc = rk_err_set(err, -EIO, "'%s': %zu bytes, listed as %" PRIu64, o->path, body.len,
				o->base.size);
	if (!rc && cacheable)
		rk_cache_put_file(r->cache, rel.buf, body.buf, body.len, NULL);
	if (!rc && !(o->small = rk_buf_detach(&body, NULL)))
		rc = -ENOMEM;
	if (!rc && !o->small && !body.len)
		rc = 0;
	rk_buf_release(&rel);
	rk_buf_release(&body);
	return rc;
}

static int remote_open(struct rk_store *s, const char *path, struct rk_object **out,
		       struct rk_err *err)
{
	struct remote_store *r = (struct remote_store *)s;
	struct rk_buf url = RK_BUF_INIT;
	struct remote_object *o;
	struct rk_store_entry e = {0};
	int rc;

	if ((rc = stat_path(r, path, &e, err)))
		return rc;
	o = calloc(1, sizeof(*o));
	if (!o || !(o->path = strdup(path)) || (rc = r->rops->url(r, path, &url)) ||
	    !(o->url = rk_buf_detach(&url, NULL))) {
		rk_buf_release(&url);
		if (o)
			free(o->path);
		free(o);
		return rc ? rc : -ENOMEM;
	}
	o->base.ops = &remote_object_ops;
	o->base.size = e.size;
	o->base.mtime_ns = e.mtime_ns;
	o->r = r;
	if (e.size <= SMALL_MAX && e.size && (rc = load_small(r, o, err))) {
		obj_close(&o->base);
		return rc;
	}
	*out = &o->base;
	return 0;
}

static void remote_close(struct rk_store *s)
{
	struct remote_store *r = (struct remote_store *)s;

	while (r->lists) {
		struct remote_list *e = r->lists;

		r->lists = e->next;
		rk_store_list_release(&e->l);
		free(e->path);
		free(e);
	}
	while (r->blocks) {
		struct remote_block *b = r->blocks;

		r->blocks = b->next;
		rk_buf_release(&b->data);
		free(b->path);
		free(b);
	}
	rk_http_free(r->http);
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->cond);
	if (r->rops && r->rops->free)
		r->rops->free(r);
	free(s->id);
	free(r);
}

static uint64_t remote_requests(const struct rk_store *s)
{
	return rk_http_requests(((const struct remote_store *)s)->http);
}

static void remote_forget(struct rk_store *s, const char *path)
{
	struct remote_store *r = (struct remote_store *)s;
	struct remote_list *e, **pp;

	if (in_run(r, path))
		return; /* run listings are kept: runs are immutable */
	pthread_mutex_lock(&r->lock);
	for (pp = &r->lists; (e = *pp); pp = &e->next) {
		if (e->state && !strcmp(e->path, path)) {
			*pp = e->next;
			rk_store_list_release(&e->l);
			free(e->path);
			free(e);
			break;
		}
	}
	pthread_mutex_unlock(&r->lock);
}

/* A remembered run listing may be out of date when the run was still being uploaded,
 * or when its final record left the cache (rockpack cache refresh): then what is
 * remembered of path and below goes, and the next listing asks the server. */
static int remote_run_stale(struct rk_store *s, const char *path)
{
	struct remote_store *r = (struct remote_store *)s;
	struct remote_list *e, **pp;
	struct rk_buf rel = RK_BUF_INIT;
	size_t len = strlen(path);
	int stale = 0;

	if (r->offline)
		return 0;
	pthread_mutex_lock(&r->lock);
	for (e = r->lists; e; e = e->next)
		if (e->state && !strcmp(e->path, path))
			break;
	if (e && e->kind == 'u')
		stale = 1;
	else if (e && r->cache && !cache_rel(r, 'l', path, &rel))
		stale = !rk_cache_has_file(r->cache, rel.buf);
	for (pp = &r->lists; stale && (e = *pp);) {
		if (e->state && !strncmp(e->path, path, len) &&
		    (!e->path[len] || e->path[len] == '/')) {
			*pp = e->next;
			rk_store_list_release(&e->l);
			free(e->path);
			free(e);
		} else {
			pp = &e->next;
		}
	}
	pthread_mutex_unlock(&r->lock);
	rk_buf_release(&rel);
	return stale;
}

static uint64_t remote_bytes(const struct rk_store *s)
{
	return rk_http_bytes(((const struct remote_store *)s)->http);
}

const struct rk_store_ops remote_store_ops = {remote_list,     remote_open,  remote_close,
					      remote_requests, remote_bytes, remote_forget,
					      remote_run_stale};

int remote_init(struct remote_store *r, const struct rk_store_opts *o, struct rk_err *err)
{
	struct rk_http_opts ho = {.timeout_ms = o->timeout_ms, .retries = o->retries};
	char h[RK_SHA256_HEX];
	int rc;

	r->base.ops = &remote_store_ops;
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->cond, NULL);
	r->cache = o->cache;
	if (r->cache) /* listings are kept; a failure is logged and leaves them unkept */
		rk_cache_area(r->cache, "remote");
	r->offline = o->offline;
	r->refresh = o->refresh;
	r->final_age = o->run_final_age ? o->run_final_age : 86400;
	{
		const char *host = strstr(r->base.id, "://"), *slash;

		host = host ? host + 3 : r->base.id;
		slash = strchr(host, '/');
		r->root = slash ? slash + 1 : "";
		rc = rk_sha256_buf(
			r->base.id,
			(size_t)(slash ? slash - r->base.id : (ptrdiff_t)strlen(r->base.id)), h);
		if (rc)
			return rc;
	}
	memcpy(r->key, h, 16);
	r->key[16] = '\0';
	return rk_http_new(&ho, &r->http, err);
}

int rk_store_refresh_run(struct rk_cache *cache, const char *run, struct rk_err *err)
{
	struct rk_buf dir = RK_BUF_INIT;
	struct dirent *de;
	size_t rl = strlen(run);
	int removed = 0;
	DIR *d;

	if (!rk_run_name_valid(run))
		return rk_err_set(err, -EINVAL, "'%s': not a run name ({run_id}-{platform})", run);
	if (rk_buf_addf(&dir, "%s/remote", rk_cache_dir(cache)))
		return -ENOMEM;
	d = opendir(dir.buf);
	if (!d) {
		int rc = errno == ENOENT
				 ? 0
				 : rk_err_set(err, -errno, "'%s': %s", dir.buf, strerror(errno));

		rk_buf_release(&dir);
		return rc;
	}
	while ((de = readdir(d))) {
		/* <key 16>-l-<escaped path>: match run as one component ("%2F"-separated) */
		const char *p = de->d_name;

		if (strlen(p) < 19 || (strncmp(p + 16, "-l-", 3) && strncmp(p + 16, "-u-", 3)))
			continue;
		p += 19;
		while (*p) {
			if (!strncmp(p, run, rl) && (!p[rl] || !strncmp(p + rl, "%2F", 3))) {
				if (!unlinkat(dirfd(d), de->d_name, 0))
					removed++;
				break;
			}
			p = strstr(p, "%2F");
			if (!p)
				break;
			p += 3;
		}
	}
	closedir(d);
	rk_buf_release(&dir);
	return removed;
}
