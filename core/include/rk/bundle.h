/* rk/bundle.h: clang offload bundles, the contents of a host binary's .hip_fatbin
 * (kpack-format.md section 5).
 *
 * A .hip_fatbin holds one or more bundles (one per translation unit), each either
 * plain ("__CLANG_OFFLOAD_BUNDLE__") or compressed ("CCOB" v1/v2/v3, zlib or zstd),
 * separated by zero padding. rk_fatbin_parse finds them all, decompresses CCOBs and
 * lists every device code object; host entries are dropped. Hostile input gives
 * -EBADMSG with a message saying what and at which offset; nothing is read outside
 * sec[0..n). */
#ifndef RK_BUNDLE_H
#define RK_BUNDLE_H

#include <stddef.h>
#include <stdint.h>

#include "rk/err.h"
#include "rk/target.h"

enum rk_bundle_format { RK_BUNDLE_PLAIN = 0, RK_BUNDLE_CCOB = 1 };

struct rk_bundle {
	uint64_t off, len; /* extent in the section (CCOB: header + compressed data) */
	uint8_t format; /* enum rk_bundle_format */
	uint16_t version, method; /* CCOB: 1..3; 0 zlib, 1 zstd */
	uint64_t usize; /* uncompressed bundle size (plain: len) */
	unsigned char *payload; /* CCOB: the decompressed plain bundle (owned), else NULL */
};

struct rk_bundle_entry {
	char *id; /* "hipv4-amdgcn-amd-amdhsa--gfx942:xnack+" (owned) */
	const char *arch; /* the text after the last "--" in id (kpack's arch key) */
	unsigned bundle; /* index into fatbin.bundles */
	uint64_t off; /* plain: offset of the code object in the section;
			 CCOB: offset in bundles[bundle].payload */
	uint64_t size;
};

struct rk_fatbin {
	struct rk_bundle *bundles;
	size_t nbundles;
	struct rk_bundle_entry *entries; /* device entries: bundle order, then header order */
	size_t nentries;
};

/* Parse the .hip_fatbin section sec[0..n). Limits: a CCOB may not claim more than
 * max_usize uncompressed bytes (0: 4 GiB). A plain bundle ends at the end of its header
 * or of its furthest entry, a CCOB v2/v3 at its total size, a v1 where its compressed
 * stream ends; the next bundle is searched for from there. Plain bundles are not
 * copied: entries point into sec, which must outlive *out. Returns 0 and fills *out, or
 * -EBADMSG (no bundle, a bad header, entries outside their bundle or overlapping each
 * other, a duplicate or malformed id, bad compressed data, an uncompressed size or MD5
 * that does not match), -ENOMEM, or -EIO (no MD5 in libcrypto); *out is untouched on
 * failure. Thread-safe. */
int rk_fatbin_parse(const void *sec, size_t n, uint64_t max_usize, struct rk_fatbin *out,
		    struct rk_err *err);
void rk_fatbin_release(struct rk_fatbin *f);

/* The bytes of entry e (sec is the section given to rk_fatbin_parse). */
const unsigned char *rk_fatbin_data(const struct rk_fatbin *f, const struct rk_bundle_entry *e,
				    const void *sec);

#endif
