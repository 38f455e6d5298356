/* kpack_elf_read.c: the input of the kpack ELF rewrite (rk/kpack_elf.h): its headers
 * read through libelf (elf_memory on the caller's image: for an ELF64 LE file on a
 * little-endian host libelf needs no conversion and never writes to the image), every
 * offset and size checked against the file before use; rk_kpack_elf_inspect; the
 * structural checks the transform and the verifier share (formats/gpu/kpack_elf_int.h). */
#include <endian.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "formats/gpu/kpack_elf_int.h"
#include "rk/kpack_elf.h"
#include "util/le.h"

/* ---------------------------------------------------------------------------------------
 * Reading: the headers of the input through libelf, checked. */

void kelf_in_release(struct elf_in *in)
{
	if (in->elf)
		elf_end(in->elf);
	free(in->ph);
	free(in->sh);
	free(in->names);
	memset(in, 0, sizeof(*in));
}

size_t kelf_find_section(const struct elf_in *in, const char *name)
{
	for (size_t i = 1; i < in->shn; i++)
		if (!strcmp(in->names[i], name))
			return i;
	return 0;
}

/* 1 and *in filled when img is ELF64 LE with sound headers, 0 when it is not ELF64 LE,
 * -EBADMSG when its headers are broken. Release *in in every case. */
int kelf_in_parse(const void *img, size_t n, struct elf_in *in, struct rk_err *err)
{
	const unsigned char *p = img;
	size_t phn = 0, shn = 0, strndx = 0;

	memset(in, 0, sizeof(*in));
	in->img = p;
	in->n = n;
	if (n < EI_NIDENT || memcmp(p, ELFMAG, SELFMAG) || p[EI_CLASS] != ELFCLASS64 ||
	    p[EI_DATA] != ELFDATA2LSB)
		return 0;
	if (n < EHDR_SIZE)
		return rk_err_set(err, -EBADMSG, "truncated ELF header (%zu bytes)", n);
	if (elf_version(EV_CURRENT) == EV_NONE)
		return rk_err_set(err, -EINVAL, "libelf: %s", elf_errmsg(-1));
	/* elf_memory takes a non-const pointer; with native byte order and
	 * ELF_C_READ_MMAP semantics it only reads the image. */
	in->elf = elf_memory((char *)(uintptr_t)img, n);
	if (!in->elf || elf_kind(in->elf) != ELF_K_ELF)
		return rk_err_set(err, -EBADMSG, "libelf cannot read the file: %s", elf_errmsg(-1));
	if (!gelf_getehdr(in->elf, &in->eh))
		return rk_err_set(err, -EBADMSG, "bad ELF header: %s", elf_errmsg(-1));
	if (in->eh.e_ehsize != EHDR_SIZE)
		return rk_err_set(err, -EBADMSG, "e_ehsize %u is not %u", in->eh.e_ehsize,
				  EHDR_SIZE);

	/* The counts come from the header itself: libelf silently clamps them to what
	 * the file size allows, which would hide a truncated table. The extended forms
	 * live in section 0. */
	phn = in->eh.e_phnum;
	shn = in->eh.e_shnum;
	strndx = in->eh.e_shstrndx;
	if (in->eh.e_shoff && (shn == 0 || phn == PN_XNUM || strndx == SHN_XINDEX)) {
		const unsigned char *s0;

		if (!in_file(in->eh.e_shoff, SHDR_SIZE, n))
			return rk_err_set(err, -EBADMSG,
					  "section header 0 at %#llx is beyond the end of the file",
					  (unsigned long long)in->eh.e_shoff);
		s0 = p + in->eh.e_shoff;
		if (shn == 0)
			shn = rk_le64(s0 + 32) > SIZE_MAX ? SIZE_MAX : (size_t)rk_le64(s0 + 32);
		if (phn == PN_XNUM)
			phn = rk_le32(s0 + 44);
		if (strndx == SHN_XINDEX)
			strndx = rk_le32(s0 + 40);
	} else if (!in->eh.e_shoff) {
		shn = 0;
	}

	/* Program headers. */
	if (phn) {
		if (in->eh.e_phentsize != PHDR_SIZE)
			return rk_err_set(err, -EBADMSG, "e_phentsize %u is not %u",
					  in->eh.e_phentsize, PHDR_SIZE);
		if (phn > n / PHDR_SIZE || !in_file(in->eh.e_phoff, phn * PHDR_SIZE, n))
			return rk_err_set(
				err, -EBADMSG,
				"program header table (%zu entries at %#llx) is beyond the "
				"end of the file (%zu bytes)",
				phn, (unsigned long long)in->eh.e_phoff, n);
		in->ph = calloc(phn, sizeof(*in->ph));
		if (!in->ph)
			return rk_err_set(err, -ENOMEM, "out of memory");
		for (size_t i = 0; i < phn; i++)
			if (!gelf_getphdr(in->elf, (int)i, &in->ph[i]))
				return rk_err_set(err, -EBADMSG, "program header %zu: %s", i,
						  elf_errmsg(-1));
	}
	in->phn = phn;

	/* Section headers and their names. */
	if (shn) {
		const GElf_Shdr *ss;

		if (in->eh.e_shentsize != SHDR_SIZE)
			return rk_err_set(err, -EBADMSG, "e_shentsize %u is not %u",
					  in->eh.e_shentsize, SHDR_SIZE);
		if (shn > n / SHDR_SIZE || !in_file(in->eh.e_shoff, shn * SHDR_SIZE, n))
			return rk_err_set(
				err, -EBADMSG,
				"section header table (%zu entries at %#llx) is beyond the "
				"end of the file (%zu bytes)",
				shn, (unsigned long long)in->eh.e_shoff, n);
		if (strndx == 0 || strndx >= shn)
			return rk_err_set(err, -EBADMSG,
					  "section name table index %zu is not a section", strndx);
		in->sh = calloc(shn, sizeof(*in->sh));
		in->names = calloc(shn, sizeof(*in->names));
		if (!in->sh || !in->names)
			return rk_err_set(err, -ENOMEM, "out of memory");
		for (size_t i = 0; i < shn; i++) {
			Elf_Scn *scn = elf_getscn(in->elf, i);

			if (!scn || !gelf_getshdr(scn, &in->sh[i]))
				return rk_err_set(err, -EBADMSG, "section header %zu: %s", i,
						  elf_errmsg(-1));
			if (i && in->sh[i].sh_type != SHT_NOBITS && in->sh[i].sh_type != SHT_NULL &&
			    !in_file(in->sh[i].sh_offset, in->sh[i].sh_size, n))
				return rk_err_set(
					err, -EBADMSG,
					"section %zu [%#llx, +%#llx) is beyond the end of the "
					"file (%zu bytes)",
					i, (unsigned long long)in->sh[i].sh_offset,
					(unsigned long long)in->sh[i].sh_size, n);
		}
		ss = &in->sh[strndx];
		if (ss->sh_type != SHT_STRTAB || !ss->sh_size)
			return rk_err_set(err, -EBADMSG, "section %zu is not a string table",
					  strndx);
		for (size_t i = 0; i < shn; i++) {
			in->names[i] = i ? elf_strptr(in->elf, strndx, in->sh[i].sh_name) : "";
			if (!in->names[i])
				return rk_err_set(
					err, -EBADMSG,
					"section %zu: name offset %u is outside '.shstrtab'", i,
					in->sh[i].sh_name);
		}
	}
	in->shn = shn;
	in->shstrndx = strndx;
	in->fatbin = kelf_find_section(in, ".hip_fatbin");
	if (in->fatbin && in->sh[in->fatbin].sh_type != SHT_PROGBITS &&
	    in->sh[in->fatbin].sh_type != SHT_NOBITS)
		return rk_err_set(err, -EBADMSG, "'.hip_fatbin' has section type %u",
				  in->sh[in->fatbin].sh_type);
	in->segment = kelf_find_section(in, ".hipFatBinSegment");
	in->marker = kelf_find_section(in, MARKER_NAME);
	return 1;
}

int rk_kpack_elf_inspect(const void *img, size_t n, struct rk_fat_elf *out, struct rk_err *err)
{
	struct elf_in in;
	int rc = kelf_in_parse(img, n, &in, err);

	if (rc <= 0 || !in.fatbin) {
		kelf_in_release(&in);
		return rc < 0 ? rc : 0;
	}
	memset(out, 0, sizeof(*out));
	out->fatbin_nobits = in.sh[in.fatbin].sh_type == SHT_NOBITS;
	out->fatbin_off = in.sh[in.fatbin].sh_offset;
	out->fatbin_size = out->fatbin_nobits ? 0 : in.sh[in.fatbin].sh_size;
	out->fatbin_addr = in.sh[in.fatbin].sh_addr;
	if (in.segment)
		out->nwrappers = in.sh[in.segment].sh_size / WRAPPER_SIZE;
	if (in.marker) {
		out->has_marker = 1;
		out->marker_off = in.sh[in.marker].sh_offset;
		out->marker_size =
			in.sh[in.marker].sh_type == SHT_NOBITS ? 0 : in.sh[in.marker].sh_size;
	}
	kelf_in_release(&in);
	return 1;
}

/* ---------------------------------------------------------------------------------------
 * The structural checks of rocm-kpack's ElfVerifier (verify.py; its errors, not its
 * warnings), plus bounds: shared by the transform (on its model) and the verifier. */

struct load_ref {
	uint64_t off, filesz;
	size_t idx;
};

static int cmp_load(const void *a, const void *b)
{
	const struct load_ref *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

int kelf_check_layout(const GElf_Ehdr *eh, const GElf_Phdr *ph, size_t phn, const GElf_Shdr *sh,
		      size_t shn, size_t shstrndx, uint64_t size, struct rk_err *err)
{
	struct load_ref *v = calloc(phn ? phn : 1, sizeof(*v));
	size_t nl = 0;
	int rc = 0;

	if (!v)
		return rk_err_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < phn && !rc; i++) {
		const GElf_Phdr *p = &ph[i];

		if (p->p_type == PT_PHDR && p->p_offset != eh->e_phoff)
			rc = rk_err_set(err, -EBADMSG, "PT_PHDR offset %#llx is not e_phoff %#llx",
					(unsigned long long)p->p_offset,
					(unsigned long long)eh->e_phoff);
		if (p->p_type != PT_LOAD || rc)
			continue;
		if (p->p_offset % PAGE != p->p_vaddr % PAGE)
			rc = rk_err_set(err, -EBADMSG,
					"PT_LOAD %zu: offset %#llx and address %#llx differ modulo "
					"the page size",
					i, (unsigned long long)p->p_offset,
					(unsigned long long)p->p_vaddr);
		else if (!in_file(p->p_offset, p->p_filesz, size) || p->p_filesz > p->p_memsz)
			rc = rk_err_set(
				err, -EBADMSG,
				"PT_LOAD %zu [%#llx, +%#llx) is beyond the end of the file or "
				"larger than its memory size",
				i, (unsigned long long)p->p_offset,
				(unsigned long long)p->p_filesz);
		v[nl].off = p->p_offset;
		v[nl].filesz = p->p_filesz;
		v[nl++].idx = i;
	}
	/* Sorted by offset: overlapping file ranges, or a shared offset with an empty one
	 * (the "NOBITS collision"). */
	if (!rc && nl > 1) {
		uint64_t end = 0;
		size_t end_idx = 0;

		qsort(v, nl, sizeof(*v), cmp_load);
		for (size_t i = 0; i < nl && !rc; i++) {
			if (i && v[i].off == v[i - 1].off && (!v[i].filesz || !v[i - 1].filesz))
				rc = rk_err_set(err, -EBADMSG,
						"PT_LOAD %zu and %zu share file offset %#llx",
						v[i - 1].idx, v[i].idx,
						(unsigned long long)v[i].off);
			else if (v[i].filesz && i && v[i].off < end)
				rc = rk_err_set(err, -EBADMSG,
						"PT_LOAD %zu and %zu have overlapping file ranges",
						end_idx, v[i].idx);
			if (v[i].filesz && v[i].off + v[i].filesz > end) {
				end = v[i].off + v[i].filesz;
				end_idx = v[i].idx;
			}
		}
	}
	free(v);
	if (rc)
		return rc;
	if (shn && shstrndx < shn) {
		for (size_t i = 0; i < shn; i++)
			if (sh[i].sh_name >= sh[shstrndx].sh_size)
				return rk_err_set(
					err, -EBADMSG,
					"section %zu: name offset %u exceeds '.shstrtab' size", i,
					sh[i].sh_name);
	}
	for (size_t i = 1; i < shn; i++)
		if (sh[i].sh_type != SHT_NOBITS && sh[i].sh_type != SHT_NULL &&
		    !in_file(sh[i].sh_offset, sh[i].sh_size, size))
			return rk_err_set(err, -EBADMSG,
					  "section %zu is beyond the end of the file", i);
	if (shn && phn) {
		uint64_t s0 = eh->e_shoff, s1 = s0 + (uint64_t)shn * SHDR_SIZE;
		uint64_t p0 = eh->e_phoff, p1 = p0 + (uint64_t)phn * PHDR_SIZE;

		if (s0 < p1 && p0 < s1)
			return rk_err_set(err, -EBADMSG,
					  "section header table overlaps the program header table");
	}
	return 0;
}

/* The PT_LOAD holding [vaddr, vaddr+len) in its file bytes; its file offset in *off. */
const GElf_Phdr *kelf_load_at(const GElf_Phdr *ph, size_t phn, uint64_t vaddr, uint64_t len,
			      uint64_t *off)
{
	for (size_t i = 0; i < phn; i++) {
		const GElf_Phdr *p = &ph[i];

		if (p->p_type != PT_LOAD || vaddr < p->p_vaddr || vaddr - p->p_vaddr >= p->p_memsz)
			continue;
		if (vaddr - p->p_vaddr > p->p_filesz || len > p->p_filesz - (vaddr - p->p_vaddr))
			return NULL; /* not backed by the file */
		*off = p->p_offset + (vaddr - p->p_vaddr);
		return p;
	}
	return NULL;
}
