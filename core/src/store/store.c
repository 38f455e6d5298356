/* store.c: the public store API (rk/store.h): picks a backend from the table
 * (store_registry.c) and dispatches through the vtables of store/store_int.h. Names no
 * backend and uses nothing of theirs (store_int.h only); backends never call into it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_int.h"

/* The backend of location: the first that claims its scheme, else the fallback. */
static const struct rk_store_backend *backend_of(const char *location)
{
	const struct rk_store_backend *const *b;

	for (b = rk_store_backends; b[1]; b++)
		for (const char *const *p = (*b)->schemes; p && *p; p++)
			if (!strncmp(location, *p, strlen(*p)))
				return *b;
	return *b;
}

int rk_store_is_remote(const char *location)
{
	return backend_of(location)->remote;
}

int rk_store_open_opts(const char *location, const struct rk_store_opts *o, struct rk_store **out,
		       struct rk_err *err)
{
	static const struct rk_store_opts none;

	return backend_of(location)->open(location, o ? o : &none, out, err);
}

int rk_store_open(const char *location, struct rk_store **out, struct rk_err *err)
{
	return rk_store_open_opts(location, NULL, out, err);
}

uint64_t rk_store_requests(const struct rk_store *s)
{
	return s->ops->requests ? s->ops->requests(s) : 0;
}

void rk_store_forget(struct rk_store *s, const char *path)
{
	if (s->ops->forget)
		s->ops->forget(s, path);
}

int rk_store_run_stale(struct rk_store *s, const char *path)
{
	return s->ops->run_stale ? s->ops->run_stale(s, path) : 1;
}

uint64_t rk_store_bytes(const struct rk_store *s)
{
	return s->ops->bytes ? s->ops->bytes(s) : 0;
}

void rk_store_close(struct rk_store *s)
{
	if (s)
		s->ops->close(s);
}

const char *rk_store_id(const struct rk_store *s)
{
	return s->id;
}

int rk_store_list(struct rk_store *s, const char *path, struct rk_store_list *out,
		  struct rk_err *err)
{
	return s->ops->list(s, path, out, err);
}

int rk_store_object_open(struct rk_store *s, const char *path, struct rk_object **out,
			 struct rk_err *err)
{
	return s->ops->open(s, path, out, err);
}

uint64_t rk_object_size(const struct rk_object *o)
{
	return o->size;
}

int64_t rk_object_mtime_ns(const struct rk_object *o)
{
	return o->mtime_ns;
}

ssize_t rk_object_read(struct rk_object *o, void *buf, size_t n, struct rk_err *err)
{
	return o->ops->read(o, buf, n, err);
}

ssize_t rk_object_pread(struct rk_object *o, void *buf, size_t n, uint64_t off, struct rk_err *err)
{
	return o->ops->pread(o, buf, n, off, err);
}

int rk_object_fd(const struct rk_object *o)
{
	return o->ops->fd(o);
}

void rk_object_close(struct rk_object *o)
{
	if (o)
		o->ops->close(o);
}

int rk_store_read_small(struct rk_store *s, const char *path, size_t max, char **data, size_t *len,
			struct rk_err *err)
{
	struct rk_object *o;
	size_t got = 0;
	char *buf;
	int rc;

	rc = rk_store_object_open(s, path, &o, err);
	if (rc)
		return rc;
	if (rk_object_size(o) > max) {
		rk_object_close(o);
		return rk_err_set(err, -EFBIG, "'%s': larger than %zu bytes", path, max);
	}
	buf = malloc(rk_object_size(o) + 1);
	if (!buf) {
		rk_object_close(o);
		return -ENOMEM;
	}
	while (got < rk_object_size(o)) {
		ssize_t n = rk_object_read(o, buf + got, rk_object_size(o) - got, err);

		if (n < 0) {
			free(buf);
			rk_object_close(o);
			return (int)n;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	rk_object_close(o);
	buf[got] = '\0';
	*data = buf;
	*len = got;
	return 0;
}
