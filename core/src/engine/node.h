/* node.h: what services and views may know of a node of the tree (the node contract).
 * struct node is the engine's: outside engine/ a node is a handle, made by the typed
 * constructors below and read through the accessors. vfs_int.h includes this header;
 * docs/internals/vfs.md explains the contract.
 *
 * Who may call what:
 *   - constructors and setters: on private nodes only (ino 0, in no inode table: a view
 *     or service building a tree, one thread, no lock). A served node is the engine's;
 *     a setter given one changes nothing, logs the bug and returns -EINVAL.
 *   - accessors: on private nodes, and on served nodes that no longer change (an
 *     artifact's browse tree once the artifact is DONE, a grafted view tree). No lock.
 * A constructor that fails returns NULL (ENOMEM, a served dir, logged) and frees what it
 * was to adopt. Sizes and modes are the caller's; a file's mode is its whole st_mode. */
#ifndef RK_NODE_H
#define RK_NODE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct node;
struct rk_vfs;
struct rk_err;
struct rk_composite;
struct rk_origin;
struct rk_extent;
struct artifact;

/* Fill directory dir (a lazy directory, on first access; no lock held). 0 or -errno with
 * err set. */
typedef int (*vfs_pop_fn)(struct rk_vfs *v, struct node *dir, struct rk_err *err);
/* A lookup of name in populated directory dir found nothing: add it (vfs_graft a private
 * root holding name) and return 0, or return -ENOENT (no lock held; several threads may
 * call it for one name at once: a graft that finds the name there, -EEXIST, is a success
 * too). A view's directory gets one from its table (struct vfs_view.miss). */
typedef int (*vfs_miss_fn)(struct rk_vfs *v, struct node *dir, const char *name,
			   struct rk_err *err);

/* ---- constructors: a new file listed as name in private directory dir ----
 * Directories: vfs_tree_new, vfs_node_add (a mode of S_IFDIR), vfs_mkdirs, vfs_lazy_dir
 * (vfs_int.h); a file made on first open: vfs_later_file (vfs_int.h). */

/* A file of len bytes in memory: a copy of data (vfs_bytes_file), or data itself, which
 * the node owns from here on, also on failure (vfs_bytes_adopt; malloc'd). */
struct node *vfs_bytes_file(struct node *dir, const char *name, uint32_t mode, int64_t mtime,
			    const void *data, size_t len);
struct node *vfs_bytes_adopt(struct node *dir, const char *name, uint32_t mode, int64_t mtime,
			     char *data, size_t len);
/* The same, read-only (0444), at path below private root, its directories made as
 * vfs_mkdirs makes them. 0 or -ENOMEM. */
int vfs_bytes_at(struct node *root, const char *path, int64_t mtime, void *data, size_t len);
/* A file that is cache blob id (hex SHA-256) of size bytes. */
struct node *vfs_blob_file(struct node *dir, const char *name, uint32_t mode, int64_t mtime,
			   const char *id, uint64_t size);
/* A file that is composite c (rk/composite.h), which the node owns from here on, also on
 * failure; its size is c's. */
struct node *vfs_composite_file(struct node *dir, const char *name, uint32_t mode, int64_t mtime,
				struct rk_composite *c);
/* A file that is the store object at path (a store path, rk/store.h) of size bytes. */
struct node *vfs_store_file(struct node *dir, const char *name, uint32_t mode, int64_t mtime,
			    const char *path, uint64_t size);
/* A symlink to target (mode S_IFLNK | 0777, its size the target's length). */
struct node *vfs_symlink(struct node *dir, const char *name, int64_t mtime, const char *target);

/* ---- an ops-backed file: a source kind a service supplies ----
 * The engine calls ready while the file's size is not known (on a stat or an open; no
 * lock held; several threads may call it for one file at once: the provider serializes
 * its work), then open once per open file, and pread, extents and close on the handle
 * open gave. ctx is the provider's, freed with free (may be NULL) when the node is. */
struct vfs_file_ops {
	/* Make the file readable and tell its size. where: the file's path in the mount, for
	 * log lines. 0, or -errno (the provider logged it: -EIO). NULL: the size given to
	 * vfs_ops_file is known. */
	int (*ready)(struct rk_vfs *v, void *ctx, const char *where, uint64_t *size,
		     struct rk_err *err);
	/* A handle for one open file in *fh. 0 or -errno. */
	int (*open)(struct rk_vfs *v, void *ctx, void **fh, struct rk_err *err);
	/* n > 0 bytes at off, inside the size: n, or -EIO (logged by the provider). */
	ssize_t (*pread)(void *fh, char *buf, size_t n, uint64_t off, struct rk_err *err);
	/* The same bytes as at most max extents (rk_file_extents): how many, -E2BIG (read
	 * them with a copy) or -EIO. NULL: always a copy. */
	ssize_t (*extents)(void *fh, uint64_t off, size_t n, struct rk_extent *ext, size_t max);
	void (*close)(void *fh);
	void (*free)(void *ctx);
};

/* A file of a kind ops supplies over ctx (owned from here on, also on failure); size is
 * its size, or UINT64_MAX when only ready tells (then the file is pending until the
 * first stat or open). */
struct node *vfs_ops_file(struct node *dir, const char *name, uint32_t mode, int64_t mtime,
			  uint64_t size, const struct vfs_file_ops *ops, void *ctx);

/* ---- setters: the content of a private file made with vfs_node_new or vfs_node_add ----
 * Each replaces what the file had. 0, -ENOMEM, or -EINVAL (a served node). */
/* Bytes: data (malloc'd, len bytes) is the node's from here on, also on failure. */
int vfs_file_set_bytes(struct node *n, char *data, size_t len);
int vfs_file_set_blob(struct node *n, const char *id, uint64_t size);
/* c is the node's from here on, also on failure. */
int vfs_file_set_composite(struct node *n, struct rk_composite *c);
int vfs_file_set_store(struct node *n, const char *path, uint64_t size);
/* The content of from (any file or symlink: its size, its bytes, blob, store object or
 * target, a copy of its composite), not its name, mode, times or origin. */
int vfs_file_copy(struct node *n, const struct node *from);
/* Private n's mode (its whole st_mode; the type must not change). */
void vfs_node_set_mode(struct node *n, uint32_t mode);
/* The artifact whose file n is (read by the engine before it serves n: a damaged
 * artifact's files fail with EIO; its blobs are re-created through it). */
void vfs_node_set_origin(struct node *n, struct artifact *a);
/* Private n's link count (hardlinks of a private tree are the builder's to count: a new
 * node has 1, vfs_tree_free frees a file with its last link): add delta, return the new
 * count. */
uint32_t vfs_node_nlink_add(struct node *n, int delta);
/* Private directory dir misses entries nobody could read: once served, its readdir ends
 * in EIO after the entries it has, saying why (malloc'd; the node's from here on; a
 * directory marked already keeps its first why and frees this one; NULL: not marked). */
void vfs_node_set_incomplete(struct node *dir, char *why);
/* A vfs_later_file whose failure with code is logged elsewhere (not again by the engine). */
void vfs_later_logged(struct node *n, int code);

/* ---- accessors ---- */
const char *vfs_node_name(const struct node *n);
uint32_t vfs_node_mode(const struct node *n);
int vfs_node_is_dir(const struct node *n);
uint64_t vfs_node_size(const struct node *n);
int64_t vfs_node_mtime(const struct node *n);
uint32_t vfs_node_nlink(const struct node *n);
/* The directory n was made in (NULL: a root). */
struct node *vfs_node_parent(const struct node *n);
/* A lazy directory's populate function (NULL: none). */
vfs_pop_fn vfs_node_pop(const struct node *n);
/* The artifact whose file n is (vfs_node_set_origin), or NULL; the origin through which
 * a reader re-creates its blobs (&origin->blob_origin), or NULL. */
struct artifact *vfs_node_origin(const struct node *n);
struct rk_origin *vfs_node_blob_origin(const struct node *n);
/* What a file is, NULL when it is something else: the cache blob id of a blob file, the
 * composite of a composite file, the bytes of a bytes file (vfs_node_size of them), the
 * target of a symlink. */
const char *vfs_node_blob(const struct node *n);
const struct rk_composite *vfs_node_composite(const struct node *n);
const char *vfs_node_bytes(const struct node *n);
const char *vfs_node_target(const struct node *n);
/* x and y have the same type, size and content (same blob, bytes, store object or
 * target; two composites or two files without content are the same by size). */
int vfs_node_same(const struct node *x, const struct node *y);

/* Directory entries, in listing order: how many, the node and the name of the i-th (a
 * hardlink's name differs from its node's). vfs_dir_sorted: the indexes of dir's
 * entries sorted by name (strcmp), malloc'd; NULL when dir has none or on ENOMEM. */
size_t vfs_dir_count(const struct node *dir);
struct node *vfs_dir_node(const struct node *dir, size_t i);
const char *vfs_dir_name(const struct node *dir, size_t i);
size_t *vfs_dir_sorted(const struct node *dir);

#endif
