/* cache_blob.c: blobs: the writer (sparse, hashed while writing or at commit), opening a
 * blob checked, re-checking it (rk/cache.h, cache/cache_int.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include <libdeflate.h>

#include "cache/cache_int.h"
#include "rk/cache.h"
#include "rk/compiler.h"
#include "rk/log.h"
#include "util/htab.h"
#include "util/le.h"

struct rk_blob_writer {
	struct rk_cache *c;
	int fd;
	char tmp[64]; /* relative to the cache dir */
	uint64_t size;
	uint64_t dense; /* bytes written as data; the rest are holes */
	int tail_hole; /* the file ends in a hole: its size is set with ftruncate */
	int hashing; /* hash while writing (else at commit, from the file) */
	struct rk_sha256 h;
	uint32_t crc; /* CRC32 of what was written, while hashing */
};

int rk_blob_create(struct rk_cache *c, int hash_now, struct rk_blob_writer **out,
		   struct rk_err *err)
{
	struct rk_blob_writer *w = calloc(1, sizeof(*w));
	static _Atomic unsigned long seq;
	int rc;

	if (!w)
		return -ENOMEM;
	w->c = c;
	snprintf(w->tmp, sizeof(w->tmp), "tmp/blob.%ld.%lu", (long)getpid(), ++seq);
	w->fd = openat(c->dirfd, w->tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (w->fd < 0) {
		rc = rk_err_set(err, cache_write_failed(c, errno), "cache '%s/%s': %s", c->dir,
				w->tmp, strerror(errno));
		free(w);
		return rc;
	}
	if (hash_now) {
		if ((rc = rk_sha256_init(&w->h))) {
			rk_blob_abort(w);
			return rc;
		}
		w->hashing = 1;
	}
	*out = w;
	return 0;
}

/* Blobs are sparse: an aligned block of zeros is skipped (a hole), not written, so that
 * an archive member of gigabytes of zeros costs the cache next to nothing (du) and counts
 * as what it takes on disk. Readers see the zeros; hashes are of the whole content. */
#define HOLE_BLOCK 4096

static int all_zero(const unsigned char *p, size_t n)
{
	return !p[0] && !memcmp(p, p + 1, n - 1);
}

/* Extend the file over a hole at its end (skipped blocks leave its size behind). */
static int set_tail(struct rk_blob_writer *w)
{
	if (w->tail_hole && ftruncate(w->fd, (off_t)w->size))
		return -errno;
	w->tail_hole = 0;
	return 0;
}

static int write_sparse(struct rk_blob_writer *w, const unsigned char *p, size_t len)
{
	int rc = 0;

	while (len && !rc) {
		size_t head = HOLE_BLOCK - (size_t)(w->size % HOLE_BLOCK), n;
		int zero = 0;

		if (head != HOLE_BLOCK || len < HOLE_BLOCK) {
			/* a piece of a block: skipped too when zeros (the block is allocated
			 * when data lands in it), so the pieces at the ends of every call
			 * cost nothing on a run of zeros */
			n = RK_MIN(head, len);
			zero = all_zero(p, n);
		} else {
			zero = all_zero(p, HOLE_BLOCK);
			n = HOLE_BLOCK;
			while (n + HOLE_BLOCK <= len && all_zero(p + n, HOLE_BLOCK) == zero)
				n += HOLE_BLOCK;
		}
		if (zero) {
			if (lseek(w->fd, (off_t)n, SEEK_CUR) < 0)
				rc = -errno;
		} else {
			rc = cache_write_all(w->fd, p, n);
			w->dense += n;
		}
		w->tail_hole = zero;
		w->size += n;
		p += n;
		len -= n;
	}
	return rc ? rc : set_tail(w);
}

int rk_blob_write(struct rk_blob_writer *w, const void *data, size_t len, struct rk_err *err)
{
	int rc = write_sparse(w, data, len);

	if (rc)
		return rk_err_set(err, cache_write_failed(w->c, -rc), "cache '%s': write: %s",
				  w->c->dir, strerror(-rc));
	if (w->hashing) {
		rk_sha256_update(&w->h, data, len);
		w->crc = libdeflate_crc32(w->crc, data, len);
	}
	return 0;
}

int rk_blob_hole(struct rk_blob_writer *w, uint64_t len, struct rk_err *err)
{
	static const unsigned char zeros[HOLE_BLOCK];
	int rc = 0;

	/* up to the next block boundary as data, whole blocks as a hole, the rest as data */
	while (len && !rc && (w->size % HOLE_BLOCK || len < HOLE_BLOCK)) {
		size_t n = (size_t)RK_MIN(len, (uint64_t)(HOLE_BLOCK - w->size % HOLE_BLOCK));

		rc = rk_blob_write(w, zeros, n, err);
		len -= n;
	}
	if (rc || !len)
		return rc;
	if (w->hashing)
		for (uint64_t k = 0; k < len - len % HOLE_BLOCK; k += HOLE_BLOCK) {
			rk_sha256_update(&w->h, zeros, HOLE_BLOCK);
			w->crc = libdeflate_crc32(w->crc, zeros, HOLE_BLOCK);
		}
	if (lseek(w->fd, (off_t)(len - len % HOLE_BLOCK), SEEK_CUR) < 0)
		return rk_err_set(err, -errno, "cache '%s': seek: %s", w->c->dir, strerror(errno));
	w->size += len - len % HOLE_BLOCK;
	w->tail_hole = 1;
	if ((rc = set_tail(w)))
		return rk_err_set(err, rc, "cache '%s': truncate: %s", w->c->dir, strerror(-rc));
	return len % HOLE_BLOCK ? rk_blob_write(w, zeros, (size_t)(len % HOLE_BLOCK), err) : 0;
}

uint64_t rk_blob_writer_dense(const struct rk_blob_writer *w)
{
	return w->dense;
}

uint64_t rk_cache_limit(const struct rk_cache *c)
{
	return c->limit;
}

int rk_blob_commit(struct rk_blob_writer *w, char id[RK_SHA256_HEX], struct rk_err *err)
{
	struct rk_cache *c = w->c;
	char path[128];
	struct stat st;
	uint64_t disk;
	int rc = 0, existed;

	/* A deferred hash reads the file back from the page cache (cheap next to SHA-256
	 * itself), so another thread can do it (ingest.c). */
	if (w->hashing) {
		rk_sha256_final(&w->h, id);
		w->hashing = 0;
	} else if ((rc = cache_hash_fd(w->fd, UINT64_MAX, id, &w->crc))) {
		rk_blob_abort(w);
		return rk_err_set(err, rc, "cache '%s': hashing: %s", c->dir, strerror(-rc));
	}
	cache_set_crc(w->fd, w->crc, id); /* best effort: else SHA-256 on open */
	fchmod(w->fd, c->bmode);
	disk = fstat(w->fd, &st) ? w->size : cache_disk_bytes(&st);
	cache_blob_path(id, path, sizeof(path));
	/* Always move the fresh copy in, even over an existing one: it was hashed just now,
	 * while a copy already there may have rotted since it was written. */
	existed = !fstatat(c->dirfd, path, &st, 0);
	rc = cache_install(c, w->fd, w->tmp, path, id);
	w->fd = -1;
	if (rc)
		rc = rk_err_set(err, cache_write_failed(c, -rc), "cache '%s/%s': %s", c->dir, path,
				strerror(-rc));
	else if (!existed)
		cache_added(c, disk, id);
	free(w);
	return rc;
}

void rk_blob_abort(struct rk_blob_writer *w)
{
	if (!w)
		return;
	if (w->hashing)
		rk_sha256_release(&w->h);
	if (w->fd >= 0)
		close(w->fd);
	unlinkat(w->c->dirfd, w->tmp, 0);
	free(w);
}

int rk_blob_writer_fd(const struct rk_blob_writer *w)
{
	return w->fd;
}

int rk_blob_put(struct rk_cache *c, const void *data, size_t len, char id[RK_SHA256_HEX],
		struct rk_err *err)
{
	struct rk_blob_writer *w = NULL;
	int rc = rk_blob_create(c, 1, &w, err);

	if (rc)
		return rc;
	if ((rc = rk_blob_write(w, data, len, err))) {
		rk_blob_abort(w);
		return rc;
	}
	return rk_blob_commit(w, id, err);
}

int rk_blob_exists(struct rk_cache *c, const char *id, uint64_t size)
{
	char path[128];
	struct stat st;

	if (!rk_is_sha256_hex(id))
		return 0;
	cache_blob_path(id, path, sizeof(path));
	return !fstatat(c->dirfd, path, &st, 0) && (uint64_t)st.st_size == size;
}

/* Check blob id, open as fd, against its expected size and its content: the CRC32 recorded
 * for it, else the SHA-256 (then recorded). The content is read when this process has not
 * checked the file as it is now (its stamp): the first open, and again after any change to
 * it (rewritten, truncated, moved in from another name). With crc, the blob's CRC-32: the
 * one just checked, the recorded one, or computed from the (checked) file and recorded.
 * *changed tells that this call changed the file's ctime (a recorded CRC32). 0, -EBADMSG
 * with local set (the caller discards it), or -errno with err set. */
static int check_blob(struct rk_cache *c, const char *id, uint64_t size, int fd, uint32_t *crc,
		      int *changed, struct rk_err *local, struct rk_err *err)
{
	char hex[RK_SHA256_HEX];
	struct stat st;
	int rc;

	if (fstat(fd, &st))
		return rk_err_set(err, -errno, "blob %.12s: %s", id, strerror(errno));
	if ((uint64_t)st.st_size != size)
		return rk_err_set(local, -EBADMSG, "blob %.12s: size %lld, expected %llu", id,
				  (long long)st.st_size, (unsigned long long)size);
	if (!cache_is_verified(c, id, &st)) {
		uint32_t want, got;
		int rec = cache_recorded_crc(fd, id, &want); /* 0: recorded, bound to id */

		if (rec == -EXDEV)
			return rk_err_set(
				local, -EBADMSG,
				"blob %.12s: its recorded CRC32 is another blob's (moved)", id);
		if ((rc = cache_hash_fd(fd, UINT64_MAX, rec ? hex : NULL, &got)))
			return rk_err_set(err, rc, "blob %.12s: %s", id, strerror(-rc));
		if (!rec ? got != want : strcmp(hex, id) != 0)
			return rk_err_set(local, -EBADMSG, "blob %.12s: content hash mismatch (%s)",
					  id, !rec ? "CRC32" : "SHA-256");
		cache_mark_verified(c, id,
				    &st); /* the stamp from before the hash: a change since shows */
		if (rec) { /* checked by its SHA-256: record the CRC32 for the next process */
			cache_record_crc(c, fd, got, id);
			*changed = 1;
		}
		if (crc)
			*crc = got;
	} else if (crc && cache_recorded_crc(fd, id, crc)) {
		if ((rc = cache_hash_fd(fd, UINT64_MAX, NULL, crc)))
			return rk_err_set(err, rc, "blob %.12s: %s", id, strerror(-rc));
		cache_record_crc(c, fd, *crc, id);
		*changed = 1;
	}
	return 0;
}

/* A blob that failed its check (local says why): deleted when its name still holds the
 * file fd (a copy made again meanwhile is left alone), logged. Returns local's code. */
static int discard_blob(struct rk_cache *c, const char *id, int fd, struct rk_err *local,
			struct rk_err *err)
{
	struct stat a, b;
	char path[128];

	cache_blob_path(id, path, sizeof(path));
	cache_forget_verified(c, id);
	if (!fstat(fd, &a) && !fstatat(c->dirfd, path, &b, AT_SYMLINK_NOFOLLOW) &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		unlinkat(c->dirfd, path, 0);
	c->discarded++;
	rk_warn("cache: bad blob discarded: %s", local->msg);
	if (err)
		*err = *local;
	return local->code;
}

/* rk_blob_open, and with crc the blob's CRC-32 (check_blob). */
static int open_blob(struct rk_cache *c, const char *id, uint64_t size, int *out, uint32_t *crc,
		     struct rk_err *err)
{
	struct rk_err local = RK_ERR_INIT; /* the discard warning needs the reason */
	char path[128];
	struct timespec now;
	struct stat st;
	int fd, rc, changed = 0;

	if (!rk_is_sha256_hex(id))
		return rk_err_set(err, -EINVAL, "'%s': not a blob id", id);
	cache_blob_path(id, path, sizeof(path));
	fd = openat(c->dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return rk_err_set(err, -errno, "blob %.12s: %s", id, strerror(errno));
	if ((rc = check_blob(c, id, size, fd, crc, &changed, &local, err))) {
		if (rc == -EBADMSG && local.code)
			discard_blob(c, id, fd, &local, err);
		close(fd);
		return rc;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	if (!fstat(fd, &st) && st.st_mtim.tv_sec + TOUCH_INTERVAL < now.tv_sec) {
		futimens(fd, NULL); /* LRU use stamp; failure only makes eviction less exact */
		changed = 1;
	}
	if (changed && !fstat(fd, &st)) /* our own change (ctime): still the file checked */
		cache_mark_verified(c, id, &st);
	*out = fd;
	return 0;
}

int rk_blob_recheck(struct rk_cache *c, const char *id, uint64_t size, int fd, struct rk_err *err)
{
	struct rk_err local = RK_ERR_INIT;
	struct stat st;
	int rc, changed = 0;

	if ((rc = check_blob(c, id, size, fd, NULL, &changed, &local, err))) {
		if (rc == -EBADMSG && local.code)
			discard_blob(c, id, fd, &local, err);
		return rc;
	}
	if (changed && !fstat(fd, &st))
		cache_mark_verified(c, id, &st);
	return 0;
}

int rk_blob_open(struct rk_cache *c, const char *id, uint64_t size, int *out, struct rk_err *err)
{
	return open_blob(c, id, size, out, NULL, err);
}

int rk_blob_crc32(struct rk_cache *c, const char *id, uint64_t size, uint32_t *crc,
		  struct rk_err *err)
{
	uint32_t v;
	int fd, rc;

	/* checked first: rk_blob_open takes another size for damage and deletes the blob */
	if (!rk_blob_exists(c, id, size))
		return rk_err_set(err, -ENOENT, "blob %.12s: not in the cache with size %llu", id,
				  (unsigned long long)size);
	if ((rc = open_blob(c, id, size, &fd, &v, err)))
		return rc;
	close(fd);
	*crc = v;
	return 0;
}
