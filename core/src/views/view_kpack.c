/* view_kpack.c: RUN/kpack/, the run's artifacts split per GPU arch as rocm-kpack's
 * split_artifacts does (the split itself is the service in kpack_split.c).
 *
 * For a legacy run: the outputs of every non-generic artifact, the generic output of
 * each <P> taken from its first family in name order (the primary shard of
 * recombine_artifacts) and each arch from the first family that has it; with a
 * selection (rk/kpack_view.h: rockpack split naming artifacts), of the selected artifacts
 * only, no other archive ingested. For a kpack-split run: the stored split artifacts, as
 * links into browse/. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rk/log.h"
#include "engine/vfs_int.h"
#include "services/flatten.h"
#include "services/kpack_split.h"

/* Whether artifact a (not generic) is split: all of them, or the selected ones. */
static int splits(const struct rk_vfs *v, const struct artifact *a)
{
	if (strcmp(a->art->an.target, "generic") == 0)
		return 0;
	return vfs_kpack_selected(v, a->art->stem);
}

/* List split output o in root (the kpack directory being built). */
static int link_out(struct node *root, struct artifact *o)
{
	if (vfs_dent_find(root, o->art->stem))
		return 0; /* an earlier family has it */
	return vfs_dent_add(root, o->art->stem, o->root);
}

static int pop_kpack(struct rk_vfs *v, struct node *kd, struct rk_err *err)
{
	struct run *r = vfs_node_run(kd);
	struct node *root = vfs_tree_new(kd->name, kd->mode, kd->mtime);
	int rc = root ? 0 : -ENOMEM, g;

	if (!rc && vfs_run_is_split(v, r)) {
		/* the stored split artifacts */
		for (size_t i = 0; !rc && i < r->cat->narts; i++) {
			struct node *n =
				vfs_node_add(root, r->cat->arts[i].stem, S_IFLNK | 0777, kd->mtime);

			if (!n || asprintf(&n->data, "../browse/%s", r->cat->arts[i].stem) < 0)
				rc = -ENOMEM;
			else
				n->size = strlen(n->data);
		}
		g = vfs_graft(v, kd, root);
		return rc ? rc : g;
	}
	/* ingest every artifact to split at once (in parallel, jobs at a time); a failed
	 * one is reported by its split below */
	struct artifact **as = calloc(r->cat->narts + 1, sizeof(*as));
	size_t nas = 0;

	if (!as || !root) {
		free(as);
		vfs_tree_free(root);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->cat->narts; i++)
		if (splits(v, &r->artifacts[i]))
			as[nas++] = &r->artifacts[i];
	vfs_artifacts_wait(v, as, nas, NULL);
	/* a transient failure (disk full) of any split fails the listing before anything is
	 * listed, and the next access makes it again: never a listing with less than it
	 * would have (the splits that worked are kept by their artifacts) */
	for (size_t i = 0; i < nas; i++) {
		struct artifact **outs;
		size_t n;

		if (rk_err_transient(rc = vfs_kpack_split(v, as[i], NULL, 0, &outs, &n, err))) {
			free(as);
			vfs_tree_free(root);
			return rc;
		}
	}
	rk_err_clear(err);
	rc = 0;
	free(as);
	for (size_t i = 0; rc != -ENOMEM && i < r->cat->narts; i++) {
		struct artifact *a = &r->artifacts[i], **outs;
		size_t n;
		struct rk_err e = RK_ERR_INIT;

		if (!splits(v, a))
			continue;
		if ((rc = vfs_kpack_split(v, a, NULL, 0, &outs, &n, &e))) {
			/* (an archive that failed was logged by its ingest) */
			rk_info("'%s': not split: %s", a->art->stem, rk_err_str(&e, rc));
			continue; /* the other artifacts still split */
		}
		for (size_t j = 0; !rc && j < n; j++)
			rc = link_out(root, outs[j]);
	}
	(void)err;
	/* graft even after a failure: the outputs linked into root belong to their split,
	 * and the graft (serving them) is what frees root */
	g = vfs_graft(v, kd, root);
	return rc == -ENOMEM ? rc : g;
}

/* Its lines in the mount's README. */
static const char readme[] =
	"  <run>/kpack/           the run's artifacts split per GPU arch (rocm-kpack's\n"
	"                         split_artifacts): <name>_<comp>_generic with host code,\n"
	"                         <name>_<comp>_<arch> with .kpack archives and databases\n";

const struct vfs_view vfs_view_kpack = {
	.name = "kpack",
	.readme = readme,
	.shown = vfs_run_has_artifacts,
	.populate = pop_kpack,
};
