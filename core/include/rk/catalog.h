/* rk/catalog.h: what one CI run holds, from one listing of its store directory.
 *
 * A run is a store directory named {run_id}-{platform} (TheRock's
 * WorkflowOutputRoot), optionally under {owner}-{repo}/. Its artifacts are the files
 * whose names parse as TheRock artifact names; when both .tar.zst and .tar.xz exist
 * for one stem, .tar.zst is used (artifact_manager.find_available_artifacts). A
 * catalog is immutable once loaded and may be read from any thread. */
#ifndef RK_CATALOG_H
#define RK_CATALOG_H

#include <stddef.h>
#include <stdint.h>

#include "rk/artifact.h"
#include "rk/err.h"
#include "rk/store.h"

struct rk_artifact {
	char *file; /* the archive used, e.g. "blas_lib_gfx94X-dcgpu.tar.zst" */
	char *stem; /* "blas_lib_gfx94X-dcgpu" */
	char *sidecar; /* "<file>.sha256sum" when stored, else NULL */
	struct rk_artifact_name an;
	uint64_t size;
	int64_t mtime_ns;
	int has_xz_twin; /* a .tar.xz of the same stem exists and was passed over */
};

struct rk_run {
	char *name; /* "24205988455-linux" */
	char *path; /* store path of the run directory ("" when the store is the run) */
	struct rk_store_list files; /* every regular file at the run root, sorted */
	struct rk_store_list dirs; /* every folder at the run root (logs, python, ...), sorted */
	struct rk_artifact *arts; /* sorted by stem */
	size_t narts;
	char **targets; /* distinct target fields ("generic", families, gfx targets), sorted */
	size_t ntargets;
	int has_manifest; /* manifests/therock_manifest.json exists in the store */
	int has_python; /* the run has a python/ directory (therock-formats.md 6.6) */
};

/* True when a store listing holds at least one artifact archive (the directory is a run). */
int rk_listing_has_artifacts(const struct rk_store_list *l);

int rk_run_load(struct rk_store *s, const char *path, const char *name, struct rk_run **out,
		struct rk_err *err);
void rk_run_free(struct rk_run *r); /* NULL ok */
/* 1 when both listings of a run have the same files (names, sizes, times). */
int rk_run_same(const struct rk_run *a, const struct rk_run *b);
/* Whether the run stores a folder name at its root ("tarballs", "packages"). */
int rk_run_has_dir(const struct rk_run *r, const char *name);
/* The run's platform, the part of its name after the last '-' ("linux", "windows"). */
const char *rk_run_platform(const struct rk_run *r);
/* A digest of every entry (name, size, time) of run r's directory and of its stored
 * folders below (python/, logs/, ...; 8 levels at most), listed through s: a file added
 * anywhere in the run changes it. 0 or -errno. */
int rk_run_tree_sig(struct rk_store *s, const struct rk_run *r, uint64_t *sig, struct rk_err *err);
const struct rk_artifact *rk_run_find(const struct rk_run *r, const char *stem);

#endif
