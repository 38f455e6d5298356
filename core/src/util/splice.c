/* splice.c: files made of pieces (see rk/splice.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rk/splice.h"

static int grow_pieces(struct rk_splice *s, size_t need)
{
	struct rk_piece *v;
	size_t cap;

	if (s->n + need <= s->cap)
		return 0;
	cap = s->cap ? s->cap * 2 : 16;
	while (cap < s->n + need)
		cap *= 2;
	v = realloc(s->v, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	s->v = v;
	s->cap = cap;
	return 0;
}

/* Copy p into the arena; *at receives its offset. */
static int arena_add(struct rk_splice *s, const void *p, size_t len, uint64_t *at)
{
	if (s->arena_len + len > s->arena_cap) {
		size_t cap = s->arena_cap ? s->arena_cap : 4096;
		char *a;

		while (cap < s->arena_len + len)
			cap *= 2;
		a = realloc(s->arena, cap);
		if (!a)
			return -ENOMEM;
		s->arena = a;
		s->arena_cap = cap;
	}
	memcpy(s->arena + s->arena_len, p, len);
	*at = s->arena_len;
	s->arena_len += len;
	return 0;
}

static int append(struct rk_splice *s, uint8_t kind, uint32_t src, uint64_t at, uint64_t len)
{
	struct rk_piece *last = s->n ? &s->v[s->n - 1] : NULL;

	if (!len)
		return 0;
	if (s->size + len < s->size)
		return -EOVERFLOW;
	/* Merge with the previous piece when it continues it. */
	if (last && last->kind == kind &&
	    (kind == RK_PIECE_ZERO ||
	     (kind == RK_PIECE_SRC && last->src == src && last->at + last->len == at) ||
	     (kind == RK_PIECE_BYTES && last->at + last->len == at))) {
		last->len += len;
		s->size += len;
		return 0;
	}
	if (grow_pieces(s, 1))
		return -ENOMEM;
	s->v[s->n++] =
		(struct rk_piece){.off = s->size, .len = len, .kind = kind, .src = src, .at = at};
	s->size += len;
	return 0;
}

int rk_splice_src(struct rk_splice *s, uint32_t src, uint64_t off, uint64_t len)
{
	return append(s, RK_PIECE_SRC, src, off, len);
}

int rk_splice_bytes(struct rk_splice *s, const void *p, size_t len)
{
	uint64_t at;

	if (!len)
		return 0;
	if (arena_add(s, p, len, &at))
		return -ENOMEM;
	return append(s, RK_PIECE_BYTES, 0, at, len);
}

int rk_splice_zero(struct rk_splice *s, uint64_t len)
{
	return append(s, RK_PIECE_ZERO, 0, 0, len);
}

static size_t find_index(const struct rk_splice *s, uint64_t off)
{
	size_t lo = 0, hi = s->n;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid].off <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

const struct rk_piece *rk_splice_find(const struct rk_splice *s, uint64_t off)
{
	return off < s->size ? &s->v[find_index(s, off)] : NULL;
}

/* Make off a piece boundary (off <= size); *idx receives the index of the piece that
 * starts at off (s->n when off == size). */
static int split_at(struct rk_splice *s, uint64_t off, size_t *idx)
{
	size_t i;
	struct rk_piece *p, tail;
	uint64_t head;

	if (off == s->size) {
		*idx = s->n;
		return 0;
	}
	i = find_index(s, off);
	if (s->v[i].off == off) {
		*idx = i;
		return 0;
	}
	if (grow_pieces(s, 1))
		return -ENOMEM;
	p = &s->v[i];
	head = off - p->off;
	tail = *p;
	tail.off = off;
	tail.len = p->len - head;
	if (tail.kind != RK_PIECE_ZERO)
		tail.at += head;
	p->len = head;
	memmove(&s->v[i + 2], &s->v[i + 1], (s->n - i - 1) * sizeof(*s->v));
	s->v[i + 1] = tail;
	s->n++;
	*idx = i + 1;
	return 0;
}

int rk_splice_write(struct rk_splice *s, uint64_t off, const void *p, size_t len)
{
	size_t a, b;
	uint64_t at;

	if (!len)
		return 0;
	if (off > s->size || len > s->size - off)
		return -EINVAL;
	if (arena_add(s, p, len, &at) || split_at(s, off, &a) || split_at(s, off + len, &b))
		return -ENOMEM;
	/* Pieces [a, b) are replaced by one bytes piece. */
	s->v[a] = (struct rk_piece){.off = off, .len = len, .kind = RK_PIECE_BYTES, .at = at};
	memmove(&s->v[a + 1], &s->v[b], (s->n - b) * sizeof(*s->v));
	s->n -= b - a - 1;
	return 0;
}

int rk_splice_cut(struct rk_splice *s, uint64_t off, uint64_t len)
{
	size_t a, b;

	if (!len)
		return 0;
	if (off > s->size || len > s->size - off)
		return -EINVAL;
	if (split_at(s, off, &a) || split_at(s, off + len, &b))
		return -ENOMEM;
	memmove(&s->v[a], &s->v[b], (s->n - b) * sizeof(*s->v));
	s->n -= b - a;
	for (size_t i = a; i < s->n; i++)
		s->v[i].off -= len;
	s->size -= len;
	return 0;
}

void rk_splice_release(struct rk_splice *s)
{
	free(s->v);
	free(s->arena);
	memset(s, 0, sizeof(*s));
}

ssize_t rk_splice_pread(const struct rk_splice *s, rk_splice_read_fn read, void *ctx, void *buf,
			size_t n, uint64_t off)
{
	char *out = buf;
	size_t done = 0;

	if (off >= s->size)
		return 0;
	if (n > s->size - off)
		n = (size_t)(s->size - off);
	for (size_t i = find_index(s, off); done < n; i++) {
		const struct rk_piece *p = &s->v[i];
		uint64_t within = off + done - p->off;
		size_t chunk = n - done;

		if (chunk > p->len - within)
			chunk = (size_t)(p->len - within);
		if (p->kind == RK_PIECE_BYTES) {
			memcpy(out + done, s->arena + p->at + within, chunk);
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
