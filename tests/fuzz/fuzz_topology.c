/* fuzz_topology.c: BUILD_TOPOLOGY.toml (rk/topology.h) from untrusted bytes. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rk/topology.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rk_topology t;
	struct rk_err err = RK_ERR_INIT;
	int rc = rk_topology_parse((const char *)data, size, "fuzz", &t, &err);

	if (rc == 0) {
		for (size_t i = 0; i < t.n; i++) {
			const struct rk_kpack_db_set *s = rk_topology_dbs(&t, t.e[i].name);

			if (!t.e[i].name || s->n > RK_KPACK_DB_NHANDLERS)
				abort();
			for (unsigned j = 0; j < s->n; j++)
				if (!rk_kpack_db_name(s->h[j]))
					abort();
		}
		rk_topology_release(&t);
	} else if (t.n || t.e || (rc != -ENOMEM && !err.msg[0])) {
		abort(); /* a failure leaves nothing and says why */
	}
	return 0;
}
