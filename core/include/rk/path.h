/* rk/path.h: normalizing untrusted archive member paths and link targets. Pure. */
#ifndef RK_PATH_H
#define RK_PATH_H

#include <stddef.h>

/* Normalize an archive member name into out: leading '/' and "./" dropped, repeated
 * '/' and "." components removed, trailing '/' dropped. Returns the length, 0 when
 * nothing is left (the archive root itself), -EINVAL when a component is "..",
 * -ENAMETOOLONG when it does not fit. */
int rk_path_normalize(const char *in, char *out, size_t n);

/* True when a symlink at path (normalized, relative to the view root) pointing at
 * target could resolve outside that root: target absolute or empty, a leading run of
 * ".." climbing above the root, or any ".." after a name component (the name may be
 * another symlink, so only a leading run of ".." can be checked lexically). With every
 * kept link obeying this and every member's parents being real directories, no chain
 * of links leaves the root. Pure. */
int rk_path_link_escapes(const char *path, const char *target);

/* The longest member path the outputs take: GNU tar -x, dpkg and rpm all fail on a path of
 * PATH_MAX (4096) bytes or more below the directory they unpack into, and the install
 * prefix (/opt/rocm-7.13.0/...) and the suffixes dpkg (".dpkg-new") and rpm (";<hex>")
 * add while unpacking need the room left. */
#define RK_PATH_OUT_MAX 3840
/* Why a normalized member path cannot be written by every output (tar -x, dpkg, rpm and
 * the rpm repodata XML), or NULL when it can: a component over 255 bytes (NAME_MAX:
 * tar -x, dpkg and rpm fail with ENAMETOOLONG), a path over RK_PATH_OUT_MAX bytes, a
 * control character (dpkg refuses a newline in a name; XML 1.0, the repodata, cannot
 * carry C0 controls at all; dpkg -L, rpm -ql and our own TAB-separated lists are line
 * and field based, so a tab and DEL go too) or bytes that are not UTF-8 (XML again).
 * Pure. */
const char *rk_path_unwritable(const char *path);

#endif
