/* nearest.c: edit distance and the nearest names (rk/nearest.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rk/nearest.h"

size_t rk_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), *row, d;

	/* one row of the table, over b; row[j] is the distance of a[0..i) to b[0..j) */
	row = malloc((lb + 1) * sizeof(*row));
	if (!row)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0]; /* the cell up and to the left */

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	d = row[lb];
	free(row);
	return d;
}

size_t rk_nearest_names(const char *name, const char *const *names, size_t n, size_t k, size_t *idx)
{
	size_t *dist, got = 0;

	if (!n || !k)
		return 0;
	dist = malloc(n * sizeof(*dist));
	if (!dist)
		return 0;
	for (size_t i = 0; i < n; i++)
		dist[i] = rk_edit_distance(name, names[i]);
	/* insertion into a short sorted list: k is a handful */
	for (size_t i = 0; i < n; i++) {
		size_t at = got;

		if (dist[i] == SIZE_MAX)
			continue;
		while (at > 0 && dist[idx[at - 1]] > dist[i])
			at--;
		if (at >= k)
			continue;
		if (got < k)
			got++;
		memmove(idx + at + 1, idx + at, (got - 1 - at) * sizeof(*idx));
		idx[at] = i;
	}
	free(dist);
	return got;
}
