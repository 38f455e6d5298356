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

#include "rk/buf.h"
#include "rk/gpu.h"
#include "rk/log.h"
#include "engine/vfs_int.h"
#include "services/flatten.h"
#include "services/kpack_split.h"

/* The note listing the damaged artifacts, as dist/.rockfs/<X>.damaged: one line each,
 * "file<TAB>cause<TAB>what is listed"; only when one is. */
#define NOTE ".damaged"

/* Whether artifact a (not generic) is split: all of them, or the selected ones. */
static int splits(const struct rk_vfs *v, const struct artifact *a)
{
	if (strcmp(a->art->an.target, "generic") == 0)
		return 0;
	return vfs_kpack_selected(v, a->art->stem);
}

/* Whether artifacts a and b are families of one <name>_<component>. */
static int same_group(const struct artifact *a, const struct artifact *b)
{
	return !strcmp(a->art->an.name, b->art->an.name) &&
	       !strcmp(a->art->an.component, b->art->an.component);
}

/* The damaged artifact that output o (of a later family) may stand in for: an earlier
 * family of its group that failed for good (bad[i]) and would have given o's name first
 * (its generic output, or an arch of that family). NULL when there is none. */
static struct artifact *shadowed_by(struct run *r, const uint8_t *bad, const struct artifact *a,
				    const struct artifact *o)
{
	const char *t = o->art->an.target;

	for (struct artifact *d = r->artifacts; d < a; d++)
		if (bad[d - r->artifacts] && same_group(d, a) &&
		    (!strcmp(t, "generic") || rk_gpu_family_has(d->art->an.target, t)))
			return d;
	return NULL;
}

/* populate of an output a damaged family artifact would have given: fails with its
 * cause, every time (the damage stays). */
static int pop_damaged(struct rk_vfs *v, struct node *dir, struct rk_err *err)
{
	struct run *r = vfs_node_run(dir);

	for (size_t i = 0; i < r->cat->narts; i++) {
		struct artifact *a = &r->artifacts[i];
		size_t g = strlen(a->art->an.name) + 1 + strlen(a->art->an.component);
		struct rk_err why = RK_ERR_INIT;
		int read_all;

		if (strncmp(vfs_node_name(dir), a->art->stem, g) || vfs_node_name(dir)[g] != '_' ||
		    vfs_artifact_damaged(v, a, &read_all, &why) != -EIO)
			continue;
		return rk_err_set(err, -EIO, "artifact '%s' is unusable: %s", a->art->file,
				  why.msg);
	}
	return rk_err_set(err, -EIO, "its artifact cannot be split");
}

/* List split output o of artifact a in root (the kpack directory being built): the
 * first family's wins; one an earlier, damaged family may have given is listed as
 * failing (pop_damaged). */
static int link_out(struct run *r, const uint8_t *bad, struct node *root, struct artifact *a,
		    struct artifact *o)
{
	if (vfs_dent_find(root, o->art->stem))
		return 0; /* an earlier family has it */
	if (shadowed_by(r, bad, a, o))
		return vfs_lazy_dir(root, o->art->stem, pop_damaged, vfs_node_mtime(root))
			       ? 0
			       : -ENOMEM;
	return vfs_dent_add(root, o->art->stem, o->root);
}

/* Artifact a failed for good (rc, e: damaged, it cannot be split): its line in the
 * .damaged note, its generic output listed as failing, and the listing ends in EIO (the
 * arch outputs it would give are unknown). */
static int damaged_out(struct rk_vfs *v, struct node *root, struct rk_buf *note, struct artifact *a,
		       struct rk_err *e, int rc)
{
	char name[3 * RK_ARTIFACT_FIELD + 3];
	struct rk_err why = RK_ERR_INIT;
	char *incomplete;
	int read_all;
	const char *cause =
		vfs_artifact_damaged(v, a, &read_all, &why) == -EIO ? why.msg : rk_err_str(e, rc);

	snprintf(name, sizeof(name), "%s_%s_generic", a->art->an.name, a->art->an.component);
	if (rk_buf_addf(note,
			"%s\t%s\tits outputs fail (EIO); the arch outputs it would give "
			"are unknown: the listing of kpack/ ends in EIO\n",
			a->art->file, cause))
		return -ENOMEM;
	if (asprintf(&incomplete, "artifact '%s' cannot be split: %s", a->art->file, cause) < 0)
		return -ENOMEM;
	vfs_node_set_incomplete(root, incomplete); /* the first artifact's why is kept */
	if (vfs_dent_find(root, name))
		return 0; /* an earlier family gave it */
	return vfs_lazy_dir(root, name, pop_damaged, vfs_node_mtime(root)) ? 0 : -ENOMEM;
}

static int pop_kpack(struct rk_vfs *v, struct node *kd, struct rk_err *err)
{
	struct run *r = vfs_node_run(kd);
	struct node *root = vfs_tree_new(vfs_node_name(kd), vfs_node_mode(kd), vfs_node_mtime(kd));
	int rc = root ? 0 : -ENOMEM, g;

	if (!rc && vfs_run_is_split(v, r)) {
		/* the stored split artifacts */
		for (size_t i = 0; !rc && i < r->cat->narts; i++) {
			char *target;

			if (asprintf(&target, "../browse/%s", r->cat->arts[i].stem) < 0)
				target = NULL;
			if (!target ||
			    !vfs_symlink(root, r->cat->arts[i].stem, vfs_node_mtime(kd), target))
				rc = -ENOMEM;
			free(target);
		}
		g = vfs_graft(v, kd, root);
		return rc ? rc : g;
	}
	/* ingest every artifact to split at once (in parallel, jobs at a time); a failed
	 * one is reported by its split below */
	struct artifact **as = calloc(r->cat->narts + 1, sizeof(*as));
	uint8_t *bad = calloc(r->cat->narts + 1, 1); /* failed for good, by artifact */
	struct rk_buf note = RK_BUF_INIT;
	struct node *f = NULL;
	size_t nas = 0;

	if (!as || !bad || !root) {
		free(as);
		free(bad);
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
			free(bad);
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
			/* damaged for good (its ingest logged it): what needs it fails, the
			 * other artifacts still split */
			bad[i] = 1;
			if (rc != -ENOMEM)
				rc = damaged_out(v, root, &note, a, &e, rc);
			continue;
		}
		for (size_t j = 0; !rc && j < n; j++)
			rc = link_out(r, bad, root, a, outs[j]);
	}
	if (!rc && note.len) {
		size_t len = note.len;
		char *text = rk_buf_detach(&note, NULL);

		if (!text || !(f = vfs_bytes_adopt(root, NOTE, S_IFREG | 0444, vfs_node_mtime(kd),
						   text, len)))
			rc = -ENOMEM;
	}
	rk_buf_release(&note);
	free(bad);
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

/* Its options (rk/vfs.h), which the split reads for every view built on it
 * (services/kpack_split.h: struct kpack_cfg). */
/* clang-format off */
static const struct rk_vfs_opt_decl opts[KPACK_NOPTS] = {
	[KPACK_OPT_COMPRESSION] = {
		.name = "kpack_compression",
		.type = RK_VFS_OPT_STRING,
		.arg = "none|zstd",
		.choices = 1,
		.def = "none",
		.help = "scheme of the .kpack archives in kpack/ and dist/<target> (default "
			"none: no copy, no CPU)",
		.man = "scheme of the `.kpack` archives in `kpack/` and per-target `dist/` trees: "
		       "`none` "
		       "(default) serves code objects straight from the cached fat binaries, byte "
		       "for byte "
		       "the archive rocm-kpack writes uncompressed (`PackedKernelArchive` without a "
		       "compressor, `pack_tree.py --compression none`); `zstd` compresses each one "
		       "(rocm-kpack's `zstd-per-kernel`, level 3), once, on first access: byte for "
		       "byte what "
		       "rocm-kpack's `split_artifacts` writes (docs/kpack.md, \"Compression\").",
		.command = "split",
		.flag = "--compression",
		.flag_def = "zstd",
	},
	[KPACK_OPT_TOPOLOGY] = {
		.name = "topology",
		.type = RK_VFS_OPT_FILE,
		.arg = "FILE",
		.help = "kpack/: which database files each artifact's split moves per arch, from "
			"TheRock's BUILD_TOPOLOGY.toml (split_databases) instead of the built-in "
			"table",
		.man = "which database files the split of `kpack/` (and of the views built on it: "
		       "`dist/<target>`, `tarballs/`, `packages/`) moves to each arch's artifact: "
		       "the "
		       "`split_databases` lists of TheRock's `BUILD_TOPOLOGY.toml` FILE instead of "
		       "the "
		       "built-in copy of that table (docs/kpack.md). An artifact without a list "
		       "keeps its "
		       "database files in `<name>_<component>_generic`, as TheRock's split does. "
		       "Read at mount "
		       "time: a file that is not TOML, has no `[artifacts]` table or names a "
		       "database handler "
		       "rocm-kpack does not have is refused with one line (file and line), and "
		       "rockfs exits 1.",
		.command = "split",
		.excludes = "split_databases",
	},
	[KPACK_OPT_DATABASES] = {
		.name = "split_databases",
		.type = RK_VFS_OPT_LIST,
		.arg = "NAME:...",
		.help = "kpack/: every artifact's split moves the database files of these "
			"handlers (none: no database files), instead of a topology",
		.man = "every artifact's split (as `-o topology=FILE`) moves the database files of "
		       "these "
		       "rocm-kpack database handlers, in this order (`rocblas:miopen`), or none "
		       "(`none`), "
		       "instead of the lists of a topology: what rocm-kpack's `split_artifacts "
		       "--split-databases` does.",
		.command = "split",
		.check = kpack_check_databases,
	},
};
/* clang-format on */

const struct vfs_view vfs_view_kpack = {
	.name = "kpack",
	.readme = readme,
	.shown = vfs_run_has_artifacts,
	.populate = pop_kpack,
	.opts = opts,
	.nopts = KPACK_NOPTS,
	.config = kpack_config,
	.config_free = kpack_config_free,
};
