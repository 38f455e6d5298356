/* composite_read.c: composite files over cache blobs (composite_read.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "rk/log.h"
#include "cache/composite_read.h"

int rk_blob_cursor_open(struct rk_blob_cursor *cur, struct rk_cache *c, const struct rk_source *s,
			struct rk_err *err)
{
	int rc;

	if (cur->fd >= 0 && !strcmp(cur->id, s->id))
		return 0;
	rk_blob_cursor_close(cur);
	rc = rk_blob_open(c, s->id, s->size, &cur->fd, err);
	cur->blob = !rc;
	if ((rc == -ENOENT || rc == -EBADMSG) && s->origin)
		rc = s->origin->reopen(s->origin, s->id, s->size, &cur->fd, err);
	if (!rc)
		memcpy(cur->id, s->id, RK_SHA256_HEX);
	return rc;
}

int rk_blob_cursor_pread(struct rk_blob_cursor *cur, struct rk_cache *c, const struct rk_source *s,
			 void *buf, size_t n, uint64_t off, struct rk_err *err)
{
	char *out = buf;
	int rc = rk_blob_cursor_open(cur, c, s, err);

	for (size_t got = 0; !rc && got < n;) {
		ssize_t r = pread(cur->fd, out + got, n - got, (off_t)(off + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		got += (size_t)r;
	}
	return rc;
}

void rk_blob_cursor_close(struct rk_blob_cursor *cur)
{
	if (cur->fd >= 0)
		close(cur->fd);
	cur->fd = -1;
}

void rk_blob_set_init(struct rk_blob_set *set)
{
	memset(set, 0, sizeof(*set));
	pthread_mutex_init(&set->lock, NULL);
	for (int i = 0; i < RK_BLOB_SET_SLOTS; i++)
		set->slot[i].fd = -1;
}

void rk_blob_set_release(struct rk_blob_set *set)
{
	/* the last reader is done, but it may have run on another thread: the lock orders
	 * its use of the descriptors before their close (and tells TSan so) */
	pthread_mutex_lock(&set->lock);
	for (int i = 0; i < RK_BLOB_SET_SLOTS; i++)
		if (set->slot[i].fd >= 0)
			close(set->slot[i].fd);
	pthread_mutex_unlock(&set->lock);
	pthread_mutex_destroy(&set->lock);
}

/* A descriptor of comp's source src of the caller's own (close it): a duplicate of the
 * set's, which opens the blob into its least recently used slot when it has none. The
 * open (and a refill) happens under the lock, so concurrent readers of one blob wait for
 * the one open rather than each making their own. 0 or -errno with err set. */
static int set_dup(struct rk_blob_set *set, struct rk_cache *c, const struct rk_composite *comp,
		   uint32_t src, int *out, struct rk_err *err)
{
	struct rk_blob_cursor cur = RK_BLOB_CURSOR_INIT;
	int i, lru = 0, rc = 0;

	if (src >= comp->nsources)
		return rk_err_set(err, -EINVAL, "source %u is not in the table", src);
	pthread_mutex_lock(&set->lock);
	for (i = 0; i < RK_BLOB_SET_SLOTS; i++) {
		if (set->slot[i].fd >= 0 && set->slot[i].src == src)
			break;
		if (set->slot[i].fd < 0 ||
		    (set->slot[lru].fd >= 0 && set->slot[i].used < set->slot[lru].used))
			lru = i;
	}
	if (i < RK_BLOB_SET_SLOTS && set->slot[i].blob &&
	    rk_blob_recheck(c, comp->sources[src].id, comp->sources[src].size, set->slot[i].fd,
			    NULL)) {
		/* its blob changed under the mount and failed its check (discarded): opened,
		 * and so made again, below */
		close(set->slot[i].fd);
		set->slot[i].fd = -1;
		lru = i;
		i = RK_BLOB_SET_SLOTS;
	}
	if (i == RK_BLOB_SET_SLOTS) {
		if ((rc = rk_blob_cursor_open(&cur, c, &comp->sources[src], err)))
			goto out;
		i = lru;
		if (set->slot[i].fd >= 0)
			close(set->slot[i].fd);
		set->slot[i].fd = cur.fd;
		set->slot[i].blob = cur.blob;
		set->slot[i].src = src;
	}
	set->slot[i].used = ++set->tick;
	if ((*out = fcntl(set->slot[i].fd, F_DUPFD_CLOEXEC, 0)) < 0)
		rc = rk_err_set(err, -errno, "blob %.12s: %s", comp->sources[src].id,
				strerror(errno));
out:
	pthread_mutex_unlock(&set->lock);
	return rc;
}

int rk_blob_set_pread(struct rk_blob_set *set, struct rk_cache *c, const struct rk_composite *comp,
		      uint32_t src, void *buf, size_t n, uint64_t off, struct rk_err *err)
{
	char *out = buf;
	int fd = -1, rc = set_dup(set, c, comp, src, &fd, err);

	for (size_t got = 0; !rc && got < n;) {
		ssize_t r = pread(fd, out + got, n - got, (off_t)(off + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			rc = r < 0 ? rk_err_set(err, -errno, "blob %.12s: %s",
						comp->sources[src].id, strerror(errno))
				   : rk_err_set(err, -EIO, "blob %.12s: shorter than its piece",
						comp->sources[src].id);
		else
			got += (size_t)r;
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

/* Zeros for zero pieces: tar padding, mostly (< 512 bytes); longer runs take several. */
static const char zero_page[65536];

ssize_t rk_composite_extents(struct rk_blob_set *set, struct rk_cache *c,
			     const struct rk_composite *comp, uint64_t off, size_t n,
			     struct rk_extent *ext, size_t max, struct rk_err *err)
{
	size_t k = 0, done = 0;
	int rc;

	if (off >= comp->size)
		return 0;
	if (n > comp->size - off)
		n = (size_t)(comp->size - off);
	/* count first: a read of many small pieces is copied, and opens nothing */
	for (const struct rk_piece *p = rk_composite_find(comp, off); done < n; p++) {
		uint64_t within = off + done - p->off;
		size_t chunk = (size_t)RK_MIN((uint64_t)(n - done), p->len - within);

		k += p->kind == RK_PIECE_ZERO ? (chunk + sizeof(zero_page) - 1) / sizeof(zero_page)
					      : 1;
		if (k > max)
			return -E2BIG;
		done += chunk;
	}
	k = 0;
	done = 0;
	for (const struct rk_piece *p = rk_composite_find(comp, off); done < n; p++) {
		uint64_t within = off + done - p->off;
		size_t chunk = (size_t)RK_MIN((uint64_t)(n - done), p->len - within);

		done += chunk;
		if (p->kind == RK_PIECE_ZERO) {
			for (; chunk; k++) {
				size_t z = RK_MIN(chunk, sizeof(zero_page));

				ext[k] = (struct rk_extent){-1, 0, 0, zero_page, z};
				chunk -= z;
			}
			continue;
		}
		ext[k] = (struct rk_extent){-1, 0, 0, NULL, chunk};
		if (p->kind == RK_PIECE_BYTES) {
			ext[k++].mem = comp->arena + p->at + within;
			continue;
		}
		/* a blob shorter than its piece is found when the blob is opened (size check) */
		if ((rc = set_dup(set, c, comp, p->src, &ext[k].fd, err))) {
			rk_extents_close(ext, k);
			return rc;
		}
		ext[k].own = 1;
		ext[k++].pos = p->at + within;
	}
	return (ssize_t)k;
}

struct private_read {
	struct rk_cache *cache;
	const struct rk_composite *comp;
	struct rk_blob_cursor cur;
	struct rk_err *err;
};

static ssize_t read_blob(void *ctx, uint32_t src, void *buf, size_t n, uint64_t off)
{
	struct private_read *r = ctx;
	int rc = src < r->comp->nsources
			 ? rk_blob_cursor_pread(&r->cur, r->cache, &r->comp->sources[src], buf, n,
						off, r->err)
			 : rk_err_set(r->err, -EINVAL, "source %u is not in the table", src);

	return rc ? rc : (ssize_t)n;
}

ssize_t rk_composite_pread_blobs(struct rk_cache *c, const struct rk_composite *comp, void *buf,
				 size_t n, uint64_t off, struct rk_err *err)
{
	struct rk_err local = RK_ERR_INIT; /* the log line needs the cause */
	struct private_read r = {c, comp, RK_BLOB_CURSOR_INIT, err ? err : &local};
	ssize_t got = rk_composite_pread(comp, read_blob, &r, buf, n, off);

	rk_blob_cursor_close(&r.cur);
	if (got < 0) {
		rk_err_log("composite read at %llu: %s", (unsigned long long)off,
			   rk_err_str(r.err, (int)got));
		return -EIO;
	}
	return got;
}
