/* view_dist.c: RUN/dist/<X>, one flattened install tree per GPU family or target (the
 * flatten service, flatten.c, says which names and what each holds), and
 * RUN/dist/.rockfs/<X>.conflicts, the paths two artifacts wrote differently. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rk/log.h"
#include "vfs_int.h"

#define NOTES_DIR ".rockfs"

static int pop_dist(struct rk_vfs *v, struct node *dir, struct rk_err *err);
static int pop_notes(struct rk_vfs *v, struct node *notes, struct rk_err *err);

static int pop_dists(struct rk_vfs *v, struct node *dir, struct rk_err *err)
{
	struct run *r = vfs_node_run(dir);
	char **names = NULL;
	size_t n = 0;
	int rc = vfs_dist_names(v, r, 0, &names, &n);

	(void)err;
	if (rc)
		return rc;
	pthread_rwlock_wrlock(&v->tree);
	for (size_t i = 0; !rc && i < n; i++) {
		struct node *d = vfs_lazy_dir(v, dir, names[i], pop_dist, dir->mtime);

		if (d)
			d->mode =
				S_IFDIR | 0755; /* the root of an install tree, as mkdir makes it */
		else
			rc = -ENOMEM;
	}
	if (!rc && n && !vfs_lazy_dir(v, dir, NOTES_DIR, pop_notes, dir->mtime))
		rc = -ENOMEM;
	pthread_rwlock_unlock(&v->tree);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

static int pop_dist(struct rk_vfs *v, struct node *dir, struct rk_err *err)
{
	struct run *r = vfs_node_run(dir);
	unsigned nconflicts = 0;
	char *conflicts = NULL;
	int rc = vfs_flatten(v, r, dir->name, 0, dir, &conflicts, &nconflicts, err);

	if (rc)
		return rk_err_wrap(err, rc, "dist");
	pthread_rwlock_wrlock(&v->tree);
	dir->data = conflicts; /* the list waits here for RUN/dist/.rockfs */
	pthread_rwlock_unlock(&v->tree);
	if (nconflicts)
		rk_warn("run '%s': dist '%s': %u paths written by two artifacts with different "
			"content (the later wins); see dist/" NOTES_DIR "/%s.conflicts",
			r->cat->name, dir->name, nconflicts, dir->name);
	return 0;
}

static int pop_notes(struct rk_vfs *v, struct node *notes, struct rk_err *err)
{
	struct node *dists = notes->parent;
	int rc = 0;

	for (size_t i = 0; !rc && i < dists->nents; i++) {
		struct node *d = dists->order[i]->node;
		char name[300];
		struct node *n;

		if (d->pop != pop_dist)
			continue;
		if ((rc = vfs_populate(v, d, err)))
			break;
		snprintf(name, sizeof(name), "%s.conflicts", d->name);
		pthread_rwlock_wrlock(&v->tree);
		n = vfs_node_add(v, notes, name, S_IFREG | 0444, notes->mtime);
		if (!n || !(n->data = strdup(d->data ? d->data : "")))
			rc = -ENOMEM;
		else {
			n->src = SRC_BYTES;
			n->size = strlen(n->data);
		}
		pthread_rwlock_unlock(&v->tree);
	}
	return rc;
}

static int shown(const struct rk_run *cat)
{
	return cat->narts > 0;
}

const struct vfs_view vfs_view_dist = {
	.name = "dist",
	.readme = "  <run>/dist/<X>/        one flattened install tree (TheRock's artifact flatten)\n"
		  "                         per GPU family or target X, and multiarch for kpack-split\n"
		  "                         runs; paths two artifacts wrote differently are listed in\n"
		  "                         <run>/dist/.rockfs/<X>.conflicts\n",
	.shown = shown,
	.populate = pop_dists,
};
