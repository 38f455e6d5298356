/* cli_export.h: writing a view as real files (cli_export.c), shared by the export,
 * split and wheels commands. A leaf below the commands: uses cli_util.c and the core
 * library. */
#ifndef ROCKPACK_CLI_EXPORT_H
#define ROCKPACK_CLI_EXPORT_H

#include "cli_util.h"

/* Write the view at path (a directory's contents, or a file) into directory out
 * (created if missing); shown names it in messages. 0, or 1 after printing why. */
int rp_export(struct rk_vfs *v, const struct rp_opts *o, const char *path, const char *shown,
	      const char *out);

#endif
