/* tar_layout.h: a tar archive as a list of segments, never written anywhere.
 *
 * The archive is exactly what
 *     tar --format=gnu --sort=name --owner=0 --group=0 --numeric-owner --mtime=@T -cf - .
 * writes for the same tree (GNU tar 1.34, checked byte for byte by the tests): members
 * rooted at "./", names over 100 bytes and link targets over 100 bytes in GNU
 * ././@LongLink records, hardlinks as type '1' to the first path, two zero blocks, then
 * zero padding to the 10240-byte record. Headers are kept in memory; file contents are
 * references to cache blobs, so the size is exact before any byte is produced and any
 * offset can be read directly. Immutable once built; safe to read from many threads. */
#ifndef RK_TAR_LAYOUT_H
#define RK_TAR_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "rk/hash.h"

#define RK_TAR_RECORD 10240

/* One member, in archive order (the caller sorts). */
struct rk_tar_member {
	const char *path; /* "./", "./bin/", "./bin/hipcc": directories end in '/' */
	uint32_t mode; /* S_IFDIR / S_IFREG / S_IFLNK | permissions */
	uint64_t size; /* regular files */
	const char *link; /* symlink target, or for a hardlink the path it links to */
	int hardlink; /* link is a hardlink target (type '1') */
	const char *blob; /* content id of a regular file with size > 0 */
	void *origin; /* carried into the segment, for the reader (may be NULL) */
};

enum rk_seg_kind { RK_SEG_BYTES, RK_SEG_BLOB, RK_SEG_ZERO };

/* The segment list also describes other synthesized files (the kpack views' rewritten
 * host binaries and .kpack archives): their blob segments are ranges of larger blobs. */
struct rk_tar_seg {
	uint64_t off; /* offset in the archive */
	uint64_t len;
	uint8_t kind;
	uint64_t boff, bsize; /* RK_SEG_BLOB: the range starts at boff of a bsize-byte blob */
	void *origin; /* RK_SEG_BLOB: the member's origin */
	union {
		size_t bytes; /* RK_SEG_BYTES: offset into the layout's header arena */
		char blob[RK_SHA256_HEX];
	} u;
};

struct rk_tar_layout {
	struct rk_tar_seg *segs;
	size_t nsegs;
	char *arena; /* header bytes */
	size_t arena_len;
	uint64_t size;
};

/* Lay out members[0..n) with every mtime = mtime. 0 or -ENOMEM/-EINVAL. */
int rk_tar_layout_build(const struct rk_tar_member *members, size_t n, int64_t mtime,
			struct rk_tar_layout *out);
void rk_tar_layout_release(struct rk_tar_layout *l);
/* A deep copy of l (malloc'd). 0 or -ENOMEM. */
int rk_tar_layout_copy(const struct rk_tar_layout *l, struct rk_tar_layout **out);
/* The segment holding offset off (off < l->size). */
const struct rk_tar_seg *rk_tar_layout_find(const struct rk_tar_layout *l, uint64_t off);

#endif
