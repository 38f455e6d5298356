/* util/file_read.h: a whole small file read into memory (util/file_read.c). The one
 * place a loader of a file the user names (package definitions, BUILD_TOPOLOGY.toml) gets
 * its bytes, so the parsers in formats/ stay bytes in, facts out. Also: exactly n bytes
 * of a descriptor. */
#ifndef RK_UTIL_FILE_READ_H
#define RK_UTIL_FILE_READ_H

#include <stddef.h>
#include <stdint.h>

/* The whole regular file at path, at most max bytes, in a malloc'd buffer with a NUL
 * after its len bytes. 0, or -errno of open/fstat/read, -EINVAL (not a regular file),
 * -EFBIG (larger than max), -EIO (shorter than its size), -ENOMEM. */
int rk_file_read(const char *path, size_t max, char **out, size_t *len);

/* Exactly n bytes from fd at off (EINTR retried): 0, -errno, or -EIO when the file ends
 * first (a cache blob: short means damaged). */
int rk_pread_full(int fd, void *buf, size_t n, uint64_t off);

#endif
