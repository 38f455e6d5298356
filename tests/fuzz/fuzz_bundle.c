/* fuzz_bundle.c: .hip_fatbin sections (offload bundles, CCOB) from untrusted bytes; the
 * same bytes as a path for the kpack database handlers. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rk/bundle.h"
#include "rk/kpack_db.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile unsigned sink;

static void check_fatbin(const uint8_t *data, size_t size)
{
	struct rk_fatbin f;
	struct rk_err err = RK_ERR_INIT;
	int rc = rk_fatbin_parse(data, size, 16u << 20, &f, &err);

	if (rc) {
		if (rc > 0 || (!err.msg[0] && rc != -ENOMEM))
			abort(); /* a failure always says why, except out of memory */
		return;
	}
	if (!f.nbundles)
		abort();
	for (size_t i = 0; i < f.nbundles; i++) {
		const struct rk_bundle *b = &f.bundles[i];

		if (b->off >= size || b->len > size - b->off || !b->len)
			abort();
		if (i && b->off < f.bundles[i - 1].off + f.bundles[i - 1].len)
			abort(); /* bundles do not overlap */
		if ((b->format == RK_BUNDLE_CCOB) != (b->payload != NULL))
			abort();
	}
	for (size_t i = 0; i < f.nentries; i++) {
		const struct rk_bundle_entry *e = &f.entries[i];
		const struct rk_bundle *b;
		const unsigned char *p;
		uint64_t lim;
		unsigned s = 0;

		if (e->bundle >= f.nbundles || !e->id || !e->arch || !*e->arch)
			abort();
		if (e->arch < e->id || e->arch > e->id + strlen(e->id))
			abort();
		b = &f.bundles[e->bundle];
		lim = b->format == RK_BUNDLE_CCOB ? b->usize : size;
		if (e->size > lim || e->off > lim - e->size)
			abort();
		p = rk_fatbin_data(&f, e, data);
		for (uint64_t k = 0; k < e->size; k++)
			s += p[k];
		sink += s;
	}
	rk_fatbin_release(&f);
}

static void check_db(const uint8_t *data, size_t size)
{
	char path[4096], arch[RK_TARGET_MAX];
	const char *h;
	size_t n = size < sizeof(path) - 1 ? size : sizeof(path) - 1;

	memcpy(path, data, n);
	path[n] = '\0';
	if ((h = rk_kpack_db_classify(path, &rk_kpack_db_all, arch)) &&
	    (!*h || !*arch || strlen(arch) >= RK_TARGET_MAX))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_fatbin(data, size);
	check_db(data, size);
	return 0;
}
