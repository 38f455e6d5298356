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
/* vfs_flatten for dist/ (not a release): an artifact damaged for good (a failure that
 * stays, not a network one) does not fail the tree. Its files read before the damage
 * are placed as any (each fails with EIO on open); when its archive could not be read to
 * its end, root's listing ends in EIO (node.incomplete). damaged receives one line per
 * damaged artifact, "file<TAB>cause<TAB>what is listed" ("" when none). A gfx target
 * tree of a legacy run (made by the kpack split) still fails as a whole. */
int vfs_flatten_damaged(struct rk_vfs *v, struct run *r, const char *x, struct node *root,
			char **conflicts, unsigned *nconflicts, char **damaged, struct rk_err *err);
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
