/* rk/kpack.h: .kpack archives and the .rocm_kpack_ref marker (kpack-format.md sections 1
 * and 3.1); the runtime's lookup over real files is rk/kpack_lookup.h (section 6).
 *
 * Writing: rk_kpack_build lays an archive out as a composite (rk/composite.h). With scheme
 * "none" the code objects are ranges of their sources, so nothing is copied; with
 * "zstd-per-kernel" each one is read through the callback and compressed into the
 * composite's arena. The TOC is written with msgpack-c in the reference writer's key order.
 *
 * Reading: rk_kpack_open parses an archive held in memory (or mapped), with every size
 * and count checked against the buffer. Any malformed part is -EBADMSG with a message
 * naming it. It is stricter than the runtime where only a broken writer could differ:
 * nothing may follow the TOC (the runtime ignores trailing bytes), compression_scheme must
 * be "none" or "zstd-per-kernel" (the runtime falls back to "none"), blobs and the zstd
 * region lie between the header and the TOC, the region ends with its last frame, and a
 * binary key or (key, arch) pair appears once. Limits as the runtime: zstd_size <= 4 GiB,
 * num_kernels <= 1,048,576; original_size is required with zstd and must match. */
#ifndef RK_KPACK_H
#define RK_KPACK_H

#include <stddef.h>
#include <stdint.h>

#include "rk/err.h"
#include "rk/composite.h"
#include "rk/target.h"

enum rk_kpack_scheme { RK_KPACK_NONE = 0, RK_KPACK_ZSTD = 1 };

/* One code object to store. */
struct rk_kpack_kernel {
	const char *key; /* binary key: "<kernel_name>#<co_index>" */
	const char *arch; /* arch key, exactly as in the bundle entry id */
	const char *target; /* metadata.target: the full bundle entry id (may be NULL) */
	const char *source_prefix; /* metadata.source_prefix (may be NULL) */
	uint32_t src; /* bytes: source src, [off, off+size) */
	uint64_t off, size;
};

/* Lay out an archive holding k[0..n) (ordinals in that order). group is group_name;
 * arches lists gfx_arches (gfx_arch_family = arches[0]). read is used only for
 * RK_KPACK_ZSTD (level 3, frames with content size and no checksum, as "zstd -3
 * --no-check"). The TOC groups kernels by key in first-appearance order, as the reference
 * writer's dict does; metadata is written when target or source_prefix is set. -EINVAL
 * for a (key, arch) pair given twice. */
int rk_kpack_build(const char *group, const char *const *arches, size_t narches,
		   const struct rk_kpack_kernel *k, size_t n, int scheme, rk_source_read_fn read,
		   void *ctx, struct rk_composite *out, struct rk_err *err);

struct rk_kpack;

/* Parse an archive p[0..n); p must outlive the handle. */
int rk_kpack_open(const void *p, size_t n, struct rk_kpack **out, struct rk_err *err);
void rk_kpack_close(struct rk_kpack *k);
size_t rk_kpack_arch_count(const struct rk_kpack *k);
const char *rk_kpack_arch(const struct rk_kpack *k, size_t i); /* gfx_arches[i] */
const char *rk_kpack_group(const struct rk_kpack *k); /* "" when absent */
int rk_kpack_scheme(const struct rk_kpack *k);
size_t rk_kpack_binary_count(const struct rk_kpack *k);
const char *rk_kpack_binary(const struct rk_kpack *k, size_t i); /* sorted keys */
/* The code object for (key, arch): a malloc'd copy in *data. -ENOENT when absent. */
int rk_kpack_get(const struct rk_kpack *k, const char *key, const char *arch, void **data,
		 size_t *size, struct rk_err *err);

/* The marker: one msgpack map {"kpack_search_paths": [...], "kernel_name": "..."}. */
int rk_kpack_marker_encode(const char *const *paths, size_t npaths, const char *kernel_name,
			   void **out, size_t *len, struct rk_err *err);
struct rk_kpack_marker {
	char **paths;
	size_t npaths;
	char *kernel_name;
};
/* Parse one msgpack object from p[0..n) (n is clamped to 64 KiB, as the runtime does). */
int rk_kpack_marker_decode(const void *p, size_t n, struct rk_kpack_marker *out,
			   struct rk_err *err);
void rk_kpack_marker_release(struct rk_kpack_marker *m);

/* The search pattern the splitter embeds for a binary at relpath (relative to its prefix
 * root): "../" per directory, then ".kpack/<group>_@GFXARCH@.kpack". */
int rk_kpack_search_pattern(const char *relpath, const char *group, char **out);

#endif
