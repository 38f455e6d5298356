/* rk/composite.h: a composite file: a list of pieces (literal bytes, zeros, ranges of
 * numbered sources), never written anywhere until someone reads it.
 *
 * Every synthesized file the mount serves is one: a tarball (formats/archive/tar_layout.h: GNU tar
 * headers, member contents as whole cache blobs, zero padding), a wheel
 * (formats/archive/zip_layout.h), a rewritten host binary (the original with a few patched
 * ranges, pages cut out and a tail appended, rk/kpack_elf.h) and a .kpack archive (scheme
 * "none": a header, ranges of fat binaries and a TOC, rk/kpack.h). A composite knows its
 * exact size before any byte is read, and any offset can be read directly.
 *
 * Sources are numbered (0, 1, ...). Format code builds pieces over numbers it chose and
 * knows nothing of the cache; whoever serves the file fills the source table (sources[i]
 * is source i: a cache blob's content id and size, and the origin that can re-create the
 * blob after the cache evicted it). A composite built over no table (a test, the CLI)
 * is read with a callback that knows what its numbers mean.
 *
 * Building: append pieces in order (rk_composite_source/bytes/bytes_room/zero/append),
 * then edit in place with rk_composite_write (overwrite bytes at an offset, splitting
 * pieces) and rk_composite_cut (delete a range, shifting what follows). Adjacent pieces
 * that continue each other merge (arena bytes, zeros, one source's range). Immutable
 * after building; safe to read from many threads.
 *
 * Reading: rk_composite_pread, the one reader, asks a callback for the bytes of source
 * ranges (cache/composite_read.h reads cache blobs: the vfs, compressed tarballs). */
#ifndef RK_COMPOSITE_H
#define RK_COMPOSITE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rk/compiler.h"
#include "rk/err.h"
#include "rk/hash.h"

/* The numbers are part of the cache keys of compressed tarball pieces: keep them. */
enum rk_piece_kind { RK_PIECE_BYTES = 0, RK_PIECE_SOURCE = 1, RK_PIECE_ZERO = 2 };

struct rk_piece {
	uint64_t off; /* offset in the composite */
	uint64_t len; /* > 0 */
	uint8_t kind; /* enum rk_piece_kind */
	uint32_t src; /* RK_PIECE_SOURCE: source number */
	uint64_t at; /* RK_PIECE_SOURCE: offset in the source; RK_PIECE_BYTES: in the arena */
};

/* How a source's blob is made again after the cache lost it (evicted, or damaged).
 * Embedded in whatever can do that (the engine's struct artifact, which sets reopen to
 * its refill); the reader calls through it and names nothing. reopen re-creates blob id
 * (size bytes) and opens it: 0 with *fd set, or -errno with err set. */
struct rk_origin {
	int (*reopen)(struct rk_origin *o, const char *id, uint64_t size, int *fd,
		      struct rk_err *err);
};

/* Source i of a composite: a cache blob. */
struct rk_source {
	char id[RK_SHA256_HEX]; /* content id */
	uint64_t size; /* the whole blob's size */
	struct rk_origin *origin; /* re-creates it when missing, or NULL */
};

struct rk_composite {
	struct rk_piece *pieces; /* sorted by off, contiguous, no empty pieces */
	size_t npieces, cap_pieces;
	char *arena; /* literal bytes */
	size_t arena_len, arena_cap;
	struct rk_source *sources; /* the source table (may be empty: see above) */
	size_t nsources, cap_sources;
	uint64_t size;
};

#define RK_COMPOSITE_INIT \
	{                 \
		0         \
	}

/* Append len bytes of source src from offset off. */
int rk_composite_source(struct rk_composite *c, uint32_t src, uint64_t off,
			uint64_t len) RK_MUST_CHECK;
/* Append a copy of p[0..len). */
int rk_composite_bytes(struct rk_composite *c, const void *p, size_t len) RK_MUST_CHECK;
/* Append len zeroed literal bytes and return them for the caller to fill in (valid until
 * the next change of c), or NULL (ENOMEM, or len 0). */
void *rk_composite_bytes_room(struct rk_composite *c, size_t len) RK_MUST_CHECK;
int rk_composite_zero(struct rk_composite *c, uint64_t len) RK_MUST_CHECK;
/* Append every piece of from, its sources added to c's table (renumbered). */
int rk_composite_append(struct rk_composite *c, const struct rk_composite *from) RK_MUST_CHECK;
/* Add a source to the table; *idx (may be NULL) receives its number. */
int rk_composite_add_source(struct rk_composite *c, const char id[RK_SHA256_HEX], uint64_t size,
			    struct rk_origin *origin, uint32_t *idx) RK_MUST_CHECK;
/* Overwrite [off, off+len) (which must lie inside the composite) with p. */
int rk_composite_write(struct rk_composite *c, uint64_t off, const void *p,
		       size_t len) RK_MUST_CHECK;
/* Delete [off, off+len); later pieces move down by len. */
int rk_composite_cut(struct rk_composite *c, uint64_t off, uint64_t len) RK_MUST_CHECK;
/* A deep copy of c (malloc'd; free with rk_composite_free). 0 or -ENOMEM. */
int rk_composite_copy(const struct rk_composite *c, struct rk_composite **out) RK_MUST_CHECK;
void rk_composite_release(struct rk_composite *c);
/* Release and free a malloc'd composite (NULL is fine). */
void rk_composite_free(struct rk_composite *c);

/* A name for c's bytes without reading them: SHA-256 over its pieces in order (kind,
 * length, literal bytes, zeros, source content id and offset), so composites with one key
 * read the same bytes (records derived from a file's bytes are kept under it). 0 or
 * -ENOMEM. */
int rk_composite_key(const struct rk_composite *c, char hex[RK_SHA256_HEX]) RK_MUST_CHECK;

/* The piece holding offset off, or NULL when off >= size. */
const struct rk_piece *rk_composite_find(const struct rk_composite *c, uint64_t off);

/* One stretch of a read as handed to the kernel without copying (rk_file_extents,
 * cache/composite_read.h): a range of an open descriptor, or bytes in memory. */
struct rk_extent {
	int fd; /* >= 0: read len bytes of it at pos; -1: len bytes at mem */
	int own; /* fd is the extent's own (a duplicate): rk_extents_close closes it */
	uint64_t pos;
	const void *mem;
	size_t len;
};

/* Close the descriptors extents ext[0..n) own. */
void rk_extents_close(struct rk_extent *ext, size_t n);
/* Check that every descriptor extent of ext[0..n) lies inside its file: a cache file
 * truncated under a running mount would splice short, which the kernel passes on as a
 * short read that succeeded. 0, or -EIO with err saying which (an fstat each). */
int rk_extents_check(const struct rk_extent *ext, size_t n, struct rk_err *err);
/* Reads n bytes of source src at off into buf; returns bytes read (0: the source ends
 * there) or -errno. */
typedef ssize_t (*rk_source_read_fn)(void *ctx, uint32_t src, void *buf, size_t n, uint64_t off);
/* Read [off, off+n) of the composite (clamped to its size): literal bytes and zeros
 * directly, source ranges through read. Returns bytes read, or the first error read
 * returned (-EIO for a source shorter than its piece). */
ssize_t rk_composite_pread(const struct rk_composite *c, rk_source_read_fn read, void *ctx,
			   void *buf, size_t n, uint64_t off);

#endif
