/* rk/pkgdefs.h: checking what the packages view is given before a mount or a command
 * uses it: a native package definitions file (TheRock's package.json schema,
 * therock-formats.md section 7.1) and a signing key. */
#ifndef RK_PKGDEFS_H
#define RK_PKGDEFS_H

#include "rk/err.h"

/* 0 when path holds definitions the packages view can use, else -errno with one line in
 * err naming the file and the first bad entry. */
int rk_pkg_defs_check(const char *path, struct rk_err *err);

/* 0 when the user's GnuPG keyring can sign with key (a test signature is made), else
 * -errno with one line in err. */
int rk_pkg_sign_check(const char *key, struct rk_err *err);

#endif
