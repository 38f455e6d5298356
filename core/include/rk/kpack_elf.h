/* rk/kpack_elf.h: host binaries with device code (kpack-format.md section 3).
 *
 * A fat host binary is an ELF64 LE file with a .hip_fatbin section; its wrappers
 * (24 bytes each in .hipFatBinSegment) point at the bundles. rk_kpack_elf_transform
 * computes what rocm-kpack's kpack_offload_binary writes, as a composite over the original
 * (source 0): the marker in a new read-only PT_LOAD, wrappers HIPF -> HIPK with their
 * index, the RELA relocations of the wrapper pointers redirected to the marker,
 * .hip_fatbin made NOBITS with its whole pages cut out of the file, and the program
 * header table moved when it must grow. Bytes outside the edited ranges are kept.
 * Reading uses libelf on the caller's image (mapped, never copied); every edit is
 * checked before it is made, and the result is verified as the reference tool does. */
#ifndef RK_KPACK_ELF_H
#define RK_KPACK_ELF_H

#include <stddef.h>
#include <stdint.h>

#include "rk/err.h"
#include "rk/composite.h"

struct rk_fat_elf {
	uint64_t fatbin_off, fatbin_size; /* .hip_fatbin in the file (size 0 if NOBITS) */
	uint64_t fatbin_addr;
	int fatbin_nobits; /* already split */
	size_t nwrappers; /* .hipFatBinSegment size / 24 */
	int has_marker; /* .rocm_kpack_ref exists */
	uint64_t marker_off, marker_size; /* its bytes in the file, when present */
};

/* 1 when img[0..n) is an ELF64 LE file with a section named exactly ".hip_fatbin",
 * 0 when it is not (not ELF, other class, no such section), -EBADMSG when it claims to
 * be ELF64 but its headers are broken. Fills *out when 1. */
int rk_kpack_elf_inspect(const void *img, size_t n, struct rk_fat_elf *out, struct rk_err *err);

/* The split form of the fat binary img[0..n) with marker bytes m[0..mlen), as a composite
 * whose source 0 is img. -EBADMSG/-EINVAL with a message when the binary cannot be
 * transformed safely (the caller then passes it through unsplit): -EINVAL when it is not
 * a fat x86-64 ELF64 LE binary, -EALREADY when it is already split (.rocm_kpack_ref
 * exists). *out is empty on failure. An executable may come out larger than its input:
 * normalize_phdr_vaddr can pad it up to its highest address (a zero piece). */
int rk_kpack_elf_transform(const void *img, size_t n, const void *m, size_t mlen,
			   struct rk_composite *out, struct rk_err *err);

/* The checks of rocm-kpack's ElfVerifier and verify_artifacts on a (split) binary:
 * PT_LOAD ranges disjoint, offsets congruent to addresses, PT_PHDR at e_phoff, and for
 * a split binary .hip_fatbin NOBITS plus a .rocm_kpack_ref marker that decodes. */
int rk_kpack_elf_verify(const void *img, size_t n, struct rk_err *err);

#endif
