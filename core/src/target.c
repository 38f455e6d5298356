/* target.c: see rk/target.h. */
#include "rk/target.h"
