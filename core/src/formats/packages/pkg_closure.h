/* pkg_closure.h: which packages a repository can serve so that it never names a package
 * it does not hold. Pure: names and rendered relations in, a verdict per package out. */
#ifndef RK_PKG_CLOSURE_H
#define RK_PKG_CLOSURE_H

#include <stddef.h>

/* The fixed point over the package graph: packages names[0..n) with their rendered
 * Depends (DEB "a (= V), b | c" or RPM "a = V, b"; NULL or "" for none); absent[0..nabsent)
 * are the names the rules planned but left out (a definition that selects no file).
 * gone[i] is 1 on entry for a package already left out (a damaged artifact). On return
 * gone[i] is 1 for every package one of whose relations has no alternative served: each
 * alternative names an absent package or a gone one. A name that is neither (libc6, gcc)
 * is another repository's and counts as served. needs[i] is then the name it wanted (the
 * first alternative of that relation), else NULL. Returns how many packages it left out. */
size_t pkg_closure(const char *const *names, const char *const *depends, size_t n,
		   const char *const *absent, size_t nabsent, unsigned char *gone,
		   const char **needs);

/* The relation words of depends, one at a time: *pos starts at depends; each call sets
 * *w / *len to the next package name and *alt to 1 when it is an alternative to the
 * previous one (after '|'). 0 at the end, else 1. */
int pkg_relation_next(const char **pos, const char **w, size_t *len, int *alt);

#endif
