/* pkg_families.c: the single-arch families of one run declare that they share paths
 * (formats/packages/pkg_families.h).
 *
 * Upstream builds a legacy run's packages once per GPU family (build_package.py --target,
 * one CI job each), every family into the same prefix (/opt/rocm/core-M.m) from the same
 * definition: amdrocm-sparse7.13-gfx94x and amdrocm-sparse7.13-gfx110x both hold
 * lib/librocsparse.so.0.1. Its rules declare nothing between them, so apt installs both
 * and dpkg fails ("trying to overwrite"). We say what the rules imply: a versioned
 * package of a family with content conflicts with the same definition's package of
 * every other family of the run (DEB: Conflicts and Replaces, so apt refuses the pair
 * and can switch families; RPM: Conflicts). Declared by definition, without comparing
 * file lists; a name the other family does not build is harmless in Conflicts. */
#include <errno.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "rk/buf.h"
#include "formats/packages/pkg_families.h"

/* s += ", " + the package name with its family field replaced by fam's */
static int add(char **s, const char *name, size_t keep, const char *fam)
{
	struct rk_buf b = RK_BUF_INIT;
	int rc = rk_buf_adds(&b, *s);

	if (!rc && **s)
		rc = rk_buf_adds(&b, ", ");
	if (!rc)
		rc = rk_buf_add(&b, name, keep);
	for (const char *f = fam; !rc && *f && *f != '-'; f++) {
		char ch = (char)tolower((unsigned char)*f);

		rc = rk_buf_add(&b, &ch, 1);
	}
	if (rc) {
		rk_buf_release(&b);
		return -ENOMEM;
	}
	free(*s);
	*s = rk_buf_detach(&b, NULL);
	return 0;
}

static int same_family(const char *arch, const char *fam)
{
	size_t n = strcspn(fam, "-");

	if (strlen(arch) != n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (arch[i] != (char)tolower((unsigned char)fam[i]))
			return 0;
	return 1;
}

int pkg_family_conflicts(struct pkg_plan *p, const struct pkg_run *run, const char *const *families,
			 size_t nfamilies)
{
	if (run->kpack)
		return 0;
	for (size_t i = 0; i < p->n; i++) {
		struct pkg_out *o = &p->pkgs[i];
		size_t nl, al;

		if (o->kind != PKG_VERSIONED || !o->arch || o->empty)
			continue;
		nl = strlen(o->name);
		al = strlen(o->arch);
		if (nl <= al || strcmp(o->name + nl - al, o->arch))
			continue;
		for (size_t f = 0; f < nfamilies; f++) {
			if (same_family(o->arch, families[f]))
				continue;
			if (add(&o->conflicts, o->name, nl - al, families[f]) ||
			    (run->type == PKG_DEB &&
			     add(&o->replaces, o->name, nl - al, families[f])))
				return -ENOMEM;
		}
	}
	return 0;
}
