/* fuzz_manifest.c: therock_manifest.json from untrusted bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rk/manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rk_manifest m;
	struct rk_err err = RK_ERR_INIT;

	if (rk_manifest_parse((const char *)data, size, &m, &err) == 0) {
		int kpack = 0;

		for (size_t i = 0; i < m.nflags; i++) {
			if (!m.flags[i].name)
				abort();
			if (!strcmp(m.flags[i].name, "KPACK_SPLIT_ARTIFACTS"))
				kpack = m.flags[i].value != 0;
		}
		if (kpack != m.kpack_split)
			abort();
		rk_manifest_release(&m);
	} else if (!err.msg[0] && err.code != 0) {
		abort(); /* a failure always says why, except out of memory */
	}
	return 0;
}
