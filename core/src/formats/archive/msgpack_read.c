/* msgpack_read.c: see msgpack_read.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/archive/msgpack_read.h"

/* A big-endian length of len bytes at the cursor. */
static int head_len(struct rk_mp_cursor *c, unsigned len, uint64_t *v)
{
	*v = 0;
	if (len > c->n - c->off)
		return -EBADMSG;
	for (unsigned i = 0; i < len; i++)
		*v = *v << 8 | c->p[c->off++];
	return 0;
}

int rk_mp_head(struct rk_mp_cursor *c, struct rk_mp_head *h)
{
	unsigned t;

	if (c->off >= c->n)
		return -EBADMSG;
	t = c->p[c->off++];
	h->type = t;
	h->count = 0;
	if (t <= 0x7f || t >= 0xe0) {
		h->kind = RK_MP_INT;
		return 0;
	}
	if (t <= 0x8f) {
		h->kind = RK_MP_MAP;
		h->count = t & 0x0f;
		return 0;
	}
	if (t <= 0x9f) {
		h->kind = RK_MP_ARRAY;
		h->count = t & 0x0f;
		return 0;
	}
	if (t <= 0xbf) {
		h->kind = RK_MP_STR;
		h->count = t & 0x1f;
		return 0;
	}
	switch (t) {
	case 0xc0:
		h->kind = RK_MP_NIL;
		return 0;
	case 0xc2:
	case 0xc3:
		h->kind = RK_MP_BOOL;
		return 0;
	case 0xc4:
	case 0xc5:
	case 0xc6: /* bin 8/16/32 */
		h->kind = RK_MP_BIN;
		return head_len(c, 1u << (t - 0xc4), &h->count);
	case 0xc7:
	case 0xc8:
	case 0xc9: /* ext 8/16/32: the length, then a type byte */
		h->kind = RK_MP_EXT;
		if (head_len(c, 1u << (t - 0xc7), &h->count))
			return -EBADMSG;
		h->count++;
		return 0;
	case 0xca:
	case 0xcb: /* float 32/64 */
		h->kind = RK_MP_FLOAT;
		h->count = t == 0xca ? 4 : 8;
		return 0;
	case 0xcc:
	case 0xcd:
	case 0xce:
	case 0xcf: /* uint 8..64 */
	case 0xd0:
	case 0xd1:
	case 0xd2:
	case 0xd3: /* int 8..64 */
		h->kind = RK_MP_INT;
		h->count = 1u << (t & 3);
		return 0;
	case 0xd4:
	case 0xd5:
	case 0xd6:
	case 0xd7:
	case 0xd8: /* fixext 1..16, after the type byte */
		h->kind = RK_MP_EXT;
		h->count = (1u << (t - 0xd4)) + 1;
		return 0;
	case 0xd9:
	case 0xda:
	case 0xdb: /* str 8/16/32 */
		h->kind = RK_MP_STR;
		return head_len(c, 1u << (t - 0xd9), &h->count);
	case 0xdc:
	case 0xdd: /* array 16/32 */
		h->kind = RK_MP_ARRAY;
		return head_len(c, 2u << (t - 0xdc), &h->count);
	case 0xde:
	case 0xdf: /* map 16/32 */
		h->kind = RK_MP_MAP;
		return head_len(c, 2u << (t - 0xde), &h->count);
	default: /* 0xc1, never used */
		return -EBADMSG;
	}
}

/* One loop over the objects still owed, so that no nesting grows the C stack. pending is
 * how many objects all open containers still owe: as each takes at least one byte, a
 * container whose elements would push it past the bytes left is truncated, whatever its
 * count claims. With a depth limit, left[] holds each open container's share. */
int rk_mp_skip_body(struct rk_mp_cursor *c, const struct rk_mp_head *h, unsigned max_depth)
{
	uint64_t left[RK_MP_MAX_DEPTH];
	uint64_t pending = 0;
	unsigned depth = 0; /* open containers holding elements still owed (with a limit) */
	struct rk_mp_head e = *h;

	if (max_depth > RK_MP_MAX_DEPTH && max_depth != RK_MP_ANY_DEPTH)
		return -EINVAL;
	for (;;) {
		size_t rest = c->n - c->off;

		if (e.kind == RK_MP_ARRAY || e.kind == RK_MP_MAP) {
			uint64_t elems = e.count;

			if (max_depth != RK_MP_ANY_DEPTH && depth >= max_depth)
				return -ELOOP; /* even when empty */
			if (e.kind == RK_MP_MAP) {
				if (elems > rest / 2)
					return -EBADMSG;
				elems *= 2;
			}
			if (elems > rest || pending + elems > rest)
				return -EBADMSG;
			pending += elems;
			if (max_depth != RK_MP_ANY_DEPTH && elems)
				left[depth++] = elems;
		} else {
			if (e.count > rest)
				return -EBADMSG;
			c->off += (size_t)e.count;
		}
		while (depth && !left[depth - 1])
			depth--;
		if (!pending)
			return 0;
		if (rk_mp_head(c, &e))
			return -EBADMSG;
		pending--;
		if (depth)
			left[depth - 1]--;
	}
}

int rk_mp_skip(struct rk_mp_cursor *c, unsigned max_depth)
{
	struct rk_mp_head h;

	if (rk_mp_head(c, &h))
		return -EBADMSG;
	return rk_mp_skip_body(c, &h, max_depth);
}

int rk_mp_head_is(const struct rk_mp_head *h, const unsigned char *body, const char *s)
{
	size_t n = strlen(s);

	return h->kind == RK_MP_STR && h->count == n && !memcmp(body, s, n);
}

int rk_mp_unpack(const void *p, size_t n, msgpack_unpacked *u)
{
	struct rk_mp_cursor c = RK_MP_CURSOR(p, n);
	size_t off = 0;

	if (rk_mp_skip(&c, RK_MP_ANY_DEPTH) || c.off != n)
		return -EBADMSG;
	switch (msgpack_unpack_next(u, p, n, &off)) {
	case MSGPACK_UNPACK_SUCCESS:
	case MSGPACK_UNPACK_EXTRA_BYTES: /* not after the check above */
		return 0;
	case MSGPACK_UNPACK_NOMEM_ERROR: /* also: deeper than msgpack-c's stack */
		return -ENOMEM;
	default:
		return -EPROTO;
	}
}

int rk_mp_is_str(const msgpack_object *o, const char *s)
{
	size_t n = strlen(s);

	return o->type == MSGPACK_OBJECT_STR && o->via.str.size == n &&
	       !memcmp(o->via.str.ptr, s, n);
}

const msgpack_object *rk_mp_get(const msgpack_object *m, const char *key)
{
	for (uint32_t i = 0; i < m->via.map.size; i++)
		if (rk_mp_is_str(&m->via.map.ptr[i].key, key))
			return &m->via.map.ptr[i].val;
	return NULL;
}

int rk_mp_uint(const msgpack_object *o, uint64_t *v)
{
	if (!o || o->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
		return -1;
	*v = o->via.u64;
	return 0;
}

char *rk_mp_strdup(const msgpack_object *o, int *rc)
{
	char *s;

	if (o->type != MSGPACK_OBJECT_STR || memchr(o->via.str.ptr, 0, o->via.str.size)) {
		*rc = -EBADMSG;
		return NULL;
	}
	if (!(s = malloc(o->via.str.size + 1))) {
		*rc = -ENOMEM;
		return NULL;
	}
	memcpy(s, o->via.str.ptr, o->via.str.size);
	s[o->via.str.size] = '\0';
	return s;
}

void rk_mp_show(const msgpack_object *o, char out[64])
{
	size_t n = 0;

	if (o->type != MSGPACK_OBJECT_STR) {
		snprintf(out, 64, "<msgpack type %d>", (int)o->type);
		return;
	}
	for (uint32_t i = 0; i < o->via.str.size && n < 60; i++) {
		char c = o->via.str.ptr[i];

		out[n++] = (c >= 0x20 && c < 0x7f) ? c : '?';
	}
	out[n] = '\0';
}
