/* cache.c: content-addressed blob store, metadata files, locks and LRU eviction.
 * See rk/cache.h for the contract and docs/internals/cache.md for the layout. */
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

#include "rk/cache.h"
#include "rk/compiler.h"
#include "rk/log.h"
#include "util/htab.h"
#include "util/le.h"

#define CACHE_VERSION "rockfs-cache 1\n"
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

static void added(struct rk_cache *c, uint64_t bytes, const char *keep);
static int put_bytes(struct rk_cache *c, const char *rel, const void *data, size_t len, int framed,
		     struct rk_err *err);

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
static int mkdir_at(struct rk_cache *c, const char *name)
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

static int write_all(int fd, const void *data, size_t len)
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
		if ((rc = mkdir_at(c, subdirs[i])))
			return rk_err_set(err, rc, "cache '%s/%s': %s", c->dir, subdirs[i],
					  strerror(-rc));
	for (int i = 0; i < 256; i++) {
		snprintf(sub, sizeof(sub), "blobs/%02x", i);
		if ((rc = mkdir_at(c, sub)))
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
static int write_failed(struct rk_cache *c, int e)
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
		return put_bytes(c, "VERSION", CACHE_VERSION, strlen(CACHE_VERSION), 0, err);
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

static void blob_path(const char *id, char *out, size_t n)
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
static int is_verified(struct rk_cache *c, const char *id, const struct stat *st)
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
static void mark_verified(struct rk_cache *c, const char *id, const struct stat *st)
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

static void forget_verified(struct rk_cache *c, const char *id)
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
static int hash_fd(int fd, uint64_t len, char hex[RK_SHA256_HEX], uint32_t *crc)
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
static int recorded_crc(int fd, const char *id, uint32_t *crc)
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
static int set_crc(int fd, uint32_t crc, const char *id)
{
	char v[CRC_XATTR_LEN + 1];

	snprintf(v, sizeof(v), "%08x %.64s", crc, id);
	return fsetxattr(fd, CRC_XATTR, v, CRC_XATTR_LEN, 0) ? -errno : 0;
}

/* Move the finished temp file tmp, open as fd, to rel and close fd; remember it as checked
 * under id, when not NULL (its stamp is taken after the rename, which sets its ctime). A
 * failed close takes the file away again: its bytes may not have reached the disk. 0 or
 * -errno. */
static int install(struct rk_cache *c, int fd, const char *tmp, const char *rel, const char *id)
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
			forget_verified(c, id);
		return rc;
	}
	if (have && id)
		mark_verified(c, id, &st);
	return 0;
}

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
		rc = rk_err_set(err, write_failed(c, errno), "cache '%s/%s': %s", c->dir, w->tmp,
				strerror(errno));
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
			rc = write_all(w->fd, p, n);
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
		return rk_err_set(err, write_failed(w->c, -rc), "cache '%s': write: %s", w->c->dir,
				  strerror(-rc));
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

/* What a blob file takes on disk: holes take nothing. */
static uint64_t disk_bytes(const struct stat *st)
{
	return RK_MIN((uint64_t)st->st_size, (uint64_t)st->st_blocks * 512);
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
	} else if ((rc = hash_fd(w->fd, UINT64_MAX, id, &w->crc))) {
		rk_blob_abort(w);
		return rk_err_set(err, rc, "cache '%s': hashing: %s", c->dir, strerror(-rc));
	}
	set_crc(w->fd, w->crc, id); /* best effort: else SHA-256 on open */
	fchmod(w->fd, c->bmode);
	disk = fstat(w->fd, &st) ? w->size : disk_bytes(&st);
	blob_path(id, path, sizeof(path));
	/* Always move the fresh copy in, even over an existing one: it was hashed just now,
	 * while a copy already there may have rotted since it was written. */
	existed = !fstatat(c->dirfd, path, &st, 0);
	rc = install(c, w->fd, w->tmp, path, id);
	w->fd = -1;
	if (rc)
		rc = rk_err_set(err, write_failed(c, -rc), "cache '%s/%s': %s", c->dir, path,
				strerror(-rc));
	else if (!existed)
		added(c, disk, id);
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
	blob_path(id, path, sizeof(path));
	return !fstatat(c->dirfd, path, &st, 0) && (uint64_t)st.st_size == size;
}

/* Record crc for a committed blob, which is read-only: user xattrs need write permission
 * on the file, so the owner lends it for the call. Best effort, as at commit. Threads
 * doing this at once may fail to record (EACCES), never change the mode for good. */
static void record_crc(const struct rk_cache *c, int fd, uint32_t crc, const char *id)
{
	int rc = set_crc(fd, crc, id);

	if (!rc || (rc != -EACCES && rc != -EPERM) || fchmod(fd, c->bmode | S_IWUSR))
		return;
	set_crc(fd, crc, id);
	fchmod(fd, c->bmode);
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
	if (!is_verified(c, id, &st)) {
		uint32_t want, got;
		int rec = recorded_crc(fd, id, &want); /* 0: recorded, bound to id */

		if (rec == -EXDEV)
			return rk_err_set(
				local, -EBADMSG,
				"blob %.12s: its recorded CRC32 is another blob's (moved)", id);
		if ((rc = hash_fd(fd, UINT64_MAX, rec ? hex : NULL, &got)))
			return rk_err_set(err, rc, "blob %.12s: %s", id, strerror(-rc));
		if (!rec ? got != want : strcmp(hex, id) != 0)
			return rk_err_set(local, -EBADMSG, "blob %.12s: content hash mismatch (%s)",
					  id, !rec ? "CRC32" : "SHA-256");
		mark_verified(c, id,
			      &st); /* the stamp from before the hash: a change since shows */
		if (rec) { /* checked by its SHA-256: record the CRC32 for the next process */
			record_crc(c, fd, got, id);
			*changed = 1;
		}
		if (crc)
			*crc = got;
	} else if (crc && recorded_crc(fd, id, crc)) {
		if ((rc = hash_fd(fd, UINT64_MAX, NULL, crc)))
			return rk_err_set(err, rc, "blob %.12s: %s", id, strerror(-rc));
		record_crc(c, fd, *crc, id);
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

	blob_path(id, path, sizeof(path));
	forget_verified(c, id);
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
	blob_path(id, path, sizeof(path));
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
		mark_verified(c, id, &st);
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
		mark_verified(c, id, &st);
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

/* The binding of the trailer head t to key rel, into out. 0 or -ENOMEM. */
static int record_bind(const char *rel, const unsigned char t[RECORD_HEAD],
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
static int put_bytes(struct rk_cache *c, const char *rel, const void *data, size_t len, int framed,
		     struct rk_err *err)
{
	static _Atomic unsigned long seq;
	unsigned char t[RECORD_TRAILER];
	char tmp[64];
	int fd, rc = 0;

	memcpy(t, RECORD_MAGIC, 4);
	rk_put_le32(t + 4, (uint32_t)libdeflate_crc32(0, data, len));
	rk_put_le64(t + 8, len);
	if (framed && (rc = record_bind(rel, t, (char *)t + RECORD_HEAD)))
		return rk_err_set(err, rc, "cache '%s/%s': %s", c->dir, rel, strerror(-rc));
	snprintf(tmp, sizeof(tmp), "tmp/meta.%ld.%lu", (long)getpid(), ++seq);
	fd = openat(c->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return rk_err_set(err, write_failed(c, errno), "cache '%s/%s': %s", c->dir, tmp,
				  strerror(errno));
	rc = write_all(fd, data, len);
	if (!rc && framed)
		rc = write_all(fd, t, sizeof(t));
	if (!rc && fchmod(fd, c->fmode)) /* the umask may have taken group bits */
		rc = -errno;
	if (rc) {
		close(fd);
		unlinkat(c->dirfd, tmp, 0);
	} else {
		/* a record written just now counts as checked; VERSION is no record */
		rc = install(c, fd, tmp, rel, framed ? rel : NULL);
	}
	if (rc)
		return rk_err_set(err, write_failed(c, -rc), "cache '%s/%s': %s", c->dir, rel,
				  strerror(-rc));
	return 0;
}

int rk_cache_put_file(struct rk_cache *c, const char *rel, const void *data, size_t len,
		      struct rk_err *err)
{
	return put_bytes(c, rel, data, len, 1, err);
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
	if ((rc = record_bind(rel, t, bind)))
		return rc;
	*moved = memcmp(bind, t + RECORD_HEAD, sizeof(bind)) != 0;
	return 0;
}

/* A record that failed its check (rc -EBADMSG, RECORD_MOVED) or has no trailer (-EPROTO,
 * written by a rockfs from before records had one): deleted, so that it is made again,
 * with one log line (for old records, one per process). Returns -ENOENT: its callers see
 * it absent. */
static int discard(struct rk_cache *c, const char *rel, int rc)
{
	static atomic_flag told = ATOMIC_FLAG_INIT;

	forget_verified(c, rel);
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

/* A record failed: its check (discarded, -ENOENT) or to be read (rc). */
static int record_failed(struct rk_cache *c, const char *rel, int rc)
{
	return rc == -EBADMSG || rc == -EPROTO || rc == RECORD_MOVED ? discard(c, rel, rc) : rc;
}

/* Check the record rel, open as fd, against its trailer: its payload's length and CRC32
 * into len and crc. The key binding is checked every time; the payload is read when this
 * process has not checked the file as it is now (its stamp), or always, with again. The
 * stat of fd goes to st. 0, -EBADMSG, RECORD_MOVED or -EPROTO (see parse_trailer), -errno
 * when unreadable. */
static int check_record(struct rk_cache *c, const char *rel, int fd, int again, uint64_t *len,
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
	if (!again && !moved && is_verified(c, rel, st))
		return 0;
	if ((rc = hash_fd(fd, *len, NULL, &got)))
		return rc;
	if (got != *crc)
		return -EBADMSG;
	if (moved)
		return RECORD_MOVED;
	mark_verified(c, rel, st);
	return 0;
}

int rk_cache_area(struct rk_cache *c, const char *area)
{
	int rc = strchr(area, '/') || area[0] == '.' ? -EINVAL : mkdir_at(c, area);

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
	if ((rc = check_record(c, rel, fd, 0, &l, &v, &st))) {
		close(fd);
		return record_failed(c, rel, rc);
	}
	clock_gettime(CLOCK_REALTIME, &now);
	if (st.st_mtim.tv_sec + TOUCH_INTERVAL < now.tv_sec && !futimens(fd, NULL) &&
	    !fstat(fd, &st)) /* LRU use stamp, as for blobs: our own change */
		mark_verified(c, rel, &st);
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
		return rk_err_set(err, write_failed(c, errno), "cache '%s/%s': %s", c->dir, rel,
				  strerror(errno));
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

struct blob_ent {
	int64_t stamp; /* mtime in ns: whole seconds would tie blobs written together */
	uint64_t size;
	char path[80];
};

/* Call fn for each blob file (and with pieces, each compressed tarball piece); stops
 * at the first non-zero return. */
static int walk_blobs(struct rk_cache *c, int pieces,
		      int (*fn)(void *ctx, const char *path, struct stat *st), void *ctx)
{
	for (int i = 0; i < 256 + pieces; i++) {
		char sub[16];
		struct dirent *de;
		DIR *d;
		int fd, rc = 0;

		if (i < 256)
			snprintf(sub, sizeof(sub), "blobs/%02x", i);
		else
			snprintf(sub, sizeof(sub), "pieces");
		fd = openat(c->dirfd, sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue;
		d = fdopendir(fd);
		if (!d) {
			close(fd);
			continue;
		}
		while (!rc && (de = readdir(d))) {
			char path[80];
			struct stat st;

			if (de->d_name[0] == '.' || strlen(de->d_name) != 64)
				continue;
			if (fstatat(dirfd(d), de->d_name, &st, 0))
				continue;
			snprintf(path, sizeof(path), "%s/%s", sub, de->d_name);
			rc = fn(ctx, path, &st);
		}
		closedir(d);
		if (rc)
			return rc;
	}
	return 0;
}

static int count_blob(void *ctx, const char *path, struct stat *st)
{
	struct rk_cache_stats *s = ctx;

	(void)path;
	s->blobs++;
	s->blob_bytes += disk_bytes(st);
	return 0;
}

int rk_cache_stats(struct rk_cache *c, struct rk_cache_stats *st, struct rk_err *err)
{
	struct dirent *de;
	DIR *d;
	int fd;

	(void)err;
	memset(st, 0, sizeof(*st));
	walk_blobs(c, 1, count_blob, st);
	fd = openat(c->dirfd, "index", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0 && (d = fdopendir(fd))) {
		while ((de = readdir(d))) {
			struct stat s;

			if (de->d_name[0] == '.' || fstatat(dirfd(d), de->d_name, &s, 0))
				continue;
			st->indexes++;
			st->index_bytes += (uint64_t)s.st_size;
		}
		closedir(d);
	} else if (fd >= 0) {
		close(fd);
	}
	return 0;
}

struct gc_list {
	struct blob_ent *v;
	size_t n, cap;
	uint64_t total;
};

static int collect_blob(void *ctx, const char *path, struct stat *st)
{
	struct gc_list *l = ctx;

	if (l->n == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 1024;
		struct blob_ent *v = realloc(l->v, ncap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = ncap;
	}
	l->v[l->n].stamp = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
	l->v[l->n].size = disk_bytes(st);
	snprintf(l->v[l->n].path, sizeof(l->v[l->n].path), "%s", path);
	l->total += l->v[l->n].size;
	l->n++;
	return 0;
}

static int cmp_stamp(const void *a, const void *b)
{
	const struct blob_ent *x = a, *y = b;

	if (x->stamp != y->stamp)
		return x->stamp < y->stamp ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* Evict least recently used blobs down to target, never the blob keep (may be NULL): the
 * one just written, which its writer is about to use even when it alone is too big. */
static int gc(struct rk_cache *c, uint64_t target, const char *keep, struct rk_cache_stats *st,
	      struct rk_err *err)
{
	struct gc_list l = {0};
	int rc;

	memset(st, 0, sizeof(*st));
	pthread_mutex_lock(&c->gc_lock);
	rc = walk_blobs(c, 1, collect_blob, &l);
	if (rc) {
		pthread_mutex_unlock(&c->gc_lock);
		free(l.v);
		return rk_err_set(err, rc, "cache gc: %s", strerror(-rc));
	}
	qsort(l.v, l.n, sizeof(*l.v), cmp_stamp);
	for (size_t i = 0; i < l.n && l.total > target; i++) {
		if (keep && !strcmp(strrchr(l.v[i].path, '/') + 1, keep))
			continue;
		if (unlinkat(c->dirfd, l.v[i].path, 0))
			continue;
		/* a blob is remembered by its id, a piece (a record) by its path */
		forget_verified(c, strncmp(l.v[i].path, "pieces/", 7)
					   ? strrchr(l.v[i].path, '/') + 1
					   : l.v[i].path);
		l.total -= l.v[i].size;
		st->evicted++;
		st->evicted_bytes += l.v[i].size;
	}
	st->blobs = l.n - st->evicted;
	st->blob_bytes = l.total;
	c->used = l.total;
	pthread_mutex_unlock(&c->gc_lock);
	free(l.v);
	if (st->evicted)
		rk_info("cache: evicted %llu blobs (%llu bytes)", (unsigned long long)st->evicted,
			(unsigned long long)st->evicted_bytes);
	return 0;
}

int rk_cache_gc(struct rk_cache *c, uint64_t target, struct rk_cache_stats *st, struct rk_err *err)
{
	return gc(c, target, NULL, st, err);
}

static void added(struct rk_cache *c, uint64_t bytes, const char *keep)
{
	struct rk_cache_stats st;
	uint64_t used = atomic_fetch_add(&c->used, bytes) + bytes;

	c->written += bytes;
	if (c->limit && used > c->limit)
		gc(c, c->limit - c->limit / 10, keep, &st, NULL);
}

void rk_cache_added(struct rk_cache *c, uint64_t bytes)
{
	added(c, bytes, NULL);
}

void rk_cache_usage(struct rk_cache *c, struct rk_cache_usage *u)
{
	u->limit = c->limit;
	u->used = c->limit ? c->used : 0;
	u->written = c->written;
	u->discarded = c->discarded;
}

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
	v->st->blob_bytes += disk_bytes(st);
	if (fstat(fd, &fst) || hash_fd(fd, UINT64_MAX, hex, &crc) || strcmp(hex, id)) {
		unlinkat(v->c->dirfd, path, 0);
		forget_verified(v->c, id);
		v->st->bad++;
		rk_warn("cache: blob '%s' failed its hash (damaged, or another blob moved to its "
			"name); deleted",
			path);
	} else {
		mark_verified(v->c, id, &fst);
		/* the recorded CRC32 missing, from before, or another blob's: recorded again */
		if (recorded_crc(fd, id, &want) || want != crc) {
			record_crc(v->c, fd, crc, id);
			if (!fstat(fd, &fst))
				mark_verified(v->c, id, &fst);
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
		rc = check_record(c, rel, fd, 1, &len, &crc, &fst);
		close(fd);
		st->records[k]++;
		if (rc == -EBADMSG || rc == -EPROTO || rc == RECORD_MOVED) {
			st->bad_records[k]++;
			st->bad++;
			discard(c, rel, rc);
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
	rc = walk_blobs(c, 0, verify_blob, &v);
	st->bad_blobs = st->bad;
	for (size_t k = 0; !rc && k < RK_CACHE_KINDS; k++)
		verify_records(c, k, st);
	return rc;
}
