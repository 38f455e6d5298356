/* elf_runpath.c: DT_RUNPATH -> DT_RPATH as a composite (formats/gpu/elf_runpath.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/gpu/elf_runpath.h"

#define DT_RPATH_TAG 15

int rk_elf_rpath_tag(const struct rk_elf_info *e, uint64_t size, unsigned char tag[8])
{
	if (!e->runpath_tag_off || (e->tag_size != 4 && e->tag_size != 8) ||
	    e->runpath_tag_off > size || size - e->runpath_tag_off < e->tag_size)
		return 1;
	memset(tag, 0, 8);
	tag[e->big_endian ? e->tag_size - 1 : 0] = DT_RPATH_TAG;
	return 0;
}

int rk_elf_runpath_to_rpath(const struct rk_elf_info *e, const char id[RK_SHA256_HEX],
			    uint64_t size, struct rk_origin *origin, struct rk_composite **out)
{
	unsigned char tag[8];
	struct rk_composite *c;
	uint32_t idx;
	int rc;

	*out = NULL;
	if (rk_elf_rpath_tag(e, size, tag))
		return 0;
	if (!(c = calloc(1, sizeof(*c))))
		return -ENOMEM;
	if (!(rc = rk_composite_add_source(c, id, size, origin, &idx)) &&
	    !(rc = rk_composite_source(c, idx, 0, size)))
		rc = rk_composite_write(c, e->runpath_tag_off, tag, e->tag_size);
	if (rc) {
		rk_composite_free(c);
		return rc;
	}
	*out = c;
	return 0;
}
