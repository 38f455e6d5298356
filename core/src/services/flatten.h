/* flatten.h: TheRock's flatten of a run's artifacts into one install tree
 * (therock-formats.md section 2), a service of the views (services/flatten.c). */
#ifndef RK_SERVICES_FLATTEN_H
#define RK_SERVICES_FLATTEN_H

#include "engine/vfs_int.h"

/* Whether run r is kpack-split (manifest flag, else guessed from its names). */
int vfs_run_is_split(struct rk_vfs *v, struct run *r);
/* The names of run r's dist trees (release: the release tarball names instead). */
int vfs_dist_names(struct rk_vfs *v, struct run *r, int release, char ***names, size_t *n);
/* Flatten the artifacts of r selected for x into private root (release: without the test
 * component and fftw3, as build_tarballs.py does). Ingests what it needs. conflicts
 * (when not NULL) receives the list of paths two artifacts wrote differently. */
int vfs_flatten(struct rk_vfs *v, struct run *r, const char *x, int release, struct node *root,
		char **conflicts, unsigned *nconflicts, struct rk_err *err);
/* Flatten the artifacts as[0..n) (any set; ingested here, sorted into flatten order) into
 * private root. */
int vfs_flatten_artifacts(struct rk_vfs *v, struct artifact **as, size_t n, struct node *root,
			  struct rk_err *err);

/* A stage directory: line `prefix` of artifact a's manifest. */
struct vfs_stage {
	struct artifact *a;
	size_t prefix;
};
/* Copy the contents of each stage directory (everything below it, as TheRock's packaging
 * copies them: shutil.copytree) into private directory root, in order; later copies
 * replace earlier files. The artifacts must be ingested (vfs_artifacts_wait). */
int vfs_flatten_stages(struct rk_vfs *v, const struct vfs_stage *st, size_t n, struct node *root,
		       struct rk_err *err);

#endif
