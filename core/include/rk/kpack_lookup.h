/* rk/kpack_lookup.h: the kpack runtime's lookup, emulated over real files
 * (core/src/services/kpack_lookup.c). The archive and marker formats are rk/kpack.h. */
#ifndef RK_KPACK_LOOKUP_H
#define RK_KPACK_LOOKUP_H

#include <stddef.h>

#include "rk/err.h"
#include "rk/kpack.h"

/* What the runtime's kpack_load_code_object does (section 6, newer "try every
 * candidate" semantics), over real files: resolve the marker's search paths against
 * binary_path's directory, expand @GFXARCH@ for each device arch in archs[0..n) and its
 * compatible targets, and return the code object for "<kernel_name>#<co_index>".
 * Archives are read with normal file I/O on every call (no cache). -ENOENT with a message
 * when no archive or no arch matched (or the last error of the matching candidates, e.g.
 * -ENOENT for a missing key, -EBADMSG for a damaged entry); -ENOTSUP when
 * ROCM_KPACK_DISABLE is set. */
int rk_kpack_load(const struct rk_kpack_marker *m, const char *binary_path, unsigned co_index,
		  const char *const *archs, size_t narchs, void **data, size_t *size,
		  struct rk_err *err);

#endif
