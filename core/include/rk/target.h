/* rk/target.h: AMDGPU target IDs (kpack-format.md sections 5.4, 6 and 7).
 *
 * A target ID is "<processor>(:<feature>(+|-))*", e.g. "gfx90a:sramecc+:xnack-". The
 * canonical form lists features sorted by name (sramecc before xnack); an omitted
 * feature means "any". Code objects are AMDGPU ELF files whose e_machine/e_flags name
 * their target. */
#ifndef RK_TARGET_H
#define RK_TARGET_H

#include <stddef.h>

#include "rk/err.h"

#define RK_TARGET_MAX 64 /* longest target ID + NUL */

/* Canonicalize a target ID: -EINVAL when malformed (bad processor, unknown syntax, a
 * feature given twice, too long). */
int rk_target_canon(const char *id, char out[RK_TARGET_MAX]);

/* The processor part ("gfx942:xnack+" -> "gfx942"). */
void rk_target_processor(const char *id, char out[RK_TARGET_MAX]);

/* 1 when a code object built for co can run on a device whose full target is dev: same
 * processor, and every feature co names is named by dev with the same value. */
int rk_target_compatible(const char *co, const char *dev);

/* The names the runtime tries for a device target, most specific first: the target
 * itself, then each subset of its features (kpack-format.md section 6, step 2c). An
 * "amdgcn-amd-amdhsa--" prefix is dropped. Returns the count (<= max), or -EINVAL. */
int rk_target_candidates(const char *dev, char out[][RK_TARGET_MAX], size_t max);

/* CLR's generic processor for a processor ("gfx942" -> "gfx9-4-generic"), or NULL. */
const char *rk_target_generic(const char *processor);

/* The canonical target ID of the AMDGPU code object p[0..n) from its ELF header
 * (e_machine 224, e_flags mach and feature bits, code object V2..V6). -EINVAL with a
 * message for anything else (not ELF, not AMDGPU, unknown mach, truncated). */
int rk_codeobj_target(const void *p, size_t n, char out[RK_TARGET_MAX], struct rk_err *err);

#endif
