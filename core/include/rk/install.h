/* rk/install.h: TheRock's install selection (build_tools/install_rocm_from_artifacts.py with
 * fetch_artifacts.py, docs/install.md): which artifacts of a run an install of a GPU
 * family with some component flags fetches. services/install_select.c; used by the install
 * view (RUN/install/<spec>/) and by `rockpack install`. Pure functions; thread-safe. */
#ifndef RK_INSTALL_H
#define RK_INSTALL_H

#include <stddef.h>

#include "rk/catalog.h"
#include "rk/err.h"

/* The component flags of install_rocm_from_artifacts.py (--blas, --fft, ...), NULL-ended,
 * in its order, without the leading "--"; "tests" and "base-only" are not among them. */
const char *const *rk_install_flags(void);

#define RK_INSTALL_MAX_TARGETS 16

/* One install: what the script's options say (its argv, parsed). */
struct rk_install_spec {
	char family[64]; /* --amdgpu-family (or --artifact-group) */
	char targets[RK_INSTALL_MAX_TARGETS][32]; /* --amdgpu-targets, in order; none: derived */
	size_t ntargets;
	unsigned long long flags; /* bit i: rk_install_flags()[i] */
	int tests; /* --tests */
	int base_only; /* --base-only */
};

/* Parse a spec name, the directory name of RUN/install/: FAMILY, then '@' and a
 * comma-separated target list (optional), then "+flag" for each flag (a component flag,
 * "tests" or "base-only"), e.g. "gfx94X-dcgpu+blas+tests", "gfx94X-dcgpu@gfx942+base-only".
 * 0, or -ENOENT (not a spec) with err saying why. */
int rk_install_spec_parse(const char *name, struct rk_install_spec *out, struct rk_err *err);
/* The canonical spec name of s (flags in rk_install_flags order, then tests, base-only)
 * into out; its length, or -ENAMETOOLONG. */
int rk_install_spec_name(const struct rk_install_spec *s, char *out, size_t n);
/* Set flag name (a component flag, "tests" or "base-only") to on in s; -ENOENT if unknown. */
int rk_install_spec_set(struct rk_install_spec *s, const char *flag, int on);

/* The include patterns the script hands fetch_artifacts.py (its argv after the options),
 * each a string a name must contain (fetch_artifacts.py's re.search of patterns without
 * a special character), NULL-ended; none (*n = 0): every artifact of the family. The
 * array and strings are malloc'd (rk_install_patterns_free). 0 or -ENOMEM. */
int rk_install_patterns(const struct rk_install_spec *s, char ***out, size_t *n);
void rk_install_patterns_free(char **p, size_t n);

/* Whether artifact a of a run is fetched for s: its target matches (fetch_artifacts.py
 * list_artifacts_for_group: "generic", the family, and the --amdgpu-targets or else the
 * family's targets, compared by base arch), and its file name contains one of the
 * patterns (any when there are none). */
int rk_install_wants(const struct rk_install_spec *s, char *const *patterns, size_t npatterns,
		     const struct rk_artifact *a);

/* The artifacts of run r that s selects: indexes into r->arts, ascending (malloc'd; none:
 * *idx NULL). 0 or -ENOMEM. */
int rk_install_select(const struct rk_install_spec *s, const struct rk_run *r, size_t **idx,
		      size_t *n);

#endif
