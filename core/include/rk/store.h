/* rk/store.h: where artifacts live. A store lists directories and opens objects for
 * reading. Backends (core/src/store/store_*.c, listed in store_registry.c): "dir" (a
 * local path: only its regular files and directories, no symlink followed), "s3"
 * (s3://bucket/prefix, ListObjectsV2) and "http" (http(s)://... with index.html
 * listings); the remote ones are described in docs/remote-stores.md.
 *
 * Paths given to a store are relative to its root, '/'-separated, without leading
 * or trailing '/' ("" is the root). A store is thread-safe; an object is used by
 * one thread at a time (rk_object_pread may be called from several threads). */
#ifndef RK_STORE_H
#define RK_STORE_H

#include <stdint.h>
#include <sys/types.h>

#include "rk/err.h"

struct rk_store;
struct rk_object;

struct rk_store_entry {
	char *name; /* one path component */
	uint64_t size; /* bytes, 0 for directories */
	int64_t mtime; /* seconds since the epoch */
	int64_t mtime_ns;
	int is_dir;
};

struct rk_store_list {
	struct rk_store_entry *v; /* sorted by name (strcmp) */
	size_t n;
};

struct rk_cache;

/* Options of the remote stores (ignored by "dir"). Zero means the default. */
struct rk_store_opts {
	const char *endpoint; /* s3: custom endpoint URL, e.g. http://127.0.0.1:9000 */
	const char *region; /* s3: default $AWS_REGION, $AWS_DEFAULT_REGION, us-east-1 */
	int addressing; /* s3: 0 auto (path-style with an endpoint), 'p' path, 'v' virtual */
	int no_sign; /* s3: never sign, even with credentials */
	struct rk_cache *cache; /* where listings and small objects are kept; NULL: memory */
	int offline; /* no network: serve what the cache holds */
	int refresh; /* fetch listings again, even of runs (which are cached for good) */
	long long run_final_age; /* seconds: a run whose newest object is younger is listed
				  * again on the next mount (it is still being uploaded); 0:
				  * 86400; < 0: every run is final when first listed */
	unsigned timeout_ms; /* per operation (a list, one read); 0: 60 s */
	unsigned retries; /* after the first attempt; 0: 6 */
};

/* Open a store from a location: a local directory path (absolute or relative), an
 * s3://bucket[/prefix] or an http(s):// URL. o may be NULL. */
int rk_store_open(const char *location, struct rk_store **out, struct rk_err *err);
int rk_store_open_opts(const char *location, const struct rk_store_opts *o, struct rk_store **out,
		       struct rk_err *err);
/* 1 for s3:// and http(s):// locations. */
int rk_store_is_remote(const char *location);

/* Forget the cached listings of run (a run directory name) of every remote store using
 * cache, so that the next listing asks the server. Returns how many were removed. */
int rk_store_refresh_run(struct rk_cache *cache, const char *run, struct rk_err *err);

/* Network requests this store has made (attempts, retries included); 0 for "dir". */
uint64_t rk_store_requests(const struct rk_store *s);
/* Forget what the store remembers of the listing of path (a directory above the runs),
 * so that the next rk_store_list asks the server again. Run listings are kept. */
void rk_store_forget(struct rk_store *s, const char *path);
/* Whether the listing of run directory path may have changed since the store listed
 * it (a run still being uploaded, or one whose cached listing `rockpack cache refresh`
 * removed; a local directory always may). If so, what the store remembers of path and
 * below is dropped, and the next rk_store_list of them lists again. */
int rk_store_run_stale(struct rk_store *s, const char *path);
/* Bytes received from the network so far (response bodies); 0 for "dir". */
uint64_t rk_store_bytes(const struct rk_store *s);
void rk_store_close(struct rk_store *s); /* NULL ok */

/* A stable identity for cache keys, e.g. "dir:/srv/therock-staging". */
const char *rk_store_id(const struct rk_store *s);

/* List one directory level. -ENOENT when it does not exist. */
int rk_store_list(struct rk_store *s, const char *path, struct rk_store_list *out,
		  struct rk_err *err);
void rk_store_list_release(struct rk_store_list *l);
/* Sort l by name and drop duplicate names (a directory wins over a file of the same
 * name); the remote backends list unsorted. */
void rk_store_list_sort(struct rk_store_list *l);
/* The entry of sorted listing l named name, or NULL. */
const struct rk_store_entry *rk_store_list_find(const struct rk_store_list *l, const char *name);

/* Open an object. size and mtime are filled from the store. */
int rk_store_object_open(struct rk_store *s, const char *path, struct rk_object **out,
			 struct rk_err *err);
uint64_t rk_object_size(const struct rk_object *o);
int64_t rk_object_mtime_ns(const struct rk_object *o);
/* Sequential read from the current position; 0 at end. */
ssize_t rk_object_read(struct rk_object *o, void *buf, size_t n, struct rk_err *err);
/* Positional read; does not move the sequential position. */
ssize_t rk_object_pread(struct rk_object *o, void *buf, size_t n, uint64_t off, struct rk_err *err);
/* A local file descriptor holding the object's bytes at offset 0, or -1 (remote). The
 * descriptor belongs to the object. */
int rk_object_fd(const struct rk_object *o);
void rk_object_close(struct rk_object *o); /* NULL ok */

/* Read a whole small object (at most max bytes, else -EFBIG) into a malloc'd,
 * NUL-terminated buffer. */
int rk_store_read_small(struct rk_store *s, const char *path, size_t max, char **data, size_t *len,
			struct rk_err *err);

#endif
