/* rk/wheel.h: the little of Python packaging the python/ view needs: PEP 427 and sdist
 * file names, PEP 503 name normalization, HTML escaping, and a wheel's METADATA read
 * from its zip central directory (zip64 included). Every offset read from a zip is
 * checked; a damaged or hostile archive yields -EBADMSG, never a crash. */
#ifndef RK_WHEEL_H
#define RK_WHEEL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rk/buf.h"
#include "rk/err.h"

/* Largest METADATA we read, and largest central directory we hold in memory. */
#define RK_WHEEL_MAX_METADATA (4u << 20)
#define RK_WHEEL_MAX_CDIR (64u << 20)

/* Positional read of n bytes at off into buf: bytes read, 0 at end, or -errno. */
typedef ssize_t (*rk_pread_fn)(void *ctx, void *buf, size_t n, uint64_t off);

/* A zip in memory, for rk_mem_pread (an rk_pread_fn whose ctx is a struct rk_mem). */
struct rk_mem {
	const void *p;
	size_t n;
};
ssize_t rk_mem_pread(void *ctx, void *buf, size_t n, uint64_t off);

/* The METADATA of a wheel of size bytes: the member "<dist_info>/METADATA" (dist_info
 * e.g. "rocm_sdk_core-7.13.0.dist-info"; NULL: the first top-level *.dist-info/METADATA).
 * *data is malloc'd and NUL-terminated. -ENOENT when the member is absent, -EBADMSG for
 * a damaged zip, -EFBIG when METADATA is over RK_WHEEL_MAX_METADATA. */
int rk_wheel_metadata(rk_pread_fn rd, void *ctx, uint64_t size, const char *dist_info, char **data,
		      size_t *len, struct rk_err *err);
/* The same for a zip in memory. */
int rk_wheel_metadata_mem(const void *zip, size_t size, const char *dist_info, char **data,
			  size_t *len, struct rk_err *err);

/* One member of a zip, from its central directory entry. */
struct rk_wheel_member {
	char *name; /* as stored (NUL-terminated; a name holding a NUL is rejected) */
	uint32_t mode; /* external attributes >> 16 when made on Unix, else 0 */
	unsigned method; /* 0 stored, 8 deflated (others are listed; extract rejects them) */
	uint32_t crc;
	uint64_t csize, usize;
	uint64_t lho; /* local header offset */
	uint64_t limit; /* the member's data must end here (the central directory) */
};

/* Every member of a zip of size bytes, in central directory order, in *out (free with
 * rk_wheel_members_free). Each entry's sizes and offsets are checked against the file.
 * -EBADMSG for a damaged zip, -EFBIG for a central directory over RK_WHEEL_MAX_CDIR. */
int rk_wheel_list(rk_pread_fn rd, void *ctx, uint64_t size, struct rk_wheel_member **out, size_t *n,
		  struct rk_err *err);
void rk_wheel_members_free(struct rk_wheel_member *m, size_t n);

/* Receives extracted bytes in order: 0 or -errno (which stops the extraction). */
typedef int (*rk_write_fn)(void *ctx, const void *buf, size_t n);

/* Extract member m (from rk_wheel_list on the same zip) through wr, streamed in chunks of
 * at most 1 MiB (deflate through zlib), whatever its size. The CRC-32 and the size are
 * checked at the end: on -EBADMSG the bytes already written are not the member. */
int rk_wheel_extract(rk_pread_fn rd, void *ctx, uint64_t size, const struct rk_wheel_member *m,
		     rk_write_fn wr, void *wctx, struct rk_err *err);

/* The first value of header field name (case-insensitive) in a core metadata file
 * (RFC 822 style; the header ends at the first empty line), malloc'd and trimmed, in *out.
 * -ENOENT when absent. */
int rk_metadata_field(const char *meta, size_t len, const char *name, char **out);

/* Python package file kinds. */
enum rk_pyfile { RK_PYFILE_NONE, RK_PYFILE_WHEEL, RK_PYFILE_SDIST };

/* The kind of file name (a wheel "{name}-{ver}(-{build})?-{py}-{abi}-{plat}.whl" or an
 * sdist "{name}-{ver}.tar.gz"); with a kind, its project name (PEP 503-normalized) in
 * project[n] and, for wheels, its "{name}-{ver}.dist-info" in dist_info[n] (may be NULL). */
int rk_pyfile_parse(const char *file, char *project, size_t n, char *dist_info, size_t dn);

/* PEP 503: lowercase, every run of '-', '_', '.' becomes one '-'. -ENAMETOOLONG when the
 * result does not fit in out[n]. */
int rk_pep503_normalize(const char *name, char *out, size_t n);

/* Append s HTML-escaped (& < > " ') to b. */
int rk_buf_add_html(struct rk_buf *b, const char *s) RK_MUST_CHECK;

#endif
