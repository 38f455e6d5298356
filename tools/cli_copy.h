/* cli_copy.h: copying local files (cli_copy.c), for rockpack install's --input-dir. A
 * leaf below the commands: uses cli_util.c, cli_progress.c and libc. */
#ifndef ROCKPACK_CLI_COPY_H
#define ROCKPACK_CLI_COPY_H

#include <stdint.h>

#include "cli_progress.h"

/* Copy local path src into directory out (created if missing, else it must hold no
 * entry of the names written) as `rsync -a SRC OUT` does: SRC without a trailing '/'
 * becomes OUT/basename(SRC), with one its contents go into OUT. Modes and mtimes kept,
 * symlinks copied as symlinks, hardlinks as separate files (rsync without -H). Counts
 * into p; the caller prints the summary. 0, or 1 after printing why. */
int rp_copy_tree(struct rp_progress *p, const char *src, const char *out);
/* size bytes of descriptor in appended to out (copy_file_range, else read/write with
 * buf); p (may be NULL) counts them. 0 or -errno. */
int rp_copy_fd(int in, int out, uint64_t size, char *buf, size_t bufsz, struct rp_progress *p);

#endif
