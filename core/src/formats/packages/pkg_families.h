/* formats/packages/pkg_families.h: the packages of a legacy run's single-arch families
 * that install the same paths say so (pkg_families.c, docs/packages.md). */
#ifndef RK_PKG_FAMILIES_H
#define RK_PKG_FAMILIES_H

#include <stddef.h>

#include "formats/packages/pkg_rules.h"

/* In the plan of one family of a single-arch run (nothing for a kpack one): each versioned
 * per-family package with content gets, in Conflicts (and for a DEB in Replaces), the
 * same definition's package of every other family in families (the run's target
 * families, "gfx94X-dcgpu"; its own is skipped). 0 or -ENOMEM (the plan keeps what it
 * had added). */
int pkg_family_conflicts(struct pkg_plan *p, const struct pkg_run *run, const char *const *families,
			 size_t nfamilies);

#endif
