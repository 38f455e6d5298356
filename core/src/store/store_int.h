/* store_int.h: the backend vtable behind struct rk_store. */
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

int rk_store_dir_open(const char *path, struct rk_store **out, struct rk_err *err);
int rk_store_s3_open(const char *location, const struct rk_store_opts *o, struct rk_store **out,
		     struct rk_err *err);
int rk_store_http_open(const char *location, const struct rk_store_opts *o, struct rk_store **out,
		       struct rk_err *err);

#endif
