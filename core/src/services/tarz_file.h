/* tarz_file.h: a compressed tarball (.tar.gz, .tar.zst) as a file of a private tree: an
 * ops-backed file (engine/node.h) over the compressed pieces of cache/tar_compress.h. */
#ifndef RK_TARZ_FILE_H
#define RK_TARZ_FILE_H

#include "engine/vfs_int.h"

struct rk_tarz;
struct rk_tarz_origin;

/* A file name in private directory dir: z (planned, rk_tarz_plan; owned from here on,
 * also on failure) over the .tar tar (another node's composite, borrowed: it must live
 * as long as this node, as a file of the same tree does). Its size is known once z's
 * pieces are computed, on the first stat or open (on all cores). NULL: ENOMEM. */
struct node *vfs_tarz_file(struct node *dir, const char *name, int64_t mtime,
			   const struct rk_composite *tar, struct rk_tarz *z);

/* The same pieces inside another file (a package's data.tar.zst or .xz, an RPM's payload):
 * tar (borrowed: it must outlive *o) planned as codec at level, computed now on every
 * core (a line in the log says how many pieces were made and how many found: where
 * names the file), then appended to out (rk_tarz_append). *o (free with
 * vfs_tarz_origin_free once out is gone) is what out's piece sources reopen through.
 * 0 or -errno with err set. */
int vfs_tarz_composite(struct rk_vfs *v, const struct rk_composite *tar, int codec, int level,
		       const char *where, struct rk_tarz_origin **o, struct rk_composite *out,
		       struct rk_err *err);
void vfs_tarz_origin_free(struct rk_tarz_origin *o);

#endif
