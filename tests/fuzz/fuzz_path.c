/* fuzz_path.c: rk_path_normalize and rk_path_link_escapes on arbitrary strings.
 * Invariants: normalize is idempotent and its output is canonical (no empty, "." or ".."
 * component, no leading or trailing '/'); a relative target that normalizes (so has no
 * "..") never escapes. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rk/path.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_canonical(const char *p, int n)
{
	const char *c = p;

	if ((int)strlen(p) != n)
		abort();
	if (n == 0)
		return;
	if (p[0] == '/' || p[n - 1] == '/' || strstr(p, "//"))
		abort();
	while (*c) {
		size_t len = strcspn(c, "/");

		if ((len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
			abort();
		c += len + (c[len] == '/');
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = malloc(size + 1), out[4097], again[4097], small[16];
	int n, m;

	if (!in)
		return 0;
	memcpy(in, data, size);
	in[size] = '\0';
	n = rk_path_normalize(in, out, sizeof(out));
	if (n >= 0) {
		check_canonical(out, n);
		m = rk_path_normalize(out, again, sizeof(again));
		if (m != n || strcmp(out, again))
			abort();
		/* a tight buffer gives the same answer or -ENAMETOOLONG */
		m = rk_path_normalize(in, small, sizeof(small));
		if (m >= 0 ? (m != n || strcmp(small, out)) : m != -ENAMETOOLONG)
			abort();
		if (in[0] && in[0] != '/' && rk_path_link_escapes("dir/link", in))
			abort();
		if (n > 0)
			rk_path_link_escapes(out, in);
	} else if (n != -EINVAL && n != -ENAMETOOLONG) {
		abort();
	}
	rk_path_link_escapes("", in);
	free(in);
	return 0;
}
