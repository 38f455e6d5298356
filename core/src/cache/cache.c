/* cache.c: the cache directory: its layout, modes and VERSION, opening and closing it,
 * making it again when deleted, and the atomic write of a file into it. The rest of the
 * cache is in the files cache/cache_int.h lists. See rk/cache.h for the contract and
 * docs/internals/cache.md for the layout. */
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

#define CACHE_VERSION "rockfs-cache 1\n"

/* Modes: a private cache (the default) is its owner's alone, whatever the umask; a shared
 * one (cache_group) lets its group read every file and add to every directory. */
static void cache_modes(struct rk_cache *c, gid_t gid)
{
	c->gid = gid;
	c->dmode = gid == (gid_t)-1 ? 0700 : 02770;
	c->bmode = gid == (gid_t)-1 ? 0400 : 0440;
	c->fmode = gid == (gid_t)-1 ? 0600 : 0640;
}

/* Make directory name below the cache root with the cache's mode. */
int cache_mkdir_at(struct rk_cache *c, const char *name)
{
	if (mkdirat(c->dirfd, name, 0700)) {
		if (errno != EEXIST)
			return -errno;
		return 0;
	}
	if ((c->gid != (gid_t)-1 && fchownat(c->dirfd, name, (uid_t)-1, c->gid, 0)) ||
	    fchmodat(c->dirfd, name, c->dmode, 0))
		return -errno;
	return 0;
}

/* mkdir -p path; the directories it makes are owner-only (the cache root's mode is set
 * by the caller). */
static int mkdir_p(const char *path)
{
	char tmp[PATH_MAX];
	size_t len = strlen(path);

	if (len >= sizeof(tmp))
		return -ENAMETOOLONG;
	memcpy(tmp, path, len + 1);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0700) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

/* The mode an existing cache file gets (blobs are read-only, the rest is rewritten). */
static mode_t file_mode(const struct rk_cache *c, mode_t old)
{
	return old & 0200 ? c->fmode : c->bmode;
}

static struct rk_cache *migrating;
static unsigned long migrated, migrate_failed;

static int migrate_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	const struct rk_cache *c = migrating;
	mode_t want;

	(void)ftw;
	if (flag != FTW_F && flag != FTW_D && flag != FTW_DP)
		return 0;
	want = S_ISDIR(st->st_mode) ? c->dmode : file_mode(c, st->st_mode);
	if (c->gid != (gid_t)-1 && st->st_gid != c->gid && st->st_uid == geteuid() &&
	    chown(path, (uid_t)-1, c->gid))
		migrate_failed++;
	if ((st->st_mode & 07777) != want) {
		if (st->st_uid != geteuid() || chmod(path, want))
			migrate_failed++;
		else
			migrated++;
	}
	return 0;
}

/* An existing cache directory: refused when it is not the caller's (or, shared, its
 * group's) or when others can write to it; modes tightened (or opened to the group)
 * when they differ from what the cache makes, with one log line. */
static int cache_check(struct rk_cache *c, struct rk_err *err)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	struct stat st;
	int shared = c->gid != (gid_t)-1;
	mode_t bad = shared ? 0002 : 0022;

	if (fstat(c->dirfd, &st))
		return rk_err_set(err, -errno, "cache '%s': %s", c->dir, strerror(errno));
	if (st.st_uid != geteuid() && !(shared && st.st_gid == c->gid))
		return rk_err_set(err, -EPERM,
				  "cache '%s' belongs to uid %u, not to you (uid %u): use a cache "
				  "of your own, or cache_group=GROUP for one shared on purpose",
				  c->dir, (unsigned)st.st_uid, (unsigned)geteuid());
	if (st.st_mode & bad)
		return rk_err_set(err, -EPERM,
				  "cache '%s' is writable by %s (mode %04o): chmod %s it, or use "
				  "cache_group=GROUP for a cache shared on purpose",
				  c->dir, shared ? "others" : "group or others",
				  (unsigned)(st.st_mode & 07777), shared ? "o-w" : "go-w");
	if ((st.st_mode & 07777) == c->dmode && (!shared || st.st_gid == c->gid))
		return 0;
	pthread_mutex_lock(&lock); /* nftw has no context argument */
	migrating = c;
	migrated = migrate_failed = 0;
	nftw(c->dir, migrate_one, 16, FTW_PHYS | FTW_MOUNT);
	rk_info("cache '%s': %s (%lu modes changed%s)", c->dir,
		shared ? "opened to its group" : "made private to its owner", migrated,
		migrate_failed ? ", some files are not yours and kept their modes" : "");
	pthread_mutex_unlock(&lock);
	return 0;
}

int rk_cache_default_dir(char *out, size_t n)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int len;

	if (xdg && xdg[0] == '/')
		len = snprintf(out, n, "%s/rockfs", xdg);
	else if (home && home[0] == '/')
		len = snprintf(out, n, "%s/.cache/rockfs", home);
	else
		len = snprintf(out, n, "/var/tmp/rockfs-%u", (unsigned)getuid());
	return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}

int cache_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The directories every cache has (rk_cache_open makes them, cache_remake again). */
static int make_layout(struct rk_cache *c, struct rk_err *err)
{
	static const char *const subdirs[] = {"blobs", "index", "kpack", "locks", "pieces", "tmp"};
	char sub[16];
	int rc;

	for (size_t i = 0; i < sizeof(subdirs) / sizeof(subdirs[0]); i++)
		if ((rc = cache_mkdir_at(c, subdirs[i])))
			return rk_err_set(err, rc, "cache '%s/%s': %s", c->dir, subdirs[i],
					  strerror(-rc));
	for (int i = 0; i < 256; i++) {
		snprintf(sub, sizeof(sub), "blobs/%02x", i);
		if ((rc = cache_mkdir_at(c, sub)))
			return rk_err_set(err, rc, "cache '%s/%s': %s", c->dir, sub, strerror(-rc));
	}
	return 0;
}

static int check_version(struct rk_cache *c, struct rk_err *err);

/* A write found a part of the cache gone (ENOENT): the cache's directory deleted under it
 * (rm -rf while mounted), or one of its directories. Make them again, as rk_cache_open
 * does; a new cache directory is dup2'd onto the cache's descriptor (a thread using it
 * meanwhile sees the old or the new directory, never another file). Best effort, one
 * thread at a time; the writes it makes itself do not come back here. */
static void cache_remake(struct rk_cache *c)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static _Thread_local int remaking;
	struct stat st;
	int fd;

	if (remaking)
		return;
	pthread_mutex_lock(&lock);
	remaking = 1;
	if (!fstat(c->dirfd, &st) && st.st_nlink == 0 && !mkdir_p(c->dir) &&
	    (fd = open(c->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		if (!fchmod(fd, c->dmode) && dup2(fd, c->dirfd) >= 0)
			rk_warn("cache '%s': its directory was deleted; made again", c->dir);
		close(fd);
	}
	if (!make_layout(c, NULL))
		check_version(c, NULL); /* writes VERSION when it is missing */
	remaking = 0;
	pthread_mutex_unlock(&lock);
}

/* The one place that says what a failed write into the cache means (e: the errno of a
 * create, write, rename or mkdir below the cache directory). A cache that cannot be
 * written now (full: ENOSPC, EDQUOT; read-only: EROFS; its permissions: EACCES, EPERM;
 * its directory or a part of it gone: ENOENT) is a transient failure (rk_err_transient:
 * ENOSPC, EDQUOT, EROFS), never a reason for a different result: the caller serves from
 * memory or fails, and tries again on the next access. A deleted cache directory is made
 * again for that next access. Returns the error code to report. */
int cache_write_failed(struct rk_cache *c, int e)
{
	switch (e) {
	case ENOENT:
		cache_remake(c);
		/* fall through */
	case EACCES:
	case EPERM:
		return -EROFS;
	default:
		return -e;
	}
}

static int check_version(struct rk_cache *c, struct rk_err *err)
{
	char buf[64] = "";
	int fd = openat(c->dirfd, "VERSION", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0) {
		if (errno != ENOENT)
			return rk_err_set(err, -errno, "'%s/VERSION': %s", c->dir, strerror(errno));
		return cache_put_bytes(c, "VERSION", CACHE_VERSION, strlen(CACHE_VERSION), 0, err);
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0 || strncmp(buf, CACHE_VERSION, strlen(CACHE_VERSION)))
		return rk_err_set(err, -EPROTO, "'%s': not a rockfs cache of this version", c->dir);
	return 0;
}

/* Remove temp files left by processes that died mid-write ("<kind>.<pid>.<n>"). */
static void sweep_tmp(struct rk_cache *c)
{
	struct dirent *de;
	DIR *d;
	int fd = openat(c->dirfd, "tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d))) {
		const char *dot = strchr(de->d_name, '.');
		long pid = dot ? strtol(dot + 1, NULL, 10) : 0;

		if (pid > 0 && kill((pid_t)pid, 0) && errno == ESRCH)
			unlinkat(dirfd(d), de->d_name, 0);
	}
	closedir(d);
}

/* RK_CACHE_LIMIT_AUTO (rk/cache.h), once c->used is known: a cache never fills its disk
 * by default (a decompression bomb, or many runs, would otherwise take all of it). */
static uint64_t auto_limit(const struct rk_cache *c)
{
	struct statvfs sv;
	uint64_t free_bytes = 0, limit;

	if (!fstatvfs(c->dirfd, &sv))
		free_bytes = (uint64_t)sv.f_bavail * (uint64_t)sv.f_frsize;
	else
		rk_warn("cache '%s': free space unknown (%s); cache_size defaults to %llu MiB "
			"above what it holds",
			c->dir, strerror(errno), RK_CACHE_LIMIT_MIN >> 20);
	limit = RK_MAX(c->used + free_bytes / 2, c->used + RK_CACHE_LIMIT_MIN);
	rk_debug("cache '%s': cache_size not given: %llu MiB (the %llu MiB it holds and half "
		"the %llu MiB free on its file system)",
		c->dir, (unsigned long long)(limit >> 20), (unsigned long long)(c->used >> 20),
		(unsigned long long)(free_bytes >> 20));
	return limit;
}

int rk_cache_open(const char *dir, uint64_t limit, struct rk_cache **out, struct rk_err *err)
{
	return rk_cache_open_shared(dir, limit, NULL, out, err);
}

int rk_cache_open_shared(const char *dir, uint64_t limit, const char *group, struct rk_cache **out,
			 struct rk_err *err)
{
	gid_t gid = (gid_t)-1;
	struct rk_cache *c;
	struct rk_cache_stats st;
	int rc;

	if (group && group[0]) {
		struct group gr, *g = NULL;
		char buf[4096];
		char *end;
		unsigned long n = strtoul(group, &end, 10);

		if (!getgrnam_r(group, &gr, buf, sizeof(buf), &g) && g)
			gid = g->gr_gid;
		else if (*end == '\0' && end != group && n < (gid_t)-1)
			gid = (gid_t)n;
		else
			return rk_err_set(err, -EINVAL, "cache_group '%s': no such group", group);
	}
	if ((rc = mkdir_p(dir)))
		return rk_err_set(err, rc, "cache '%s': %s", dir, strerror(-rc));
	c = calloc(1, sizeof(*c));
	if (!c || !(c->dir = strdup(dir))) {
		free(c);
		return -ENOMEM;
	}
	c->limit = limit;
	pthread_mutex_init(&c->lock, NULL);
	pthread_mutex_init(&c->gc_lock, NULL);
	cache_modes(c, gid);
	c->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->dirfd < 0) {
		rc = rk_err_set(err, -errno, "cache '%s': %s", dir, strerror(errno));
		goto fail;
	}
	if ((rc = cache_check(c, err)))
		goto fail;
	if ((rc = make_layout(c, err)))
		goto fail;
	if ((rc = check_version(c, err)))
		goto fail;
	sweep_tmp(c);
	if (limit) {
		if ((rc = rk_cache_stats(c, &st, err)))
			goto fail;
		c->used = st.blob_bytes;
	}
	if (limit == RK_CACHE_LIMIT_AUTO)
		c->limit = auto_limit(c);
	*out = c;
	return 0;
fail:
	rk_cache_close(c);
	return rc;
}

void rk_cache_close(struct rk_cache *c)
{
	struct verified *v, *tmp;

	if (!c)
		return;
	HASH_ITER(hh, c->verified, v, tmp) {
		HASH_DEL(c->verified, v);
		free(v);
	}
	if (c->dirfd >= 0)
		close(c->dirfd);
	pthread_mutex_destroy(&c->lock);
	pthread_mutex_destroy(&c->gc_lock);
	free(c->dir);
	free(c);
}

const char *rk_cache_dir(const struct rk_cache *c)
{
	return c->dir;
}

/* Move the finished temp file tmp, open as fd, to rel and close fd; remember it as checked
 * under id, when not NULL (its stamp is taken after the rename, which sets its ctime). A
 * failed close takes the file away again: its bytes may not have reached the disk. 0 or
 * -errno. */
int cache_install(struct rk_cache *c, int fd, const char *tmp, const char *rel, const char *id)
{
	struct stat st;
	int rc = renameat(c->dirfd, tmp, c->dirfd, rel) ? -errno : 0;
	int have = !rc && !fstat(fd, &st);

	if (close(fd) && !rc) {
		rc = -errno;
		unlinkat(c->dirfd, rel, 0);
	}
	if (rc) {
		unlinkat(c->dirfd, tmp, 0);
		if (id)
			cache_forget_verified(c, id);
		return rc;
	}
	if (have && id)
		cache_mark_verified(c, id, &st);
	return 0;
}

/* The binding of the trailer head t to key rel, into out. 0 or -ENOMEM. */
int cache_record_bind(const char *rel, const unsigned char t[RECORD_HEAD],
		      char out[RECORD_TRAILER - RECORD_HEAD])
{
	struct rk_sha256 h;
	char hex[RK_SHA256_HEX];
	int rc = rk_sha256_init(&h);

	if (rc)
		return rc;
	rk_sha256_update(&h, rel, strlen(rel) + 1);
	rk_sha256_update(&h, t, RECORD_HEAD);
	rk_sha256_final(&h, hex);
	memcpy(out, hex, RECORD_TRAILER - RECORD_HEAD);
	return 0;
}

/* Write rel atomically: data, then (framed) the record trailer. */
int cache_put_bytes(struct rk_cache *c, const char *rel, const void *data, size_t len, int framed,
		    struct rk_err *err)
{
	static _Atomic unsigned long seq;
	unsigned char t[RECORD_TRAILER];
	char tmp[64];
	int fd, rc = 0;

	memcpy(t, RECORD_MAGIC, 4);
	rk_put_le32(t + 4, (uint32_t)libdeflate_crc32(0, data, len));
	rk_put_le64(t + 8, len);
	if (framed && (rc = cache_record_bind(rel, t, (char *)t + RECORD_HEAD)))
		return rk_err_set(err, rc, "cache '%s/%s': %s", c->dir, rel, strerror(-rc));
	snprintf(tmp, sizeof(tmp), "tmp/meta.%ld.%lu", (long)getpid(), ++seq);
	fd = openat(c->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return rk_err_set(err, cache_write_failed(c, errno), "cache '%s/%s': %s", c->dir,
				  tmp, strerror(errno));
	rc = cache_write_all(fd, data, len);
	if (!rc && framed)
		rc = cache_write_all(fd, t, sizeof(t));
	if (!rc && fchmod(fd, c->fmode)) /* the umask may have taken group bits */
		rc = -errno;
	if (rc) {
		close(fd);
		unlinkat(c->dirfd, tmp, 0);
	} else {
		/* a record written just now counts as checked; VERSION is no record */
		rc = cache_install(c, fd, tmp, rel, framed ? rel : NULL);
	}
	if (rc)
		return rk_err_set(err, cache_write_failed(c, -rc), "cache '%s/%s': %s", c->dir, rel,
				  strerror(-rc));
	return 0;
}

/* A record that failed its check (rc -EBADMSG, RECORD_MOVED) or has no trailer (-EPROTO,
 * written by a rockfs from before records had one): deleted, so that it is made again,
 * with one log line (for old records, one per process). Returns -ENOENT: its callers see
 * it absent. */
int cache_discard(struct rk_cache *c, const char *rel, int rc)
{
	static atomic_flag told = ATOMIC_FLAG_INIT;

	cache_forget_verified(c, rel);
	unlinkat(c->dirfd, rel, 0);
	if (rc == -EBADMSG || rc == RECORD_MOVED) {
		c->discarded++;
		rk_warn("cache: record '%s' failed its check (%s); discarded, it is made again",
			rel,
			rc == RECORD_MOVED ? "it is another key's record: moved or copied"
					   : "damaged");
	} else if (!atomic_flag_test_and_set(&told))
		rk_info("cache '%s': records written by an older rockfs (first: '%s') have no "
			"key binding; they are made again",
			c->dir, rel);
	return -ENOENT;
}
