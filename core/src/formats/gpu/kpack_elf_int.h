/* formats/gpu/kpack_elf_int.h: what the three files of the kpack ELF rewrite share
 * (rk/kpack_elf.h): kpack_elf_read.c reads and checks the input's headers,
 * kpack_elf.c computes the transform, kpack_elf_verify.c is the verifier. */
#ifndef RK_KPACK_ELF_INT_H
#define RK_KPACK_ELF_INT_H

#include <gelf.h>
#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

#include "rk/err.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "kpack_elf reads ELF64 LE headers in place and needs a little-endian host"
#endif

#define PAGE 0x1000u
#define WRAPPER_SIZE 24u
#define HIPF_MAGIC 0x48495046u
#define HIPK_MAGIC 0x4B504948u
#define R_RELATIVE 8u /* R_X86_64_RELATIVE */
#define PHDR_SIZE 56u
#define SHDR_SIZE 64u
#define EHDR_SIZE 64u
#define RELA_SIZE 24u
#define MARKER_NAME ".rocm_kpack_ref"
#define MARKER_MAX 65536u /* the runtime's MAX_METADATA_SIZE */
#define MARKER_DEPTH 32u /* container levels a marker key or value may span */
#define PHDR_SPARE 16u /* relocated tables get ceil((n+1)/16)*16 slots */
#define ZERO_RUN 65536u /* appended zero runs at least this long are zero pieces */

static inline uint64_t round_up(uint64_t v)
{
	return (v + PAGE - 1) & ~(uint64_t)(PAGE - 1);
}

static inline uint64_t round_down(uint64_t v)
{
	return v & ~(uint64_t)(PAGE - 1);
}

/* [off, off+len) inside [0, size) without overflow. */
static inline int in_file(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

/* The input's headers, read through libelf and checked. */
struct elf_in {
	const unsigned char *img;
	size_t n;
	Elf *elf;
	GElf_Ehdr eh;
	GElf_Phdr *ph;
	size_t phn;
	GElf_Shdr *sh;
	const char **names; /* per section, never NULL once parsed */
	size_t shn, shstrndx;
	size_t fatbin, segment, marker; /* section indices, 0 when absent */
};

void kelf_in_release(struct elf_in *in);
size_t kelf_find_section(const struct elf_in *in, const char *name);

/* 1 and *in filled when img is ELF64 LE with sound headers, 0 when it is not ELF64 LE,
 * -EBADMSG when its headers are broken. Release *in in every case. */
int kelf_in_parse(const void *img, size_t n, struct elf_in *in, struct rk_err *err);

/* The structural checks of rocm-kpack's ElfVerifier (verify.py; its errors, not its
 * warnings), plus bounds: shared by the transform (on its model) and the verifier. */
int kelf_check_layout(const GElf_Ehdr *eh, const GElf_Phdr *ph, size_t phn, const GElf_Shdr *sh,
		      size_t shn, size_t shstrndx, uint64_t size, struct rk_err *err);

/* The PT_LOAD holding [vaddr, vaddr+len) in its file bytes; its file offset in *off. */
const GElf_Phdr *kelf_load_at(const GElf_Phdr *ph, size_t phn, uint64_t vaddr, uint64_t len,
			      uint64_t *off);

#endif
