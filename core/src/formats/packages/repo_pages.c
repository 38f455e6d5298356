/* repo_pages.c: the release buckets' package directory pages (repo_pages.h). */
#include "formats/packages/repo_pages.h"

/* upstream's HTML_HEAD (with its SVG_DEFS) and HTML_FOOT */
static const char head[] =
	"<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>artifacts</title>\n"
	"</head>\n<body>\n"
	"<svg xmlns=\"http://www.w3.org/2000/svg\" style=\"display:none\">\n<defs>\n"
	"  <symbol id=\"file\" viewBox=\"0 0 265 323\">\n"
	"    <path fill=\"#4582ec\" d=\"M213 115v167a41 41 0 01-41 41H69a41 41 0 01-41-41V39a39 "
	"39 0 0139-39h127a39 39 0 0139 39v76z\"/>\n"
	"    <path fill=\"#77a4ff\" d=\"M176 17v88a19 19 0 0019 19h88\"/>\n"
	"  </symbol>\n"
	"  <symbol id=\"folder-shortcut\" viewBox=\"0 0 265 216\">\n"
	"    <path fill=\"#4582ec\" d=\"M18 54v-5a30 30 0 0130-30h75a28 28 0 0128 28v7h77a30 30 "
	"0 0130 30v84a30 30 0 01-30 30H33a30 30 0 01-30-30V54z\"/>\n"
	"  </symbol>\n</defs>\n</svg>\n\n<table>\n<tbody>\n";
static const char foot[] = "\n</tbody>\n</table>\n</body>\n</html>\n";

int rk_repo_page(const char *const *dirs, size_t ndirs, const char *const *files, size_t nfiles,
		 struct rk_buf *b)
{
	int rc = rk_buf_adds(b, head);

	for (size_t i = 0; !rc && i < ndirs + nfiles; i++) {
		const char *s = i < ndirs ? dirs[i] : files[i - ndirs];

		rc = i < ndirs
			     ? rk_buf_addf(b,
					   "%s<tr><td><a href=\"%s/index.html\">%s/</a></td></tr>",
					   i ? "\n" : "", s, s)
			     : rk_buf_addf(b, "%s<tr><td><a href=\"%s\">%s</a></td></tr>",
					   i ? "\n" : "", s, s);
	}
	return rc ? rc : rk_buf_adds(b, foot);
}
