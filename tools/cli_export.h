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
/* How rp_export_with writes files. */
enum { RP_LINK_COPY, RP_LINK_REFLINK, RP_LINK_AUTO };
struct rp_export_opts {
	unsigned jobs; /* files written at once (a writer thread each); < 2: by the walk */
	/* RP_LINK_COPY: the bytes (copy_file_range from the cache's blob where there is one:
	 * no copy through user space); RP_LINK_REFLINK: a reflink of the blob (FICLONE: the
	 * file system shares the extents, copy on write), failing where it cannot be made
	 * (another file system, one without reflinks, a file that is not one whole blob);
	 * RP_LINK_AUTO: a reflink where possible, else a copy */
	int link;
};
/* rp_export with those options. */
int rp_export_with(struct rk_vfs *v, struct rp_progress *p, const char *path, const char *shown,
		   const char *out, const struct rp_export_opts *eo);
/* The same, every symlink below path written as the file it names (in the view's tree,
 * path relative to the tree's root): release/'s links into the runs' views. */
int rp_export_follow(struct rk_vfs *v, struct rp_progress *p, const char *path, const char *shown,
		     const char *out);

#endif
