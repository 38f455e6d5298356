/* rk/elf_info.h: the two facts about an ELF file that TheRock's wheel rules need
 * (therock-formats.md 6.3): whether it is a shared object, as file(1) says it (ET_DYN
 * without DF_1_PIE), and its DT_SONAME. Read with libelf; a file that is not ELF, or a
 * damaged one, simply has neither. */
#ifndef RK_ELF_INFO_H
#define RK_ELF_INFO_H

#include <stddef.h>

struct rk_elf_info {
	int shared;
	char soname[256]; /* "" when absent, too long, or holding a '/' */
};

/* Fill *out from the file open on fd (read from offset 0; fd is not moved). */
void rk_elf_info_fd(int fd, struct rk_elf_info *out);
/* The same for an image in memory. */
void rk_elf_info_mem(const void *data, size_t size, struct rk_elf_info *out);

#endif
