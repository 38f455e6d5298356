/* rk/gpu.h: TheRock's GPU targets and families (cmake/therock_amdgpu_targets.cmake),
 * kept as data in one place: core/src/gpu_targets.c. Read-only; thread-safe. */
#ifndef RK_GPU_H
#define RK_GPU_H

#include <stddef.h>

struct rk_gpu_target {
	const char *name; /* "gfx1100" */
	const char *product; /* "AMD RX 7900 XTX" */
	const char *families; /* space-separated families besides the target itself */
};

/* The table, in TheRock's declaration order. */
const struct rk_gpu_target *rk_gpu_targets(size_t *count);

/* The families TheRock's CI builds and releases tarballs for
 * (build_tools/github_actions/amdgpu_family_matrix.py), NULL-terminated. */
const char *const *rk_gpu_release_families(void);

/* The target entry for a gfx name (exact, no features), or NULL. */
const struct rk_gpu_target *rk_gpu_target_find(const char *name);

/* True when name is a family of the table (every target is also its own family). */
int rk_gpu_is_family(const char *name);

/* True when target t (base arch compared, features after ':' ignored) belongs to family f
 * (f may be a target name). */
int rk_gpu_family_has(const char *family, const char *t);

/* Copy the base arch of t (text before the first ':') into out. Returns its length or
 * -ENAMETOOLONG. */
int rk_gpu_base_arch(const char *t, char *out, size_t n);

#endif
