/* rk/pkgdefs.h: checking a native package definitions file (TheRock's package.json
 * schema, therock-formats.md section 7.1) before a mount or a command uses it. */
#ifndef RK_PKGDEFS_H
#define RK_PKGDEFS_H

#include "rk/err.h"

/* 0 when path holds definitions the packages view can use, else -errno with one line in
 * err naming the file and the first bad entry. */
int rk_pkg_defs_check(const char *path, struct rk_err *err);

#endif
