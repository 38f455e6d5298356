/* fuzz_artifact_name.c: rk_artifact_name_parse on arbitrary names. Invariant: a parsed
 * name gives back its stem, and the stem plus the suffix parses to the same fields.
 * rk_run_name_valid on the same bytes: a valid run name is {digits or "local"}-{one or
 * more lowercase letters}. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rk/artifact.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rk_artifact_name an, again;
	char *name = malloc(size + 1), stem[3 * RK_ARTIFACT_FIELD + 16];
	int n;

	if (!name)
		return 0;
	memcpy(name, data, size);
	name[size] = '\0';
	if (rk_artifact_name_parse(name, &an) == 0) {
		const char *suffix = an.compression == RK_COMP_ZSTD ? ".tar.zst" : ".tar.xz";

		if (an.compression != RK_COMP_ZSTD && an.compression != RK_COMP_XZ)
			abort();
		if (!an.name[0] || !an.component[0] || !an.target[0] || strchr(an.name, '_') ||
		    strchr(an.component, '_') || strchr(an.target, '_'))
			abort();
		n = rk_artifact_stem(&an, stem, sizeof(stem));
		if (n < 0 || (size_t)n + strlen(suffix) != strlen(name) ||
		    memcmp(stem, name, (size_t)n))
			abort();
		memcpy(stem + n, suffix, strlen(suffix) + 1);
		if (rk_artifact_name_parse(stem, &again) || strcmp(an.name, again.name) ||
		    strcmp(an.component, again.component) || strcmp(an.target, again.target) ||
		    an.compression != again.compression)
			abort();
		rk_component_is_standard(an.component);
	}
	if (rk_run_name_valid(name)) {
		const char *dash = strchr(name, '-');
		size_t id = dash ? (size_t)(dash - name) : 0;

		if (!dash || !dash[1] ||
		    strspn(dash + 1, "abcdefghijklmnopqrstuvwxyz") != strlen(dash + 1))
			abort();
		if (strspn(name, "0123456789") != id && (id != 5 || strncmp(name, "local", 5)))
			abort();
		if (!id)
			abort();
	}
	free(name);
	return 0;
}
