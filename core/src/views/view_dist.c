/* view_dist.c: RUN/dist/<X>, one flattened install tree per GPU family or target (the
 * flatten service, flatten.c, says which names and what each holds), and
 * RUN/dist/.rockfs/<X>.conflicts, the paths two artifacts wrote differently, and
 * <X>.damaged, the artifacts of <X> that cannot be read (their files are listed and fail
 * with EIO; the rest of the tree is served). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rk/log.h"
#include "engine/vfs_int.h"
#include "services/flatten.h"

#define NOTES_DIR ".rockfs"

/* The view's state for a run: each tree's conflict list, once flattened. */
struct dist_state {
	pthread_mutex_t lock;
	struct conflicts {
		char *name, *text, *damaged;
	} * v;
	size_t n;
};

/* Its lines in the mount's README. */
static const char readme[] =
	"  <run>/dist/<X>/        one flattened install tree (TheRock's artifact flatten)\n"
	"                         per GPU family or target X, and multiarch for kpack-split\n"
	"                         runs; paths two artifacts wrote differently are listed in\n"
	"                         <run>/dist/.rockfs/<X>.conflicts; artifacts that cannot be\n"
	"                         read are listed in <run>/dist/.rockfs/<X>.damaged (their\n"
	"                         files are listed and fail with EIO)\n";

extern const struct vfs_view vfs_view_dist;

static int pop_dist(struct rk_vfs *v, struct node *dir, struct rk_err *err);
static int pop_notes(struct rk_vfs *v, struct node *notes, struct rk_err *err);

static int pop_dists(struct rk_vfs *v, struct node *dir, struct rk_err *err)
{
	struct run *r = vfs_node_run(dir);
	void **slot = vfs_view_state(r, &vfs_view_dist);
	struct dist_state *ds = calloc(1, sizeof(*ds));
	struct node *root =
		vfs_tree_new(vfs_node_name(dir), vfs_node_mode(dir), vfs_node_mtime(dir));
	char **names = NULL;
	size_t n = 0;
	int rc = ds && root ? vfs_dist_names(v, r, 0, &names, &n) : -ENOMEM;

	(void)err;
	for (size_t i = 0; !rc && i < n; i++) {
		struct node *d = vfs_lazy_dir(root, names[i], pop_dist, vfs_node_mtime(dir));

		if (d)
			vfs_node_set_mode(d, S_IFDIR | 0755); /* the root of an install tree, as
							       * mkdir makes it */
		else
			rc = -ENOMEM;
	}
	if (!rc && n && !vfs_lazy_dir(root, NOTES_DIR, pop_notes, vfs_node_mtime(dir)))
		rc = -ENOMEM;
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (rc) {
		vfs_tree_free(root);
		free(ds);
		return rc;
	}
	pthread_mutex_init(&ds->lock, NULL);
	*slot = ds; /* populated once per run: nothing else sets it */
	return vfs_graft(v, dir, root);
}

/* Keep tree name's conflict list and damaged list (both taken over). */
static int keep_conflicts(struct dist_state *ds, const char *name, char *text, char *damaged)
{
	struct conflicts *nv;
	int rc = 0;

	pthread_mutex_lock(&ds->lock);
	if ((nv = realloc(ds->v, (ds->n + 1) * sizeof(*nv))) && (nv[ds->n].name = strdup(name))) {
		nv[ds->n].damaged = damaged;
		nv[ds->n++].text = text;
		text = damaged = NULL;
	} else {
		rc = -ENOMEM;
	}
	if (nv)
		ds->v = nv;
	pthread_mutex_unlock(&ds->lock);
	free(text);
	free(damaged);
	return rc;
}

/* Tree name's conflict list (or with damaged, its damaged list): a copy, or NULL (ENOMEM,
 * or not flattened). */
static char *get_conflicts(struct dist_state *ds, const char *name, int damaged)
{
	char *text = NULL;

	pthread_mutex_lock(&ds->lock);
	for (size_t i = 0; i < ds->n; i++)
		if (!strcmp(ds->v[i].name, name)) {
			const char *t = damaged ? ds->v[i].damaged : ds->v[i].text;

			text = strdup(t ? t : "");
			break;
		}
	pthread_mutex_unlock(&ds->lock);
	return text;
}

static int pop_dist(struct rk_vfs *v, struct node *dir, struct rk_err *err)
{
	struct run *r = vfs_node_run(dir);
	struct dist_state *ds = *vfs_view_state(r, &vfs_view_dist);
	struct node *root =
		vfs_tree_new(vfs_node_name(dir), vfs_node_mode(dir), vfs_node_mtime(dir));
	unsigned nconflicts = 0;
	char *conflicts = NULL, *damaged = NULL;
	int rc = root ? vfs_flatten_damaged(v, r, vfs_node_name(dir), root, &conflicts, &nconflicts,
					    &damaged, err)
		      : -ENOMEM;

	if (rc) {
		vfs_tree_free(root);
		return rk_err_wrap(err, rc, "dist");
	}
	/* a damaged artifact was logged once, when it failed: its files fail here, and
	 * .rockfs/<X>.damaged says why */
	if ((rc = keep_conflicts(ds, vfs_node_name(dir), conflicts, damaged)) ||
	    (rc = vfs_graft(v, dir, root)))
		return rc;
	if (nconflicts)
		rk_warn("run '%s': dist '%s': %u paths written by two artifacts with different "
			"content (the later wins); see dist/" NOTES_DIR "/%s.conflicts",
			r->cat->name, vfs_node_name(dir), nconflicts, vfs_node_name(dir));
	return 0;
}

/* RUN/dist/.rockfs/: flattens every tree for its list. The directory RUN/dist/ is
 * populated (its entries no longer change). */
static int pop_notes(struct rk_vfs *v, struct node *notes, struct rk_err *err)
{
	struct node *dists = vfs_node_parent(notes);
	struct dist_state *ds = *vfs_view_state(vfs_node_run(notes), &vfs_view_dist);
	struct node *root =
		vfs_tree_new(vfs_node_name(notes), vfs_node_mode(notes), vfs_node_mtime(notes));
	int rc = root ? 0 : -ENOMEM;

	for (size_t i = 0; !rc && i < vfs_dir_count(dists); i++) {
		struct node *d = vfs_dir_node(dists, i);
		char name[300];
		struct node *n;

		if (vfs_node_pop(d) != pop_dist)
			continue;
		if ((rc = vfs_populate(v, d, err)))
			break;
		for (int damaged = 0; !rc && damaged < 2; damaged++) {
			char *text = get_conflicts(ds, vfs_node_name(d), damaged);

			if (text && damaged && !text[0]) {
				free(text); /* nothing damaged: no file */
				continue;
			}
			snprintf(name, sizeof(name), "%s.%s", vfs_node_name(d),
				 damaged ? "damaged" : "conflicts");
			n = text ? vfs_bytes_adopt(root, name, S_IFREG | 0444,
						   vfs_node_mtime(notes), text, strlen(text))
				 : NULL;
			if (!n)
				rc = -ENOMEM;
		}
	}
	if (rc) {
		vfs_tree_free(root);
		return rc;
	}
	return vfs_graft(v, notes, root);
}

static void dist_free(void *state)
{
	struct dist_state *ds = state;

	for (size_t i = 0; i < ds->n; i++) {
		free(ds->v[i].name);
		free(ds->v[i].text);
		free(ds->v[i].damaged);
	}
	free(ds->v);
	pthread_mutex_destroy(&ds->lock);
	free(ds);
}

const struct vfs_view vfs_view_dist = {
	.name = "dist",
	.readme = readme,
	.shown = vfs_run_has_artifacts,
	.populate = pop_dists,
	.free = dist_free,
};
