/* rk/store.h: where artifacts live. A store lists directories and opens objects for
 * reading. Backends: "dir" (a local path) now; "http" and "s3" plug into the same
 * vtable (core/src/store_*.c).
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

/* Open a store from a location: a local directory path (absolute or relative). */
int rk_store_open(const char *location, struct rk_store **out, struct rk_err *err);
void rk_store_close(struct rk_store *s); /* NULL ok */

/* A stable identity for cache keys, e.g. "dir:/srv/therock-staging". */
const char *rk_store_id(const struct rk_store *s);

/* List one directory level. -ENOENT when it does not exist. */
int rk_store_list(struct rk_store *s, const char *path, struct rk_store_list *out,
		  struct rk_err *err);
void rk_store_list_release(struct rk_store_list *l);

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
