/* zip_layout.h: a zip archive (a Python wheel) as a composite file (rk/composite.h), never
 * written anywhere.
 *
 * The vfs serves it as it serves every composite: headers as literal bytes, file contents
 * as sources (whole cache blobs), small generated files as literal bytes, and members
 * that are composites themselves (a rewritten binary, a .kpack) as their pieces.
 * Deterministic: the same members and mtime give the same bytes. APPNOTE.TXT 6.3:
 *
 *   for each member, in the given order:
 *     local file header  sig 0x04034b50, version needed, flags 0x0800 (UTF-8 name),
 *                        method 0 (stored) or 8 (deflated), DOS time, DOS date, CRC-32, csize,
 * usize, name length, extra length, name, extra file data          size bytes; no data descriptor
 *   central directory    per member: sig 0x02014b50, version made by (3 << 8 | version
 *                        needed: Unix), version needed .. extra length as above,
 *                        comment length 0, disk 0, internal attributes 0, external
 *                        attributes mode << 16, local header offset, name, extra
 *   zip64 end of central directory record (sig 0x06064b50) and its locator
 *                        (0x07064b50): only when the archive needs zip64
 *   end of central directory record (sig 0x06054b50), no comment
 *
 * A deflated member (method 8) carries its compressed bytes (csize of them) as its content;
 * its CRC-32 and size are those of the uncompressed data.
 *
 * Zip64 (APPNOTE 4.5.3): a member of RK_ZIP_MAX32 bytes or more (either size) has both sizes
 * 0xffffffff in its local header, whose zip64 extra field (id 0x0001) holds usize and
 * csize. A central directory entry's zip64 extra holds only the fields that overflow, in
 * the order usize, csize, local header offset. A member whose headers carry a zip64 extra
 * has version needed 45 in both headers, others 20. The archive ends with the zip64
 * records when it has RK_ZIP_MAX16 or more members (Info-ZIP and Python's zipfile do the
 * same: 0xffff in the end record means "see zip64"), or when the central directory's
 * offset or size reaches RK_ZIP_MAX32; the end record then holds 0xffff / 0xffffffff
 * in the fields that overflow. Every time stamp is the DOS time of mtime in UTC, clamped
 * to 1980-01-01 00:00:00 .. 2107-12-31 23:59:58. Immutable once built; safe to read from
 * many threads. Release with rk_composite_release. */
#ifndef RK_ZIP_LAYOUT_H
#define RK_ZIP_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "rk/composite.h"

#define RK_ZIP_LOCAL_LEN 30 /* fixed part of a local file header */
#define RK_ZIP_CDIR_LEN 46 /* fixed part of a central directory entry */
#define RK_ZIP_EOCD_LEN 22
#define RK_ZIP64_EOCD_LEN 56
#define RK_ZIP64_LOC_LEN 20
#define RK_ZIP_SIG_LOCAL 0x04034b50u
#define RK_ZIP_SIG_CDIR 0x02014b50u
#define RK_ZIP_SIG_EOCD 0x06054b50u
#define RK_ZIP_SIG_Z64_EOCD 0x06064b50u
#define RK_ZIP_SIG_Z64_LOC 0x07064b50u
#define RK_ZIP_EXTRA_ZIP64 0x0001u
#define RK_ZIP_FLAG_UTF8 0x0800u
#define RK_ZIP_VERSION 20 /* version needed: stored files */
#define RK_ZIP_VERSION_ZIP64 45
#define RK_ZIP_MADE_BY_UNIX 3
#define RK_ZIP_MAX16 0xffffu /* a count this large or larger needs zip64 */
#define RK_ZIP_MAX32 0xffffffffu /* a size or offset this large or larger needs zip64 */
#define RK_ZIP_STORED 0
#define RK_ZIP_DEFLATED 8

struct rk_zip_member {
	const char *name; /* archive path, e.g. "rocm_sdk_core/__init__.py"; no leading "/"
			   * or "./"; files only (no directory entries) */
	uint32_t mode; /* S_IFREG | permissions (0644 / 0755) */
	uint64_t size; /* of the (uncompressed) content */
	uint32_t crc; /* CRC-32 of the (uncompressed) content */
	const char *blob; /* content blob id (sha256 hex), or NULL: content is data */
	const void *data; /* with blob == NULL: size bytes, copied into the zip's arena */
	struct rk_origin *origin; /* of the blob's source (may be NULL) */
	const struct rk_composite *composite; /* with blob == data == NULL: the content is
					       * this composite (size bytes), appended with
					       * its sources */
	int method; /* RK_ZIP_STORED (0) or RK_ZIP_DEFLATED: then blob, data or composite
		     * hold the csize bytes of raw deflate */
	uint64_t csize; /* RK_ZIP_DEFLATED: the compressed size */
};

/* Lay out members[0..n) in the given order as a zip, each entry stored or deflated,
 * every timestamp the DOS time of mtime (UTC; clamped to 1980-01-01 00:00:00 when earlier,
 * 2107 max). 0, -ENOMEM, or -EINVAL (empty/too long name, duplicate not checked). Also
 * -EINVAL for a member that is not S_IFREG, a blob that is not a sha256 hex id, size > 0
 * with neither blob, data nor composite, a composite whose size is not size (csize when
 * deflated), or a method other than 0 and 8. *out is
 * written only on success. */
int rk_zip_layout_build(const struct rk_zip_member *m, size_t n, int64_t mtime,
			struct rk_composite *out);

/* The size of the archive rk_zip_layout_build would produce, without building it (for
 * planning); same arguments minus data. 0 or -EINVAL, as rk_zip_layout_build. */
int rk_zip_layout_size(const struct rk_zip_member *m, size_t n, uint64_t *size);

#endif
