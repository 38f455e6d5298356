/* pkg_meta.h: what a native package says about itself, shared by the DEB writer
 * (formats/packages/deb_layout.h), the RPM writer (formats/packages/rpm_layout.h) and the repository
 * indexes (formats/packages/apt_index.h, formats/packages/rpm_repodata.h). The rules that compute these
 * values from TheRock's package definitions live in formats/packages/pkg_rules.h; this header is
 * only the hand-off. Strings are borrowed from the caller and never NULL unless said. */
#ifndef RK_PKG_META_H
#define RK_PKG_META_H

#include <stddef.h>
#include <stdint.h>

/* A maintainer script: DEB "preinst", "postinst", "prerm", "postrm"; the RPM writer maps
 * them to %pre, %post, %preun, %postun (interpreter /bin/sh unless the text starts with
 * "#!"). */
struct rk_pkg_script {
	const char *name;
	const char *text;
};

struct rk_pkg_meta {
	const char *name; /* amdrocm-fft7.13-gfx1100 */
	const char *version; /* the upstream version: 7.13.0~dev20261120 */
	const char *release; /* CI run id: DEB revision, RPM release; "" for none */
	const char *arch; /* DEB Architecture (amd64) / RPM BuildArch (x86_64) */
	const char *maintainer; /* "Name <mail>" */
	const char *summary; /* Description_Short */
	const char *description; /* Description_Long (one paragraph) */
	const char *section, *priority; /* DEB; may be "" */
	const char *homepage; /* may be "" */
	const char *license, *vendor, *group; /* RPM; may be "" */
	const char *prefix; /* install prefix (/opt/rocm/core-7.13): RPM Prefix */
	/* Relations as TheRock renders them for the package type (comma-separated; DEB
	 * "a, b( = 7.13.0-123), c|d", RPM "a, b = 7.13.0-123"); "" when empty. */
	const char *depends, *recommends, *suggests;
	const char *provides, *replaces, *conflicts, *obsoletes;
	uint64_t installed_size; /* sum of the regular files' sizes, bytes */
	int64_t mtime; /* build time: deterministic (the run's time), never "now" */
	const struct rk_pkg_script *scripts;
	size_t nscripts;
};

#endif
