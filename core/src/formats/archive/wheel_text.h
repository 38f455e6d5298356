/* wheel_text.h: text files of the Python packages TheRock builds (therock-formats.md 6.3,
 * 6.5), made from their inputs alone: rocm_sdk's _dist_info.py and the device wheels'
 * .devel_links entries. Bytes out, no I/O. */
#ifndef RK_FORMATS_WHEEL_TEXT_H
#define RK_FORMATS_WHEEL_TEXT_H

#include <stddef.h>

#include "rk/buf.h"

/* _dist_info.py: the template tmpl[0..len) followed by the lines TheRock's build appends
 * (version; split: the kpack-split libraries template; families[0..n): the default and
 * available target families), appended to b. entry: the ALL_PACKAGES key of the package
 * (NULL: the sdist); family: THIS_TARGET_FAMILY (NULL: None). 0 or -ENOMEM. */
int rk_wheel_dist_info_py(const char *tmpl, size_t len, const char *version, int split,
			  char *const *families, size_t n, const char *entry, const char *family,
			  struct rk_buf *b);

/* One .devel_links entry (py_packaging.py) appended to links (", " between entries):
 * relpath rel, and its target relative to the link's directory in the devel tree, "../"
 * per component of rel, then "_rocm_sdk_libraries/<rel>". 0 or -ENOMEM. */
int rk_wheel_devel_link(struct rk_buf *links, const char *rel);

#endif
