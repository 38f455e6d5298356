/* rk/cache.h: the local cache shared by every rockfs process on a machine.
 *
 * Layout under the cache directory (docs/internals/cache.md):
 *   VERSION               "rockfs-cache 1"
 *   blobs/<xx>/<sha256>   immutable file contents, named by their SHA-256, mode 0400
 *   pieces/<key>          compressed tarball pieces with a CRC32 trailer (tar_compress.c);
 *                         counted and evicted with the blobs
 *   index/<key>.rkix      persistent member index of one archive (rk/index.h)
 *   kpack/                derived-value records ("memos", below) of zstd .kpack archives
 *   pyhash/, remote/      memos of python/ and of remote stores, made on first use
 *                         (rk_cache_area), so a cache that never needed them has none
 *   locks/<key>           flock()ed while one process ingests that archive
 *   tmp/                  files being written; renamed into place when complete
 *
 * Every write is temp + rename, so a crash never leaves a file that reads wrong.
 * A blob is hashed while it is written, and hashed again the first time a process
 * opens it, and again after the file changed: one that fails (damaged, or another blob
 * moved to its name) is deleted and reported as -EBADMSG, never served.
 * The size limit is kept by evicting least recently used blobs (mtime is the use
 * stamp, refreshed on open). Several processes may share one directory: they
 * coordinate only through rename(), flock() and unlink(), which are atomic.
 * All functions are thread-safe. */
#ifndef RK_CACHE_H
#define RK_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "rk/err.h"
#include "rk/hash.h"

struct rk_cache;
struct rk_blob_writer;

/* The kinds of records (rk_cache_put_file) the cache keeps: one directory each. */
#define RK_CACHE_KINDS 6
extern const char *const rk_cache_kinds[RK_CACHE_KINDS]; /* "index", "pieces", ... */

struct rk_cache_stats {
	uint64_t blobs, blob_bytes;
	uint64_t indexes, index_bytes;
	uint64_t evicted, evicted_bytes; /* gc: what this call removed */
	uint64_t bad; /* verify: blobs and records that failed their check (deleted) */
	uint64_t bad_blobs; /* verify: of them, blobs */
	uint64_t records[RK_CACHE_KINDS], bad_records[RK_CACHE_KINDS]; /* verify: per kind */
};

/* limit for rk_cache_open: what fits the disk, fixed at open: the blobs the cache holds
 * plus half the free space of its file system (at least RK_CACHE_LIMIT_MIN). rockfs and
 * rockpack use it when no cache_size is given (rockfs(8), rockpack(1)). */
#define RK_CACHE_LIMIT_AUTO UINT64_MAX
#define RK_CACHE_LIMIT_MIN (64ull << 20)

/* Open (creating if needed) the cache at dir. limit = 0 means no size limit,
 * RK_CACHE_LIMIT_AUTO the default above (rk_cache_limit then says what it came to).
 * The cache is private to its owner: directories 0700, blobs 0400, other files 0600,
 * whatever the umask. An existing directory that is another user's, or that group or
 * others can write to, is refused (-EPERM, err says how to fix it); one whose modes are
 * looser is tightened, with one log line. rk_cache_open_shared with a group (name or
 * number; NULL: private) makes a cache that several users of that group share on
 * purpose: setgid directories 02770 of that group, blobs 0440, other files 0640; the
 * directory may then be another member's, and only others' write access is refused. */
int rk_cache_open(const char *dir, uint64_t limit, struct rk_cache **out, struct rk_err *err);
int rk_cache_open_shared(const char *dir, uint64_t limit, const char *group, struct rk_cache **out,
			 struct rk_err *err);
void rk_cache_close(struct rk_cache *c); /* NULL ok */
const char *rk_cache_dir(const struct rk_cache *c);

/* The default directory: $XDG_CACHE_HOME/rockfs or ~/.cache/rockfs, into out. */
int rk_cache_default_dir(char *out, size_t n);

/* Write a blob: create, write any number of times, then commit (which names it by its
 * SHA-256 and frees w) or abort. hash_now: hash while writing; otherwise commit hashes
 * the finished file, so the hashing can happen in the thread that commits. A writer has
 * one owner at a time but may be handed to another thread between write and commit. */
int rk_blob_create(struct rk_cache *c, int hash_now, struct rk_blob_writer **w, struct rk_err *err);
int rk_blob_write(struct rk_blob_writer *w, const void *data, size_t len, struct rk_err *err);
/* Append len zero bytes. Blobs are sparse: whole aligned blocks of zeros, written either
 * way, become holes that take no disk space (and count as none against the limit). */
int rk_blob_hole(struct rk_blob_writer *w, uint64_t len, struct rk_err *err);
/* The bytes written so far that take disk space (all but the holes). */
uint64_t rk_blob_writer_dense(const struct rk_blob_writer *w);
/* The size limit given to rk_cache_open (0: none). */
uint64_t rk_cache_limit(const struct rk_cache *c);
int rk_blob_commit(struct rk_blob_writer *w, char id[RK_SHA256_HEX], struct rk_err *err);
void rk_blob_abort(struct rk_blob_writer *w); /* NULL ok */
/* The writer's file, readable from offset 0 (valid until commit or abort). */
int rk_blob_writer_fd(const struct rk_blob_writer *w);

/* Store a whole blob from memory. */
int rk_blob_put(struct rk_cache *c, const void *data, size_t len, char id[RK_SHA256_HEX],
		struct rk_err *err);

/* Open blob id for reading (O_RDONLY, close with close()). size is the expected size.
 * -ENOENT: not in the cache (evicted); -EBADMSG: failed its check and was deleted. */
int rk_blob_open(struct rk_cache *c, const char *id, uint64_t size, int *fd, struct rk_err *err);

/* Check again that fd, opened by rk_blob_open(c, id, size), holds the blob as this process
 * checked it: an fstat and a lookup while the file is unchanged, its content checked again
 * (as on open) when it changed since (rewritten in place, truncated). For a descriptor
 * kept open across reads. 0; -EBADMSG when it fails (the blob is discarded, as by
 * rk_blob_open); -errno. */
int rk_blob_recheck(struct rk_cache *c, const char *id, uint64_t size, int fd, struct rk_err *err);

/* The CRC-32 of blob id (size bytes): the recorded xattr, or computed by reading the blob
 * (and then recorded). -ENOENT when the blob is missing (or of another size), -EBADMSG
 * when it fails its check (as rk_blob_open: it is deleted). Like rk_blob_open it checks
 * the blob once per handle (and again once it changed), and refreshes its use stamp. */
int rk_blob_crc32(struct rk_cache *c, const char *id, uint64_t size, uint32_t *crc,
		  struct rk_err *err);

/* 1 when blob id is in the cache with that size (a stat, no hash check), else 0. */
int rk_blob_exists(struct rk_cache *c, const char *id, uint64_t size);

/* Make the directory of a records area ("pyhash", "remote") if it is missing; a failure
 * is logged once per call and returned (the records are then not kept). */
int rk_cache_area(struct rk_cache *c, const char *area);
/* Records: small files (indexes, memos, tarball pieces), by path relative to the cache
 * dir (in one of the directories above). put is atomic and appends a trailer, "RKR2", the
 * CRC32 of the payload, its length and a binding to rel, its key (docs/internals/cache.md);
 * get returns the payload (malloc'd, NUL-terminated), or -ENOENT when absent. A record that
 * fails its check (damaged, or moved or copied from another key), or has no trailer of
 * this version (written by an older rockfs), is deleted with one log line and reads as
 * absent, so that its caller makes it again. */
int rk_cache_put_file(struct rk_cache *c, const char *rel, const void *data, size_t len,
		      struct rk_err *err);
int rk_cache_get_file(struct rk_cache *c, const char *rel, size_t max, char **data, size_t *len,
		      struct rk_err *err);
int rk_cache_remove_file(struct rk_cache *c, const char *rel);
/* 1 unless rel is certainly absent (a failure to look counts as present). */
int rk_cache_has_file(struct rk_cache *c, const char *rel);

/* Derived-value records ("memos"): a value rockfs computed once from some input (a
 * file's hash, a wheel's member list, a compressed .kpack's blob id), kept as a small
 * metadata file so that no process computes it again. Its name says what it was derived
 * from: "<area>/<prefix><sha256 of parts[0..n) joined by NUL bytes>". Read and write it
 * with rk_cache_get_file/rk_cache_put_file; a record that does not parse is recomputed.
 * Areas in use: "pyhash" (python/), "kpack" (zstd .kpack archives), "remote" (remote
 * store listings and small objects, named by path instead). */
#define RK_MEMO_NAME 128
int rk_memo_name(const char *area, const char *prefix, const char *const *parts, size_t n,
		 char rel[RK_MEMO_NAME]);

/* Open a record to read its payload in place: bytes [0, *len) of *fd, whose CRC32 is *crc
 * (len and crc may be NULL). The key binding is checked on every open, the payload the
 * first time this process opens the record (or writes it) and again once the file changed;
 * a bad one is handled as by rk_cache_get_file (-ENOENT). Refreshes its use stamp. 0 or
 * -errno. */
int rk_cache_open_file(struct rk_cache *c, const char *rel, int *fd, uint64_t *len, uint32_t *crc);

/* Exclusive inter-process lock named key (blocks). Returns a descriptor for unlock. */
int rk_cache_lock(struct rk_cache *c, const char *key, int *fd, struct rk_err *err);
void rk_cache_unlock(int fd);

/* Tell the cache that bytes were added; evicts when over the limit. */
void rk_cache_added(struct rk_cache *c, uint64_t bytes);

/* What this process knows without reading the disk: the size limit (0: none) and the
 * bytes in blobs/ (tracked only with a limit, else 0), bytes it added, and blobs or
 * records it found bad and deleted. */
struct rk_cache_usage {
	uint64_t limit, used, written, discarded;
};
void rk_cache_usage(struct rk_cache *c, struct rk_cache_usage *u);

int rk_cache_stats(struct rk_cache *c, struct rk_cache_stats *st, struct rk_err *err);
/* Evict least recently used blobs and pieces until at most target bytes remain. */
int rk_cache_gc(struct rk_cache *c, uint64_t target, struct rk_cache_stats *st, struct rk_err *err);
/* Re-hash every blob and check every record (each kind in rk_cache_kinds); delete the
 * ones that fail. st->bad counts them, st->bad_blobs and st->bad_records[] by kind. */
int rk_cache_verify(struct rk_cache *c, struct rk_cache_stats *st, struct rk_err *err);

#endif
