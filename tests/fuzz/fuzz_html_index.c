/* fuzz_html_index.c: an HTML directory index from untrusted bytes (rk_html_parse_index).
 * Every entry is one path component, never "." or "..", and sorting de-duplicates. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rk/remote.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rk_store_list l = {0};

	if (rk_html_parse_index((const char *)data, size, &l, NULL) == 0) {
		rk_store_list_sort(&l);
		for (size_t i = 0; i < l.n; i++) {
			const char *n = l.v[i].name;

			if (!n[0] || strchr(n, '/') || !strcmp(n, ".") || !strcmp(n, "..") ||
			    (i && strcmp(l.v[i - 1].name, n) >= 0))
				abort();
		}
	}
	rk_store_list_release(&l);
	return 0;
}
