/* rk/index.h: the member index of one artifact archive.
 *
 * Ingest fills it in archive order; the cache keeps it as index/<key>.rkix so a
 * remount rebuilds every view without decompressing. Format (all little-endian;
 * docs/internals/cache.md):
 *   "RKIX" u32 version(1) u64 archive_size char[64] archive_sha256
 *   u32 nprefixes u32 nmembers
 *   nprefixes x { u32 len, bytes }
 *   nmembers  x { u8 type, u32 mode, u64 size, i64 mtime, u8 blob[32] (files, size > 0),
 *                 u32 len, path, u32 len, link }
 * rk_index_parse treats its input as untrusted. An index has one owner; the ingest
 * code publishes members to readers through its own locking (core/src/vfs.c). */
#ifndef RK_INDEX_H
#define RK_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "rk/buf.h"
#include "rk/err.h"
#include "rk/hash.h"

enum rk_member_type {
	RK_MEMBER_FILE = 1,
	RK_MEMBER_DIR = 2,
	RK_MEMBER_SYMLINK = 3,
	RK_MEMBER_HARDLINK = 4, /* link = path of the file it shares content with */
};

#define RK_INDEX_MAX_MEMBERS (16u << 20)
#define RK_INDEX_MAX_PATH 4096

struct rk_member {
	char *path; /* normalized, relative to the archive root */
	char *link; /* symlink target or hardlink target path; NULL otherwise */
	uint64_t size;
	int64_t mtime;
	uint32_t mode; /* permission bits only (07777 & ~06000) */
	uint8_t type; /* enum rk_member_type */
	char blob[RK_SHA256_HEX]; /* content id for files and hardlinks with size > 0, else "" */
};

struct rk_index {
	struct rk_member *v;
	size_t n, cap;
	char **prefixes; /* artifact_manifest.txt lines, in order */
	size_t nprefixes;
	uint64_t archive_size;
	char archive_sha256[RK_SHA256_HEX]; /* of the compressed archive, "" if unknown */
};

/* Append a copy of m (strings duplicated). */
int rk_index_add(struct rk_index *idx, const struct rk_member *m);
int rk_index_add_prefix(struct rk_index *idx, const char *prefix);
void rk_index_release(struct rk_index *idx);

int rk_index_serialize(const struct rk_index *idx, struct rk_buf *out);
int rk_index_parse(const void *data, size_t len, struct rk_index *out, struct rk_err *err);

/* Parse artifact_manifest.txt text into idx->prefixes (blank lines skipped; each line
 * must be a normalized relative path). */
int rk_index_parse_manifest(struct rk_index *idx, const char *text, size_t len, struct rk_err *err);

#endif
