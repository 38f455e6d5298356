/* fuzz_msgpack_read.c: the bounded msgpack reader (core/src/formats/archive/msgpack_read.h) on
 * untrusted bytes. Its answers must agree with each other and with msgpack-c's:
 *  - a depth limit only adds -ELOOP: it never accepts what the unlimited walk rejects,
 *    and where both accept they end at the same byte;
 *  - what the walk accepts, msgpack-c builds (rk_mp_unpack), unless it spans more than
 *    32 container levels, which msgpack-c's fixed stack reports as -ENOMEM;
 *  - the tree packs back into bytes the walk accepts in full. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/archive/msgpack_read.h"

#define MSGPACK_C_DEPTH 32u /* MSGPACK_EMBED_STACK_SIZE */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every string through the accessors; keys looked up as the callers do. */
static void visit(const msgpack_object *o)
{
	char show[64];
	uint64_t v;
	int rc = 0;
	char *s;

	rk_mp_show(o, show);
	if (strlen(show) > 60 && o->type == MSGPACK_OBJECT_STR)
		abort();
	if (!rk_mp_uint(o, &v) && o->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
		abort();
	switch (o->type) {
	case MSGPACK_OBJECT_STR:
		s = rk_mp_strdup(o, &rc);
		if (s ? strlen(s) != o->via.str.size
		      : rc != -ENOMEM && !memchr(o->via.str.ptr, 0, o->via.str.size))
			abort();
		free(s);
		break;
	case MSGPACK_OBJECT_ARRAY:
		for (uint32_t i = 0; i < o->via.array.size; i++)
			visit(&o->via.array.ptr[i]);
		break;
	case MSGPACK_OBJECT_MAP:
		for (uint32_t i = 0; i < o->via.map.size; i++) {
			const msgpack_object *k = &o->via.map.ptr[i].key;

			visit(k);
			visit(&o->via.map.ptr[i].val);
			if (k->type == MSGPACK_OBJECT_STR && k->via.str.size < 64 &&
			    !memchr(k->via.str.ptr, 0, k->via.str.size)) {
				char key[64];
				const msgpack_object *first;

				memcpy(key, k->via.str.ptr, k->via.str.size);
				key[k->via.str.size] = '\0';
				first = rk_mp_get(o, key);
				if (!first || first > &o->via.map.ptr[i].val)
					abort(); /* the first match, at or before this one */
			}
		}
		break;
	default:
		break;
	}
}

/* Pack the tree again: the walk must take the bytes in full. */
static void repack(const msgpack_object *o)
{
	msgpack_sbuffer sb;
	msgpack_packer pk;
	struct rk_mp_cursor c;

	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	if (msgpack_pack_object(&pk, *o) == 0) {
		c = RK_MP_CURSOR(sb.data, sb.size);
		if (rk_mp_skip(&c, RK_MP_ANY_DEPTH) || c.off != sb.size)
			abort();
	}
	msgpack_sbuffer_destroy(&sb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rk_mp_cursor any = RK_MP_CURSOR(data, size), lim = any;
	int rc_any = rk_mp_skip(&any, RK_MP_ANY_DEPTH);
	int rc_lim = rk_mp_skip(&lim, MSGPACK_C_DEPTH);
	msgpack_unpacked u;
	int rc;

	if (rc_any != 0 && rc_any != -EBADMSG)
		abort();
	if (rc_lim != 0 && rc_lim != -EBADMSG && rc_lim != -ELOOP)
		abort();
	if (rc_lim == 0 && (rc_any != 0 || lim.off != any.off))
		abort();
	if (rc_any != 0 && rc_lim == 0)
		abort();
	if (any.off > size)
		abort();
	if (rc_any)
		return 0;
	msgpack_unpacked_init(&u);
	rc = rk_mp_unpack(data, any.off, &u);
	if (rc == 0) {
		if (rc_lim == -ELOOP)
			abort(); /* msgpack-c took more than 32 levels */
		visit(&u.data);
		repack(&u.data);
	} else if (rc != -ENOMEM || rc_lim != -ELOOP) {
		abort(); /* only the depth (or memory) stops msgpack-c after the walk */
	}
	msgpack_unpacked_destroy(&u);
	/* the same bytes with one more after them are not one object */
	if (any.off < size) {
		msgpack_unpacked_init(&u);
		if (rk_mp_unpack(data, any.off + 1, &u) != -EBADMSG)
			abort();
		msgpack_unpacked_destroy(&u);
	}
	return 0;
}
