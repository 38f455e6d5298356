/* formats/packages/pkg_version.h: the native package version of a run, from the wheel
 * version its manifest records (rocm_package_version), in TheRock's scheme
 * (compute_rocm_package_version.py) where that orders as PEP 440 does, else the
 * smallest change that does (pkg_version.c, docs/packages.md "Versions"). Pure
 * functions, thread-safe. */
#ifndef RK_PKG_VERSION_H
#define RK_PKG_VERSION_H

#include <stddef.h>
#include <stdint.h>

#include "formats/packages/pkg_rules.h"

/* TheRock's release types, in PEP 440 order; OTHER: a version none of them makes (a
 * custom suffix), which keeps its leading X.Y.Z */
enum pkg_vkind { PKG_V_OTHER, PKG_V_DEV, PKG_V_NIGHTLY, PKG_V_BKC, PKG_V_RC, PKG_V_FINAL };

/* The release type of a wheel version; *base is the length of its X.Y.Z, *rest what
 * follows it. */
enum pkg_vkind pkg_version_kind(const char *wheel_version, size_t *base, const char **rest);

/* The package version for type: "7.13.0rc2" -> DEB "7.13.0~pre2", RPM "7.13.0~rc2";
 * "7.13.0a20261120" -> DEB "7.13.0~20261120", RPM "7.13.0~a20261120"; a dev build
 * "7.13.0.dev0+SHA" -> DEB "7.13.0~~devDATE", RPM "7.13.0~~DATEgSHA8" where date is the
 * build's day (YYYYMMDD) and SHA the wheel's local label, else commit (may be NULL;
 * neither: no "g..."); with no day (date NULL or "", as the view calls it: no file of a
 * run records the day) both are "7.13.0~~dev", ordered by the run id. malloc'd, or NULL
 * (ENOMEM). */
char *pkg_version_from_wheel(const char *wheel_version, const char *date, const char *commit,
			     enum pkg_type type);

#endif
