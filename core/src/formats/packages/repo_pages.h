/* formats/packages/repo_pages.h: the index.html pages TheRock writes into its release
 * buckets' native package directories (build_tools/packaging/linux/
 * generate_package_indexes.py), bytes out. Names are written as upstream writes them,
 * unquoted and unescaped. */
#ifndef RK_FORMATS_REPO_PAGES_H
#define RK_FORMATS_REPO_PAGES_H

#include <stddef.h>

#include "rk/buf.h"

/* A directory's page: one row per subdirectory ("<d>/index.html", shown "<d>/"), then
 * one per file, each list in the caller's order (upstream: sorted). generate_index_from_s3
 * and generate_top_index_from_s3 write the same rows. */
int rk_repo_page(const char *const *dirs, size_t ndirs, const char *const *files, size_t nfiles,
		 struct rk_buf *b);

#endif
