/* cache_check.c: what this process has checked in the cache (the verified set, by file
 * stamp), and the checks: SHA-256 and CRC32 of a file, the CRC xattr of a blob
 * (rk/cache.h, cache/cache_int.h). */
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

void cache_blob_path(const char *id, char *out, size_t n)
{
	snprintf(out, n, "blobs/%.2s/%s", id, id);
}

static struct stamp stamp_of(const struct stat *st)
{
	struct stamp s;

	memset(&s, 0, sizeof(s)); /* padding too: stamps compare with memcmp */
	s.dev = st->st_dev;
	s.ino = st->st_ino;
	s.size = st->st_size;
	s.ctime = st->st_ctim;
	return s;
}

/* True when id was checked by this process as the file it is now (st). */
int cache_is_verified(struct rk_cache *c, const char *id, const struct stat *st)
{
	struct stamp now = stamp_of(st);
	struct verified *v;
	int same;

	pthread_mutex_lock(&c->lock);
	HASH_FIND_STR(c->verified, id, v);
	same = v && !memcmp(&v->st, &now, sizeof(now));
	pthread_mutex_unlock(&c->lock);
	return same;
}

/* Remember that id, the file st, passed its check (or was written by this process). */
void cache_mark_verified(struct rk_cache *c, const char *id, const struct stat *st)
{
	struct verified *v;

	pthread_mutex_lock(&c->lock);
	HASH_FIND_STR(c->verified, id, v);
	if (!v && (v = calloc(1, sizeof(*v) + strlen(id) + 1))) {
		memcpy(v->id, id, strlen(id)); /* calloc'd: NUL-terminated */
		HASH_ADD_STR(c->verified, id, v);
		if (rk_htab_oom()) { /* not remembered: it will be verified again, that is all */
			free(v);
			v = NULL;
		}
	}
	if (v)
		v->st = stamp_of(st);
	pthread_mutex_unlock(&c->lock);
}

void cache_forget_verified(struct rk_cache *c, const char *id)
{
	struct verified *v;

	pthread_mutex_lock(&c->lock);
	HASH_FIND_STR(c->verified, id, v);
	if (v) {
		HASH_DEL(c->verified, v);
		free(v);
	}
	pthread_mutex_unlock(&c->lock);
}

/* Hash the first len bytes of the file behind fd (UINT64_MAX: all of it): their SHA-256
 * into hex (if not NULL) and their CRC32. */
int cache_hash_fd(int fd, uint64_t len, char hex[RK_SHA256_HEX], uint32_t *crc)
{
	enum { CHUNK = 1 << 20 };
	struct rk_sha256 h;
	char *buf = malloc(CHUNK);
	off_t off = 0;
	int rc;

	if (!buf)
		return -ENOMEM;
	if (hex && (rc = rk_sha256_init(&h))) {
		free(buf);
		return rc;
	}
	*crc = 0;
	while ((uint64_t)off < len) {
		ssize_t n = pread(fd, buf, RK_MIN((uint64_t)CHUNK, len - (uint64_t)off), off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			if (hex)
				rk_sha256_release(&h);
			free(buf);
			return rc;
		}
		if (n == 0)
			break;
		if (hex)
			rk_sha256_update(&h, buf, (size_t)n);
		*crc = libdeflate_crc32(*crc, buf, (size_t)n);
		off += n;
	}
	if (hex)
		rk_sha256_final(&h, hex);
	free(buf);
	return 0;
}

/* The CRC32 recorded for blob id behind fd: 0 and *crc; -ENODATA when there is none (or
 * one from before ids were recorded); -EXDEV when it was recorded for another blob (the
 * file was moved here from another name). */
int cache_recorded_crc(int fd, const char *id, uint32_t *crc)
{
	char v[CRC_XATTR_LEN + 1];
	ssize_t n = fgetxattr(fd, CRC_XATTR, v, sizeof(v) - 1);
	unsigned long x;
	char *end;

	if (n != CRC_XATTR_LEN || v[8] != ' ')
		return -ENODATA;
	v[n] = '\0';
	x = strtoul(v, &end, 16);
	if (end != v + 8)
		return -ENODATA;
	if (strcmp(v + 9, id))
		return -EXDEV;
	*crc = (uint32_t)x;
	return 0;
}

/* Record crc for blob id, the file behind fd. 0 or -errno (no user xattrs here, no
 * permission). */
int cache_set_crc(int fd, uint32_t crc, const char *id)
{
	char v[CRC_XATTR_LEN + 1];

	snprintf(v, sizeof(v), "%08x %.64s", crc, id);
	return fsetxattr(fd, CRC_XATTR, v, CRC_XATTR_LEN, 0) ? -errno : 0;
}

/* What a blob file takes on disk: holes take nothing. */
uint64_t cache_disk_bytes(const struct stat *st)
{
	return RK_MIN((uint64_t)st->st_size, (uint64_t)st->st_blocks * 512);
}

/* Record crc for a committed blob, which is read-only: user xattrs need write permission
 * on the file, so the owner lends it for the call. Best effort, as at commit. Threads
 * doing this at once may fail to record (EACCES), never change the mode for good. */
void cache_record_crc(const struct rk_cache *c, int fd, uint32_t crc, const char *id)
{
	int rc = cache_set_crc(fd, crc, id);

	if (!rc || (rc != -EACCES && rc != -EPERM) || fchmod(fd, c->bmode | S_IWUSR))
		return;
	cache_set_crc(fd, crc, id);
	fchmod(fd, c->bmode);
}
