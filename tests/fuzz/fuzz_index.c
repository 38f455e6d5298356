/* fuzz_index.c: rk_index_parse on untrusted bytes (a cache file). Invariant: whatever
 * parses re-serializes to bytes that parse to the same index, and those bytes are a
 * fixed point of serialize(parse()). The same input also goes through
 * rk_index_parse_manifest as artifact_manifest.txt text. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rk/index.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static int same(const struct rk_index *a, const struct rk_index *b)
{
	if (a->archive_size != b->archive_size || strcmp(a->archive_sha256, b->archive_sha256) ||
	    a->nprefixes != b->nprefixes || a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->nprefixes; i++)
		if (strcmp(a->prefixes[i], b->prefixes[i]))
			return 0;
	for (size_t i = 0; i < a->n; i++) {
		const struct rk_member *x = &a->v[i], *y = &b->v[i];

		if (strcmp(x->path, y->path) || !str_eq(x->link, y->link) || x->size != y->size ||
		    x->mtime != y->mtime || x->mode != y->mode || x->type != y->type ||
		    strcmp(x->blob, y->blob))
			return 0;
	}
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rk_index idx, back, text = {0};
	struct rk_buf b1 = RK_BUF_INIT, b2 = RK_BUF_INIT;
	struct rk_err err = RK_ERR_INIT;

	if (rk_index_parse(data, size, &idx, &err) == 0) {
		if (rk_index_serialize(&idx, &b1))
			abort();
		if (rk_index_parse(b1.buf, b1.len, &back, &err))
			abort(); /* what we write, we must read */
		if (!same(&idx, &back))
			abort();
		if (rk_index_serialize(&back, &b2) || b1.len != b2.len ||
		    memcmp(b1.buf, b2.buf, b1.len))
			abort();
		rk_index_release(&back);
		rk_index_release(&idx);
		rk_buf_release(&b1);
		rk_buf_release(&b2);
	}
	if (size <= (1u << 20)) {
		rk_index_parse_manifest(&text, (const char *)data, size, NULL);
		rk_index_release(&text);
	}
	return 0;
}
