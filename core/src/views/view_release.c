/* view_release.c: release/, a store view (docs/internals/vfs.md "Store views"): the runs
 * of a store laid out as TheRock's release buckets lay them out
 * (build_tools/github_actions/publish_rocm_to_release_buckets.py, v5/rocm/core/):
 *
 *   release/tarball/<file>.tar.gz              every run's tarballs/ (.tar.gz)
 *   release/whl-next/index.html                the product-local root page
 *   release/whl-next/<project>/<file>          every run's wheels and sdists
 *   release/whl-next/<project>/index.html      its PEP 503 page (manage_structured.py)
 *   release/packages/{deb,rpm}/index.html      generate_package_indexes.py --top-prefix
 *   release/packages/{deb,rpm}/<YYYYMMDD>-<run id>/...   a Linux run's packages/<kind>/,
 *                                              with an index.html in every directory
 *
 * Every file is a relative symlink into the run's own view (RUN/tarballs/,
 * RUN/python/files/, RUN/packages/<kind>/), so it stays inside the mount and its bytes
 * are the run view's. The date of a run's package directory is the day its version
 * carries (docs/views.md "release/"); a run whose version carries none gets 00000000.
 * Listing packages/<kind>/ reads each run's manifest only; a run's own directory is
 * made on first look. A name two runs have (one tarball name, one wheel name) is the
 * later run's (runs in name order), as upstream's copy overwrites. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rk/log.h"
#include "rk/hash.h"
#include "rk/manifest.h"
#include "rk/wheel.h"
#include "cache/memo.h"
#include "engine/vfs_int.h"
#include "formats/archive/pep503.h"
#include "formats/packages/repo_pages.h"
#include "services/flatten.h"
#include "services/pkg_channel.h"

/* Its options: which runs the channels hold. */
enum { KIND_ALL, KIND_SPLIT, KIND_LEGACY };
struct release_cfg {
	int kind; /* release_kind */
	long newest; /* release_newest; 0: every run */
};

/* The populated directory path ("tarballs", "python/files") of run name of the store
 * that at is in; NULL (err set) when the run or the directory is missing. */
static struct node *run_dir(struct rk_vfs *v, struct node *at, const char *name, const char *path,
			    struct rk_err *err)
{
	const char *whole = path;
	struct run *r;
	struct node *n;
	char comp[256];

	if (vfs_store_run(v, at, name, &r, err))
		return NULL;
	n = r->dir;
	while (n && *path) {
		size_t len = strcspn(path, "/");

		if (len >= sizeof(comp) || vfs_populate(v, n, err))
			return NULL;
		memcpy(comp, path, len);
		comp[len] = '\0';
		n = vfs_find_dir(n, comp);
		path += len + (path[len] == '/');
	}
	if (!n) {
		rk_err_set(err, -ENOENT, "run '%s' has no %s/", name, whole);
		return NULL;
	}
	return vfs_populate(v, n, err) ? NULL : n;
}

static int ends_with(const char *s, const char *end)
{
	size_t a = strlen(s), b = strlen(end);

	return a >= b && !strcmp(s + a - b, end);
}

/* Add symlink name -> target to private dir, replacing one of that name. */
static int add_link(struct node *dir, const char *name, int64_t mtime, const char *target)
{
	struct node *old = vfs_dent_del(dir, name);

	if (old)
		vfs_tree_free(old);
	return vfs_symlink(dir, name, mtime, target) ? 0 : -ENOMEM;
}

static int check_newest(const char *value, const char *label, struct rk_err *err)
{
	char *end;
	long n = value ? strtol(value, &end, 10) : 0;

	if (!value || !*value || *end || n < 1 || n > 1000000)
		return rk_err_set(err, -EINVAL, "%s: '%s': a number of runs, 1 or more", label,
				  value ? value : "");
	return 0;
}

/* clang-format off */
static const struct rk_vfs_opt_decl release_opts[] = {
	{
		.name = "release_kind",
		.type = RK_VFS_OPT_STRING,
		.arg = "all|split|legacy",
		.choices = 1,
		.def = "all",
		.help = "release/: every run (default), only kpack-split (multi-arch) runs, or "
			"only legacy (per-family) runs",
		.man = "which runs `release/` (docs/views.md, \"release/\") holds: `all` "
		       "(default), `split` (runs whose manifest says KPACK_SPLIT_ARTIFACTS: the "
		       "multi-arch runs upstream publishes to whl-next/) or `legacy` (the "
		       "per-family runs). The other runs stay in the mount, out of every channel.",
		.command = "release",
		.flag = "--run-kind",
	},
	{
		.name = "release_newest",
		.type = RK_VFS_OPT_STRING,
		.arg = "N",
		.help = "release/: only the newest N runs (by run id) in each channel",
		.man = "`release/` holds only the N runs with the highest run ids (TheRock's "
		       "run ids grow with time), after `release_kind`; default: every run.",
		.command = "release",
		.flag = "--newest",
		.check = check_newest,
	},
};
/* clang-format on */

static int release_config(const char *const *vals, const char *const *labels, void **cfg,
			  struct rk_err *err)
{
	struct release_cfg *c = calloc(1, sizeof(*c));

	(void)labels;
	(void)err;
	if (!c)
		return -ENOMEM;
	c->kind = !strcmp(vals[0], "split")    ? KIND_SPLIT
		  : !strcmp(vals[0], "legacy") ? KIND_LEGACY
					       : KIND_ALL;
	c->newest = vals[1] ? strtol(vals[1], NULL, 10) : 0;
	*cfg = c;
	return 0;
}

static int by_run_id(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	size_t lx = strspn(x, "0123456789"), ly = strspn(y, "0123456789");

	/* numbers by length, then digits; then names */
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return strcmp(x, y);
}

/* The runs the channels hold, sorted by run id (oldest first: a later run's file of a
 * name wins, as the later publish overwrites): every run listed next to release/,
 * filtered by the options. */
static char **runs_of(struct rk_vfs *v, struct node *dir, size_t *n, struct rk_err *err)
{
	const struct release_cfg *c = vfs_config(v, "release");
	char **names = NULL;
	size_t k = 0;

	if (vfs_store_runs(v, dir, &names, n, err))
		return NULL;
	for (size_t i = 0; i < *n; i++) {
		struct run *r;
		int keep = 1;

		if (c && c->kind != KIND_ALL)
			keep = !vfs_store_run(v, dir, names[i], &r, NULL) &&
			       vfs_run_is_split(v, r) == (c->kind == KIND_SPLIT);
		if (keep)
			names[k++] = names[i];
		else
			free(names[i]);
	}
	*n = k;
	qsort(names, k, sizeof(*names), by_run_id);
	if (c && c->newest && (size_t)c->newest < k) {
		size_t drop = k - (size_t)c->newest;

		for (size_t i = 0; i < drop; i++)
			free(names[i]);
		memmove(names, names + drop, (size_t)c->newest * sizeof(*names));
		*n = (size_t)c->newest;
	}
	return names;
}

static void names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* The names a channel takes from a run's view directory, remembered in the cache per
 * run (area "release"): a later mount lists the channel without making the run's views.
 * The key holds the run's name and tree digest (rk_run_tree_sig: any file added or
 * changed in the run), the directory and the views' options as given. */
struct names_memo {
	struct rk_vfs *v;
	struct node *at;
	const char *run, *path;
	int (*take)(const char *name);
	char *text; /* the names, one a line */
};

static int names_load(void *ctx, char *data, size_t len)
{
	struct names_memo *m = ctx;

	if (len && data[len - 1] != '\n')
		return -1;
	return (m->text = strdup(data)) ? 0 : -1;
}

static int names_compute(void *ctx, struct rk_buf *rec, struct rk_err *err)
{
	struct names_memo *m = ctx;
	size_t start = rec->len;
	struct node *t = run_dir(m->v, m->at, m->run, m->path, err);
	int rc = t ? 0 : -ENOENT;

	for (size_t j = 0; !rc && j < vfs_dir_count(t); j++) {
		const char *f = vfs_dir_name(t, j);

		if (!vfs_node_is_dir(vfs_dir_node(t, j)) && !strchr(f, '\n') && m->take(f))
			rc = rk_buf_addf(rec, "%s\n", f);
	}
	if (!rc && !(m->text = strndup(rec->buf ? rec->buf + start : "", rec->len - start)))
		rc = -ENOMEM;
	return rc;
}

/* The names (one a line, malloc'd) run's directory path has that take accepts; NULL when
 * the run has no such directory or it cannot be made (err says why). */
static char *run_names(struct rk_vfs *v, struct node *at, const char *run, const char *path,
		       int (*take)(const char *), struct rk_err *err)
{
	struct names_memo nm = {v, at, run, path, take, NULL};
	const struct rk_memo m = {names_load, names_compute, &nm, 1 << 20};
	struct run *r;
	uint64_t sig = 0;
	struct rk_sha256 h;
	char key[RK_SHA256_HEX], rel[RK_SHA256_HEX + 16];
	int keep;

	if (vfs_store_run(v, at, run, &r, err))
		return NULL;
	keep = !rk_run_tree_sig(v->store, r->cat, &sig, NULL) && !rk_sha256_init(&h);
	if (keep) {
		char s[32];

		snprintf(s, sizeof(s), "%016llx", (unsigned long long)sig);
		rk_sha256_update(&h, "release-names 1", 16);
		rk_sha256_update(&h, path, strlen(path) + 1);
		rk_sha256_update(&h, run, strlen(run) + 1);
		rk_sha256_update(&h, s, strlen(s) + 1);
		rk_sha256_update(&h, v->opts_sig, strlen(v->opts_sig) + 1);
		rk_sha256_final(&h, key);
		snprintf(rel, sizeof(rel), "names-%s", key);
	}
	if (rk_memo_load_or_compute(keep ? v->cache : NULL, "release", keep ? rel : "", &m, NULL,
				    err)) {
		free(nm.text);
		return NULL;
	}
	return nm.text;
}

static int take_tarball(const char *f)
{
	return ends_with(f, ".tar.gz");
}

/* release/tarball/ */
static int pop_tarball(struct rk_vfs *v, struct node *dir, struct rk_err *err)
{
	int64_t mt = vfs_node_mtime(dir);
	struct node *out = vfs_tree_new(vfs_node_name(dir), vfs_node_mode(dir), mt);
	size_t n = 0;
	char **runs = out ? runs_of(v, dir, &n, err) : NULL;
	int rc = out ? (runs ? 0 : -EIO) : -ENOMEM;

	for (size_t i = 0; !rc && i < n; i++) {
		struct rk_err e = RK_ERR_INIT;
		char *names = run_names(v, dir, runs[i], "tarballs", take_tarball, &e), *nl;

		for (char *f = names; !rc && f && (nl = strchr(f, '\n')); f = nl + 1) {
			char target[1024];

			*nl = '\0';
			snprintf(target, sizeof(target), "../../%s/tarballs/%s", runs[i], f);
			rc = add_link(out, f, mt, target);
		}
		free(names);
	}
	names_free(runs, n);
	if (rc) {
		vfs_tree_free(out);
		return rc == -EIO ? rk_err_set(err, rc, "the store's runs: not listed") : rc;
	}
	return vfs_graft(v, dir, out);
}

/* A wheel's or sdist's project, PEP 503-normalized (packaging.utils' parse: a wheel's name
 * ends at its first '-', an sdist's at its last); 0, or -1 when f is neither. */
static int project_of(const char *f, char *out, size_t size)
{
	char name[256];
	const char *end;

	if (ends_with(f, ".whl"))
		end = strchr(f, '-');
	else if (ends_with(f, ".tar.gz") || ends_with(f, ".zip"))
		end = strrchr(f, '-');
	else
		return -1;
	if (!end || end == f || (size_t)(end - f) >= sizeof(name))
		return -1;
	memcpy(name, f, (size_t)(end - f));
	name[end - f] = '\0';
	return rk_pep503_normalize(name, out, size) ? -1 : 0;
}

/* A wheel or sdist (what upstream's structured publishing copies). */
static int take_dist(const char *f)
{
	char project[256];

	return !project_of(f, project, sizeof(project));
}

static int cmp_node_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The sorted names of private dir's entries (dirs: its directories; else its files
 * but index.html); malloc'd array of borrowed names. */
static const char **entries(struct node *dir, int dirs, size_t *n)
{
	const char **out = calloc(vfs_dir_count(dir) + 1, sizeof(*out));

	*n = 0;
	for (size_t i = 0; out && i < vfs_dir_count(dir); i++) {
		const char *name = vfs_dir_name(dir, i);

		if (!vfs_node_is_dir(vfs_dir_node(dir, i)) == !dirs && strcmp(name, "index.html"))
			out[(*n)++] = name;
	}
	if (out)
		qsort(out, *n, sizeof(*out), cmp_node_name);
	return out;
}

static int add_page(struct node *dir, int64_t mt, struct rk_buf *b)
{
	struct node *old = vfs_dent_del(dir, "index.html");

	if (old)
		vfs_tree_free(old);
	struct node *n = vfs_bytes_adopt(dir, "index.html", S_IFREG | 0444, mt, b->buf, b->len);

	*b = (struct rk_buf)RK_BUF_INIT; /* the node owns the bytes, also on failure */
	return n ? 0 : -ENOMEM;
}

/* release/whl-next/ */
static int pop_whl(struct rk_vfs *v, struct node *dir, struct rk_err *err)
{
	int64_t mt = vfs_node_mtime(dir);
	struct node *out = vfs_tree_new(vfs_node_name(dir), vfs_node_mode(dir), mt);
	size_t n = 0, np = 0;
	char **runs = out ? runs_of(v, dir, &n, err) : NULL;
	const char **projects = NULL;
	struct rk_buf b = RK_BUF_INIT;
	int rc = out ? (runs ? 0 : -EIO) : -ENOMEM;

	for (size_t i = 0; !rc && i < n; i++) {
		struct rk_err e = RK_ERR_INIT;
		char *names = run_names(v, dir, runs[i], "python/files", take_dist, &e), *nl;

		for (char *f = names; !rc && f && (nl = strchr(f, '\n')); f = nl + 1) {
			char target[1024], project[256];
			struct node *pd;

			*nl = '\0';
			if (project_of(f, project, sizeof(project)))
				continue;
			pd = vfs_find_dir(out, project);
			if (!pd && !(pd = vfs_node_add(out, project, S_IFDIR | 0755, mt))) {
				rc = -ENOMEM;
				break;
			}
			snprintf(target, sizeof(target), "../../../%s/python/files/%s", runs[i], f);
			rc = add_link(pd, f, mt, target);
		}
		free(names);
	}
	names_free(runs, n);
	if (!rc && !(projects = entries(out, 1, &np)))
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < np; i++) {
		struct node *pd = vfs_find_dir(out, projects[i]);
		size_t nf;
		const char **files = entries(pd, 0, &nf);

		rc = files ? rk_pep503_structured_project(projects[i], files, nf, &b) : -ENOMEM;
		free(files);
		if (!rc)
			rc = add_page(pd, mt, &b);
	}
	if (!rc && !(rc = rk_pep503_structured_root(projects, np, &b)))
		rc = add_page(out, mt, &b);
	free(projects);
	rk_buf_release(&b);
	if (rc) {
		vfs_tree_free(out);
		return rc == -EIO ? rk_err_set(err, rc, "the store's runs: not listed") : rc;
	}
	return vfs_graft(v, dir, out);
}

/* The day (YYYYMMDD) a TheRock version carries: a nightly's "aYYYYMMDD", a bkc's
 * "+bkc.YYYYMMDD" (the same day); "00000000" when none (a dev or rc version). */
static void version_day(const char *version, char day[9])
{
	memcpy(day, "00000000", 9);
	for (const char *p = version ? version : ""; *p; p++) {
		size_t k = 0;

		if (*p != 'a' && *p != '.')
			continue;
		while (k < 9 && p[1 + k] >= '0' && p[1 + k] <= '9')
			k++;
		if (k == 8) {
			memcpy(day, p + 1, 8);
			return;
		}
	}
}

/* The name "<YYYYMMDD>-<run id>" of a Linux run's package directories. */
static int pkg_dir_name(struct rk_vfs *v, struct node *at, const char *run, char *out, size_t size)
{
	const char *dash = strrchr(run, '-');
	struct rk_manifest m;
	struct run *r;
	char day[9];

	if (!dash || strcmp(dash, "-linux") || vfs_store_run(v, at, run, &r, NULL))
		return -1;
	if (!vfs_run_manifest(v, r->dir, &m, NULL)) {
		version_day(m.rocm_package_version, day);
		rk_manifest_release(&m);
	} else {
		version_day(NULL, day);
	}
	snprintf(out, size, "%s-%.*s", day, (int)(dash - run), run);
	return 0;
}

/* Mirror served directory src (the run's packages/<kind>/<rel>) into private dir out:
 * symlinks up ups levels to the store, then <run>/packages/<kind>/<rel>/<name>; an
 * index.html in every directory. */
static int mirror(struct rk_vfs *v, struct node *src, struct node *out, const char *run,
		  const char *kind, const char *rel, int ups, struct rk_err *err)
{
	int64_t mt = vfs_node_mtime(out);
	struct rk_buf b = RK_BUF_INIT;
	const char **dirs = NULL, **files = NULL;
	size_t nd, nf;
	int rc = 0;

	for (size_t i = 0; !rc && i < vfs_dir_count(src); i++) {
		struct node *c = vfs_dir_node(src, i);
		const char *name = vfs_dir_name(src, i);
		char path[1024];

		if (name[0] == '.' || ends_with(name, "index.html"))
			continue;
		snprintf(path, sizeof(path), "%s%s%s", rel, rel[0] ? "/" : "", name);
		if (vfs_node_is_dir(c)) {
			struct node *d = vfs_node_add(out, name, S_IFDIR | 0755, mt);

			if (!d)
				rc = -ENOMEM;
			else if (!(rc = vfs_populate(v, c, err)))
				rc = mirror(v, c, d, run, kind, path, ups + 1, err);
		} else {
			struct rk_buf t = RK_BUF_INIT;

			for (int k = 0; !rc && k < ups; k++)
				rc = rk_buf_adds(&t, "../");
			if (!rc)
				rc = rk_buf_addf(&t, "%s/packages/%s/%s", run, kind, path);
			if (!rc)
				rc = add_link(out, name, mt, t.buf);
			rk_buf_release(&t);
		}
	}
	if (!rc && (!(dirs = entries(out, 1, &nd)) || !(files = entries(out, 0, &nf))))
		rc = -ENOMEM;
	if (!rc && !(rc = rk_repo_page(dirs, nd, files, nf, &b)))
		rc = add_page(out, mt, &b);
	free(dirs);
	free(files);
	rk_buf_release(&b);
	return rc;
}

/* release/packages/<kind>/<YYYYMMDD>-<run id>/ */
static int pop_pkg_run(struct rk_vfs *v, struct node *dir, struct rk_err *err)
{
	const char *name = vfs_node_name(dir), *kind = vfs_node_name(vfs_node_parent(dir));
	int64_t mt = vfs_node_mtime(dir);
	struct node *out = vfs_tree_new(name, vfs_node_mode(dir), mt), *src;
	char run[300], path[32];
	int rc;

	if (!out)
		return -ENOMEM;
	snprintf(run, sizeof(run), "%s-linux", strchr(name, '-') ? strchr(name, '-') + 1 : name);
	snprintf(path, sizeof(path), "packages/%s", kind);
	src = run_dir(v, dir, run, path, err);
	/* release/packages/<kind>/<name>/: four levels below the store */
	rc = src ? mirror(v, src, out, run, kind, "", 4, err) : -EIO;
	if (rc) {
		vfs_tree_free(out);
		return rc;
	}
	return vfs_graft(v, dir, out);
}

/* release/packages/deb/, release/packages/rpm/: a directory per Linux run */
static int pop_pkg_kind(struct rk_vfs *v, struct node *dir, struct rk_err *err)
{
	int64_t mt = vfs_node_mtime(dir);
	struct node *out = vfs_tree_new(vfs_node_name(dir), vfs_node_mode(dir), mt);
	size_t n = 0, nd;
	char **runs = out ? runs_of(v, dir, &n, err) : NULL;
	const char **dirs = NULL;
	struct rk_buf b = RK_BUF_INIT;
	int rc = out ? (runs ? 0 : -EIO) : -ENOMEM;

	for (size_t i = 0; !rc && i < n; i++) {
		char name[300];

		if (pkg_dir_name(v, dir, runs[i], name, sizeof(name)))
			continue;
		if (!vfs_find(out, name) && !vfs_lazy_dir(out, name, pop_pkg_run, mt))
			rc = -ENOMEM;
	}
	names_free(runs, n);
	if (!rc && !(dirs = entries(out, 1, &nd)))
		rc = -ENOMEM;
	if (!rc && !(rc = rk_repo_page(dirs, nd, NULL, 0, &b)))
		rc = add_page(out, mt, &b);
	if (!rc) /* all/ and latest, beyond upstream (after the page: upstream's) */
		rc = vfs_channel_add(out, mt);
	free(dirs);
	rk_buf_release(&b);
	if (rc) {
		vfs_tree_free(out);
		return rc == -EIO ? rk_err_set(err, rc, "the store's runs: not listed") : rc;
	}
	return vfs_graft(v, dir, out);
}

static int pop_packages(struct rk_vfs *v, struct node *dir, struct rk_err *err)
{
	int64_t mt = vfs_node_mtime(dir);
	struct node *out = vfs_tree_new(vfs_node_name(dir), vfs_node_mode(dir), mt);

	(void)err;
	/* made anew when the store lists other runs (all/ and latest follow them) */
	if (!out || !vfs_renew_dir(out, "deb", pop_pkg_kind, mt) ||
	    !vfs_renew_dir(out, "rpm", pop_pkg_kind, mt)) {
		vfs_tree_free(out);
		return -ENOMEM;
	}
	return vfs_graft(v, dir, out);
}

static const char release_readme[] =
	"release/: the runs of this store laid out as TheRock's release buckets\n"
	"(v5/rocm/core/ of publish_rocm_to_release_buckets.py); every file is a symlink\n"
	"into its run's view.\n"
	"\n"
	"  tarball/                          every run's tarballs/ (.tar.gz)\n"
	"  whl-next/<project>/               every run's wheels and sdists, PEP 503 pages:\n"
	"      pip install --index-url file://<here>/whl-next/ 'rocm[libraries,devel]==<v>'\n"
	"  packages/{deb,rpm}/<YYYYMMDD>-<run id>/   a Linux run's apt/dnf repository\n"
	"      (YYYYMMDD: the day the run's version carries; 00000000 when it has none)\n"
	"  packages/{deb,rpm}/all/    one apt/dnf repository holding every run above;\n"
	"  packages/{deb,rpm}/latest  the newest run's directory\n";

static int pop_release(struct rk_vfs *v, struct node *dir, struct rk_err *err)
{
	int64_t mt = vfs_node_mtime(dir);
	struct node *out = vfs_tree_new(vfs_node_name(dir), vfs_node_mode(dir), mt);

	(void)err;
	if (!out ||
	    !vfs_bytes_file(out, "README", S_IFREG | 0444, mt, release_readme,
			    sizeof(release_readme) - 1) ||
	    !vfs_lazy_dir(out, "packages", pop_packages, mt) ||
	    !vfs_lazy_dir(out, "tarball", pop_tarball, mt) ||
	    !vfs_lazy_dir(out, "whl-next", pop_whl, mt)) {
		vfs_tree_free(out);
		return -ENOMEM;
	}
	return vfs_graft(v, dir, out);
}

static const char readme[] =
	"  release/               (next to the runs) every run as TheRock's release buckets\n"
	"                         hold them: tarball/, whl-next/, packages/{deb,rpm}/\n";

const struct vfs_view vfs_view_release = {
	.name = "release",
	.readme = readme,
	.populate = pop_release,
	.place = VFS_VIEW_STORE,
	.opts = release_opts,
	.nopts = sizeof(release_opts) / sizeof(release_opts[0]),
	.config = release_config,
	.config_free = free,
};
