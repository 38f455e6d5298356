/* pkg_doc.c: a DEB's changelog.Debian.gz (pkg_doc.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "formats/packages/deb_layout.h"
#include "formats/packages/pkg_doc.h"
#include "rk/buf.h"

char *rk_deb_changelog_path(const struct rk_pkg_meta *m)
{
	struct rk_buf b = RK_BUF_INIT;

	if (rk_buf_addf(&b, "share/doc/%s/changelog.Debian.gz", m->name))
		return NULL;
	return rk_buf_detach(&b, NULL);
}

/* email.utils.format_datetime of a UTC time: "Tue, 14 Nov 2023 22:13:20 +0000" (English
 * names whatever the locale). */
static int rfc2822(struct rk_buf *b, int64_t when)
{
	static const char days[] = "SunMonTueWedThuFriSat";
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	time_t t = (time_t)when;
	struct tm tm;

	if (!gmtime_r(&t, &tm))
		return -EINVAL;
	return rk_buf_addf(b, "%.3s, %02d %.3s %04d %02d:%02d:%02d +0000", days + 3 * tm.tm_wday,
			   tm.tm_mday, months + 3 * tm.tm_mon, tm.tm_year + 1900, tm.tm_hour,
			   tm.tm_min, tm.tm_sec);
}

char *rk_deb_changelog(const struct rk_pkg_meta *m, int64_t when)
{
	struct rk_buf b = RK_BUF_INIT;
	const char *mt = m->maintainer ? m->maintainer : "", *lt = strchr(mt, '<');
	char *version = NULL;
	size_t nl;
	int rc = -EINVAL;

	if (!*m->name || !*m->version || when < 0)
		goto out;
	rc = -ENOMEM;
	if (!(version = rk_deb_version(m)))
		goto out;
	/* deb_package.py: name = before '<', stripped; mail = after it, '>' removed */
	nl = lt ? (size_t)(lt - mt) : strlen(mt);
	while (nl && (mt[nl - 1] == ' ' || mt[nl - 1] == '\t'))
		nl--;
	while (nl && (*mt == ' ' || *mt == '\t'))
		mt++, nl--;
	if ((rc = rk_buf_addf(&b,
			      "%s (%s) UNRELEASED; urgency=medium\n"
			      "  * Initial release\n"
			      "\n"
			      " -- %.*s <",
			      m->name, version, (int)nl, mt)))
		goto out;
	for (const char *p = lt ? lt + 1 + strspn(lt + 1, " \t") : ""; !rc && *p; p++)
		if (*p != '>')
			rc = rk_buf_addf(&b, "%c", *p);
	/* (the mail stripped of blanks around it) */
	while (!rc && b.len && (b.buf[b.len - 1] == ' ' || b.buf[b.len - 1] == '\t'))
		b.buf[--b.len] = '\0';
	if (!rc)
		rc = rk_buf_adds(&b, ">  ");
	if (!rc)
		rc = rfc2822(&b, when);
out:
	free(version);
	if (rc) {
		rk_buf_release(&b);
		errno = -rc;
		return NULL;
	}
	return rk_buf_detach(&b, NULL);
}

int rk_deb_changelog_gz(const struct rk_pkg_meta *m, int64_t when, void **out, size_t *outlen)
{
	char *text = rk_deb_changelog(m, when);
	int rc;

	if (!text)
		return -errno;
	rc = rk_deb_gzip(text, strlen(text), out, outlen);
	free(text);
	return rc;
}
