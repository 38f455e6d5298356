/* packages.h: the packages view's own parts (views/packages/). */
#ifndef RK_VIEWS_PACKAGES_H
#define RK_VIEWS_PACKAGES_H

#include <stdint.h>

/* The text of maintainer script which ("postinst", "prerm") of TheRock package
 * (definition name: amdrocm-core, amdrocm-core-devel) for install prefix and ROCm
 * version, DEB or RPM; NULL when upstream has none (or ENOMEM). malloc'd. */
char *pkg_script(const char *package, const char *which, const char *prefix, const char *version,
		 int rpm);

/* The changelog every DEB owns (formats/packages/pkg_doc.h: <prefix>/share/doc/<name>/
 * changelog.Debian.gz), dated when, added to the package's private tree root (its
 * directories made 0755 as needed); its bytes added to m->installed_size. 0 or -ENOMEM.
 * pkg_tree_newest: the newest mtime in the tree below dir (dir's own included). */
struct node;
struct rk_pkg_meta;
int pkg_add_changelog(struct node *root, struct rk_pkg_meta *m, int64_t when);
int64_t pkg_tree_newest(const struct node *dir);

/* The mount's options of RUN/packages/ (declared and made in pkg_options.c). */
struct pkg_cfg {
	char *defs; /* packages=FILE: a package.json (absolute path); NULL: built-in */
	char *sign_key; /* sign_key=KEY: sign the indexes with it; NULL: unsigned */
	int multiarch; /* packages_multiarch: a legacy run as the multi-arch set */
};
struct rk_vfs;
/* The mount's (a zeroed one when there is none: defaults). */
const struct pkg_cfg *pkg_cfg(const struct rk_vfs *v);

/* What view_packages.c's table takes from pkg_options.c: the options, their config, the
 * README lines. */
struct rk_err;
#include "rk/vfs.h"
enum { PKG_NOPTS = 3 };
extern const struct rk_vfs_opt_decl pkg_opts[];
int pkg_config(const char *const *vals, const char *const *labels, void **cfg,
	       struct rk_err *err);
void pkg_config_free(void *cfg);
extern const char pkg_readme[];

/* The run's artifacts the packages are planned over (pkg_artifacts.c). */
struct pkg_defs;
struct pkg_list;
struct rk_artifact;
struct pkg_def;
struct artifact;
struct run;
/* 1 when a definition (not disabled) names a's name and component in its items: some
 * package may read a. */
int pkg_selects(const struct pkg_defs *d, const struct rk_artifact *a);
/* 1 when an item of def names a's artifact and component (pkg_artifacts.c). */
int pkg_def_selects(const struct pkg_def *def, const struct rk_artifact *a);
/* The artifacts the rules see (*out, *n; malloc'd): the run's own, those the definitions
 * select ingested, the others not read (a damaged one is kept, to be left out with its
 * packages); with -o packages_multiarch a legacy run's selected family artifacts are
 * replaced by their kpack split (the service the kpack/ view uses: one generic output,
 * one per architecture), so the run is packaged as the multi-arch set (*kpack set). Of
 * each <name>_<component>, the generic output comes from its first family, and each
 * architecture's output from the first family that holds it. 0 or -errno (transient). */
int pkg_artifacts(struct rk_vfs *v, struct run *r, const struct pkg_defs *d, int *kpack,
		  struct artifact ***out, size_t *n);
/* Manifest lines for damaged artifact a, whose manifest is lost: one "<subdir>/" per
 * Artifact_Subdir of a's name and component in d, so that the rules plan the packages it
 * would feed (which are then left out, each with a log line) instead of silently planning
 * none. Appended to out. */
int pkg_guess_lines(const struct pkg_defs *d, const struct rk_artifact *a, struct pkg_list *out);

#endif
