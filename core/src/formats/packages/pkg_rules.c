/* pkg_rules.c: TheRock's package.json and the rules of build_tools/packaging/linux/
 * (formats/packages/pkg_rules.h).
 *
 * The planner mirrors upstream's functions one for one, under their names, so that a
 * change upstream maps to one place here: update_package_name (pkg_name),
 * is_gfxarch_package (gfx_of), get_package_list (buildable), filter_components_fromartifactory
 * (components), has_artifact_for_arch, filter_archs_with_artifacts,
 * filter_dependencies_by_artifacts (dep_has_artifacts), convert_to_versiondependency,
 * append_version_suffix, resolve_versioned_dependencies, process_main_dependencies_kpack /
 * _single_arch and the variant builders of build_package.py (pkg_plan_make). Upstream
 * passes one gfx_arch string that is either a real target, "" or one of two sentinels
 * (GFX_HOST, GFX_META); so do we. Quirks of upstream that we reproduce on purpose are
 * marked "quirk:". Upstream reads a directory tree; we read run->dirs, whose names we
 * rebuild ({name}_{component}_{target}) so that its prefix and glob tests see the same
 * strings. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "rk/buf.h"
#include "formats/packages/pkg_rules.h"

#define PKG_DEFS_MAX (16u << 20) /* upstream's file is 116 KB */

#define GFX_HOST "gfx_host" /* packaging_utils.GFX_HOST */
#define GFX_META "gfx_meta" /* packaging_utils.GFX_META */

/* ---- parsing ---- */

/* is_key_defined's truthy set */
static const char *const truthy[] = {"1",  "true",   "t",	"yes",	"y",
				     "on", "enable", "enabled", "found"};

static const struct {
	const char *key;
	size_t off;
} bool_keys[] = {
	{"Gfxarch", offsetof(struct pkg_def, gfxarch)},
	{"Metapackage", offsetof(struct pkg_def, meta)},
	{"Postinstall", offsetof(struct pkg_def, postinstall)},
	{"Disablepackaging", offsetof(struct pkg_def, disabled)}, /* as is_packaging_disabled */
	{"Disable_DWZ", offsetof(struct pkg_def, disable_dwz)},
	{"Disable_RPM_STRIP", offsetof(struct pkg_def, disable_rpm_strip)},
	{"Disable_DEB_STRIP", offsetof(struct pkg_def, disable_deb_strip)},
	{"Disable_Debug_Package", offsetof(struct pkg_def, disable_debug_package)},
};

static const struct {
	const char *key, *dflt;
	size_t off;
} str_keys[] = {
	{"Architecture", "amd64", offsetof(struct pkg_def, architecture)},
	{"BuildArch", "x86_64", offsetof(struct pkg_def, build_arch)},
	{"Maintainer", "", offsetof(struct pkg_def, maintainer)},
	{"Description_Short", "", offsetof(struct pkg_def, summary)},
	{"Description_Long", "", offsetof(struct pkg_def, description)},
	{"Section", "", offsetof(struct pkg_def, section)},
	{"Priority", "", offsetof(struct pkg_def, priority)},
	{"Group", "", offsetof(struct pkg_def, group)},
	{"License", "", offsetof(struct pkg_def, license)},
	{"Vendor", "", offsetof(struct pkg_def, vendor)},
	{"Homepage", "", offsetof(struct pkg_def, homepage)},
};

static const struct {
	const char *key;
	size_t off;
} list_keys[] = {
	{"DEBDepends", offsetof(struct pkg_def, deb_depends)},
	{"RPMRequires", offsetof(struct pkg_def, rpm_requires)},
	{"DEBRecommends", offsetof(struct pkg_def, deb_recommends)},
	{"RPMRecommends", offsetof(struct pkg_def, rpm_recommends)},
	{"DEBSuggests", offsetof(struct pkg_def, deb_suggests)},
	{"RPMSuggests", offsetof(struct pkg_def, rpm_suggests)},
	{"Provides", offsetof(struct pkg_def, provides)},
	{"Replaces", offsetof(struct pkg_def, replaces)},
	{"Conflicts", offsetof(struct pkg_def, conflicts)},
	{"Obsoletes", offsetof(struct pkg_def, obsoletes)},
};

/* "package.json: entry <i> (<Package>): <what>" */
static int bad(struct rk_err *err, size_t i, const char *pkg, const char *fmt, ...) RK_PRINTF(4, 5);
static int bad(struct rk_err *err, size_t i, const char *pkg, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (pkg)
		return rk_err_set(err, -EPROTO, "package.json: entry %zu (%s): %s", i, pkg, what);
	return rk_err_set(err, -EPROTO, "package.json: entry %zu: %s", i, what);
}

/* is_key_defined: the last key equal to key ignoring case decides; its value, stripped
 * and lowercased, is one of truthy[]. Upstream calls .strip() on the value, so a
 * non-string value would raise there: an error here. */
static int bool_key(json_t *obj, const char *key, int *out)
{
	const char *k, *s = NULL;
	json_t *v;

	json_object_foreach(obj, k, v)
	{
		if (strcasecmp(k, key))
			continue;
		if (!json_is_string(v))
			return -1;
		s = json_string_value(v);
	}
	*out = 0;
	if (!s)
		return 0;
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	for (size_t i = 0; i < sizeof(truthy) / sizeof(truthy[0]); i++)
		if (strlen(truthy[i]) == n && !strncasecmp(s, truthy[i], n))
			*out = 1;
	return 0;
}

static void list_free(struct pkg_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

/* A list of strings; absent or null is empty. 1 when malformed, -ENOMEM. */
static int str_list(json_t *v, struct pkg_list *out)
{
	size_t i;
	json_t *e;

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_array(v))
		return 1;
	if (!(out->v = calloc(json_array_size(v) + 1, sizeof(char *))))
		return -ENOMEM;
	json_array_foreach(v, i, e)
	{
		if (!json_is_string(e))
			return 1;
		if (!(out->v[out->n] = strdup(json_string_value(e))))
			return -ENOMEM;
		out->n++;
	}
	return 0;
}

static void item_free(struct pkg_item *it)
{
	free(it->artifact);
	for (size_t i = 0; i < it->nsubdirs; i++) {
		struct pkg_list l = {it->subdirs[i].components, it->subdirs[i].ncomponents};

		free(it->subdirs[i].name);
		list_free(&l);
	}
	free(it->subdirs);
}

static void def_free(struct pkg_def *d)
{
	free(d->package);
	for (size_t i = 0; i < sizeof(str_keys) / sizeof(str_keys[0]); i++)
		free(*(char **)((char *)d + str_keys[i].off));
	for (size_t i = 0; i < sizeof(list_keys) / sizeof(list_keys[0]); i++)
		list_free((struct pkg_list *)((char *)d + list_keys[i].off));
	for (size_t i = 0; i < d->nitems; i++)
		item_free(&d->items[i]);
	free(d->items);
}

/* One Artifactory item. The keys are read as filter_components_fromartifactory reads
 * them: exact case. quirk: Artifact_Gfxarch is str(value).lower() == "true", not
 * is_key_defined's set ("yes" is false; a JSON true is "True", so true). */
static int parse_item(json_t *v, struct pkg_item *it, size_t i, const char *pkg, size_t k,
		      struct rk_err *err)
{
	json_t *a, *g, *subs, *s;
	size_t j;

	it->gfxarch = -1;
	if (!json_is_object(v))
		return bad(err, i, pkg, "'Artifactory' item %zu is not an object", k);
	a = json_object_get(v, "Artifact");
	if (!json_is_string(a) || !json_string_length(a))
		return bad(err, i, pkg, "'Artifactory' item %zu: 'Artifact' is not a string", k);
	if (!(it->artifact = strdup(json_string_value(a))))
		return -ENOMEM;
	g = json_object_get(v, "Artifact_Gfxarch");
	if (json_is_string(g))
		it->gfxarch = !strcasecmp(json_string_value(g), "true");
	else if (json_is_boolean(g))
		it->gfxarch = json_is_true(g);
	else if (g)
		return bad(err, i, pkg, "'%s': 'Artifact_Gfxarch' is not a string", it->artifact);
	subs = json_object_get(v, "Artifact_Subdir");
	if (!json_is_array(subs))
		return bad(err, i, pkg, "'%s': 'Artifact_Subdir' is not a list", it->artifact);
	if (!(it->subdirs = calloc(json_array_size(subs) + 1, sizeof(*it->subdirs))))
		return -ENOMEM;
	json_array_foreach(subs, j, s)
	{
		struct pkg_subdir *sd = &it->subdirs[it->nsubdirs];
		json_t *name = json_is_object(s) ? json_object_get(s, "Name") : NULL;
		struct pkg_list l = {0};
		int rc;

		if (!json_is_string(name))
			return bad(err, i, pkg, "'%s': subdir %zu has no string 'Name'",
				   it->artifact, j);
		if (!(sd->name = strdup(json_string_value(name))))
			return -ENOMEM;
		it->nsubdirs++;
		rc = str_list(json_object_get(s, "Components"), &l);
		sd->components = l.v;
		sd->ncomponents = l.n;
		if (rc < 0)
			return rc;
		if (rc || !json_object_get(s, "Components"))
			return bad(err, i, pkg, "'%s': subdir '%s': 'Components' is not a list",
				   it->artifact, sd->name);
	}
	return 0;
}

static int parse_def(json_t *e, struct pkg_def *d, size_t i, struct rk_err *err)
{
	json_t *p, *arts, *v;
	const char *pkg;
	size_t k;
	int rc;

	if (!json_is_object(e))
		return bad(err, i, NULL, "not an object");
	p = json_object_get(e, "Package");
	if (!json_is_string(p) || !json_string_length(p))
		return bad(err, i, NULL, "'Package' is missing or not a string");
	if (!(d->package = strdup(json_string_value(p))))
		return -ENOMEM;
	pkg = d->package;
	for (k = 0; k < sizeof(bool_keys) / sizeof(bool_keys[0]); k++)
		if (bool_key(e, bool_keys[k].key, (int *)((char *)d + bool_keys[k].off)))
			return bad(err, i, pkg, "'%s' is not a string", bool_keys[k].key);
	for (k = 0; k < sizeof(str_keys) / sizeof(str_keys[0]); k++) {
		char **out = (char **)((char *)d + str_keys[k].off);

		v = json_object_get(e, str_keys[k].key);
		if (v && !json_is_null(v) && !json_is_string(v))
			return bad(err, i, pkg, "'%s' is not a string", str_keys[k].key);
		*out = strdup(json_is_string(v) ? json_string_value(v) : str_keys[k].dflt);
		if (!*out)
			return -ENOMEM;
	}
	for (k = 0; k < sizeof(list_keys) / sizeof(list_keys[0]); k++) {
		rc = str_list(json_object_get(e, list_keys[k].key),
			      (struct pkg_list *)((char *)d + list_keys[k].off));
		if (rc < 0)
			return rc;
		if (rc)
			return bad(err, i, pkg, "'%s' is not a list of strings", list_keys[k].key);
	}
	arts = json_object_get(e, "Artifactory");
	if (!arts || json_is_null(arts))
		return 0;
	if (!json_is_array(arts))
		return bad(err, i, pkg, "'Artifactory' is not a list");
	if (!(d->items = calloc(json_array_size(arts) + 1, sizeof(*d->items))))
		return -ENOMEM;
	json_array_foreach(arts, k, v)
	{
		rc = parse_item(v, &d->items[d->nitems], i, pkg, k, err);
		d->nitems++;
		if (rc)
			return rc;
	}
	return 0;
}

int pkg_defs_parse(const char *json, size_t len, struct pkg_defs *out, struct rk_err *err)
{
	struct pkg_defs d = {0};
	json_error_t jerr;
	json_t *root, *e;
	size_t i;
	int rc = 0;

	if (len > PKG_DEFS_MAX)
		return rk_err_set(err, -EFBIG, "package.json: %zu bytes is over the limit", len);
	root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return rk_err_set(err, -EPROTO, "package.json: line %d: %s", jerr.line, jerr.text);
	if (!json_is_array(root)) {
		rc = rk_err_set(err, -EPROTO, "package.json: top level is not a list");
		goto out;
	}
	if (!(d.defs = calloc(json_array_size(root) + 1, sizeof(*d.defs)))) {
		rc = -ENOMEM;
		goto out;
	}
	json_array_foreach(root, i, e)
	{
		rc = parse_def(e, &d.defs[d.n], i, err);
		d.n++;
		if (rc)
			goto out;
		/* get_package_info answers the first entry of a name: a second one could
		 * never be built, so it is a mistake in the file */
		for (size_t j = 0; j + 1 < d.n; j++)
			if (!strcmp(d.defs[j].package, d.defs[d.n - 1].package)) {
				rc = bad(err, i, d.defs[j].package, "duplicate 'Package'");
				goto out;
			}
	}
out:
	json_decref(root);
	if (rc)
		pkg_defs_release(&d);
	else
		*out = d;
	return rc;
}

void pkg_defs_release(struct pkg_defs *d)
{
	for (size_t i = 0; i < d->n; i++)
		def_free(&d->defs[i]);
	free(d->defs);
	d->defs = NULL;
	d->n = 0;
}

/* ---- planning ---- */

struct ctx {
	const struct pkg_defs *d;
	const struct pkg_run *run;
	char **dirnames; /* per run dir: {name}_{component}_{target} */
	unsigned char *buildable; /* per def: in get_package_list's pkg_list */
	unsigned char *gfx; /* per def: is_gfxarch_package in the run's mode */
	char mv[48]; /* update_package_name's pkg_suffix for a versioned name */
	char av[16]; /* the same for a non-versioned name: "" or "-asan" */
};

struct cfg {
	int versioned;
	const char *gfx_arch; /* a target, "", GFX_HOST or GFX_META */
};

static int is_sentinel(const char *a)
{
	return !strcmp(a, GFX_HOST) || !strcmp(a, GFX_META);
}

static int starts(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

static int ends(const char *s, const char *p)
{
	size_t n = strlen(s), m = strlen(p);

	return n >= m && !strcmp(s + n - m, p);
}

/* get_package_info: the first entry of that name, or -1 */
static long find_def(const struct ctx *c, const char *name)
{
	for (size_t i = 0; i < c->d->n; i++)
		if (!strcmp(c->d->defs[i].package, name))
			return (long)i;
	return -1;
}

static int in_pkg_list(const struct ctx *c, const char *name)
{
	long i = find_def(c, name);

	return i >= 0 && c->buildable[i];
}

/* the run dir of that exact name, or -1 */
static long find_dir(const struct ctx *c, const char *name)
{
	for (size_t k = 0; k < c->run->ndirs; k++)
		if (!strcmp(c->dirnames[k], name))
			return (long)k;
	return -1;
}

/* (name.lower() + "/") in line.lower(), and the line is not blank */
static int line_matches(const char *line, const char *name)
{
	size_t n = strlen(name), l = strlen(line);
	const char *s = line;

	while (isspace((unsigned char)*s))
		s++;
	if (!*s)
		return 0;
	for (size_t i = 0; i + n + 1 <= l; i++)
		if (!strncasecmp(line + i, name, n) && line[i + n] == '/')
			return 1;
	return 0;
}

/* _has_arch_specific_artifacts: a {Artifact}_{component}_gfx* directory exists */
static int has_arch_specific(const struct ctx *c, const struct pkg_def *def)
{
	char pat[512];

	for (size_t i = 0; i < def->nitems; i++)
		for (size_t s = 0; s < def->items[i].nsubdirs; s++)
			for (size_t k = 0; k < def->items[i].subdirs[s].ncomponents; k++) {
				snprintf(pat, sizeof(pat), "%s_%s_gfx", def->items[i].artifact,
					 def->items[i].subdirs[s].components[k]);
				for (size_t r = 0; r < c->run->ndirs; r++)
					if (starts(c->dirnames[r], pat))
						return 1;
			}
	return 0;
}

/* is_gfxarch_package. kpack: a non-meta -devel package never is; a metapackage says so
 * by its Gfxarch; any other package is when the run has a gfx* directory for one of its
 * artifacts (its Gfxarch is ignored). Single-arch: Gfxarch as written. */
static int gfx_of(const struct ctx *c, const struct pkg_def *def)
{
	if (!c->run->kpack)
		return def->gfxarch;
	if (ends(def->package, "-devel") && !def->meta)
		return 0;
	if (def->meta)
		return def->gfxarch;
	return has_arch_specific(c, def);
}

/* get_package_list: a definition is buildable unless disabled, when it is a metapackage
 * or when some run directory's prefix is one of its artifacts. The prefix is the name
 * before the first of these markers that the name contains, tried in this order (quirk:
 * the order of the list, not the position in the name). */
static int buildable(struct ctx *c, struct pkg_plan *p)
{
	static const char *const markers[] = {"_dbg_", "_dev_", "_doc_",
					      "_lib_", "_run_", "_test_"};
	size_t np = 0;
	char **prefixes = calloc(c->run->ndirs + 1, sizeof(char *));
	int rc = 0;

	if (!prefixes)
		return -ENOMEM;
	for (size_t k = 0; k < c->run->ndirs; k++)
		for (size_t m = 0; m < sizeof(markers) / sizeof(markers[0]); m++) {
			const char *at = strstr(c->dirnames[k], markers[m]);

			if (!at)
				continue;
			if (!(prefixes[np++] =
				      strndup(c->dirnames[k], (size_t)(at - c->dirnames[k]))))
				rc = -ENOMEM;
			break;
		}
	if (!(p->skipped = calloc(c->d->n + 1, sizeof(char *))))
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < c->d->n; i++) {
		const struct pkg_def *def = &c->d->defs[i];
		int found = def->meta;

		if (def->disabled)
			continue;
		for (size_t j = 0; !found && j < def->nitems; j++)
			for (size_t k = 0; !found && k < np; k++)
				found = prefixes[k] && !strcmp(prefixes[k], def->items[j].artifact);
		if (found)
			c->buildable[i] = 1;
		else if (!(p->skipped[p->nskipped++] = strdup(def->package)))
			rc = -ENOMEM;
	}
	for (size_t k = 0; k < np; k++)
		free(prefixes[k]);
	free(prefixes);
	return rc;
}

/* update_package_name. NULL on ENOMEM. */
static char *pkg_name(const struct ctx *c, size_t di, struct cfg cfg)
{
	const char *pkg = c->d->defs[di].package;
	const char *a = cfg.gfx_arch;
	struct rk_buf b = RK_BUF_INIT;
	size_t n = strlen(pkg);
	int ok;

	/* debian_replace_devel_name: a trailing -devel only */
	if (c->run->type == PKG_DEB && ends(pkg, "-devel"))
		ok = !rk_buf_add(&b, pkg, n - 6) && !rk_buf_adds(&b, "-dev");
	else
		ok = !rk_buf_adds(&b, pkg);
	/* kpack host: amdrocm-fft-host7.1, "-host" before the version */
	if (ok && c->run->kpack && c->gfx[di] && !strcmp(a, GFX_HOST))
		ok = !rk_buf_adds(&b, "-host");
	if (ok)
		ok = !rk_buf_adds(&b, cfg.versioned ? c->mv : c->av);
	/* kpack device or single-arch: "-" + the target's first "-" field, lowercased.
	 * quirk: an empty target gives a trailing "-" (docs 7.3's malformed {dep}{MV}-) */
	if (ok && c->gfx[di] && !(c->run->kpack && is_sentinel(a))) {
		ok = !rk_buf_adds(&b, "-");
		for (const char *s = a; ok && *s && *s != '-'; s++) {
			char ch = (char)tolower((unsigned char)*s);

			ok = !rk_buf_add(&b, &ch, 1);
		}
	}
	if (!ok) {
		rk_buf_release(&b);
		return NULL;
	}
	return rk_buf_detach(&b, NULL);
}

/* A list of strings, owned. */
struct sv {
	char **v;
	size_t n, alloc;
};

static int sv_take(struct sv *s, char *str)
{
	if (!str)
		return -ENOMEM;
	if (s->n == s->alloc) {
		size_t na = s->alloc ? 2 * s->alloc : 8;
		char **nv = realloc(s->v, na * sizeof(char *));

		if (!nv) {
			free(str);
			return -ENOMEM;
		}
		s->v = nv;
		s->alloc = na;
	}
	s->v[s->n++] = str;
	return 0;
}

static void sv_free(struct sv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static int join_add(struct rk_buf *b, const char *s)
{
	if (b->len && rk_buf_adds(b, ", "))
		return -ENOMEM;
	return rk_buf_adds(b, s) ? -ENOMEM : 0;
}

/* convert_to_versiondependency. kpack without preserve_arch: a versioned package's
 * dependencies name hosts (GFX_HOST), a non-versioned one's the versioned meta
 * (GFX_META). quirk: any name starting "amdrocm" (no dash) that is not buildable is
 * dropped; other names pass unchanged. */
static int convert(const struct ctx *c, char *const *deps, size_t n, struct cfg cfg, int preserve,
		   char **out)
{
	struct cfg local = {1, cfg.gfx_arch};
	struct rk_buf b = RK_BUF_INIT;
	int rc = 0;

	if (c->run->kpack && !preserve)
		local.gfx_arch = cfg.versioned ? GFX_HOST : GFX_META;
	for (size_t i = 0; !rc && i < n; i++) {
		int listed = in_pkg_list(c, deps[i]);
		char *name;

		if (starts(deps[i], "amdrocm") && !listed)
			continue;
		if (!listed) {
			rc = join_add(&b, deps[i]);
			continue;
		}
		if (!(name = pkg_name(c, (size_t)find_def(c, deps[i]), local)))
			rc = -ENOMEM;
		else
			rc = join_add(&b, name);
		free(name);
	}
	if (!rc && !(*out = rk_buf_detach(&b, NULL)))
		rc = -ENOMEM;
	rk_buf_release(&b);
	return rc;
}

/* append_version_suffix: each comma-separated item (stripped) is pinned to
 * rocm_version[-version_suffix] when it starts with a buildable package's name (quirk:
 * a prefix match, so "amdrocm-fft-host7.1" and "amdrocm-fft7.1-gfx1100" both match
 * "amdrocm-fft"). DEB "name( = V-S)", RPM "name = V-S". Takes s. */
static int append_version(const struct ctx *c, char *s, char **out)
{
	struct rk_buf b = RK_BUF_INIT;
	const char *p = s;
	int rc = 0;

	for (int first = 1; !rc; first = 0) {
		const char *end = strchr(p, ','), *q = end ? end : p + strlen(p);
		const char *a = p;
		int match = 0;

		while (a < q && isspace((unsigned char)*a))
			a++;
		while (q > a && isspace((unsigned char)q[-1]))
			q--;
		for (size_t i = 0; !match && i < c->d->n; i++) {
			const char *pk = c->d->defs[i].package;

			match = c->buildable[i] && strlen(pk) <= (size_t)(q - a) &&
				!strncmp(a, pk, strlen(pk));
		}
		if ((!first && rk_buf_adds(&b, ", ")) || rk_buf_add(&b, a, (size_t)(q - a)))
			rc = -ENOMEM;
		if (!rc && match)
			rc = rk_buf_addf(&b, c->run->type == PKG_DEB ? "( = %s%s%s)" : " = %s%s%s",
					 c->run->rocm_version, *c->run->version_suffix ? "-" : "",
					 c->run->version_suffix)
				     ? -ENOMEM
				     : 0;
		if (!end)
			break;
		p = end + 1;
	}
	free(s);
	if (!rc && !(*out = rk_buf_detach(&b, NULL)))
		rc = -ENOMEM;
	rk_buf_release(&b);
	return rc;
}

/* resolve_versioned_dependencies */
static int resolve(const struct ctx *c, const struct sv *deps, struct cfg cfg, int is_meta,
		   char **out)
{
	int kp = c->run->kpack, rc;
	char *s = NULL;

	*out = NULL;
	if (cfg.versioned && kp && !strcmp(cfg.gfx_arch, GFX_META)) {
		/* the versioned meta: names already made, pin them */
		struct rk_buf b = RK_BUF_INIT;

		for (size_t i = 0; i < deps->n; i++)
			if (join_add(&b, deps->v[i])) {
				rk_buf_release(&b);
				return -ENOMEM;
			}
		if (!(s = rk_buf_detach(&b, NULL)))
			return -ENOMEM;
		return append_version(c, s, out);
	}
	if (kp && is_meta && !is_sentinel(cfg.gfx_arch)) {
		/* a metapackage for one target (or a non-gfx one): gfx deps keep the target */
		struct rk_buf b = RK_BUF_INIT;

		for (size_t i = 0; i < deps->n; i++) {
			long di = find_def(c, deps->v[i]);
			int preserve = di >= 0 && c->gfx[di];

			if ((rc = convert(c, &deps->v[i], 1, cfg, preserve, &s)))
				break;
			rc = *s ? join_add(&b, s) : 0;
			free(s);
			s = NULL;
			if (rc)
				break;
		}
		if (rc || !(s = rk_buf_detach(&b, NULL))) {
			rk_buf_release(&b);
			return rc ? rc : -ENOMEM;
		}
		return append_version(c, s, out);
	}
	if (kp && !is_meta && !is_sentinel(cfg.gfx_arch)) {
		/* deps[0] generic (a host), the rest keep the target. quirk: joined with
		 * ", " even when a side is empty (a dropped first item gives ", x") */
		char *g = NULL;

		if (!deps->n)
			return (*out = strdup("")) ? 0 : -ENOMEM;
		if ((rc = convert(c, deps->v, 1, cfg, 0, &s)))
			return rc;
		if (deps->n == 1) {
			*out = s;
			return 0;
		}
		if ((rc = convert(c, deps->v + 1, deps->n - 1, cfg, 1, &g))) {
			free(s);
			return rc;
		}
		struct rk_buf b = RK_BUF_INIT;

		rc = rk_buf_addf(&b, "%s, %s", s, g) ? -ENOMEM : 0;
		free(s);
		free(g);
		if (!rc && !(*out = rk_buf_detach(&b, NULL)))
			rc = -ENOMEM;
		rk_buf_release(&b);
		return rc;
	}
	if ((rc = convert(c, deps->v, deps->n, cfg, 0, &s)))
		return rc;
	if (is_meta)
		return append_version(c, s, out);
	*out = s;
	return 0;
}

/* has_artifact_for_arch (kpack only). quirk: only the exact {a}_{c}_{suffix}
 * directory is looked at, not its :xnack variants; for a target, items that resolve to
 * "generic" do not count. */
static int has_artifact_for_arch(const struct ctx *c, size_t di, const char *arch)
{
	const struct pkg_def *def = &c->d->defs[di];
	char dn[512];

	if (!c->gfx[di] || def->meta)
		return 1;
	for (size_t i = 0; i < def->nitems; i++) {
		const struct pkg_item *it = &def->items[i];
		const char *suffix = it->gfxarch == 0 ? "generic" : arch;

		if (!is_sentinel(arch) && !strcmp(suffix, "generic"))
			continue;
		for (size_t s = 0; s < it->nsubdirs; s++)
			for (size_t k = 0; k < it->subdirs[s].ncomponents; k++) {
				long r;

				snprintf(dn, sizeof(dn), "%s_%s_%s", it->artifact,
					 it->subdirs[s].components[k], suffix);
				if ((r = find_dir(c, dn)) < 0)
					continue;
				for (size_t l = 0; l < c->run->dirs[r].nlines; l++)
					if (line_matches(c->run->dirs[r].lines[l],
							 it->subdirs[s].name))
						return 1;
			}
	}
	return 0;
}

/* filter_dependencies_by_artifacts: unknown names and non-gfx packages stay */
static int dep_has_artifacts(const struct ctx *c, const char *dep, const char *arch)
{
	long di = find_def(c, dep);

	return di < 0 || !c->gfx[di] || has_artifact_for_arch(c, (size_t)di, arch);
}

static const struct pkg_list *dep_field(const struct pkg_def *def, enum pkg_type t, int which)
{
	switch (which) {
	case 0:
		return t == PKG_DEB ? &def->deb_depends : &def->rpm_requires;
	case 1:
		return t == PKG_DEB ? &def->deb_recommends : &def->rpm_recommends;
	default:
		return t == PKG_DEB ? &def->deb_suggests : &def->rpm_suggests;
	}
}

/* process_main_dependencies_kpack / _single_arch (which 0) and
 * process_secondary_dependencies (which 1, 2: the field as it is, in both modes) */
static int deps_of(const struct ctx *c, size_t di, struct cfg cfg, int which, char **out)
{
	const struct pkg_def *def = &c->d->defs[di];
	const struct pkg_list *l = dep_field(def, c->run->type, which);
	const char *a = cfg.gfx_arch;
	struct sv deps = {0};
	int rc = 0;

	*out = NULL;
	if (which || !c->run->kpack) {
		for (size_t i = 0; !rc && i < l->n; i++)
			rc = sv_take(&deps, strdup(l->v[i]));
	} else if (def->meta && !strcmp(a, GFX_META)) {
		/* expand_metapackage_to_all_archs (filter_archs_with_artifacts keeps every
		 * target of a metapackage) */
		for (size_t i = 0; !rc && i < c->run->narchs; i++)
			rc = sv_take(&deps, pkg_name(c, di, (struct cfg){1, c->run->archs[i]}));
	} else if (!strcmp(a, GFX_META)) {
		/* expand_kpack_meta_dependencies: the host and every target with artifacts */
		rc = sv_take(&deps, pkg_name(c, di, (struct cfg){1, GFX_HOST}));
		for (size_t i = 0; !rc && i < c->run->narchs; i++)
			if (has_artifact_for_arch(c, di, c->run->archs[i]))
				rc = sv_take(&deps,
					     pkg_name(c, di, (struct cfg){1, c->run->archs[i]}));
	} else if (def->meta || !strcmp(a, GFX_HOST) || !c->gfx[di]) {
		/* a metapackage for one target, a host (its gfx deps come in through the
		 * devices), a non-gfx package: the list less what has no artifacts */
		for (size_t i = 0; !rc && i < l->n; i++) {
			long dd = find_def(c, l->v[i]);

			if (!def->meta && !strcmp(a, GFX_HOST) && dd >= 0 && c->gfx[dd])
				continue;
			if (dep_has_artifacts(c, l->v[i], a))
				rc = sv_take(&deps, strdup(l->v[i]));
		}
	} else {
		/* a device: its own host, then the gfx deps with artifacts for the target */
		rc = sv_take(&deps, strdup(def->package));
		for (size_t i = 0; !rc && i < l->n; i++) {
			long dd = find_def(c, l->v[i]);

			if (dd >= 0 && c->gfx[dd] && has_artifact_for_arch(c, (size_t)dd, a))
				rc = sv_take(&deps, strdup(l->v[i]));
		}
	}
	if (!rc)
		rc = deps.n ? resolve(c, &deps, cfg, def->meta, out)
			    : ((*out = strdup("")) ? 0 : -ENOMEM);
	sv_free(&deps);
	return rc;
}

/* filter_components_fromartifactory: the stage dirs a versioned variant copies */
static int components(const struct ctx *c, size_t di, const char *a, struct pkg_out *o)
{
	const struct pkg_def *def = &c->d->defs[di];
	int kp = c->run->kpack;
	const char *dir_suffix;
	char base[512];
	size_t cap = 0;

	if (kp && !strcmp(a, GFX_META))
		return 0;
	if (kp && !strcmp(a, GFX_HOST))
		dir_suffix = "generic";
	else
		dir_suffix = c->gfx[di] ? a : "generic";
	for (size_t i = 0; i < def->nitems; i++) {
		const struct pkg_item *it = &def->items[i];
		const char *suffix = dir_suffix;

		if (it->gfxarch >= 0) {
			/* a device skips generic-only items; quirk: an item marked gfx
			 * resolves to the literal gfx_arch, so a host looks for
			 * "{a}_{c}_gfx_host" and a kpack non-gfx package for "{a}_{c}_" */
			if (kp && *a && !is_sentinel(a) && !it->gfxarch)
				continue;
			suffix = it->gfxarch ? a : "generic";
		}
		for (size_t s = 0; s < it->nsubdirs; s++)
			for (size_t k = 0; k < it->subdirs[s].ncomponents; k++) {
				size_t bl = (size_t)snprintf(base, sizeof(base), "%s_%s_%s",
							     it->artifact,
							     it->subdirs[s].components[k], suffix);
				/* the directory itself, then its "{base}:*" variants */
				for (int pass = 0; pass < 2; pass++)
					for (size_t r = 0; r < c->run->ndirs; r++) {
						const char *dn = c->dirnames[r];

						if (pass ? !(starts(dn, base) && dn[bl] == ':')
							 : strcmp(dn, base))
							continue;
						for (size_t l = 0; l < c->run->dirs[r].nlines;
						     l++) {
							if (!line_matches(c->run->dirs[r].lines[l],
									  it->subdirs[s].name))
								continue;
							if (o->nsources == cap) {
								size_t nc = cap ? 2 * cap : 8;
								struct pkg_source *ns =
									realloc(o->sources,
										nc * sizeof(*ns));

								if (!ns)
									return -ENOMEM;
								o->sources = ns;
								cap = nc;
							}
							o->sources[o->nsources++] =
								(struct pkg_source){r, l};
						}
					}
			}
	}
	return 0;
}

static void out_free(struct pkg_out *o)
{
	free(o->name);
	free(o->arch);
	free(o->version);
	free(o->release);
	free(o->depends);
	free(o->recommends);
	free(o->suggests);
	free(o->provides);
	free(o->replaces);
	free(o->conflicts);
	free(o->obsoletes);
	free(o->sources);
}

/* process_name_field; DEB maps a trailing -devel to -dev */
static char *names(const struct ctx *c, const struct pkg_list *l, int deb)
{
	struct rk_buf b = RK_BUF_INIT;
	int rc = 0;

	for (size_t i = 0; !rc && i < l->n; i++) {
		size_t n = strlen(l->v[i]);

		if (b.len)
			rc = rk_buf_adds(&b, ", ");
		if (!rc && deb && c->run->type == PKG_DEB && ends(l->v[i], "-devel"))
			rc = rk_buf_add(&b, l->v[i], n - 6) || rk_buf_adds(&b, "-dev");
		else if (!rc)
			rc = rk_buf_adds(&b, l->v[i]);
	}
	if (rc) {
		rk_buf_release(&b);
		return NULL;
	}
	return rk_buf_detach(&b, NULL);
}

/* generate_debian_postscripts / generate_rpm_postscripts read major.minor.patch from the
 * version and raise without them; the builders catch that and build nothing */
static int has_patch(const char *v)
{
	const char *d1 = strchr(v, '.'), *d2 = d1 ? strchr(d1 + 1, '.') : NULL;

	return d2 && isdigit((unsigned char)d2[1]);
}

/* One variant: create_versioned_{deb,rpm}_package or create_nonversioned_*. A variant
 * upstream would not produce is left out (0, nothing added). */
static int variant(const struct ctx *c, struct pkg_plan *p, size_t di, enum pkg_kind kind,
		   struct cfg cfg)
{
	const struct pkg_def *def = &c->d->defs[di];
	int deb = c->run->type == PKG_DEB;
	struct pkg_out o = {.def = def, .kind = kind};
	int rc = -ENOMEM;

	if (!(o.name = pkg_name(c, di, cfg)))
		goto fail;
	/* no two packages of one name (a -dev and a -devel entry in DEB): the first wins */
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->pkgs[i].name, o.name)) {
			out_free(&o);
			return 0;
		}
	if (!(o.version = strdup(c->run->rocm_version)) ||
	    !(o.release = strdup(c->run->version_suffix)))
		goto fail;
	if (c->gfx[di] && *cfg.gfx_arch && !is_sentinel(cfg.gfx_arch)) {
		size_t n = strcspn(cfg.gfx_arch, "-");

		if (!(o.arch = strndup(cfg.gfx_arch, n)))
			goto fail;
		for (char *s = o.arch; *s; s++)
			*s = (char)tolower((unsigned char)*s);
	}
	if (cfg.versioned) {
		int gfx_meta = c->run->kpack && !strcmp(cfg.gfx_arch, GFX_META);

		if ((rc = deps_of(c, di, cfg, 0, &o.depends)) ||
		    (rc = deps_of(c, di, cfg, 1, &o.recommends)) ||
		    (rc = deps_of(c, di, cfg, 2, &o.suggests)) ||
		    (rc = components(c, di, cfg.gfx_arch, &o)))
			goto fail;
		rc = -ENOMEM;
		if (!(o.provides = strdup("")) || !(o.replaces = strdup("")) ||
		    !(o.conflicts = strdup("")) || !(o.obsoletes = strdup("")))
			goto fail;
		o.empty = def->meta || gfx_meta;
		/* Nothing to copy although content was expected: DEB logs and skips (kpack)
		 * or exits (single-arch; we leave the package out). quirk: RPM in kpack mode
		 * warns and builds an empty package, so it stays. */
		if (!o.nsources && !o.empty && (deb || !c->run->kpack)) {
			char **nv = realloc(p->empty, (p->nempty + 1) * sizeof(*nv));

			rc = -ENOMEM;
			if (!nv)
				goto fail;
			p->empty = nv;
			nv[p->nempty++] = o.name; /* kept for the caller's log line */
			o.name = NULL;
			out_free(&o);
			return 0;
		}
		if (def->postinstall && !has_patch(c->run->rocm_version)) {
			out_free(&o);
			return 0;
		}
		o.scripts = def->postinstall;
		/* the DEB rules strip unless Disable_DEB_STRIP; kpack always disables it
		 * (TheRock#4047). quirk: the RPM spec always gets disable_rpm_strip=True,
		 * whatever Disable_RPM_STRIP says */
		o.strip = deb && !c->run->kpack && !def->disable_deb_strip;
	} else {
		struct sv self = {0};

		if ((rc = sv_take(&self, strdup(def->package))))
			goto fail;
		rc = resolve(c, &self, cfg, def->meta, &o.depends);
		sv_free(&self);
		if (rc)
			goto fail;
		rc = -ENOMEM;
		/* DEB: Provides, Replaces, Conflicts; RPM: Provides, Obsoletes, Conflicts */
		if (!(o.recommends = strdup("")) || !(o.suggests = strdup("")) ||
		    !(o.provides = names(c, &def->provides, 1)) ||
		    !(o.conflicts = names(c, &def->conflicts, 1)) ||
		    !(o.replaces = deb ? names(c, &def->replaces, 1) : strdup("")) ||
		    !(o.obsoletes = deb ? strdup("") : names(c, &def->obsoletes, 0)))
			goto fail;
		o.empty = 1;
	}
	p->pkgs[p->n++] = o;
	return 0;
fail:
	out_free(&o);
	return rc;
}

/* The M.m of a version as update_package_name takes it: the leading digits of the first
 * two dot-separated fields. */
static int major_minor(const char *v, char *out, size_t size)
{
	const char *d = strchr(v, '.');
	size_t a = strspn(v, "0123456789"), b;

	if (!d || !a || a > (size_t)(d - v) || !(b = strspn(d + 1, "0123456789")))
		return -EINVAL;
	snprintf(out, size, "%.*s.%.*s", (int)a, v, (int)b, d + 1);
	return 0;
}

int pkg_plan_make(const struct pkg_defs *d, const struct pkg_run *run, struct pkg_plan *out,
		  struct rk_err *err)
{
	struct ctx c = {.d = d, .run = run};
	struct pkg_plan p = {0};
	char mm[32];
	int rc = -ENOMEM;

	if (!run->rocm_version || strlen(run->rocm_version) > 64 ||
	    major_minor(run->rocm_version, mm, sizeof(mm)))
		return rk_err_set(err, -EINVAL, "version '%s' does not have major.minor versions",
				  run->rocm_version ? run->rocm_version : "");
	snprintf(c.av, sizeof(c.av), "%s", run->asan ? "-asan" : "");
	snprintf(c.mv, sizeof(c.mv), "%s%s", c.av, mm);
	c.dirnames = calloc(run->ndirs + 1, sizeof(char *));
	c.buildable = calloc(d->n + 1, 1);
	c.gfx = calloc(d->n + 1, 1);
	/* a gfx package has at most 3 + narchs variants, anything else 2 */
	p.pkgs = calloc(d->n * (3 + (run->kpack ? run->narchs : 0)) + 1, sizeof(*p.pkgs));
	if (asprintf(&p.prefix, "/opt/rocm/core%s-%s", run->asan ? "-asan" : "", mm) < 0)
		p.prefix = NULL;
	if (!c.dirnames || !c.buildable || !c.gfx || !p.pkgs || !p.prefix)
		goto out;
	for (size_t k = 0; k < run->ndirs; k++)
		if (asprintf(&c.dirnames[k], "%s_%s_%s", run->dirs[k].name, run->dirs[k].component,
			     run->dirs[k].target) < 0) {
			c.dirnames[k] = NULL;
			goto out;
		}
	if ((rc = buildable(&c, &p)))
		goto out;
	for (size_t i = 0; i < d->n; i++)
		c.gfx[i] = (unsigned char)gfx_of(&c, &d->defs[i]);
	/* build_package_variants, over pkg_list in file order */
	for (size_t i = 0; !rc && i < d->n; i++) {
		if (!c.buildable[i])
			continue;
		if (!run->kpack) {
			/* build_singlearch_package_variants: the target is the family */
			const char *a = run->narchs ? run->archs[0] : "";
			size_t had = p.nempty;

			/* a versioned package with nothing to copy: upstream exits before the
			 * non-versioned one, so neither (any other failure of the versioned
			 * one is caught and the non-versioned one still built) */
			if (!(rc = variant(&c, &p, i, PKG_VERSIONED, (struct cfg){1, a})) &&
			    p.nempty == had)
				rc = variant(&c, &p, i, PKG_NONVERSIONED, (struct cfg){0, a});
		} else if (!c.gfx[i]) {
			/* build_simple_package_variants */
			if (!(rc = variant(&c, &p, i, PKG_VERSIONED, (struct cfg){1, ""})))
				rc = variant(&c, &p, i, PKG_NONVERSIONED, (struct cfg){0, ""});
		} else {
			/* build_gfxarch_package_variants: host (not for a metapackage), a
			 * device per target, the versioned meta, the non-versioned */
			if (!d->defs[i].meta)
				rc = variant(&c, &p, i, PKG_HOST, (struct cfg){1, GFX_HOST});
			for (size_t a = 0; !rc && a < run->narchs; a++)
				rc = variant(&c, &p, i, PKG_DEVICE, (struct cfg){1, run->archs[a]});
			if (!rc)
				rc = variant(&c, &p, i, PKG_GFXMETA, (struct cfg){1, GFX_META});
			if (!rc)
				rc = variant(&c, &p, i, PKG_NONVERSIONED,
					     (struct cfg){0, GFX_META});
		}
	}
out:
	for (size_t k = 0; c.dirnames && k < run->ndirs; k++)
		free(c.dirnames[k]);
	free(c.dirnames);
	free(c.buildable);
	free(c.gfx);
	if (rc) {
		pkg_plan_release(&p);
		return rk_err_set(err, rc, "package plan: %s", strerror(-rc));
	}
	*out = p;
	return 0;
}

void pkg_plan_release(struct pkg_plan *p)
{
	for (size_t i = 0; i < p->n; i++)
		out_free(&p->pkgs[i]);
	free(p->pkgs);
	for (size_t i = 0; i < p->nskipped; i++)
		free(p->skipped[i]);
	free(p->skipped);
	for (size_t i = 0; i < p->nempty; i++)
		free(p->empty[i]);
	free(p->empty);
	free(p->prefix);
	memset(p, 0, sizeof(*p));
}
