/* packages.h: the packages view's own parts (views/packages/). */
#ifndef RK_VIEWS_PACKAGES_H
#define RK_VIEWS_PACKAGES_H

/* The text of maintainer script which ("postinst", "prerm") of TheRock package
 * (definition name: amdrocm-core, amdrocm-core-devel) for install prefix and ROCm
 * version, DEB or RPM; NULL when upstream has none (or ENOMEM). malloc'd. */
char *pkg_script(const char *package, const char *which, const char *prefix, const char *version,
		 int rpm);

/* The mount's options of RUN/packages/ (declared and made in pkg_options.c). */
struct pkg_cfg {
	char *defs; /* packages=FILE: a package.json (absolute path); NULL: built-in */
	char *sign_key; /* sign_key=KEY: sign the indexes with it; NULL: unsigned */
	int multiarch; /* packages_multiarch: a legacy run as the multi-arch set */
};
struct rk_vfs;
/* The mount's (a zeroed one when there is none: defaults). */
const struct pkg_cfg *pkg_cfg(const struct rk_vfs *v);

/* The view's populate and free (view_packages.c; its table is in pkg_options.c). */
struct node;
struct rk_err;
int pkg_populate(struct rk_vfs *v, struct node *dir, struct rk_err *err);
void pkg_state_free(void *ctx);

#endif
