/* tar_compress.h: a synthesized tar archive compressed as independent pieces.
 *
 * The .tar (a composite file, formats/archive/tar_layout.h) is cut into pieces at member headers
 * (about 1 MiB each, cut points chosen from the member's own header so that two archives
 * sharing a run of files cut it the same way; file data over 4 MiB in 4 MiB pieces). Each
 * piece is one gzip member or one zstd frame, so the concatenation is a valid .tar.gz / .tar.zst
 * that decompresses to exactly the .tar; the .tar.zst ends with a zstd seekable-format
 * seek table. A compressed piece is cached by a key made of the codec and what the
 * piece holds (header bytes, blob ids and ranges), so an archive that shares files with
 * one already built costs almost nothing. The key names the content, so a piece file
 * is checked with a CRC32 trailer (libdeflate, > 10 GB/s) rather than a SHA-256 name. The
 * piece file carries a CRC32 trailer (the key already names its content, so no SHA-256
 * name is needed). The compressed size is known only once every piece is compressed or found:
 * rk_tarz_compute does that, using several threads. After compute, a struct rk_tarz is immutable
 * and may be read from many threads.
 *
 * The same pieces serve the members of a deflated wheel (python view, services/wheel.c):
 * rk_tarz_plan_members cuts a file of members laid end to end at each member's end (and
 * every 4 MiB within it), and each piece is raw deflate (RK_CODEC_DEFLATE): a member's
 * last piece ends the deflate stream, the others end in a sync flush (byte-aligned,
 * not final), so a member's pieces in order are its zip data. A piece's key names the
 * blob content id and range it holds, the codec and level, and whether it is last, so a
 * member two wheels share is deflated once. */
#ifndef RK_TAR_COMPRESS_H
#define RK_TAR_COMPRESS_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "rk/cache.h"
#include "rk/err.h"
#include "rk/composite.h"

/* RK_CODEC_XZ: each piece is one xz block (LZMA2, CRC64, its dictionary no larger than
 * the piece), so the concatenation behind a 12-byte stream header and before the index
 * and stream footer is one xz stream (what dpkg and rpm read: no concatenated streams). */
enum rk_codec { RK_CODEC_GZIP = 1, RK_CODEC_ZSTD = 2, RK_CODEC_DEFLATE = 3, RK_CODEC_XZ = 4 };

struct rk_tarz_piece {
	uint64_t uoff, ulen; /* range of the .tar */
	char key[RK_SHA256_HEX]; /* cache key: pieces/<key> holds the compressed bytes */
	uint32_t crc; /* CRC32 of the compressed bytes (after compute) */
	uint64_t coff, clen; /* range of the compressed file (after compute) */
	uint8_t last; /* RK_CODEC_DEFLATE: ends its member's deflate stream */
	uint8_t pad; /* RK_CODEC_XZ: the block's padding (clen less its unpadded size) */
	size_t same; /* the first piece with this key (its own index when it is the first):
		      * compute makes that one only */
};

struct rk_tarz {
	int codec, level;
	struct rk_tarz_piece *pieces;
	size_t npieces;
	unsigned char *header; /* xz stream header (before the pieces) */
	size_t header_len;
	unsigned char *trailer; /* zstd seek table, xz index and stream footer */
	size_t trailer_len;
	uint64_t size; /* valid once ready */
	_Atomic int ready; /* set last, under lock */
	pthread_mutex_t lock; /* serializes compute */
	unsigned compressed, reused; /* what compute did */
};

/* Plan the pieces of tar (cheap: no data is read). */
int rk_tarz_plan(const struct rk_composite *tar, int codec, int level, struct rk_tarz **out);
/* Plan the pieces of members laid end to end in l: member i ends at ends[i] (ascending,
 * the last one l->size); an empty member has no piece. Codec RK_CODEC_DEFLATE. */
int rk_tarz_plan_members(const struct rk_composite *l, const uint64_t *ends, size_t n, int level,
			 struct rk_tarz **out);
void rk_tarz_free(struct rk_tarz *z);

/* Compress or find every piece, with `threads` threads, reading the .tar tar (the one
 * z was planned from; its sources are blobs of c). Idempotent; serialized. */
int rk_tarz_compute(struct rk_tarz *z, struct rk_cache *c, const struct rk_composite *tar,
		    unsigned threads, struct rk_err *err);

/* A descriptor on piece i's compressed bytes, checked against its CRC32; a missing or
 * damaged piece is compressed again (reading tar). */
int rk_tarz_open_piece(struct rk_tarz *z, size_t i, struct rk_cache *c,
		       const struct rk_composite *tar, int *fd, struct rk_err *err);

/* The piece holding compressed offset off, or npieces for the header or the trailer. */
size_t rk_tarz_find(const struct rk_tarz *z, uint64_t off);

/* The compressed file as part of a composite (a package's data.tar.zst, an RPM payload):
 * after compute, rk_tarz_append adds z's header, each piece as a source (its id the
 * piece's key, its size the compressed length) and the trailer to out. A piece is no
 * cache blob: opening its id as one fails, and the source's origin, o (which must live
 * as long as out), opens the cached piece instead (compressed again, reading tar, when
 * it is missing), so out is read like any composite (rk_composite_pread_blobs, the
 * vfs's composite files). 0 or -ENOMEM/-EINVAL (not computed). */
struct rk_tarz_origin {
	struct rk_origin o; /* first: the source's origin */
	struct rk_tarz *z;
	struct rk_cache *c;
	const struct rk_composite *tar;
};
int rk_tarz_append(struct rk_tarz_origin *o, struct rk_composite *out);

#endif
