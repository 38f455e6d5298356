/* rk/artifact.h: TheRock artifact file names (build_tools/_therock_utils/artifacts.py).
 *
 * An archive name is {name}_{component}_{target}.tar.{zst|xz}: exactly three
 * non-empty fields, none containing '_'. Names that do not match are not artifacts
 * (they are still listed under artifacts/, never browsed). Pure functions. */
#ifndef RK_ARTIFACT_H
#define RK_ARTIFACT_H

#include <stddef.h>

enum rk_compression { RK_COMP_NONE = 0, RK_COMP_ZSTD, RK_COMP_XZ };

#define RK_ARTIFACT_FIELD 128

struct rk_artifact_name {
	char name[RK_ARTIFACT_FIELD]; /* "blas" */
	char component[RK_ARTIFACT_FIELD]; /* "lib" */
	char target[RK_ARTIFACT_FIELD]; /* "generic", "gfx94X-dcgpu", "gfx942:xnack+" */
	enum rk_compression compression;
};

/* Parse an archive file name. 0 on a match, -EINVAL otherwise (out untouched). */
int rk_artifact_name_parse(const char *filename, struct rk_artifact_name *out);

/* "name_component_target" into out; returns its length or -ENAMETOOLONG. */
int rk_artifact_stem(const struct rk_artifact_name *a, char *out, size_t n);

/* True for one of TheRock's six components (lib run dbg dev doc test). */
int rk_component_is_standard(const char *component);

/* True for "{digits}-{lowercase letters}", TheRock's run directory names, and
 * "local-{lowercase letters}" (its local staging directory, WorkflowOutputRoot.for_local). */
int rk_run_name_valid(const char *name);

#endif
