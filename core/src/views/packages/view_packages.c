/* view_packages.c: RUN/packages/, the run as an apt and a dnf repository of TheRock's
 * native packages, made on read (therock-formats.md section 7; TheRock's
 * build_tools/packaging/linux/: build_package.py makes the packages, upload_package_repo.py
 * lays out the repositories). docs/packages.md says what is upstream's and what differs.
 *
 *   packages/deb/pool/main/<name>_<version>-<release>_amd64.deb
 *   packages/deb/dists/stable/Release, main/binary-amd64/Packages{,.gz}
 *   packages/rpm/x86_64/<name>-<version>-<release>.x86_64.rpm
 *   packages/rpm/x86_64/repodata/ (repomd.xml, primary, filelists, other; createrepo_c
 *                                  --simple-md-filenames)
 *
 * Which packages: the definitions (TheRock's package.json schema: the built-in
 * packaging/packages.json, or -o packages=FILE) and the rules of formats/packages/pkg_rules.h over
 * the run's artifacts: a kpack-split run gives the multi-arch set, a legacy run the
 * single-arch set of each of its families. Listing deb/ or x86_64/ ingests the artifacts
 * the definitions select (the rules read their manifests; pkg_artifacts.c) and lays out
 * every package; no package byte is read. A .deb is ar(debian-binary, control, data.tar)
 * with data.tar a composite over the cache blobs; an .rpm's header lists each file's
 * SHA-256 (a blob id, or for a file whose RUNPATH became RPATH a hash computed once), so
 * it is made on first open, its size known before. The indexes (dists/, repodata/) hash
 * every package when listed, once: the hashes are remembered in the cache. A package
 * whose artifact is damaged, or whose definition selects no file, is left out with one
 * log line, and so are the packages that depend on it (formats/packages/pkg_closure.h);
 * the rest installs. README says which. */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rk/buf.h"
#include "rk/gpu.h"
#include "rk/log.h"
#include "rk/manifest.h"
#include "engine/vfs_int.h"
#include "formats/packages/apt_index.h"
#include "formats/packages/pkg_closure.h"
#include "formats/packages/deb_layout.h"
#include "formats/packages/pkg_families.h"
#include "formats/packages/pkg_meta.h"
#include "formats/packages/pkg_rules.h"
#include "formats/packages/pkg_version.h"
#include "formats/packages/rpm_layout.h"
#include "formats/packages/rpm_repodata.h"
#include "services/flatten.h"
#include "services/kpack_split.h"
#include "services/pkg_content.h"
#include "services/tree_tar.h"
#include "views/packages/packages.h"
#include "util/array.h"

/* asprintf's result, or NULL. */
static char *fmt(const char *f, ...) RK_PRINTF(1, 2);
static char *fmt(const char *f, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, f);
	n = vasprintf(&s, f, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

extern const struct vfs_view vfs_view_packages;

/* One package of one type, laid out. */
struct pkg {
	struct pkgs *set;
	const struct pkg_out *out;
	pthread_mutex_t lock; /* rpm: files and digests while a package is made */
	struct rk_pkg_meta meta;
	struct rk_pkg_script scripts[2];
	char *script_text[2];
	struct vfs_stage *stages;
	size_t nstages;
	char *file; /* its file name */
	/* deb: the .deb's composite (the served node's); rpm: made by make_rpm */
	const struct rk_composite *deb;
	/* rpm: the files, their tree and nodes (for the digests) */
	struct node *root;
	struct rk_rpm_file *files;
	const struct node **fnodes;
	char (*digests)[65];
	size_t nfiles;
	struct pkg_z z; /* -o packages_compress: data.tar or the payload, compressed */
};

/* The packages of one type (deb or rpm) of a run. */
struct pkgs {
	struct state *st;
	enum pkg_type type;
	struct pkg_plan *plans; /* one per family (legacy run) or one */
	size_t nplans;
	struct pkg *p;
	size_t n;
	char *version;
	/* every package's files in one tree, as dist/ resolves them (vfs_pkg_set_add): each
	 * package is cut from it. Made with the plan, read-only after */
	struct node *set;
	struct rk_buf left; /* what was left out and why, a line each (README) */
	struct rk_buf unread; /* the artifacts no definition selects, a line each */
};

/* The view's per-run state. */
struct state {
	struct rk_vfs *v;
	struct run *r;
	struct pkg_defs defs;
	char *wheel_version; /* rocm_package_version */
	/* the_rock_commit. A dev build's day is not known: no file of a run records it, and the
	 * times of the store's objects change with a copy or an upload (docs/packages.md,
	 * "Versions"), so a dev build's version has none and its run id orders it */
	char commit[41];
	char *release; /* the CI run id */
	struct pkgs deb, rpm;
};

/* ---- planning ---- */

static void pkgs_release(struct pkgs *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct pkg *p = &s->p[i];

		pthread_mutex_destroy(&p->lock);
		free(p->script_text[0]);
		free(p->script_text[1]);
		free(p->stages);
		free(p->file);
		vfs_tree_free(p->root);
		for (size_t k = 0; k < p->nfiles; k++)
			free((char *)p->files[k].path);
		free(p->files);
		free(p->fnodes);
		free(p->digests);
		pkg_z_release(&p->z);
	}
	free(s->p);
	for (size_t i = 0; i < s->nplans; i++)
		pkg_plan_release(&s->plans[i]);
	free(s->plans);
	free(s->version);
	vfs_tree_free(s->set);
	rk_buf_release(&s->left);
	rk_buf_release(&s->unread);
}

static void pkg_state_free(void *ctx)
{
	struct state *st = ctx;

	if (!st)
		return;
	pkgs_release(&st->deb);
	pkgs_release(&st->rpm);
	pkg_defs_release(&st->defs);
	free(st->wheel_version);
	free(st->release);
	free(st);
}

/* 0 when artifact a is usable, else its failure (its why is then set); every artifact
 * has been waited on. A transient failure (rk_err_transient: disk full) fails the plan,
 * which is made again on the next access: it never leaves packages out. */
static int failed(struct rk_vfs *v, struct artifact *a)
{
	return vfs_artifacts_wait(v, &a, 1, NULL);
}

/* Whether package out takes files from artifact a: a's name and component are among its
 * definition's items, and a is generic or of out's architecture. */
static int feeds(const struct pkg_out *out, const struct rk_artifact *a)
{
	char arch[64];
	size_t n;

	if (strcmp(a->an.target, "generic")) {
		if (!out->arch)
			return 0;
		n = strcspn(a->an.target, "-:");
		if (n >= sizeof(arch))
			return 0;
		for (size_t i = 0; i < n; i++)
			arch[i] = (char)tolower((unsigned char)a->an.target[i]);
		arch[n] = '\0';
		if (strcmp(arch, out->arch))
			return 0;
	}
	return pkg_def_selects(out->def, a);
}

/* A damaged artifact of as[0..n) package out would take files from, or NULL. */
static const struct artifact *failed_item(struct artifact *const *as, size_t n,
					  const struct pkg_out *out, const unsigned char *bad)
{
	for (size_t k = 0; k < n; k++)
		if (bad[k] && feeds(out, as[k]->art))
			return as[k];
	return NULL;
}

static int add_pkg(struct pkgs *s, const struct pkg_out *out, struct artifact *const *dirs,
		   const char *prefix)
{
	struct pkg *p, *np;
	int deb = s->type == PKG_DEB;

	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->p[i].out->name, out->name))
			return 0; /* the same package from another family's plan */
	if (!(np = realloc(s->p, (s->n + 1) * sizeof(*np))))
		return -ENOMEM;
	s->p = np;
	p = memset(&s->p[s->n], 0, sizeof(*p));
	p->set = s;
	p->out = out;
	pthread_mutex_init(&p->lock, NULL);
	if (out->nsources && !(p->stages = calloc(out->nsources, sizeof(*p->stages))))
		return -ENOMEM;
	for (size_t i = 0; i < out->nsources; i++)
		p->stages[i] = (struct vfs_stage){dirs[out->sources[i].dir], out->sources[i].line};
	p->nstages = out->nsources;
	p->meta = (struct rk_pkg_meta){
		.name = out->name,
		.version = out->version,
		.release = out->release,
		.arch = deb ? out->def->architecture : out->def->build_arch,
		.maintainer = out->def->maintainer,
		.summary = out->def->summary,
		.description = out->def->description,
		.section = out->def->section,
		.priority = out->def->priority,
		/* TheRock's spec template has no URL: Homepage goes to DEBs only */
		.homepage = deb ? out->def->homepage : "",
		.license = out->def->license,
		.vendor = out->def->vendor,
		.group = out->def->group,
		.prefix = prefix,
		.depends = out->depends,
		.recommends = out->recommends,
		.suggests = out->suggests,
		.provides = out->provides,
		.replaces = out->replaces,
		.conflicts = out->conflicts,
		.obsoletes = out->obsoletes,
		.scripts = p->scripts,
	};
	if (out->scripts && out->kind != PKG_NONVERSIONED) {
		static const char *const which[] = {"postinst", "prerm"};

		for (int i = 0; i < 2; i++) {
			p->script_text[i] =
				pkg_script(out->def->package, which[i], prefix, out->version, !deb);
			if (p->script_text[i])
				p->scripts[p->meta.nscripts++] =
					(struct rk_pkg_script){which[i], p->script_text[i]};
		}
	}
	if (deb)
		p->file = fmt("%s_%s%s%s_%s.deb", out->name, out->version, *out->release ? "-" : "",
			      out->release, p->meta.arch);
	else
		p->file = fmt("%s-%s%s%s.%s.rpm", out->name, out->version, *out->release ? "-" : "",
			      out->release, p->meta.arch);
	if (!p->file)
		return -ENOMEM;
	s->n++;
	return 0;
}

/* Line "  name: why" in s's README list of packages left out, unless there (a generic
 * package is planned once per family of a legacy run). */
static int note(struct pkgs *s, const char *name, const char *why)
{
	char *line = fmt("  %s: %s\n", name, why);
	int rc = line ? 0 : -ENOMEM;

	if (line && !(s->left.len && strstr(s->left.buf, line)))
		rc = rk_buf_addf(&s->left, "%s", line);
	free(line);
	return rc;
}

/* The packages of plan p that s serves: not one made of a damaged artifact (of all[0..na)
 * as bad says), nor one whose definition selects no file (the rules' p->empty), nor,
 * transitively, one that depends on a package left out (formats/packages/pkg_closure.h):
 * the repository never names a package it does not hold. A log line and a README line
 * each. */
static int leave_out(struct pkgs *s, const struct pkg_plan *p, struct artifact *const *all,
		     size_t na, const unsigned char *bad, struct artifact *const *dirs,
		     const char *run)
{
	unsigned char *gone = calloc(p->n + 1, 1);
	const char **names = calloc(p->n + 1, sizeof(*names)),
		   **deps = calloc(p->n + 1, sizeof(*deps)),
		   **needs = calloc(p->n + 1, sizeof(*needs));
	int rc = gone && names && deps && needs ? 0 : -ENOMEM;
	char *why = NULL;

	for (size_t i = 0; !rc && i < p->n; i++) {
		const struct pkg_out *o = &p->pkgs[i];
		const struct artifact *dead = o->empty ? NULL : failed_item(all, na, o, bad);

		names[i] = o->name;
		deps[i] = o->depends;
		if (!(gone[i] = dead != NULL))
			continue;
		rk_warn("packages: %s left out: artifact '%s' is damaged (%s)", o->name,
			dead->art->stem, dead->why);
		if (!(why = fmt("artifact '%s' is damaged", dead->art->stem)))
			rc = -ENOMEM;
		else
			rc = note(s, o->name, why);
		free(why);
	}
	for (size_t i = 0; !rc && i < p->nempty; i++) {
		rk_info("packages: %s left out: its definition selects no file of run '%s'",
			p->empty[i], run);
		rc = note(s, p->empty[i], "its definition selects no file of the run");
	}
	if (!rc)
		pkg_closure(names, deps, p->n, (const char *const *)p->empty, p->nempty, gone,
			    needs);
	for (size_t i = 0; !rc && i < p->n; i++) {
		if (!needs[i])
			continue;
		rk_info("packages: %s left out: it depends on %s, left out", names[i], needs[i]);
		if (!(why = fmt("needs %s, left out", needs[i])))
			rc = -ENOMEM;
		else
			rc = note(s, names[i], why);
		free(why);
	}
	for (size_t i = 0; !rc && i < p->n; i++)
		if (!gone[i])
			rc = add_pkg(s, &p->pkgs[i], dirs, p->prefix);
	free(gone);
	free(names);
	free(deps);
	free(needs);
	return rc;
}

/* Plan the packages of type s->type: the rules over the run's artifacts (ingested now:
 * the rules read their manifests). */
static int plan(struct state *st, struct pkgs *s, struct rk_err *err)
{
	struct rk_vfs *v = st->v;
	struct run *r = st->r;
	size_t na = 0, nfam = 0, narchs = 0;
	int kpack = vfs_run_is_split(v, r), rc;
	struct artifact **all = NULL;

	if ((rc = pkg_artifacts(v, r, &st->defs, &kpack, &all, &na)))
		return rc;
	rk_buf_release(&s->left); /* a plan made again (after a transient failure) */
	rk_buf_release(&s->unread);
	struct artifact **dirs = calloc(na + 1, sizeof(*dirs));
	struct pkg_artdir *ad = calloc(na + 1, sizeof(*ad));
	unsigned char *bad = calloc(na + 1, 1), *unread = calloc(na + 1, 1);
	char **archs = calloc(na + 1, sizeof(*archs)), **fams = calloc(na + 1, sizeof(*fams));
	struct pkg_list *guess = calloc(na + 1, sizeof(*guess));

	if (!dirs || !ad || !bad || !unread || !archs || !fams || !guess) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < na; i++) {
		const char *t = all[i]->art->an.target;
		char base[64];
		size_t k;
		int f = 0;

		if ((unread[i] = !pkg_selects(&st->defs, all[i]->art)))
			rc = rk_buf_addf(&s->unread, "  %s\n", all[i]->art->stem);
		else
			f = failed(v, all[i]);
		if (rc)
			goto out;
		if (rk_err_transient(f)) {
			rc = f;
			goto out;
		}
		if ((bad[i] = f != 0)) {
			rk_warn("packages: '%s' is damaged (%s); its packages are left out",
				all[i]->art->stem, all[i]->why);
			if ((rc = pkg_guess_lines(&st->defs, all[i]->art, &guess[i])))
				goto out;
		}
		if (!strcmp(t, "generic") || rk_gpu_base_arch(t, base, sizeof(base)) < 0)
			continue;
		for (k = 0; k < narchs && strcmp(archs[k], base); k++)
			;
		if (k == narchs && !(archs[narchs++] = strdup(base))) {
			rc = -ENOMEM;
			goto out;
		}
		for (k = 0; k < nfam && strcmp(fams[k], t); k++)
			;
		if (k == nfam)
			fams[nfam++] = (char *)t;
	}
	qsort(archs, narchs, sizeof(*archs), rk_cmp_str);
	qsort(fams, nfam, sizeof(*fams), rk_cmp_str);
	if (!(s->version =
		      pkg_version_from_wheel(st->wheel_version, NULL, st->commit, s->type))) {
		rc = -ENOMEM;
		goto out;
	}
	/* kpack: one plan over everything; legacy: one per family, over the generic
	 * artifacts and that family's (what TheRock's fetch for the family gives) */
	s->nplans = kpack || !nfam ? 1 : nfam;
	if (!(s->plans = calloc(s->nplans, sizeof(*s->plans)))) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t f = 0; !rc && f < s->nplans; f++) {
		const char *fam = kpack || !nfam ? NULL : fams[f];
		struct pkg_run run = {
			.dirs = ad,
			.kpack = kpack,
			.archs = kpack ? (const char *const *)archs : &fam,
			.narchs = kpack ? narchs
				  : fam ? 1
					: 0,
			.rocm_version = s->version,
			.version_suffix = st->release,
			.type = s->type,
		};
		size_t nd = 0;

		for (size_t i = 0; i < na; i++) {
			const struct rk_artifact *a = all[i]->art;

			if (fam && strcmp(a->an.target, "generic") && strcmp(a->an.target, fam))
				continue;
			dirs[nd] = all[i];
			ad[nd++] = (struct pkg_artdir){
				.name = a->an.name,
				.component = a->an.component,
				.target = a->an.target,
				.lines = bad[i]	     ? (const char *const *)guess[i].v
					 : unread[i] ? NULL
						     : (const char *const *)all[i]->prefixes,
				.nlines = bad[i]      ? guess[i].n
					  : unread[i] ? 0
						      : all[i]->nprefixes,
			};
		}
		run.ndirs = nd;
		if ((rc = pkg_plan_make(&st->defs, &run, &s->plans[f], err)) ||
		    (rc = pkg_family_conflicts(&s->plans[f], &run, (const char *const *)fams,
					       nfam)))
			break;
		if (!rc)
			rc = leave_out(s, &s->plans[f], all, na, bad, dirs, r->cat->name);
		for (size_t i = 0; f == 0 && i < s->plans[f].nskipped; i++)
			rk_info("packages: %s: no artifacts in this run", s->plans[f].skipped[i]);
	}
	for (size_t i = 0; i < s->n; i++) /* s->p moved while it grew */
		s->p[i].meta.scripts = s->p[i].scripts;
	/* the set every package is cut from: no package places a file below another one's
	 * symlink, none a symlink where another one has a directory */
	vfs_tree_free(s->set); /* a plan made again (after a transient failure) */
	s->set = NULL;
	if (!rc && !(s->set = vfs_tree_new("", S_IFDIR | 0755, 0)))
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < s->n; i++)
		rc = vfs_pkg_set_add(v, s->p[i].stages, s->p[i].nstages, s->p[i].meta.prefix,
				     s->set, err);
	if (!rc && !s->n)
		rk_warn("packages: the definitions name no artifact of run '%s': empty repository",
			r->cat->name);
out:
	for (size_t i = 0; i < narchs; i++)
		free(archs[i]);
	free(archs);
	free(fams);
	for (size_t i = 0; guess && i < na; i++) {
		for (size_t k = 0; k < guess[i].n; k++)
			free(guess[i].v[k]);
		free(guess[i].v);
	}
	free(guess);
	free(all);
	free(dirs);
	free(ad);
	free(bad);
	free(unread);
	return rc;
}

/* The newest package of s: the time of its indexes. */
static int64_t newest(const struct pkgs *s)
{
	int64_t t = 0;

	for (size_t i = 0; i < s->n; i++)
		if (s->p[i].meta.mtime > t)
			t = s->p[i].meta.mtime;
	return t;
}

/* ---- deb/ ---- */

/* The files of p as a private tree; its installed size in p->meta. */
static int pkg_tree(struct pkg *p, struct node **root, struct rk_err *err)
{
	return vfs_pkg_tree(p->set->st->v, p->stages, p->nstages, p->meta.prefix, p->set->set,
			    p->file, root, &p->meta.installed_size, err);
}

/* File names debhelper's dh_fixperms makes 0644 wherever they are (libraries, web and
 * image files, OCaml and Node objects). */
static const char *const dh_mode_0644[] = {"*.so.*", "*.so",   "*.la",	 "*.a",	   "*.js",
					   "*.css",  "*.scss", "*.sass", "*.jpeg", "*.jpg",
					   "*.png",  "*.gif",  "*.cmxs", "*.node", NULL};

/* What dh_fixperms (debhelper 13, run by the dh sequence of TheRock's debian/rules) does
 * to a DEB's tree: every entry but a symlink gets go=rX,u+rw,a-s (read for all, execute
 * for all where anyone had it, no set-id bits), then the names above become 0644. Its
 * path rules (usr/share/doc, usr/include, bin/, ...) cannot match below the install
 * prefix (/opt/rocm/...). An RPM keeps the artifacts' modes, as rpmbuild does. */
static void dh_fixperms(struct node *dir)
{
	for (size_t i = 0; i < vfs_dir_count(dir); i++) {
		struct node *n = vfs_dir_node(dir, i);
		uint32_t m = vfs_node_mode(n), x;

		if (S_ISLNK(m))
			continue;
		x = (S_ISDIR(m) || (m & 0111)) ? 0011 : 0;
		m = (m & (S_IFMT | 01700)) | 0600 | 0044 | x;
		for (size_t k = 0; S_ISREG(m) && dh_mode_0644[k]; k++)
			if (!fnmatch(dh_mode_0644[k], vfs_dir_name(dir, i), 0))
				m = (m & S_IFMT) | 0644;
		vfs_node_set_mode(n, m);
		if (S_ISDIR(m))
			dh_fixperms(n);
	}
}

/* when: the run's time, the changelog's (every DEB owns one: pkg_docs.c) */
static int make_deb(struct pkg *p, struct node *pool, int64_t when, struct rk_err *err)
{
	struct rk_composite tar = RK_COMPOSITE_INIT, *deb = calloc(1, sizeof(*deb));
	struct node *root = NULL;
	int rc = deb ? pkg_tree(p, &root, err) : -ENOMEM, how = pkg_cfg(p->set->st->v)->compress;

	if (!rc)
		dh_fixperms(root);
	if (!rc && (rc = pkg_add_changelog(root, &p->meta, when)))
		rk_err_set(err, rc, "changelog: %s", strerror(-rc));

	/* the package's time is its newest file's (the tarballs' rule): the same bytes from
	 * every store and mount */
	if (!rc && (rc = vfs_tree_tar(root, &tar, &p->meta.mtime)))
		rk_err_set(err, rc, "data.tar: %s", strerror(-rc));
	vfs_tree_free(root);
	if (!rc && how)
		rc = pkg_z_make(p->set->st->v, how, &tar, p->file, &p->z, err);
	if (!rc && (rc = how ? rk_deb_build_data(&p->meta, p->z.packed, pkg_z_deb_name(how), deb)
			     : rk_deb_build(&p->meta, &tar, deb)))
		rk_err_set(err, rc, "the .deb: %s", strerror(-rc));
	rk_composite_release(&tar);
	if (rc) {
		rk_composite_free(deb);
		return rc;
	}
	if (!vfs_composite_file(pool, p->file, S_IFREG | 0444, p->meta.mtime, deb))
		return -ENOMEM;
	p->deb = deb;
	return 0;
}

/* With -o sign_key: the signatures of index text in private directory dir, clear-signed
 * as clear (NULL: none) and detached as detached. */
static int sign_index(struct rk_vfs *v, struct node *dir, const char *clear, const char *detached,
		      const char *text, size_t len, int64_t mtime, struct rk_err *err)
{
	char *sig;
	size_t n;
	int rc = 0;

	for (int c = 1; !rc && c >= 0; c--) {
		const char *name = c ? clear : detached;

		if (!name)
			continue;
		if ((rc = pkg_sign(pkg_cfg(v)->sign_key, text, len, c, &sig, &n, err))) {
			rk_err_log("packages: %s", rk_err_str(err, rc));
			return -EIO;
		}
		rc = vfs_bytes_at(dir, name, mtime, sig, n);
	}
	return rc;
}

/* Package p could not be made or hashed (prc, local): left out (of the listing, or with
 * index, of the index) with one line; but out of memory or a transient failure (a cache
 * that cannot be written now) fails the listing instead, made again on the next access:
 * never a repository with less in it. Returns 0 or the listing's error. */
static int left_out(const struct pkg *p, int index, int prc, struct rk_err *local,
		    struct rk_err *err)
{
	int rc = 0;

	if (prc == -ENOMEM || rk_err_transient(prc))
		rc = rk_err_set(err, prc, "packages: %s: %s", p->file, rk_err_str(local, prc));
	else
		rk_warn("packages: %s left out%s: %s", p->file, index ? " of the index" : "",
			rk_err_str(local, prc));
	rk_err_clear(local);
	return rc;
}

/* dists/: the index of every package, hashed now (once: the hashes are remembered). */
static int pop_dists(struct rk_vfs *v, struct node *dir, struct rk_err *err)
{
	struct state *st = *vfs_view_state(vfs_node_run(dir), &vfs_view_packages);
	struct pkgs *s = &st->deb;
	struct rk_apt_entry *e = calloc(s->n + 1, sizeof(*e));
	struct vfs_pkg_sums *sums = calloc(s->n + 1, sizeof(*sums));
	char **names = calloc(s->n + 1, sizeof(*names));
	struct node *out =
		vfs_tree_new(vfs_node_name(dir), vfs_node_mode(dir), vfs_node_mtime(dir));
	char *packages = NULL, *release = NULL;
	void *gz = NULL;
	size_t n = 0, plen = 0, gzlen = 0, rlen = 0;
	int rc = e && sums && names && out ? 0 : -ENOMEM;

	for (size_t i = 0; !rc && i < s->n; i++) {
		struct pkg *p = &s->p[i];
		struct rk_err local = RK_ERR_INIT;
		int prc;

		if (!p->deb)
			continue;
		if ((prc = vfs_pkg_sums(v, p->deb, &sums[n], &local))) {
			rc = left_out(p, 1, prc, &local, err);
			continue;
		}
		if (!(names[n] = fmt("pool/main/%s", p->file))) {
			rc = -ENOMEM;
			break;
		}
		e[n] = (struct rk_apt_entry){&p->meta,	  names[n],	p->deb->size,
					     sums[n].md5, sums[n].sha1, sums[n].sha256};
		n++;
	}
	if (!rc)
		rc = rk_apt_packages(e, n, &packages, &plen);
	if (!rc)
		rc = rk_deb_gzip(packages, plen, &gz, &gzlen);
	if (!rc) {
		/* upload_package_repo.py's Release, for a CI run's repository */
		struct rk_apt_release_info ri = {"AMD ROCm", "ROCm ci Packages",
						 "ROCm APT Repository", newest(s)};
		struct rk_apt_file files[] = {{"main/binary-amd64/Packages", packages, plen},
					      {"main/binary-amd64/Packages.gz", gz, gzlen}};

		rc = rk_apt_release(&ri, files, 2, &release, &rlen);
	}
	if (!rc) {
		rc = vfs_bytes_at(out, "stable/main/binary-amd64/Packages", vfs_node_mtime(dir),
				  packages, plen);
		packages = NULL;
	}
	if (!rc) {
		rc = vfs_bytes_at(out, "stable/main/binary-amd64/Packages.gz", vfs_node_mtime(dir),
				  gz, gzlen);
		gz = NULL;
	}
	if (!rc && pkg_cfg(v)->sign_key)
		rc = sign_index(v, out, "stable/InRelease", "stable/Release.gpg", release, rlen,
				vfs_node_mtime(dir), err);
	if (!rc) {
		rc = vfs_bytes_at(out, "stable/Release", vfs_node_mtime(dir), release, rlen);
		release = NULL;
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(e);
	free(sums);
	free(gz);
	free(release);
	free(packages);
	if (!rc)
		return vfs_graft(v, dir, out);
	vfs_tree_free(out);
	return rc;
}

/* README of the repository directory out: what the plan of s left out and why, and the
 * artifacts of the run no definition selects (rockpack packages reads it). */
static int add_report(const struct pkgs *s, struct node *out, int64_t mtime)
{
	char *t = fmt("Packages left out of this repository, and why:\n%s\n"
		      "Artifacts of the run that no definition selects (not read):\n%s",
		      s->left.len ? s->left.buf : "  none\n",
		      s->unread.len ? s->unread.buf : "  none\n");

	return t ? vfs_bytes_at(out, "README", mtime, t, strlen(t)) : -ENOMEM;
}

static int pop_deb(struct rk_vfs *v, struct node *dir, struct rk_err *err)
{
	struct state *st = *vfs_view_state(vfs_node_run(dir), &vfs_view_packages);
	struct node *out = vfs_tree_new(vfs_node_name(dir), vfs_node_mode(dir),
					vfs_node_mtime(dir)),
		    *pool;
	const char *base;
	int rc = out ? plan(st, &st->deb, err) : -ENOMEM;

	pool = rc ? NULL : vfs_mkdirs(out, "pool/main/-", &base, vfs_node_mtime(dir));
	if (!rc && !pool)
		rc = -ENOMEM;
	/* the run's time: its newest packaged file (the same from every store and mount) */
	int64_t when = rc ? 0 : pkg_tree_newest(st->deb.set);

	for (size_t i = 0; !rc && i < st->deb.n; i++) {
		struct pkg *p = &st->deb.p[i];
		struct rk_err local = RK_ERR_INIT;
		int prc = make_deb(p, pool, when, &local);

		if (prc)
			rc = left_out(p, 0, prc, &local, err);
	}
	if (!rc && !vfs_lazy_dir(out, "dists", pop_dists, vfs_node_mtime(dir)))
		rc = -ENOMEM;
	if (!rc)
		rc = add_report(&st->deb, out, vfs_node_mtime(dir));
	if (rc) {
		vfs_tree_free(out);
		return rc;
	}
	return vfs_graft(v, dir, out);
}

/* ---- rpm/ ---- */

/* The files of p's package (the prefix directory and everything below it, sorted by
 * path, as rpmbuild's %files <prefix> owns them). */
static int collect_files(struct pkg *p, const struct node *dir, struct rk_buf *path)
{
	size_t len = path->len;
	size_t *order = NULL;
	int rc = 0;

	if (vfs_dir_count(dir) && !(order = vfs_dir_sorted(dir)))
		return -ENOMEM;
	for (size_t i = 0; !rc && i < vfs_dir_count(dir); i++) {
		const struct node *n = vfs_dir_node(dir, order[i]), **fn;
		struct rk_rpm_file *f;

		if ((rc = rk_buf_addf(path, "/%s", vfs_dir_name(dir, order[i]))))
			break;
		if (!(f = realloc(p->files, (p->nfiles + 1) * sizeof(*f))) ||
		    !(p->files = f, fn = realloc(p->fnodes, (p->nfiles + 1) * sizeof(*fn)))) {
			rc = -ENOMEM; /* (p->fnodes kept: freed with p) */
			break;
		}
		p->fnodes = fn;
		f = &p->files[p->nfiles];
		*f = (struct rk_rpm_file){.mode = vfs_node_mode(n),
					  .size = vfs_node_size(n),
					  .mtime = vfs_node_mtime(n)};
		if (vfs_node_mtime(n) > p->meta.mtime)
			p->meta.mtime = vfs_node_mtime(n);
		if (!(f->path = strdup(path->buf))) {
			rc = -ENOMEM;
			break;
		}
		if (S_ISLNK(vfs_node_mode(n)))
			f->link = vfs_node_target(n);
		else if (S_ISREG(vfs_node_mode(n)) && vfs_node_blob(n)) {
			f->blob = vfs_node_blob(n);
			f->origin = vfs_node_blob_origin(n);
		} else if (S_ISREG(vfs_node_mode(n))) {
			f->content = vfs_node_composite(n);
		}
		if (!S_ISDIR(vfs_node_mode(n)))
			f->size = S_ISLNK(vfs_node_mode(n)) ? strlen(vfs_node_target(n))
							    : vfs_node_size(n);
		p->fnodes[p->nfiles++] = n;
		if (S_ISDIR(vfs_node_mode(n)))
			rc = collect_files(p, n, path);
		path->len = len;
		path->buf[len] = '\0';
	}
	free(order);
	return rc;
}

static int cmp_file(const void *a, const void *b, void *ctx)
{
	const struct rk_rpm_file *f = ctx;

	return strcmp(f[*(const size_t *)a].path, f[*(const size_t *)b].path);
}

/* Sort p's files by whole path (rpm's order: "a-b" before "a/c"), their nodes along. */
static int sort_files(struct pkg *p)
{
	size_t *idx = malloc(p->nfiles * sizeof(*idx));
	struct rk_rpm_file *f = malloc(p->nfiles * sizeof(*f));
	const struct node **nodes = malloc(p->nfiles * sizeof(*nodes));

	if (!idx || !f || !nodes) {
		free(idx);
		free(f);
		free(nodes);
		return -ENOMEM;
	}
	for (size_t i = 0; i < p->nfiles; i++)
		idx[i] = i;
	qsort_r(idx, p->nfiles, sizeof(*idx), cmp_file, p->files);
	for (size_t i = 0; i < p->nfiles; i++) {
		f[i] = p->files[idx[i]];
		nodes[i] = p->fnodes[idx[i]];
	}
	free(idx);
	free(p->files);
	free(p->fnodes);
	p->files = f;
	p->fnodes = nodes;
	return 0;
}

static void files_release(struct pkg *p)
{
	for (size_t i = 0; i < p->nfiles; i++)
		free((char *)p->files[i].path);
	free(p->files);
	free(p->fnodes);
	free(p->digests);
	p->files = NULL;
	p->fnodes = NULL;
	p->digests = NULL;
	p->nfiles = 0;
}

/* p's cpio payload compressed (p->z). Caller holds p->lock; the files' digests set. */
static int pkg_rpm_compress(struct pkg *p, int how, struct rk_err *err)
{
	struct rk_composite pl = RK_COMPOSITE_INIT;
	int rc = rk_rpm_payload(&p->meta, p->files, p->nfiles, &pl);

	if (rc)
		return rk_err_set(err, rc, "the .rpm's payload: %s", strerror(-rc));
	rc = pkg_z_make(p->set->st->v, how, &pl, p->file, &p->z, err);
	rk_composite_release(&pl);
	return rc;
}

/* p's .rpm with the digests of its files (placeholders unless real). */
static int build_rpm(struct pkg *p, int real, struct rk_composite **out, struct rk_rpm_info *info,
		     struct rk_err *err)
{
	struct rk_composite *c = calloc(1, sizeof(*c));
	int rc = c ? 0 : -ENOMEM, brc = 0, how = pkg_cfg(p->set->st->v)->compress;

	pthread_mutex_lock(&p->lock);
	for (size_t i = 0; !rc && i < p->nfiles; i++) {
		if (!S_ISREG(p->files[i].mode))
			continue;
		if (real)
			rc = vfs_pkg_file_digest(p->set->st->v, p->fnodes[i], p->digests[i], err);
		else
			memset(p->digests[i], '0', 64);
		p->files[i].digest = p->digests[i];
	}
	if (!rc && how && !p->z.packed) /* the payload compressed once, when laid out */
		rc = pkg_rpm_compress(p, how, err);
	if (!rc && how) {
		struct rk_rpm_compressed cz = {pkg_z_rpm_compressor(how), pkg_z_rpm_flags(how),
					       p->z.packed, p->z.plain->size};

		brc = rk_rpm_build_compressed(&p->meta, p->files, p->nfiles, &cz, c, info);
	} else if (!rc) {
		brc = rk_rpm_build(&p->meta, p->files, p->nfiles, c, info);
	}
	if (brc)
		rc = rk_err_set(err, brc, "the .rpm: %s", strerror(-brc));
	pthread_mutex_unlock(&p->lock);
	/* rpm 4.18 installs nothing without the payload's digest: one read of it (and of
	 * the cpio archive, compressed: PAYLOADDIGESTALT) */
	if (!rc && real) {
		char hex[65], alt[65];

		if (!(rc = vfs_pkg_tail_sha256(p->set->st->v, c, info->header_end, hex, err)) &&
		    !(rc = how ? vfs_pkg_tail_sha256(p->set->st->v, p->z.plain, 0, alt, err) : 0))
			rc = rk_rpm_set_payload_digests(c, info, hex, how ? alt : hex);
		if (!rc) /* with -o sign_key */
			rc = pkg_rpm_sign(p->set->st->v, c, info, p->meta.mtime, err);
	}
	if (rc) {
		rk_composite_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

static int make_rpm(struct rk_vfs *v, void *ctx, struct rk_composite **out, struct rk_err *err)
{
	struct rk_rpm_info info;

	(void)v;
	return build_rpm(ctx, 1, out, &info, err);
}

static int lay_out_rpm(struct pkg *p, struct node *dir, struct rk_err *err)
{
	struct rk_buf path = RK_BUF_INIT;
	struct rk_composite *c = NULL;
	struct rk_rpm_info info;
	const struct node *pdir;
	int rc = pkg_tree(p, &p->root, err);

	pdir = rc ? NULL : vfs_find(p->root, p->meta.prefix + 1);
	if (!rc && !pdir)
		rc = -ENOMEM;
	/* the prefix directory itself, then everything below it */
	if (!rc && !(rc = rk_buf_adds(&path, p->meta.prefix)) &&
	    (p->files = calloc(1, sizeof(*p->files))) &&
	    (p->fnodes = calloc(1, sizeof(*p->fnodes)))) {
		p->files[0] = (struct rk_rpm_file){.path = strdup(p->meta.prefix),
						   .mode = vfs_node_mode(pdir),
						   .mtime = vfs_node_mtime(pdir)};
		p->fnodes[0] = pdir;
		p->nfiles = 1;
		rc = p->files[0].path ? collect_files(p, pdir, &path) : -ENOMEM;
	} else if (!rc) {
		rc = -ENOMEM;
	}
	rk_buf_release(&path);
	if (!rc)
		rc = sort_files(p);
	if (!rc && !(p->digests = calloc(p->nfiles, sizeof(*p->digests))))
		rc = -ENOMEM;
	if (!rc)
		rc = build_rpm(p, 0, &c, &info, err);
	if (!rc && !vfs_later_file(dir, p->file, p->meta.mtime, c->size, make_rpm, NULL, p))
		rc = -ENOMEM;
	rk_composite_free(c);
	if (rc) {
		files_release(p);
		pkg_z_release(&p->z);
		vfs_tree_free(p->root);
		p->root = NULL;
	}
	return rc;
}

/* repodata/: every package made and hashed now (once: the hashes are remembered). */
static int pop_repodata(struct rk_vfs *v, struct node *dir, struct rk_err *err)
{
	struct state *st = *vfs_view_state(vfs_node_run(dir), &vfs_view_packages);
	struct pkgs *s = &st->rpm;
	struct rk_rpm_pkg *e = calloc(s->n + 1, sizeof(*e));
	struct vfs_pkg_sums *sums = calloc(s->n + 1, sizeof(*sums));
	struct node *out =
		vfs_tree_new(vfs_node_name(dir), vfs_node_mode(dir), vfs_node_mtime(dir));
	struct rk_rpm_repodata rd;
	size_t n = 0;
	int rc = e && sums && out ? 0 : -ENOMEM;

	for (size_t i = 0; !rc && i < s->n; i++) {
		struct pkg *p = &s->p[i];
		struct rk_err local = RK_ERR_INIT;
		struct rk_composite *c = NULL;
		struct rk_rpm_info info;
		int prc;

		if (!p->root)
			continue;
		prc = build_rpm(p, 1, &c, &info, &local);
		if (!prc)
			prc = vfs_pkg_sums(v, c, &sums[n], &local);
		if (prc) {
			rc = left_out(p, 1, prc, &local, err);
			rk_composite_free(c);
			continue;
		}
		e[n] = (struct rk_rpm_pkg){&p->meta, p->files,	     p->nfiles, p->file,
					   c->size,  sums[n].sha256, info};
		rk_composite_free(c);
		n++;
	}
	if (!rc && !(rc = rk_rpm_repodata_build(e, n, newest(s), &rd))) {
		for (size_t i = 0; !rc && i < RK_REPODATA_NFILES; i++) {
			struct rk_repodata_file *f = &rd.files[i];
			const char *name =
				strchr(f->name, '/') ? strchr(f->name, '/') + 1 : f->name;

			if (i == RK_REPODATA_REPOMD && pkg_cfg(v)->sign_key)
				rc = sign_index(v, out, NULL, "repomd.xml.asc", f->data, f->len,
						vfs_node_mtime(dir), err);
			if (!rc)
				rc = vfs_bytes_at(out, name, vfs_node_mtime(dir), f->data, f->len);
			f->data = NULL;
		}
		rk_rpm_repodata_release(&rd);
	}
	free(e);
	free(sums);
	if (!rc)
		return vfs_graft(v, dir, out);
	vfs_tree_free(out);
	return rc;
}

static int pop_rpm_arch(struct rk_vfs *v, struct node *dir, struct rk_err *err)
{
	struct state *st = *vfs_view_state(vfs_node_run(dir), &vfs_view_packages);
	struct node *out =
		vfs_tree_new(vfs_node_name(dir), vfs_node_mode(dir), vfs_node_mtime(dir));
	int rc = out ? plan(st, &st->rpm, err) : -ENOMEM;

	for (size_t i = 0; !rc && i < st->rpm.n; i++) {
		struct pkg *p = &st->rpm.p[i];
		struct rk_err local = RK_ERR_INIT;
		int prc = lay_out_rpm(p, out, &local);

		if (prc)
			rc = left_out(p, 0, prc, &local, err);
	}
	if (!rc && !vfs_lazy_dir(out, "repodata", pop_repodata, vfs_node_mtime(dir)))
		rc = -ENOMEM;
	if (!rc)
		rc = add_report(&st->rpm, out, vfs_node_mtime(dir));
	if (rc) {
		vfs_tree_free(out);
		return rc;
	}
	return vfs_graft(v, dir, out);
}

static int pop_rpm(struct rk_vfs *v, struct node *dir, struct rk_err *err)
{
	struct node *out =
		vfs_tree_new(vfs_node_name(dir), vfs_node_mode(dir), vfs_node_mtime(dir));

	int rc = out && vfs_lazy_dir(out, "x86_64", pop_rpm_arch, vfs_node_mtime(dir)) ? 0 : -ENOMEM;

	if (!rc) /* with -o sign_key: the key dnf checks the packages with */
		rc = pkg_rpm_pubkey(v, out, vfs_node_mtime(dir), err);
	if (rc) {
		vfs_tree_free(out);
		return rc;
	}
	return vfs_graft(v, dir, out);
}

/* ---- packages/ ---- */

static const char readme_text[] =
	"TheRock's native packages of this run, made on read (build_package.py's packages,\n"
	"upload_package_repo.py's layout). Nothing is built until you look inside.\n"
	"\n"
	"  deb/   an apt repository (apt reads as its user _apt: mount with -o allow_other):\n"
	"           echo \"deb [trusted=yes] file:%s/deb stable main\" \\\n"
	"             > /etc/apt/sources.list.d/rock.list\n"
	"%s"
	"\n"
	"Listing deb/ or rpm/x86_64/ decompresses the artifacts the definitions select into\n"
	"the cache; reading an index (dists/, repodata/) hashes every package once.\n"
	"deb/README and rpm/x86_64/README list the packages left out (a definition that\n"
	"selects no file of the run, and every package that needs one left out: the\n"
	"repository never names a package it does not serve) and the artifacts no\n"
	"definition selects.\n"
	"\n"
	"%s\n";

static const char readme_rpm[] =
	"  rpm/   a dnf repository; its packages are not signed, so gpgcheck is off for it:\n"
	"           dnf --repofrompath=rock,file://%s/rpm/x86_64 --repo=rock \\\n"
	"             --setopt=rock.gpgcheck=0 install ...\n";
static const char readme_rpm_signed[] =
	"  rpm/   a dnf repository; its packages are signed (-o sign_key), rpm/" PKG_RPM_KEY " is the key:\n"
	"           dnf --repofrompath=rock,file://%s/rpm/x86_64 --repo=rock \\\n"
	"             --setopt=rock.gpgcheck=1 --setopt=rock.gpgkey=file://%s/rpm/" PKG_RPM_KEY
	" install ...\n";

static int pkg_populate(struct rk_vfs *v, struct node *dir, struct rk_err *err)
{
	struct run *r = vfs_node_run(dir);
	struct state *st = calloc(1, sizeof(*st));
	struct node *out =
		vfs_tree_new(vfs_node_name(dir), vfs_node_mode(dir), vfs_node_mtime(dir));
	struct rk_manifest m;
	char *readme = NULL, *rpm_text, *defs_line;
	int rc = st && out ? 0 : -ENOMEM, have_m, differs;

	if (rc)
		goto fail;
	st->v = v;
	st->r = r;
	st->deb = (struct pkgs){.st = st, .type = PKG_DEB};
	st->rpm = (struct pkgs){.st = st, .type = PKG_RPM};
	if ((rc = pkg_defs_load(pkg_cfg(v)->defs, &st->defs, err))) {
		rk_err_log("packages: %s", rk_err_str(err, rc));
		rc = -EIO;
		goto fail;
	}
	have_m = !vfs_run_manifest(v, r->dir, &m, NULL);
	st->wheel_version = strdup(have_m && m.rocm_package_version ? m.rocm_package_version
				   : have_m && m.rocm_version	    ? m.rocm_version
								    : "0.0.0");
	snprintf(st->commit, sizeof(st->commit), "%s",
		 have_m && m.the_rock_commit ? m.the_rock_commit : "");
	/* the CI run id: the manifest's, else the run directory's number */
	st->release = have_m && m.github_run_id ? strdup(m.github_run_id)
						: strndup(r->cat->name, strcspn(r->cat->name, "-"));
	defs_line = pkg_defs_provenance(&st->defs, pkg_cfg(v)->defs,
					have_m ? m.the_rock_commit : NULL, &differs);
	if (have_m)
		rk_manifest_release(&m);
	if (differs && defs_line)
		rk_info("packages: run '%s': %s", r->cat->name, defs_line);
	rpm_text = fmt(pkg_cfg(v)->sign_key ? readme_rpm_signed : readme_rpm,
		       "<mount>/<run>/packages", "<mount>/<run>/packages");
	readme = rpm_text && defs_line
			 ? fmt(readme_text, "<mount>/<run>/packages", rpm_text, defs_line)
			 : NULL;
	free(rpm_text);
	free(defs_line);
	if (!st->wheel_version || !st->release || !readme) {
		rc = -ENOMEM;
		goto fail;
	}
	if ((rc = vfs_bytes_at(out, "README", vfs_node_mtime(dir), readme, strlen(readme))))
		goto fail;
	if (!vfs_lazy_dir(out, "deb", pop_deb, vfs_node_mtime(dir)) ||
	    !vfs_lazy_dir(out, "rpm", pop_rpm, vfs_node_mtime(dir))) {
		rc = -ENOMEM;
		goto fail;
	}
	/* a repository CI stored (deb/, rpm/) is served as stored, as a whole: its index
	 * names its packages' hashes; the one made here is then not served */
	if ((rc = vfs_run_stored_over(v, r, "packages", out, err)))
		goto fail;
	*vfs_view_state(r, &vfs_view_packages) = st;
	return vfs_graft(v, dir, out);
fail:
	vfs_tree_free(out);
	pkg_state_free(st);
	return rc;
}

/* TheRock builds native packages for Linux only (multi_arch_release_windows.yml makes
 * tarballs and Python packages): a Windows run has no packages/. */
static int shown(const struct rk_run *cat)
{
	return vfs_run_has_artifacts(cat) && strcmp(rk_run_platform(cat), "windows");
}

const struct vfs_view vfs_view_packages = {
	.name = "packages",
	.stored_over = 1,
	.readme = pkg_readme,
	.shown = shown,
	.populate = pkg_populate,
	.free = pkg_state_free,
	.opts = pkg_opts,
	.nopts = PKG_NOPTS,
	.config = pkg_config,
	.config_free = pkg_config_free,
};
