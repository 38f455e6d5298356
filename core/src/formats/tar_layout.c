/* tar_layout.c: GNU-format tar headers and the segment list of a synthesized archive. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "formats/tar_layout.h"

#define BLOCK 512
#define NAME_FIELD 100

struct builder {
	struct rk_tar_layout *l;
	size_t cap_segs, cap_arena;
};

static int add_seg(struct builder *b, int kind, uint64_t len, size_t bytes, const char *blob,
		   void *origin)
{
	struct rk_tar_layout *l = b->l;
	struct rk_tar_seg *s;

	if (!len)
		return 0;
	/* merge runs of header bytes and of zeros */
	if (l->nsegs && l->segs[l->nsegs - 1].kind == kind && kind != RK_SEG_BLOB &&
	    (kind == RK_SEG_ZERO ||
	     l->segs[l->nsegs - 1].u.bytes + l->segs[l->nsegs - 1].len == bytes)) {
		l->segs[l->nsegs - 1].len += len;
		l->size += len;
		return 0;
	}
	if (l->nsegs == b->cap_segs) {
		size_t ncap = b->cap_segs ? b->cap_segs * 2 : 256;
		struct rk_tar_seg *v = realloc(l->segs, ncap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->segs = v;
		b->cap_segs = ncap;
	}
	s = &l->segs[l->nsegs++];
	memset(s, 0, sizeof(*s));
	s->off = l->size;
	s->len = len;
	s->kind = (uint8_t)kind;
	if (kind == RK_SEG_BYTES)
		s->u.bytes = bytes;
	else if (kind == RK_SEG_BLOB) {
		memcpy(s->u.blob, blob, RK_SHA256_HEX);
		s->boff = 0;
		s->bsize = len;
	}
	s->origin = origin;
	l->size += len;
	return 0;
}

/* A zeroed block at the end of the arena. */
static char *new_block(struct builder *b, size_t *at)
{
	struct rk_tar_layout *l = b->l;

	if (l->arena_len + BLOCK > b->cap_arena) {
		size_t ncap = b->cap_arena ? b->cap_arena * 2 : 64 * BLOCK;
		char *a = realloc(l->arena, ncap);

		if (!a)
			return NULL;
		l->arena = a;
		b->cap_arena = ncap;
	}
	*at = l->arena_len;
	memset(l->arena + l->arena_len, 0, BLOCK);
	l->arena_len += BLOCK;
	return l->arena + *at;
}

static void octal(char *field, size_t width, uint64_t v)
{
	/* width-1 zero-padded digits and a NUL, as GNU tar writes them */
	snprintf(field, width, "%0*llo", (int)width - 1, (unsigned long long)v);
}

static void checksum(char *h)
{
	unsigned sum = 0;

	memset(h + 148, ' ', 8);
	for (int i = 0; i < BLOCK; i++)
		sum += (unsigned char)h[i];
	snprintf(h + 148, 8, "%06o", sum);
	h[155] = ' ';
}

/* Fill the fields every header shares. */
static void fill(char *h, const char *name, uint32_t mode, uint64_t size, int64_t mtime, char type)
{
	size_t n = strlen(name);

	memcpy(h, name, n < NAME_FIELD ? n : NAME_FIELD);
	octal(h + 100, 8, mode & 07777);
	octal(h + 108, 8, 0);
	octal(h + 116, 8, 0);
	octal(h + 124, 12, size);
	octal(h + 136, 12, (uint64_t)mtime);
	h[156] = type;
	memcpy(h + 257, "ustar  ", 8); /* GNU magic "ustar " and version " \0" */
}

/* A ././@LongLink record of type 'L' (name) or 'K' (link target) for s. */
static int long_record(struct builder *b, char type, const char *s)
{
	size_t at, len = strlen(s) + 1;
	char *h = new_block(b, &at);
	int rc;

	if (!h)
		return -ENOMEM;
	fill(h, "././@LongLink", 0644, len, 0, type);
	checksum(h);
	if ((rc = add_seg(b, RK_SEG_BYTES, BLOCK, at, NULL, NULL)))
		return rc;
	for (size_t done = 0; done < len; done += BLOCK) {
		size_t chunk = len - done < BLOCK ? len - done : BLOCK;

		if (!(h = new_block(b, &at)))
			return -ENOMEM;
		memcpy(h, s + done, chunk); /* the last chunk ends with s's NUL */
		if ((rc = add_seg(b, RK_SEG_BYTES, BLOCK, at, NULL, NULL)))
			return rc;
	}
	return 0;
}

static int add_member(struct builder *b, const struct rk_tar_member *m, int64_t mtime)
{
	char type = S_ISDIR(m->mode) ? '5' : m->hardlink ? '1' : S_ISLNK(m->mode) ? '2' : '0';
	uint64_t size = type == '0' ? m->size : 0;
	size_t at;
	char *h;
	int rc;

	if (size >= (1ull << 33)) /* 11 octal digits; GNU tar would switch to base-256 */
		return -EFBIG;
	if (m->link && strlen(m->link) > NAME_FIELD && (rc = long_record(b, 'K', m->link)))
		return rc;
	if (strlen(m->path) > NAME_FIELD && (rc = long_record(b, 'L', m->path)))
		return rc;
	if (!(h = new_block(b, &at)))
		return -ENOMEM;
	fill(h, m->path, m->mode, size, mtime, type);
	if (m->link)
		memcpy(h + 157, m->link,
		       strlen(m->link) < NAME_FIELD ? strlen(m->link) : NAME_FIELD);
	checksum(h);
	if ((rc = add_seg(b, RK_SEG_BYTES, BLOCK, at, NULL, NULL)))
		return rc;
	if (!size)
		return 0;
	if (!m->blob)
		return -EINVAL;
	if ((rc = add_seg(b, RK_SEG_BLOB, size, 0, m->blob, m->origin)))
		return rc;
	return add_seg(b, RK_SEG_ZERO, (BLOCK - size % BLOCK) % BLOCK, 0, NULL, NULL);
}

int rk_tar_layout_build(const struct rk_tar_member *members, size_t n, int64_t mtime,
			struct rk_tar_layout *out)
{
	struct rk_tar_layout l = {0};
	struct builder b = {&l, 0, 0};
	int rc = 0;

	for (size_t i = 0; !rc && i < n; i++)
		rc = add_member(&b, &members[i], mtime);
	if (!rc)
		rc = add_seg(&b, RK_SEG_ZERO, 2 * BLOCK, 0, NULL, NULL);
	if (!rc)
		rc = add_seg(&b, RK_SEG_ZERO,
			     (RK_TAR_RECORD - l.size % RK_TAR_RECORD) % RK_TAR_RECORD, 0, NULL,
			     NULL);
	if (rc) {
		rk_tar_layout_release(&l);
		return rc;
	}
	*out = l;
	return 0;
}

void rk_tar_layout_release(struct rk_tar_layout *l)
{
	free(l->segs);
	free(l->arena);
	memset(l, 0, sizeof(*l));
}

int rk_tar_layout_copy(const struct rk_tar_layout *l, struct rk_tar_layout **out)
{
	struct rk_tar_layout *c = calloc(1, sizeof(*c));

	if (!c || !(c->segs = malloc((l->nsegs ? l->nsegs : 1) * sizeof(*c->segs))) ||
	    !(c->arena = malloc(l->arena_len ? l->arena_len : 1))) {
		if (c)
			free(c->segs);
		free(c);
		return -ENOMEM;
	}
	memcpy(c->segs, l->segs, l->nsegs * sizeof(*c->segs));
	if (l->arena_len)
		memcpy(c->arena, l->arena, l->arena_len);
	c->nsegs = l->nsegs;
	c->arena_len = l->arena_len;
	c->size = l->size;
	*out = c;
	return 0;
}

const struct rk_tar_seg *rk_tar_layout_find(const struct rk_tar_layout *l, uint64_t off)
{
	size_t lo = 0, hi = l->nsegs;

	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (l->segs[mid].off <= off)
			lo = mid;
		else
			hi = mid;
	}
	return l->nsegs ? &l->segs[lo] : NULL;
}
