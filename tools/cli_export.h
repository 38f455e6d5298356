/* cli_export.h: writing a view as real files (cli_export.c), shared by the export,
 * split and wheels commands. A leaf below the commands: uses cli_util.c and the core
 * library. */
#ifndef ROCKPACK_CLI_EXPORT_H
#define ROCKPACK_CLI_EXPORT_H

#include "cli_progress.h"
#include "cli_util.h"

/* Write the view at path (a directory's contents, or a file) into directory out
 * (created if missing); shown names it in messages. Counts files, bytes, directories and
 * hardlinks into p (cli_progress.h), which shows them on a terminal; the caller prints
 * the summary (rp_progress_end). 0, or 1 after printing why. */
int rp_export(struct rk_vfs *v, struct rp_progress *p, const char *path, const char *shown,
	      const char *out);
/* The same, every symlink below path written as the file it names (in the view's tree,
 * path relative to the tree's root): release/'s links into the runs' views. */
int rp_export_follow(struct rk_vfs *v, struct rp_progress *p, const char *path, const char *shown,
		     const char *out);

#endif
