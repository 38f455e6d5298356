/* pkg_rules.h: TheRock's native package definitions (its package.json schema,
 * therock-formats.md section 7.1) and the rules of build_tools/packaging/linux/
 * (packaging_utils.py, build_package.py, deb_package.py, rpm_package.py) that turn them
 * and a run's artifacts into packages: which variants exist, their names, versions,
 * relations and contents. Pure: the caller describes the run; nothing here reads a store,
 * a cache or a clock. Where the doc and upstream's code differ, this follows the code
 * (docs/packages.md says where). */
#ifndef RK_PKG_RULES_H
#define RK_PKG_RULES_H

#include <stddef.h>

#include "rk/err.h"

/* ---- definitions (package.json) ---- */

struct pkg_subdir {
	char *name; /* Artifact_Subdir Name: selects manifest lines containing name + "/" */
	char **components; /* lib, run, dev, doc, test, dbg */
	size_t ncomponents;
};

struct pkg_item {
	char *artifact; /* Artifact: the artifact name (blas, amd-llvm, ...) */
	int gfxarch; /* Artifact_Gfxarch: -1 absent, 0 false, 1 true */
	struct pkg_subdir *subdirs;
	size_t nsubdirs;
};

struct pkg_list {
	char **v;
	size_t n;
};

struct pkg_def {
	char *package; /* amdrocm-fft, amdrocm-fft-devel */
	/* the boolean-like strings, as is_key_defined reads them */
	int gfxarch, meta, postinstall, disabled;
	int disable_dwz, disable_rpm_strip, disable_deb_strip, disable_debug_package;
	char *architecture, *build_arch; /* "amd64" / "x86_64" when absent */
	char *maintainer, *summary, *description, *section, *priority, *group, *license,
		*vendor, *homepage; /* "" when absent */
	struct pkg_list deb_depends, rpm_requires, deb_recommends, rpm_recommends,
		deb_suggests, rpm_suggests, provides, replaces, conflicts, obsoletes;
	struct pkg_item *items; /* Artifactory */
	size_t nitems;
};

struct pkg_defs {
	struct pkg_def *defs; /* in file order */
	size_t n;
	/* the TheRock commit they are from (40 hex digits): the built-in ones', "" for a file
	 * the user names (pkg_defs_load) */
	char commit[41];
};

/* Parse a package.json (a JSON list of entries). Unknown keys are ignored; a malformed
 * entry (wrong type, missing Package, bad Artifactory) fails the whole file with one
 * message naming the entry ("package.json: entry 12 (amdrocm-fft): 'Artifactory' is not a
 * list"). 0 or -errno with err set. */
int pkg_defs_parse(const char *json, size_t len, struct pkg_defs *out, struct rk_err *err);
void pkg_defs_release(struct pkg_defs *d);
/* The definitions in file path (formats/packages/pkg_defs_file.c), or the built-in ones when
 * path is NULL. */
int pkg_defs_load(const char *path, struct pkg_defs *d, struct rk_err *err);
/* An OpenPGP signature of data[0..len) by the secret key named key (formats/packages/pkg_sign.c):
 * clear-signed text (InRelease) when clear, else detached and armored. *out is malloc'd
 * (*outlen bytes, NUL-terminated). 0 or -errno with err set. */
int pkg_sign(const char *key, const void *data, size_t len, int clear, char **out,
	     size_t *outlen, struct rk_err *err);
/* For an RPM header signature (views/packages/pkg_rpmsign.c): key's signing subkey (the
 * newest usable one) as gpg's --local-user names exactly it ("FPR!", fprlen >= 64), the
 * signature tag its algorithm goes into (268 RSAHEADER for RSA, else 267 DSAHEADER, as
 * rpmsign files them) and its creation time. 0 or -ENOKEY/-ENOMEM, err set.
 * pkg_sign_gpg: the gpg program gpgme runs. */
int pkg_sign_subkey(const char *key, char *fpr, size_t fprlen, unsigned *tag, long long *since,
		    struct rk_err *err);
const char *pkg_sign_gpg(void);
/* key's public key, armored (what `gpg --export --armor KEY` writes). */
int pkg_sign_pubkey(const char *key, char **out, size_t *outlen, struct rk_err *err);
/* One line for a reader of the repository: which definitions made it and whether they are
 * of the TheRock commit the run was built from (run_commit: its therock_manifest.json's
 * the_rock_commit, NULL when unknown); path as given to pkg_defs_load. Sets *differs when
 * they are known to be of another commit. malloc'd, no newline; NULL on ENOMEM. */
char *pkg_defs_provenance(const struct pkg_defs *d, const char *path, const char *run_commit,
			  int *differs);
/* The definitions rockfs ships (the text of packaging/packages.json, built in) and the line
 * of packaging/packages.therock: "<TheRock commit> <upstream path>\n". */
extern const char pkg_defs_default[];
extern const size_t pkg_defs_default_len;
extern const char pkg_defs_default_source[];
extern const size_t pkg_defs_default_source_len;

/* ---- a run, as the rules see it ---- */

/* One artifact directory of the run ({name}_{component}_{target}; target may carry an
 * xnack variant: "gfx942:xnack+"), with its artifact_manifest.txt lines. */
struct pkg_artdir {
	const char *name, *component, *target;
	const char *const *lines;
	size_t nlines;
};

enum pkg_type { PKG_DEB, PKG_RPM };

struct pkg_run {
	const struct pkg_artdir *dirs;
	size_t ndirs;
	int kpack; /* multi-arch (kpack-split) set, else single-arch */
	/* kpack: the architectures (xnack stripped, sorted, unique; build_package.py's
	 * get_all_target_families); single-arch: the one target family (archs[0], e.g.
	 * "gfx94X-dcgpu"), narchs 1 */
	const char *const *archs;
	size_t narchs;
	const char *rocm_version; /* --rocm-version: the package version, "7.13.0~dev20261120" */
	const char *version_suffix; /* --version-suffix: the CI run id, or "" */
	enum pkg_type type;
	int asan; /* --build-variant asan */
};

/* ---- the packages ---- */

enum pkg_kind {
	PKG_VERSIONED, /* {pkg}{MV}, single-arch gfx {pkg}{MV}-{arch} */
	PKG_NONVERSIONED, /* {pkg}, single-arch gfx {pkg}-{arch}: depends only */
	PKG_HOST, /* kpack: {pkg}-host{MV} */
	PKG_DEVICE, /* kpack: {pkg}{MV}-{arch} (for a metapackage: its per-arch meta) */
	PKG_GFXMETA, /* kpack: {pkg}{MV}, host + every device */
};

/* A stage directory a package copies: line `line` of run->dirs[dir] (its contents go to
 * the install prefix, flattened, in this order). */
struct pkg_source {
	size_t dir;
	size_t line;
};

struct pkg_out {
	const struct pkg_def *def;
	enum pkg_kind kind;
	char *name; /* the package name (DEB: -devel became -dev) */
	char *arch; /* device / single-arch gfx: the lowercase arch ("gfx1100", "gfx94x"); else NULL */
	char *version; /* rocm_version */
	char *release; /* version_suffix ("" for none) */
	/* relations rendered as upstream renders them for run->type, "" when empty */
	char *depends, *recommends, *suggests, *provides, *replaces, *conflicts, *obsoletes;
	struct pkg_source *sources;
	size_t nsources;
	int empty; /* no content by definition (metapackage, gfx meta, non-versioned) */
	int scripts; /* Postinstall: upstream's maintainer scripts apply (amdrocm-core, -core-devel) */
	int strip; /* upstream would strip this package's ELF files (single-arch DEB) */
};

struct pkg_plan {
	struct pkg_out *pkgs; /* in upstream's build order, no two with the same name */
	size_t n;
	char **skipped; /* definitions left out for missing artifacts (get_package_list) */
	size_t nskipped;
	/* packages left out because their definition selects no file of the run (upstream:
	 * an error and nothing built; single-arch: neither variant) */
	char **empty;
	size_t nempty;
	char *prefix; /* /opt/rocm/core-{M}.{m} (ASAN: core-asan-{M}.{m}) */
};

/* Apply upstream's rules. A package whose content would be empty although it is not empty
 * by definition is left out (upstream logs it and builds nothing), as are relations
 * naming packages without artifacts. 0 or -errno with err set (a version without
 * major.minor: -EINVAL). */
int pkg_plan_make(const struct pkg_defs *d, const struct pkg_run *run, struct pkg_plan *out,
		  struct rk_err *err);
void pkg_plan_release(struct pkg_plan *p);

#endif
