/* fuzz_elf_info.c: shared-object and DT_SONAME facts of arbitrary bytes (rk_elf_info_mem),
 * the ELF reading view_python_synth.c does on every file of a synthesized wheel.
 * Invariants: no crash or leak; a soname is NUL-terminated, without '/'. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rk/elf_info.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rk_elf_info i;
	void *copy = malloc(size ? size : 1);

	if (!copy)
		return 0;
	memcpy(copy, data, size); /* libelf may keep pointers into the image */
	rk_elf_info_mem(copy, size, &i);
	if (memchr(i.soname, '\0', sizeof(i.soname)) == NULL || strchr(i.soname, '/'))
		abort();
	free(copy);
	return 0;
}
