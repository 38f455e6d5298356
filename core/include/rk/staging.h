/* rk/staging.h: a directory of output written whole or not at all (staging.c).
 *
 * The files go into a private sibling of the destination DIR, ".NAME.rockpack-PID"
 * (same file system, so the end is a rename), and rk_staging_commit moves them into
 * place: DIR itself when it is missing or empty (one rename), else each top entry
 * (renameat2 RENAME_NOREPLACE: an entry already there is an error, never overwritten).
 * A process killed before the commit leaves only the sibling, with a name no reader
 * takes for the output; rk_staging_open removes the siblings of processes that are gone.
 * Not thread-safe (one staging per command); uses libc only. */
#ifndef RK_STAGING_H
#define RK_STAGING_H

#include "rk/err.h"

struct rk_staging {
	char *dir; /* the destination, as given */
	char *tmp; /* the sibling being written */
	int fd; /* an O_DIRECTORY descriptor of tmp: create the output relative to it */
};

/* Make the sibling of dir (mode 0755 less the umask) and open it. dir may exist (a
 * directory) or not; its parent must. 0 or -errno with err set. */
int rk_staging_open(const char *dir, struct rk_staging *st, struct rk_err *err);
/* Move what was written into dir (see above), remove the sibling, close. 0 or -errno
 * with err set (-EEXIST: an entry of that name is in dir already); on failure the
 * entries not moved are removed with the sibling. */
int rk_staging_commit(struct rk_staging *st, struct rk_err *err);
/* Remove the sibling and everything in it; close. NULL-safe, idempotent. */
void rk_staging_abort(struct rk_staging *st);

#endif
