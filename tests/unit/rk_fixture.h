/* rk_fixture.h: files and artifact archives for the unit tests (paths relative to the
 * test's temporary directory). Every helper aborts the test on failure. */
#ifndef RK_FIXTURE_H
#define RK_FIXTURE_H

#include <stddef.h>

enum fx_type { FX_FILE = 'f', FX_DIR = 'd', FX_SYMLINK = 'l', FX_HARDLINK = 'h', FX_FIFO = 'p' };
enum fx_comp { FX_NONE, FX_ZSTD, FX_XZ, FX_GZIP };

struct fx_member {
	int type; /* enum fx_type */
	const char *name; /* stored as given (may be hostile) */
	const char *data; /* file contents, or symlink/hardlink target */
	long len; /* file size; -1: strlen(data) */
	unsigned mode; /* 0: 0644 (0755 for directories) */
};

#define FX_MTIME 1767225600 /* every member's mtime */
#define FX_MANIFEST(text)                                       \
	{                                                       \
		FX_FILE, "artifact_manifest.txt", (text), -1, 0 \
	}

void fx_mkdirs(const char *path);
void fx_write(const char *path, const void *data, size_t len); /* creates parent dirs */
void fx_writes(const char *path, const char *s);
char *fx_read(const char *path, size_t *len); /* malloc'd, NUL-terminated */
/* A PAX tar stream of members, compressed with comp, into a malloc'd buffer. */
unsigned char *fx_tar_mem(enum fx_comp comp, const struct fx_member *m, size_t n, size_t *len);
/* The same, written to path (parent dirs created); returns the size. */
size_t fx_tar(const char *path, enum fx_comp comp, const struct fx_member *m, size_t n);
/* path.sha256sum holding the archive's hash (TheRock's format: hex + '\n'). */
void fx_sidecar(const char *archive);
/* Join dir and name into a static rotating buffer. */
const char *fx_path(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A small wheel as Python's zipfile writes it (deflate): pkg/__init__.py and
 * pkg-1.0.dist-info/METADATA, whose bytes are fx_wheel_meta. */
#define FX_WHEEL_ZIP_LEN 335
extern const unsigned char fx_wheel_zip[FX_WHEEL_ZIP_LEN];
extern const char fx_wheel_meta[];

#endif
