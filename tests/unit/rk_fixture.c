/* rk_fixture.c: see rk_fixture.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "rk/buf.h"
#include "rk/composite.h"
#include "rk/hash.h"
#include "rk/vfs.h"
#include "rk/log.h"
#include "rk_fixture.h"
#include "rk_test.h"

#define FX_FAIL(...) rk_test_fail(__FILE__, __LINE__, __VA_ARGS__)

const char *fx_path(const char *fmt, ...)
{
	static char bufs[8][4096];
	static int next;
	char *b = bufs[next++ % 8];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b, sizeof(bufs[0]), fmt, ap);
	va_end(ap);
	return b;
}

void fx_mkdirs(const char *path)
{
	char tmp[4096];

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) && errno != EEXIST)
			FX_FAIL("mkdir '%s': %s", tmp, strerror(errno));
		*p = '/';
	}
	if (mkdir(tmp, 0755) && errno != EEXIST)
		FX_FAIL("mkdir '%s': %s", tmp, strerror(errno));
}

void fx_write(const char *path, const void *data, size_t len)
{
	const char *slash = strrchr(path, '/');
	int fd;

	if (slash && slash != path) {
		char dir[4096];

		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
		fx_mkdirs(dir);
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		FX_FAIL("open '%s': %s", path, strerror(errno));
	if (len && write(fd, data, len) != (ssize_t)len)
		FX_FAIL("write '%s': %s", path, strerror(errno));
	close(fd);
}

void fx_writes(const char *path, const char *s)
{
	fx_write(path, s, strlen(s));
}

char *fx_read(const char *path, size_t *len)
{
	struct stat st;
	char *buf;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st))
		FX_FAIL("open '%s': %s", path, strerror(errno));
	buf = malloc((size_t)st.st_size + 1);
	if (!buf || read(fd, buf, (size_t)st.st_size) != st.st_size)
		FX_FAIL("read '%s'", path);
	close(fd);
	buf[st.st_size] = '\0';
	if (len)
		*len = (size_t)st.st_size;
	return buf;
}

static la_ssize_t write_cb(struct archive *a, void *ud, const void *data, size_t len)
{
	(void)a;
	if (rk_buf_add(ud, data, len))
		return -1;
	return (la_ssize_t)len;
}

unsigned char *fx_tar_mem(enum fx_comp comp, const struct fx_member *m, size_t n, size_t *len)
{
	struct rk_buf out = RK_BUF_INIT;
	struct archive *a = archive_write_new();
	int r = ARCHIVE_OK;

	archive_write_set_format_pax(a);
	if (comp == FX_ZSTD)
		r = archive_write_add_filter_zstd(a);
	else if (comp == FX_XZ)
		r = archive_write_add_filter_xz(a);
	else if (comp == FX_GZIP)
		r = archive_write_add_filter_gzip(a);
	if (r != ARCHIVE_OK)
		FX_FAIL("libarchive filter %d: %s", comp, archive_error_string(a));
	archive_write_set_bytes_in_last_block(a, 1);
	if (archive_write_open(a, &out, NULL, write_cb, NULL) != ARCHIVE_OK)
		FX_FAIL("archive_write_open: %s", archive_error_string(a));
	for (size_t i = 0; i < n; i++) {
		struct archive_entry *e = archive_entry_new();
		size_t size = 0;

		archive_entry_set_pathname(e, m[i].name);
		archive_entry_set_mtime(e, FX_MTIME, 0);
		archive_entry_set_uid(e, 0);
		archive_entry_set_gid(e, 0);
		switch (m[i].type) {
		case FX_FILE:
			size = m[i].len < 0 ? strlen(m[i].data) : (size_t)m[i].len;
			archive_entry_set_filetype(e, AE_IFREG);
			archive_entry_set_perm(e, m[i].mode ? m[i].mode : 0644);
			archive_entry_set_size(e, (la_int64_t)size);
			break;
		case FX_DIR:
			archive_entry_set_filetype(e, AE_IFDIR);
			archive_entry_set_perm(e, m[i].mode ? m[i].mode : 0755);
			break;
		case FX_SYMLINK:
			archive_entry_set_filetype(e, AE_IFLNK);
			archive_entry_set_perm(e, 0777);
			archive_entry_set_symlink(e, m[i].data);
			break;
		case FX_HARDLINK:
			archive_entry_set_filetype(e, AE_IFREG);
			archive_entry_set_perm(e, m[i].mode ? m[i].mode : 0644);
			archive_entry_set_hardlink(e, m[i].data);
			archive_entry_set_size(e, 0);
			break;
		case FX_FIFO:
			archive_entry_set_filetype(e, AE_IFIFO);
			archive_entry_set_perm(e, 0644);
			break;
		}
		if (archive_write_header(a, e) != ARCHIVE_OK)
			FX_FAIL("archive_write_header '%s': %s", m[i].name,
				archive_error_string(a));
		if (size && archive_write_data(a, m[i].data, size) != (la_ssize_t)size)
			FX_FAIL("archive_write_data '%s': %s", m[i].name, archive_error_string(a));
		archive_entry_free(e);
	}
	if (archive_write_close(a) != ARCHIVE_OK)
		FX_FAIL("archive_write_close: %s", archive_error_string(a));
	archive_write_free(a);
	*len = out.len;
	return (unsigned char *)rk_buf_detach(&out, NULL);
}

size_t fx_tar(const char *path, enum fx_comp comp, const struct fx_member *m, size_t n)
{
	size_t len;
	unsigned char *data = fx_tar_mem(comp, m, n, &len);

	fx_write(path, data, len);
	free(data);
	return len;
}

void fx_sidecar(const char *archive)
{
	char hex[RK_SHA256_HEX + 1];
	size_t len;
	char *data = fx_read(archive, &len);

	if (rk_sha256_buf(data, len, hex))
		FX_FAIL("sha256");
	free(data);
	hex[64] = '\n';
	fx_write(fx_path("%s.sha256sum", archive), hex, 65);
}

/* A Python zipfile (deflate) with pkg/__init__.py and pkg-1.0.dist-info/METADATA. */
const unsigned char fx_wheel_zip[FX_WHEEL_ZIP_LEN] = {
	0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x21, 0x5c, 0x3b,
	0x89, 0xf6, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0x0f, 0x00, 0x00, 0x00,
	0x70, 0x6b, 0x67, 0x2f, 0x5f, 0x5f, 0x69, 0x6e, 0x69, 0x74, 0x5f, 0x5f, 0x2e, 0x70, 0x79,
	0xab, 0x50, 0xb0, 0x55, 0x30, 0xe4, 0x02, 0x00, 0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00,
	0x00, 0x08, 0x00, 0x00, 0x00, 0x21, 0x5c, 0x60, 0xfb, 0x94, 0xd0, 0x47, 0x00, 0x00, 0x00,
	0x5e, 0x00, 0x00, 0x00, 0x1a, 0x00, 0x00, 0x00, 0x70, 0x6b, 0x67, 0x2d, 0x31, 0x2e, 0x30,
	0x2e, 0x64, 0x69, 0x73, 0x74, 0x2d, 0x69, 0x6e, 0x66, 0x6f, 0x2f, 0x4d, 0x45, 0x54, 0x41,
	0x44, 0x41, 0x54, 0x41, 0xf3, 0x4d, 0x2d, 0x49, 0x4c, 0x49, 0x2c, 0x49, 0xd4, 0x0d, 0x4b,
	0x2d, 0x2a, 0xce, 0xcc, 0xcf, 0xb3, 0x52, 0x30, 0xd2, 0x33, 0xe4, 0xf2, 0x4b, 0xcc, 0x4d,
	0xb5, 0x52, 0x28, 0xc8, 0x4e, 0xe7, 0x82, 0x0b, 0x1b, 0xea, 0x19, 0x70, 0x05, 0xa5, 0x16,
	0x96, 0x66, 0x16, 0xa5, 0x16, 0xeb, 0x06, 0x54, 0x96, 0x64, 0x80, 0x04, 0xed, 0x6c, 0x8d,
	0xf5, 0x2c, 0xb9, 0xb8, 0x92, 0xf2, 0x53, 0x2a, 0x15, 0x30, 0x24, 0xf3, 0xf2, 0xb9, 0x00,
	0x50, 0x4b, 0x01, 0x02, 0x14, 0x03, 0x14, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x21,
	0x5c, 0x3b, 0x89, 0xf6, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0x0f, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x01, 0x00, 0x00, 0x00,
	0x00, 0x70, 0x6b, 0x67, 0x2f, 0x5f, 0x5f, 0x69, 0x6e, 0x69, 0x74, 0x5f, 0x5f, 0x2e, 0x70,
	0x79, 0x50, 0x4b, 0x01, 0x02, 0x14, 0x03, 0x14, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00,
	0x21, 0x5c, 0x60, 0xfb, 0x94, 0xd0, 0x47, 0x00, 0x00, 0x00, 0x5e, 0x00, 0x00, 0x00, 0x1a,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x01, 0x35, 0x00,
	0x00, 0x00, 0x70, 0x6b, 0x67, 0x2d, 0x31, 0x2e, 0x30, 0x2e, 0x64, 0x69, 0x73, 0x74, 0x2d,
	0x69, 0x6e, 0x66, 0x6f, 0x2f, 0x4d, 0x45, 0x54, 0x41, 0x44, 0x41, 0x54, 0x41, 0x50, 0x4b,
	0x05, 0x06, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x02, 0x00, 0x85, 0x00, 0x00, 0x00, 0xb4,
	0x00, 0x00, 0x00, 0x00, 0x00,
};

const char fx_wheel_meta[] = "Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n"
			     "Requires-Python: >=3.9\n\nbody Requires-Python: no\n";

/* ---- fat host binaries ---- */

static void put_u64(struct rk_buf *b, uint64_t v)
{
	unsigned char le[8];

	for (int i = 0; i < 8; i++)
		le[i] = (unsigned char)(v >> (8 * i));
	if (rk_buf_add(b, le, 8))
		FX_FAIL("out of memory");
}

static void put_zeros(struct rk_buf *b, size_t n)
{
	static const unsigned char z[256];

	for (size_t k; n; n -= k) {
		k = n < sizeof(z) ? n : sizeof(z);
		if (rk_buf_add(b, z, k))
			FX_FAIL("out of memory");
	}
}

unsigned char *fx_bundle(const struct fx_bundle_entry *e, size_t n, size_t align, size_t *len)
{
	struct rk_buf b = RK_BUF_INIT;
	size_t hdr = 32, off;

	for (size_t i = 0; i < n; i++)
		hdr += 24 + strlen(e[i].id);
	if (rk_buf_add(&b, "__CLANG_OFFLOAD_BUNDLE__", 24))
		FX_FAIL("out of memory");
	put_u64(&b, n);
	off = hdr;
	for (size_t i = 0; i < n; i++) {
		off = (off + align - 1) / align * align;
		put_u64(&b, off);
		put_u64(&b, e[i].size);
		put_u64(&b, strlen(e[i].id));
		if (rk_buf_adds(&b, e[i].id))
			FX_FAIL("out of memory");
		off += e[i].size;
	}
	off = hdr;
	for (size_t i = 0; i < n; i++) {
		off = (off + align - 1) / align * align;
		put_zeros(&b, off - hdr);
		if (e[i].size && rk_buf_add(&b, e[i].data, e[i].size))
			FX_FAIL("out of memory");
		hdr = off = off + e[i].size;
	}
	*len = b.len;
	if (!b.len)
		return malloc(1);
	return (unsigned char *)rk_buf_detach(&b, NULL);
}

unsigned char *fx_codeobj(unsigned flags, unsigned seed, size_t n)
{
	unsigned char *p = calloc(1, n < 64 ? 64 : n);

	if (!p)
		FX_FAIL("out of memory");
	memcpy(p, "\177ELF", 4);
	p[4] = 2; /* ELFCLASS64 */
	p[5] = 1; /* little-endian */
	p[6] = 1; /* EV_CURRENT */
	p[7] = 64; /* ELFOSABI_AMDGPU_HSA */
	p[8] = 3; /* ELFABIVERSION_AMDGPU_HSA_V5 */
	p[16] = 3; /* ET_DYN */
	p[18] = 224; /* EM_AMDGPU */
	p[20] = 1;
	for (int i = 0; i < 4; i++)
		p[48 + i] = (unsigned char)(flags >> (8 * i));
	p[52] = 64; /* e_ehsize */
	for (size_t i = 64; i < n; i++)
		p[i] = (unsigned char)((i * 13 + seed * 101 + (i >> 5)) % 253);
	return p;
}

void fx_need_cc(void)
{
	if (system("cc --version >/dev/null 2>&1") != 0)
		rk_test_skip("cc is not installed");
}

void fx_fat_elf(const char *out, enum fx_elf_kind k, int ntu, const unsigned char *const *fatbins,
		const size_t *sizes)
{
	struct rk_buf cmd = RK_BUF_INIT;
	int rc;

	fx_need_cc();
	rc = rk_buf_addf(&cmd, "cc -O1 -w %s -o %s",
			 k == FX_ELF_LIB   ? "-shared -fPIC"
			 : k == FX_ELF_EXE ? "-fPIE -pie"
					   : "-no-pie",
			 out);
	for (int t = 0; !rc && t < ntu; t++) {
		const char *name = fx_path("%s.tu%d.c", out, t);
		FILE *f = fopen(name, "w");

		if (!f)
			FX_FAIL("fopen '%s': %s", name, strerror(errno));
		fprintf(f,
			"static const unsigned char __hip_fatbin[%zu]\n"
			"    __attribute__((section(\".hip_fatbin\"), aligned(4096), used)) = {",
			sizes[t]);
		for (size_t i = 0; i < sizes[t]; i++)
			fprintf(f, "%u,", (unsigned)fatbins[t][i]);
		fprintf(f,
			"};\n"
			"static struct { unsigned magic, version; const void *binary; void "
			"*dummy1; }\n"
			"    __hip_fatbin_wrapper __attribute__((section(\".hipFatBinSegment\"), "
			"aligned(8), used))\n"
			"    = {0x48495046u, 1u, __hip_fatbin, 0};\n");
		fprintf(f, "int kp_tu%d_launch(int x) { return x * %d + 1; }\n", t, t + 3);
		if (fclose(f))
			FX_FAIL("write '%s'", name);
		rc = rk_buf_addf(&cmd, " %s", name);
	}
	if (!rc) {
		const char *name = fx_path("%s.api.c", out);
		FILE *f = fopen(name, "w");

		if (!f)
			FX_FAIL("fopen '%s': %s", name, strerror(errno));
		fprintf(f, "int kp_value(void) { return 42; }\n");
		if (k != FX_ELF_LIB)
			fprintf(f,
				"int kp_tu0_launch(int);\n"
				"int main(void) { return kp_value() == 42 && kp_tu0_launch(2) == 7 "
				"? 0 : 3; }\n");
		if (fclose(f))
			FX_FAIL("write '%s'", name);
		rc = rk_buf_addf(&cmd, " %s", name);
	}
	if (rc)
		FX_FAIL("out of memory");
	if (system(cmd.buf) != 0)
		FX_FAIL("'%s' failed", cmd.buf);
	rk_buf_release(&cmd);
}

static void quiet(enum rk_log_level l, const char *msg)
{
	(void)l;
	(void)msg;
}

void fx_quiet_logs(void)
{
	rk_log_set_handler(quiet);
}

struct rk_vfs *fx_vfs_open(const struct rk_vfs_opts *o)
{
	struct rk_vfs *v = NULL;
	struct rk_err err = RK_ERR_INIT;
	int rc;

	fx_quiet_logs();
	rc = rk_vfs_open(o, &v, &err);
	if (rc)
		FX_FAIL("rk_vfs_open: %s", rk_err_str(&err, rc));
	return v;
}

int fx_thread_count(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	int n = -1;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "Threads:", 8))
			n = (int)strtol(line + 8, NULL, 10);
	if (f)
		fclose(f);
	return n;
}

void fx_vfs_close(struct rk_vfs *v)
{
	rk_vfs_close(v);
	for (int i = 0; i < 500 && fx_thread_count() > 1; i++)
		usleep(10000);
}

struct rk_attr fx_resolve(struct rk_vfs *v, const char *path)
{
	struct rk_attr a;
	struct rk_err err = RK_ERR_INIT;
	int rc = rk_vfs_resolve(v, path, &a, &err);

	if (rc)
		FX_FAIL("resolve('%s'): %d %s", path, rc, rk_err_str(&err, rc));
	return a;
}

/* ---- composites over test buffers ---- */

#define FX_BLOBS 64
static struct {
	char id[RK_SHA256_HEX];
	const void *data;
	size_t len;
} fx_blobs[FX_BLOBS];
static size_t fx_nblobs;

void fx_blob(const void *data, size_t len, char *id)
{
	RK_ASSERT_EQ_INT(0, rk_sha256_buf(data, len, id));
	RK_ASSERT(fx_nblobs < FX_BLOBS);
	memcpy(fx_blobs[fx_nblobs].id, id, RK_SHA256_HEX);
	fx_blobs[fx_nblobs].data = data;
	fx_blobs[fx_nblobs].len = len;
	fx_nblobs++;
}

static ssize_t fx_blob_read(void *ctx, uint32_t src, void *buf, size_t n, uint64_t off)
{
	const struct rk_composite *c = ctx;

	for (size_t i = 0; src < c->nsources && i < fx_nblobs; i++) {
		if (strcmp(fx_blobs[i].id, c->sources[src].id))
			continue;
		if (off >= fx_blobs[i].len)
			return 0;
		if (n > fx_blobs[i].len - off)
			n = fx_blobs[i].len - off;
		memcpy(buf, (const char *)fx_blobs[i].data + off, n);
		return (ssize_t)n;
	}
	return -ENOENT;
}

unsigned char *fx_composite_read(const struct rk_composite *c)
{
	unsigned char *p = malloc(c->size ? c->size : 1);

	RK_ASSERT(p != NULL);
	RK_ASSERT_EQ_INT((ssize_t)c->size,
			 rk_composite_pread(c, fx_blob_read, (void *)c, p, c->size, 0));
	return p;
}

int fx_sh(const char *fmt, ...)
{
	va_list ap;
	char *cmd;
	int n, rc;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	RK_ASSERT(n >= 0 && (cmd = malloc((size_t)n + 1)) != NULL);
	va_start(ap, fmt);
	vsnprintf(cmd, (size_t)n + 1, fmt, ap);
	va_end(ap);
	rc = system(cmd);
	if (rc)
		fprintf(stderr, "command failed (%d): %s\n", rc, cmd);
	free(cmd);
	return rc;
}
