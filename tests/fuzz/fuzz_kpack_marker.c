/* fuzz_kpack_marker.c: the .rocm_kpack_ref marker from untrusted bytes; a decoded
 * marker must encode and decode to the same thing. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rk/kpack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rk_kpack_marker m, m2;
	struct rk_err err = RK_ERR_INIT;
	void *enc;
	size_t len;

	if (rk_kpack_marker_decode(data, size, &m, &err) != 0) {
		if (!err.msg[0] && err.code != -ENOMEM)
			abort(); /* a failure always says why, except out of memory */
		return 0;
	}
	if (!m.npaths || !m.kernel_name)
		abort();
	if (rk_kpack_marker_encode((const char *const *)m.paths, m.npaths, m.kernel_name, &enc,
				   &len, &err) == 0) {
		if (rk_kpack_marker_decode(enc, len, &m2, &err) != 0 || m2.npaths != m.npaths ||
		    strcmp(m2.kernel_name, m.kernel_name))
			abort();
		for (size_t i = 0; i < m.npaths; i++)
			if (strcmp(m.paths[i], m2.paths[i]))
				abort();
		rk_kpack_marker_release(&m2);
		free(enc);
	}
	rk_kpack_marker_release(&m);
	return 0;
}
