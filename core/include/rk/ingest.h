/* rk/ingest.h: stream one artifact archive into the cache.
 *
 * One sequential pass: the object is read once, decompressed (zstd, xz or gzip,
 * detected from the bytes) and parsed as tar by libarchive in the calling thread, which
 * writes each regular file to a new cache file and reports it through on_staged as its
 * first bytes are about to land, with a frontier that tells how much of it is written
 * (rk/frontier.h): readers stream a member while it is decompressed. Every frontier of
 * an ingest that fails is failed too, also those of files written whole. A second thread hashes and
 * commits each file under its SHA-256 name, appends every member to idx and reports
 * it through on_member, in archive order: SHA-256 is the slow step of an ingest, so it
 * is kept off the path to the first bytes. TheRock's rules are enforced: the first member must be
 * artifact_manifest.txt; member names with ".." are dropped, leading '/' removed;
 * symlinks whose target leaves the archive root are dropped; device, fifo and other
 * special members are dropped (each drop logged once with the archive name). When
 * expect_sha256 is given, the whole compressed stream is hashed and compared.
 *
 * Returns 0, -EBADMSG (corrupt or truncated data), -EPROTO (rule broken), -ECANCELED,
 * or the store/cache error. Runs in the calling thread; thread-safe across calls. */
#ifndef RK_INGEST_H
#define RK_INGEST_H

#include <stdatomic.h>
#include <stdint.h>

#include "rk/cache.h"
#include "rk/frontier.h"
#include "rk/index.h"
#include "rk/store.h"

typedef int (*rk_ingest_member_fn)(void *ctx, const struct rk_index *idx, size_t pos);
/* A regular file of m->size bytes (from its header) is about to be written: fd will read
 * them from offset 0 as far as fr allows. fd stays valid only during the call (dup it to
 * keep it); take a reference to fr to keep it. m->blob is "". */
typedef int (*rk_ingest_staged_fn)(void *ctx, const struct rk_member *m, int fd,
				   struct rk_frontier *fr);

struct rk_ingest_opts {
	const char *name; /* for messages: the archive file name */
	const char *expect_sha256; /* from the .sha256sum sidecar, or NULL */
	rk_ingest_member_fn on_member; /* committer thread, archive order, blob ids set */
	rk_ingest_staged_fn on_staged; /* reader thread, as a file starts */
	void *ctx;
	_Atomic uint64_t *progress; /* compressed bytes consumed so far; may be NULL */
	const _Atomic int *cancel; /* stop with -ECANCELED when it becomes non-zero; may be NULL */
	int *read_all; /* may be NULL: set to 1 once every member was read, even if the
			* archive then fails its sidecar's SHA-256 */
};

/* c may be NULL: members are then parsed and checked but no blob is written (the
 * fuzz target uses this; blob ids stay ""). */
int rk_ingest(struct rk_cache *c, struct rk_object *obj, const struct rk_ingest_opts *o,
	      struct rk_index *idx, struct rk_err *err);

#endif
