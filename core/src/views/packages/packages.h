/* packages.h: the packages view's own parts (views/packages/). */
#ifndef RK_VIEWS_PACKAGES_H
#define RK_VIEWS_PACKAGES_H

/* The text of maintainer script which ("postinst", "prerm") of TheRock package
 * (definition name: amdrocm-core, amdrocm-core-devel) for install prefix and ROCm
 * version, DEB or RPM; NULL when upstream has none (or ENOMEM). malloc'd. */
char *pkg_script(const char *package, const char *which, const char *prefix, const char *version,
		 int rpm);

#endif
