/* pkg_docs.c: the changelog every DEB owns (formats/packages/pkg_doc.h), put into the
 * package's tree, and the time it is dated with. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "engine/vfs_int.h"
#include "formats/packages/pkg_doc.h"
#include "rk/composite.h"
#include "views/packages/packages.h"

int64_t pkg_tree_newest(const struct node *dir)
{
	int64_t t = vfs_node_mtime(dir);

	for (size_t i = 0; i < vfs_dir_count(dir); i++) {
		const struct node *n = vfs_dir_node(dir, i);
		int64_t c = S_ISDIR(vfs_node_mode(n)) ? pkg_tree_newest(n) : vfs_node_mtime(n);

		if (c > t)
			t = c;
	}
	return t;
}

int pkg_add_changelog(struct node *root, struct rk_pkg_meta *m, int64_t when)
{
	struct rk_composite *c = calloc(1, sizeof(*c));
	char *rel = rk_deb_changelog_path(m), *path = NULL;
	const char *base;
	struct node *dir;
	void *gz = NULL;
	size_t n = 0;
	int rc = c && rel ? 0 : -ENOMEM;

	if (!rc && asprintf(&path, "%s/%s", m->prefix + (*m->prefix == '/'), rel) < 0) {
		path = NULL;
		rc = -ENOMEM;
	}
	if (!rc)
		rc = rk_deb_changelog_gz(m, when, &gz, &n);
	if (!rc)
		rc = rk_composite_bytes(c, gz, n);
	free(gz);
	free(rel);
	dir = rc ? NULL : vfs_mkdirs(root, path, &base, when);
	if (!rc && !dir)
		rc = -ENOMEM;
	if (!rc) {
		rc = vfs_composite_file(dir, base, S_IFREG | 0644, when, c) ? 0 : -ENOMEM;
		c = NULL; /* the node's, also on failure */
	}
	if (!rc)
		m->installed_size += n;
	free(path);
	rk_composite_free(c);
	return rc;
}
