/* cache_gc.c: what the cache holds (stats, usage) and LRU eviction down to its limit
 * (rk/cache.h, cache/cache_int.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include <libdeflate.h>

#include "cache/cache_int.h"
#include "rk/cache.h"
#include "rk/compiler.h"
#include "rk/log.h"
#include "util/htab.h"
#include "util/le.h"

struct blob_ent {
	int64_t stamp; /* mtime in ns: whole seconds would tie blobs written together */
	uint64_t size;
	char path[80];
};

/* Call fn for each blob file (and with pieces, each compressed tarball piece); stops
 * at the first non-zero return. */
int cache_walk_blobs(struct rk_cache *c, int pieces,
		     int (*fn)(void *ctx, const char *path, struct stat *st), void *ctx)
{
	for (int i = 0; i < 256 + pieces; i++) {
		char sub[16];
		struct dirent *de;
		DIR *d;
		int fd, rc = 0;

		if (i < 256)
			snprintf(sub, sizeof(sub), "blobs/%02x", i);
		else
			snprintf(sub, sizeof(sub), "pieces");
		fd = openat(c->dirfd, sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue;
		d = fdopendir(fd);
		if (!d) {
			close(fd);
			continue;
		}
		while (!rc && (de = readdir(d))) {
			char path[80];
			struct stat st;

			if (de->d_name[0] == '.' || strlen(de->d_name) != 64)
				continue;
			if (fstatat(dirfd(d), de->d_name, &st, 0))
				continue;
			snprintf(path, sizeof(path), "%s/%s", sub, de->d_name);
			rc = fn(ctx, path, &st);
		}
		closedir(d);
		if (rc)
			return rc;
	}
	return 0;
}

static int count_blob(void *ctx, const char *path, struct stat *st)
{
	struct rk_cache_stats *s = ctx;

	(void)path;
	s->blobs++;
	s->blob_bytes += cache_disk_bytes(st);
	return 0;
}

int rk_cache_stats(struct rk_cache *c, struct rk_cache_stats *st, struct rk_err *err)
{
	struct dirent *de;
	DIR *d;
	int fd;

	(void)err;
	memset(st, 0, sizeof(*st));
	cache_walk_blobs(c, 1, count_blob, st);
	fd = openat(c->dirfd, "index", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0 && (d = fdopendir(fd))) {
		while ((de = readdir(d))) {
			struct stat s;

			if (de->d_name[0] == '.' || fstatat(dirfd(d), de->d_name, &s, 0))
				continue;
			st->indexes++;
			st->index_bytes += (uint64_t)s.st_size;
		}
		closedir(d);
	} else if (fd >= 0) {
		close(fd);
	}
	return 0;
}

struct gc_list {
	struct blob_ent *v;
	size_t n, cap;
	uint64_t total;
};

static int collect_blob(void *ctx, const char *path, struct stat *st)
{
	struct gc_list *l = ctx;

	if (l->n == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 1024;
		struct blob_ent *v = realloc(l->v, ncap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = ncap;
	}
	l->v[l->n].stamp = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
	l->v[l->n].size = cache_disk_bytes(st);
	snprintf(l->v[l->n].path, sizeof(l->v[l->n].path), "%s", path);
	l->total += l->v[l->n].size;
	l->n++;
	return 0;
}

static int cmp_stamp(const void *a, const void *b)
{
	const struct blob_ent *x = a, *y = b;

	if (x->stamp != y->stamp)
		return x->stamp < y->stamp ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* Evict least recently used blobs down to target, never the blob keep (may be NULL): the
 * one just written, which its writer is about to use even when it alone is too big. */
static int gc(struct rk_cache *c, uint64_t target, const char *keep, struct rk_cache_stats *st,
	      struct rk_err *err)
{
	struct gc_list l = {0};
	int rc;

	memset(st, 0, sizeof(*st));
	pthread_mutex_lock(&c->gc_lock);
	rc = cache_walk_blobs(c, 1, collect_blob, &l);
	if (rc) {
		pthread_mutex_unlock(&c->gc_lock);
		free(l.v);
		return rk_err_set(err, rc, "cache gc: %s", strerror(-rc));
	}
	qsort(l.v, l.n, sizeof(*l.v), cmp_stamp);
	for (size_t i = 0; i < l.n && l.total > target; i++) {
		if (keep && !strcmp(strrchr(l.v[i].path, '/') + 1, keep))
			continue;
		if (unlinkat(c->dirfd, l.v[i].path, 0))
			continue;
		/* a blob is remembered by its id, a piece (a record) by its path */
		cache_forget_verified(c, strncmp(l.v[i].path, "pieces/", 7)
						 ? strrchr(l.v[i].path, '/') + 1
						 : l.v[i].path);
		l.total -= l.v[i].size;
		st->evicted++;
		st->evicted_bytes += l.v[i].size;
	}
	st->blobs = l.n - st->evicted;
	st->blob_bytes = l.total;
	c->used = l.total;
	pthread_mutex_unlock(&c->gc_lock);
	free(l.v);
	if (st->evicted)
		rk_info("cache: evicted %llu blobs (%llu bytes)", (unsigned long long)st->evicted,
			(unsigned long long)st->evicted_bytes);
	return 0;
}

int rk_cache_gc(struct rk_cache *c, uint64_t target, struct rk_cache_stats *st, struct rk_err *err)
{
	return gc(c, target, NULL, st, err);
}

void cache_added(struct rk_cache *c, uint64_t bytes, const char *keep)
{
	struct rk_cache_stats st;
	uint64_t used = atomic_fetch_add(&c->used, bytes) + bytes;

	c->written += bytes;
	if (c->limit && used > c->limit)
		gc(c, c->limit - c->limit / 10, keep, &st, NULL);
}

void rk_cache_added(struct rk_cache *c, uint64_t bytes)
{
	cache_added(c, bytes, NULL);
}

void rk_cache_usage(struct rk_cache *c, struct rk_cache_usage *u)
{
	u->limit = c->limit;
	u->used = c->limit ? c->used : 0;
	u->written = c->written;
	u->discarded = c->discarded;
}
