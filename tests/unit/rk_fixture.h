/* rk_fixture.h: files and artifact archives for the unit tests (paths relative to the
 * test's temporary directory). Every helper aborts the test on failure. */
#ifndef RK_FIXTURE_H
#define RK_FIXTURE_H

#include "rk/vfs.h"

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

/* ---- fat host binaries (the kpack split's input) ---- */

/* A clang offload bundle as clang-offload-bundler -bundle-align=align writes it: each
 * entry at the next multiple of align after the previous one's end (an empty host entry
 * takes the first such offset and leaves it to the next entry), no tail padding. */
struct fx_bundle_entry {
	const char *id; /* "host-x86_64-unknown-linux-gnu-", "hipv4-amdgcn-amd-amdhsa--gfx942" */
	const unsigned char *data;
	size_t size;
};
unsigned char *fx_bundle(const struct fx_bundle_entry *e, size_t n, size_t align, size_t *len);
/* A stand-in AMDGPU code object (ELF64, HSA, code object V5) of n >= 64 bytes whose
 * e_flags are flags (mach | xnack/sramecc bits); the bytes after the header depend on
 * seed. malloc'd. */
unsigned char *fx_codeobj(unsigned flags, unsigned seed, size_t n);

/* A host binary built with cc from ntu fat translation units, the way tests/demo/mkdemo.py
 * builds its fat libraries: TU t has fatbins[t][0..sizes[t]) as a 4096-aligned
 * __hip_fatbin in .hip_fatbin and a HIPF wrapper in .hipFatBinSegment pointing at it, and
 * kp_tu<t>_launch(x) = x * (t + 3) + 1; plus an exported kp_value() returning 42 (and a
 * main for executables). Skips the test when cc is missing. */
enum fx_elf_kind { FX_ELF_LIB, FX_ELF_EXE, FX_ELF_EXE_NOPIE };
void fx_need_cc(void);
void fx_fat_elf(const char *out, enum fx_elf_kind k, int ntu, const unsigned char *const *fatbins,
		const size_t *sizes);

/* A vfs over the options (logs silenced; fails the test on error), and its close, which
 * also waits (up to 5 s) for its ingest threads to be gone: they can outlive close, and
 * their exit must not race the test's own. fx_thread_count: this process's threads. */
struct rk_vfs;
struct rk_vfs_opts;
void fx_quiet_logs(void);
struct rk_vfs *fx_vfs_open(const struct rk_vfs_opts *o);
void fx_vfs_close(struct rk_vfs *v);
int fx_thread_count(void);
/* rk_vfs_resolve of path, failing the test on error. */
struct rk_attr fx_resolve(struct rk_vfs *v, const char *path);

/* ---- composites over test buffers (no cache) ---- */

struct rk_composite;
/* Register data[0..len) (borrowed: it must outlive the reads) as the blob whose id, its
 * SHA-256, is written to id (65 bytes). */
void fx_blob(const void *data, size_t len, char *id);
/* The whole composite, its sources read from the registered blobs by id (malloc'd). */
unsigned char *fx_composite_read(const struct rk_composite *c);
/* Run a shell command; its exit status (0: success). cmd is printed on failure. */
int fx_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
