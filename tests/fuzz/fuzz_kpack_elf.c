/* fuzz_kpack_elf.c: host ELF inspection, kpack transform and verification on untrusted
 * bytes. A transform that succeeds must produce a binary its own verifier accepts. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "rk/kpack_elf.h"
#include "rk/composite.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct src {
	const uint8_t *p;
	size_t n;
};

static ssize_t read_src(void *ctx, uint32_t id, void *buf, size_t n, uint64_t off)
{
	const struct src *s = ctx;

	if (id != 0 || off > s->n || n > s->n - off)
		abort(); /* the composite only asks for ranges of the input */
	memcpy(buf, s->p + off, n);
	return (ssize_t)n;
}

/* The marker of kpack-format.md 3.1 (short paths). */
static const unsigned char marker[] = "\x82\xb2kpack_search_paths\x91\xa1x\xabkernel_name\xa1y";

static void check_err(int rc, const struct rk_err *err)
{
	if (rc < 0 && rc != -ENOMEM && !err->msg[0])
		abort(); /* a failure always says why, except out of memory */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rk_err err = RK_ERR_INIT;
	struct rk_fat_elf fe;
	struct rk_composite s = RK_COMPOSITE_INIT, again = RK_COMPOSITE_INIT;
	struct src src = {data, size};
	int rc;

	/* A private copy of exactly size bytes, so ASan catches any read past the end. */
	uint8_t *img = malloc(size ? size : 1);

	if (!img)
		return 0;
	memcpy(img, data, size);
	src.p = img;
	rc = rk_kpack_elf_inspect(img, size, &fe, &err);
	check_err(rc, &err);
	if (rc == 1 && !fe.fatbin_nobits && fe.fatbin_size > size)
		abort();
	rk_err_clear(&err);
	check_err(rk_kpack_elf_verify(img, size, &err), &err);
	rk_err_clear(&err);
	rc = rk_kpack_elf_transform(img, size, marker, sizeof(marker) - 1, &s, &err);
	check_err(rc, &err);
	if (rc == 0) {
		/* normalize_phdr_vaddr may pad an executable up to its highest address (a
		 * zero piece): do not materialize such outputs here. */
		uint8_t *out = s.size <= (64u << 20) ? malloc(s.size ? s.size : 1) : NULL;

		if (out) {
			if (rk_composite_pread(&s, read_src, &src, out, s.size, 0) !=
			    (ssize_t)s.size)
				abort();
			rk_err_clear(&err);
			if (rk_kpack_elf_verify(out, s.size, &err) != 0)
				abort(); /* our own output must verify */
			rk_err_clear(&err);
			if (rk_kpack_elf_transform(out, s.size, marker, sizeof(marker) - 1, &again,
						   &err) != -EALREADY)
				abort(); /* and is recognised as split */
			rk_composite_release(&again);
			free(out);
		}
		rk_composite_release(&s);
	}
	free(img);
	return 0;
}
