/* apt_index.h: the indexes of a flat apt repository of synthesized .debs:
 *
 *     pool/main/<p>/<name>/<name>_<version>_<arch>.deb      rk_apt_pool_path
 *     dists/stable/main/binary-amd64/Packages               rk_apt_packages
 *     dists/stable/main/binary-amd64/Packages.gz            rk_deb_gzip (deb_layout.h)
 *     dists/stable/Release                                  rk_apt_release
 *
 * apt reads it with "deb [trusted=yes] URI stable main" (the Release is not signed).
 * Pure: the caller gives every byte and the time; nothing here reads a clock or a file. */
#ifndef RK_APT_INDEX_H
#define RK_APT_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "formats/packages/pkg_meta.h"

/* One package of a Packages file. */
struct rk_apt_entry {
	const struct rk_pkg_meta *meta;
	const char *filename; /* the pool path (rk_apt_pool_path) */
	uint64_t size; /* of the .deb */
	const char *md5, *sha1, *sha256; /* of the .deb, lowercase hex */
};

/* The pool path Debian's archive (and reprepro) gives a package: "pool/main/" + the first
 * letter of the source name ("lib" and its fourth letter for lib*) + "/<source>/<name>_
 * <version>_<arch>.deb", the version without an epoch. The source is the package's own
 * name here. malloc'd, or NULL (ENOMEM). */
char *rk_apt_pool_path(const struct rk_pkg_meta *m);

/* The Packages file for e[0..n), in that order: each stanza is the package's control
 * stanza with Filename, Size, MD5sum, SHA1, SHA256 after its relations (dpkg-scanpackages'
 * layout, byte for byte), each followed by a blank line. *out is malloc'd text
 * (*len bytes, NUL-terminated). 0 or -ENOMEM/-EINVAL (as rk_deb_control). */
int rk_apt_packages(const struct rk_apt_entry *e, size_t n, char **out, size_t *len);

/* One index file the Release lists: its path below dists/stable/ and its bytes. */
struct rk_apt_file {
	const char *path; /* "main/binary-amd64/Packages" */
	const void *data;
	size_t len;
};

struct rk_apt_release_info {
	const char *origin, *label, *description; /* "" leaves a field out */
	int64_t date; /* seconds since the epoch; written in UTC, RFC 2822 */
};

/* dists/stable/Release: Origin, Label, Suite: stable, Codename: stable, Architectures:
 * amd64, Components: main, Description, Date (upload_package_repo.py's order), then the MD5Sum, SHA1 and SHA256
 * of files[0..n) with their sizes (apt-ftparchive's " <hash> <size:16> <path>" lines).
 * *out is malloc'd text (*len bytes). 0 or -ENOMEM/-EINVAL (a newline in a field, a date
 * out of range). */
int rk_apt_release(const struct rk_apt_release_info *r, const struct rk_apt_file *files, size_t n,
		   char **out, size_t *len);

/* For an all-runs repository (the release view's packages/deb/all/), as upstream's
 * aggregate_deb_metadata.py merges sources: the stanzas of Packages text (len bytes)
 * appended to out, each Filename's directory replaced by prefix ("Filename: pool/main/
 * x.deb" -> "Filename: <prefix>/x.deb"), the last stanza ended by a blank line too.
 * 0 or -ENOMEM. */
struct rk_buf;
int rk_apt_rebase(const char *text, size_t len, const char *prefix, struct rk_buf *out);

#endif
