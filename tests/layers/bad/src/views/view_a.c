/* a view that breaks every rule */
#include "views/python/view_python.h"
static void f(struct rk_vfs *v) { pthread_rwlock_wrlock(&v->tree); }
