/* flatten.c: TheRock's flatten of a run's artifacts into one install tree, a service of
 * the views (dist/, tarballs/, python/) (therock-formats.md section 2;
 * build_tools/_therock_utils/artifacts.py).
 *
 * Which names: a legacy run has one tree per artifact target (its families) and one per
 * gfx target of those families; a kpack-split run one per gfx target (base arch), one
 * per release family that has any of those targets, and "multiarch" (every artifact).
 * Tree <X> holds the artifacts whose target is "generic" or whose base arch belongs to X
 * (TheRock's fetch filter), every component, each member's manifest prefix dropped; a gfx
 * target of a legacy run flattens the generic artifacts with the outputs of the kpack
 * split of the family artifacts that hold it (kpack_split.c).
 *
 * Order, which decides "last writer wins": the generic artifacts first, then the others,
 * each group by artifact name (name_component_target) in byte order; members in archive
 * order. A path written by two artifacts with different content is a conflict: the
 * later one wins as in TheRock, and the caller gets the list (path, old and new
 * artifact, what), one line each.
 * Modes: a file keeps its member's mode as tar -x under umask 022 does (a stage copy,
 * for packaging, keeps it whole as copytree does), directories 0755, symlinks verbatim,
 * hardlinks kept as hardlinks. A finished tree of artifacts is confined
 * (services/confine.h): a symlink resolving above it is dropped. Stage copies are
 * confined by their caller (pkg_content.c: against the package set too).
 *
 * Uses the engine's tree and artifacts (engine/vfs_int.h) and the kpack split service. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk/buf.h"
#include "rk/gpu.h"
#include "rk/log.h"
#include "rk/manifest.h"
#include "formats/archive/tar_layout.h"
#include "engine/vfs_int.h"
#include "services/confine.h"
#include "services/flatten.h"
#include "services/kpack_split.h"
#include "util/array.h"

#define MULTIARCH "multiarch"

static int is_generic(const struct artifact *a)
{
	return !strcmp(a->art->an.target, "generic");
}

/* A kpack-split run, from its manifest; without one, from its names: split runs have only
 * single gfx targets, never families, as artifact targets. */
int vfs_run_is_split(struct rk_vfs *v, struct run *r)
{
	struct rk_manifest m;
	int split = 1;

	if (!vfs_run_manifest(v, r->dir, &m, NULL)) {
		split = m.kpack_split;
		rk_manifest_release(&m);
		return split;
	}
	for (size_t i = 0; i < r->cat->ntargets; i++) {
		char base[64];

		if (!strcmp(r->cat->targets[i], "generic"))
			continue;
		if (rk_gpu_base_arch(r->cat->targets[i], base, sizeof(base)) < 0 ||
		    !rk_gpu_target_find(base))
			split = 0;
	}
	return split && r->cat->ntargets > 1;
}

static int add_name(char ***v, size_t *n, const char *name)
{
	char **nv;

	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i], name))
			return 0;
	if (!(nv = realloc(*v, (*n + 1) * sizeof(*nv))))
		return -ENOMEM;
	*v = nv;
	return (nv[*n] = strdup(name)) ? (int)++*n * 0 : -ENOMEM;
}

/* Every gfx target of family f (of a legacy run). */
static int add_family_targets(char ***names, size_t *n, const char *f)
{
	size_t count;
	const struct rk_gpu_target *t = rk_gpu_targets(&count);
	int rc = 0;

	for (size_t i = 0; !rc && i < count; i++)
		if (rk_gpu_family_has(f, t[i].name))
			rc = add_name(names, n, t[i].name);
	return rc;
}

int vfs_dist_names(struct rk_vfs *v, struct run *r, int release, char ***out, size_t *count)
{
	int split = vfs_run_is_split(v, r), rc = 0;
	char **names = NULL, base[64];
	size_t n = 0;

	for (size_t i = 0; !rc && i < r->cat->ntargets; i++) {
		const char *t = r->cat->targets[i];

		if (!strcmp(t, "generic") || rk_gpu_base_arch(t, base, sizeof(base)) < 0)
			continue;
		/* release tarballs of a split run are per family (build_tarballs.py) */
		if (!(release && split))
			rc = add_name(&names, &n, base);
		/* a legacy run's families also split per target (kpack_split.c) */
		if (!rc && !split && !release)
			rc = add_family_targets(&names, &n, t);
		for (const char *const *f = rk_gpu_release_families(); split && !rc && *f; f++)
			if (rk_gpu_family_has(*f, t))
				rc = add_name(&names, &n, *f);
	}
	if (!rc && split && n)
		rc = add_name(&names, &n, MULTIARCH);
	if (n)
		qsort(names, n, sizeof(*names), rk_cmp_str);
	if (rc) {
		for (size_t i = 0; i < n; i++)
			free(names[i]);
		free(names);
		return rc;
	}
	*out = names;
	*count = n;
	return 0;
}

/* Whether artifact a goes into tree x. */
static int selected(const struct artifact *a, const char *x)
{
	return is_generic(a) || !strcmp(x, MULTIARCH) || rk_gpu_family_has(x, a->art->an.target);
}

/* Tree x of a legacy run where x is a gfx target, not one of the run's families: the
 * family artifacts that hold x are split (kpack_split.c). */
static int is_split_target(struct rk_vfs *v, struct run *r, const char *x)
{
	if (!rk_gpu_target_find(x) || vfs_run_is_split(v, r))
		return 0;
	for (size_t i = 0; i < r->cat->ntargets; i++)
		if (!strcmp(r->cat->targets[i], x))
			return 0;
	return 1;
}

/* The generic artifacts first, then the others, each by name (the flatten order). */
static int cmp_flatten_order(const void *x, const void *y)
{
	const struct artifact *a = *(struct artifact *const *)x, *b = *(struct artifact *const *)y;

	if (is_generic(a) != is_generic(b))
		return is_generic(b) - is_generic(a);
	return strcmp(a->art->stem, b->art->stem);
}

/* Replace the family artifacts in as[0..*n) by the outputs of their split that belong
 * in tree x: the generic output and the outputs whose base arch is x. Each <name>_
 * <component> is taken from its first family only. A family artifact damaged for good
 * (sort_damaged listed it) cannot be split: it stays, its files listed and failing. */
static int add_split_outputs(struct rk_vfs *v, struct artifact ***as, size_t *n, const char *x,
			     struct rk_err *err)
{
	size_t m = *n, cap = *n;
	struct artifact **v2 = NULL;
	int rc = 0;

	for (size_t i = 0; !rc && i < m; i++) {
		struct artifact *a = (*as)[i], **outs, *self[1] = {a};
		struct rk_err why = RK_ERR_INIT;
		size_t nouts;
		char base[64];
		int read_all;

		if (is_generic(a))
			continue;
		for (size_t j = 0; j < i; j++)
			if (!is_generic((*as)[j]) &&
			    !strcmp((*as)[j]->art->an.name, a->art->an.name) &&
			    !strcmp((*as)[j]->art->an.component, a->art->an.component))
				goto next; /* an earlier family has this one */
		if (vfs_artifact_damaged(v, a, &read_all, &why) == -EIO) {
			outs = self; /* not into *as: it may move below */
			nouts = 1;
		} else if ((rc = vfs_kpack_split(v, a, NULL, 0, &outs, &nouts, err))) {
			return rk_err_wrap(err, rc, "'%s'", a->art->stem);
		}
		for (size_t j = 0; !rc && j < nouts; j++) {
			if (!is_generic(outs[j]) && outs[j] != a &&
			    (rk_gpu_base_arch(outs[j]->art->an.target, base, sizeof(base)) < 0 ||
			     strcmp(base, x)))
				continue;
			if (*n == cap) {
				cap = cap * 2 + 8;
				if (!(v2 = realloc(*as, cap * sizeof(**as))))
					return -ENOMEM;
				*as = v2;
			}
			(*as)[(*n)++] = outs[j];
		}
	next:;
	}
	/* drop the family artifacts themselves */
	size_t k = 0;

	for (size_t i = 0; i < *n; i++)
		if (i >= m || is_generic((*as)[i]))
			(*as)[k++] = (*as)[i];
	*n = k;
	qsort(*as, *n, sizeof(**as), cmp_flatten_order);
	return rc;
}

/* Browse node -> dist node, for hardlinks within one artifact. */
struct linkmap {
	const struct node *from;
	struct node *to;
	UT_hash_handle hh;
};

struct flatten {
	struct rk_vfs *v;
	struct node *root; /* the tree's root */
	struct artifact *a;
	const char *prefix; /* the prefix being walked */
	size_t prefix_index;
	int whole; /* copy everything below the prefix (packaging), owned by it or not */
	struct rk_buf conflicts;
	unsigned nconflicts;
	struct linkmap *links;
	struct node **dead; /* files whose entry was replaced: freed at the end if unlisted */
	size_t ndead, capdead;
};

/* File n lost an entry. It may gain one again (a later hardlink of the same member), so
 * it is freed at the end of the flatten if none is left. */
static int unlinked(struct flatten *f, struct node *n)
{
	vfs_node_nlink_add(n, -1);
	if (RK_GROW(f->dead, f->capdead, f->ndead, 16))
		return -ENOMEM;
	f->dead[f->ndead++] = n;
	return 0;
}

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t) * (void *const *)a, y = (uintptr_t) * (void *const *)b;

	return x < y ? -1 : x > y;
}

static void bury(struct flatten *f)
{
	if (f->ndead)
		qsort(f->dead, f->ndead, sizeof(*f->dead), cmp_ptr);
	for (size_t i = 0; i < f->ndead; i++)
		if ((!i || f->dead[i] != f->dead[i - 1]) && !vfs_node_nlink(f->dead[i]))
			vfs_tree_free(f->dead[i]);
	free(f->dead);
}

static int conflict(struct flatten *f, const char *path, const struct node *old, const char *what)
{
	f->nconflicts++;
	return rk_buf_addf(&f->conflicts, "%s\t%s\t%s\t%s\n", path,
			   old && vfs_node_origin(old) ? vfs_node_origin(old)->art->stem : "-",
			   f->a->art->stem, what);
}

/* The dist directory for rel (created as needed); NULL if a non-directory is in the way
 * and could not be replaced. */
static struct node *dist_dir(struct flatten *f, struct node *parent, const char *name,
			     const char *rel, int64_t mtime)
{
	struct node *d = vfs_dent_find(parent, name);

	if (d && S_ISDIR(vfs_node_mode(d)))
		return d;
	if (d) {
		/* TheRock's mkdir fails here; a directory's contents matter more than the file */
		struct node *nd;

		if (conflict(f, rel, d, "directory replaces a file") ||
		    !(nd = vfs_node_new(parent, name, S_IFDIR | 0755, mtime)))
			return NULL;
		if (unlinked(f, d)) {
			vfs_tree_free(nd);
			return NULL;
		}
		vfs_dent_set(parent, name, nd);
		return nd;
	}
	return vfs_node_add(parent, name, S_IFDIR | 0755, mtime);
}

static int same_content(const struct node *x, const struct node *y)
{
	return vfs_node_same(x, y);
}

/* Place a copy of browse node b at parent/name (path rel, for messages). */
static int place(struct flatten *f, struct node *parent, const char *name, const char *rel,
		 const struct node *b)
{
	struct node *old = vfs_dent_find(parent, name), *n = NULL;
	struct linkmap *lm = NULL;

	if (old && S_ISDIR(vfs_node_mode(old)))
		return conflict(f, rel, old, "file dropped: a directory is there");
	if (vfs_node_nlink(b) > 1)
		HASH_FIND(hh, f->links, &b, sizeof(b), lm);
	if (lm) {
		n = lm->to; /* a hardlink: the same dist node again */
	} else {
		/* the member's mode as tar -x under umask 022 keeps it; packaging's copytree
		 * keeps it whole (dh_fixperms then applies its rules to a DEB) */
		uint32_t mode = S_ISLNK(vfs_node_mode(b))
					? S_IFLNK | 0777
					: S_IFREG | (vfs_node_mode(b) & (f->whole ? 0777 : 0755));

		if (!(n = vfs_node_new(parent, name, mode, vfs_node_mtime(b))))
			return -ENOMEM;
		vfs_node_set_origin(n, f->a);
		/* a rewritten host binary or a .kpack (kpack_split.c): its own composite */
		if (vfs_file_copy(n, b) ||
		    (vfs_node_nlink(b) > 1 && !(lm = calloc(1, sizeof(*lm))))) {
			vfs_tree_free(n);
			return -ENOMEM;
		}
		vfs_node_nlink_add(n, -1); /* counted as it is listed */
		if (lm) {
			lm->from = b;
			lm->to = n;
			HASH_ADD(hh, f->links, from, sizeof(lm->from), lm);
			if (rk_htab_oom()) {
				free(lm);
				vfs_tree_free(n);
				return -ENOMEM;
			}
		}
	}
	if (old == n)
		return 0; /* the same file again (one member under two prefixes) */
	if (old) {
		if ((!same_content(old, n) && conflict(f, rel, old, "different content")) ||
		    unlinked(f, old))
			return -ENOMEM;
		vfs_dent_set(parent, name, n);
	} else if (vfs_dent_add(parent, name, n)) {
		return -ENOMEM;
	}
	vfs_node_nlink_add(n, 1);
	return 0;
}

/* Flatten the browse subtree b (at member path mpath) into dist directory d (path rel). */
static int walk(struct flatten *f, const struct node *b, struct node *d, struct rk_buf *mpath,
		struct rk_buf *rel)
{
	size_t mlen = mpath->len, rlen = rel->len;
	int rc = 0;

	for (size_t i = 0; !rc && i < vfs_dir_count(b); i++) {
		const struct node *c = vfs_dir_node(b, i);
		const char *name = vfs_dir_name(b, i);

		if ((rc = rk_buf_addf(mpath, "/%s", name)) ||
		    (rc = rk_buf_addf(rel, "%s%s", rel->len ? "/" : "", name)))
			break;
		if (!f->whole && vfs_owning_prefix(f->a, mpath->buf) != f->prefix_index) {
			/* claimed by an earlier prefix of the manifest */
		} else if (S_ISDIR(vfs_node_mode(c))) {
			struct node *sub = dist_dir(f, d, name, rel->buf, vfs_node_mtime(c));

			rc = sub ? walk(f, c, sub, mpath, rel) : -ENOMEM;
		} else {
			rc = place(f, d, name, rel->buf, c);
		}
		mpath->len = mlen;
		mpath->buf[mlen] = '\0';
		rel->len = rlen;
		rel->buf[rlen] = '\0';
	}
	return rc;
}

static void forget_links(struct flatten *f)
{
	struct linkmap *lm, *tmp;

	HASH_ITER(hh, f->links, lm, tmp) {
		HASH_DEL(f->links, lm);
		free(lm);
	}
}

static int flatten_artifact(struct flatten *f, struct artifact *a)
{
	struct rk_buf mpath = RK_BUF_INIT, rel = RK_BUF_INIT;
	int rc = 0;

	f->a = a;
	for (size_t i = 0; !rc && i < a->nprefixes; i++) {
		const struct node *p = vfs_find_dir(a->root, a->prefixes[i]);

		if (!p)
			continue;
		f->prefix = a->prefixes[i];
		f->prefix_index = i;
		mpath.len = rel.len = 0;
		if (!(rc = rk_buf_adds(&mpath, a->prefixes[i])))
			rc = walk(f, p, f->root, &mpath, &rel);
	}
	forget_links(f);
	rk_buf_release(&mpath);
	rk_buf_release(&rel);
	return rc;
}

/* Flatten as[0..n) (ingested, in flatten order) into root (what: the tree's name, for
 * the log), then confine it (services/confine.h): a symlink that resolves above root is
 * dropped, with a line. */
static int flatten_list(struct rk_vfs *v, struct artifact **as, size_t n, struct node *root,
			const char *what, char **conflicts, unsigned *nconflicts)
{
	struct flatten f = {.v = v, .root = root, .conflicts = RK_BUF_INIT};
	int rc = 0;

	for (size_t i = 0; !rc && i < n; i++)
		rc = flatten_artifact(&f, as[i]);
	bury(&f);
	if (!rc && (rc = vfs_confine(root, NULL, what)) > 0)
		rc = 0;
	if (!rc && conflicts && !(*conflicts = rk_buf_detach(&f.conflicts, NULL)))
		rc = -ENOMEM;
	if (!rc && nconflicts)
		*nconflicts = f.nconflicts;
	rk_buf_release(&f.conflicts);
	return rc;
}

/* Of as[0..*n), keep the usable artifacts and those damaged for good (a failure that
 * stays): each of those gets a line in *damaged ("file<TAB>cause<TAB>what is listed"),
 * and *incomplete says which when its members could not all be read (malloc'd: the
 * first such artifact and its cause). A transient failure fails. */
static int sort_damaged(struct rk_vfs *v, struct artifact **as, size_t n, char **damaged,
			char **incomplete, struct rk_err *err)
{
	struct rk_buf b = RK_BUF_INIT;
	int rc = 0;

	for (size_t i = 0; !rc && i < n; i++) {
		struct rk_err why = RK_ERR_INIT;
		int read_all = 0, d = vfs_artifact_damaged(v, as[i], &read_all, &why);

		if (d == -EIO) {
			rc = rk_buf_addf(&b, "%s\t%s\t%s\n", as[i]->art->file, why.msg,
					 read_all ? "every file listed, each fails (EIO)"
						  : "files read before the damage listed, each "
						    "fails (EIO); the rest unknown: the tree's "
						    "listing ends in EIO");
			if (!rc && !read_all && !*incomplete &&
			    asprintf(incomplete, "artifact '%s' cannot be read to its end: %s",
				     as[i]->art->file, why.msg) < 0) {
				*incomplete = NULL;
				rc = -ENOMEM;
			}
		} else if (d) {
			rc = rk_err_set(err, d, "artifact '%s' is unusable: %s", as[i]->art->file,
					why.msg);
		}
	}
	if (!rc && !(*damaged = rk_buf_detach(&b, NULL)))
		rc = -ENOMEM;
	rk_buf_release(&b);
	return rc;
}

/* vfs_flatten, and with damaged (dist/) around damaged artifacts. */
static int flatten_tree(struct rk_vfs *v, struct run *r, const char *x, int release,
			struct node *root, char **conflicts, unsigned *nconflicts, char **damaged,
			struct rk_err *err)
{
	struct artifact **as = calloc(r->cat->narts + 1, sizeof(*as));
	int split_target = !release && is_split_target(v, r, x);
	size_t n = 0;
	char *incomplete = NULL;
	int rc;

	if (!as)
		return -ENOMEM;
	for (int generic = 1; generic >= 0; generic--)
		for (size_t i = 0; i < r->cat->narts; i++) {
			struct artifact *a = &r->artifacts[i];

			/* build_tarballs.py: --exclude-components=test --exclude-artifacts=fftw3 */
			if (release && (!strcmp(a->art->an.component, "test") ||
					!strcmp(a->art->an.name, "fftw3")))
				continue;
			if (is_generic(a) == generic &&
			    (split_target ? is_generic(a) || rk_gpu_family_has(a->art->an.target, x)
					  : selected(a, x)))
				as[n++] = a;
		}
	rc = vfs_artifacts_wait(v, as, n, err);
	if (rc == -EIO && damaged) {
		rk_err_clear(err);
		rc = sort_damaged(v, as, n, damaged, &incomplete, err);
	}
	if (!rc && split_target)
		rc = add_split_outputs(v, &as, &n, x, err);
	if (rc) {
		free(as);
		free(incomplete);
		return rk_err_wrap(err, rc, "'%s'", x);
	}
	rc = flatten_list(v, as, n, root, x, conflicts, nconflicts);
	vfs_node_set_incomplete(root, incomplete);
	free(as);
	return rc;
}

int vfs_flatten(struct rk_vfs *v, struct run *r, const char *x, int release, struct node *root,
		char **conflicts, unsigned *nconflicts, struct rk_err *err)
{
	return flatten_tree(v, r, x, release, root, conflicts, nconflicts, NULL, err);
}

int vfs_flatten_damaged(struct rk_vfs *v, struct run *r, const char *x, struct node *root,
			char **conflicts, unsigned *nconflicts, char **damaged, struct rk_err *err)
{
	*damaged = NULL;
	return flatten_tree(v, r, x, 0, root, conflicts, nconflicts, damaged, err);
}

int vfs_flatten_artifacts(struct rk_vfs *v, struct artifact **as, size_t n, struct node *root,
			  struct rk_err *err)
{
	int rc = vfs_artifacts_wait(v, as, n, err);

	if (!rc) {
		qsort(as, n, sizeof(*as), cmp_flatten_order);
		rc = flatten_list(v, as, n, root, vfs_node_name(root), NULL, NULL);
	}
	return rc;
}

int vfs_flatten_stages(struct rk_vfs *v, const struct vfs_stage *st, size_t n, struct node *root,
		       struct rk_err *err)
{
	struct flatten f = {.v = v, .root = root, .conflicts = RK_BUF_INIT, .whole = 1};
	struct rk_buf mpath = RK_BUF_INIT, rel = RK_BUF_INIT;
	int rc = 0;

	(void)err;
	for (size_t i = 0; !rc && i < n; i++) {
		struct artifact *a = st[i].a;
		const struct node *p;

		if (st[i].prefix >= a->nprefixes ||
		    !(p = vfs_find_dir(a->root, a->prefixes[st[i].prefix])))
			continue; /* upstream: "Directory does not exist", a warning */
		f.a = a;
		f.prefix = a->prefixes[st[i].prefix];
		f.prefix_index = st[i].prefix;
		mpath.len = rel.len = 0;
		if (!(rc = rk_buf_adds(&mpath, f.prefix)))
			rc = walk(&f, p, root, &mpath, &rel);
		forget_links(&f); /* hardlinks stay within one stage, as cp makes them */
	}
	bury(&f);
	rk_buf_release(&f.conflicts);
	rk_buf_release(&mpath);
	rk_buf_release(&rel);
	return rc;
}
