/* pkg_defs_file.c: package definitions from a file or built in (rk/pkgdefs.h,
 * formats/packages/pkg_rules.h), and where they come from; util/file_read.h reads a file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk/pkgdefs.h"
#include "formats/packages/pkg_rules.h"
#include "util/file_read.h"

#define DEFS_MAX (64u << 20)

int pkg_defs_load(const char *path, struct pkg_defs *d, struct rk_err *err)
{
	char *text = NULL;
	size_t len = 0;
	int rc;

	if (!path) {
		size_t n = strspn(pkg_defs_default_source, "0123456789abcdef");

		if ((rc = pkg_defs_parse(pkg_defs_default, pkg_defs_default_len, d, err)))
			return rc;
		if (n == sizeof(d->commit) - 1)
			memcpy(d->commit, pkg_defs_default_source, n);
		return 0;
	}
	if ((rc = rk_file_read(path, DEFS_MAX, &text, &len)))
		return rk_err_set(err, rc, "package definitions '%s': %s", path, strerror(-rc));
	rc = pkg_defs_parse(text, len, d, err);
	free(text);
	return rc ? rk_err_wrap(err, rc, "'%s'", path) : 0;
}

char *pkg_defs_provenance(const struct pkg_defs *d, const char *path, const char *run_commit,
			  int *differs)
{
	char *s = NULL;
	int rc;

	*differs = 0;
	if (path)
		rc = asprintf(&s, "Definitions: %s (-o packages).", path);
	else if (!run_commit || !*run_commit)
		rc = asprintf(&s,
			      "Definitions: TheRock %.12s's package.json (built in); the run does "
			      "not name the TheRock commit it was built from.",
			      d->commit);
	else if (!strncmp(run_commit, d->commit, strlen(run_commit) < 7 ? 40 : strlen(run_commit)))
		rc = asprintf(&s,
			      "Definitions: TheRock %.12s's package.json (built in), the commit "
			      "the run was built from.",
			      d->commit);
	else {
		*differs = 1;
		rc = asprintf(&s,
			      "Definitions: TheRock %.12s's package.json (built in), not of "
			      "TheRock %.12s, which the run was built from: packages may differ "
			      "from upstream's for this run (-o packages=FILE takes that commit's "
			      "build_tools/packaging/linux/package.json).",
			      d->commit, run_commit);
	}
	return rc < 0 ? NULL : s;
}

int rk_pkg_defs_check(const char *path, struct rk_err *err)
{
	struct pkg_defs d;
	int rc = pkg_defs_load(path, &d, err);

	if (!rc)
		pkg_defs_release(&d);
	return rc;
}
