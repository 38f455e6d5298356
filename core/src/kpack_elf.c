/* kpack_elf.c: see rk/kpack_elf.h. */
#include "rk/kpack_elf.h"
