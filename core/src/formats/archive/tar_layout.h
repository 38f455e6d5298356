/* tar_layout.h: a tar archive as a composite file (rk/composite.h), never written anywhere.
 *
 * The archive is exactly what
 *     tar --format=gnu --sort=name --owner=0 --group=0 --numeric-owner --mtime=@T -cf - .
 * writes for the same tree (GNU tar 1.34, checked byte for byte by the tests): members
 * rooted at "./", names over 100 bytes and link targets over 100 bytes in GNU
 * ././@LongLink records, hardlinks as type '1' to the first path, two zero blocks, then
 * zero padding to the 10240-byte record. Headers are the composite's literal bytes; each
 * file's content is a source (its cache blob, whole), so the size is exact before any
 * byte is produced and any offset can be read directly. */
#ifndef RK_TAR_LAYOUT_H
#define RK_TAR_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "rk/composite.h"

#define RK_TAR_RECORD 10240

/* One member, in archive order (the caller sorts). */
struct rk_tar_member {
	const char *path; /* "./", "./bin/", "./bin/hipcc": directories end in '/' */
	uint32_t mode; /* S_IFDIR / S_IFREG / S_IFLNK | permissions */
	uint64_t size; /* regular files */
	const char *link; /* symlink target, or for a hardlink the path it links to */
	int hardlink; /* link is a hardlink target (type '1') */
	const char *blob; /* content id of a regular file with size > 0 */
	struct rk_origin *origin; /* of the blob's source, for the reader (may be NULL) */
	/* Or, instead of blob, a regular file whose bytes are a composite (an ELF file with a
	 * few patched bytes, a control file): its pieces are appended, its sources added to
	 * the archive's table. size must be content->size. */
	const struct rk_composite *content;
};

/* Lay out members[0..n) with every mtime = mtime: one source per blob file, in member
 * order (a content member adds its composite's sources at its place). 0 or -ENOMEM/-EINVAL/-EFBIG;
 * *out (release with rk_composite_release) is written only on success. */
int rk_tar_layout_build(const struct rk_tar_member *members, size_t n, int64_t mtime,
			struct rk_composite *out);

#endif
