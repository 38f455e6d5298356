/* test_kpack.c: .kpack writer (composite) and reader, marker, search pattern, runtime lookup. */
#include <errno.h>
#include <msgpack.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "rk/kpack.h"
#include "rk/kpack_lookup.h"
#include "rk_fixture.h"
#include "rk_test.h"

struct src {
	const void *p;
	size_t n;
};

static ssize_t mem_read(void *ctx, uint32_t s, void *buf, size_t n, uint64_t off)
{
	const struct src *v = ctx;

	if (off > v[s].n)
		return -EIO;
	n = RK_MIN(n, v[s].n - (size_t)off);
	memcpy(buf, (const char *)v[s].p + off, n);
	return (ssize_t)n;
}

/* Lay out an archive and read it back into memory. */
static unsigned char *build(const char *group, const char *const *arches, size_t narches,
			    const struct rk_kpack_kernel *k, size_t n, int scheme,
			    const struct src *srcs, size_t *len)
{
	struct rk_composite s = RK_COMPOSITE_INIT;
	struct rk_err err = RK_ERR_INIT;
	unsigned char *buf;
	int rc = rk_kpack_build(group, arches, narches, k, n, scheme, mem_read, (void *)srcs, &s,
				&err);

	if (rc)
		rk_test_fail(__FILE__, __LINE__, "rk_kpack_build: %d %s", rc, err.msg);
	buf = malloc(s.size + 1);
	RK_ASSERT(buf);
	RK_ASSERT_EQ_INT((long long)s.size,
			 rk_composite_pread(&s, mem_read, (void *)srcs, buf, s.size, 0));
	*len = (size_t)s.size;
	rk_composite_release(&s);
	return buf;
}

static void get_eq(const struct rk_kpack *k, const char *key, const char *arch, const void *want,
		   size_t n)
{
	struct rk_err err = RK_ERR_INIT;
	void *data;
	size_t size;
	int rc = rk_kpack_get(k, key, arch, &data, &size, &err);

	if (rc)
		rk_test_fail(__FILE__, __LINE__, "get '%s' '%s': %d %s", key, arch, rc, err.msg);
	RK_ASSERT_EQ_INT(n, size);
	RK_ASSERT_EQ_MEM(want, data, n);
	free(data);
}

#define A_ "code object A for gfx1100"
#define B_ "code object B for gfx942:xnack+, a bit longer"
static const char A[] = A_;
static const char B[] = B_;
static const char C[] = "CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC";

/* Two sources; key "lib/b.so#0" appears first, then "lib/a.so#0", then b again. */
static const struct src srcs[] = {{"xx" A_ B_ "yy", 4 + sizeof(A) - 1 + sizeof(B) - 1},
				  {C, sizeof(C) - 1}};
static const struct rk_kpack_kernel kernels[] = {
	{"lib/b.so#0", "gfx1100", "hipv4-amdgcn-amd-amdhsa--gfx1100", "pre", 0, 2, sizeof(A) - 1},
	{"lib/a.so#0", "gfx1100", NULL, NULL, 1, 0, sizeof(C) - 1},
	{"lib/b.so#0", "gfx942:xnack+", NULL, "pre", 0, 2 + sizeof(A) - 1, sizeof(B) - 1},
	{"lib/e.so#0", "gfx1100", NULL, NULL, 1, 0, 0},
};
static const char *const arches[] = {"gfx1100", "gfx942:xnack+"};

static void check_archive(const unsigned char *buf, size_t len, int scheme)
{
	struct rk_kpack *k;
	struct rk_err err = RK_ERR_INIT;

	if (rk_kpack_open(buf, len, &k, &err))
		rk_test_fail(__FILE__, __LINE__, "open: %s", err.msg);
	RK_ASSERT_EQ_INT(scheme, rk_kpack_scheme(k));
	RK_ASSERT_EQ_STR("grp", rk_kpack_group(k));
	RK_ASSERT_EQ_INT(2, rk_kpack_arch_count(k));
	RK_ASSERT_EQ_STR("gfx1100", rk_kpack_arch(k, 0));
	RK_ASSERT_EQ_STR("gfx942:xnack+", rk_kpack_arch(k, 1));
	RK_ASSERT(!rk_kpack_arch(k, 2));
	RK_ASSERT_EQ_INT(3, rk_kpack_binary_count(k));
	RK_ASSERT_EQ_STR("lib/a.so#0", rk_kpack_binary(k, 0)); /* sorted */
	RK_ASSERT_EQ_STR("lib/b.so#0", rk_kpack_binary(k, 1));
	RK_ASSERT_EQ_STR("lib/e.so#0", rk_kpack_binary(k, 2));
	get_eq(k, "lib/b.so#0", "gfx1100", A, sizeof(A) - 1);
	get_eq(k, "lib/b.so#0", "gfx942:xnack+", B, sizeof(B) - 1);
	get_eq(k, "lib/a.so#0", "gfx1100", C, sizeof(C) - 1);
	get_eq(k, "lib/e.so#0", "gfx1100", "", 0);
	{
		void *d = (void *)1;
		size_t n = 1;

		RK_ASSERT_EQ_INT(-ENOENT, rk_kpack_get(k, "lib/a.so#0", "gfx942", &d, &n, &err));
		RK_ASSERT(!d && !n && strstr(err.msg, "lib/a.so#0"));
		RK_ASSERT_EQ_INT(-ENOENT, rk_kpack_get(k, "lib/z.so#0", "gfx1100", &d, &n, &err));
	}
	rk_kpack_close(k);
}

/* Offset of the first occurrence of the msgpack str s in buf, or -1. */
static long find_str(const unsigned char *buf, size_t len, const char *s)
{
	size_t n = strlen(s);

	for (size_t i = 0; i + n + 1 <= len; i++)
		if (buf[i] == (0xa0 | n) && !memcmp(buf + i + 1, s, n))
			return (long)i;
	return -1;
}

RK_TEST(build_none)
{
	struct rk_composite s = RK_COMPOSITE_INIT;
	struct rk_err err = RK_ERR_INIT;
	unsigned char *buf;
	size_t len;
	const char *order[] = {
		"format_version", "group_name", "gfx_arch_family", "gfx_arches",	 "toc",
		"lib/b.so#0",	  "lib/a.so#0", "lib/e.so#0",	   "compression_scheme", "blobs"};
	long prev = -1;

	RK_ASSERT_EQ_INT(0, rk_kpack_build("grp", arches, 2, kernels, 4, RK_KPACK_NONE, NULL, NULL,
					   &s, &err));
	/* the code objects are ranges of their sources, not copies */
	{
		const struct rk_piece *p = rk_composite_find(&s, 64);

		RK_ASSERT_EQ_INT(RK_PIECE_SOURCE, p->kind);
		RK_ASSERT_EQ_INT(0, p->src);
		RK_ASSERT_EQ_INT(2, p->at);
		p = rk_composite_find(&s, 64 + sizeof(A) - 1);
		RK_ASSERT_EQ_INT(RK_PIECE_SOURCE, p->kind);
		RK_ASSERT_EQ_INT(1, p->src);
	}
	rk_composite_release(&s);
	buf = build("grp", arches, 2, kernels, 4, RK_KPACK_NONE, srcs, &len);
	RK_ASSERT_EQ_MEM("KPAK\1\0\0\0", buf, 8);
	RK_ASSERT_EQ_MEM(A, buf + 64, sizeof(A) - 1);
	for (size_t i = 0; i < RK_ARRAY_SIZE(order); i++) {
		long at = find_str(buf, len, order[i]);

		if (at <= prev)
			rk_test_fail(__FILE__, __LINE__, "'%s' at %ld, after %ld", order[i], at,
				     prev);
		prev = at;
	}
	check_archive(buf, len, RK_KPACK_NONE);
	free(buf);
}

RK_TEST(build_zstd)
{
	unsigned char *buf;
	size_t len;

	buf = build("grp", arches, 2, kernels, 4, RK_KPACK_ZSTD, srcs, &len);
	RK_ASSERT_EQ_INT(4, buf[64]); /* num_kernels */
	RK_ASSERT_EQ_MEM("\x28\xb5\x2f\xfd", buf + 72, 4); /* frame 0 */
	RK_ASSERT_EQ_INT(0, buf[76] & 0x04); /* no checksum */
	RK_ASSERT((buf[76] & 0x20) || (buf[76] & 0xc0)); /* content size present */
	check_archive(buf, len, RK_KPACK_ZSTD);
	free(buf);
}

RK_TEST(build_errors)
{
	struct rk_composite s = RK_COMPOSITE_INIT;
	struct rk_err err = RK_ERR_INIT;
	struct rk_kpack_kernel dup[2] = {kernels[0], kernels[0]};

	RK_ASSERT_EQ_INT(-EINVAL, rk_kpack_build("grp", arches, 2, dup, 2, RK_KPACK_NONE, NULL,
						 NULL, &s, &err));
	RK_ASSERT(strstr(err.msg, "twice"));
	RK_ASSERT_EQ_INT(-EINVAL,
			 rk_kpack_build("grp", arches, 2, kernels, 1, 7, NULL, NULL, &s, &err));
	RK_ASSERT_EQ_INT(-EINVAL, rk_kpack_build("grp", arches, 2, kernels, 1, RK_KPACK_ZSTD, NULL,
						 NULL, &s, &err));
	/* an empty archive is valid */
	{
		size_t len;
		unsigned char *buf = build("grp", arches, 1, NULL, 0, RK_KPACK_ZSTD, srcs, &len);
		struct rk_kpack *k;

		RK_ASSERT_EQ_INT(0, rk_kpack_open(buf, len, &k, &err));
		RK_ASSERT_EQ_INT(0, rk_kpack_binary_count(k));
		rk_kpack_close(k);
		free(buf);
	}
}

/* mkdemo.py's writer and code objects (the demo store's blas_lib_gfx1100 .kpack):
 * our writer, given the same kernels in the same order, writes the same bytes. */
RK_TEST(demo_bytes)
{
	char dir[4096], cmd[8192];
	const char *slash;
	char *demo, *meta;
	size_t demo_len, meta_len, n = 0;
	struct rk_kpack_kernel k[8];
	struct src s[8];
	char *keys[8], *prefixes[8];
	const char *arch[] = {"gfx1100"};
	unsigned char *buf;
	size_t len;
	struct rk_kpack *kp;
	struct rk_err err = RK_ERR_INIT;

	if (system("python3 -c 1 >/dev/null 2>&1") || system("zstd -V >/dev/null 2>&1"))
		RK_SKIP("python3 or zstd missing");
	slash = strrchr(__FILE__, '/');
	if (__FILE__[0] != '/' || !slash)
		RK_SKIP("source path unknown");
	snprintf(dir, sizeof(dir), "%.*s/../demo", (int)(slash - __FILE__), __FILE__);
	snprintf(cmd, sizeof(cmd),
		 "python3 - <<'EOF'\n"
		 "import sys; sys.path.insert(0, '%s'); import mkdemo as m\n"
		 "libs = sorted(m.FAT_GROUPS['blas_lib'], key=lambda l: "
		 "m.BLAS_PREFIXES.index(l.prefix))\n"
		 "ks = [(l.prefix + '/' + l.relpath, i, l.prefix, m.code_object('gfx1100', "
		 "tu.kernel)) for l in libs for i, tu in enumerate(l.tus)]\n"
		 "open('demo.kpack', 'wb').write(m.kpack_archive('blas_lib', 'gfx1100', ks))\n"
		 "with open('meta.txt', 'w') as f:\n"
		 "    for n, (name, i, prefix, co) in enumerate(ks):\n"
		 "        open('co%%d' %% n, 'wb').write(co)\n"
		 "        f.write('%%s#%%d %%s\\n' %% (name, i, prefix))\n"
		 "EOF\n",
		 dir);
	RK_ASSERT_EQ_INT(0, system(cmd));
	demo = fx_read("demo.kpack", &demo_len);
	meta = fx_read("meta.txt", &meta_len);
	for (char *line = meta; *line && n < 8; n++) {
		char *nl = strchr(line, '\n'), *sp = strchr(line, ' ');

		RK_ASSERT(nl && sp && sp < nl);
		*nl = *sp = '\0';
		keys[n] = line;
		prefixes[n] = sp + 1;
		s[n].p = fx_read(fx_path("co%zu", n), &s[n].n);
		k[n] = (struct rk_kpack_kernel){
			keys[n],     "gfx1100",	  "hipv4-amdgcn-amd-amdhsa--gfx1100",
			prefixes[n], (uint32_t)n, 0,
			s[n].n};
		line = nl + 1;
	}
	RK_ASSERT_EQ_INT(3, n);
	buf = build("blas_lib", arch, 1, k, n, RK_KPACK_ZSTD, s, &len);
	RK_ASSERT_EQ_INT(demo_len, len);
	RK_ASSERT_EQ_MEM(demo, buf, len);
	RK_ASSERT_EQ_INT(0, rk_kpack_open(demo, demo_len, &kp, &err));
	for (size_t i = 0; i < n; i++)
		get_eq(kp, keys[i], "gfx1100", s[i].p, s[i].n);
	rk_kpack_close(kp);
	for (size_t i = 0; i < n; i++)
		free((void *)s[i].p);
	free(buf);
	free(demo);
	free(meta);
}

/* Hostile archives ------------------------------------------------------------------- */

struct mp {
	msgpack_sbuffer sb;
	msgpack_packer pk;
};

static void mp_begin(struct mp *m)
{
	msgpack_sbuffer_init(&m->sb);
	msgpack_packer_init(&m->pk, &m->sb, msgpack_sbuffer_write);
}

static void s_(struct mp *m, const char *s)
{
	msgpack_pack_str(&m->pk, strlen(s));
	msgpack_pack_str_body(&m->pk, s, strlen(s));
}

/* header + region + toc; toc_offset = 64 + region length unless toc_off != 0. */
static unsigned char *assemble(const void *region, size_t rlen, const void *toc, size_t tlen,
			       uint64_t toc_off, size_t *len)
{
	unsigned char *b = calloc(1, 64 + rlen + tlen);

	RK_ASSERT(b);
	memcpy(b, "KPAK\1\0\0\0", 8);
	if (!toc_off)
		toc_off = 64 + rlen;
	for (int i = 0; i < 8; i++)
		b[8 + i] = (unsigned char)(toc_off >> (8 * i));
	memcpy(b + 64, region, rlen);
	memcpy(b + 64 + rlen, toc, tlen);
	*len = 64 + rlen + tlen;
	return b;
}

enum variant {
	V_OK,
	V_NO_ARCHES,
	V_ARCH_INT,
	V_ORDINAL_BIG,
	V_BLOB_OUT,
	V_SCHEME_BAD,
	V_NO_ORIG,
	V_ORIG_WRONG,
	V_ZSTD_SIZE_BIG,
	V_ZSTD_PAST,
	V_ENTRY_NOT_MAP,
	V_DUP_ARCH,
};

/* A one-kernel TOC (zstd unless none), broken as v says. */
static void toc_variant(struct mp *m, enum variant v, int none, uint64_t zsize, uint64_t orig)
{
	mp_begin(m);
	msgpack_pack_map(&m->pk, (v == V_NO_ARCHES ? 4 : 5) + !none);
	s_(m, "group_name");
	s_(m, "g");
	if (v != V_NO_ARCHES) {
		s_(m, "gfx_arches");
		msgpack_pack_array(&m->pk, 1);
		if (v == V_ARCH_INT)
			msgpack_pack_int(&m->pk, 5);
		else
			s_(m, "gfx1100");
	}
	s_(m, "toc");
	msgpack_pack_map(&m->pk, 1);
	s_(m, "k#0");
	msgpack_pack_map(&m->pk, v == V_DUP_ARCH ? 2 : 1);
	for (int i = 0; i < (v == V_DUP_ARCH ? 2 : 1); i++) {
		s_(m, "gfx1100");
		if (v == V_ENTRY_NOT_MAP) {
			msgpack_pack_nil(&m->pk);
			continue;
		}
		msgpack_pack_map(&m->pk, v == V_NO_ORIG ? 1 : 2);
		s_(m, "ordinal");
		msgpack_pack_uint64(&m->pk, v == V_ORDINAL_BIG ? 1 : 0);
		if (v != V_NO_ORIG) {
			s_(m, "original_size");
			msgpack_pack_uint64(&m->pk, v == V_ORIG_WRONG ? orig + 1 : orig);
		}
	}
	s_(m, "compression_scheme");
	s_(m, v == V_SCHEME_BAD ? "lz4" : none ? "none" : "zstd-per-kernel");
	if (none) {
		s_(m, "blobs");
		msgpack_pack_array(&m->pk, 1);
		msgpack_pack_map(&m->pk, 2);
		s_(m, "offset");
		msgpack_pack_uint64(&m->pk, 64);
		s_(m, "size");
		msgpack_pack_uint64(&m->pk, v == V_BLOB_OUT ? 1000 : orig);
	} else {
		s_(m, "zstd_offset");
		msgpack_pack_uint64(&m->pk, 64);
		s_(m, "zstd_size");
		msgpack_pack_uint64(&m->pk, v == V_ZSTD_SIZE_BIG ? (5ull << 30)
					    : v == V_ZSTD_PAST	 ? zsize + 1
								 : zsize);
	}
}

/* Open the variant; return the open code, and on success try the get. */
static int try_variant(enum variant v, int none, char *msg, size_t msglen)
{
	const char co[] = "hello hello hello hello hello code object";
	unsigned char region[256];
	size_t rlen, len;
	struct mp m;
	unsigned char *b;
	struct rk_kpack *k = NULL;
	struct rk_err err = RK_ERR_INIT;
	int rc;

	if (none) {
		memcpy(region, co, sizeof(co) - 1);
		rlen = sizeof(co) - 1;
	} else {
		size_t z = ZSTD_compress(region + 8, sizeof(region) - 8, co, sizeof(co) - 1, 3);

		RK_ASSERT(!ZSTD_isError(z));
		memcpy(region, "\1\0\0\0", 4);
		for (int i = 0; i < 4; i++)
			region[4 + i] = (unsigned char)(z >> (8 * i));
		rlen = 8 + z;
	}
	toc_variant(&m, v, none, rlen, sizeof(co) - 1);
	b = assemble(region, rlen, m.sb.data, m.sb.size, 0, &len);
	rc = rk_kpack_open(b, len, &k, &err);
	if (!rc) {
		void *d;
		size_t n;

		rc = rk_kpack_get(k, "k#0", "gfx1100", &d, &n, &err);
		if (!rc) {
			RK_ASSERT_EQ_INT(sizeof(co) - 1, n);
			RK_ASSERT_EQ_MEM(co, d, n);
			free(d);
		}
		rk_kpack_close(k);
	}
	snprintf(msg, msglen, "%s", err.msg);
	free(b);
	msgpack_sbuffer_destroy(&m.sb);
	return rc;
}

static void variant_bad(enum variant v, int none, const char *msg)
{
	char got[512];
	int rc = try_variant(v, none, got, sizeof(got));

	if (rc != -EBADMSG || !strstr(got, msg))
		rk_test_fail(__FILE__, __LINE__, "variant %d/%d: %d '%s', want '%s'", v, none, rc,
			     got, msg);
}

RK_TEST(hostile_toc)
{
	char got[512];

	if (try_variant(V_OK, 0, got, sizeof(got)) || try_variant(V_OK, 1, got, sizeof(got)) ||
	    try_variant(V_NO_ORIG, 1, got, sizeof(got))) /* none: original_size optional */
		rk_test_fail(__FILE__, __LINE__, "valid variant: %s", got);
	variant_bad(V_NO_ARCHES, 0, "gfx_arches");
	variant_bad(V_ARCH_INT, 0, "gfx_arches[0]");
	variant_bad(V_ORDINAL_BIG, 0, "ordinal 1");
	variant_bad(V_ORDINAL_BIG, 1, "ordinal 1");
	variant_bad(V_BLOB_OUT, 1, "blobs[0]");
	variant_bad(V_SCHEME_BAD, 0, "'lz4'");
	variant_bad(V_NO_ORIG, 0, "original_size");
	variant_bad(V_ORIG_WRONG, 0, "original_size");
	variant_bad(V_ORIG_WRONG, 1, "original_size");
	variant_bad(V_ZSTD_SIZE_BIG, 0, "4 GiB");
	variant_bad(V_ZSTD_PAST, 0, "zstd region");
	variant_bad(V_ENTRY_NOT_MAP, 0, "not a map");
	variant_bad(V_DUP_ARCH, 0, "twice");
}

static void open_bad(const unsigned char *b, size_t n, const char *msg)
{
	struct rk_kpack *k = (struct rk_kpack *)1;
	struct rk_err err = RK_ERR_INIT;
	int rc = rk_kpack_open(b, n, &k, &err);

	if (rc != -EBADMSG || !strstr(err.msg, msg) || k)
		rk_test_fail(__FILE__, __LINE__, "%d '%s', want '%s'", rc, err.msg, msg);
}

RK_TEST(hostile_header)
{
	unsigned char *b;
	size_t len;
	struct mp m;
	/* the map announces 2^32-1 pairs in 5 bytes */
	const unsigned char huge[] = {0xdf, 0xff, 0xff, 0xff, 0xff};
	const unsigned char arr[] = {0x81, 0xa1, 'x', 0xdd, 0x7f, 0xff, 0xff, 0xff};

	toc_variant(&m, V_OK, 1, 0, 0);
	b = assemble("", 0, m.sb.data, m.sb.size, 0, &len);
	open_bad(b, 15, "too short");
	b[0] = 'X';
	open_bad(b, len, "magic");
	b[0] = 'K';
	b[4] = 2;
	open_bad(b, len, "version 2");
	b[4] = 1;
	b[8] = (unsigned char)len;
	open_bad(b, len, "toc_offset");
	b[8] = 64;
	open_bad(b, len - 1, "truncated");
	free(b);
	b = assemble("", 0, m.sb.data, m.sb.size, 0, &len);
	b = realloc(b, len + 1);
	b[len] = 0xc0;
	open_bad(b, len + 1, "1 trailing");
	free(b);
	b = assemble("", 0, huge, sizeof(huge), 0, &len);
	open_bad(b, len, "truncated");
	free(b);
	b = assemble("", 0, arr, sizeof(arr), 0, &len);
	open_bad(b, len, "truncated");
	free(b);
	b = assemble("", 0, "\xc1", 1, 0, &len);
	open_bad(b, len, "malformed");
	free(b);
	b = assemble("", 0, "\x91\xc0", 2, 0, &len);
	open_bad(b, len, "not a map");
	free(b);
	msgpack_sbuffer_destroy(&m.sb);
}

/* Marker ---------------------------------------------------------------------------- */

RK_TEST(marker)
{
	/* kpack-format.md 3.1's example, 97 bytes */
	const char *paths[] = {"../.kpack/rand_lib_@GFXARCH@.kpack"};
	void *out;
	size_t len;
	struct rk_kpack_marker mk;
	struct rk_err err = RK_ERR_INIT;
	unsigned char *p;

	RK_ASSERT_EQ_INT(0, rk_kpack_marker_encode(paths, 1, "rocrand/lib/librocrand.so.1", &out,
						   &len, &err));
	RK_ASSERT_EQ_INT(97, len);
	p = out;
	RK_ASSERT_EQ_MEM("\x82\xb2kpack_search_paths\x91\xd9\x22../.kpack", p, 26);
	RK_ASSERT_EQ_MEM("\xab"
			 "kernel_name\xbb"
			 "rocrand/lib/librocrand.so.1",
			 p + 97 - 40, 40);
	p = realloc(p, len + 3);
	memcpy(p + len, "\xff\xff\xff", 3); /* what follows is not read */
	RK_ASSERT_EQ_INT(0, rk_kpack_marker_decode(p, len + 3, &mk, &err));
	RK_ASSERT_EQ_INT(1, mk.npaths);
	RK_ASSERT_EQ_STR(paths[0], mk.paths[0]);
	RK_ASSERT_EQ_STR("rocrand/lib/librocrand.so.1", mk.kernel_name);
	rk_kpack_marker_release(&mk);
	RK_ASSERT_EQ_INT(-EBADMSG, rk_kpack_marker_decode(p, len - 1, &mk, &err));
	RK_ASSERT(err.msg[0]);
	free(p);
	RK_ASSERT_EQ_INT(-EINVAL, rk_kpack_marker_encode(paths, 0, "x", &out, &len, &err));
}

static int decode(const char *hex_like, size_t n, struct rk_err *err)
{
	struct rk_kpack_marker mk;
	int rc = rk_kpack_marker_decode(hex_like, n, &mk, err);

	if (!rc)
		rk_kpack_marker_release(&mk);
	return rc;
}

/* {"kpack_search_paths": [<arr>], "kernel_name": "n"} with arr's n elements given raw. */
static size_t marker_with(unsigned char *b, unsigned count, const char *arr, size_t alen)
{
	size_t n = 0;

	b[n++] = 0x82;
	b[n++] = 0xb2;
	memcpy(b + n, "kpack_search_paths", 18);
	n += 18;
	b[n++] = (unsigned char)(0x90 | count);
	memcpy(b + n, arr, alen);
	n += alen;
	b[n++] = 0xab;
	memcpy(b + n, "kernel_name", 11);
	n += 11;
	b[n++] = 0xa1;
	b[n++] = 'n';
	return n;
}

RK_TEST(marker_hostile)
{
	struct rk_err err = RK_ERR_INIT;
	struct rk_kpack_marker mk;
	unsigned char b[64];
	size_t n;

	/* non-string paths are skipped, as the runtime does */
	n = marker_with(b, 3, "\x05\xa1p\xc0", 4);
	RK_ASSERT_EQ_INT(0, rk_kpack_marker_decode(b, n, &mk, &err));
	RK_ASSERT_EQ_INT(1, mk.npaths);
	RK_ASSERT_EQ_STR("p", mk.paths[0]);
	RK_ASSERT_EQ_STR("n", mk.kernel_name);
	rk_kpack_marker_release(&mk);
	n = marker_with(b, 1, "\x05", 1);
	RK_ASSERT_EQ_INT(-EBADMSG, decode((char *)b, n, &err));
	RK_ASSERT(strstr(err.msg, "no string"));
	n = marker_with(b, 0, "", 0);
	RK_ASSERT_EQ_INT(-EBADMSG, decode((char *)b, n, &err));
	n = marker_with(b, 1, "\xa2p\0", 3);
	RK_ASSERT_EQ_INT(-EBADMSG, decode((char *)b, n, &err));
	RK_ASSERT(strstr(err.msg, "NUL"));
	RK_ASSERT_EQ_INT(-EBADMSG, decode("\x91\xa1x", 3, &err));
	RK_ASSERT(strstr(err.msg, "map"));
	RK_ASSERT_EQ_INT(-EBADMSG, decode("\x81\xabkernel_name\xa1n", 15, &err));
	RK_ASSERT(strstr(err.msg, "kpack_search_paths"));
	RK_ASSERT_EQ_INT(-EBADMSG, decode("\x80", 1, &err));
	RK_ASSERT(strstr(err.msg, "kernel_name"));
	RK_ASSERT_EQ_INT(-EBADMSG, decode("", 0, &err));
	/* a 70000-byte string lies past the 64 KiB bound */
	{
		size_t big = 70010;
		char *p = calloc(1, big);

		memcpy(p, "\x81\xabkernel_name\xda\x11\x70", 15);
		RK_ASSERT_EQ_INT(-EBADMSG, decode(p, big, &err));
		free(p);
	}
}

RK_TEST(search_pattern)
{
	char *s;

	RK_ASSERT_EQ_INT(0, rk_kpack_search_pattern("lib/librocrand.so.1", "rand_lib", &s));
	RK_ASSERT_EQ_STR("../.kpack/rand_lib_@GFXARCH@.kpack", s);
	free(s);
	RK_ASSERT_EQ_INT(0, rk_kpack_search_pattern("lib/llvm/bin/x", "g", &s));
	RK_ASSERT_EQ_STR("../../../.kpack/g_@GFXARCH@.kpack", s);
	free(s);
	RK_ASSERT_EQ_INT(0, rk_kpack_search_pattern("x", "g", &s));
	RK_ASSERT_EQ_STR(".kpack/g_@GFXARCH@.kpack", s);
	free(s);
	/* pathlib's parts: repeated slashes and "." do not add levels */
	RK_ASSERT_EQ_INT(0, rk_kpack_search_pattern("./lib//x", "g", &s));
	RK_ASSERT_EQ_STR("../.kpack/g_@GFXARCH@.kpack", s);
	free(s);
}

/* Runtime lookup --------------------------------------------------------------------- */

static void write_archive(const char *path, const char *arch, const char *const *keys,
			  const char *const *data, size_t n)
{
	struct rk_kpack_kernel k[4];
	struct src s[4];
	const char *a[] = {arch};
	unsigned char *buf;
	size_t len;

	for (size_t i = 0; i < n; i++) {
		s[i] = (struct src){data[i], strlen(data[i])};
		k[i] = (struct rk_kpack_kernel){keys[i], arch, NULL, NULL, (uint32_t)i, 0, s[i].n};
	}
	buf = build("grp", a, 1, k, n, RK_KPACK_ZSTD, s, &len);
	fx_write(path, buf, len);
	free(buf);
}

static int load(const char *bin, unsigned co, const char *a0, const char *a1, char *got,
		struct rk_err *err)
{
	const char *paths[] = {"/nonexistent/x.kpack", "../.kpack/grp_@GFXARCH@.kpack"};
	char name[] = "pre/lib/libfoo.so";
	struct rk_kpack_marker m = {(char **)paths, 2, name};
	const char *archs[] = {a0, a1};
	void *d;
	size_t n;
	int rc = rk_kpack_load(&m, bin, co, archs, a1 ? 2 : 1, &d, &n, err);

	got[0] = '\0';
	if (!rc) {
		memcpy(got, d, n);
		got[n] = '\0';
		free(d);
	}
	return rc;
}

RK_TEST(load)
{
	const char *k0[] = {"pre/lib/libfoo.so#0", "pre/lib/libfoo.so#1"};
	const char *d1100[] = {"foo0 for gfx1100", "foo1 for gfx1100"};
	const char *dx[] = {"foo0 for gfx942:xnack+"};
	const char *dg[] = {"foo0 for gfx11-generic"};
	const char *dp[] = {"foo0 from the prefix archive"};
	char bin[4096], got[256];
	struct rk_err err = RK_ERR_INIT;

	unsetenv("ROCM_KPACK_PATH");
	unsetenv("ROCM_KPACK_PATH_PREFIX");
	unsetenv("ROCM_KPACK_DISABLE");
	write_archive(".kpack/grp_gfx1100.kpack", "gfx1100", k0, d1100, 2);
	write_archive(".kpack/grp_gfx942:xnack+.kpack", "gfx942:xnack+", k0, dx, 1);
	write_archive(".kpack/grp_gfx11-generic.kpack", "gfx11-generic", k0, dg, 1);
	write_archive("other/prefix.kpack", "gfx1100", k0, dp, 1);
	fx_writes(".kpack/grp_gfx1101.kpack", "not an archive");
	fx_writes("lib/libfoo.so", "ELF");
	snprintf(bin, sizeof(bin), "%s/lib/libfoo.so", rk_test_dir());

	RK_ASSERT_EQ_INT(0, load(bin, 0, "amdgcn-amd-amdhsa--gfx1100",
				 "amdgcn-amd-amdhsa--gfx11-generic", got, &err));
	RK_ASSERT_EQ_STR("foo0 for gfx1100", got);
	RK_ASSERT_EQ_INT(0, load(bin, 1, "gfx1100", NULL, got, &err));
	RK_ASSERT_EQ_STR("foo1 for gfx1100", got);
	/* a device's feature subsets: gfx942:xnack+ serves gfx942:sramecc+:xnack+ */
	RK_ASSERT_EQ_INT(0, load(bin, 0, "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack+",
				 "amdgcn-amd-amdhsa--gfx9-4-generic:sramecc+:xnack+", got, &err));
	RK_ASSERT_EQ_STR("foo0 for gfx942:xnack+", got);
	/* ... but not xnack- */
	RK_ASSERT_EQ_INT(-ENOENT, load(bin, 0, "gfx942:sramecc+:xnack-", NULL, got, &err));
	RK_ASSERT(strstr(err.msg, "no archive"));
	/* the generic fallback (gfx1101's archive is not a valid one) */
	RK_ASSERT_EQ_INT(0, load(bin, 0, "amdgcn-amd-amdhsa--gfx1101",
				 "amdgcn-amd-amdhsa--gfx11-generic", got, &err));
	RK_ASSERT_EQ_STR("foo0 for gfx11-generic", got);
	/* missing key: an archive serves the arch, but not co_index 1 for gfx11-generic */
	RK_ASSERT_EQ_INT(-ENOENT, load(bin, 1, "gfx1101", "gfx11-generic", got, &err));
	RK_ASSERT(strstr(err.msg, "pre/lib/libfoo.so#1"));
	/* ... and that archive decides: the next arch's archive, which has it, is not tried
	 * (AMD's loader since rocm-kpack e348328) */
	RK_ASSERT_EQ_INT(-ENOENT, load(bin, 1, "gfx11-generic", "gfx1100", got, &err));
	RK_ASSERT(strstr(err.msg, "grp_gfx11-generic.kpack"));
	RK_ASSERT_EQ_INT(-ENOENT, load(bin, 7, "gfx1100", NULL, got, &err));
	RK_ASSERT(strstr(err.msg, "#7"));
	/* missing archive */
	RK_ASSERT_EQ_INT(-ENOENT, load(bin, 0, "gfx90a:xnack-", NULL, got, &err));
	RK_ASSERT(strstr(err.msg, "no archive found"));

	/* ROCM_KPACK_PATH_PREFIX is tried first */
	setenv("ROCM_KPACK_PATH_PREFIX", fx_path("::%s/other/prefix.kpack:", rk_test_dir()), 1);
	RK_ASSERT_EQ_INT(0, load(bin, 0, "gfx1100", NULL, got, &err));
	RK_ASSERT_EQ_STR("foo0 from the prefix archive", got);
	/* ... and decides for its arch: what it lacks is not looked for further on */
	RK_ASSERT_EQ_INT(-ENOENT, load(bin, 1, "gfx1100", NULL, got, &err));
	RK_ASSERT(strstr(err.msg, "prefix.kpack"));
	unsetenv("ROCM_KPACK_PATH_PREFIX");
	/* ROCM_KPACK_PATH replaces the embedded paths, with no @GFXARCH@ expansion */
	setenv("ROCM_KPACK_PATH", fx_path("%s/.kpack/grp_gfx11-generic.kpack", rk_test_dir()), 1);
	RK_ASSERT_EQ_INT(-ENOENT, load(bin, 0, "gfx1100", NULL, got, &err));
	RK_ASSERT_EQ_INT(0, load(bin, 0, "gfx1100", "gfx11-generic", got, &err));
	RK_ASSERT_EQ_STR("foo0 for gfx11-generic", got);
	setenv("ROCM_KPACK_PATH", fx_path("%s/.kpack/grp_@GFXARCH@.kpack", rk_test_dir()), 1);
	RK_ASSERT_EQ_INT(-ENOENT, load(bin, 0, "gfx1100", NULL, got, &err));
	unsetenv("ROCM_KPACK_PATH");
	setenv("ROCM_KPACK_DISABLE", "1", 1);
	RK_ASSERT_EQ_INT(-ENOTSUP, load(bin, 0, "gfx1100", NULL, got, &err));
	setenv("ROCM_KPACK_DISABLE", "0", 1);
	RK_ASSERT_EQ_INT(0, load(bin, 0, "gfx1100", NULL, got, &err));
	/* a relative search path goes through the binary's directory, with symlinks */
	RK_ASSERT_EQ_INT(0, symlink("lib", "lib2"));
	snprintf(bin, sizeof(bin), "%s/lib2/libfoo.so", rk_test_dir());
	RK_ASSERT_EQ_INT(0, load(bin, 0, "gfx1100", NULL, got, &err));
	RK_ASSERT_EQ_STR("foo0 for gfx1100", got);
}
