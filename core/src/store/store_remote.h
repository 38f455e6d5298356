/* store_remote.h: what the s3 and http stores share (store_remote.c).
 *
 * A backend supplies two things: how to list one directory from the server (all pages),
 * and the URL (plus signer) of an object. store_remote.c does the rest:
 *  - listings: a run directory is listed with everything below it in one request
 *    sequence where the backend can (S3: ListObjectsV2 without delimiter). Listings are kept in
 * memory for the life of the store; listings inside a run (a path with a {run_id}-{platform}
 * component) are also kept in the cache directory for good, since runs are immutable, and are read
 * from there by later processes (opts.refresh or rk_store_refresh_run fetch them again). Others
 * (the bucket root, org directories) are written to the cache only for offline use. Concurrent
 * listings of one directory make one request sequence.
 *  - objects: the size comes from the parent's listing (no HEAD). Sequential reads
 *    stream (http.h); positional reads go through a small shared cache of 1 MiB blocks,
 *    so concurrent readers of the same bytes wait for one request. Objects of at most
 *    64 KiB inside a run (.sha256sum sidecars, manifests) are kept in the cache dir.
 *  - offline: no request at all; what the cache does not hold fails with -EIO. */
#ifndef RK_STORE_REMOTE_H
#define RK_STORE_REMOTE_H

#include <pthread.h>

#include "store/http.h"
#include "store/store_int.h"

struct remote_store;

struct remote_ops {
	/* One directory level at path ("" is the root), unsorted. */
	int (*list)(struct remote_store *r, const char *path, struct rk_store_list *out,
		    struct rk_err *err);
	/* Optional: every directory below path at once (one request sequence), for a run
	 * directory. paths[0] is path itself; the caller frees everything. */
	int (*list_tree)(struct remote_store *r, const char *path, char ***paths,
			 struct rk_store_list **lists, size_t *n, struct rk_err *err);
	/* The URL of the object at path onto out. */
	int (*url)(struct remote_store *r, const char *path, struct rk_buf *out);
	void (*free)(struct remote_store *r);
};

struct remote_list; /* store_remote.c */
struct remote_block;

struct remote_store {
	struct rk_store base;
	const struct remote_ops *rops;
	struct rk_http *http;
	rk_http_sign_fn sign; /* NULL: unsigned */
	void *sign_ctx;
	struct rk_cache *cache;
	int offline, refresh;
	long long final_age; /* seconds after its last upload a run's listing is final; < 0:
			      * at once */
	char key[17]; /* hash of the server part of the id ("s3://bucket"): cache file prefix */
	const char *root; /* the id's path below that ("" or "prefix"), in base.id */
	pthread_mutex_t lock; /* protects lists, blocks */
	pthread_cond_t cond;
	struct remote_list *lists;
	struct remote_block *blocks;
	unsigned nblocks;
	uint64_t tick;
};

/* Fill the shared part (base.id must be set, rops too); 0 or -errno. */
int remote_init(struct remote_store *r, const struct rk_store_opts *o, struct rk_err *err);
extern const struct rk_store_ops remote_store_ops;

#endif
