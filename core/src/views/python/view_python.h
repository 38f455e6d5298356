/* view_python.h: the python view's own parts (view_python.c, the index; view_python_synth.c,
 * the packages TheRock would build from the run's artifacts; view_python_split.c, the kpack
 * split of stored fat wheels). Nothing outside these three files includes it. */
#ifndef RK_VIEW_PYTHON_H
#define RK_VIEW_PYTHON_H

#include "engine/vfs_int.h"
#include "rk/buf.h"
#include "rk/cache.h"
#include "services/wheel.h"

struct rk_composite;
struct pyset;

/* The view's state for one run (*vfs_view_state). */
struct pystate {
	struct pyset *set; /* the packages of python/, once populated (view_python.c) */
	struct artifact **wheels; /* stored fat wheels split (view_python_split.c), owned */
	size_t nwheels;
	struct artifact **made; /* the synthesized wheels' pymade origins, owned */
	size_t nmade;
};
/* Free the split wheels' artifacts of ps (after the inodes). */
void vfs_python_split_free(struct pystate *ps);

/* view_python_synth.c: */
/* Append run r's synthesized packages to out (none for runs without a usable manifest
 * version). A package that cannot be built is left out with a log line; only -ENOMEM
 * and network failures fail the call. Ingests the artifacts it needs. */
int vfs_python_synth(struct rk_vfs *v, struct run *r, struct pysynth_set *out, struct rk_err *err);
/* Append the kpack split of the run's stored fat libraries wheels (view_python_split.c):
 * rocm-sdk-libraries and rocm-sdk-device-<target>, from st[0..n) (the stored wheels whose
 * METADATA reads). A wheel that cannot be split is left out with a log line; only -ENOMEM
 * and transient failures (rk_err_transient) fail the call. */
struct pystored {
	const char *file, *path, *rel; /* file name, store path, path below python/ */
	uint64_t size;
	int64_t mtime, mtime_ns;
};
int vfs_python_split(struct rk_vfs *v, struct run *r, struct pystate *ps, const struct pystored *st,
		     size_t n, struct pysynth_set *out, struct rk_err *err);

/* The view's options and config (py_options.c): one int, wheel_compression=deflate. */
enum { PY_NOPTS = 1 };
extern const struct rk_vfs_opt_decl py_opts[PY_NOPTS];
int py_config(const char *const *vals, const char *const *labels, void **cfg, struct rk_err *err);

#endif
