/* elf_info.c: shared object, executable or neither, DT_SONAME, where DT_RUNPATH is
 * (rk/elf_info.h). */
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rk/elf_info.h"

static void from_elf(Elf *elf, struct rk_elf_info *out)
{
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	int pie = 0, rpath = 0;
	uint64_t runpath = 0;

	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize && i < (size_t)1 << 20; i++) {
			GElf_Dyn dyn;
			const char *s;

			if (!gelf_getdyn(d, (int)i, &dyn) || dyn.d_tag == DT_NULL)
				break;
			if (dyn.d_tag == DT_RPATH)
				rpath = 1;
			if (dyn.d_tag == DT_RUNPATH)
				runpath = sh.sh_offset + i * sh.sh_entsize;
			if (dyn.d_tag == DT_FLAGS_1 && (dyn.d_un.d_val & DF_1_PIE))
				pie = 1;
			if (dyn.d_tag == DT_SONAME && eh.e_type == ET_DYN &&
			    (s = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val)) && !strchr(s, '/') &&
			    strlen(s) < sizeof(out->soname))
				snprintf(out->soname, sizeof(out->soname), "%s", s);
		}
	}
	if (runpath && !rpath) {
		out->runpath_tag_off = runpath;
		out->tag_size = eh.e_ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
		out->big_endian = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	}
	out->shared = eh.e_type == ET_DYN && !pie;
	out->executable = eh.e_type == ET_EXEC || (eh.e_type == ET_DYN && pie);
}

void rk_elf_info_fd(int fd, struct rk_elf_info *out)
{
	unsigned char magic[4];
	Elf *elf;

	memset(out, 0, sizeof(*out));
	if (pread(fd, magic, 4, 0) != 4 || memcmp(magic, ELFMAG, SELFMAG))
		return;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	from_elf(elf, out);
	elf_end(elf);
}

void rk_elf_info_mem(const void *data, size_t size, struct rk_elf_info *out)
{
	Elf *elf;

	memset(out, 0, sizeof(*out));
	if (size < SELFMAG || memcmp(data, ELFMAG, SELFMAG))
		return;
	elf_version(EV_CURRENT);
	elf = elf_memory((char *)data, size); /* libelf does not write a read-only image */
	from_elf(elf, out);
	elf_end(elf);
}
