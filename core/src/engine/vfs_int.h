/* vfs_int.h: the engine's contract with the services and views: nodes (engine/node.h:
 * opaque, made and read through functions) and private trees, artifacts, runs and the
 * view table (each service has its own header in services/). struct node is the
 * engine's (engine/engine.h).
 * Locking rules are at the top of vfs.c and in docs/internals/vfs.md. */
#ifndef RK_VFS_INT_H
#define RK_VFS_INT_H

#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>

#include "rk/catalog.h"
#include "rk/composite.h"
#include "rk/frontier.h"
#include "rk/hash.h"
#include "rk/vfs.h"
#include "util/htab.h"

#include "engine/node.h"

enum artifact_state { ART_IDLE, ART_RUNNING, ART_DONE, ART_FAILED };

struct node;
struct rk_vfs;

struct run {
	struct rk_run *cat;
	struct artifact *artifacts; /* one per cat->arts[i] */
	struct node *dir; /* the run's directory */
	void **vstate; /* per view (vfs_views order): its state for this run, or NULL */
	struct run *next;
	int gone; /* a listing again found the run missing from the store (v->refresh_lock) */
	uint64_t sig; /* rk_run_tree_sig (refresh_run, v->refresh_lock); sig_ok: it was made */
	int sig_ok;
	_Atomic int manifest_warned; /* its stored manifest's failure was logged */
	/* its lifetime (trim.c): references the kernel holds to nodes below its directory,
	 * files open on them, when it was last used (CLOCK_MONOTONIC seconds) */
	_Atomic int64_t krefs;
	_Atomic int64_t opens;
	_Atomic int64_t kept; /* of the opens: kept for the kernel's cache (rk_file_kept) */
	_Atomic int64_t used_s;
	/* the trim thread's own: when the kernel was last asked to forget it, or 0; used_s
	 * when the kernel answered it holds no entry of it (not asked again until used), or -1 */
	int64_t forget_s, forget_used;
	int dropping; /* being dropped (v->life held for writing) */
};

struct artifact {
	struct rk_vfs *v;
	struct run *run;
	const struct rk_artifact *art;
	struct node *root; /* browse/<stem> */
	int state; /* enum artifact_state; v->wait_lock */
	int rc;
	int transient; /* failed for a while (rk_err_transient): a later access tries again */
	char why[256]; /* the failure, for every later EIO; written before state FAILED */
	int read_all; /* FAILED: every member was read (only the archive's checksum failed) */
	uint64_t gen; /* bumped on every published member; v->wait_lock */
	_Atomic uint64_t progress;
	pthread_mutex_t refill;
	unsigned refills; /* completed re-ingests; refill */
	pthread_t thread; /* joined by rk_vfs_close */
	int started; /* thread is valid; v->wait_lock */
	char **prefixes; /* artifact_manifest.txt lines, set before state DONE */
	size_t nprefixes;
	/* An artifact derived from another (a split output): its files come from source. */
	struct artifact *source;
	/* An artifact without an archive (a stored wheel): how to re-create the blobs of its
	 * files after one went missing (NULL: ingest art again). */
	int (*refill_fn)(struct rk_vfs *v, struct artifact *a, struct rk_err *err);
	/* What a service derives from this artifact, computed once (kpack_split.c): the
	 * value, how to free it, and how to re-create a blob it made that is not one of the
	 * artifact's own files. derived_lock serializes computing it. */
	pthread_mutex_t derived_lock;
	void *derived;
	void (*derived_free)(void *derived);
	int (*derived_restore)(struct rk_vfs *v, struct artifact *a, const char *want,
			       uint64_t size, int *fd, struct rk_err *err);
	/* The origin of composite sources that are this artifact's blobs (or blobs derived
	 * from them): its reopen is vfs_artifact_refill (set by vfs_artifact_init). */
	struct rk_origin blob_origin;
};

struct rk_vfs {
	struct rk_store *store;
	struct rk_cache *cache;
	pthread_rwlock_t tree;
	struct node *inodes;
	pthread_mutex_t wait_lock;
	pthread_cond_t wait_cond;
	struct run *runs;
	unsigned active; /* ingest threads alive */
	sem_t jobs; /* ingest slots; jobs_ok once made */
	int jobs_ok;
	_Atomic int cancel;
	void **vconf; /* per view (vfs_views order): its config from rk_vfs_opts.view_opts
		       * (struct vfs_view.config), or NULL */
	/* a digest of the views' options as given (vfs_opts_apply): part of the cache keys
	 * of what the options may change (release/'s names) */
	char opts_sig[RK_SHA256_HEX];
	/* the views' options as given, name and value (NULL: a flag) malloc'd: vfs_opt_given */
	char **opt_names, **opt_values;
	size_t nopts_given;
	_Atomic uint64_t n_nodes, n_ingests, n_index_loads, n_failures, n_transient, n_runs;
	_Atomic uint64_t n_running, n_waiting; /* ingests holding a jobs slot, waiting for one */
	int64_t mount_time;
	uint64_t list_ttl_ms; /* rk_vfs_opts.list_ttl_s; 0: never list again */
	pthread_mutex_t refresh_lock; /* one listing again at a time */
	struct vfs_ahead *ahead; /* blob read-ahead (NULL: off) */
	pthread_mutex_t ahead_lock; /* directories' opened/ahead counters */
	struct vfs_stores *stores; /* store-level views and their state (store_views.c) */
	/* memory (trim.c): every rk/vfs.h call holds life for reading while it uses nodes;
	 * dropping a run's tree takes it for writing, only when free (never waits) */
	pthread_rwlock_t life;
	uint64_t mem_target, mem_base; /* rk_vfs_opts.memory_target; resident at open */
	struct vfs_trim *trim; /* the thread that drops runs (NULL: no target) */
	int (*forget_entry)(void *ctx, uint64_t parent, const char *name); /* rk_vfs_opts */
	void *forget_ctx;
	_Atomic uint64_t n_dropped, n_rebuilt;
};

/* ---- trees ----
 * Served nodes have an inode number and live in the inode table under v->tree; only the
 * engine (vfs.c) creates or changes them. Views and services build private trees
 * (ino 0, no lock: one thread builds them) and hand them to the engine with vfs_graft,
 * which serves them under one write lock. Nodes a view or service only reads are
 * immutable: private trees once built, an artifact's browse tree once it is DONE. */
/* A private root (in no directory); free it with vfs_tree_free unless grafted. */
struct node *vfs_tree_new(const char *name, uint32_t mode, int64_t mtime);
/* A private node for name in private directory dir, in no listing yet (NULL: ENOMEM, or
 * dir is served, a bug, logged). */
struct node *vfs_node_new(struct node *dir, const char *name, uint32_t mode, int64_t mtime);
/* The same, listed in dir. */
struct node *vfs_node_add(struct node *dir, const char *name, uint32_t mode, int64_t mtime);
/* A private file in dir made on first open by make (see struct vfs_later); size is its
 * exact size, or UINT64_MAX when only making it tells (then the first stat makes it).
 * The node owns ctx from here on, also on failure (NULL: ENOMEM). */
struct node *vfs_later_file(struct node *dir, const char *name, int64_t mtime, uint64_t size,
			    int (*make)(struct rk_vfs *v, void *ctx, struct rk_composite **out,
					struct rk_err *err),
			    void (*free_ctx)(void *ctx), void *ctx);
/* A private directory whose entries pop makes on first access once served. */
struct node *vfs_lazy_dir(struct node *dir, const char *name, vfs_pop_fn pop, int64_t mtime);
struct node *vfs_dent_find(struct node *dir, const char *name);
int vfs_dent_add(struct node *dir, const char *name, struct node *child);
/* Point private dir's entry name at child (which must exist). */
void vfs_dent_set(struct node *dir, const char *name, struct node *child);
/* Take entry name out of private dir (its order kept for the others); the node it named
 * is returned, still counted in its nlink: the caller frees it (vfs_tree_free) or lists
 * it elsewhere. NULL when there is no such entry. */
struct node *vfs_dent_del(struct node *dir, const char *name);
/* Free the private nodes of a private tree (served nodes it links to stay). */
void vfs_tree_free(struct node *root);
/* List root's entries in served directory dir (which its populate function is filling,
 * so no one else adds to it), serving every private node below them, and free root.
 * Takes v->tree; no lock held. 0, -EEXIST (a name dir has) or -ENOMEM. */
int vfs_graft(struct rk_vfs *v, struct node *dir, struct node *root);
/* The node at '/'-separated path below root ("": root), or NULL; vfs_find_dir: only if it
 * is a directory. */
struct node *vfs_find(struct node *root, const char *path);
struct node *vfs_find_dir(struct node *root, const char *path);
/* The directory of path's last component below private root, made as needed (0755,
 * mtime); the last component in *base. NULL: ENOMEM, a name over 255 bytes, or a file in
 * the way. */
struct node *vfs_mkdirs(struct node *root, const char *path, const char **base, int64_t mtime);
/* Stored folders (stored_dir.c): a private lazy directory name in dir that is store
 * folder path as stored (its files served from the store, its subfolders the same, listed
 * on first look); NULL: ENOMEM. */
struct node *vfs_stored_dir(struct node *dir, const char *name, const char *path, int64_t mtime);
/* Lay store folder path over private directory out: each stored file and folder takes
 * its name in out (a node of out of that name is freed: the stored one wins, a folder as
 * a whole). said (NULL ok) gets a PROVENANCE line per stored entry. A path the store does
 * not have changes nothing. 0 or -errno. */
struct rk_buf;
int vfs_stored_overlay(struct rk_vfs *v, struct node *out, const char *path, struct rk_buf *said,
		       struct rk_err *err);
/* A run view's use of it: lay the run's stored folder RUN/<folder>/ (if it has one) over
 * out, the view's private tree for RUN/<folder>/, and add out/PROVENANCE (stored
 * entries, then made ones). */
int vfs_run_stored_over(struct rk_vfs *v, struct run *r, const char *folder, struct node *out,
			struct rk_err *err);
/* The populate function of a stored directory (its store path: the node's ctx). */
int vfs_pop_stored(struct rk_vfs *v, struct node *dir, struct rk_err *err);
/* Serve the regular files of listing l of store path in served directory dir (a name it
 * has stays). Takes v->tree. */
int vfs_stored_files(struct rk_vfs *v, struct node *dir, const char *path,
		     const struct rk_store_list *l);
/* The run n belongs to (n or its nearest ancestor that is a run directory), or NULL. */
struct run *vfs_node_run(const struct node *n);

/* Run n's populate function once, waiting if another thread is running it (no lock held).
 * A failure is logged and returned as -EIO, or as its own code when it is transient
 * (rk_err_transient: the next call runs the populate again), so that a populate that
 * calls this one fails transiently too. */
int vfs_populate(struct rk_vfs *v, struct node *n, struct rk_err *err);

/* Artifacts (no lock held). */
int vfs_artifact_start(struct rk_vfs *v, struct artifact *a);
/* Start every artifact of as[0..n) and wait until none is running. Returns 0, or -EIO
 * (logged) when one of them failed. */
int vfs_artifacts_wait(struct rk_vfs *v, struct artifact **as, size_t n, struct rk_err *err);
/* After vfs_artifacts_wait: 0 when a is usable; else -EIO when it is damaged (a failure
 * that stays: *read_all tells whether every member was read before it was found), or a
 * transient failure's code; err says why. */
int vfs_artifact_damaged(struct rk_vfs *v, struct artifact *a, int *read_all, struct rk_err *err);
/* Initialize the locks and the blob origin of a (zeroed) artifact; release what it owns
 * (prefixes, derived). */
void vfs_artifact_init(struct artifact *a);
void vfs_artifact_release(struct artifact *a);
/* Re-create a's blobs after want went missing, and open want (see vfs.c). */
int vfs_artifact_refill(struct rk_vfs *v, struct artifact *a, const char *want, uint64_t size,
			int *fd, struct rk_err *err);
/* The index of the first prefix of a containing path (TheRock assigns members that way),
 * or a->nprefixes. */
size_t vfs_owning_prefix(const struct artifact *a, const char *path);

/* The run's manifest (store manifests/ or base_lib_generic). */
struct rk_manifest;
int vfs_run_manifest(struct rk_vfs *v, struct node *dir, struct rk_manifest *out,
		     struct rk_err *err);

/* ---- the view contract ----
 * A view is a directory that the engine creates, lazily, where the view says it lives
 * (place): RUN/<name>/ in every run that shows it (a run view), or /<name>/ at the root
 * of a store of runs and in each {owner}-{repo}/ (a store view, spanning the runs listed
 * there); everything below it is the view's. The engine calls populate on first access
 * (no lock held), stop before the tree is freed (background work that reads nodes must
 * end), then free with the view's state, which the view creates itself: per run
 * (*vfs_view_state) for a run view, per store directory (*vfs_store_state) for a store
 * view. Views live in view_*.c, one table each, listed in view_registry.c in RUN/ order;
 * a view never includes or calls another view. */
enum vfs_place {
	VFS_VIEW_RUN, /* RUN/<name>/ (the default) */
	VFS_VIEW_STORE /* /<name>/ next to the runs of a store (not a run's name, nor README) */
};
struct vfs_view {
	const char *name; /* the directory below RUN/ (or the store) */
	const char *readme; /* its lines in the mount's README */
	int (*shown)(const struct rk_run *cat); /* a run view: whether run cat has this directory */
	vfs_pop_fn populate; /* RUN/<name>/ or /<name>/ */
	/* a run view: a name looked up in RUN/<name>/ that populate did not list (NULL:
	 * none; see vfs_miss_fn): names too many to list, made when asked for */
	vfs_miss_fn miss;
	/* a store view: whether its directory dir (populated) still holds what a populate
	 * would make now (1), asked at a lookup of its name once list_ttl has passed since
	 * the last question; 0: the engine serves a new, unpopulated directory of that name
	 * (refresh_store_view). NULL: the directory is populated once per mount. */
	int (*current)(struct rk_vfs *v, struct node *dir);
	void (*stop)(void *state); /* may be NULL */
	void (*free)(void *state); /* called for a state that is set; NULL: no state */
	uint8_t place; /* enum vfs_place */
	/* a run view that serves the files of the run's stored folder of its name under
	 * their own names, beside what it makes (vfs_run_stored_over): the run's README says
	 * so */
	uint8_t stored_over;
	/* Its options (rk/vfs.h), nopts of them, and its per-mount config made from them at
	 * rk_vfs_open: vals[i] is opts[i]'s value (given, else its default; NULL: unset;
	 * "" for a flag given), labels[i] how the caller spells it in messages. config NULL:
	 * no config (the view has no options). The view (and the services it declares
	 * options for) read the config with vfs_config. */
	const struct rk_vfs_opt_decl *opts;
	size_t nopts;
	int (*config)(const char *const *vals, const char *const *labels, void **cfg,
		      struct rk_err *err);
	void (*config_free)(void *cfg);
};
/* A shown function: runs that have artifacts (most views). */
int vfs_run_has_artifacts(const struct rk_run *cat);
extern const struct vfs_view *const vfs_views[];
extern const size_t vfs_nviews;
/* rk_vfs_open: check o->view_opts and make every view's config (v->vconf); 0, or a
 * negative errno with err naming the option. vfs_opts_release frees them (rk_vfs_close). */
int vfs_opts_apply(struct rk_vfs *v, const struct rk_vfs_opts *o, struct rk_err *err);
void vfs_opts_release(struct rk_vfs *v);
/* The value of view option name as given (a flag: ""), or NULL when it was not given:
 * for a service that reads an option another view declares (the release view's
 * all-runs repositories sign with the packages view's sign_key). */
const char *vfs_opt_given(const struct rk_vfs *v, const char *name);
/* The config of the view named view (its directory name), or NULL. */
void *vfs_config(const struct rk_vfs *v, const char *view);
/* The slot of r holding view's per-run state (NULL until the view sets it). */
void **vfs_view_state(struct run *r, const struct vfs_view *view);
/* Store views (no lock held). The slot holding a store view's state for the store
 * directory that dir (its directory or a node below it) is in (NULL until the view sets
 * it). */
void **vfs_store_state(struct rk_vfs *v, const struct node *dir, const struct vfs_view *view);
/* The names of the runs of the store directory dir is in, sorted (malloc'd, each and the
 * array), after listing the store again if its listing is older than list_ttl. */
int vfs_store_runs(struct rk_vfs *v, const struct node *dir, char ***names, size_t *n,
		   struct rk_err *err);
/* Run name of the store directory dir is in, populated (run->cat, its artifacts); -ENOENT
 * when there is no such run there. */
int vfs_store_run(struct rk_vfs *v, const struct node *dir, const char *name, struct run **out,
		  struct rk_err *err);
/* The populated directory path ("tarballs", "packages/deb/pool/main") of run name of
 * the store directory at is in; NULL (err set) when the run or the directory is
 * missing. */
struct node *vfs_store_run_dir(struct rk_vfs *v, const struct node *at, const char *name,
			       const char *path, struct rk_err *err);
/* Unit tests only: store views the next rk_vfs_open adds to vfs_views[]' (n 0: none). */
void vfs_test_store_views(const struct vfs_view *const *views, size_t n);

#endif
