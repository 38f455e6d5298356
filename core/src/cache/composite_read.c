/* composite_read.c: composite files over cache blobs (composite_read.h). */
#include <errno.h>
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
