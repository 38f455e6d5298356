/* catalog.c: parse one run directory listing into artifacts and targets (rk/catalog.h).
 * Uses the public store API (rk/store.h) and artifact names (formats/therock/artifact_name.c);
 * nothing in store/ calls it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk/buf.h"
#include "rk/catalog.h"
#include "rk/hash.h"
#include "util/array.h"

int rk_listing_has_artifacts(const struct rk_store_list *l)
{
	struct rk_artifact_name an;

	for (size_t i = 0; i < l->n; i++)
		if (!l->v[i].is_dir && !rk_artifact_name_parse(l->v[i].name, &an))
			return 1;
	return 0;
}

static int cmp_stem(const void *a, const void *b)
{
	return strcmp(((const struct rk_artifact *)a)->stem, ((const struct rk_artifact *)b)->stem);
}

static int add_target(struct rk_run *r, const char *t)
{
	char **v;

	for (size_t i = 0; i < r->ntargets; i++)
		if (!strcmp(r->targets[i], t))
			return 0;
	v = realloc(r->targets, (r->ntargets + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	r->targets = v;
	if (!(v[r->ntargets] = strdup(t)))
		return -ENOMEM;
	r->ntargets++;
	return 0;
}

int rk_run_load(struct rk_store *s, const char *path, const char *name, struct rk_run **out,
		struct rk_err *err)
{
	struct rk_store_list sub = {0};
	struct rk_run *r = calloc(1, sizeof(*r));
	struct rk_buf mpath = RK_BUF_INIT;
	int rc;

	if (!r || !(r->name = strdup(name)) || !(r->path = strdup(path))) {
		rc = -ENOMEM;
		goto fail;
	}
	if ((rc = rk_store_list(s, path, &r->files, err)))
		goto fail;
	r->arts = calloc(r->files.n + 1, sizeof(*r->arts));
	if (!r->arts) {
		rc = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < r->files.n; i++) {
		const struct rk_store_entry *f = &r->files.v[i];
		struct rk_artifact *a = &r->arts[r->narts];
		char stem[3 * RK_ARTIFACT_FIELD + 3], side[1024];

		if (f->is_dir) {
			if (!strcmp(f->name, "manifests"))
				r->has_manifest = 1;
			if (!strcmp(f->name, "python"))
				r->has_python = 1;
			continue;
		}
		/* f stays valid: directories are removed from the listing only below */
		if (rk_artifact_name_parse(f->name, &a->an))
			continue;
		if (a->an.compression == RK_COMP_XZ) {
			char zst[1024];

			snprintf(zst, sizeof(zst), "%.*s.tar.zst", (int)(strlen(f->name) - 7),
				 f->name);
			if (rk_store_list_find(&r->files, zst)) {
				memset(a, 0, sizeof(*a));
				continue; /* the .tar.zst twin wins; it sets has_xz_twin */
			}
		}
		rk_artifact_stem(&a->an, stem, sizeof(stem));
		snprintf(side, sizeof(side), "%s.sha256sum", f->name);
		a->file = strdup(f->name);
		a->stem = strdup(stem);
		if (rk_store_list_find(&r->files, side))
			a->sidecar = strdup(side);
		if (!a->file || !a->stem || (rk_store_list_find(&r->files, side) && !a->sidecar)) {
			r->narts++;
			rc = -ENOMEM;
			goto fail;
		}
		if (a->an.compression == RK_COMP_ZSTD) {
			char xz[1024];

			snprintf(xz, sizeof(xz), "%s.tar.xz", stem);
			a->has_xz_twin = rk_store_list_find(&r->files, xz) != NULL;
		}
		a->size = f->size;
		a->mtime_ns = f->mtime_ns;
		r->narts++;
		if ((rc = add_target(r, a->an.target)))
			goto fail;
	}
	/* regular files in r->files, folders in r->dirs (the contract of struct rk_run) */
	{
		size_t k = 0, nd = 0;

		for (size_t i = 0; i < r->files.n; i++)
			nd += r->files.v[i].is_dir != 0;
		if (nd && !(r->dirs.v = calloc(nd, sizeof(*r->dirs.v)))) {
			rc = -ENOMEM;
			goto fail;
		}
		for (size_t i = 0; i < r->files.n; i++) {
			if (r->files.v[i].is_dir)
				r->dirs.v[r->dirs.n++] = r->files.v[i];
			else
				r->files.v[k++] = r->files.v[i];
		}
		r->files.n = k;
	}
	if (r->narts)
		qsort(r->arts, r->narts, sizeof(*r->arts), cmp_stem);
	if (r->ntargets)
		qsort(r->targets, r->ntargets, sizeof(*r->targets), rk_cmp_str);
	if (r->has_manifest) {
		r->has_manifest = 0;
		if (!rk_buf_addf(&mpath, "%s%smanifests", path, path[0] ? "/" : "") &&
		    !rk_store_list(s, mpath.buf, &sub, NULL)) {
			const struct rk_store_entry *e = rk_store_list_find(&sub, "therock_manifest.json");

			r->has_manifest = e && !e->is_dir;
			rk_store_list_release(&sub);
		}
		rk_buf_release(&mpath);
	}
	*out = r;
	return 0;
fail:
	rk_run_free(r);
	return rc;
}

void rk_run_free(struct rk_run *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->narts; i++) {
		free(r->arts[i].file);
		free(r->arts[i].stem);
		free(r->arts[i].sidecar);
	}
	for (size_t i = 0; i < r->ntargets; i++)
		free(r->targets[i]);
	free(r->targets);
	free(r->arts);
	rk_store_list_release(&r->files);
	rk_store_list_release(&r->dirs);
	free(r->name);
	free(r->path);
	free(r);
}

int rk_run_same(const struct rk_run *a, const struct rk_run *b)
{
	if (a->files.n != b->files.n || a->has_manifest != b->has_manifest ||
	    a->has_python != b->has_python)
		return 0;
	for (size_t i = 0; i < a->files.n; i++) {
		const struct rk_store_entry *x = &a->files.v[i], *y = &b->files.v[i];

		if (strcmp(x->name, y->name) || x->size != y->size || x->mtime_ns != y->mtime_ns)
			return 0;
	}
	return 1;
}

int rk_run_has_dir(const struct rk_run *r, const char *name)
{
	const struct rk_store_entry *e = rk_store_list_find(&r->dirs, name);

	return e && e->is_dir;
}

const char *rk_run_platform(const struct rk_run *r)
{
	const char *dash = strrchr(r->name, '-');

	return dash ? dash + 1 : "linux";
}

/* The entries of directory path (depth levels at most below the run) onto *h. */
static int tree_sig(struct rk_store *s, const char *path, int depth, uint64_t *h,
		    struct rk_err *err)
{
	struct rk_store_list l = {0};
	struct rk_buf sub = RK_BUF_INIT;
	int rc = rk_store_list(s, path, &l, err);

	if (rc)
		return rc;
	for (size_t i = 0; !rc && i < l.n; i++) {
		const struct rk_store_entry *e = &l.v[i];

		*h = rk_fnv64(*h, e->name, strlen(e->name) + 1);
		*h = rk_fnv64(*h, &e->size, sizeof(e->size));
		*h = rk_fnv64(*h, &e->mtime_ns, sizeof(e->mtime_ns));
		*h = rk_fnv64(*h, &e->is_dir, sizeof(e->is_dir));
		if (!e->is_dir || !depth)
			continue;
		sub.len = 0;
		if (rk_buf_addf(&sub, "%s%s%s", path, path[0] ? "/" : "", e->name))
			rc = -ENOMEM;
		else
			rc = tree_sig(s, sub.buf, depth - 1, h, err);
	}
	rk_store_list_release(&l);
	rk_buf_release(&sub);
	return rc;
}

int rk_run_tree_sig(struct rk_store *s, const struct rk_run *r, uint64_t *sig, struct rk_err *err)
{
	uint64_t h = RK_FNV_SEED;
	int rc = tree_sig(s, r->path, 8, &h, err);

	if (!rc)
		*sig = h;
	return rc;
}

const struct rk_artifact *rk_run_find(const struct rk_run *r, const char *stem)
{
	struct rk_artifact key = {.stem = (char *)stem};

	return r->narts ? bsearch(&key, r->arts, r->narts, sizeof(key), cmp_stem) : NULL;
}
