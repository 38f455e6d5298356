/* util/file_read.h: a whole small file read into memory (util/file_read.c). The one
 * place a loader of a file the user names (package definitions, BUILD_TOPOLOGY.toml) gets
 * its bytes, so the parsers in formats/ stay bytes in, facts out. */
#ifndef RK_UTIL_FILE_READ_H
#define RK_UTIL_FILE_READ_H

#include <stddef.h>

/* The whole regular file at path, at most max bytes, in a malloc'd buffer with a NUL
 * after its len bytes. 0, or -errno of open/fstat/read, -EINVAL (not a regular file),
 * -EFBIG (larger than max), -EIO (shorter than its size), -ENOMEM. */
int rk_file_read(const char *path, size_t max, char **out, size_t *len);

#endif
