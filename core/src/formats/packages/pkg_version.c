/* pkg_version.c: the DEB and RPM version of a run from its wheel version
 * (formats/packages/pkg_version.h).
 *
 * compute_rocm_package_version.py makes the wheel, DEB and RPM versions of one build
 * from one base X.Y.Z and one date (the day its CI run computed them):
 *   release      X.Y.Z                  X.Y.Z                 X.Y.Z
 *   prerelease   X.Y.ZrcN               X.Y.Z~preN            X.Y.Z~rcN
 *   nightly      X.Y.ZaDATE             X.Y.Z~DATE            X.Y.Z~DATE
 *   nightly-bkc  X.Y.ZaBASE+bkc.DATE    X.Y.Z~BASE.bkc.DATE   (same as DEB)
 *   dev / ci     X.Y.Z.dev0+SHA         X.Y.Z~devDATE         X.Y.Z~DATEgSHA8
 * PEP 440 orders the wheel versions dev < nightly < nightly-bkc < rc < release. Two of
 * upstream's native versions do not: dpkg puts "~devDATE" above "~DATE" (a letter after
 * "~" beats a digit) and rpm puts "~rcN" below "~DATE" (a numeric segment beats an
 * alphabetic one). We deviate as little as orders them (docs/packages.md, "Versions"):
 * a dev build gets a second "~" (DEB X.Y.Z~~devDATE, RPM X.Y.Z~~DATEgSHA8), and an RPM
 * nightly spells PEP 440's "a" (X.Y.Z~aDATE, X.Y.Z~aBASE.bkc.DATE). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/packages/pkg_version.h"

static size_t digits(const char *s)
{
	return strspn(s, "0123456789");
}

static int is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return n > 0;
}

enum pkg_vkind pkg_version_kind(const char *w, size_t *base, const char **rest)
{
	size_t n = 0, d;
	const char *r;

	while (isdigit((unsigned char)w[n])) {
		n += digits(w + n);
		if (w[n] != '.' || !isdigit((unsigned char)w[n + 1]))
			break;
		n++;
	}
	r = w + n;
	*base = n;
	*rest = r;
	if (!n)
		return PKG_V_OTHER;
	if (!*r)
		return PKG_V_FINAL;
	if (!strncmp(r, "rc", 2) && (d = digits(r + 2)) && !r[2 + d])
		return PKG_V_RC;
	if (*r == 'a' && (d = digits(r + 1))) {
		const char *t = r + 1 + d;
		size_t e;

		if (!*t)
			return PKG_V_NIGHTLY;
		if (!strncmp(t, "+bkc.", 5) && (e = digits(t + 5)) && !t[5 + e])
			return PKG_V_BKC;
	}
	if (!strncmp(r, ".dev", 4) && (d = digits(r + 4)) && (!r[4 + d] || r[4 + d] == '+'))
		return PKG_V_DEV;
	return PKG_V_OTHER;
}

char *pkg_version_from_wheel(const char *w, const char *date, const char *commit,
			     enum pkg_type type)
{
	size_t n, d;
	const char *r, *sha = NULL, *plus;
	char *out = NULL;
	int rc = 0, deb = type == PKG_DEB;

	switch (pkg_version_kind(w, &n, &r)) {
	case PKG_V_FINAL:
	case PKG_V_OTHER:
		return strndup(w, n);
	case PKG_V_RC:
		rc = asprintf(&out, "%.*s~%s%s", (int)n, w, deb ? "pre" : "rc", r + 2);
		break;
	case PKG_V_NIGHTLY:
		rc = asprintf(&out, "%.*s~%s%s", (int)n, w, deb ? "" : "a", r + 1);
		break;
	case PKG_V_BKC:
		d = digits(r + 1);
		rc = asprintf(&out, "%.*s~%s%.*s.bkc.%s", (int)n, w, deb ? "" : "a", (int)d, r + 1,
			      r + 1 + d + 5);
		break;
	case PKG_V_DEV:
		/* the commit: the wheel's local label (upstream's GITHUB_SHA), else the
		 * manifest's the_rock_commit */
		plus = strchr(r, '+');
		if (plus && is_hex(plus + 1, strlen(plus + 1)))
			sha = plus + 1;
		else if (commit && is_hex(commit, strlen(commit)))
			sha = commit;
		if (!date || !*date) /* no build day known: the run id orders dev builds */
			rc = asprintf(&out, "%.*s~~dev", (int)n, w);
		else if (deb)
			rc = asprintf(&out, "%.*s~~dev%s", (int)n, w, date);
		else
			rc = asprintf(&out, "%.*s~~%s%s%.*s", (int)n, w, date, sha ? "g" : "",
				      sha ? 8 : 0, sha ? sha : "");
		break;
	}
	return rc < 0 ? NULL : out;
}
