/* rk/kpack_view.h: what RUN/kpack/ of a legacy run splits (services/kpack_split.c,
 * read by views/view_kpack.c).
 *
 * By default RUN/kpack/ splits every non-generic artifact of a legacy run (and so
 * ingests them all). A process that wants the split of some artifacts only (rockpack
 * split naming artifacts) selects their stems before RUN/kpack/ is first read: RUN/kpack/ of a
 * legacy run then splits, ingests and lists the outputs of those artifacts only, the
 * <P>_generic output from the first selected artifact of <P> in name order. The
 * selection is the vfs's, set before anything reads RUN/kpack/; the daemon never sets it.
 * A kpack-split run is not affected (its stored artifacts are listed). */
#ifndef RK_KPACK_VIEW_H
#define RK_KPACK_VIEW_H

#include <stddef.h>

struct rk_vfs;

/* Select stems[0..n) (copied) for v; n == 0 selects every artifact again. 0 or -ENOMEM. */
int rk_kpack_view_select(struct rk_vfs *v, const char *const *stems, size_t n);

#endif
