/* splice.c: see rk/splice.h. */
#include "rk/splice.h"
