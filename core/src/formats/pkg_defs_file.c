/* pkg_defs_file.c: package definitions from a file (rk/pkgdefs.h, formats/pkg_rules.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk/pkgdefs.h"
#include "formats/pkg_rules.h"

#define DEFS_MAX (64u << 20)

/* The whole regular file at path (at most max bytes), NUL-terminated. 0 or -errno. */
static int read_file(const char *path, size_t max, char **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 0;
	struct stat sb;
	char *buf = NULL;
	ssize_t r;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb))
		rc = -errno;
	else if (!S_ISREG(sb.st_mode))
		rc = -EINVAL;
	else if ((uint64_t)sb.st_size > max)
		rc = -EFBIG;
	else if (!(buf = malloc((size_t)sb.st_size + 1)))
		rc = -ENOMEM;
	else if ((r = pread(fd, buf, (size_t)sb.st_size, 0)) != sb.st_size)
		rc = r < 0 ? -errno : -EIO;
	close(fd);
	if (rc) {
		free(buf);
		return rc;
	}
	buf[sb.st_size] = '\0';
	*out = buf;
	*len = (size_t)sb.st_size;
	return 0;
}

int pkg_defs_load(const char *path, struct pkg_defs *d, struct rk_err *err)
{
	char *text = NULL;
	size_t len = 0;
	int rc;

	if (!path)
		return pkg_defs_parse(pkg_defs_default, pkg_defs_default_len, d, err);
	if ((rc = read_file(path, DEFS_MAX, &text, &len)))
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
