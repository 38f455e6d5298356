/* rk/vfs.h: the views of one store, as a read-only tree of inodes.
 *
 * This is what the daemon serves and what rockpack reads. Layout (docs/design.md):
 *   /README                      what this mount is
 *   /<run>/artifacts/<file>      the run's stored files, passed through
 *   /<run>/browse/<stem>/...     archive contents, prefixes kept
 *   /<run>/dist/<X>/...          TheRock's flatten per family/target (view_dist.c)
 *   /<run>/tarballs/<name>.tar{,.gz,.zst}   release tarballs (view_tarball.c)
 * A store that is itself a run shows the run's directories at the root. The rules of
 * each view are in docs/views.md.
 *
 * Everything is computed lazily: listing a run reads one store listing; the first
 * lookup inside browse/<stem> ingests that archive in a background thread (or loads
 * its index from the cache) and members appear as they are written, so a lookup of a
 * member that is not there yet waits for it. Inode numbers are a hash of the path
 * (stable across mounts); nodes live until rk_vfs_close. All functions are thread-safe
 * and may block on ingest, never while holding a lock another reader needs.
 * Errors: -ENOENT, -ENOTDIR, -EISDIR, -EINVAL, -EIO (the artifact is corrupt; the
 * reason was logged), -ENOMEM. */
#ifndef RK_VFS_H
#define RK_VFS_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "rk/catalog.h"
#include "rk/composite.h"
#include "rk/err.h"
#include "rk/store.h"

#define RK_ROOT_INO 1
/* The engine's other inode numbers are >= RK_FIRST_INO: 2..15 are the daemon's own
 * files (fs/: the status file). */
#define RK_FIRST_INO 16

struct rk_vfs;
struct rk_file;

struct rk_vfs_opts {
	const char *store; /* a local directory, s3://bucket[/prefix] or http(s):// URL */
	struct rk_store_opts remote; /* remote stores (rk/store.h); .cache is set by the vfs */
	const char *cache_dir; /* NULL: rk_cache_default_dir() */
	const char *cache_group; /* a cache shared with this group (rk/cache.h); NULL: private */
	uint64_t cache_limit; /* bytes; 0: what fits the disk (RK_CACHE_LIMIT_AUTO) */
	unsigned ingest_jobs; /* concurrent archive ingests; 0: online CPUs (at least 8 for
			       * a remote store: its ingests also wait on the network) */
	unsigned list_ttl_s; /* list the store's runs again when an access finds their
			      * listing older than this (new runs appear); 0: never */
	const struct rk_vfs_opt *view_opts; /* the views' options (below), nview_opts of them:
					     * rk_vfs_open checks them first and fails (err
					     * naming the option by its label) on an unknown
					     * name, a bad value or a file that does not load */
	size_t nview_opts;
	uint64_t memory_target; /* bytes the process may hold before runs nobody uses are
				 * dropped (rebuilt on their next lookup); 0: never drop. Only
				 * a caller that counts the kernel's references (rk_vfs_lookup_ref,
				 * rk_vfs_readdir_ref, rk_vfs_forget) may set it */
	/* With memory_target: asks the kernel to forget the entry name in directory parent
	 * (a run's directory it holds while nobody uses the run: without memory pressure the
	 * kernel keeps every inode it was given, and a held run cannot be dropped). Called
	 * from the engine's own thread with no lock held; returns 0, -ENOENT when the
	 * kernel holds no such entry (its references come from elsewhere: a cwd, an open
	 * directory; the run is not asked about again until it is used again) or another
	 * -errno; NULL: never asked. */
	int (*forget_entry)(void *ctx, uint64_t parent, const char *name);
	void *forget_ctx;
};

/* ---- the views' options ----
 * Each view declares the options it takes in its table (views/); the daemon takes them
 * as -o NAME[=VALUE], rockpack as the flag of the command that has one, and both hand
 * them to rk_vfs_open as name=value pairs. rockfs --help and docs/man/rockfs.8.md (its
 * generated section, checked by ctest) list them from the tables. */
enum rk_vfs_opt_type {
	RK_VFS_OPT_FLAG, /* -o NAME, no value */
	RK_VFS_OPT_STRING, /* -o NAME=VALUE (one of arg's '|'-separated words with choices) */
	RK_VFS_OPT_FILE, /* -o NAME=FILE */
	RK_VFS_OPT_SIZE, /* -o NAME=SIZE (rk/size.h) */
	RK_VFS_OPT_LIST /* -o NAME=A:B:...; rockpack: the words after the flag, up to the next
			 * option */
};

struct rk_vfs_opt_decl {
	const char *name;
	enum rk_vfs_opt_type type;
	const char *arg; /* the value in help ("FILE", "none|zstd"); NULL for a flag */
	int choices; /* STRING: arg lists every value it takes */
	const char *def; /* the value when not given (NULL: unset) */
	const char *help; /* rockfs --help: what it does, one sentence */
	const char *man; /* docs/man/rockfs.8.md: the paragraph (markdown) */
	const char *command; /* the rockpack command with a matching flag (NULL: none) */
	const char *flag; /* its spelling there (NULL: --NAME, '_' as '-') */
	const char *flag_value; /* the flag takes no value and gives this one */
	const char *flag_def; /* rockpack's default when not def */
	const char *excludes; /* the name of an option it cannot be given with */
	/* checks a value beyond its type, reading no file (NULL: none); label names the
	 * option in the message. 0 or -EINVAL with err. */
	int (*check)(const char *value, const char *label, struct rk_err *err);
};

/* One option for rk_vfs_open: value NULL for a flag; label: how the caller spells it in
 * messages ("topology", "split: --topology"; NULL: name). */
struct rk_vfs_opt {
	const char *name, *value, *label;
};

/* The views' options in RUN/ order of the views, i from 0 (NULL past the last); *view
 * (when given) is the declaring view's directory name. */
const struct rk_vfs_opt_decl *rk_vfs_opt_at(size_t i, const char **view);
const struct rk_vfs_opt_decl *rk_vfs_opt_find(const char *name);
/* Check value (NULL: none) for d as its type and d->check want, reading no file: 0, or
 * -EINVAL with err "<label>...". rk_vfs_open does it too; a caller may do it first to
 * refuse a usage error early. */
int rk_vfs_opt_check(const struct rk_vfs_opt_decl *d, const char *value, const char *label,
		     struct rk_err *err);

struct rk_attr {
	uint64_t ino;
	uint32_t mode; /* S_IFDIR/S_IFREG/S_IFLNK | permissions */
	uint32_t nlink;
	uint64_t size;
	int64_t mtime;
	int pending; /* readdir only: the size is not known yet (a compressed tarball);
		      * lookup and getattr compute it, and never report it wrong */
	int live; /* a directory listing the store's runs (the root of a store of runs,
		   * {owner}-{repo}/): it gains entries when rk_vfs_refresh (or a lookup of
		   * a missing name) finds new runs, and its mtime moves on then */
	int run; /* a run directory in a live directory: a lookup of its name after list_ttl
		  * may find the run changed in the store and answer a new inode */
};

/* What a running daemon is doing (rockfs's status attributes, docs/man/rockfs.8.md). */
struct rk_vfs_stats {
	uint64_t nodes;
	uint64_t runs; /* runs whose listing this process has read */
	uint64_t ingests; /* archives decompressed by this process */
	uint64_t ingests_running, ingests_waiting; /* now: in a jobs slot, waiting for one */
	uint64_t index_loads; /* archives whose index came from the cache */
	uint64_t read_ahead; /* cache blobs opened ahead of their readers (next files) */
	uint64_t read_ahead_pieces; /* ... of a composite's readers (next pieces) */
	uint64_t ingest_failures; /* corrupt, missing or unreadable archives */
	uint64_t transient_failures; /* network or full disk: tried again on next access */
	uint64_t remote_requests, remote_bytes; /* network requests made, bytes received */
	uint64_t cache_limit, cache_used; /* cache_size (0: none) and use (with a limit) */
	uint64_t cache_written, cache_discarded; /* bytes added; bad blobs/records deleted */
	uint64_t uptime_s;
	/* memory (memory_target): the target (0: none), what the process holds now (its
	 * resident size, or the heap in use plus what was resident at open if more), of it
	 * the nodes and directory entries of served and private trees, the runs' catalogs
	 * (listings) and the artifacts' member prefixes; runs whose trees are loaded,
	 * dropped (freed, nobody used them) and rebuilt after a drop */
	uint64_t mem_target, mem_used, mem_nodes, mem_listings, mem_indexes;
	uint64_t runs_loaded, runs_dropped, runs_rebuilt;
};

int rk_vfs_open(const struct rk_vfs_opts *o, struct rk_vfs **out, struct rk_err *err);
/* Cancels running ingests, waits for them, frees everything. NULL ok. */
void rk_vfs_close(struct rk_vfs *v);

int rk_vfs_lookup(struct rk_vfs *v, uint64_t parent, const char *name, struct rk_attr *out,
		  struct rk_err *err);
/* The same for the kernel, which keeps the entry: counts one reference (a lookup) on it,
 * until rk_vfs_forget gives it back. A run whose nodes have references is never dropped. */
int rk_vfs_lookup_ref(struct rk_vfs *v, uint64_t parent, const char *name, struct rk_attr *out,
		      struct rk_err *err);
/* The kernel forgot nlookup references to ino (FUSE FORGET). */
void rk_vfs_forget(struct rk_vfs *v, uint64_t ino, uint64_t nlookup);
int rk_vfs_getattr(struct rk_vfs *v, uint64_t ino, struct rk_attr *out, struct rk_err *err);
/* Copy a symlink's target into buf (NUL-terminated); returns its length. */
int rk_vfs_readlink(struct rk_vfs *v, uint64_t ino, char *buf, size_t n, struct rk_err *err);

/* Entries of directory ino from position off (0 = first), in a stable order. fill gets
 * each entry and the position of the next; it returns non-zero to stop. fill runs under
 * the tree lock: it must not call into the vfs (copy the entries, then recurse). */
typedef int (*rk_dir_fill_fn)(void *ctx, const char *name, const struct rk_attr *a, uint64_t next);
int rk_vfs_readdir(struct rk_vfs *v, uint64_t ino, uint64_t off, rk_dir_fill_fn fill, void *ctx,
		   struct rk_err *err);
/* rk_vfs_readdir for the kernel's readdirplus: every entry fill takes (returns 0) and
 * whose size is known (not rk_attr.pending) counts one reference, as a lookup does. */
int rk_vfs_readdir_ref(struct rk_vfs *v, uint64_t ino, uint64_t off, rk_dir_fill_fn fill, void *ctx,
		       struct rk_err *err);
/* A listing that misses entries (a damaged artifact's) fails with -EIO after the entries
 * it has: rk_vfs_readdir on the call that starts past the last one (as FUSE asks for
 * more), rk_vfs_readdir_all (every entry from the first) on the same call, after filling
 * them. Tools that take a listing whole use rk_vfs_readdir_all. */
int rk_vfs_readdir_all(struct rk_vfs *v, uint64_t ino, rk_dir_fill_fn fill, void *ctx,
		       struct rk_err *err);

/* Resolve a '/'-separated path from the root (no symlinks followed). */
int rk_vfs_resolve(struct rk_vfs *v, const char *path, struct rk_attr *out, struct rk_err *err);

/* Open a regular file. The handle may be used from several threads at once. */
int rk_vfs_open_file(struct rk_vfs *v, uint64_t ino, struct rk_file **out, struct rk_err *err);
uint64_t rk_file_size(const struct rk_file *f);
ssize_t rk_file_pread(struct rk_file *f, void *buf, size_t n, uint64_t off, struct rk_err *err);
/* The bytes of [off, off+n) (clamped to the size) as at most max extents (rk/composite.h),
 * read by nobody yet, for the daemon to hand to the kernel without copying (splice): a
 * cached file is one range of its descriptor, a composite its pieces (blob ranges,
 * literal bytes, zeros), a compressed tarball one cached piece. Returns how many (0 past
 * the end); -E2BIG when that takes more than max, or the bytes have no descriptor (a
 * remote object, a range across tarball pieces): read them with rk_file_pread; -EIO
 * (logged) when a blob cannot be opened. Close with rk_extents_close once handed over. */
ssize_t rk_file_extents(struct rk_file *f, uint64_t off, size_t n, struct rk_extent *ext,
			size_t max);
/* The descriptor that holds f's whole content from offset 0, final (a cache blob, a local
 * store object), for the kernel to read itself (FUSE passthrough); owned by f. -EAGAIN: a
 * member still streaming behind its ingest (a blob once published: open it again later);
 * -ENOTSUP: anything else (a composite, bytes in memory, a remote object, empty). */
int rk_file_backing(const struct rk_file *f);
void rk_file_close(struct rk_file *f); /* NULL ok */
/* f stays open only while the kernel caches its inode (the caller closes it when the
 * kernel forgets the inode): it does not count as a use of its run when the engine asks
 * the kernel to forget the runs only its cache holds (rk_vfs_opts.forget_entry). */
void rk_file_kept(struct rk_file *f);

/* The run directory for a run name (or "" / any name when the store is a single run):
 * its catalog, loaded on demand. The pointer stays valid until rk_vfs_close (without a
 * memory_target: with one, until the run is dropped). */
int rk_vfs_run(struct rk_vfs *v, const char *name, const struct rk_run **out, struct rk_err *err);
/* Names of all runs in the store ("org/run" for runs under {owner}-{repo}/), sorted.
 * Caller frees each name and the array. */
int rk_vfs_list_runs(struct rk_vfs *v, char ***names, size_t *n, struct rk_err *err);

/* Ingest (or load from the cache) every artifact of a run, jobs at a time. progress,
 * when given, is called about ten times a second from the calling thread with the
 * compressed bytes consumed and the total. Returns 0 or the first failure (all
 * artifacts are still attempted). */
typedef void (*rk_progress_fn)(void *ctx, uint64_t done, uint64_t total, unsigned finished,
			       unsigned count);
int rk_vfs_prefetch(struct rk_vfs *v, const char *run, rk_progress_fn progress, void *ctx,
		    struct rk_err *err);

/* The run's therock_manifest.json: from the store's manifests/ directory when present,
 * else from the base_lib_generic artifact (ingesting it). -ENOENT when neither has one. */
struct rk_manifest;
int rk_vfs_run_manifest(struct rk_vfs *v, const char *run, struct rk_manifest *out,
			struct rk_err *err);

void rk_vfs_stats(struct rk_vfs *v, struct rk_vfs_stats *st);

/* For a directory listing the store's runs (rk_attr.live): list the store again if that
 * listing is older than list_ttl_s, adding the runs published since (the directory's
 * mtime then moves on). Returns 1 when ino gained entries, else 0 (also for any other
 * inode). Lookups of a missing name do the same by themselves. */
int rk_vfs_refresh(struct rk_vfs *v, uint64_t ino);
struct rk_cache *rk_vfs_cache(struct rk_vfs *v);

#endif
