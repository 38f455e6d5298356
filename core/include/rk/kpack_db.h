/* rk/kpack_db.h: per-architecture database files (kpack-format.md section 4.2): the
 * files rocm-kpack's database handlers move out of the generic artifact into the
 * artifact of their architecture (Tensile libraries of rocBLAS, hipBLASLt and
 * hipSPARSELt, MIOpen databases and CK libraries, aotriton images, composable_kernel
 * device libraries, hipKernelProvider engines, hotswap caches). */
#ifndef RK_KPACK_DB_H
#define RK_KPACK_DB_H

#include "rk/target.h"

/* Classify the regular file path ('/'-separated, relative to its prefix root, optionally
 * with the prefix in front, e.g.
 * "math-libs/BLAS/rocBLAS/stage/lib/rocblas/library/TensileLibrary_lazy_gfx1100.dat").
 * Returns the handler's name ("rocblas", "hipblaslt", "hipsparselt", "aotriton", "miopen",
 * "composablekernel", "hipkernelprovider", "hotswap_cache") and puts the key of the
 * architecture the file belongs to in arch, or returns NULL when it is generic. The key
 * is upstream's base_arch() of what the handler found: a processor ("gfx942" for
 * "gfx942-xnack+"; "gfx1250-strict" keeps its suffix) or, for aotriton, a rocm-bootstrap
 * bundle key ("gfx11", "gfx110x", "gfx12_0"). The first matching handler wins, in
 * rocm-kpack's registry order. Thread-safe; no allocation. */
const char *rk_kpack_db_classify(const char *path, char arch[RK_TARGET_MAX]);

#endif
