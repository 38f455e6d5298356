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

/* A tar archive of members listed one by one: path as it goes into the archive (a
 * directory's ends in '/'), mode, size, content (blob id, or a symlink's target; after a
 * push the caller may set v[n - 1].content), origin: the artifact whose blob it is. */
struct vfs_tar_list {
	struct rk_tar_member *v;
	size_t n, cap;
};
int vfs_tar_list_push(struct vfs_tar_list *l, const char *path, uint32_t mode, uint64_t size,
		      const char *blob, const char *link, struct artifact *origin);
/* l's members sorted by path, laid out as GNU tar does with every mtime mtime. */
int vfs_tar_list_layout(struct vfs_tar_list *l, int64_t mtime, struct rk_composite *out);
void vfs_tar_list_release(struct vfs_tar_list *l);

#endif
