/* deb_layout.h: a Debian binary package (.deb) as a composite file (rk/composite.h).
 *
 * The package is an ar archive as dpkg-deb writes it: "!<arch>\n", then the members
 * debian-binary ("2.0\n"), control.tar.gz (small: built here, in memory) and data.tar,
 * uncompressed, whose bytes are the caller's composite appended as is (the files' cache
 * blobs), so the package has an exact size and random access without a copy; or
 * data.tar.zst / data.tar.xz, the caller's compressed composite (its pieces cached). Debian 12's
 * dpkg 1.21 reads data.tar uncompressed (dpkg-deb(1): "data.tar", ".gz", ".xz", ".zst",
 * ".bz2", ".lzma"; control.tar with "", ".gz", ".xz", ".zst").
 *
 * The control stanza follows TheRock's template (build_tools/packaging/linux/template/
 * debian_control.j2, built by dpkg-buildpackage) in the order dpkg-gencontrol writes
 * binary control fields (Dpkg::Control::FieldsCore, CTRL_PKG_DEB). Pure: no clock (every
 * time is m->mtime), no cache, no I/O; the same meta and data give the same bytes. */
#ifndef RK_DEB_LAYOUT_H
#define RK_DEB_LAYOUT_H

#include <stddef.h>

#include "formats/packages/pkg_meta.h"
#include "rk/composite.h"

/* The binary control stanza (DEBIAN/control): Package, Version ("version-release", or
 * "version" when release is ""), Architecture, Maintainer, Installed-Size (KiB, rounded
 * up, from m->installed_size), Depends, Recommends, Suggests, Conflicts, Replaces,
 * Provides (each only when not ""), Section, Priority, Homepage (when not ""), then
 * Description: the summary and m->description as continuation lines (" text", an empty
 * line as " ."). Ends in "\n". Returns malloc'd text, or NULL with errno ENOMEM, or
 * EINVAL when a field would break the stanza (empty name, version, arch or summary; a
 * newline in a one-line field). */
char *rk_deb_control(const struct rk_pkg_meta *m);

/* The same stanza with extra (whole "Field: value\n" lines, may be "") where a Packages
 * index puts Filename, Size and the checksums: after the relations, before Section (the
 * order of dpkg-scanpackages, CTRL_INDEX_PKG). NULL with errno as rk_deb_control. */
char *rk_deb_stanza(const struct rk_pkg_meta *m, const char *extra);

/* The version as dpkg shows it: "version-release", or "version" when release is "".
 * malloc'd, or NULL (ENOMEM). */
char *rk_deb_version(const struct rk_pkg_meta *m);

/* The whole .deb for meta m over data_tar (an uncompressed tar of the package's files,
 * e.g. formats/archive/tar_layout.h; its sources are added to out's table). The control member
 * holds ./, ./control and m->scripts (preinst, postinst, prerm, postrm, config; mode
 * 0755), all owned by 0/0 with mtime m->mtime. 0 or -ENOMEM/-EINVAL (bad meta, an
 * unknown or repeated script name); *out (release with rk_composite_release) is
 * written only on success. */
int rk_deb_build(const struct rk_pkg_meta *m, const struct rk_composite *data_tar,
		 struct rk_composite *out);

/* The same with data (the data member's bytes, already compressed as data_name says:
 * "data.tar", "data.tar.zst", "data.tar.xz"; dpkg-deb(1) picks the decompressor by the
 * name) for data.tar. -EINVAL for a name that is no data.tar member's. */
int rk_deb_build_data(const struct rk_pkg_meta *m, const struct rk_composite *data,
		      const char *data_name, struct rk_composite *out);

/* A deterministic gzip of p[0..len) (as "gzip -9n": no name, mtime 0): control.tar.gz
 * and Packages.gz. *out is malloc'd (*outlen bytes). 0 or -ENOMEM/-EFBIG (over 4 GiB)/-EIO. */
int rk_deb_gzip(const void *p, size_t len, void **out, size_t *outlen);

#endif
