/* cache_verify.c: rockpack cache verify: every blob's SHA-256 and every record's trailer
 * checked again, the bad ones deleted (rk/cache.h, cache/cache_int.h). */
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

struct verify_ctx {
	struct rk_cache *c;
	struct rk_cache_stats *st;
};

static int verify_blob(void *ctx, const char *path, struct stat *st)
{
	struct verify_ctx *v = ctx;
	char hex[RK_SHA256_HEX];
	uint32_t crc, want;
	struct stat fst;
	int fd = openat(v->c->dirfd, path, O_RDONLY | O_CLOEXEC);
	const char *id = strrchr(path, '/') + 1;

	if (fd < 0)
		return 0;
	v->st->blobs++;
	v->st->blob_bytes += cache_disk_bytes(st);
	if (fstat(fd, &fst) || cache_hash_fd(fd, UINT64_MAX, hex, &crc) || strcmp(hex, id)) {
		unlinkat(v->c->dirfd, path, 0);
		cache_forget_verified(v->c, id);
		v->st->bad++;
		rk_warn("cache: blob '%s' failed its hash (damaged, or another blob moved to its "
			"name); deleted",
			path);
	} else {
		cache_mark_verified(v->c, id, &fst);
		/* the recorded CRC32 missing, from before, or another blob's: recorded again */
		if (cache_recorded_crc(fd, id, &want) || want != crc) {
			cache_record_crc(v->c, fd, crc, id);
			if (!fstat(fd, &fst))
				cache_mark_verified(v->c, id, &fst);
		}
	}
	close(fd);
	return 0;
}

const char *const rk_cache_kinds[RK_CACHE_KINDS] = {"index",  "pieces",	 "kpack",
						    "pyhash", "pkghash", "remote"};

/* Check every record of area kinds[k] against its trailer; discard the bad ones. */
static void verify_records(struct rk_cache *c, size_t k, struct rk_cache_stats *st)
{
	struct dirent *de;
	DIR *d;
	int dfd = openat(c->dirfd, rk_cache_kinds[k], O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dfd < 0 || !(d = fdopendir(dfd))) {
		if (dfd >= 0)
			close(dfd);
		return;
	}
	while ((de = readdir(d))) {
		char rel[PATH_MAX];
		struct stat fst;
		uint64_t len;
		uint32_t crc;
		int fd, rc;

		if (de->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof(rel), "%s/%s", rk_cache_kinds[k], de->d_name);
		fd = openat(c->dirfd, rel, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			continue;
		rc = cache_check_record(c, rel, fd, 1, &len, &crc, &fst);
		close(fd);
		st->records[k]++;
		if (rc == -EBADMSG || rc == -EPROTO || rc == RECORD_MOVED) {
			st->bad_records[k]++;
			st->bad++;
			cache_discard(c, rel, rc);
		}
	}
	closedir(d);
}

int rk_cache_verify(struct rk_cache *c, struct rk_cache_stats *st, struct rk_err *err)
{
	struct verify_ctx v = {c, st};
	int rc;

	(void)err;
	memset(st, 0, sizeof(*st));
	rc = cache_walk_blobs(c, 0, verify_blob, &v);
	st->bad_blobs = st->bad;
	for (size_t k = 0; !rc && k < RK_CACHE_KINDS; k++)
		verify_records(c, k, st);
	return rc;
}
