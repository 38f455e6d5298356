/* vfs_int.h: the inode tree's internals, shared by vfs.c (tree, browse, runs) and the
 * view builders (view_dist.c). Locking rules are at the top of vfs.c. */
#ifndef RK_VFS_INT_H
#define RK_VFS_INT_H

#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>

#include "rk/catalog.h"
#include "rk/hash.h"
#include "rk/vfs.h"
#include "htab.h"

struct rk_tar_layout;
struct rk_tarz;

/* SRC_STAGED: a file whose bytes are written to the cache but not yet hashed and
 * named; node->fd reads them until the committer publishes the blob id. */
enum src_kind { SRC_NONE, SRC_BYTES, SRC_BLOB, SRC_STORE, SRC_STAGED, SRC_TAR, SRC_TARZ };
enum pop_kind {
	POP_NONE,
	POP_ROOT,
	POP_ORG,
	POP_RUN,
	POP_ARCH,
	POP_DISTS,
	POP_DIST,
	POP_DIST_NOTES,
	POP_TARBALLS,
	POP_KPACK,
	POP_PYTHON,
	POP_PYPROJECT
};
enum pop_state { PS_TODO, PS_RUNNING, PS_DONE };
enum arch_state { ARCH_IDLE, ARCH_RUNNING, ARCH_DONE, ARCH_FAILED };

struct node;

struct dent {
	char *name;
	struct node *node;
	UT_hash_handle hh;
};

struct pyset;

struct run {
	struct rk_run *cat;
	struct pyset *py; /* view_python.c: the packages of python/, once populated */
	struct arch *archs; /* one per cat->arts[i] */
	struct node *dir; /* the run's directory */
	struct arch **xarchs; /* artifacts without an archive (view_python_split.c) */
	size_t nxarchs;
	struct run *next;
};

struct arch {
	struct rk_vfs *v;
	struct run *run;
	const struct rk_artifact *art;
	struct node *root; /* browse/<stem> */
	int state; /* enum arch_state; v->wait_lock */
	int rc;
	int transient; /* failed on the network (-ETIMEDOUT): a later access tries again */
	char why[256]; /* the failure, for every later EIO; written before state FAILED */
	uint64_t gen; /* bumped on every published member; v->wait_lock */
	_Atomic uint64_t progress;
	pthread_mutex_t refill;
	unsigned refills; /* completed re-ingests; refill */
	pthread_t thread; /* joined by rk_vfs_close */
	int started; /* thread is valid; v->wait_lock */
	char **prefixes; /* artifact_manifest.txt lines, set before state DONE */
	size_t nprefixes;
	/* kpack (view_kpack.c): */
	struct arch *source; /* a split output: the artifact it was split from, else NULL */
	pthread_mutex_t split_lock; /* serializes the split of this artifact */
	struct kpack_split *split; /* its outputs, once computed; split_lock */
	/* An artifact without an archive to split (view_python_split.c: a fat wheel): */
	const char *kpack_group; /* the .kpack group name (NULL: "<name>_<component>") */
	int kpack_relkeys; /* kernel names and TOC keys relative to the prefix, source_prefix
			    * "" (rocm-kpack's wheel splitter) instead of "<prefix>/<rel>" */
	/* re-create the blobs of its files after one went missing (NULL: ingest art) */
	int (*refill_fn)(struct rk_vfs *v, struct arch *a, struct rk_err *err);
};

struct node {
	uint64_t ino;
	struct node *parent;
	char *name;
	uint8_t pop; /* enum pop_kind; immutable */
	uint8_t pop_state; /* enum pop_state; v->wait_lock */
	int pop_rc;
	uint8_t pop_transient; /* pop_rc is a network failure: a later access tries again */
	char *ctx; /* POP_ORG/POP_RUN: store path */
	struct run *run; /* run directories, once populated */
	struct arch *arch; /* nodes inside browse/<stem> (and that root itself) */
	struct arch *origin; /* dist nodes: the artifact whose file this is */
	struct rk_tar_layout *tar; /* SRC_TAR: the archive's layout (owned); SRC_TARZ: borrowed */
	struct rk_tarz *tarz; /* SRC_TARZ: the compressed pieces (owned); size once ready */
	/* mutable (v->tree): */
	uint32_t mode, nlink;
	uint64_t size;
	int64_t mtime;
	uint8_t src;
	int fd; /* SRC_STAGED: owned descriptor of the unnamed cache file, else -1 */
	char *data; /* SRC_BYTES bytes, SRC_BLOB id, SRC_STORE path, symlink target */
	struct dent *dents;
	struct dent **order;
	size_t nents, cap;
	UT_hash_handle hh;
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
	sem_t jobs;
	_Atomic int cancel;
	int kpack_zstd; /* rk_vfs_opts.kpack_zstd */
	_Atomic uint64_t n_nodes, n_ingests, n_index_loads, n_failures;
	int64_t mount_time;
};

/* Tree (v->tree held for writing). */
struct node *vfs_node_new(struct rk_vfs *v, struct node *dir, const char *name, uint32_t mode,
			  int64_t mtime);
void vfs_dent_set(struct node *dir, const char *name, struct node *child);
struct node *vfs_node_add(struct rk_vfs *v, struct node *dir, const char *name, uint32_t mode,
			  int64_t mtime);
struct node *vfs_lazy_dir(struct rk_vfs *v, struct node *dir, const char *name, int pop,
			  int64_t mtime);
struct node *vfs_dent_find(struct node *dir, const char *name);
int vfs_dent_add(struct node *dir, const char *name, struct node *child);

/* Run n's populate function once, waiting if another thread is running it (no lock held). */
int vfs_populate(struct rk_vfs *v, struct node *n, struct rk_err *err);

/* Archives (no lock held). */
int vfs_arch_start(struct rk_vfs *v, struct arch *a);
/* Start every archive of as[0..n) and wait until none is running. Returns 0, or -EIO
 * (logged) when one of them failed. */
int vfs_archs_wait(struct rk_vfs *v, struct arch **as, size_t n, struct rk_err *err);

/* The run's manifest (store manifests/ or base_lib_generic). */
struct rk_manifest;
int vfs_run_manifest(struct rk_vfs *v, struct node *dir, struct rk_manifest *out,
		     struct rk_err *err);

/* view_dist.c: populate RUN/dist, RUN/dist/<X> and RUN/dist/.rockfs. */
/* The names of run r's dist trees (release: the release tarball names instead). */
int vfs_dist_names(struct rk_vfs *v, struct run *r, int release, char ***names, size_t *n);
/* Flatten the artifacts of r selected for x into root (release: without the test
 * component and fftw3, as build_tarballs.py does). Ingests what it needs. */
int vfs_flatten(struct rk_vfs *v, struct run *r, const char *x, int release, struct node *root,
		char **conflicts, unsigned *nconflicts, struct rk_err *err);
/* Flatten the artifacts as[0..n) (any set; ingested here, sorted into flatten order) into
 * root. */
int vfs_flatten_archs(struct rk_vfs *v, struct arch **as, size_t n, struct node *root,
		      struct rk_err *err);
int vfs_pop_dists(struct rk_vfs *v, struct node *dir, struct rk_err *err);
int vfs_pop_dist(struct rk_vfs *v, struct node *dir, struct rk_err *err);
int vfs_pop_dist_notes(struct rk_vfs *v, struct node *dir, struct rk_err *err);
/* Whether run r is kpack-split (manifest flag, else guessed from its names). */
int vfs_run_is_split(struct rk_vfs *v, struct run *r);
/* The directory node at '/'-separated path below root, or NULL. */
struct node *vfs_find_dir(struct node *root, const char *path);
/* The index of the first prefix of a containing path (TheRock assigns members that way),
 * or a->nprefixes. */
size_t vfs_owning_prefix(const struct arch *a, const char *path);

/* view_kpack.c: RUN/kpack and the split artifacts of legacy runs. */
int vfs_pop_kpack(struct rk_vfs *v, struct node *dir, struct rk_err *err);
/* Split legacy artifact a (ingesting it) once; *outs receives its outputs (generic first,
 * then one per architecture), owned by a. */
int vfs_kpack_split(struct rk_vfs *v, struct arch *a, struct arch ***outs, size_t *nouts,
		    struct rk_err *err);
void vfs_kpack_free(struct arch *a);
/* Re-create a decompressed bundle of a's split that went missing, and open it. */
int vfs_kpack_restore(struct rk_vfs *v, struct arch *a, const char *want, uint64_t size, int *fd,
		      struct rk_err *err);

/* view_python_synth.c: the packages TheRock would build from run r's artifacts. */
struct pysynth {
	char *file; /* "rocm_sdk_core-V-py3-none-linux_x86_64.whl", "rocm-V.tar.gz" */
	struct rk_tar_layout *zip; /* a wheel's layout (owned), or NULL */
	char *bytes; /* the sdist's bytes (owned), or NULL */
	uint64_t size;
	char *meta; /* a wheel's METADATA (NUL-terminated), or NULL */
	size_t meta_len;
	char *from; /* what it is made of, for PROVENANCE */
	char key[RK_SHA256_HEX]; /* a wheel's identity: the digest of its layout */
};
struct pysynth_set {
	struct pysynth *v;
	size_t n, cap;
};
struct pysynth *pysynth_push(struct pysynth_set *s);
void pysynth_release(struct pysynth_set *s);
/* Release the entries from n on (s->n becomes n). */
void pysynth_truncate(struct pysynth_set *s, size_t n);
/* Append run r's synthesized packages to out (none for runs without a usable manifest
 * version). A package that cannot be built is left out with a log line; only -ENOMEM
 * and network failures fail the call. Ingests the artifacts it needs. */
int vfs_python_synth(struct rk_vfs *v, struct run *r, struct pysynth_set *out, struct rk_err *err);
/* A wheel built from parts (view_python_split.c): members are blobs, bytes (taken over;
 * NULL for an empty file) or segment lists (borrowed until pywheel_finish, whose CRC-32
 * and sha256 are computed once and remembered in the cache). pywheel_finish adds
 * METADATA (Name, Version, Summary, Requires-Dist), WHEEL, top_level.txt and RECORD and
 * pushes the wheel "{dist}-{version}-{tag}.whl" to out. */
struct pywheel;
struct rk_buf;
struct pywheel *pywheel_new(void);
void pywheel_free(struct pywheel *w);
int pywheel_add(struct pywheel *w, const char *name, uint32_t mode, uint64_t size, const char *blob,
		char *data, const struct rk_tar_layout *layout, void *origin);
struct pywheel_info {
	const char *dist, *version, *tag, *requires, *summary, *top_level, *from;
	int64_t mtime;
};
int pywheel_finish(struct rk_vfs *v, struct pywheel *w, const struct pywheel_info *in,
		   struct pysynth_set *out, struct rk_err *err);
/* _dist_info.py as TheRock writes it (6.5) for these families. */
int pywheel_dist_info_py(const char *version, int split, char **families, size_t n,
			 const char *entry, const char *family, struct rk_buf *b);
/* Append the kpack split of the run's stored fat libraries wheels (view_python_split.c):
 * rocm-sdk-libraries and rocm-sdk-device-<target>, from st[0..n) (the stored wheels whose
 * METADATA reads). A wheel that cannot be split is left out with a log line; only -ENOMEM
 * and -ETIMEDOUT fail the call. */
struct pystored {
	const char *file, *path, *rel; /* file name, store path, path below python/ */
	uint64_t size;
	int64_t mtime, mtime_ns;
};
int vfs_python_split(struct rk_vfs *v, struct run *r, const struct pystored *st, size_t n,
		     struct pysynth_set *out, struct rk_err *err);
/* Free the run's wheel artifacts (rk_vfs_close, after the inodes). */
void vfs_python_split_free(struct run *r);
/* One .devel_links entry (py_packaging.py): relpath and its target from the devel tree. */
int pywheel_devel_link(struct rk_buf *links, const char *rel);

/* Create the cache's pyhash/ directory (hashes and records of python/). */
void vfs_pyhash_dir(struct rk_vfs *v);
/* The record "pyhash/<kind><sha256 of kind, store id, path, size, mtime_ns>" of a stored
 * file's version (kind "" for its hash, "members-" for a wheel's member list). */
int vfs_pyhash_rel(struct rk_vfs *v, const char *kind, const char *path, uint64_t size,
		   int64_t mtime_ns, char rel[128]);

/* view_python.c: populate RUN/python (a pip simple index over the stored packages). */
int vfs_pop_python(struct rk_vfs *v, struct node *dir, struct rk_err *err);
/* Populate python/simple/<project>/: hash its files (once; cached) and render its page. */
int vfs_pop_pyproject(struct rk_vfs *v, struct node *dir, struct rk_err *err);
/* Stop and join python/'s background hasher (before the tree is freed). */
void vfs_python_stop(struct run *r);
void vfs_python_free(struct run *r);

/* view_tarball.c: populate RUN/tarballs. */
int vfs_pop_tarballs(struct rk_vfs *v, struct node *dir, struct rk_err *err);
/* Read n bytes at off of a synthesized archive (rk_tar_read_fn shape; ctx: a struct
 * vfs_layout_src). */
struct vfs_layout_src {
	struct rk_vfs *v;
	const struct rk_tar_layout *tar;
};
ssize_t vfs_layout_read(void *ctx, void *buf, size_t n, uint64_t off);
/* Re-create a's blobs after want went missing, and open want (see vfs.c). */
int vfs_arch_refill(struct rk_vfs *v, struct arch *a, const char *want, uint64_t size, int *fd,
		    struct rk_err *err);

#endif
