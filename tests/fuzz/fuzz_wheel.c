/* fuzz_wheel.c: a wheel's METADATA from an arbitrary zip (rk_wheel_metadata_mem), then
 * the core metadata header on what it returns. Invariants: no crash or leak; success
 * means a NUL-terminated buffer of the stated length, at most RK_WHEEL_MAX_METADATA. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rk/wheel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rk_err err = RK_ERR_INIT;
	char *m = NULL, *v = NULL, project[64];
	size_t len = 0;

	if (!rk_wheel_metadata_mem(data, size, NULL, &m, &len, &err)) {
		if (len > RK_WHEEL_MAX_METADATA || m[len] != '\0')
			abort();
		if (!rk_metadata_field(m, len, "Requires-Python", &v))
			free(v);
		free(m);
	}
	if (!rk_wheel_metadata_mem(data, size, "pkg-1.0.dist-info", &m, &len, &err))
		free(m);
	/* the same bytes as a header and as a file name */
	if (!rk_metadata_field((const char *)data, size, "Name", &v))
		free(v);
	if (size < 200) {
		char name[200];

		memcpy(name, data, size);
		name[size] = '\0';
		(void)rk_pyfile_parse(name, project, sizeof(project), NULL, 0);
	}
	return 0;
}
