/* rk/kpack_db.h: per-architecture database files (kpack-format.md section 4.2): the
 * files rocm-kpack's database handlers move out of the generic artifact into the
 * artifact of their architecture (Tensile libraries of rocBLAS, hipBLASLt and
 * hipSPARSELt, MIOpen databases and CK libraries, aotriton images, composable_kernel
 * device libraries, hipKernelProvider engines, hotswap caches).
 *
 * As upstream, a split runs only the handlers it is asked for (split_artifacts
 * --split-databases NAME..., which TheRock takes from each artifact's split_databases
 * in BUILD_TOPOLOGY.toml, rk/topology.h), in the order asked; the first that
 * recognizes a file wins. A file no handler asked for recognizes stays generic. */
#ifndef RK_KPACK_DB_H
#define RK_KPACK_DB_H

#include "rk/target.h"

/* The handlers, in rocm-kpack's registry order (AVAILABLE_HANDLERS). */
enum rk_kpack_db_handler {
	RK_KPACK_DB_ROCBLAS,
	RK_KPACK_DB_HIPBLASLT,
	RK_KPACK_DB_HIPSPARSELT,
	RK_KPACK_DB_AOTRITON,
	RK_KPACK_DB_MIOPEN,
	RK_KPACK_DB_COMPOSABLEKERNEL,
	RK_KPACK_DB_HIPKERNELPROVIDER,
	RK_KPACK_DB_HOTSWAP_CACHE,
	RK_KPACK_DB_NHANDLERS
};

/* The handlers a split runs, in the order they are tried. n == 0: none (upstream's
 * split without --split-databases). */
struct rk_kpack_db_set {
	unsigned char h[RK_KPACK_DB_NHANDLERS]; /* enum rk_kpack_db_handler */
	unsigned char n;
};

/* Every handler in registry order. */
extern const struct rk_kpack_db_set rk_kpack_db_all;

/* The handler named name ("rocblas", ..., upstream's CLI names), or -1. */
int rk_kpack_db_handler(const char *name);

/* The name of handler h; NULL when h is out of range. */
const char *rk_kpack_db_name(int h);

/* Add handler h to set (as upstream's list, a name given twice is tried twice, which
 * changes nothing: it is kept once). */
void rk_kpack_db_set_add(struct rk_kpack_db_set *set, int h);

/* Classify the regular file path ('/'-separated, relative to its prefix root as upstream
 * gives it to the handlers, e.g. "lib/rocblas/library/TensileLibrary_lazy_gfx1100.dat")
 * with the handlers of set, in its order. Returns the name of the first handler that
 * recognizes it and puts the key of the architecture the file belongs to in arch, or
 * returns NULL when it is generic. The key is upstream's base_arch() of what the handler
 * found: a processor ("gfx942" for "gfx942-xnack+"; "gfx1250-strict" keeps its suffix) or,
 * for aotriton, a rocm-bootstrap bundle key ("gfx11", "gfx110x", "gfx12_0").
 * Thread-safe; no allocation. */
const char *rk_kpack_db_classify(const char *path, const struct rk_kpack_db_set *set,
				 char arch[RK_TARGET_MAX]);

#endif
