/* rpm_layout.h: a binary RPM package as a composite file (rk/composite.h), never written.
 *
 * The package is what rpmbuild 4.18 writes for a spec whose %files owns the install
 * prefix and everything below it (TheRock's rpm_specfile.j2), built with
 * `--define '_binary_payload w.ufdio'`: an UNCOMPRESSED cpio payload. rpm 4.18 installs,
 * verifies (rpm -K) and unpacks (rpm2cpio) such packages, and dnf installs them; the
 * tests check each. Uncompressed is what lets file contents stay cache blobs: the lead,
 * the signature header, the main header and the cpio headers are literal bytes, every
 * regular file's bytes are a source (a whole blob, or a composite appended), so the
 * size is exact before any byte is read and any offset can be read directly. With
 * rk_rpm_build_compressed the payload is the caller's compressed composite instead
 * (-o packages_compress: the cpio cut into cached zstd or xz pieces).
 *
 * Deliberately not like rpmbuild, because each would need every byte of every file: no
 * MD5 over header+payload and no payload digest (rpm -K reports the header digests);
 * no automatic requires/provides from file contents (sonames, interpreters of
 * scripts in the payload); FILECOLORS 0 and an empty FILECLASS for every non-directory
 * (rpmbuild asks libmagic). Files of 4 GiB or more are refused (-EFBIG): newc cpio sizes
 * are 32 bits, and rpm's large-file payload form ("07070X", rpmlib(LargeFiles)) is not
 * written here. */
#ifndef RK_RPM_LAYOUT_H
#define RK_RPM_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "rk/composite.h"
#include "formats/packages/pkg_meta.h"

/* One file of the package, sorted by path (strcmp); directories included, the prefix
 * directory first. */
struct rk_rpm_file {
	const char *path; /* absolute: /opt/rocm/core-7.13/lib/x.so */
	uint32_t mode; /* S_IFDIR / S_IFREG / S_IFLNK | permissions */
	uint64_t size; /* regular files */
	int64_t mtime;
	const char *link; /* symlink target */
	const char *digest; /* sha256 hex of a regular file's bytes */
	/* A regular file's content (size > 0): the whole cache blob `blob` (sha256 hex
	 * id, size bytes; origin may be NULL), or else `content` (size bytes). */
	const char *blob;
	struct rk_origin *origin;
	const struct rk_composite *content;
};

struct rk_rpm_info {
	uint64_t header_start, header_end; /* byte range of the main header (repodata) */
	uint64_t payload_size; /* the cpio archive's size (repodata's size/@archive) */
	uint64_t installed_size; /* the header's SIZE: every non-directory's size */
};

/* Build the package. 0 or -ENOMEM / -EINVAL (bad paths, order, missing content) /
 * -EFBIG (a file of 4 GiB or more); *out (release with rk_composite_release) and *info
 * (may be NULL) are written only on success. */
int rk_rpm_build(const struct rk_pkg_meta *m, const struct rk_rpm_file *files, size_t n,
		 struct rk_composite *out, struct rk_rpm_info *info);

/* A package whose payload is compressed (rpmbuild's w<level>.zstdio, w<level>.xzdio):
 * the cpio archive of rk_rpm_payload, compressed by the caller into payload (a
 * composite: its sources are added to the package's table). The header says
 * PAYLOADCOMPRESSOR compressor ("zstd", "xz") and PAYLOADFLAGS flags (the level, "3"),
 * and requires rpmlib(PayloadIsZstd) or rpmlib(PayloadIsXz) as rpmbuild does; the
 * signature's size is the stored (compressed) one, its payload size the archive's. */
struct rk_rpm_compressed {
	const char *compressor, *flags;
	const struct rk_composite *payload;
	uint64_t archive_size; /* the cpio archive's size */
};
/* The cpio payload (files as rk_rpm_build checks them) as a composite. 0 or -errno as
 * rk_rpm_build. */
int rk_rpm_payload(const struct rk_pkg_meta *m, const struct rk_rpm_file *files, size_t n,
		   struct rk_composite *out);
int rk_rpm_build_compressed(const struct rk_pkg_meta *m, const struct rk_rpm_file *files, size_t n,
			    const struct rk_rpm_compressed *cz, struct rk_composite *out,
			    struct rk_rpm_info *info);

/* Set the payload digest (sha256 hex of the bytes [info->header_end, pkg->size), which
 * only the caller can afford to read) into a package from rk_rpm_build: PAYLOADDIGEST
 * and PAYLOADDIGESTALT in the main header, then the signature's header SHA256. Reads
 * only literal bytes of pkg. rpm 4.18 refuses to install, and rpm -K fails, a package
 * without it ("no digest"): until this is called the package holds zeros there. 0 or
 * -EINVAL/-ENOMEM. */
int rk_rpm_set_payload_digest(struct rk_composite *pkg, const struct rk_rpm_info *info,
			      const char hex[RK_SHA256_HEX]);
/* The same for a compressed payload: hex of the stored bytes (PAYLOADDIGEST), alt of the
 * uncompressed cpio archive (PAYLOADDIGESTALT), as rpm 4.16 and later check them. */
int rk_rpm_set_payload_digests(struct rk_composite *pkg, const struct rk_rpm_info *info,
			       const char hex[RK_SHA256_HEX], const char alt[RK_SHA256_HEX]);

/* Header signatures (rpmtag.h): RSA keys sign into RSAHEADER, DSA, ECDSA and EdDSA keys
 * into DSAHEADER, as rpmsign does. Every package's signature header holds
 * RK_RPM_SIG_ROOM bytes of RESERVEDSPACE, as rpmbuild's do (%__gpg_reserved_space), so a
 * signature takes its place without moving a byte after it. */
#define RK_RPM_SIG_DSA 267u
#define RK_RPM_SIG_RSA 268u
#define RK_RPM_SIG_ROOM 4096u

/* The main header's bytes (what a header signature signs): *out (free) of *len bytes.
 * 0 or -ENOMEM/-EINVAL. */
int rk_rpm_sign_header(const struct rk_composite *pkg, const struct rk_rpm_info *info,
		       unsigned char **out, size_t *len);

/* Put sig, an OpenPGP signature packet (len bytes) over the final main header (after
 * rk_rpm_set_payload_digest), into pkg's signature header as tag, in the reserved space:
 * the package's size and every other byte offset stay. 0 or -EINVAL/-ENOMEM. */
int rk_rpm_set_signature(struct rk_composite *pkg, const struct rk_rpm_info *info,
			 uint32_t tag, const void *sig, size_t len);

/* The package's relations, as the header holds them (and repodata lists them). */
enum rk_rpm_dep_kind {
	RK_RPM_PROVIDE,
	RK_RPM_REQUIRE,
	RK_RPM_CONFLICT,
	RK_RPM_OBSOLETE,
	RK_RPM_RECOMMEND,
	RK_RPM_SUGGEST,
	RK_RPM_NKINDS
};

/* rpmsenseFlags bits used here */
#define RK_RPMSENSE_LESS 0x2u
#define RK_RPMSENSE_GREATER 0x4u
#define RK_RPMSENSE_EQUAL 0x8u
#define RK_RPMSENSE_INTERP 0x100u
#define RK_RPMSENSE_SCRIPT_PRE 0x200u
#define RK_RPMSENSE_SCRIPT_POST 0x400u
#define RK_RPMSENSE_SCRIPT_PREUN 0x800u
#define RK_RPMSENSE_SCRIPT_POSTUN 0x1000u
#define RK_RPMSENSE_RPMLIB 0x1000000u

struct rk_rpm_dep {
	char *name;
	char *version; /* "" when unversioned */
	uint32_t flags;
};

struct rk_rpm_deps {
	struct rk_rpm_dep *v[RK_RPM_NKINDS]; /* each sorted as rpmbuild sorts them */
	size_t n[RK_RPM_NKINDS];
};

/* Parse m's relations and add what rpmbuild adds: the package's own "name = EVR" and
 * "name(isa) = EVR", the scripts' interpreters, the rpmlib() features. 0 or
 * -ENOMEM/-EINVAL; release with rk_rpm_deps_release. */
int rk_rpm_deps(const struct rk_pkg_meta *m, struct rk_rpm_deps *out);
void rk_rpm_deps_release(struct rk_rpm_deps *d);

#endif
