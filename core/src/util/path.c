/* path.c: lexical path checks for untrusted input. */
#include <errno.h>
#include <string.h>

#include "rk/buf.h"
#include "rk/path.h"

#define RK_STR_(x) #x
#define RK_STR(x) RK_STR_(x)

int rk_path_normalize(const char *in, char *out, size_t n)
{
	size_t len = 0;
	const char *p = in;

	while (*p) {
		size_t c;

		while (*p == '/')
			p++;
		c = strcspn(p, "/");
		if (c == 0)
			break;
		if (c == 1 && p[0] == '.') {
			p += c;
			continue;
		}
		if (c == 2 && p[0] == '.' && p[1] == '.')
			return -EINVAL;
		if (len + (len ? 1 : 0) + c + 1 > n)
			return -ENAMETOOLONG;
		if (len)
			out[len++] = '/';
		memcpy(out + len, p, c);
		len += c;
		p += c;
	}
	if (n)
		out[len] = '\0';
	return (int)len;
}

int rk_path_link_escapes(const char *path, const char *target)
{
	long depth = 0;
	int named = 0; /* a name component has been seen */
	const char *p;

	if (target[0] == '/' || target[0] == '\0')
		return 1;
	/* depth of the directory holding the link */
	for (p = path; *p; p++)
		if (*p == '/')
			depth++;
	for (p = target; *p;) {
		size_t c = strcspn(p, "/");

		if (c == 2 && p[0] == '.' && p[1] == '.') {
			/* ".." after a name could climb out of wherever a symlink by that name
			 * points: only a leading run of ".." is allowed */
			if (named || --depth < 0)
				return 1;
		} else if (c && !(c == 1 && p[0] == '.')) {
			depth++;
			named = 1;
		}
		p += c;
		while (*p == '/')
			p++;
	}
	return 0;
}

const char *rk_path_unwritable(const char *path)
{
	const unsigned char *p = (const unsigned char *)path;
	size_t comp = 0, len = strlen(path);

	if (len > RK_PATH_OUT_MAX)
		return "path over " RK_STR(RK_PATH_OUT_MAX) " bytes";
	while (*p) {
		size_t n = rk_utf8_len((const char *)p);

		if (!n)
			return "name not in UTF-8";
		if (*p < 0x20 || *p == 0x7f)
			return "control character in name";
		comp = *p == '/' ? 0 : comp + n;
		if (comp > 255)
			return "name component over 255 bytes";
		p += n;
	}
	return NULL;
}
