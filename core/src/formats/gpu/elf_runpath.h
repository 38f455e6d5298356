/* elf_runpath.h: TheRock's runpath_to_rpath.py (native packages) and _normalize_rpath
 * (py_packaging.py, the devel wheel's own files): the DT_RUNPATH entry of an ELF file
 * becomes DT_RPATH with the same string (patchelf --force-rpath --set-rpath "$(patchelf
 * --print-rpath F)" F); nothing else moves. ELF32 and ELF64, either byte order; the file
 * is never copied: the change is a composite over it. Bytes in (rk/elf_info.h's facts),
 * bytes out; no I/O. */
#ifndef RK_FORMATS_ELF_RUNPATH_H
#define RK_FORMATS_ELF_RUNPATH_H

#include <stdint.h>

#include "rk/composite.h"
#include "rk/elf_info.h"
#include "rk/hash.h"

/* The new d_tag (DT_RPATH) in e's class and byte order, tag[0..e->tag_size), for a file of
 * size bytes. 0 when it applies, 1 when the file has no DT_RUNPATH entry (or one past its
 * end, a damaged file: upstream's readelf fails and nothing changes). */
int rk_elf_rpath_tag(const struct rk_elf_info *e, uint64_t size, unsigned char tag[8]);

/* The file (source id, size bytes, re-created through origin, which may be NULL) with its
 * DT_RUNPATH entry turned into DT_RPATH, as a new composite in *out (rk_composite_free);
 * *out NULL when nothing changes (rk_elf_rpath_tag is 1). 0 or -ENOMEM. */
int rk_elf_runpath_to_rpath(const struct rk_elf_info *e, const char id[RK_SHA256_HEX],
			    uint64_t size, struct rk_origin *origin, struct rk_composite **out);

#endif
