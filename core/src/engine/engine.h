/* engine.h: what the engine's files share (engine/ only: views and services use
 * engine/vfs_int.h). Which file does what: docs/internals/vfs.md; the locks: vfs.c. */
#ifndef RK_ENGINE_H
#define RK_ENGINE_H

#include <stdint.h>

#include "engine/vfs_int.h"

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
/* List dir (the root or an org) again if its listing is older than list_ttl: 1 when it
 * gained entries, else 0. */
int refresh_listing(struct rk_vfs *v, struct node *dir);
/* Serve run n of dir anew if the store's copy changed: the node that has the name now. */
struct node *refresh_run(struct rk_vfs *v, struct node *dir, struct node *n);
/* n's path from the mount's root ("RUN/dist/gfx1100"), for log lines. */
void node_path(struct rk_vfs *v, const struct node *n, char *buf, size_t size);

/* lookup.c */
/* Find ino and make sure it is a populated directory. */
int get_dir(struct rk_vfs *v, uint64_t ino, struct node **out, struct rk_err *err);

/* file.c */
/* Whatever a stat (open: 1) of n must wait for: a compressed tarball's size, a SRC_LATER
 * file being made. No lock held; n's src was seen under the tree lock. */
int ensure_ready(struct rk_vfs *v, struct node *n, int open, struct rk_err *err);

#endif
