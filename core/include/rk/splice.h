/* rk/splice.h: a file described as a list of pieces (ranges of source files, literal
 * bytes and zeros), never written anywhere until someone reads it.
 *
 * The kpack transforms produce splices: a rewritten host binary is its original with a
 * few patched ranges, pages cut out and a tail appended; a .kpack archive (scheme
 * "none") is a header, ranges of fat binaries and a TOC. A splice knows its exact size
 * before any byte is read, and any offset can be read directly. Sources are numbered by
 * the caller (src 0, 1, ...); reading asks a callback for their bytes.
 *
 * Building: append pieces in order (rk_splice_src/bytes/zero), then edit in place with
 * rk_splice_write (overwrite bytes at an offset, splitting pieces) and rk_splice_cut
 * (delete a range, shifting what follows). Immutable after building; safe to read from
 * many threads. */
#ifndef RK_SPLICE_H
#define RK_SPLICE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rk/compiler.h"

enum rk_piece_kind { RK_PIECE_SRC, RK_PIECE_BYTES, RK_PIECE_ZERO };

struct rk_piece {
	uint64_t off; /* offset in the splice */
	uint64_t len; /* > 0 */
	uint8_t kind; /* enum rk_piece_kind */
	uint32_t src; /* RK_PIECE_SRC: source number */
	uint64_t at; /* RK_PIECE_SRC: offset in the source; RK_PIECE_BYTES: offset in arena */
};

struct rk_splice {
	struct rk_piece *v; /* sorted by off, contiguous, no empty pieces */
	size_t n, cap;
	char *arena; /* literal bytes */
	size_t arena_len, arena_cap;
	uint64_t size;
};

#define RK_SPLICE_INIT \
	{              \
		0      \
	}

int rk_splice_src(struct rk_splice *s, uint32_t src, uint64_t off, uint64_t len) RK_MUST_CHECK;
int rk_splice_bytes(struct rk_splice *s, const void *p, size_t len) RK_MUST_CHECK;
int rk_splice_zero(struct rk_splice *s, uint64_t len) RK_MUST_CHECK;
/* Overwrite [off, off+len) (which must lie inside the splice) with p. */
int rk_splice_write(struct rk_splice *s, uint64_t off, const void *p, size_t len) RK_MUST_CHECK;
/* Delete [off, off+len); later pieces move down by len. */
int rk_splice_cut(struct rk_splice *s, uint64_t off, uint64_t len) RK_MUST_CHECK;
void rk_splice_release(struct rk_splice *s);

/* The piece holding offset off (off < size). */
const struct rk_piece *rk_splice_find(const struct rk_splice *s, uint64_t off);

/* Reads n bytes of source src at off into buf; returns n or -errno. */
typedef ssize_t (*rk_splice_read_fn)(void *ctx, uint32_t src, void *buf, size_t n, uint64_t off);
/* Read [off, off+n) of the splice (clamped to its size). Returns bytes read or -errno. */
ssize_t rk_splice_pread(const struct rk_splice *s, rk_splice_read_fn read, void *ctx, void *buf,
			size_t n, uint64_t off);

#endif
