/* cache_record.c: records (a payload and its trailer, rk_cache_put_file and
 * rk_cache_get_file), memo names, areas and per-key locks (rk/cache.h, cache/cache_int.h). */
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

int rk_cache_put_file(struct rk_cache *c, const char *rel, const void *data, size_t len,
		      struct rk_err *err)
{
	return cache_put_bytes(c, rel, data, len, 1, err);
}

/* The trailer of record rel, a file of size bytes whose last RK_MIN(size, RECORD_TRAILER)
 * bytes end at end: its payload's length and CRC32, and whether it is bound to another key
 * (moved: told apart from damage by the CRC32, which the caller checks). 0; -EBADMSG when
 * it is damaged; -EPROTO when there is none (a record from before, of either older
 * format); -ENOMEM. A damaged magic with the right length is damage, not an old record. */
static int parse_trailer(const char *rel, const unsigned char *end, uint64_t size, uint64_t *len,
			 uint32_t *crc, int *moved)
{
	char bind[RECORD_TRAILER - RECORD_HEAD];
	const unsigned char *t;
	int rc;

	if (size < RECORD_TRAILER)
		return -EPROTO;
	t = end - RECORD_TRAILER;
	*crc = rk_le32(t + 4);
	*len = rk_le64(t + 8);
	if (memcmp(t, RECORD_MAGIC, 4))
		return *len + RECORD_TRAILER == size ? -EBADMSG : -EPROTO;
	if (*len + RECORD_TRAILER != size)
		return -EBADMSG;
	if ((rc = cache_record_bind(rel, t, bind)))
		return rc;
	*moved = memcmp(bind, t + RECORD_HEAD, sizeof(bind)) != 0;
	return 0;
}

/* A record failed: its check (discarded, -ENOENT) or to be read (rc). */
static int record_failed(struct rk_cache *c, const char *rel, int rc)
{
	return rc == -EBADMSG || rc == -EPROTO || rc == RECORD_MOVED ? cache_discard(c, rel, rc)
								     : rc;
}

/* Check the record rel, open as fd, against its trailer: its payload's length and CRC32
 * into len and crc. The key binding is checked every time; the payload is read when this
 * process has not checked the file as it is now (its stamp), or always, with again. The
 * stat of fd goes to st. 0, -EBADMSG, RECORD_MOVED or -EPROTO (see parse_trailer), -errno
 * when unreadable. */
int cache_check_record(struct rk_cache *c, const char *rel, int fd, int again, uint64_t *len,
		       uint32_t *crc, struct stat *st)
{
	unsigned char t[RECORD_TRAILER];
	uint32_t got;
	int rc, moved = 0;

	if (fstat(fd, st))
		return -errno;
	if (st->st_size < RECORD_TRAILER)
		return -EPROTO;
	if (pread(fd, t, RECORD_TRAILER, st->st_size - RECORD_TRAILER) != RECORD_TRAILER)
		return -EIO;
	if ((rc = parse_trailer(rel, t + RECORD_TRAILER, (uint64_t)st->st_size, len, crc, &moved)))
		return rc;
	if (!again && !moved && cache_is_verified(c, rel, st))
		return 0;
	if ((rc = cache_hash_fd(fd, *len, NULL, &got)))
		return rc;
	if (got != *crc)
		return -EBADMSG;
	if (moved)
		return RECORD_MOVED;
	cache_mark_verified(c, rel, st);
	return 0;
}

int rk_cache_area(struct rk_cache *c, const char *area)
{
	int rc = strchr(area, '/') || area[0] == '.' ? -EINVAL : cache_mkdir_at(c, area);

	if (rc)
		rk_warn("cache '%s/%s': %s; its records are not kept", c->dir, area, strerror(-rc));
	return rc;
}

int rk_memo_name(const char *area, const char *prefix, const char *const *parts, size_t n,
		 char rel[RK_MEMO_NAME])
{
	struct rk_sha256 h;
	char hex[RK_SHA256_HEX];
	int rc;

	if (strlen(area) + strlen(prefix) + RK_SHA256_HEX + 1 > RK_MEMO_NAME)
		return -ENAMETOOLONG;
	if ((rc = rk_sha256_init(&h)))
		return rc;
	for (size_t i = 0; i < n; i++)
		rk_sha256_update(&h, parts[i], strlen(parts[i]) + (i + 1 < n));
	rk_sha256_final(&h, hex);
	snprintf(rel, RK_MEMO_NAME, "%s/%s%s", area, prefix, hex);
	return 0;
}

int rk_cache_get_file(struct rk_cache *c, const char *rel, size_t max, char **data, size_t *len,
		      struct rk_err *err)
{
	uint64_t plen = 0;
	uint32_t crc = 0;
	struct stat st;
	size_t got = 0;
	char *buf;
	int fd, rc = 0, moved = 0;

	fd = openat(c->dirfd, rel, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ENOENT
				       : rk_err_set(err, -errno, "cache '%s/%s': %s", c->dir, rel,
						    strerror(errno));
	if (fstat(fd, &st) || (uint64_t)st.st_size > (uint64_t)max + RECORD_TRAILER) {
		close(fd);
		return rk_err_set(err, -EFBIG, "cache '%s/%s': too large", c->dir, rel);
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = n < 0 ? -errno : -EIO;
			break;
		}
		got += (size_t)n;
	}
	close(fd);
	if (rc) {
		free(buf);
		return rk_err_set(err, rc, "cache '%s/%s': read failed", c->dir, rel);
	}
	rc = parse_trailer(rel, (unsigned char *)buf + got, got, &plen, &crc, &moved);
	if (!rc && (uint32_t)libdeflate_crc32(0, buf, (size_t)plen) != crc)
		rc = -EBADMSG;
	else if (!rc && moved)
		rc = RECORD_MOVED;
	if (rc) {
		free(buf);
		return record_failed(c, rel, rc);
	}
	buf[plen] = '\0';
	*data = buf;
	*len = (size_t)plen;
	return 0;
}

int rk_cache_open_file(struct rk_cache *c, const char *rel, int *out, uint64_t *len, uint32_t *crc)
{
	struct timespec now;
	struct stat st;
	uint64_t l;
	uint32_t v;
	int rc, fd = openat(c->dirfd, rel, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if ((rc = cache_check_record(c, rel, fd, 0, &l, &v, &st))) {
		close(fd);
		return record_failed(c, rel, rc);
	}
	clock_gettime(CLOCK_REALTIME, &now);
	if (st.st_mtim.tv_sec + TOUCH_INTERVAL < now.tv_sec && !futimens(fd, NULL) &&
	    !fstat(fd, &st)) /* LRU use stamp, as for blobs: our own change */
		cache_mark_verified(c, rel, &st);
	*out = fd;
	if (len)
		*len = l;
	if (crc)
		*crc = v;
	return 0;
}

int rk_cache_remove_file(struct rk_cache *c, const char *rel)
{
	return unlinkat(c->dirfd, rel, 0) ? -errno : 0;
}

int rk_cache_has_file(struct rk_cache *c, const char *rel)
{
	return !faccessat(c->dirfd, rel, F_OK, 0) || errno != ENOENT;
}

int rk_cache_lock(struct rk_cache *c, const char *key, int *out, struct rk_err *err)
{
	char rel[256];
	int fd;

	snprintf(rel, sizeof(rel), "locks/%s", key);
	fd = openat(c->dirfd, rel, O_RDONLY | O_CREAT | O_CLOEXEC,
		    c->fmode); /* flock needs no write */
	if (fd < 0) /* creating the lock file is a write into the cache */
		return rk_err_set(err, cache_write_failed(c, errno), "cache '%s/%s': %s", c->dir,
				  rel, strerror(errno));
	fchmod(fd, c->fmode); /* past the umask; fails harmlessly on another member's file */
	while (flock(fd, LOCK_EX)) {
		if (errno == EINTR)
			continue;
		close(fd);
		return rk_err_set(err, -errno, "cache lock '%s': %s", rel, strerror(errno));
	}
	*out = fd;
	return 0;
}

void rk_cache_unlock(int fd)
{
	if (fd >= 0)
		close(fd); /* releases the flock */
}
