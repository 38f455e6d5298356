/* fuzz_elf_rpath.c: the wheel RPATH change (rk/elf_rpath.h) on untrusted bytes. A rewrite
 * that succeeds must read back, through the same reader, as a DT_RPATH file whose rpath
 * ends with what was added; a failure always says why. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "rk/composite.h"
#include "rk/elf_rpath.h"

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

static const char add[] = "$ORIGIN/../../_rocm_sdk_core/lib:$ORIGIN/../../_rocm_sdk_core/x";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rk_err err = RK_ERR_INIT;
	struct rk_composite c = RK_COMPOSITE_INIT;
	/* a private copy of exactly size bytes, so ASan catches any read past the end */
	uint8_t *img = malloc(size ? size : 1);
	struct src src = {img, size};
	char rp[1 << 16];
	int rc, is_rpath;

	if (!img)
		return 0;
	memcpy(img, data, size);
	rc = rk_elf_rpath_get(img, size, rp, sizeof(rp), &is_rpath, &err);
	if (rc < 0 && rc != -ENOMEM && !err.msg[0])
		abort();
	rk_err_clear(&err);
	rc = rk_elf_rpath_add(img, size, add, &c, &err);
	if (rc < 0 && rc != -ENOMEM && !err.msg[0])
		abort();
	if (rc == 0) {
		/* the output grows by its headers, the string table and a gap below 64 KiB
		 * (executables: up to their highest address): materialize small ones */
		uint8_t *out = c.size <= (64u << 20) ? malloc(c.size) : NULL;

		if (c.size <= size)
			abort();
		if (out) {
			size_t al = strlen(add), rl;

			if (rk_composite_pread(&c, read_src, &src, out, c.size, 0) !=
			    (ssize_t)c.size)
				abort();
			rk_err_clear(&err);
			rc = rk_elf_rpath_get(out, c.size, rp, sizeof(rp), &is_rpath, &err);
			if (rc == -ENOSPC) {
				rc = 0; /* a huge old rpath */
			} else {
				rl = strlen(rp);
				if (rc != 0 || !is_rpath || rl < al || strcmp(rp + rl - al, add))
					abort(); /* our own output reads back as asked */
			}
			free(out);
		}
		rk_composite_release(&c);
	}
	free(img);
	return 0;
}
