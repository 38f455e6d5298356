/* composite.c: files made of pieces (see rk/composite.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk/composite.h"

static int grow_pieces(struct rk_composite *c, size_t need)
{
	struct rk_piece *v;
	size_t cap;

	if (c->npieces + need <= c->cap_pieces)
		return 0;
	cap = c->cap_pieces ? c->cap_pieces * 2 : 16;
	while (cap < c->npieces + need)
		cap *= 2;
	v = realloc(c->pieces, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	c->pieces = v;
	c->cap_pieces = cap;
	return 0;
}

/* Make room for len more arena bytes; *at receives where they go. */
static int arena_grow(struct rk_composite *c, size_t len, uint64_t *at)
{
	if (c->arena_len + len > c->arena_cap) {
		size_t cap = c->arena_cap ? c->arena_cap : 4096;
		char *a;

		while (cap < c->arena_len + len)
			cap *= 2;
		a = realloc(c->arena, cap);
		if (!a)
			return -ENOMEM;
		c->arena = a;
		c->arena_cap = cap;
	}
	*at = c->arena_len;
	c->arena_len += len;
	return 0;
}

static int append(struct rk_composite *c, uint8_t kind, uint32_t src, uint64_t at, uint64_t len)
{
	struct rk_piece *last = c->npieces ? &c->pieces[c->npieces - 1] : NULL;

	if (!len)
		return 0;
	if (c->size + len < c->size)
		return -EOVERFLOW;
	/* Merge with the previous piece when it continues it. */
	if (last && last->kind == kind &&
	    (kind == RK_PIECE_ZERO ||
	     (kind == RK_PIECE_SOURCE && last->src == src && last->at + last->len == at) ||
	     (kind == RK_PIECE_BYTES && last->at + last->len == at))) {
		last->len += len;
		c->size += len;
		return 0;
	}
	if (grow_pieces(c, 1))
		return -ENOMEM;
	last = &c->pieces[c->npieces++];
	memset(last, 0, sizeof(*last)); /* padding too: equal composites compare equal */
	last->off = c->size;
	last->len = len;
	last->kind = kind;
	last->src = src;
	last->at = at;
	c->size += len;
	return 0;
}

int rk_composite_source(struct rk_composite *c, uint32_t src, uint64_t off, uint64_t len)
{
	return append(c, RK_PIECE_SOURCE, src, off, len);
}

void *rk_composite_bytes_room(struct rk_composite *c, size_t len)
{
	uint64_t at;

	if (!len || arena_grow(c, len, &at))
		return NULL;
	if (append(c, RK_PIECE_BYTES, 0, at, len)) {
		c->arena_len -= len;
		return NULL;
	}
	memset(c->arena + at, 0, len);
	return c->arena + at;
}

int rk_composite_bytes(struct rk_composite *c, const void *p, size_t len)
{
	void *room;

	if (!len)
		return 0;
	if (!(room = rk_composite_bytes_room(c, len)))
		return -ENOMEM;
	memcpy(room, p, len);
	return 0;
}

int rk_composite_zero(struct rk_composite *c, uint64_t len)
{
	return append(c, RK_PIECE_ZERO, 0, 0, len);
}

int rk_composite_add_source(struct rk_composite *c, const char id[RK_SHA256_HEX], uint64_t size,
			    struct rk_origin *origin, uint32_t *idx)
{
	struct rk_source *s;

	if (c->nsources >= UINT32_MAX)
		return -EOVERFLOW;
	if (c->nsources == c->cap_sources) {
		size_t cap = c->cap_sources ? c->cap_sources * 2 : 16;

		if (!(s = realloc(c->sources, cap * sizeof(*s))))
			return -ENOMEM;
		c->sources = s;
		c->cap_sources = cap;
	}
	s = &c->sources[c->nsources];
	memset(s, 0, sizeof(*s));
	memcpy(s->id, id, strnlen(id, RK_SHA256_HEX - 1));
	s->size = size;
	s->origin = origin;
	if (idx)
		*idx = (uint32_t)c->nsources;
	c->nsources++;
	return 0;
}

int rk_composite_append(struct rk_composite *c, const struct rk_composite *from)
{
	size_t base = c->nsources;
	int rc = 0;

	for (size_t i = 0; !rc && i < from->nsources; i++)
		rc = rk_composite_add_source(c, from->sources[i].id, from->sources[i].size,
					     from->sources[i].origin, NULL);
	for (size_t i = 0; !rc && i < from->npieces; i++) {
		const struct rk_piece *p = &from->pieces[i];

		if (p->kind == RK_PIECE_BYTES)
			rc = rk_composite_bytes(c, from->arena + p->at, (size_t)p->len);
		else if (p->kind == RK_PIECE_ZERO)
			rc = rk_composite_zero(c, p->len);
		else if (p->src >= from->nsources)
			rc = -EINVAL; /* a number without a source */
		else
			rc = rk_composite_source(c, (uint32_t)(base + p->src), p->at, p->len);
	}
	return rc;
}

static size_t find_index(const struct rk_composite *c, uint64_t off)
{
	size_t lo = 0, hi = c->npieces;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->pieces[mid].off <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

int rk_composite_key(const struct rk_composite *c, char hex[RK_SHA256_HEX])
{
	struct rk_sha256 h;
	int rc = rk_sha256_init(&h);

	for (size_t i = 0; !rc && i < c->npieces; i++) {
		const struct rk_piece *p = &c->pieces[i];
		uint64_t head[3] = {p->kind, p->len, p->kind == RK_PIECE_SOURCE ? p->at : 0};

		rk_sha256_update(&h, head, sizeof(head));
		if (p->kind == RK_PIECE_BYTES)
			rk_sha256_update(&h, c->arena + p->at, p->len);
		else if (p->kind == RK_PIECE_SOURCE && p->src < c->nsources)
			rk_sha256_update(&h, c->sources[p->src].id, RK_SHA256_HEX - 1);
		else if (p->kind == RK_PIECE_SOURCE) /* no table: its number is all there is */
			rk_sha256_update(&h, &p->src, sizeof(p->src));
	}
	if (!rc)
		rk_sha256_final(&h, hex);
	return rc;
}

const struct rk_piece *rk_composite_find(const struct rk_composite *c, uint64_t off)
{
	return off < c->size ? &c->pieces[find_index(c, off)] : NULL;
}

/* Make off a piece boundary (off <= size); *idx receives the index of the piece that
 * starts at off (c->npieces when off == size). */
static int split_at(struct rk_composite *c, uint64_t off, size_t *idx)
{
	size_t i;
	struct rk_piece *p, tail;
	uint64_t head;

	if (off == c->size) {
		*idx = c->npieces;
		return 0;
	}
	i = find_index(c, off);
	if (c->pieces[i].off == off) {
		*idx = i;
		return 0;
	}
	if (grow_pieces(c, 1))
		return -ENOMEM;
	p = &c->pieces[i];
	head = off - p->off;
	tail = *p;
	tail.off = off;
	tail.len = p->len - head;
	if (tail.kind != RK_PIECE_ZERO)
		tail.at += head;
	p->len = head;
	memmove(&c->pieces[i + 2], &c->pieces[i + 1], (c->npieces - i - 1) * sizeof(*c->pieces));
	c->pieces[i + 1] = tail;
	c->npieces++;
	*idx = i + 1;
	return 0;
}

int rk_composite_write(struct rk_composite *c, uint64_t off, const void *p, size_t len)
{
	size_t a, b;
	uint64_t at;

	if (!len)
		return 0;
	if (off > c->size || len > c->size - off)
		return -EINVAL;
	if (arena_grow(c, len, &at))
		return -ENOMEM;
	memcpy(c->arena + at, p, len);
	if (split_at(c, off, &a) || split_at(c, off + len, &b))
		return -ENOMEM;
	/* Pieces [a, b) are replaced by one bytes piece. */
	c->pieces[a] = (struct rk_piece){.off = off, .len = len, .kind = RK_PIECE_BYTES, .at = at};
	memmove(&c->pieces[a + 1], &c->pieces[b], (c->npieces - b) * sizeof(*c->pieces));
	c->npieces -= b - a - 1;
	return 0;
}

int rk_composite_cut(struct rk_composite *c, uint64_t off, uint64_t len)
{
	size_t a, b;

	if (!len)
		return 0;
	if (off > c->size || len > c->size - off)
		return -EINVAL;
	if (split_at(c, off, &a) || split_at(c, off + len, &b))
		return -ENOMEM;
	memmove(&c->pieces[a], &c->pieces[b], (c->npieces - b) * sizeof(*c->pieces));
	c->npieces -= b - a;
	for (size_t i = a; i < c->npieces; i++)
		c->pieces[i].off -= len;
	c->size -= len;
	return 0;
}

int rk_composite_copy(const struct rk_composite *c, struct rk_composite **out)
{
	struct rk_composite *d = calloc(1, sizeof(*d));

	if (!d || !(d->pieces = malloc((c->npieces ? c->npieces : 1) * sizeof(*d->pieces))) ||
	    !(d->arena = malloc(c->arena_len ? c->arena_len : 1)) ||
	    !(d->sources = malloc((c->nsources ? c->nsources : 1) * sizeof(*d->sources)))) {
		rk_composite_free(d);
		return -ENOMEM;
	}
	if (c->npieces)
		memcpy(d->pieces, c->pieces, c->npieces * sizeof(*d->pieces));
	if (c->arena_len)
		memcpy(d->arena, c->arena, c->arena_len);
	if (c->nsources)
		memcpy(d->sources, c->sources, c->nsources * sizeof(*d->sources));
	d->npieces = d->cap_pieces = c->npieces;
	d->arena_len = d->arena_cap = c->arena_len;
	d->nsources = d->cap_sources = c->nsources;
	d->size = c->size;
	*out = d;
	return 0;
}

void rk_composite_release(struct rk_composite *c)
{
	free(c->pieces);
	free(c->arena);
	free(c->sources);
	memset(c, 0, sizeof(*c));
}

void rk_composite_free(struct rk_composite *c)
{
	if (c) {
		rk_composite_release(c);
		free(c);
	}
}

ssize_t rk_composite_pread(const struct rk_composite *c, rk_source_read_fn read, void *ctx,
			   void *buf, size_t n, uint64_t off)
{
	char *out = buf;
	size_t done = 0;

	if (off >= c->size)
		return 0;
	if (n > c->size - off)
		n = (size_t)(c->size - off);
	for (size_t i = find_index(c, off); done < n; i++) {
		const struct rk_piece *p = &c->pieces[i];
		uint64_t within = off + done - p->off;
		size_t chunk = n - done;

		if (chunk > p->len - within)
			chunk = (size_t)(p->len - within);
		if (p->kind == RK_PIECE_BYTES) {
			memcpy(out + done, c->arena + p->at + within, chunk);
		} else if (p->kind == RK_PIECE_ZERO) {
			memset(out + done, 0, chunk);
		} else {
			size_t got = 0;

			while (got < chunk) {
				ssize_t r = read(ctx, p->src, out + done + got, chunk - got,
						 p->at + within + got);

				if (r < 0)
					return r;
				if (r == 0)
					return -EIO; /* a source shorter than its piece */
				got += (size_t)r;
			}
		}
		done += chunk;
	}
	return (ssize_t)n;
}

void rk_extents_close(struct rk_extent *ext, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ext[i].own && ext[i].fd >= 0)
			close(ext[i].fd);
}

int rk_extents_check(const struct rk_extent *ext, size_t n, struct rk_err *err)
{
	for (size_t i = 0; i < n; i++) {
		struct stat st;

		if (ext[i].fd < 0)
			continue;
		if (fstat(ext[i].fd, &st))
			return rk_err_set(err, -EIO, "fstat: %s", strerror(errno));
		if ((uint64_t)st.st_size < ext[i].pos + ext[i].len)
			return rk_err_set(err, -EIO,
					  "a cache file of %lld bytes is read at %llu+%zu: it was "
					  "truncated under the mount",
					  (long long)st.st_size, (unsigned long long)ext[i].pos,
					  ext[i].len);
	}
	return 0;
}
