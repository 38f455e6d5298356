/* wheel_plan.h: the python view's pure planning (wheel_plan.c): which run artifacts go
 * into which synthesized package (therock-formats.md 6.2), which of their files its wheel
 * holds, the RPATH entries its programs get, its console scripts and names. No I/O, no
 * tree: names in, decisions out (tests/unit/test_wheel_plan.c). */
#ifndef RK_VIEW_PYTHON_WHEEL_PLAN_H
#define RK_VIEW_PYTHON_WHEEL_PLAN_H

#include <stddef.h>

#include "rk/buf.h"

enum pkg_kind { PKG_CORE, PKG_LIBRARIES, PKG_DEVICE, PKG_DEVEL, PKG_PROFILER };

/* Whether the artifact name_component_atarget goes into package kind p of a run
 * (split: kpack-split; family: a legacy libraries/devel wheel's family; target: a device
 * wheel's base target). 6.2. */
int pyplan_wanted(const char *name, const char *comp, const char *atarget, int p, int split,
		  const char *family, const char *target);
/* Whether path rel (below the flattened tree; is_dir: a directory) is left out of runtime
 * wheel kind: the core wheel's cmake directories and profiler files, everything but the
 * profiler's files in the profiler wheel. */
int pyplan_excluded(int kind, const char *rel, int is_dir);
/* build_python_packages.py's rpath_dep(core, ...) entries of package kind
 * (NULL-terminated), or NULL (the devel wheel). */
const char *const *pyplan_rpath(int kind);
/* Whether rel matches one of globs (NULL-terminated; "*" and "**" cross "/"). */
int pyplan_glob_any(const char *const *globs, const char *rel);
/* Names upstream's get_file_type never takes for a program or a library. */
int pyplan_not_a_program(const char *rel);
/* The relative path from directory `from` (a path below the root, "" for the root) to
 * `to`, in out[n]: "../" for each component of `from` past their common directories. */
void pyplan_relpath(const char *from, const char *to, char *out, size_t n);
/* Only what can sit in a Python string literal and a file name unquoted. */
int pyplan_plain_word(const char *w);
/* entry_points.txt of the core or profiler wheel (platform: its platform directory) in b:
 * the console scripts of TheRock's setup.py whose program has_program(ctx, member path)
 * says the wheel holds as an executable; b stays empty when it holds none. 0 or -ENOMEM. */
int pyplan_entry_points(int kind, const char *platform,
			int (*has_program)(void *ctx, const char *member), void *ctx,
			struct rk_buf *b);
/* A runtime wheel's names (core, profiler, libraries[-family]): its distribution
 * ("rocm-sdk-core"), pure package ("rocm_sdk_core") and platform package
 * ("_rocm_sdk_core"). */
struct pyplan_names {
	char dist[160], pure[160], platform[160];
};
void pyplan_names(int kind, const char *family, struct pyplan_names *n);

#endif
