/* rk/kpack_db.h: per-architecture database files (kpack-format.md section 4.2): the
 * files rocm-kpack's database handlers move out of the generic artifact into the
 * artifact of their architecture (Tensile libraries of rocBLAS, hipBLASLt and
 * hipSPARSELt, MIOpen databases and CK libraries, aotriton images, composable_kernel
 * device libraries, hipKernelProvider engines, hotswap caches). */
#ifndef RK_KPACK_DB_H
#define RK_KPACK_DB_H

#include "rk/target.h"

/* Classify path (relative to its prefix root's parent, '/'-separated, e.g.
 * "math-libs/BLAS/rocBLAS/stage/lib/rocblas/library/TensileLibrary_lazy_gfx1100.dat").
 * Returns the handler's name ("rocblas", "hipblaslt", "miopen", ...) and the base arch
 * in arch when the file belongs to one architecture, or NULL when it is generic. The
 * first matching handler wins, in rocm-kpack's order. */
const char *rk_kpack_db_classify(const char *path, char arch[RK_TARGET_MAX]);

#endif
