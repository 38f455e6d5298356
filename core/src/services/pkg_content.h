/* pkg_content.h: the files of a native package and the hashes its repositories list, a
 * service of the packages view (services/pkg_content.c). */
#ifndef RK_SERVICES_PKG_CONTENT_H
#define RK_SERVICES_PKG_CONTENT_H

#include "engine/vfs_int.h"
#include "services/flatten.h"

/* A package's files as a private tree rooted at "/": the directories of prefix
 * (/opt/rocm/core-7.13), then below it the contents of the stages st[0..n) as TheRock's
 * packaging copies them (vfs_flatten_stages). What runpath_to_rpath.py changes before
 * packaging is changed here as a splice, never a copy: an ELF file's DT_RUNPATH becomes
 * DT_RPATH (the file is then a composite: its blob with 4 or 8 bytes rewritten), and a
 * rocm.cfg says disable-new-dtags. With set (vfs_pkg_set_add; may be NULL) the files are
 * first cut from the set as dist/ resolves it (vfs_confine, what naming the package).
 * *installed receives the regular files' total size. The artifacts must be ingested.
 * 0 or -errno with err set. */
int vfs_pkg_tree(struct rk_vfs *v, const struct vfs_stage *st, size_t n, const char *prefix,
		 const struct node *set, const char *what, struct node **root, uint64_t *installed,
		 struct rk_err *err);
/* Add a package's files (stages st[0..n) below prefix, not rewritten) to private tree set,
 * the union of a package set: the set vfs_pkg_tree cuts each package from (set not NULL:
 * services/confine.h; what names the package in the log). Directories win over anything
 * else, as in dist/, so no package of the set can hold a symlink where another one has a
 * directory, nor so a file below another package's symlink. 0 or -errno. */
int vfs_pkg_set_add(struct rk_vfs *v, const struct vfs_stage *st, size_t n, const char *prefix,
		    struct node *set, struct rk_err *err);

/* The SHA-256 of regular file n of such a tree: its blob id, or for a rewritten file the
 * hash of its bytes, computed once and remembered in the cache (records "pkghash/"). */
int vfs_pkg_file_digest(struct rk_vfs *v, const struct node *n, char hex[65], struct rk_err *err);

/* The hashes a repository index lists for a package file, computed in one pass over its
 * bytes once and remembered in the cache under the composite's key. */
struct vfs_pkg_sums {
	char md5[33], sha1[41], sha256[65];
};
int vfs_pkg_sums(struct rk_vfs *v, const struct rk_composite *c, struct vfs_pkg_sums *out,
		 struct rk_err *err);

/* The SHA-256 of c's bytes from offset from to the end (an RPM payload), computed once
 * and remembered in the cache. */
int vfs_pkg_tail_sha256(struct rk_vfs *v, const struct rk_composite *c, uint64_t from, char hex[65],
			struct rk_err *err);

#endif
