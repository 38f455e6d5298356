/* pep503.h: the pages of a pip package index over a set of package files, bytes out: the
 * "simple" repository API (PEP 503, with PEP 658/714 metadata links and PEP 592-style
 * data-requires-python) and the flat --find-links pages TheRock's upload step writes
 * (generate_local_index.py, indexer.py). No I/O: the caller says which files are served,
 * their hashes and where they sit. */
#ifndef RK_FORMATS_PEP503_H
#define RK_FORMATS_PEP503_H

#include <stddef.h>

#include "rk/buf.h"

/* One served file. Arrays of them are sorted by project (then file). */
struct rk_pyindex_file {
	const char *file; /* "rocm_sdk_core-7.13.0-py3-none-linux_x86_64.whl" */
	const char *project; /* PEP 503-normalized */
	const char *family; /* "": in files/; else served in <family>/ only */
	const char *sha; /* its sha256 (hex), for the project page */
	const char *requires_python; /* or NULL */
	const char *meta_sha; /* its METADATA's sha256 (hex), or NULL: no .metadata file */
	int split_product; /* made by the kpack split of a stored fat wheel */
};

/* simple/index.html: one link per project of the files of no family. */
int rk_pep503_root(const struct rk_pyindex_file *f, size_t n, struct rk_buf *b);
/* simple/<project>/index.html: one link per file of no family, href
 * ../../files/<file>#sha256=..., with data-requires-python and data-core-metadata. */
int rk_pep503_project(const char *project, const struct rk_pyindex_file *f, size_t n,
		      struct rk_buf *b);
/* A --find-links page: family NULL, every file (index.html at the top, href
 * files/<file>); else family's page (<family>/index.html): its own files (./<file>) and
 * those of no family (../files/<file>) except the kpack-split products and the files of
 * a project the family has its own file of. */
int rk_pep503_flat(const struct rk_pyindex_file *f, size_t n, const char *family,
		   struct rk_buf *b);

/* TheRock's release buckets (v5/rocm/<product>/whl-next/, manage_structured.py): the
 * root page, one link "<project>/" per project (projects sorted, PEP 503-normalized), and
 * a project's page, one same-directory link per file (files sorted by name). */
int rk_pep503_structured_root(const char *const *projects, size_t n, struct rk_buf *b);
int rk_pep503_structured_project(const char *project, const char *const *files, size_t n,
				 struct rk_buf *b);

#endif
