/* fuzz_codeobj.c: the target ID of an AMDGPU code object from untrusted bytes. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rk/target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char out[RK_TARGET_MAX], canon[RK_TARGET_MAX];
	struct rk_err err = RK_ERR_INIT;

	if (rk_codeobj_target(data, size, out, &err) == 0) {
		/* what it names is a canonical target ID */
		if (rk_target_canon(out, canon) != 0 || strcmp(out, canon))
			abort();
	} else if (!err.msg[0]) {
		abort(); /* a failure always says why */
	}
	return 0;
}
