/* kpack_db.c: see rk/kpack_db.h. */
#include "rk/kpack_db.h"
