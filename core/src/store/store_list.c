/* store_list.c: struct rk_store_list, the listing every backend fills (rk/store.h):
 * release, sort and find. A leaf of the store layer: it uses libc only, and every backend
 * (store_dir.c, store_remote.c, store_s3.c, store_http.c) and store.c may use it. */
#include <stdlib.h>
#include <string.h>

#include "rk/store.h"

void rk_store_list_release(struct rk_store_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].name);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct rk_store_entry *)a)->name,
		      ((const struct rk_store_entry *)b)->name);
}

void rk_store_list_sort(struct rk_store_list *out)
{
	size_t k = 0;

	if (!out->n)
		return;
	/* stable enough for de-duplication: a directory wins over a file of the same name */
	qsort(out->v, out->n, sizeof(*out->v), cmp_entry);
	for (size_t i = 0; i < out->n; i++) {
		if (k && !strcmp(out->v[k - 1].name, out->v[i].name)) {
			if (out->v[i].is_dir && !out->v[k - 1].is_dir) {
				free(out->v[k - 1].name);
				out->v[k - 1] = out->v[i];
			} else {
				free(out->v[i].name);
			}
			continue;
		}
		out->v[k++] = out->v[i];
	}
	out->n = k;
}

const struct rk_store_entry *rk_store_list_find(const struct rk_store_list *l, const char *name)
{
	struct rk_store_entry key = {.name = (char *)name};

	return l->n ? bsearch(&key, l->v, l->n, sizeof(key), cmp_entry) : NULL;
}
