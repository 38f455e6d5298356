/* pkg_closure.c: the dependents of a left-out package are left out too, transitively
 * (pkg_closure.h). TheRock's build_package.py never builds a package whose content is
 * empty; apt and dnf then refuse every package that needs it, so the repository leaves
 * those out as well and says why. */
#include <string.h>

#include "formats/packages/pkg_closure.h"

int pkg_relation_next(const char **pos, const char **w, size_t *len, int *alt)
{
	const char *s = *pos;

	*alt = 0;
	for (;;) {
		s += strspn(s, " \t");
		if (*s == '|')
			*alt = 1;
		else if (*s == ',')
			*alt = 0;
		else
			break;
		s++;
	}
	if (!*s)
		return 0;
	*w = s;
	*len = strcspn(s, " \t(|,<>=");
	/* the rest of this word's version: "(= 7.13.0-1)" or RPM's "= 7.13.0-1" */
	s += strcspn(s, "|,");
	*pos = s;
	return 1;
}

/* 1 when w (len n) is one of names[0..n) that is gone, 2 when one of absent, else 0
 * (served, or another repository's). */
static int missing(const char *w, size_t len, const char *const *names, size_t n,
		   const unsigned char *gone, const char *const *absent, size_t nabsent)
{
	for (size_t i = 0; i < n; i++)
		if (gone[i] && strlen(names[i]) == len && !strncmp(names[i], w, len))
			return 1;
	for (size_t i = 0; i < nabsent; i++)
		if (strlen(absent[i]) == len && !strncmp(absent[i], w, len))
			return 2;
	return 0;
}

/* The first relation of depends none of whose alternatives is served, as its first
 * alternative's name (in *w, *len); 0 when every relation has one. */
static int unmet(const char *depends, const char *const *names, size_t n, const unsigned char *gone,
		 const char *const *absent, size_t nabsent, const char **first, size_t *flen)
{
	const char *pos = depends ? depends : "", *w;
	size_t len;
	int alt, all = 0;

	while (pkg_relation_next(&pos, &w, &len, &alt)) {
		if (!alt) {
			if (all)
				return 1;
			*first = w;
			*flen = len;
			all = 1;
		}
		if (all && (!len || !missing(w, len, names, n, gone, absent, nabsent)))
			all = 0;
	}
	return all;
}

size_t pkg_closure(const char *const *names, const char *const *depends, size_t n,
		   const char *const *absent, size_t nabsent, unsigned char *gone,
		   const char **needs)
{
	size_t left = 0;

	for (size_t i = 0; i < n; i++)
		needs[i] = NULL;
	for (int changed = 1; changed;) {
		changed = 0;
		for (size_t i = 0; i < n; i++) {
			const char *w = NULL;
			size_t len = 0;

			if (gone[i] ||
			    !unmet(depends[i], names, n, gone, absent, nabsent, &w, &len))
				continue;
			/* the name as stored (names or absent), not a pointer into depends */
			needs[i] = NULL;
			for (size_t k = 0; !needs[i] && k < n; k++)
				if (strlen(names[k]) == len && !strncmp(names[k], w, len))
					needs[i] = names[k];
			for (size_t k = 0; !needs[i] && k < nabsent; k++)
				if (strlen(absent[k]) == len && !strncmp(absent[k], w, len))
					needs[i] = absent[k];
			gone[i] = 1;
			changed = 1;
			left++;
		}
	}
	return left;
}
