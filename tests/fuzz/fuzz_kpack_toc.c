/* fuzz_kpack_toc.c: a .kpack archive (header, blob region, msgpack TOC) from untrusted
 * bytes; every (binary, arch) pair is read back. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rk/kpack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void get(const struct rk_kpack *k, const char *key, const char *arch)
{
	struct rk_err err = RK_ERR_INIT;
	void *p = NULL;
	size_t n = 0;
	int rc = rk_kpack_get(k, key, arch, &p, &n, &err);

	if (rc == 0) {
		if (!p)
			abort();
		if (n)
			((volatile uint8_t *)p)[n - 1];
		free(p);
	} else if ((p || n) || (!err.msg[0] && rc != -ENOMEM)) {
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rk_kpack *k = NULL;
	struct rk_err err = RK_ERR_INIT;

	if (rk_kpack_open(data, size, &k, &err) == 0) {
		size_t nb = rk_kpack_binary_count(k), na = rk_kpack_arch_count(k);

		for (size_t i = 0; i < nb; i++) {
			const char *key = rk_kpack_binary(k, i);

			if (!key || (i && strcmp(rk_kpack_binary(k, i - 1), key) >= 0))
				abort(); /* sorted, unique */
			for (size_t j = 0; j < na; j++)
				get(k, key, rk_kpack_arch(k, j));
			get(k, key, "gfx-none");
		}
		get(k, "no such key", "gfx1100");
		rk_kpack_close(k);
	} else if (k || (!err.msg[0] && err.code != -ENOMEM)) {
		abort(); /* a failure always says why, except out of memory */
	}
	return 0;
}
