/* tarz_file.h: a compressed tarball (.tar.gz, .tar.zst) as a file of a private tree: an
 * ops-backed file (engine/node.h) over the compressed pieces of cache/tar_compress.h. */
#ifndef RK_TARZ_FILE_H
#define RK_TARZ_FILE_H

#include "engine/vfs_int.h"

struct rk_tarz;

/* A file name in private directory dir: z (planned, rk_tarz_plan; owned from here on,
 * also on failure) over the .tar tar (another node's composite, borrowed: it must live
 * as long as this node, as a file of the same tree does). Its size is known once z's
 * pieces are computed, on the first stat or open (on all cores). NULL: ENOMEM. */
struct node *vfs_tarz_file(struct node *dir, const char *name, int64_t mtime,
			   const struct rk_composite *tar, struct rk_tarz *z);

#endif
