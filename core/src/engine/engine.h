/* engine.h: what the engine's files share (engine/ only: views and services use
 * engine/vfs_int.h). Which file does what: docs/internals/vfs.md; the locks: vfs.c. */
#ifndef RK_ENGINE_H
#define RK_ENGINE_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "engine/vfs_int.h"

/* ---- nodes: only the engine sees their fields (views and services: engine/node.h) ---- */

/* SRC_STAGED: a file whose bytes are written to the cache but not yet hashed and
 * named; node->fd reads them until the committer publishes the blob id. */
/* SRC_OPS: a kind a service supplies (struct vfs_file_ops, engine/node.h: node->fops
 * over node->fops_ctx); its size is known once its ready says (size_known). */
/* SRC_LATER: a composite made on first open (or first stat when its size is not known
 * yet) by the view's function (struct vfs_later); then SRC_COMPOSITE. */
enum src_kind {
	SRC_NONE,
	SRC_BYTES,
	SRC_BLOB,
	SRC_STORE,
	SRC_STAGED,
	SRC_COMPOSITE,
	SRC_LATER,
	SRC_OPS
};
enum pop_state { PS_TODO, PS_RUNNING, PS_DONE };

/* How a SRC_LATER file is made: make builds its composite (no lock held; one call at a
 * time; after a failure the next open tries again). ctx is the view's, released with
 * free (may be NULL) when the node is freed. A failure is logged once per file and
 * cause (the same failure again, open after open, is not). */
struct vfs_later {
	int (*make)(struct rk_vfs *v, void *ctx, struct rk_composite **out, struct rk_err *err);
	void (*free)(void *ctx);
	void *ctx;
	pthread_mutex_t lock;
	int logged; /* the code last logged (lock); a view may preset the code of a failure
		     * that is logged elsewhere */
};

struct dent {
	char *name;
	struct node *node;
	UT_hash_handle hh;
};

struct node {
	uint64_t ino;
	struct node *parent;
	char *name;
	vfs_pop_fn pop; /* a lazy directory's populate function, else NULL; immutable */
	vfs_miss_fn miss; /* a view's directory: names it makes on lookup (NULL: none);
			   * immutable once served */
	uint8_t pop_state; /* enum pop_state; v->wait_lock */
	uint8_t pop_transient; /* pop_rc is transient (rk_err_transient): a later access tries again
				*/
	uint8_t src; /* enum src_kind (v->tree) */
	uint8_t dropped; /* run directories: the run's tree was dropped once (trim.c); its
			  * populate rebuilds it */
	int pop_rc;
	char *ctx; /* org and run directories: their store path */
	uint64_t listed_ms; /* the root, org and run directories: when the store was listed
			     * for them (CLOCK_MONOTONIC; v->refresh_lock once populated) */
	struct run *run; /* run directories, once populated */
	struct artifact *artifact; /* nodes inside browse/<stem> (and that root itself) */
	struct artifact *origin; /* dist nodes: the artifact whose file this is */
	struct rk_composite *composite; /* SRC_COMPOSITE: the file (owned) */
	/* SRC_OPS: the provider's table and its context (owned: fops->free) */
	const struct vfs_file_ops *fops;
	void *fops_ctx;
	struct vfs_later *later; /* SRC_LATER (and after it is made): how (owned) */
	uint8_t size_known; /* SRC_LATER, SRC_OPS: size is exact already (a stat need not
			     * make it); v->tree */
	_Atomic uint8_t read_logged; /* SRC_COMPOSITE: a failed read was logged (once: the
				      * kernel and readers retry) */
	uint8_t lists_runs; /* the root and {owner}-{repo}/ directories: they list the store's
			     * runs (and its store views), until one turns out to be a run
			     * itself (run set); immutable */
	uint8_t walked; /* lists_runs: its runs were walked once (walk_due; v->refresh_lock) */
	uint8_t walking; /* lists_runs: walk_due is listing them (v->wait_lock) */
	uint8_t renew; /* a store view's directory made anew when its store lists other runs
			* (vfs_renew_dir; renew_dir) */
	int64_t renew_seen; /* renew: its store directory's mtime when last compared
			     * (v->refresh_lock), -1 before the first lookup */
	uint8_t incomplete; /* a directory whose listing misses entries nobody could read: a
			     * readdir ends in EIO after the entries it has */
	struct node **unwalked; /* lists_runs: runs listed but not yet walked (walk_later,
				 * walk_due; v->wait_lock), nunwalked of them; owned */
	size_t nunwalked;
	char *why_incomplete; /* incomplete: what is missing and why (the artifact and its
			       * damage), for the readdir's error; owned, or NULL */
	/* mutable (v->tree): */
	uint32_t mode, nlink;
	uint64_t size;
	int64_t mtime;
	int fd; /* SRC_STAGED: owned descriptor of the unnamed cache file, else -1 */
	struct rk_frontier *fr; /* SRC_STAGED: how much of fd is written (a reference) */
	char *data; /* SRC_BYTES bytes, SRC_BLOB id, SRC_STORE path, symlink target */
	struct dent *dents;
	struct dent **order;
	size_t nents, cap;
	uint32_t opened, ahead; /* directories: files opened in it, entries read ahead
				 * (v->ahead_lock) */
	UT_hash_handle hh;
};

/* How the engine serves one source kind (file.c has a table per kind, src_ops[]); the
 * Linux VFS's file_operations. f is the open file, n its node. */
struct rk_file;
struct src_ops {
	/* What a stat (open: 0) or an open (1) of n must wait for (a size to compute, a file
	 * to make); NULL: nothing. No lock held. */
	int (*ready)(struct rk_vfs *v, struct node *n, int open, struct rk_err *err);
	/* Take what f needs of n (v->tree held for reading: no I/O, no waiting). NULL:
	 * nothing. */
	int (*take)(struct rk_file *f, struct node *n);
	/* The open's I/O (no lock held). NULL: none. */
	int (*open)(struct rk_file *f, struct node *n, struct rk_err *err);
	/* Read n bytes at off, inside the file (rk_file_pread clamps): n or -errno. */
	ssize_t (*pread)(struct rk_file *f, char *buf, size_t n, uint64_t off, struct rk_err *err);
	/* The same as extents (rk_file_extents): how many, -E2BIG (copy) or -EIO. */
	ssize_t (*extents)(struct rk_file *f, uint64_t off, size_t n, struct rk_extent *ext,
			   size_t max);
	/* Release what take and open got (also after a failed open). NULL: nothing. */
	void (*close)(struct rk_file *f);
};

/* blobs read at once: the disk serves several requests at a time */
#define AHEAD_THREADS 4

/* tree.c: the inode table (v->tree held for writing unless noted) */
struct node *find_ino(struct rk_vfs *v, uint64_t ino);
void free_node(struct node *n);
/* A new served node for name in served directory dir (NULL: the root), in no listing
 * yet. v->tree held for writing. */
struct node *served_new(struct rk_vfs *v, struct node *dir, const char *name, uint32_t mode,
			int64_t mtime);
/* The same, listed in dir. */
struct node *served_add(struct rk_vfs *v, struct node *dir, const char *name, uint32_t mode,
			int64_t mtime);
struct node *served_lazy_dir(struct rk_vfs *v, struct node *dir, const char *name, vfs_pop_fn pop,
			     int64_t mtime);

/* artifact.c: the artifact life cycle */
/* "dir/name", or "name" when dir is "": malloc'd. */
char *join_path(const char *dir, const char *name);
/* Re-create an archive's blobs after one (want) went missing or failed its hash, and
 * open want. seen: a->refills when the caller found it missing; if another thread has
 * refilled since, just open it. */
int artifact_refill(struct rk_vfs *v, struct artifact *a, unsigned seen, const char *want,
		    uint64_t size, int *fd, struct rk_err *err);
int artifact_transient(struct rk_vfs *v, struct artifact *a);
/* Snapshot of an artifact's state for waiters. */
void artifact_state(struct rk_vfs *v, struct artifact *a, int *state, uint64_t *gen);
void artifact_wait(struct rk_vfs *v, struct artifact *a, uint64_t gen);
int artifact_eio(struct artifact *a, struct rk_err *err);

/* populate.c: the engine's populate functions, listing the store again */
int pop_root(struct rk_vfs *v, struct node *dir, struct rk_err *err);
int pop_org(struct rk_vfs *v, struct node *dir, struct rk_err *err);
int pop_run(struct rk_vfs *v, struct node *dir, struct rk_err *err);
/* run_readme.c: RUN/README (a section of the mount's README when the store is run cat),
 * once dir (its run directory) holds its views and stored folders. v->tree not held. */
int run_readme(struct rk_vfs *v, struct node *dir, const struct rk_run *cat);
/* List dir (the root or an org) again if its listing is older than list_ttl: 1 when it
 * gained entries, else 0. */
int refresh_listing(struct rk_vfs *v, struct node *dir);
/* Serve a vfs_renew_dir n of dir anew if its store lists other runs now: the node that
 * has the name now. */
struct node *renew_dir(struct rk_vfs *v, struct node *dir, struct node *n);
/* Serve run n of dir anew if the store's copy changed: the node that has the name now. */
struct node *refresh_run(struct rk_vfs *v, struct node *dir, struct node *n);
/* runs.c: a remote store naming a run ("s3://bucket/999-linux") that has nothing under
 * it: -ENOENT with the nearest run names of its parent (opened with o); else 0. */
int vfs_check_run_store(struct rk_vfs *v, const char *location, const struct rk_store_opts *o,
			struct rk_err *err);
/* walk.c: the runs a listing of dir (the root, {owner}-{repo}/) found are kept by
 * walk_later (runs, n of them: malloc'd, taken) and listed by walk_due: in parallel, a
 * bounded number at a time, when dir is read (readdir, rockpack ls), not when one name
 * in it is looked up. Their mtimes (and dir's, on its first walk) become their newest
 * objects' times. walk_due takes v->refresh_lock; walk_later v->wait_lock. */
int walk_later(struct rk_vfs *v, struct node *dir, struct node **runs, size_t n);
void walk_due(struct rk_vfs *v, struct node *dir);
/* The newest mtime (seconds) of listing l's entries, 0 if none has one. */
int64_t listing_newest(const struct rk_store_list *l);
/* n's path from the mount's root ("RUN/dist/gfx1100"), for log lines. */
void node_path(struct rk_vfs *v, const struct node *n, char *buf, size_t size);

/* trim.c: memory (docs/internals/vfs.md "Node lifetime") */
/* k references of the kernel (negative: given back), or open files (open 1), on served
 * n, counted on its run (the run directory's own references are not: it is never
 * dropped); the run was used now. v->tree held. */
/* The end of a run, in three steps (trim.c: rk_vfs_close and a drop): its views'
 * background work stopped (run_stop_views), then what it holds released, its artifacts'
 * ingest threads joined and its views' state freed (run_release; its nodes may still be
 * read), then, once its nodes are freed, the run itself (run_free). */
void run_stop_views(struct run *r);
void run_release(struct run *r);
void run_free(struct run *r);
void node_ref(struct rk_vfs *v, struct node *n, int64_t k, int open);
int64_t mono_s(void);
/* The thread that drops runs when the process holds more than target (0: none). */
int trim_start(struct rk_vfs *v, uint64_t target);
void trim_stop(struct rk_vfs *v);
void trim_stats(struct rk_vfs *v, struct rk_vfs_stats *st);
/* tree.c: bytes of the nodes and entries of every tree (served and private), about */
uint64_t tree_mem(void);
/* tree.c: empty run directory dir (its entries go; the nodes are the caller's) for its
 * populate to fill it again. v->tree held for writing. */
void dir_clear(struct node *dir);

/* lookup.c */
/* Find ino and make sure it is a populated directory. */
int get_dir(struct rk_vfs *v, uint64_t ino, struct node **out, struct rk_err *err);

/* file.c */
/* Whatever a stat (open: 1) of n must wait for: its kind's ready (a SRC_LATER file being
 * made, an SRC_OPS file's size). No lock held. */
int ensure_ready(struct rk_vfs *v, struct node *n, int open, struct rk_err *err);
/* n's size is not known yet (a stat makes it: rk_attr.pending). v->tree held. */
int node_pending(const struct node *n);

/* store_views.c: store-level views (struct vfs_view.place VFS_VIEW_STORE) */
/* Collect and check the store views (rk_vfs_open): -EINVAL with err for a bad name. */
int store_views_open(struct rk_vfs *v, struct rk_err *err);
/* Give store directory dir (the root of a store of runs, an {owner}-{repo}/: its populate
 * function, before the runs are listed) its store views' lazy directories and state. No
 * lock held. */
int store_views_add(struct rk_vfs *v, struct node *dir);
/* The store directory n is in (n itself when it is one), or NULL. */
struct node *store_dir(const struct node *n);
/* The store listing of store directory dir (at path) has an entry name that would be a
 * run or org directory: if a store view has that name, log once that it is not listed. */
void store_views_hides(struct rk_vfs *v, struct node *dir, const char *path, const char *name);
/* Unmount: stop every store view state, then free them. */
void store_views_stop(struct rk_vfs *v);
void store_views_free(struct rk_vfs *v);

#endif
