/* test_view_options.c: docs/man/rockfs.8.md lists the views' options from their tables
 * (rk/vfs.h): its section between the two markers below is what the tables make, word
 * for word. When a table changes, rewrite the section with
 *     RK_MAN_WRITE=1 build/tests/unit/test_view_options man_page */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk/buf.h"
#include "rk/vfs.h"
#include "rk_fixture.h"
#include "rk_test.h"

#define BEGIN \
	"<!-- view options: made from the views' tables (tests/unit/test_view_options.c) -->\n"
#define END "<!-- end of the view options -->\n"
#define WIDTH 88

/* ": text", wrapped at WIDTH, continuation lines indented by two spaces. */
static int wrap(struct rk_buf *b, const char *man, const struct rk_vfs_opt_decl *d)
{
	struct rk_buf t = RK_BUF_INIT;
	const char *text;
	size_t col = 1;
	int rc = rk_buf_adds(&t, man);
	char flag[64];

	/* and the rockpack flag (as tools/cli_util.c spells it) */
	snprintf(flag, sizeof(flag), "--%s", d->name);
	for (char *c = flag; *c; c++)
		*c = *c == '_' ? '-' : *c;
	if (!rc && d->command)
		rc = rk_buf_addf(
			&t, " `rockpack %s`: `%s%s%s`%s%s%s.", d->command, d->flag ? d->flag : flag,
			d->flag_value || d->type == RK_VFS_OPT_FLAG ? "" : " ",
			d->flag_value		     ? ""
			: d->type == RK_VFS_OPT_LIST ? "NAME..."
						     : (d->type == RK_VFS_OPT_FLAG ? "" : d->arg),
			d->flag_value ? " ("
			: d->flag_def ? " (default `"
				      : "",
			d->flag_value ? d->flag_value
			: d->flag_def ? d->flag_def
				      : "",
			d->flag_value ? ")"
			: d->flag_def ? "`)"
				      : "");
	RK_ASSERT_EQ_INT(0, rc);
	text = t.buf;
	rc = rk_buf_adds(b, ":");

	for (const char *p = text; !rc && *p;) {
		size_t w = strcspn(p, " ");

		if (col > 2 && col + 1 + w > WIDTH) {
			rc = rk_buf_adds(b, "\n  ");
			col = 2;
		} else {
			rc = rk_buf_adds(b, " ");
			col++;
		}
		if (!rc)
			rc = rk_buf_addf(b, "%.*s", (int)w, p);
		col += w;
		p += w;
		p += *p == ' ';
	}
	rk_buf_release(&t);
	return rc ? rc : rk_buf_adds(b, "\n");
}

/* The section the tables make (between the markers). */
static char *section(void)
{
	struct rk_buf b = RK_BUF_INIT;
	const struct rk_vfs_opt_decl *d;
	int rc = 0;

	for (size_t i = 0; !rc && (d = rk_vfs_opt_at(i, NULL)); i++) {
		rc = rk_buf_addf(&b, "%s`-o %s%s%s`\n", i ? "\n" : "", d->name, d->arg ? "=" : "",
				 d->arg ? d->arg : "");
		if (!rc)
			rc = wrap(&b, d->man, d);
	}
	RK_ASSERT_EQ_INT(0, rc);
	return rk_buf_detach(&b, NULL);
}

RK_TEST(man_page)
{
	const char *slash = strrchr(__FILE__, '/');
	char path[4096], *man, *begin, *end, *want = section();
	size_t len;

	snprintf(path, sizeof(path), "%.*s/../../docs/man/rockfs.8.md", (int)(slash - __FILE__),
		 __FILE__);
	man = fx_read(path, &len);
	begin = strstr(man, BEGIN);
	end = begin ? strstr(begin, END) : NULL;
	if (!begin || !end)
		rk_test_fail(__FILE__, __LINE__, "%s: no section between '%.*s' and '%.*s'", path,
			     (int)strlen(BEGIN) - 1, BEGIN, (int)strlen(END) - 1, END);
	begin += strlen(BEGIN);
	if (getenv("RK_MAN_WRITE")) {
		FILE *f = fopen(path, "w");

		RK_ASSERT(f);
		fprintf(f, "%.*s%s%s", (int)(begin - man), man, want, end);
		RK_ASSERT_EQ_INT(0, fclose(f));
	} else if ((size_t)(end - begin) != strlen(want) || memcmp(begin, want, strlen(want))) {
		rk_test_fail(__FILE__, __LINE__,
			     "%s: its view options are not what the views' tables say; "
			     "`RK_MAN_WRITE=1 test_view_options man_page` rewrites them as:\n%s",
			     path, want);
	}
	free(want);
	free(man);
}

/* every option in the section, once, and nothing else: a term `-o NAME` each */
RK_TEST(section_lists_every_option)
{
	char *s = section();
	const struct rk_vfs_opt_decl *d;
	size_t n = 0;

	for (const char *p = s; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		n += !strncmp(p, "`-o ", 4); /* a term */
	for (size_t i = 0; (d = rk_vfs_opt_at(i, NULL)); i++) {
		char term[128];

		snprintf(term, sizeof(term), "`-o %s%s", d->name,
			 d->type == RK_VFS_OPT_FLAG ? "`" : "=");
		RK_ASSERT(strstr(s, term));
		RK_ASSERT(n-- > 0);
	}
	RK_ASSERT_EQ_INT(0, n);
	free(s);
}
