/* fuzz_install_spec.c: rk_install_spec_parse (RUN/install/<spec> names, rk/install.h) on
 * arbitrary strings. Invariants: a parsed spec's canonical name parses to the same spec and
 * is its own canonical name; its patterns are built without failing (no leak). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rk/install.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rk_install_spec s, t;
	char name[2048], again[2048];
	char *str = malloc(size + 1), **pat = NULL;
	size_t npat = 0;
	int n;

	if (!str)
		return 0;
	memcpy(str, data, size);
	str[size] = 0;
	if (!rk_install_spec_parse(str, &s, NULL)) {
		n = rk_install_spec_name(&s, name, sizeof(name));
		if (n < 0 || rk_install_spec_parse(name, &t, NULL) || memcmp(&s, &t, sizeof(s)))
			abort();
		if (rk_install_spec_name(&t, again, sizeof(again)) != n || strcmp(name, again))
			abort();
		if (rk_install_patterns(&s, &pat, &npat))
			abort();
		if (s.flags && !s.base_only && !npat)
			abort();
		rk_install_patterns_free(pat, npat);
	}
	free(str);
	return 0;
}
