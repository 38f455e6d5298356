/* rk/nearest.h: the names closest to a misspelt one (edit distance), for "did you mean"
 * messages. Pure; thread-safe. */
#ifndef RK_NEAREST_H
#define RK_NEAREST_H

#include <stddef.h>

/* The Levenshtein distance between a and b (insert, delete, substitute: 1 each), or
 * (size_t)-1 when memory runs out. */
size_t rk_edit_distance(const char *a, const char *b);

/* The indexes of the (at most) k names in names[0..n) closest to name, closest first;
 * equal distances keep the order of names. Writes them to idx (room for k) and returns
 * how many it wrote (min(k, n); 0 when memory runs out). */
size_t rk_nearest_names(const char *name, const char *const *names, size_t n, size_t k,
			size_t *idx);

#endif
