/* rpm_repodata.h: the repodata/ of a directory of RPM packages (formats/packages/rpm_layout.h), as
 * createrepo_c 0.17 writes it with --simple-md-filenames (as TheRock's
 * upload_package_repo.py runs it): primary, filelists and other .xml.gz named
 * "<type>.xml.gz", and repomd.xml with their sha256 checksums,
 * open checksums, sizes and timestamps. The XML is written by hand (libcreaterepo_c
 * would bring glib and write files); the gzip streams are libdeflate's, so bytes differ
 * from createrepo_c's while the parsed content is the same (the tests compare).
 *
 * Deliberately not like createrepo_c: no sqlite databases (dnf and yum read the XML);
 * file/@time in primary is the given time (createrepo_c takes the file's mtime). */
#ifndef RK_RPM_REPODATA_H
#define RK_RPM_REPODATA_H

#include <stddef.h>
#include <stdint.h>

#include "formats/packages/pkg_meta.h"
#include "formats/packages/rpm_layout.h"

/* One package of the repository. */
struct rk_rpm_pkg {
	const struct rk_pkg_meta *meta;
	const struct rk_rpm_file *files; /* as given to rk_rpm_build */
	size_t nfiles;
	const char *location; /* href, relative to the repository: "x-1.0-1.x86_64.rpm" */
	uint64_t size; /* of the .rpm */
	const char *sha256; /* of the .rpm (hex): the pkgid */
	struct rk_rpm_info info; /* from rk_rpm_build */
};

enum {
	RK_REPODATA_PRIMARY,
	RK_REPODATA_FILELISTS,
	RK_REPODATA_OTHER,
	RK_REPODATA_REPOMD,
	RK_REPODATA_NFILES
};

struct rk_repodata_file {
	char name[96]; /* "repodata/primary.xml.gz", ..., "repodata/repomd.xml" */
	char sha256[65]; /* of data (the .gz files) */
	char *data; /* malloc'd */
	size_t len;
};

struct rk_rpm_repodata {
	struct rk_repodata_file files[RK_REPODATA_NFILES];
};

/* The repodata of pkgs[0..n) in that order (createrepo_c's: by location), every
 * timestamp and the revision = time. 0 or -ENOMEM/-EINVAL; *out (release with
 * rk_rpm_repodata_release) is written only on success. */
int rk_rpm_repodata_build(const struct rk_rpm_pkg *pkgs, size_t n, int64_t time,
			  struct rk_rpm_repodata *out);
void rk_rpm_repodata_release(struct rk_rpm_repodata *r);

/* An all-runs repository (the release view's packages/rpm/all/) from the repositories of
 * several runs, as upstream's aggregate_rpm_metadata.py merges sources: each source's
 * entries kept, their location below a prefix, a new repomd.xml.
 * rk_repodata_part: of one repository's primary, filelists and other XML (uncompressed,
 * as rk_rpm_repodata_build writes them), appended to out: "<count>\f<primary's packages,
 * each location href below prefix/>\f<filelists' packages>\f<other's packages>" (XML
 * holds no form feed). 0, -EINVAL (not such a document) or -ENOMEM.
 * rk_rpm_repodata_merge: the repodata of parts[0..n) (each lens[i] bytes) in that order,
 * every timestamp and the revision = time. 0 or -EINVAL/-ENOMEM. */
struct rk_buf;
int rk_repodata_part(const char *const xml[3], const size_t len[3], const char *prefix,
		     struct rk_buf *out);
int rk_rpm_repodata_merge(const char *const *parts, const size_t *lens, size_t n, int64_t time,
			  struct rk_rpm_repodata *out);

#endif
