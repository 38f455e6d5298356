/* cache/cache_int.h: what the files of the cache share (rk/cache.h is the contract):
 * cache.c (the directory, its layout and writes into it), cache_check.c (what this process
 * has checked, hashes and CRC xattrs), cache_blob.c (blobs), cache_record.c (records and
 * locks), cache_gc.c (sizes and eviction), cache_verify.c (rockpack cache verify). */
#ifndef RK_CACHE_INT_H
#define RK_CACHE_INT_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

#include "rk/cache.h"
#include "rk/err.h"
#include "rk/hash.h"
#include "util/htab.h"

#define TOUCH_INTERVAL 60 /* seconds: refresh a blob's use stamp at most this often */

/* What a check was made of: the file's identity, size and ctime. Every change to a file
 * gives it another stamp: a write, a truncation, a chmod or an xattr change sets its ctime,
 * which its owner cannot set back, and another file moved in has another inode. So a
 * check holds until the stamp changes, and a file changed under a running process is
 * checked again on its next open (docs/internals/cache.md, "Never trusted unchecked"). */
struct stamp {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec ctime;
};

/* A blob id, or a record's path, checked by this process as it was at stamp st. */
struct verified {
	UT_hash_handle hh;
	struct stamp st;
	char id[];
};

struct rk_cache {
	char *dir;
	int dirfd;
	mode_t dmode, bmode, fmode; /* directories, blobs, other files (cache_modes) */
	gid_t gid; /* a shared cache's group, else (gid_t)-1 */
	uint64_t limit;
	_Atomic uint64_t used; /* approximate bytes in blobs/ (this process's view) */
	_Atomic uint64_t written, discarded; /* by this process: bytes added, bad data deleted */
	pthread_mutex_t lock; /* protects: verified */
	struct verified *verified;
	pthread_mutex_t gc_lock; /* one eviction pass at a time */
};

/* A blob's CRC32 and id, "<crc32 hex> <sha256 hex>", recorded in this extended attribute
 * when the blob is written: the first open in a process checks it (libdeflate, > 10 GB/s)
 * instead of the SHA-256 (2.6 s/GiB without SHA instructions). It catches what the
 * SHA-256 check is for (truncation, bytes changed on disk or by hand), and the id binds it
 * to the blob's name: a blob moved to another name (the xattr goes with the file) fails.
 * `rockpack cache verify` still checks the SHA-256. Blobs without it (file systems without
 * user xattrs, older caches, whose value is the CRC alone) get the SHA-256 check, and then
 * it is recorded. */
#define CRC_XATTR "user.rockfs.crc32"
#define CRC_XATTR_LEN (8 + 1 + 64)

/* Every record (what rk_cache_put_file writes) ends in this trailer, little-endian:
 * "RKR2", the CRC32 of the payload before it, the payload's length, and the key binding:
 * the first 16 hex digits of the SHA-256 of the record's key (its path in the cache), a
 * NUL and the trailer's first 16 bytes. A record moved or copied to another key fails
 * the binding; damage fails the CRC32 (docs/internals/cache.md, "Records"). Records from
 * before ("RKR1", 16 bytes: no binding) are an older rockfs's: made again. */
#define RECORD_MAGIC "RKR2"
#define RECORD_TRAILER 32
#define RECORD_HEAD 16 /* magic, CRC32, length: what the binding covers with the key */
#define RECORD_MOVED (-EXDEV) /* a record whose binding names another key */

/* the directory (cache.c) */

/* Make directory name below the cache root with the cache's mode. */
int cache_mkdir_at(struct rk_cache *c, const char *name);

int cache_write_all(int fd, const void *data, size_t len);

/* The one place that says what a failed write into the cache means (e: the errno of a
 * create, write, rename or mkdir below the cache directory). A cache that cannot be
 * written now (full: ENOSPC, EDQUOT; read-only: EROFS; its permissions: EACCES, EPERM;
 * its directory or a part of it gone: ENOENT) is a transient failure (rk_err_transient:
 * ENOSPC, EDQUOT, EROFS), never a reason for a different result: the caller serves from
 * memory or fails, and tries again on the next access. A deleted cache directory is made
 * again for that next access. Returns the error code to report. */
int cache_write_failed(struct rk_cache *c, int e);

/* Move the finished temp file tmp, open as fd, to rel and close fd; remember it as checked
 * under id, when not NULL (its stamp is taken after the rename, which sets its ctime). A
 * failed close takes the file away again: its bytes may not have reached the disk. 0 or
 * -errno. */
int cache_install(struct rk_cache *c, int fd, const char *tmp, const char *rel, const char *id);

/* The binding of the trailer head t to key rel, into out. 0 or -ENOMEM. */
int cache_record_bind(const char *rel, const unsigned char t[RECORD_HEAD],
		      char out[RECORD_TRAILER - RECORD_HEAD]);

/* Write rel atomically: data, then (framed) the record trailer. */
int cache_put_bytes(struct rk_cache *c, const char *rel, const void *data, size_t len, int framed,
		    struct rk_err *err);

/* A record that failed its check (rc -EBADMSG, RECORD_MOVED) or has no trailer (-EPROTO,
 * written by a rockfs from before records had one): deleted, so that it is made again,
 * with one log line (for old records, one per process). Returns -ENOENT: its callers see
 * it absent. */
int cache_discard(struct rk_cache *c, const char *rel, int rc);

/* what this process checked, and how (cache_check.c) */

void cache_blob_path(const char *id, char *out, size_t n);

/* True when id was checked by this process as the file it is now (st). */
int cache_is_verified(struct rk_cache *c, const char *id, const struct stat *st);

/* Remember that id, the file st, passed its check (or was written by this process). */
void cache_mark_verified(struct rk_cache *c, const char *id, const struct stat *st);

void cache_forget_verified(struct rk_cache *c, const char *id);

/* Hash the first len bytes of the file behind fd (UINT64_MAX: all of it): their SHA-256
 * into hex (if not NULL) and their CRC32. */
int cache_hash_fd(int fd, uint64_t len, char hex[RK_SHA256_HEX], uint32_t *crc);

/* The CRC32 recorded for blob id behind fd: 0 and *crc; -ENODATA when there is none (or
 * one from before ids were recorded); -EXDEV when it was recorded for another blob (the
 * file was moved here from another name). */
int cache_recorded_crc(int fd, const char *id, uint32_t *crc);

/* Record crc for blob id, the file behind fd. 0 or -errno (no user xattrs here, no
 * permission). */
int cache_set_crc(int fd, uint32_t crc, const char *id);

/* What a blob file takes on disk: holes take nothing. */
uint64_t cache_disk_bytes(const struct stat *st);

/* Record crc for a committed blob, which is read-only: user xattrs need write permission
 * on the file, so the owner lends it for the call. Best effort, as at commit. Threads
 * doing this at once may fail to record (EACCES), never change the mode for good. */
void cache_record_crc(const struct rk_cache *c, int fd, uint32_t crc, const char *id);

/* records (cache_record.c) */

/* Check the record rel, open as fd, against its trailer: its payload's length and CRC32
 * into len and crc. The key binding is checked every time; the payload is read when this
 * process has not checked the file as it is now (its stamp), or always, with again. The
 * stat of fd goes to st. 0, -EBADMSG, RECORD_MOVED or -EPROTO (see parse_trailer), -errno
 * when unreadable. */
int cache_check_record(struct rk_cache *c, const char *rel, int fd, int again, uint64_t *len,
		       uint32_t *crc, struct stat *st);

/* sizes and eviction (cache_gc.c) */

/* Call fn for each blob file (and with pieces, each compressed tarball piece); stops
 * at the first non-zero return. */
int cache_walk_blobs(struct rk_cache *c, int pieces,
		     int (*fn)(void *ctx, const char *path, struct stat *st), void *ctx);

void cache_added(struct rk_cache *c, uint64_t bytes, const char *keep);

#endif
