/* bundle.c: see rk/bundle.h. */
#include "rk/bundle.h"
