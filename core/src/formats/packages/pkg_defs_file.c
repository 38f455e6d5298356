/* pkg_defs_file.c: package definitions from a file (rk/pkgdefs.h, formats/packages/pkg_rules.h);
 * util/file_read.h reads it. */
#include <errno.h>
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

	if (!path)
		return pkg_defs_parse(pkg_defs_default, pkg_defs_default_len, d, err);
	if ((rc = rk_file_read(path, DEFS_MAX, &text, &len)))
		return rk_err_set(err, rc, "package definitions '%s': %s", path, strerror(-rc));
	rc = pkg_defs_parse(text, len, d, err);
	free(text);
	return rc ? rk_err_wrap(err, rc, "'%s'", path) : 0;
}

int rk_pkg_defs_check(const char *path, struct rk_err *err)
{
	struct pkg_defs d;
	int rc = pkg_defs_load(path, &d, err);

	if (!rc)
		pkg_defs_release(&d);
	return rc;
}
