/* store_int.h: the contract between store.c and the backends: the vtables behind struct
 * rk_store and struct rk_object, and the backend table (struct rk_store_backend).
 * store.c dispatches through them; a backend includes this header and may use
 * store_list.c (rk_store_list_*), never store.c. */
#ifndef RK_STORE_INT_H
#define RK_STORE_INT_H

#include "rk/store.h"

struct rk_store_ops {
	int (*list)(struct rk_store *s, const char *path, struct rk_store_list *out,
		    struct rk_err *err);
	int (*open)(struct rk_store *s, const char *path, struct rk_object **out,
		    struct rk_err *err);
	void (*close)(struct rk_store *s);
	uint64_t (*requests)(const struct rk_store *s); /* NULL: 0 */
	uint64_t (*bytes)(const struct rk_store *s); /* NULL: 0 */
	void (*forget)(struct rk_store *s, const char *path); /* NULL: nothing kept */
	int (*run_stale)(struct rk_store *s, const char *path); /* NULL: always listed anew */
};

struct rk_object_ops {
	ssize_t (*read)(struct rk_object *o, void *buf, size_t n, struct rk_err *err);
	ssize_t (*pread)(struct rk_object *o, void *buf, size_t n, uint64_t off,
			 struct rk_err *err);
	int (*fd)(const struct rk_object *o);
	void (*close)(struct rk_object *o);
};

struct rk_store {
	const struct rk_store_ops *ops;
	char *id;
};

struct rk_object {
	const struct rk_object_ops *ops;
	uint64_t size;
	int64_t mtime_ns;
};

/* A backend: the locations it takes and how it opens one. Each backend file fills one
 * (rk_store_dir in store_dir.c, rk_store_s3 in store_s3.c, rk_store_http in
 * store_http.c); store_registry.c lists them and store.c walks that list, naming none. */
struct rk_store_backend {
	const char *name; /* "dir", "s3", "http" */
	/* Location prefixes it takes ("s3://"), NULL-terminated; NULL: any location (the
	 * fallback, listed last). */
	const char *const *schemes;
	int remote; /* talks to a server (rk_store_is_remote) */
	/* rk_store_open_opts for one of its locations; o is never NULL. */
	int (*open)(const char *location, const struct rk_store_opts *o, struct rk_store **out,
		    struct rk_err *err);
};

extern const struct rk_store_backend rk_store_dir, rk_store_s3, rk_store_http;

/* Every backend in the order store.c tries them, the fallback last; NULL-terminated
 * (store_registry.c). */
extern const struct rk_store_backend *const rk_store_backends[];

#endif
