/* kpack_archive.c: see rk/kpack.h. */
#include "rk/kpack.h"
