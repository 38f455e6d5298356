/* cmd_split.c: rockpack split STORE RUN [ARTIFACT...] -o DIR [--targets T,...]
 *
 * Writes the run's split artifacts (RUN/kpack/<name>_<component>_<generic|arch>) as real
 * directories DIR/<artifact>, the layout rocm-kpack's split_artifacts writes. For a
 * legacy run they are computed by the core's split; for a kpack-split run they are the
 * stored artifacts. ARTIFACT narrows: an artifact of a legacy run (blas_lib_gfx94X-dcgpu)
 * splits that artifact only, its generic output named <name>_<component>_generic as
 * split_artifacts names it; a <name>_<component> group splits every family of it. Only
 * the archives of the artifacts split are ingested (rk/kpack_view.h). --targets keeps
 * only the arch artifacts whose base arch is listed (generic ones always).
 * The .kpack archives are "zstd-per-kernel", as rocm-kpack writes them now, unless
 * --compression none (then they are the mount's default archives, byte for byte).
 * Database files move to their arch's artifact as TheRock's split asks per artifact
 * (the built-in table, or --topology BUILD_TOPOLOGY.toml), or, with --split-databases
 * NAME..., as split_artifacts --split-databases NAME... does for every artifact (none:
 * no handler, as split_artifacts without the option; rk/topology.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rk/buf.h"
#include "rk/gpu.h"
#include "rk/kpack_view.h"
#include "cli_export.h"
#include "rockpack.h"

struct listing {
	char **names;
	uint32_t *modes;
	size_t n;
};

static int collect(void *ctx, const char *name, const struct rk_attr *a, uint64_t next)
{
	struct listing *l = ctx;
	char **nv;
	uint32_t *mv;

	(void)next;
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return 0;
	nv = realloc(l->names, (l->n + 1) * sizeof(*nv));
	if (nv)
		l->names = nv;
	mv = realloc(l->modes, (l->n + 1) * sizeof(*mv));
	if (mv)
		l->modes = mv;
	if (!nv || !mv || !(l->names[l->n] = strdup(name)))
		return -ENOMEM;
	l->modes[l->n++] = a->mode;
	return 0;
}

/* The length of the <name>_<component> group of an artifact stem, or 0. */
static size_t group_len(const char *stem)
{
	const char *u = strchr(stem, '_');

	if (!u || !(u = strchr(u + 1, '_')))
		return strlen(stem); /* already a group */
	return (size_t)(u - stem);
}

static int in_list(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, word, n) && (p[n] == ',' || !p[n]))
			return 1;
	return 0;
}

static int wanted(const char *out, char **groups, int ngroups, const char *targets)
{
	size_t g = group_len(out);
	const char *x = out[g] ? out + g + 1 : "";
	char base[64];
	int ok = !ngroups;

	for (int i = 0; i < ngroups && !ok; i++)
		ok = group_len(groups[i]) == g && !strncmp(groups[i], out, g);
	if (!ok || !targets || !strcmp(x, "generic"))
		return ok;
	return rk_gpu_base_arch(x, base, sizeof(base)) >= 0 && in_list(targets, base);
}

/* Select for RUN/kpack/ the artifacts that args[0..n) name: an artifact (not generic)
 * itself, a group every artifact of it. Nothing named: every artifact. */
static int select_artifacts(struct rk_vfs *v, const struct rk_run *r, char **args, int n)
{
	const char **sel = calloc(r->narts + 1, sizeof(*sel));
	size_t nsel = 0;
	int rc;

	if (!sel)
		return -ENOMEM;
	for (size_t i = 0; n && i < r->narts; i++) {
		const struct rk_artifact *a = &r->arts[i];
		size_t g = group_len(a->stem);
		int want = 0;

		if (!strcmp(a->an.target, "generic"))
			continue;
		for (int j = 0; j < n && !want; j++) {
			const struct rk_artifact *named = rk_run_find(r, args[j]);

			if (named && strcmp(named->an.target, "generic"))
				want = !strcmp(args[j], a->stem);
			else
				want = group_len(args[j]) == g && !strncmp(args[j], a->stem, g);
		}
		if (want)
			sel[nsel++] = a->stem;
	}
	/* a name that selects nothing leaves the listing empty: "nothing to split matches" */
	if (n && !nsel)
		sel[nsel++] = "";
	rc = rk_kpack_view_select(v, sel, nsel);
	free(sel);
	return rc;
}

static int cmd_split(const struct rp_opts *o, int argc, char **argv)
{
	struct rk_err err = RK_ERR_INIT;
	struct rk_buf path = RK_BUF_INIT, dest = RK_BUF_INIT;
	struct listing l = {0};
	const struct rk_run *r;
	struct rk_attr a;
	struct rk_vfs *v;
	const char *out = NULL, *targets = NULL;
	struct rp_opts so = *o;
	struct rp_progress p;
	char **args = calloc((size_t)argc + 1, sizeof(*args));
	int nargs = 0, rc, ret = 1, written = 0;

	if (!args)
		return rp_fail("out of memory");
	for (int i = 0; i < argc; i++) {
		const char **val = !strcmp(argv[i], "-o")	   ? &out
				   : !strcmp(argv[i], "--targets") ? &targets
								   : NULL;
		int taken = val ? 0 : rp_view_flag(&so, argc, argv, &i);

		/* --compression, --topology, --split-databases: the kpack view's options */
		if (taken)
			ret = taken == 2 ? 2 : ret;
		else if (val && !(*val = rp_value(o, argc, argv, &i)))
			ret = 2;
		else if (!val && rp_is_option(argv[i]))
			ret = rp_usage(o, "split: unknown option '%s'", argv[i]);
		else if (!val)
			args[nargs++] = argv[i];
		if (ret == 2)
			break;
	}
	if (ret != 2 && (nargs < 2 || !out))
		ret = rp_usage(o, "usage: rockpack split STORE RUN [ARTIFACT...] -o DIR "
				  "[--targets T,...] [--compression zstd|none] "
				  "[--topology FILE | --split-databases NAME...]");
	if (ret == 2) {
		free(args);
		return 2;
	}
	if (rp_open(&so, args[0], &v)) {
		free(args);
		return 1;
	}
	rp_progress_init(&p, o, "files");
	rc = rk_vfs_run(v, strcmp(args[1], ".") ? args[1] : "", &r, &err);
	if (!rc && (select_artifacts(v, r, args + 2, nargs - 2) ||
		    rk_buf_addf(&path, "%s%skpack", r->path, r->path[0] ? "/" : "")))
		rc = -ENOMEM;
	if (!rc)
		rc = rk_vfs_resolve(v, path.buf, &a, &err);
	if (!rc)
		rc = rk_vfs_readdir_all(v, a.ino, collect, &l, &err);
	if (rc) {
		rp_fail("%s: %s", args[1], rk_err_str(&err, rc));
		goto done;
	}
	/* as split_artifacts' output_dir.mkdir(parents=True, exist_ok=True) */
	if ((rc = rp_mkdir_parents(out)) < 0 || (mkdir(out, 0755) && errno != EEXIST)) {
		rp_fail("%s: %s", out, strerror(rc < 0 ? -rc : errno));
		goto done;
	}
	ret = 0;
	for (size_t i = 0; !ret && i < l.n; i++) {
		if (!wanted(l.names[i], args + 2, nargs - 2, targets))
			continue;
		path.len = dest.len = 0;
		/* a kpack-split run lists its stored artifacts as links into browse/ */
		if (rk_buf_addf(&path, "%s%s%s/%s", r->path, r->path[0] ? "/" : "",
				S_ISLNK(l.modes[i]) ? "browse" : "kpack", l.names[i]) ||
		    rk_buf_addf(&dest, "%s/%s", out, l.names[i]))
			ret = rp_fail("out of memory");
		else
			ret = rp_export(v, &p, path.buf, l.names[i], dest.buf);
		written++;
	}
	if (!ret && !written)
		ret = rp_fail("%s: nothing to split matches", args[1]);
done:
	ret = rp_progress_end(&p, ret, out, NULL, NULL);
	for (size_t i = 0; i < l.n; i++)
		free(l.names[i]);
	free(l.names);
	free(l.modes);
	free(args);
	rk_buf_release(&path);
	rk_buf_release(&dest);
	rk_vfs_close(v);
	return ret;
}

const struct rp_command rp_cmd_split = {
	"split",
	cmd_split,
	"write a run's artifacts split per GPU arch (rocm-kpack)",
	"usage: rockpack split STORE RUN [ARTIFACT...] -o DIR [--targets T,...]\n"
	"                      [--compression zstd|none]\n"
	"                      [--topology FILE | --split-databases NAME...]\n"
	"\n"
	"Write the run's split artifacts (what RUN/kpack/ shows: rocm-kpack's\n"
	"split_artifacts) as directories DIR/<name>_<component>_<generic|arch>.\n"
	"An ARTIFACT of a legacy run (rand_lib_gfx94X-dcgpu) splits that artifact only\n"
	"(its generic output <name>_<component>_generic made from it; only its archive\n"
	"read); a <name>_<component> group splits every family of it. For a kpack-split\n"
	"run, its stored split artifacts (ARTIFACT narrows to their groups).\n"
	"Progress on a terminal; --json prints a summary object at the end.\n"
	"\n"
	"  -o DIR                    the output directory (created with its parents)\n"
	"  --targets T,...           only the arch artifacts of these base archs\n"
	"                            (generic ones always)\n"
	"  --compression zstd|none   .kpack archives zstd-per-kernel (default) or the\n"
	"                            mount's uncompressed archives\n"
	"  --topology FILE           which database files each artifact moves per arch:\n"
	"                            the split_databases of TheRock's BUILD_TOPOLOGY.toml\n"
	"                            FILE (default: the built-in copy of TheRock's table)\n"
	"  --split-databases NAME... these database handlers for every artifact, as\n"
	"                            rocm-kpack's split_artifacts --split-databases; none:\n"
	"                            no handler. NAMEs: rocblas hipblaslt hipsparselt\n"
	"                            aotriton miopen composablekernel hipkernelprovider\n"
	"                            hotswap_cache\n",
	" -o --targets --compression --topology ",
};
