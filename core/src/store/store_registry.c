/* store_registry.c: the list of store backends, the one place that names them. store.c
 * tries them in this order: a location goes to the first whose scheme it starts with,
 * else to the fallback (a local directory), which comes last. A new backend is one
 * file filling a struct rk_store_backend (store/store_int.h) and one line here. */
#include <stddef.h>

#include "store/store_int.h"

const struct rk_store_backend *const rk_store_backends[] = {
	&rk_store_s3,
	&rk_store_http,
	&rk_store_dir, /* the fallback: any other location is a path */
	NULL,
};
