/* rk/elf_info.h: the facts about an ELF file that TheRock's packaging rules need: for
 * wheels (therock-formats.md 6.3) whether it is a shared object or an executable, as
 * file(1) says it (ET_DYN without DF_1_PIE; ET_EXEC, or ET_DYN with it), and its
 * DT_SONAME; for native packages where its DT_RUNPATH entry is (runpath_to_rpath.py
 * turns it into DT_RPATH). Read with libelf; a file that is not ELF, or a damaged one,
 * simply has none of them. */
#ifndef RK_ELF_INFO_H
#define RK_ELF_INFO_H

#include <stddef.h>
#include <stdint.h>

struct rk_elf_info {
	int shared, executable;
	char soname[256]; /* "" when absent, too long, or holding a '/' */
	/* The file offset of the d_tag of the DT_RUNPATH entry of an ELF file of any type
	 * that has one and no DT_RPATH, else 0; tag_size (4 or 8) and big_endian say how
	 * a new tag value is written there. */
	uint64_t runpath_tag_off;
	uint8_t tag_size, big_endian;
};

/* Fill *out from the file open on fd (read from offset 0; fd is not moved). */
void rk_elf_info_fd(int fd, struct rk_elf_info *out);
/* The same for an image in memory. */
void rk_elf_info_mem(const void *data, size_t size, struct rk_elf_info *out);

#endif
