/* pkg_artifacts.c: the artifacts of a run the packages view plans over
 * (view_packages.c): which the definitions select, read only those, and what to tell the
 * rules of a damaged one. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/vfs_int.h"
#include "formats/packages/pkg_rules.h"
#include "services/kpack_split.h"
#include "views/packages/packages.h"

/* "subdir/", or NULL. */
static char *dir_line(const char *subdir)
{
	char *s;

	return asprintf(&s, "%s/", subdir) < 0 ? NULL : s;
}

int pkg_def_selects(const struct pkg_def *def, const struct rk_artifact *a)
{
	for (size_t k = 0; k < def->nitems; k++) {
		const struct pkg_item *it = &def->items[k];

		if (strcmp(it->artifact, a->an.name))
			continue;
		for (size_t j = 0; j < it->nsubdirs; j++)
			for (size_t c = 0; c < it->subdirs[j].ncomponents; c++)
				if (!strcmp(it->subdirs[j].components[c], a->an.component))
					return 1;
	}
	return 0;
}

int pkg_selects(const struct pkg_defs *d, const struct rk_artifact *a)
{
	for (size_t i = 0; i < d->n; i++)
		if (!d->defs[i].disabled && pkg_def_selects(&d->defs[i], a))
			return 1;
	return 0;
}

static int push(struct artifact ***v, size_t *n, struct artifact *a)
{
	struct artifact **nv = realloc(*v, (*n + 2) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[(*n)++] = a;
	return 0;
}

/* packages.h */
int pkg_artifacts(struct rk_vfs *v, struct run *r, const struct pkg_defs *d, int *kpack,
		  struct artifact ***out, size_t *n)
{
	struct artifact **as = NULL;
	size_t na = 0, first;
	int rc = 0, split = !*kpack && pkg_cfg(v)->multiarch;

	size_t nsel = 0;

	for (size_t i = 0; !rc && i < r->cat->narts; i++)
		rc = push(&as, &na, &r->artifacts[i]);
	/* the selected ones first, waited on all at once (failures: the caller) */
	for (size_t i = 0; !rc && i < na; i++)
		if (pkg_selects(d, as[i]->art)) {
			struct artifact *t = as[nsel];

			as[nsel++] = as[i];
			as[i] = t;
		}
	if (!rc)
		(void)vfs_artifacts_wait(v, as, nsel, NULL);
	if (rc || !split) {
		*out = as;
		*n = na;
		return rc;
	}
	first = na;
	for (size_t i = 0; !rc && i < first; i++) {
		struct artifact *a = as[i], **outs;
		struct rk_err local = RK_ERR_INIT;
		size_t nouts;

		if (!strcmp(a->art->an.target, "generic") || !pkg_selects(d, a->art))
			continue;
		int f = vfs_artifacts_wait(v, &a, 1, NULL);

		if (!f)
			f = vfs_kpack_split(v, a, NULL, 0, &outs, &nouts, &local);
		if (rk_err_transient(f)) {
			rc = f;
			break;
		}
		if (f) {
			rc = push(&as, &na, a); /* left out below, with its packages */
			rk_err_clear(&local);
			continue;
		}
		for (size_t j = 0; !rc && j < nouts; j++) {
			const struct rk_artifact_name *o = &outs[j]->art->an;
			int dup = 0;

			for (size_t k = first; !dup && k < na; k++)
				dup = !strcmp(as[k]->art->an.name, o->name) &&
				      !strcmp(as[k]->art->an.component, o->component) &&
				      !strcmp(as[k]->art->an.target, o->target);
			if (!dup)
				rc = push(&as, &na, outs[j]);
		}
	}
	if (rc) {
		free(as);
		return rc;
	}
	/* the generic artifacts, then the outputs (and the family artifacts that failed) */
	*n = 0;
	for (size_t i = 0; i < na; i++)
		if (i >= first || !strcmp(as[i]->art->an.target, "generic"))
			as[(*n)++] = as[i];
	*out = as;
	*kpack = 1;
	return 0;
}

/* packages.h */
int pkg_guess_lines(const struct pkg_defs *d, const struct rk_artifact *a, struct pkg_list *out)
{
	for (size_t i = 0; i < d->n; i++)
		for (size_t k = 0; k < d->defs[i].nitems; k++) {
			const struct pkg_item *it = &d->defs[i].items[k];

			if (strcmp(it->artifact, a->an.name))
				continue;
			for (size_t j = 0; j < it->nsubdirs; j++)
				for (size_t c = 0; c < it->subdirs[j].ncomponents; c++) {
					char **nv;

					if (strcmp(it->subdirs[j].components[c], a->an.component))
						continue;
					if (!(nv = realloc(out->v, (out->n + 1) * sizeof(*nv))))
						return -ENOMEM;
					out->v = nv;
					if (!(nv[out->n] = dir_line(it->subdirs[j].name)))
						return -ENOMEM;
					out->n++;
				}
		}
	return 0;
}
