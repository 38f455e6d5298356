/* array.h: the two helpers every growing array and every sorted name list use: room for
 * one more element (the capacity doubles; the array is untouched when memory runs out,
 * so a caller that fails still owns and frees the old one) and strcmp over char *
 * elements for qsort and bsearch. */
#ifndef RK_ARRAY_H
#define RK_ARRAY_H

#include <stddef.h>

/* Make room in the array at *arrp (a T **, *cap elements of elem bytes, n used) for
 * element n: when n == *cap, *arrp is grown to twice *cap (first when *cap is 0).
 * 0, or -ENOMEM with *arrp and *cap unchanged. */
int rk_grow(void *arrp, size_t *cap, size_t n, size_t elem, size_t first);

/* rk_grow for a T *v with capacity cap: RK_GROW(s->v, s->cap, s->n, 16). */
#define RK_GROW(v, cap, n, first) rk_grow(&(v), &(cap), (n), sizeof(*(v)), (first))

/* strcmp of two char * elements (a, b point at them): qsort and bsearch of name lists. */
int rk_cmp_str(const void *a, const void *b);

#endif
