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

#endif
