/* htab.h: the only file that includes uthash.h.
 *
 * uthash calls exit() on allocation failure unless HASH_NONFATAL_OOM is set; we set
 * it and record the failure in a thread-local flag that rk_htab_oom() reads and
 * clears, so callers turn it into -ENOMEM. Tables are protected by the lock of the
 * struct that holds them; see each user. */
#ifndef RK_HTAB_H
#define RK_HTAB_H

#define HASH_NONFATAL_OOM 1
extern __thread int rk_htab_oom_flag;
#define uthash_nonfatal_oom(e) (rk_htab_oom_flag = 1)
#include <uthash.h>

static inline int rk_htab_oom(void)
{
	int f = rk_htab_oom_flag;

	rk_htab_oom_flag = 0;
	return f;
}

#endif
