/* size.c: human-readable byte sizes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk/size.h"

int rk_size_parse(const char *s, uint64_t *out)
{
	static const char units[] = "KMGTP";
	unsigned long long v;
	const char *u;
	char *end;
	int shift = 0;

	if (!s || *s < '0' || *s > '9') /* strtoull would skip blanks and take a sign */
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	if (*end) {
		u = strchr(units, end[0] & ~0x20);
		if (!u || !*u)
			return -EINVAL;
		shift = 10 * (int)(u - units + 1);
		end++;
		if ((*end & ~0x20) == 'I')
			end++;
		if ((*end & ~0x20) == 'B')
			end++;
		if (*end)
			return -EINVAL;
	}
	if (shift && v > (UINT64_MAX >> shift))
		return -EINVAL;
	*out = (uint64_t)v << shift;
	return 0;
}

void rk_size_format(uint64_t v, char *out, size_t n)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	double d = (double)v;
	int i = 0;

	while (d >= 1024 && i < 5) {
		d /= 1024;
		i++;
	}
	if (i == 0)
		snprintf(out, n, "%llu B", (unsigned long long)v);
	else
		snprintf(out, n, "%.1f %s", d, units[i]);
}
