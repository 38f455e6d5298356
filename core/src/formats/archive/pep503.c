/* pep503.c: the simple index and --find-links pages (formats/archive/pep503.h). */
#include <stdio.h>
#include <string.h>

#include "rk/wheel.h"
#include "formats/archive/pep503.h"

/* Percent-encode everything but RFC 3986 unreserved characters. */
static int add_url(struct rk_buf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	int rc = 0;

	for (; !rc && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '_' || c == '.' || c == '~') {
			rc = rk_buf_add(b, s, 1);
		} else {
			char e[3] = {'%', hex[c >> 4], hex[c & 15]};

			rc = rk_buf_add(b, e, 3);
		}
	}
	return rc;
}

/* The page's start up to <body>, then h1 (when given), both HTML-escaped. */
static int add_head(struct rk_buf *b, const char *title, const char *h1)
{
	int rc = rk_buf_adds(b, "<!DOCTYPE html>\n<html>\n<head>\n"
				"<meta name=\"pypi:repository-version\" content=\"1.0\">\n<title>");

	if (!rc && !(rc = rk_buf_add_html(b, title)))
		rc = rk_buf_adds(b, "</title>\n</head>\n<body>\n");
	if (!rc && h1 && !(rc = rk_buf_adds(b, "<h1>")) && !(rc = rk_buf_add_html(b, h1)))
		rc = rk_buf_adds(b, "</h1>\n");
	return rc;
}

int rk_pep503_root(const struct rk_pyindex_file *f, size_t n, struct rk_buf *b)
{
	int rc = add_head(b, "Simple index", NULL);
	const char *last = NULL;

	for (size_t i = 0; !rc && i < n; i++) {
		if (f[i].family[0] || (last && !strcmp(f[i].project, last)))
			continue;
		last = f[i].project;
		if (!(rc = rk_buf_adds(b, "<a href=\"")) && !(rc = add_url(b, f[i].project)) &&
		    !(rc = rk_buf_adds(b, "/\">")) && !(rc = rk_buf_add_html(b, f[i].project)))
			rc = rk_buf_adds(b, "</a><br>\n");
	}
	return rc ? rc : rk_buf_adds(b, "</body>\n</html>\n");
}

int rk_pep503_project(const char *project, const struct rk_pyindex_file *files, size_t n,
		      struct rk_buf *b)
{
	char title[300];
	int rc;

	snprintf(title, sizeof(title), "Links for %s", project);
	rc = add_head(b, title, title);
	for (size_t i = 0; !rc && i < n; i++) {
		const struct rk_pyindex_file *f = &files[i];

		if (f->family[0])
			continue;
		if (!(rc = rk_buf_adds(b, "<a href=\"../../files/")) && !(rc = add_url(b, f->file)))
			rc = rk_buf_addf(b, "#sha256=%s\"", f->sha);
		if (!rc && f->requires_python &&
		    !(rc = rk_buf_adds(b, " data-requires-python=\"")) &&
		    !(rc = rk_buf_add_html(b, f->requires_python)))
			rc = rk_buf_adds(b, "\"");
		if (!rc && f->meta_sha)
			rc = rk_buf_addf(b,
					 " data-core-metadata=\"sha256=%s\""
					 " data-dist-info-metadata=\"sha256=%s\"",
					 f->meta_sha, f->meta_sha);
		if (!rc && !(rc = rk_buf_adds(b, ">")) && !(rc = rk_buf_add_html(b, f->file)))
			rc = rk_buf_adds(b, "</a><br>\n");
	}
	return rc ? rc : rk_buf_adds(b, "</body>\n</html>\n");
}

/* Whether family has a served file of project in python/<family>/ (which then replaces
 * the generic ones on its page). */
static int own_file(const struct rk_pyindex_file *f, size_t n, const char *project,
		    const char *family)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(f[i].family, family) && !strcmp(f[i].project, project))
			return 1;
	return 0;
}

/* A --find-links page as TheRock's upload step writes it (generate_local_index.py,
 * indexer.py): one link per served file, href <up>files/<file>. family < 0: every file
 * (python/index.html); else family's page: its files and those of no family (every
 * family's libraries wheel among them, as upstream's generate_multiarch_indexes links
 * all of dist/), without the kpack-split wheels of stored fat ones (upstream's
 * per-family sets have none). */
int rk_pep503_flat(const struct rk_pyindex_file *files, size_t n, const char *family,
		   struct rk_buf *b)
{
	char title[300];
	int rc;

	if (!family)
		snprintf(title, sizeof(title), "Package Index");
	else
		snprintf(title, sizeof(title), "ROCm Python Packages - %s", family);
	rc = add_head(b, title, title);
	for (size_t i = 0; !rc && i < n; i++) {
		const struct rk_pyindex_file *f = &files[i];

		if (f->family[0] && (!family || strcmp(f->family, family)))
			continue;
		if (family && (f->split_product ||
			       (!f->family[0] && own_file(files, n, f->project, family))))
			continue;
		if (!(rc = rk_buf_adds(b, f->family[0] ? "<a href=\"./"
					  : !family    ? "<a href=\"files/"
						       : "<a href=\"../files/")) &&
		    !(rc = add_url(b, f->file)) && !(rc = rk_buf_adds(b, "\">")) &&
		    !(rc = rk_buf_add_html(b, f->file)))
			rc = rk_buf_adds(b, "</a><br>\n");
	}
	return rc ? rc : rk_buf_adds(b, "</body>\n</html>\n");
}

/* The structured product-local index of TheRock's release buckets
 * (build_tools/packaging/python/manage_structured.py, render_root_page and
 * render_package_page): lines joined by "\n", no newline at the end; upstream's last line,
 * a "<!--TIMESTAMP <now>-->" comment, is left out (the page would change on every
 * read). */
int rk_pep503_structured_root(const char *const *projects, size_t n, struct rk_buf *b)
{
	int rc = rk_buf_adds(b, "<!DOCTYPE html>\n<html>\n  <body>");

	for (size_t i = 0; !rc && i < n; i++)
		rc = rk_buf_addf(b, "\n    <a href=\"%s/\">%s</a><br/>", projects[i], projects[i]);
	return rc ? rc : rk_buf_adds(b, "\n  </body>\n</html>");
}

int rk_pep503_structured_project(const char *project, const char *const *files, size_t n,
				 struct rk_buf *b)
{
	int rc = rk_buf_adds(b, "<!DOCTYPE html>\n<html>\n  <body>\n    <h1>Links for ");

	if (!rc && !(rc = rk_buf_adds(b, project)))
		rc = rk_buf_adds(b, "</h1>");
	for (size_t i = 0; !rc && i < n; i++) {
		/* href: quote(file) (a name has no '/'), the text: html.escape(file) */
		if (!(rc = rk_buf_adds(b, "\n    <a href=\"")) && !(rc = add_url(b, files[i])) &&
		    !(rc = rk_buf_adds(b, "\">")) && !(rc = rk_buf_add_html(b, files[i])))
			rc = rk_buf_adds(b, "</a><br/>");
	}
	return rc ? rc : rk_buf_adds(b, "\n  </body>\n</html>");
}
