/* test_wheel_build.c: the python view's wheel builder (services/wheel.c:
 * pywheel_new/add/finish, and pywheel_dist_info_py) with a vfs on an empty store for its
 * cache. The wheel (a composite file) is read back through rk_composite_pread_blobs and
 * checked with
 * rk/wheel.h's readers: members and their order, bytes and CRCs, METADATA, WHEEL, RECORD
 * (sha256 and sizes recomputed here), the file name. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk/buf.h"
#include "rk/cache.h"
#include "rk/hash.h"
#include "rk/log.h"
#include "rk/vfs.h"
#include "rk/wheel.h"
#include "cache/composite_read.h"
#include "engine/vfs_int.h"
#include "formats/archive/tar_layout.h"
#include "views/python/pysrc.h"
#include "views/python/view_python.h"
#include "rk_fixture.h"
#include "rk_test.h"

#define T0 1767225600
#define LIBX "\177ELF not really a shared library\n"

static struct rk_vfs *open_vfs(void)
{
	struct rk_vfs_opts o = {.store = "store", .cache_dir = "cache", .ingest_jobs = 1};

	fx_mkdirs("store");
	return fx_vfs_open(&o);
}

/* The whole of composite l, malloc'd. */
static unsigned char *read_layout(struct rk_vfs *v, const struct rk_composite *l)
{
	unsigned char *buf = malloc(l->size ? l->size : 1);
	uint64_t off = 0;

	RK_ASSERT(buf != NULL);
	while (off < l->size) {
		ssize_t r = rk_composite_pread_blobs(v->cache, l, buf + off,
						     (size_t)(l->size - off), off, NULL);

		RK_ASSERT(r > 0);
		off += (uint64_t)r;
	}
	return buf;
}

/* sha256=<urlsafe base64 without padding>, computed here from the bytes. */
static void record_hash(const void *p, size_t n, char out[44])
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	char hex[RK_SHA256_HEX];
	unsigned char d[33] = {0};
	size_t o = 0;

	RK_ASSERT_EQ_INT(0, rk_sha256_buf(p, n, hex));
	for (int i = 0; i < 32; i++) {
		unsigned x;

		RK_ASSERT_EQ_INT(1, sscanf(hex + 2 * i, "%2x", &x));
		d[i] = (unsigned char)x;
	}
	for (int i = 0; i < 32; i += 3) {
		unsigned w = (unsigned)d[i] << 16 | (unsigned)d[i + 1] << 8 | d[i + 2];

		for (int k = 0; k < 4 && o < 43; k++)
			out[o++] = tab[(w >> (18 - 6 * k)) & 63];
	}
	out[43] = '\0';
}

static int collect(void *ctx, const void *buf, size_t n)
{
	return rk_buf_add(ctx, buf, n);
}

struct wheel {
	unsigned char *zip;
	size_t size;
	struct rk_mem mem;
	struct rk_wheel_member *m;
	size_t n;
};

static void open_wheel(struct rk_vfs *v, const struct pysynth *ps, struct wheel *w)
{
	struct rk_err err = RK_ERR_INIT;
	int rc;

	RK_ASSERT(ps->zip != NULL);
	RK_ASSERT_EQ_INT(ps->size, ps->zip->size);
	w->zip = read_layout(v, ps->zip);
	w->size = ps->zip->size;
	w->mem = (struct rk_mem){w->zip, w->size};
	rc = rk_wheel_list(rk_mem_pread, &w->mem, w->size, &w->m, &w->n, &err);
	if (rc)
		rk_test_fail(__FILE__, __LINE__, "rk_wheel_list: %s", rk_err_str(&err, rc));
}

static void close_wheel(struct wheel *w)
{
	rk_wheel_members_free(w->m, w->n);
	free(w->zip);
}

/* Member i's bytes (CRC and size checked by the extraction), NUL-terminated. */
static char *extract(struct wheel *w, size_t i, size_t *len)
{
	struct rk_buf b = RK_BUF_INIT;
	struct rk_err err = RK_ERR_INIT;
	char *p;
	int rc = rk_wheel_extract(rk_mem_pread, &w->mem, w->size, &w->m[i], collect, &b, &err);

	if (rc)
		rk_test_fail(__FILE__, __LINE__, "extract '%s': %s", w->m[i].name,
			     rk_err_str(&err, rc));
	RK_ASSERT_EQ_INT(0, rk_buf_add(&b, "", 1));
	*len = b.len - 1;
	p = rk_buf_detach(&b, NULL);
	RK_ASSERT(p != NULL);
	return p;
}

/* Every RECORD line but RECORD's own matches its member's bytes; RECORD is the last
 * member and lists every member once, in order. */
static void check_record(struct wheel *w, const char *record_name)
{
	size_t rlen, len;
	char *rec;
	const char *line;

	RK_ASSERT(w->n > 0);
	RK_ASSERT_EQ_STR(record_name, w->m[w->n - 1].name);
	rec = extract(w, w->n - 1, &rlen);
	line = rec;
	for (size_t i = 0; i < w->n; i++) {
		char want[1024], hash[44];
		char *data;
		const char *nl = strchr(line, '\n');

		RK_ASSERT(nl != NULL);
		if (i == w->n - 1) {
			snprintf(want, sizeof(want), "%s,,", w->m[i].name);
		} else {
			data = extract(w, i, &len);
			record_hash(data, len, hash);
			snprintf(want, sizeof(want), "%s,sha256=%s,%zu", w->m[i].name, hash, len);
			free(data);
			RK_ASSERT_EQ_INT(0, w->m[i].method); /* stored */
		}
		if ((size_t)(nl - line) != strlen(want) || strncmp(line, want, strlen(want)))
			rk_test_fail(__FILE__, __LINE__, "RECORD line %zu: '%.*s', want '%s'", i,
				     (int)(nl - line), line, want);
		line = nl + 1;
	}
	RK_ASSERT_EQ_STR("", line);
	free(rec);
}

static int count_sums(void)
{
	DIR *d = opendir("cache/pyhash");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += !strncmp(e->d_name, "sums-", 5);
	if (d)
		closedir(d);
	return n;
}

RK_TEST(layout_and_record)
{
	struct rk_vfs *v = open_vfs();
	struct pywheel *p = pywheel_new();
	struct pysynth_set out = {0};
	struct rk_err err = RK_ERR_INIT;
	struct rk_composite tl = RK_COMPOSITE_INIT;
	char id[RK_SHA256_HEX], fid[RK_SHA256_HEX];
	struct wheel w;
	size_t len;
	char *t;
	static const char *const names[] = {
		"Alpha/a.py",
		"pkg/__init__.py",
		"pkg/data.tar",
		"pkg/empty.txt",
		"pkg/lib/libx.so",
		"zeta/z.py",
		"rocm_sdk_core-7.13.0.dev0+abc.dist-info/METADATA",
		"rocm_sdk_core-7.13.0.dev0+abc.dist-info/WHEEL",
		"rocm_sdk_core-7.13.0.dev0+abc.dist-info/top_level.txt",
		"rocm_sdk_core-7.13.0.dev0+abc.dist-info/RECORD",
	};
	const struct pywheel_info in = {.dist = "rocm-sdk-core",
					.version = "7.13.0.dev0+abc",
					.tag = "py3-none-linux_x86_64",
					.requires = "rocm==7.13.0",
					.summary = "ROCm core",
					.top_level = "rocm_sdk_core\n",
					.from = "test",
					.mtime = T0};

	RK_ASSERT(p != NULL);
	/* a blob member, bytes, an empty file, a composite (a small tar), added out of
	 * order; a second add of a name is ignored */
	RK_ASSERT_EQ_INT(0, rk_blob_put(v->cache, LIBX, strlen(LIBX), id, &err));
	RK_ASSERT_EQ_INT(0, rk_blob_put(v->cache, "in the tar\n", 11, fid, &err));
	{
		struct rk_tar_member tm[2] = {
			{.path = "./", .mode = S_IFDIR | 0755},
			{.path = "./f", .mode = S_IFREG | 0644, .size = 11, .blob = fid}};

		RK_ASSERT_EQ_INT(0, rk_tar_layout_build(tm, 2, T0, &tl));
	}
	RK_ASSERT_EQ_INT(0, pywheel_add_str(p, "zeta/z.py", "z = 1\n"));
	RK_ASSERT_EQ_INT(0, pywheel_add(p, "pkg/lib/libx.so", S_IFREG | 0755, strlen(LIBX), id,
					NULL, NULL, NULL));
	RK_ASSERT_EQ_INT(
		0, pywheel_add(p, "pkg/data.tar", S_IFREG | 0644, tl.size, NULL, NULL, &tl, NULL));
	RK_ASSERT_EQ_INT(
		0, pywheel_add(p, "pkg/empty.txt", S_IFREG | 0644, 0, NULL, NULL, NULL, NULL));
	RK_ASSERT_EQ_INT(0, pywheel_add_str(p, "pkg/__init__.py", "first\n"));
	RK_ASSERT_EQ_INT(0, pywheel_add_str(p, "pkg/__init__.py", "second\n"));
	RK_ASSERT_EQ_INT(0, pywheel_add_str(p, "Alpha/a.py", "A\n"));
	RK_ASSERT_EQ_INT(0, pywheel_finish(v, p, &in, &out, &err));
	RK_ASSERT_EQ_INT(1, out.n);
	RK_ASSERT_EQ_STR("rocm_sdk_core-7.13.0.dev0+abc-py3-none-linux_x86_64.whl", out.v[0].file);
	RK_ASSERT_EQ_STR("test", out.v[0].from);

	open_wheel(v, &out.v[0], &w);
	RK_ASSERT_EQ_INT(sizeof(names) / sizeof(names[0]), w.n);
	for (size_t i = 0; i < w.n; i++)
		RK_ASSERT_EQ_STR(names[i], w.m[i].name);
	RK_ASSERT_EQ_INT(S_IFREG | 0755, w.m[4].mode);
	RK_ASSERT_EQ_INT(S_IFREG | 0644, w.m[1].mode);
	/* member bytes */
	t = extract(&w, 1, &len);
	RK_ASSERT_EQ_STR("first\n", t);
	free(t);
	t = extract(&w, 3, &len);
	RK_ASSERT_EQ_INT(0, len);
	free(t);
	t = extract(&w, 4, &len);
	RK_ASSERT_EQ_STR(LIBX, t);
	free(t);
	t = extract(&w, 2, &len);
	{
		unsigned char *tar = read_layout(v, &tl);

		RK_ASSERT_EQ_INT(tl.size, len);
		RK_ASSERT_EQ_MEM(tar, t, len);
		free(tar);
	}
	free(t);
	/* the dist-info files */
	t = extract(&w, 6, &len);
	RK_ASSERT_EQ_STR("Metadata-Version: 2.1\nName: rocm-sdk-core\nVersion: 7.13.0.dev0+abc\n"
			 "Summary: ROCm core\nRequires-Dist: rocm==7.13.0\n",
			 t);
	RK_ASSERT_EQ_INT(out.v[0].meta_len, len);
	RK_ASSERT_EQ_STR(t, out.v[0].meta);
	free(t);
	t = extract(&w, 7, &len);
	RK_ASSERT_EQ_STR("Wheel-Version: 1.0\nGenerator: rockfs\nRoot-Is-Purelib: false\n"
			 "Tag: py3-none-linux_x86_64\n",
			 t);
	free(t);
	t = extract(&w, 8, &len);
	RK_ASSERT_EQ_STR("rocm_sdk_core\n", t);
	free(t);
	check_record(&w, names[9]);
	/* METADATA as pip finds it */
	{
		char *meta = NULL;
		size_t mlen = 0;

		RK_ASSERT_EQ_INT(0, rk_wheel_metadata(rk_mem_pread, &w.mem, w.size,
						      "rocm_sdk_core-7.13.0.dev0+abc.dist-info",
						      &meta, &mlen, &err));
		RK_ASSERT_EQ_STR(out.v[0].meta, meta);
		free(meta);
	}
	/* the segment list's sums were computed once and kept */
	RK_ASSERT_EQ_INT(1, count_sums());
	close_wheel(&w);
	pysynth_release(&out);
	pywheel_free(p);
	rk_composite_release(&tl);
	rk_vfs_close(v);
}

RK_TEST(file_name_escapes_dash)
{
	struct rk_vfs *v = open_vfs();
	struct pywheel *p = pywheel_new();
	struct pysynth_set out = {0};
	struct rk_err err = RK_ERR_INIT;
	struct wheel w;
	const struct pywheel_info in = {.dist = "rocm-sdk-device-gfx942",
					.version = "7.13.0-rc1",
					.tag = "py3-none-any",
					.summary = "dev",
					.top_level = "x\n",
					.mtime = T0};
	size_t len;
	char *t;

	RK_ASSERT_EQ_INT(0, pywheel_add_str(p, "x/__init__.py", ""));
	RK_ASSERT_EQ_INT(0, pywheel_finish(v, p, &in, &out, &err));
	/* '-' in the name and in the version become '_' (PEP 427); the separators stay */
	RK_ASSERT_EQ_STR("rocm_sdk_device_gfx942-7.13.0_rc1-py3-none-any.whl", out.v[0].file);
	open_wheel(v, &out.v[0], &w);
	RK_ASSERT_EQ_INT(5, w.n);
	RK_ASSERT_EQ_STR("x/__init__.py", w.m[0].name);
	RK_ASSERT_EQ_STR("rocm_sdk_device_gfx942-7.13.0_rc1.dist-info/METADATA", w.m[1].name);
	RK_ASSERT_EQ_STR("rocm_sdk_device_gfx942-7.13.0_rc1.dist-info/WHEEL", w.m[2].name);
	RK_ASSERT_EQ_STR("rocm_sdk_device_gfx942-7.13.0_rc1.dist-info/top_level.txt", w.m[3].name);
	/* no Requires-Dist without requirements; the name as given */
	t = extract(&w, 1, &len);
	RK_ASSERT_EQ_STR("Metadata-Version: 2.1\nName: rocm-sdk-device-gfx942\n"
			 "Version: 7.13.0-rc1\nSummary: dev\n",
			 t);
	free(t);
	check_record(&w, "rocm_sdk_device_gfx942-7.13.0_rc1.dist-info/RECORD");
	/* the name parses back as a wheel of that project */
	{
		char project[128], di[256];

		RK_ASSERT_EQ_INT(RK_PYFILE_WHEEL, rk_pyfile_parse(out.v[0].file, project,
								  sizeof(project), di, sizeof(di)));
		RK_ASSERT_EQ_STR("rocm-sdk-device-gfx942", project);
		RK_ASSERT_EQ_STR("rocm_sdk_device_gfx942-7.13.0_rc1.dist-info", di);
	}
	close_wheel(&w);
	pysynth_release(&out);
	pywheel_free(p);
	rk_vfs_close(v);
}

/* The platform layout a synthesized wheel keeps (pysynth.members): the members in a
 * "_rocm_sdk_*" directory but its __init__.py (the devel tree has its own), sorted,
 * NUL-terminated; nothing for a wheel without one. A
 * stored wheel of its name is checked against it (view_python.c, check_stored). */
RK_TEST(platform_layout)
{
	struct rk_vfs *v = open_vfs();
	struct pywheel *p = pywheel_new(), *q = pywheel_new();
	struct pysynth_set out = {0};
	struct rk_err err = RK_ERR_INIT;
	const struct pywheel_info in = {.dist = "rocm-sdk-core",
					.version = "7.13.0",
					.tag = "py3-none-linux_x86_64",
					.summary = "core",
					.top_level = "_rocm_sdk_core\nrocm_sdk_core\n",
					.mtime = T0};
	static const char lay[] = "_rocm_sdk_core/bin/hipcc\0_rocm_sdk_core/lib/libamdhip64.so.7\0";

	RK_ASSERT_EQ_INT(0, pywheel_add_str(p, "_rocm_sdk_core/lib/libamdhip64.so.7", "elf"));
	RK_ASSERT_EQ_INT(0, pywheel_add_str(p, "rocm_sdk_core/__init__.py", ""));
	RK_ASSERT_EQ_INT(0, pywheel_add_str(p, "_rocm_sdk_core/bin/hipcc", "#!"));
	RK_ASSERT_EQ_INT(0, pywheel_add_str(p, "_rocm_sdk_core/__init__.py", ""));
	RK_ASSERT_EQ_INT(0, pywheel_finish(v, p, &in, &out, &err));
	RK_ASSERT_EQ_INT(sizeof(lay) - 1, out.v[0].members_len);
	RK_ASSERT_EQ_MEM(lay, out.v[0].members, sizeof(lay) - 1);
	/* a pure wheel: no layout */
	RK_ASSERT_EQ_INT(0, pywheel_add_str(q, "rocm_sdk_core/__init__.py", ""));
	RK_ASSERT_EQ_INT(0, pywheel_finish(v, q, &in, &out, &err));
	RK_ASSERT_EQ_INT(2, out.n);
	RK_ASSERT(out.v[1].members == NULL);
	RK_ASSERT_EQ_INT(0, out.v[1].members_len);
	pysynth_release(&out);
	pywheel_free(p);
	pywheel_free(q);
	rk_vfs_close(v);
}

RK_TEST(deterministic_key)
{
	struct rk_vfs *v = open_vfs();
	struct pysynth_set out = {0};
	struct rk_err err = RK_ERR_INIT;
	const struct pywheel_info in = {.dist = "pkg",
					.version = "1.0",
					.tag = "py3-none-any",
					.summary = "s",
					.top_level = "pkg\n",
					.mtime = T0};

	for (int i = 0; i < 3; i++) {
		struct pywheel *p = pywheel_new();

		RK_ASSERT_EQ_INT(0, pywheel_add_str(p, "pkg/b.py", "b\n"));
		RK_ASSERT_EQ_INT(0, pywheel_add_str(p, "pkg/a.py", i == 2 ? "changed\n" : "a\n"));
		RK_ASSERT_EQ_INT(0, pywheel_finish(v, p, &in, &out, &err));
		pywheel_free(p);
	}
	RK_ASSERT_EQ_INT(3, out.n);
	/* the same members: the same bytes and key; other content: another key */
	RK_ASSERT_EQ_INT(out.v[0].size, out.v[1].size);
	RK_ASSERT_EQ_STR(out.v[0].key, out.v[1].key);
	RK_ASSERT(strcmp(out.v[0].key, out.v[2].key) != 0);
	{
		unsigned char *a = read_layout(v, out.v[0].zip), *b = read_layout(v, out.v[1].zip);

		RK_ASSERT_EQ_MEM(a, b, out.v[0].size);
		free(a);
		free(b);
	}
	pysynth_truncate(&out, 1);
	RK_ASSERT_EQ_INT(1, out.n);
	pysynth_release(&out);
	rk_vfs_close(v);
}

RK_TEST(dist_info_py)
{
	const struct rk_pysrc *tpl = rk_pysrc_find("rocm_sdk/_dist_info.py");
	char f1[] = "gfx94X-dcgpu", f2[] = "gfx110X-all", *fams[] = {f1, f2};
	struct rk_buf b = RK_BUF_INIT;

	RK_ASSERT(tpl != NULL);
	RK_ASSERT_EQ_INT(
		0, pywheel_dist_info_py("7.13.0", 1, fams, 2, "libraries", "gfx94X-dcgpu", &b));
	RK_ASSERT(b.len > tpl->len);
	RK_ASSERT_EQ_MEM(tpl->data, b.buf, tpl->len);
	RK_ASSERT_EQ_STR(
		"__version__ = '7.13.0'\n"
		"PY_PACKAGE_SUFFIX_NONCE = ''\n"
		"ALL_PACKAGES[\"libraries\"].dist_package_template = \"rocm-sdk-libraries\"\n"
		"DEFAULT_TARGET_FAMILY = 'gfx94X-dcgpu'\n"
		"AVAILABLE_TARGET_FAMILIES.append('gfx94X-dcgpu')\n"
		"AVAILABLE_TARGET_FAMILIES.append('gfx110X-all')\n"
		"LINUX_TARGET_FAMILIES.append('gfx94X-dcgpu')\n"
		"LINUX_TARGET_FAMILIES.append('gfx110X-all')\n"
		"THIS_TARGET_FAMILY = 'gfx94X-dcgpu'\n"
		"THIS_PACKAGE_ENTRY = ALL_PACKAGES['libraries']\n",
		b.buf + tpl->len);
	rk_buf_release(&b);

	/* legacy, no families, no entry (the sdist) */
	RK_ASSERT_EQ_INT(0, pywheel_dist_info_py("7.13.0", 0, NULL, 0, NULL, NULL, &b));
	RK_ASSERT_EQ_STR("__version__ = '7.13.0'\n"
			 "PY_PACKAGE_SUFFIX_NONCE = ''\n"
			 "THIS_TARGET_FAMILY = None\n"
			 "THIS_PACKAGE_ENTRY = None\n",
			 b.buf + tpl->len);
	rk_buf_release(&b);
}

RK_TEST(dist_info_py_in_a_wheel)
{
	struct rk_vfs *v = open_vfs();
	struct pywheel *p = pywheel_new();
	struct pysynth_set out = {0};
	struct rk_err err = RK_ERR_INIT;
	struct rk_buf di = RK_BUF_INIT, copy = RK_BUF_INIT;
	char f1[] = "gfx942", *fams[] = {f1};
	const struct pywheel_info in = {.dist = "rocm-sdk-libraries",
					.version = "7.13.0",
					.tag = "py3-none-linux_x86_64",
					.requires = "rocm-sdk-core==7.13.0",
					.summary = "libraries",
					.top_level = "rocm_sdk_libraries\n",
					.mtime = T0};
	struct wheel w;
	size_t len;
	char *t;

	RK_ASSERT_EQ_INT(0, pywheel_dist_info_py("7.13.0", 1, fams, 1, "libraries", NULL, &di));
	RK_ASSERT_EQ_INT(0, rk_buf_add(&copy, di.buf, di.len));
	/* pywheel_add_buf takes the buffer over */
	RK_ASSERT_EQ_INT(0, pywheel_add_buf(p, "rocm_sdk_libraries/_dist_info.py", &di));
	RK_ASSERT_EQ_INT(0, di.len);
	RK_ASSERT_EQ_INT(0, pywheel_finish(v, p, &in, &out, &err));
	open_wheel(v, &out.v[0], &w);
	RK_ASSERT_EQ_STR("rocm_sdk_libraries/_dist_info.py", w.m[0].name);
	t = extract(&w, 0, &len);
	RK_ASSERT_EQ_INT(copy.len, len);
	RK_ASSERT_EQ_MEM(copy.buf, t, len);
	free(t);
	check_record(&w, "rocm_sdk_libraries-7.13.0.dist-info/RECORD");
	close_wheel(&w);
	rk_buf_release(&di);
	rk_buf_release(&copy);
	pysynth_release(&out);
	pywheel_free(p);
	rk_vfs_close(v);
}
