/* confine.h: the one rule every generated tree obeys before it becomes an output (dist/,
 * tarballs/, the synthesized wheels, .deb and .rpm), a service of the views
 * (services/confine.c; docs/internals/services.md).
 *
 * An output entry is kept only when
 *  - its name can be written by tar -x, dpkg, rpm and the repodata (rk_path_unwritable:
 *    ingest refuses such members already, this holds for any tree);
 *  - a symlink: its target is relative and, resolved through the tree's own directories
 *    and symlinks (as the kernel would once the tree is unpacked), never climbs above the
 *    tree's root; a component that is missing is taken as a directory that could appear
 *    there later, so only its ".." count decides;
 *  - with a package set (set not NULL, the union of every package of the set as dist/
 *    resolves it: a directory wins over anything else): an entry that is not a directory
 *    is not where the set has a directory, and a directory not where the set has a
 *    symlink or file (so nothing lands below another package's symlink); its symlinks
 *    resolve, as above, in the set.
 * Everything else is dropped, with one log line each naming what, the path and why; the
 * rule is applied until nothing more is dropped, so every entry kept obeys it in the tree
 * as it is given back. */
#ifndef RK_SERVICES_CONFINE_H
#define RK_SERVICES_CONFINE_H

#include "engine/vfs_int.h"

/* Why the symlink at path rel (below root; its directories are root's) with target would
 * leave root once unpacked ("symlink resolves above the tree's root", ...), or NULL when
 * it stays inside. Reads root only. */
const char *vfs_link_leaves(const struct node *root, const char *rel, const char *target);

/* Apply the rule to private tree root: entries that break it are taken out of it and
 * freed (a hardlinked file with its last name), one rk_warn line each, "<what>: '<path>'
 * dropped: <why>". set (may be NULL) is the package set's union, rooted where root is;
 * it is only read. Returns how many entries were dropped, or -ENOMEM. Not thread-safe
 * for root (a private tree has one builder). */
int vfs_confine(struct node *root, const struct node *set, const char *what);

#endif
