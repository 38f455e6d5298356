/* pkg_doc.h: the documentation file every DEB owns, as TheRock's do.
 *
 * TheRock's deb_package.py writes debian/changelog from template/debian_changelog.j2 and
 * its debian/rules (override_dh_installchangelogs) installs it as
 * <install prefix>/share/doc/<package>/changelog.Debian, then gzip -9; its
 * override_dh_installdocs installs nothing else (no copyright file), and its RPM spec has
 * no %doc or %license (%files is the install prefix alone). The changelog is what makes
 * every DEB own a file of its own: a meta package holding only shared directories is
 * "completely replaced" for dpkg as soon as another package holding them is unpacked, and
 * dpkg then drops it without running its prerm.
 *
 * Pure: no clock, no I/O; the same meta and time give the same bytes. */
#ifndef RK_PKG_DOC_H
#define RK_PKG_DOC_H

#include <stddef.h>
#include <stdint.h>

#include "formats/packages/pkg_meta.h"

/* The changelog's path below the install prefix: "share/doc/<name>/changelog.Debian.gz".
 * malloc'd, or NULL (ENOMEM). */
char *rk_deb_changelog_path(const struct rk_pkg_meta *m);

/* The changelog text as TheRock's template renders it (no newline at the end, as Jinja
 * leaves it): "<name> (<version>-<release>) UNRELEASED; urgency=medium\n  * Initial
 * release\n\n -- <maintainer name> <<mail>>  <date>", the date RFC 2822 in UTC from when
 * (upstream's is the build's "now"; here the run's time). malloc'd, or NULL with errno
 * ENOMEM, EINVAL (no name or version, when < 0). */
char *rk_deb_changelog(const struct rk_pkg_meta *m, int64_t when);

/* The changelog gzip'd as "gzip -9n" does (no name, mtime 0): *out malloc'd, *outlen
 * bytes. 0 or -ENOMEM/-EINVAL/-EIO. */
int rk_deb_changelog_gz(const struct rk_pkg_meta *m, int64_t when, void **out, size_t *outlen);

#endif
