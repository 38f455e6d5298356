/* tree_tar.h: a tree as GNU tar lays it out, a service of the views
 * (services/tree_tar.c). */
#ifndef RK_SERVICES_TREE_TAR_H
#define RK_SERVICES_TREE_TAR_H

#include "engine/vfs_int.h"
#include "formats/archive/tar_layout.h"

/* root's tree as GNU tar lays it out (members sorted by name, rooted at "./", hardlinks
 * to their first path, every mtime the newest, which *newest receives when not NULL).
 * Reads the tree only. */
int vfs_tree_tar(const struct node *root, struct rk_composite *out, int64_t *newest);

#endif
