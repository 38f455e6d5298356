/* fuzz_wheel.c: a wheel's METADATA from an arbitrary zip (rk_wheel_metadata_mem), then
 * the core metadata header on what it returns; the member list (rk_wheel_list) and the
 * extraction of every member (rk_wheel_extract). Invariants: no crash or leak; success
 * means a NUL-terminated buffer of the stated length, at most RK_WHEEL_MAX_METADATA; an
 * extracted member has exactly its listed size. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rk/wheel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count(void *ctx, const void *buf, size_t n)
{
	(void)buf;
	*(uint64_t *)ctx += n;
	return 0;
}

static void members(const uint8_t *data, size_t size)
{
	struct rk_mem z = {data, size};
	struct rk_err err = RK_ERR_INIT;
	struct rk_wheel_member *m = NULL;
	size_t n = 0;

	if (rk_wheel_list(rk_mem_pread, &z, size, &m, &n, &err))
		return;
	for (size_t i = 0; i < n; i++) {
		uint64_t got = 0;

		if (!m[i].name || strlen(m[i].name) == 0)
			abort();
		if (m[i].usize > (64u << 20))
			continue; /* only time: extraction streams */
		if (!rk_wheel_extract(rk_mem_pread, &z, size, &m[i], count, &got, &err) &&
		    got != m[i].usize)
			abort();
	}
	rk_wheel_members_free(m, n);
}

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
	members(data, size);
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
