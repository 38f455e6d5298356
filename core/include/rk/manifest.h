/* rk/manifest.h: therock_manifest.json (therock-formats.md section 8).
 *
 * Parsed from untrusted bytes with a size cap; unknown keys are ignored, wrong
 * types are errors (-EPROTO). A parsed manifest owns its strings. */
#ifndef RK_MANIFEST_H
#define RK_MANIFEST_H

#include <stddef.h>

#include "rk/err.h"

#define RK_MANIFEST_MAX (4u << 20) /* larger input is rejected with -EFBIG */

struct rk_manifest_flag {
	char *name;
	long long value; /* booleans as 0/1 */
	int is_bool;
};

struct rk_manifest {
	char *the_rock_commit; /* NULL when null/absent */
	char *github_run_id; /* optional */
	char *rocm_package_version; /* optional, e.g. "7.13.0.dev0+abc" */
	char *rocm_version; /* optional */
	size_t nsubmodules;
	struct rk_manifest_flag *flags;
	size_t nflags;
	int kpack_split; /* flags.KPACK_SPLIT_ARTIFACTS, false when absent */
};

int rk_manifest_parse(const char *json, size_t len, struct rk_manifest *out, struct rk_err *err);
void rk_manifest_release(struct rk_manifest *m);

#endif
