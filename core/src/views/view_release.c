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
 * later run's (runs in name order), as upstream's copy overwrites.
 *
 * Which runs: release_select, the one list every channel (runs_of) and the README use:
 * the whole runs (damaged and incomplete ones are left out, from the listing and the
 * stored manifest, no archive read) that the options keep (platform, kind, minimum age,
 * newest N); the README names every run left out and why. release_current tells the
 * engine when that list changed, and the engine serves release/ anew (a new run joins
 * within list_ttl). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "rk/log.h"
#include "rk/hash.h"
#include "rk/manifest.h"
#include "rk/store.h"
#include "rk/wheel.h"
#include "cache/memo.h"
#include "engine/vfs_int.h"
#include "formats/archive/pep503.h"
#include "formats/packages/repo_pages.h"
#include "services/flatten.h"
#include "services/pkg_channel.h"

extern const struct vfs_view vfs_view_release;

/* Its options: which runs the channels hold. */
enum { KIND_ALL, KIND_SPLIT, KIND_LEGACY };
enum { PLATFORM_ALL, PLATFORM_LINUX, PLATFORM_WINDOWS };
struct release_cfg {
	int kind; /* release_kind */
	int platform; /* release_platform */
	long newest; /* release_newest; 0: every run */
	long long min_age; /* release_min_age, seconds; 0: any age */
};

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

/* A duration: a number of seconds, or of minutes, hours, days, weeks with m, h, d, w
 * ("36h", "2d"); -1 when value is none. */
static long long duration_s(const char *value)
{
	static const struct {
		char unit;
		long long s;
	} units[] = {{'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}, {'w', 7 * 86400}};
	long long n = 0, mul = 1;
	const char *p = value;

	if (!p || *p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++)
		if ((n = n * 10 + (*p - '0')) > 100LL * 365 * 86400)
			return -1;
	for (size_t i = 0; *p && i < sizeof(units) / sizeof(units[0]); i++)
		if (*p == units[i].unit)
			mul = units[i].s, p++;
	return *p || n * mul > 100LL * 365 * 86400 ? -1 : n * mul;
}

static int check_duration(const char *value, const char *label, struct rk_err *err)
{
	if (duration_s(value) < 0)
		return rk_err_set(err, -EINVAL,
				  "%s: '%s': a duration: seconds, or a number with m, h, d or w "
				  "(36h, 2d), 100 years at most",
				  label, value ? value : "");
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
		       "run ids grow with time), after the other rules; default: every run.",
		.command = "release",
		.flag = "--newest",
		.check = check_newest,
	},
	{
		.name = "release_platform",
		.type = RK_VFS_OPT_STRING,
		.arg = "all|linux|windows",
		.choices = 1,
		.def = "all",
		.help = "release/: the runs of every platform (default, as upstream publishes), "
			"or only the Linux or the Windows runs",
		.man = "which platform's runs `release/` holds, from the run's name "
		       "(`<run id>-linux`, `<run id>-windows`): `all` (default: upstream's "
		       "publish_rocm_to_release_buckets.py publishes both platforms' tarballs "
		       "and wheels; packages/ is Linux only either way), `linux` or `windows`.",
		.command = "release",
		.flag = "--platform",
	},
	{
		.name = "release_min_age",
		.type = RK_VFS_OPT_STRING,
		.arg = "DURATION",
		.help = "release/: only runs finished at least DURATION ago (seconds, or 30m, "
			"36h, 2d, 1w)",
		.man = "`release/` holds only the runs that finished at least DURATION ago "
		       "(seconds, or a number with m, h, d or w: `36h`, `2d`): a run's finish "
		       "time is the newest time of the files at its top in the store's listing "
		       "(as `run_final_age` reads it), so a run still being uploaded, or one "
		       "too fresh to trust, waits; it joins when it is old enough (within "
		       "`list_ttl`). Default: any age.",
		.command = "release",
		.flag = "--min-age",
		.check = check_duration,
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
	c->platform = !strcmp(vals[2], "linux")	    ? PLATFORM_LINUX
		      : !strcmp(vals[2], "windows") ? PLATFORM_WINDOWS
						    : PLATFORM_ALL;
	c->min_age = vals[3] ? duration_s(vals[3]) : 0;
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

/* ---- which runs the channels hold (release_select; runs_of for the channels) ---- */

static void names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Why run name of the store is left out of every channel whatever the options (into
 * why, 1), or 0 when it is whole (*rp: the run). What the store's listing and the run's
 * stored manifest say, and the artifacts this mount has found damaged already: no
 * archive is read. */
static int damaged(struct rk_vfs *v, struct node *at, const char *name, struct run **rp, char *why,
		   size_t size)
{
	struct rk_err e = RK_ERR_INIT;
	struct rk_manifest m;
	struct rk_buf path = RK_BUF_INIT;
	struct run *r;
	char *data = NULL;
	size_t len = 0;
	int rc = vfs_store_run(v, at, name, &r, &e), ra;

	if (rc) {
		snprintf(why, size, "does not list: %s", rk_err_str(&e, rc));
		return 1;
	}
	*rp = r;
	if (!vfs_run_has_artifacts(r->cat)) {
		snprintf(why, size, "no artifacts (a failed build: only %s)",
			 r->cat->dirs.n ? "folders such as logs/" : "nothing");
		return 1;
	}
	for (size_t i = 0; i < r->cat->narts; i++) {
		const struct rk_artifact *art = &r->cat->arts[i];

		if (!art->size) {
			snprintf(why, size, "artifact %s: empty (0 bytes)", art->file);
			return 1;
		}
		if (vfs_artifact_damaged(v, &r->artifacts[i], &ra, &e) == -EIO) {
			snprintf(why, size, "artifact %s does not read: %s", art->file,
				 rk_err_str(&e, -EIO));
			return 1;
		}
	}
	if (!r->cat->has_manifest) {
		snprintf(why, size, "no manifests/therock_manifest.json");
		return 1;
	}
	rc = rk_buf_addf(&path, "%s%smanifests/therock_manifest.json", r->cat->path,
			 r->cat->path[0] ? "/" : "");
	if (!rc)
		rc = rk_store_read_small(v->store, path.buf, RK_MANIFEST_MAX, &data, &len, &e);
	if (!rc && !(rc = rk_manifest_parse(data, len, &m, &e)))
		rk_manifest_release(&m);
	free(data);
	rk_buf_release(&path);
	if (rc) {
		snprintf(why, size, "manifests/therock_manifest.json: %s", rk_err_str(&e, rc));
		return 1;
	}
	return 0;
}

/* When run r finished as the store knows it: the newest time of the files at its top
 * (the store listing's, what a remote store's run_final_age reads), seconds. */
static int64_t finished(const struct run *r)
{
	int64_t newest = 0;

	for (size_t i = 0; i < r->cat->files.n; i++)
		if (r->cat->files.v[i].mtime > newest)
			newest = r->cat->files.v[i].mtime;
	return newest;
}

/* Why a whole run r is not one the options keep (into why, 1), or 0. */
static int ruled_out(struct rk_vfs *v, const struct release_cfg *c, const char *name, struct run *r,
		     time_t now, char *why, size_t size)
{
	const char *plat = strrchr(name, '-') ? strrchr(name, '-') + 1 : "";
	static const char *const plats[] = {"all", "linux", "windows"};

	if (!c)
		return 0;
	if (c->platform != PLATFORM_ALL && strcmp(plat, plats[c->platform])) {
		snprintf(why, size, "release_platform=%s: a %s run", plats[c->platform], plat);
		return 1;
	}
	if (c->kind != KIND_ALL && vfs_run_is_split(v, r) != (c->kind == KIND_SPLIT)) {
		snprintf(why, size, "release_kind=%s: a %s run",
			 c->kind == KIND_SPLIT ? "split" : "legacy",
			 c->kind == KIND_SPLIT ? "legacy" : "kpack-split");
		return 1;
	}
	if (c->min_age && now - finished(r) < c->min_age) {
		time_t t = (time_t)finished(r);
		struct tm tm;
		char when[32];

		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", gmtime_r(&t, &tm));
		/* no age in the line: the README (and the view's signature) stays the same
		 * until the run is old enough */
		snprintf(why, size, "release_min_age=%llds: finished %s", c->min_age, when);
		return 1;
	}
	return 0;
}

/* The runs the channels hold and those left out. */
struct release_sel {
	char **runs; /* held, by run id (oldest first: a later run's file of a name wins,
		      * as the later publish overwrites); malloc'd names */
	size_t n;
	struct rk_buf out; /* the runs left out, one a line: "<run>  <why>\n", by run id */
	char sig[RK_SHA256_HEX]; /* of the selection: the runs held (and their served
				  * directory: a run served anew is another) and out */
};

static void sel_release(struct release_sel *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->runs[i]);
	free(s->runs);
	rk_buf_release(&s->out);
	memset(s, 0, sizeof(*s));
}

/* Select the runs listed next to release/ (dir: a node below it; vfs_store_runs lists
 * the store again after list_ttl): every whole run the options keep. The one list of
 * runs every channel (and the README) uses. */
static int release_select(struct rk_vfs *v, struct node *dir, struct release_sel *s,
			  struct rk_err *err)
{
	const struct release_cfg *c = vfs_config(v, "release");
	char **names = NULL, (*why)[512] = NULL;
	struct run **rs = NULL;
	size_t n = 0, kept = 0;
	time_t now = time(NULL);
	struct rk_sha256 h;
	int rc;

	memset(s, 0, sizeof(*s));
	if ((rc = vfs_store_runs(v, dir, &names, &n, err)))
		return rc;
	qsort(names, n, sizeof(*names), by_run_id);
	if (!(why = calloc(n + 1, sizeof(*why))) || !(rs = calloc(n + 1, sizeof(*rs))) ||
	    rk_sha256_init(&h)) {
		free(why);
		free(rs);
		names_free(names, n);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		if (!damaged(v, dir, names[i], &rs[i], why[i], sizeof(why[i])) &&
		    !ruled_out(v, c, names[i], rs[i], now, why[i], sizeof(why[i])))
			kept++;
	for (size_t i = 0; c && c->newest && kept > (size_t)c->newest && i < n; i++)
		if (!why[i][0]) {
			snprintf(why[i], sizeof(why[i]), "release_newest=%ld: an older run",
				 c->newest);
			kept--;
		}
	s->runs = calloc(kept + 1, sizeof(*s->runs));
	for (size_t i = 0; i < n; i++) {
		char line[64];

		if (why[i][0] || !s->runs) {
			if (rk_buf_addf(&s->out, "%s  %s\n", names[i], why[i]))
				rc = -ENOMEM;
			rk_sha256_update(&h, names[i], strlen(names[i]) + 1);
			rk_sha256_update(&h, why[i], strlen(why[i]) + 1);
			free(names[i]);
			continue;
		}
		/* the run's directory node: the same after a trim drops and a look rebuilds
		 * the run, another once the run is served anew (refresh_run) */
		snprintf(line, sizeof(line), "%p", (void *)rs[i]->dir);
		rk_sha256_update(&h, names[i], strlen(names[i]) + 1);
		rk_sha256_update(&h, line, strlen(line) + 1);
		s->runs[s->n++] = names[i];
	}
	rk_sha256_final(&h, s->sig);
	free(names);
	free(why);
	free(rs);
	if (!s->runs || rc) {
		sel_release(s);
		return -ENOMEM;
	}
	return 0;
}

/* The runs the channels hold (release_select), *n of them, malloc'd; NULL (err set) when
 * the store's runs cannot be listed. */
static char **runs_of(struct rk_vfs *v, struct node *dir, size_t *n, struct rk_err *err)
{
	struct release_sel s;
	char **runs;

	if (release_select(v, dir, &s, err))
		return NULL;
	runs = s.runs;
	*n = s.n;
	s.runs = NULL;
	s.n = 0;
	sel_release(&s);
	return runs;
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
	struct node *t = vfs_store_run_dir(m->v, m->at, m->run, m->path, err);
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
	src = vfs_store_run_dir(v, dir, run, path, err);
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
	/* (made again with release/ when its runs change: all/ and latest follow them) */
	if (!out || !vfs_lazy_dir(out, "deb", pop_pkg_kind, mt) ||
	    !vfs_lazy_dir(out, "rpm", pop_pkg_kind, mt)) {
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
	"  packages/{deb,rpm}/all/           one apt/dnf repository holding every run above\n"
	"  packages/{deb,rpm}/latest         the newest run's directory\n"
	"\n"
	"Which runs: every whole run of the store (-o release_platform, release_kind,\n"
	"release_min_age, release_newest choose); a run published while mounted joins\n"
	"within list_ttl.\n";

/* The view's state per store directory: the signature of the selection its release/
 * was made from (release_current compares). */
struct release_state {
	char sig[RK_SHA256_HEX];
};
static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;

static int pop_release(struct rk_vfs *v, struct node *dir, struct rk_err *err)
{
	int64_t mt = vfs_node_mtime(dir);
	struct node *out = vfs_tree_new(vfs_node_name(dir), vfs_node_mode(dir), mt);
	void **st = vfs_store_state(v, dir, &vfs_view_release);
	struct release_sel sel = {0};
	struct rk_buf b = RK_BUF_INIT;
	int rc = out && st ? 0 : -ENOMEM;

	if (!rc && (rc = release_select(v, dir, &sel, err))) {
		vfs_tree_free(out);
		return rc;
	}
	if (!rc)
		rc = rk_buf_add(&b, release_readme, sizeof(release_readme) - 1);
	if (!rc && sel.out.len)
		rc = rk_buf_addf(
			&b,
			"\nLeft out of every channel (run, why; a damaged or incomplete run "
			"whatever the options):\n%s",
			sel.out.buf);
	else if (!rc)
		rc = rk_buf_adds(&b, "\nEvery run of the store is in the channels.\n");
	if (!rc) {
		pthread_mutex_lock(&state_lock);
		if (!*st && !(*st = calloc(1, sizeof(struct release_state))))
			rc = -ENOMEM;
		else
			memcpy(((struct release_state *)*st)->sig, sel.sig, sizeof(sel.sig));
		pthread_mutex_unlock(&state_lock);
	}
	sel_release(&sel);
	if (rc || !vfs_bytes_adopt(out, "README", S_IFREG | 0444, mt, b.buf, b.len) ||
	    !vfs_lazy_dir(out, "packages", pop_packages, mt) ||
	    !vfs_lazy_dir(out, "tarball", pop_tarball, mt) ||
	    !vfs_lazy_dir(out, "whl-next", pop_whl, mt)) {
		if (rc)
			rk_buf_release(&b);
		vfs_tree_free(out);
		return rc ? rc : -ENOMEM;
	}
	return vfs_graft(v, dir, out);
}

/* Whether release/ (dir) still holds the runs a selection now holds (vfs_view.current):
 * a new run, a run now damaged, old enough or served anew makes the engine serve a new
 * release/, and its channels are made again (from the names remembered per run). */
static int release_current(struct rk_vfs *v, struct node *dir)
{
	void **st = vfs_store_state(v, dir, &vfs_view_release);
	struct rk_err err = RK_ERR_INIT;
	struct release_sel sel;
	int same;

	if (!st || release_select(v, dir, &sel, &err))
		return 1; /* the store cannot be listed: keep what is served */
	pthread_mutex_lock(&state_lock);
	same = *st && !strcmp(((struct release_state *)*st)->sig, sel.sig);
	pthread_mutex_unlock(&state_lock);
	sel_release(&sel);
	return same;
}

static const char readme[] =
	"  release/               (next to the runs) every run as TheRock's release buckets\n"
	"                         hold them: tarball/, whl-next/, packages/{deb,rpm}/\n";

const struct vfs_view vfs_view_release = {
	.name = "release",
	.readme = readme,
	.populate = pop_release,
	.current = release_current,
	.free = free,
	.place = VFS_VIEW_STORE,
	.opts = release_opts,
	.nopts = sizeof(release_opts) / sizeof(release_opts[0]),
	.config = release_config,
	.config_free = free,
};
