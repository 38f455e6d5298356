/* fuzz_s3_list.c: an S3 ListObjectsV2 page from untrusted bytes (rk_s3_parse_list), one
 * level and recursive. Every entry it returns must be a usable name. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rk/remote.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct rk_store_list *l, int recursive)
{
	for (size_t i = 0; i < l->n; i++) {
		const char *n = l->v[i].name;

		if (!n || !n[0] || !strcmp(n, ".") || !strcmp(n, "..") || strchr(n, '\n') ||
		    (!recursive && strchr(n, '/')) || (l->v[i].is_dir && l->v[i].size))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (int recursive = 0; recursive < 2; recursive++) {
		struct rk_store_list l = {0};
		struct rk_err err = RK_ERR_INIT;
		char *next = NULL;
		int rc = rk_s3_parse_list((const char *)data, size, recursive ? "" : "run/",
					  recursive, &l, &next, &err);

		if (rc == 0) {
			check(&l, recursive);
			rk_store_list_sort(&l);
			check(&l, recursive);
			for (size_t i = 1; i < l.n; i++)
				if (strcmp(l.v[i - 1].name, l.v[i].name) >= 0)
					abort();
		} else if (next || (!err.msg[0] && rc != -ENOMEM)) {
			abort();
		}
		free(next);
		rk_store_list_release(&l);
	}
	return 0;
}
