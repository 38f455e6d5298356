/* artifact_name.c: TheRock's archive and run directory name rules, regex-free
 * (rk/artifact.h). A leaf (libc only): the catalog, the remote stores and the engine
 * all use it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rk/artifact.h"

static const struct {
	const char *suffix;
	enum rk_compression comp;
} suffixes[] = {{".tar.zst", RK_COMP_ZSTD}, {".tar.xz", RK_COMP_XZ}};

int rk_artifact_name_parse(const char *filename, struct rk_artifact_name *out)
{
	size_t len = strlen(filename), stem = 0;
	enum rk_compression comp = RK_COMP_NONE;
	const char *f[3], *end;
	size_t flen[3];

	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t sl = strlen(suffixes[i].suffix);

		if (len > sl && !strcmp(filename + len - sl, suffixes[i].suffix)) {
			stem = len - sl;
			comp = suffixes[i].comp;
			break;
		}
	}
	if (comp == RK_COMP_NONE)
		return -EINVAL;
	/* ^([^_]+)_([^_]+)_([^_]+)$ over the stem; '/' never appears in a file name */
	end = filename + stem;
	f[0] = filename;
	for (int i = 0; i < 3; i++) {
		const char *p = f[i];

		while (p < end && *p != '_' && *p != '/' && *p != '\0')
			p++;
		flen[i] = (size_t)(p - f[i]);
		if (flen[i] == 0 || flen[i] >= RK_ARTIFACT_FIELD)
			return -EINVAL;
		if (i < 2) {
			if (p >= end || *p != '_')
				return -EINVAL;
			f[i + 1] = p + 1;
		} else if (p != end) {
			return -EINVAL;
		}
	}
	memcpy(out->name, f[0], flen[0]);
	out->name[flen[0]] = '\0';
	memcpy(out->component, f[1], flen[1]);
	out->component[flen[1]] = '\0';
	memcpy(out->target, f[2], flen[2]);
	out->target[flen[2]] = '\0';
	out->compression = comp;
	return 0;
}

int rk_artifact_stem(const struct rk_artifact_name *a, char *out, size_t n)
{
	int len = snprintf(out, n, "%s_%s_%s", a->name, a->component, a->target);

	if (len < 0 || (size_t)len >= n)
		return -ENAMETOOLONG;
	return len;
}

int rk_component_is_standard(const char *component)
{
	static const char *const std[] = {"lib", "run", "dbg", "dev", "doc", "test"};

	for (size_t i = 0; i < sizeof(std) / sizeof(std[0]); i++)
		if (!strcmp(std[i], component))
			return 1;
	return 0;
}

int rk_run_name_valid(const char *name)
{
	size_t d = strspn(name, "0123456789");

	if (d == 0 && !strncmp(name, "local-", 6)) /* WorkflowOutputRoot.for_local */
		d = 5;
	if (d == 0 || name[d] != '-' || !name[d + 1])
		return 0;
	return strspn(name + d + 1, "abcdefghijklmnopqrstuvwxyz") == strlen(name + d + 1);
}
