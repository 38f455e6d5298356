/* msgpack_read.h: the one bounded msgpack reader of the formats layer, for msgpack that
 * comes from untrusted files: the .kpack TOC and the .rocm_kpack_ref marker, read by
 * kpack.c, and the marker checked in a split host binary by kpack_elf.c
 * (kpack-format.md 1 and 3.1).
 *
 * Two layers, because the two callers need different things:
 *  - a cursor (rk_mp_head, rk_mp_skip_body, rk_mp_skip) that walks objects without
 *    building them. It is bounded: every length and every container count is checked
 *    against the bytes left before it is used (an object takes at least one byte, so a
 *    container announcing more elements than bytes remain is truncated, counting the
 *    elements its enclosing containers still owe), it never allocates, it is iterative
 *    (no recursion whatever the nesting), and nesting can be limited. kpack_elf.c checks
 *    the marker with it in one pass.
 *  - msgpack-c's object tree (rk_mp_unpack and the accessors after it), for the TOC and
 *    the marker decoder, which look keys up in any order. msgpack-c alone is not safe
 *    here: it allocates count * sizeof(msgpack_object) for a container as soon as it sees
 *    the header, so five hostile bytes (an array32 of 2^32-1) ask for 96 GiB.
 *    rk_mp_unpack therefore runs the cursor over the bytes first and hands msgpack-c
 *    only an object that is complete and whose every count fits.
 * A cursor alone would make the TOC reader re-walk its map for each key; msgpack-c alone
 * would not be bounded. The writer side (kpack.c) keeps using msgpack-c's packer.
 *
 * Errors: 0, or -EBADMSG (malformed: the type byte 0xc1, or truncated: a length, a body or
 * an element is missing), -ELOOP (nested deeper than the caller's limit), -ENOMEM
 * (msgpack-c: out of memory, and also its fixed 32-level stack, see rk_mp_unpack).
 * Nothing here prints or sets a message: the callers word their own (they predate this
 * module and their messages are part of their tests). No state: thread-safe. */
#ifndef RK_MSGPACK_READ_H
#define RK_MSGPACK_READ_H

#include <msgpack.h>
#include <stddef.h>
#include <stdint.h>

/* What an object is, from its type byte. */
enum rk_mp_kind {
	RK_MP_NIL, /* 0xc0 */
	RK_MP_BOOL, /* 0xc2, 0xc3 */
	RK_MP_INT, /* fixints, uint8..64, int8..64 */
	RK_MP_FLOAT, /* float32, float64 */
	RK_MP_STR, /* fixstr, str8..32 */
	RK_MP_BIN, /* bin8..32 */
	RK_MP_EXT, /* fixext1..16, ext8..32 */
	RK_MP_ARRAY, /* fixarray, array16, array32 */
	RK_MP_MAP /* fixmap, map16, map32 */
};

/* The header of one object, as rk_mp_head read it. */
struct rk_mp_head {
	unsigned type; /* the type byte */
	enum rk_mp_kind kind;
	/* RK_MP_ARRAY: elements; RK_MP_MAP: key/value pairs; otherwise the bytes that follow
	 * the header (str/bin data, ext type byte and data, an int or float's payload; 0 for
	 * fixints, nil and bools). */
	uint64_t count;
};

/* A read position in p[0..n). Set it up with RK_MP_CURSOR; off only grows. */
struct rk_mp_cursor {
	const unsigned char *p;
	size_t n, off;
};

#define RK_MP_CURSOR(p_, n_) ((struct rk_mp_cursor){(const unsigned char *)(p_), (n_), 0})

/* No nesting limit for rk_mp_skip_body/rk_mp_skip (the walk is iterative). */
#define RK_MP_ANY_DEPTH (~0u)
/* The largest finite limit (the walk keeps one counter per open container). */
#define RK_MP_MAX_DEPTH 64u

/* Read the header of the object at c->off and step past it (the type byte and any length
 * field); its body is not checked. 0 or -EBADMSG (no byte left, 0xc1, a length field cut
 * off); on error *h and c->off are unspecified. */
int rk_mp_head(struct rk_mp_cursor *c, struct rk_mp_head *h);

/* Skip the body of the object whose header rk_mp_head just read into h: its bytes, or
 * all its elements, recursively. max_depth, if not RK_MP_ANY_DEPTH (at most
 * RK_MP_MAX_DEPTH), is how many container levels h's object may span, itself included:
 * with 1 an array of scalars passes and an array holding an array (even an empty one)
 * fails, and with 0 only a scalar passes. 0, -EBADMSG or -ELOOP (-EINVAL if max_depth is over
 * RK_MP_MAX_DEPTH); on error c->off is unspecified. */
int rk_mp_skip_body(struct rk_mp_cursor *c, const struct rk_mp_head *h, unsigned max_depth);

/* Skip one whole object (rk_mp_head, then rk_mp_skip_body). On success c->off is where
 * it ends; bytes after it are not read. 0, -EBADMSG or -ELOOP. */
int rk_mp_skip(struct rk_mp_cursor *c, unsigned max_depth);

/* Whether h is a str of exactly s (the data starts at body, where the cursor stood
 * after rk_mp_head; the caller has checked that h->count bytes are there). */
int rk_mp_head_is(const struct rk_mp_head *h, const unsigned char *body, const char *s);

/* Build msgpack-c's tree of p[0..n), which must be exactly one object: rk_mp_skip checks
 * it first (any depth), so msgpack-c never sees a count that the bytes cannot hold.
 * u must be initialised (msgpack_unpacked_init) and is msgpack_unpacked_destroy'd by the
 * caller in every case; its strings point into p. Returns 0; -EBADMSG when p[0..n) is
 * not one complete object (malformed, truncated, or bytes after it); -ENOMEM when
 * msgpack-c fails to allocate, which includes nesting deeper than its fixed stack
 * (MSGPACK_EMBED_STACK_SIZE, 32 containers on a path): msgpack-c reports that as
 * MSGPACK_UNPACK_NOMEM_ERROR; -EPROTO if msgpack-c refuses it for any other reason. */
int rk_mp_unpack(const void *p, size_t n, msgpack_unpacked *u);

/* Accessors for msgpack-c objects. */

/* Whether o is a str of exactly s. */
int rk_mp_is_str(const msgpack_object *o, const char *s);
/* The value of key in map m, or NULL; the first match when the key repeats (as the
 * runtime's find_key). m must be a map. */
const msgpack_object *rk_mp_get(const msgpack_object *m, const char *key);
/* *v = o's value if o is a non-negative integer (msgpack-c also files int8..64 holding
 * a value >= 0 there): 0, or -1 when o is NULL or anything else. */
int rk_mp_uint(const msgpack_object *o, uint64_t *v);
/* A malloc'd C string from a str with no NUL inside; NULL with *rc = -EBADMSG (not a
 * str, or a NUL inside) or -ENOMEM. Free it. */
char *rk_mp_strdup(const msgpack_object *o, int *rc);
/* A short printable excerpt of o for messages: a str's first 60 bytes with anything
 * outside 0x20..0x7e as '?', or "<msgpack type N>" with msgpack-c's type number. */
void rk_mp_show(const msgpack_object *o, char out[64]);

#endif
