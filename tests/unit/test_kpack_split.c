/* test_kpack_split.c: the kpack split service (services/kpack_split.c, vfs_kpack_split)
 * without a mount, on a synthetic legacy artifact blas_lib_gfx110X-all whose fat host
 * library is built here with cc (rk_fixture.c: fx_fat_elf, fx_bundle, fx_codeobj): the
 * outputs (generic, one per arch), the .kpack archives and their TOC, the database files,
 * the rewritten binary against rk_kpack_elf_transform, a binary that cannot be split, the
 * split computed once, the group and relkeys arguments, the zstd scheme. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk/cache.h"
#include "rk/kpack.h"
#include "rk/composite.h"
#include "rk/kpack_elf.h"
#include "rk/log.h"
#include "rk/vfs.h"
#include "rk/wheel.h"
#include "cache/composite_read.h"
#include "engine/vfs_int.h"
#include "services/kpack_split.h"
#include "rk_fixture.h"
#include "rk_test.h"

#define HOST "host-x86_64-unknown-linux-gnu-"
#define HIP(t) "hipv4-amdgcn-amd-amdhsa--" t
#define MACH_GFX1100 0x41
#define MACH_GFX1101 0x46
#define CO_SIZE 700
#define STEM "blas_lib_gfx110X-all"
#define DB1100 "p/stage/lib/rocblas/library/TensileLibrary_lazy_gfx1100.dat"
#define DB1102 "p/stage/lib/rocblas/library/TensileLibrary_lazy_gfx1102.dat"

/* The code object of TU t for arch a (0 gfx1100, 1 gfx1101). */
static unsigned char *codeobj(int t, int a)
{
	return fx_codeobj(a ? MACH_GFX1101 : MACH_GFX1100, (unsigned)(t * 2 + a), CO_SIZE);
}

/* A fat library of ntu TUs, each bundling a code object per arch; wrong: TU 0's gfx1100
 * entry holds a gfx1101 code object. */
static void make_fat(const char *path, int ntu, int wrong)
{
	unsigned char *fatbins[4], *co[4][2];
	size_t sizes[4];

	RK_ASSERT(ntu <= 4);
	for (int t = 0; t < ntu; t++) {
		struct fx_bundle_entry e[3] = {{HOST, NULL, 0}};

		co[t][0] = wrong && !t ? codeobj(t, 1) : codeobj(t, 0);
		co[t][1] = codeobj(t, 1);
		e[1] = (struct fx_bundle_entry){HIP("gfx1100"), co[t][0], CO_SIZE};
		e[2] = (struct fx_bundle_entry){HIP("gfx1101"), co[t][1], CO_SIZE};
		fatbins[t] = fx_bundle(e, 3, 4096, &sizes[t]);
	}
	fx_fat_elf(path, FX_ELF_LIB, ntu, (const unsigned char *const *)fatbins, sizes);
	for (int t = 0; t < ntu; t++) {
		free(fatbins[t]);
		free(co[t][0]);
		free(co[t][1]);
	}
}

static char *fat, *broken;
static size_t fat_len, broken_len;

/* store/100-linux/blas_lib_gfx110X-all.tar.zst: a fat library (2 TUs), one whose device
 * code does not match its bundle entry, a file that is not ELF, two database files. */
static void make_store(void)
{
	make_fat("libfat.so", 2, 0);
	make_fat("libbroken.so", 1, 1);
	fat = fx_read("libfat.so", &fat_len);
	broken = fx_read("libbroken.so", &broken_len);
	{
		const struct fx_member m[] = {
			FX_MANIFEST("p/stage\n"),
			{FX_FILE, "p/stage/lib/libfat.so", fat, (long)fat_len, 0755},
			{FX_FILE, "p/stage/lib/libbroken.so", broken, (long)broken_len, 0755},
			{FX_FILE, "p/stage/lib/libplain.so", "not an ELF file\n", -1, 0644},
			{FX_SYMLINK, "p/stage/lib/libfat.so.1", "libfat.so", 0, 0},
			{FX_FILE, DB1100, "tensile 1100\n", -1, 0644},
			{FX_FILE, DB1102, "tensile 1102\n", -1, 0644},
		};

		fx_tar("store/100-linux/" STEM ".tar.zst", FX_ZSTD, m, sizeof(m) / sizeof(m[0]));
	}
}

static void release_store(void)
{
	free(fat);
	free(broken);
	fat = broken = NULL;
}

static struct rk_vfs *open_vfs(int zstd)
{
	static const struct rk_vfs_opt z = {.name = "kpack_compression", .value = "zstd"};
	struct rk_vfs_opts o = {.store = "store",
				.cache_dir = "cache",
				.ingest_jobs = 1,
				.view_opts = &z,
				.nview_opts = zstd ? 1 : 0};

	return fx_vfs_open(&o);
}

static struct artifact *get_art(struct rk_vfs *v, const char *run, const char *stem)
{
	const struct rk_run *cat = NULL;

	RK_ASSERT_EQ_INT(0, rk_vfs_run(v, run, &cat, NULL));
	for (struct run *r = v->runs; r; r = r->next)
		for (size_t i = 0; r->cat == cat && i < cat->narts; i++)
			if (!strcmp(r->artifacts[i].art->stem, stem))
				return &r->artifacts[i];
	rk_test_fail(__FILE__, __LINE__, "no artifact '%s'", stem);
}

static void split(struct rk_vfs *v, struct artifact *a, const char *group, int relkeys,
		  struct artifact ***outs, size_t *n)
{
	struct rk_err err = RK_ERR_INIT;
	int rc = vfs_kpack_split(v, a, group, relkeys, outs, n, &err);

	if (rc)
		rk_test_fail(__FILE__, __LINE__, "vfs_kpack_split: %s", rk_err_str(&err, rc));
}

static struct node *find(struct artifact *o, const char *path)
{
	struct node *n = o->root ? vfs_find(o->root, path) : NULL;

	if (!n)
		rk_test_fail(__FILE__, __LINE__, "'%s' is not in '%s'", path, o->art->stem);
	return n;
}

/* A file node's bytes (blob, bytes or composite), malloc'd; *len its size. */
static unsigned char *content(struct rk_vfs *v, const struct node *n, size_t *len)
{
	unsigned char *buf = malloc(vfs_node_size(n) + 1);

	RK_ASSERT(buf != NULL);
	RK_ASSERT(S_ISREG(vfs_node_mode(n)));
	if (vfs_node_composite(n)) {
		RK_ASSERT_EQ_INT(vfs_node_size(n), vfs_node_composite(n)->size);
		for (uint64_t off = 0; off < vfs_node_size(n);) {
			ssize_t r = rk_composite_pread_blobs(
				v->cache, vfs_node_composite(n), buf + off,
				(size_t)(vfs_node_size(n) - off), off, NULL);

			RK_ASSERT(r > 0);
			off += (uint64_t)r;
		}
	} else if (vfs_node_bytes(n)) {
		memcpy(buf, vfs_node_bytes(n), vfs_node_size(n));
	} else {
		int fd = -1;

		RK_ASSERT(vfs_node_blob(n) != NULL);
		RK_ASSERT_EQ_INT(
			0, rk_blob_open(v->cache, vfs_node_blob(n), vfs_node_size(n), &fd, NULL));
		RK_ASSERT_EQ_INT((long long)vfs_node_size(n), pread(fd, buf, vfs_node_size(n), 0));
		close(fd);
	}
	buf[vfs_node_size(n)] = '\0';
	*len = vfs_node_size(n);
	return buf;
}

static ssize_t read_img(void *ctx, uint32_t src, void *buf, size_t n, uint64_t off)
{
	const struct rk_mem *m = ctx;

	if (src || off > m->n || n > m->n - off)
		return -EIO;
	memcpy(buf, (const char *)m->p + off, n);
	return (ssize_t)n;
}

/* What rocm-kpack's kpack_offload_binary makes of img for a binary at relpath of group,
 * kernel name kname: the marker and rk_kpack_elf_transform, materialized. */
static unsigned char *expected_rewrite(const char *img, size_t n, const char *relpath,
				       const char *group, const char *kname, const char *pattern,
				       size_t *len)
{
	struct rk_composite s = RK_COMPOSITE_INIT;
	struct rk_err err = RK_ERR_INIT;
	struct rk_mem m = {img, n};
	char *pat = NULL;
	void *marker = NULL;
	size_t mlen = 0;
	unsigned char *out;

	RK_ASSERT_EQ_INT(0, rk_kpack_search_pattern(relpath, group, &pat));
	RK_ASSERT_EQ_STR(pattern, pat);
	RK_ASSERT_EQ_INT(0, rk_kpack_marker_encode((const char *const *)&pat, 1, kname, &marker,
						   &mlen, &err));
	RK_ASSERT_EQ_INT(0, rk_kpack_elf_transform(img, n, marker, mlen, &s, &err));
	out = malloc(s.size);
	RK_ASSERT(out != NULL);
	RK_ASSERT_EQ_INT((long long)s.size, rk_composite_pread(&s, read_img, &m, out, s.size, 0));
	*len = s.size;
	rk_composite_release(&s);
	free(marker);
	free(pat);
	return out;
}

/* The .kpack archive at path of output o holds, for arch (0 gfx1100, 1 gfx1101), the
 * code object of each TU under "<kname>#<t>". */
static void check_kpack(struct rk_vfs *v, struct artifact *o, const char *path, int arch,
			const char *group, const char *kname, int scheme)
{
	size_t len, n;
	unsigned char *buf = content(v, find(o, path), &len);
	struct rk_kpack *k = NULL;
	struct rk_err err = RK_ERR_INIT;
	int rc = rk_kpack_open(buf, len, &k, &err);

	if (rc)
		rk_test_fail(__FILE__, __LINE__, "rk_kpack_open('%s'): %s", path,
			     rk_err_str(&err, rc));
	RK_ASSERT_EQ_STR(group, rk_kpack_group(k));
	RK_ASSERT_EQ_INT(scheme, rk_kpack_scheme(k));
	RK_ASSERT_EQ_INT(1, rk_kpack_arch_count(k));
	RK_ASSERT_EQ_STR(arch ? "gfx1101" : "gfx1100", rk_kpack_arch(k, 0));
	RK_ASSERT_EQ_INT(2, rk_kpack_binary_count(k));
	for (int t = 0; t < 2; t++) {
		char key[256];
		void *data = NULL;
		unsigned char *want = codeobj(t, arch);

		snprintf(key, sizeof(key), "%s#%d", kname, t);
		RK_ASSERT_EQ_STR(key, rk_kpack_binary(k, (size_t)t));
		RK_ASSERT_EQ_INT(
			0, rk_kpack_get(k, key, arch ? "gfx1101" : "gfx1100", &data, &n, &err));
		RK_ASSERT_EQ_INT(CO_SIZE, n);
		RK_ASSERT_EQ_MEM(want, data, CO_SIZE);
		free(data);
		free(want);
	}
	/* the other arch is not in it */
	{
		char key[256];
		void *other = NULL;

		snprintf(key, sizeof(key), "%s#0", kname);
		RK_ASSERT_EQ_INT(-ENOENT, rk_kpack_get(k, key, arch ? "gfx1100" : "gfx1101", &other,
						       &n, &err));
		RK_ASSERT(other == NULL);
	}
	rk_kpack_close(k);
	free(buf);
}

RK_TEST(outputs)
{
	struct rk_vfs *v;
	struct artifact *a, **outs = NULL;
	size_t n = 0, len;
	unsigned char *t;
	static const char *const stems[] = {"blas_lib_generic", "blas_lib_gfx1100",
					    "blas_lib_gfx1101", "blas_lib_gfx1102"};

	make_store();
	v = open_vfs(0);
	a = get_art(v, "100-linux", STEM);
	split(v, a, NULL, 0, &outs, &n);
	/* generic first, then one per arch: the two of the code objects and the one of a
	 * database file */
	RK_ASSERT_EQ_INT(4, n);
	for (size_t i = 0; i < n; i++) {
		RK_ASSERT_EQ_STR(stems[i], outs[i]->art->stem);
		RK_ASSERT(outs[i]->source == a);
		RK_ASSERT_EQ_INT(ART_DONE, outs[i]->state);
		RK_ASSERT_EQ_STR("blas", outs[i]->art->an.name);
		RK_ASSERT_EQ_STR("lib", outs[i]->art->an.component);
		RK_ASSERT_EQ_INT(1, outs[i]->nprefixes);
		RK_ASSERT_EQ_STR("p/stage", outs[i]->prefixes[0]);
		t = content(v, find(outs[i], "artifact_manifest.txt"), &len);
		RK_ASSERT_EQ_STR("p/stage\n", (char *)t);
		free(t);
	}
	RK_ASSERT_EQ_STR("generic", outs[0]->art->an.target);
	RK_ASSERT_EQ_STR("gfx1101", outs[2]->art->an.target);

	/* generic: every file but the database files, unchanged files sharing the blobs */
	RK_ASSERT(vfs_find(outs[0]->root, DB1100) == NULL);
	RK_ASSERT(vfs_find(outs[0]->root, DB1102) == NULL);
	RK_ASSERT(vfs_find(outs[0]->root, "p/stage/.kpack") == NULL);
	t = content(v, find(outs[0], "p/stage/lib/libplain.so"), &len);
	RK_ASSERT_EQ_STR("not an ELF file\n", (char *)t);
	free(t);
	RK_ASSERT_EQ_STR(vfs_node_blob(vfs_find(a->root, "p/stage/lib/libplain.so")),
			 vfs_node_blob(find(outs[0], "p/stage/lib/libplain.so")));
	RK_ASSERT(S_ISLNK(vfs_node_mode(find(outs[0], "p/stage/lib/libfat.so.1"))));
	RK_ASSERT_EQ_STR("libfat.so", vfs_node_target(find(outs[0], "p/stage/lib/libfat.so.1")));
	RK_ASSERT_EQ_INT(S_IFREG | 0755, vfs_node_mode(find(outs[0], "p/stage/lib/libfat.so")));

	/* per arch: its .kpack archive under the prefix, its database files */
	RK_ASSERT_EQ_INT(FX_MTIME,
			 vfs_node_mtime(find(outs[1], "p/stage/.kpack/blas_lib_gfx1100.kpack")));
	t = content(v, find(outs[1], DB1100), &len);
	RK_ASSERT_EQ_STR("tensile 1100\n", (char *)t);
	free(t);
	RK_ASSERT(vfs_find(outs[1]->root, DB1102) == NULL);
	RK_ASSERT(vfs_find(outs[2]->root, DB1100) == NULL);
	RK_ASSERT(vfs_find(outs[2]->root, "p/stage/lib/libfat.so") == NULL);
	RK_ASSERT_EQ_INT(1, vfs_dir_count(find(outs[2], "p/stage/.kpack")));
	t = content(v, find(outs[3], DB1102), &len);
	RK_ASSERT_EQ_STR("tensile 1102\n", (char *)t);
	free(t);
	RK_ASSERT(vfs_find(outs[3]->root, "p/stage/.kpack") == NULL);
	fx_vfs_close(v);
	release_store();
}

RK_TEST(kpack_toc)
{
	struct rk_vfs *v;
	struct artifact *a, **outs = NULL;
	size_t n = 0;

	make_store();
	v = open_vfs(0);
	a = get_art(v, "100-linux", STEM);
	split(v, a, NULL, 0, &outs, &n);
	RK_ASSERT(vfs_node_composite(find(outs[1], "p/stage/.kpack/blas_lib_gfx1100.kpack")) !=
		  NULL);
	check_kpack(v, outs[1], "p/stage/.kpack/blas_lib_gfx1100.kpack", 0, "blas_lib",
		    "p/stage/lib/libfat.so", RK_KPACK_NONE);
	check_kpack(v, outs[2], "p/stage/.kpack/blas_lib_gfx1101.kpack", 1, "blas_lib",
		    "p/stage/lib/libfat.so", RK_KPACK_NONE);
	fx_vfs_close(v);
	release_store();
}

RK_TEST(rewritten_binary)
{
	struct rk_vfs *v;
	struct artifact *a, **outs = NULL;
	struct node *b;
	size_t n = 0, len, wlen;
	unsigned char *got, *want;
	struct rk_fat_elf fe;

	make_store();
	v = open_vfs(0);
	a = get_art(v, "100-linux", STEM);
	split(v, a, NULL, 0, &outs, &n);
	b = find(outs[0], "p/stage/lib/libfat.so");
	RK_ASSERT(vfs_node_composite(b) != NULL);
	RK_ASSERT(vfs_node_origin(b) == a);
	got = content(v, b, &len);
	want = expected_rewrite(fat, fat_len, "lib/libfat.so", "blas_lib", "p/stage/lib/libfat.so",
				"../.kpack/blas_lib_@GFXARCH@.kpack", &wlen);
	RK_ASSERT_EQ_INT(wlen, len);
	RK_ASSERT_EQ_INT(wlen, vfs_node_size(b));
	RK_ASSERT_EQ_MEM(want, got, len);
	/* the device code is gone (NOBITS), a marker is there */
	RK_ASSERT_EQ_INT(1, rk_kpack_elf_inspect(got, len, &fe, NULL));
	RK_ASSERT(fe.has_marker);
	RK_ASSERT_EQ_INT(2, fe.nwrappers);
	RK_ASSERT_EQ_INT(0, rk_kpack_elf_verify(got, len, NULL));
	free(got);
	free(want);
	fx_vfs_close(v);
	release_store();
}

RK_TEST(unsplittable_stays)
{
	struct rk_vfs *v;
	struct artifact *a, **outs = NULL;
	struct node *b;
	size_t n = 0, len;
	unsigned char *got;

	make_store();
	v = open_vfs(0);
	a = get_art(v, "100-linux", STEM);
	split(v, a, NULL, 0, &outs, &n);
	/* its gfx1100 entry holds a gfx1101 code object: the file is passed through */
	b = find(outs[0], "p/stage/lib/libbroken.so");
	RK_ASSERT(vfs_node_blob(b) != NULL);
	RK_ASSERT_EQ_STR(vfs_node_blob(vfs_find(a->root, "p/stage/lib/libbroken.so")),
			 vfs_node_blob(b));
	got = content(v, b, &len);
	RK_ASSERT_EQ_INT(broken_len, len);
	RK_ASSERT_EQ_MEM(broken, got, len);
	free(got);
	/* and none of its code objects is in an archive: still two per arch (libfat's) */
	check_kpack(v, outs[1], "p/stage/.kpack/blas_lib_gfx1100.kpack", 0, "blas_lib",
		    "p/stage/lib/libfat.so", RK_KPACK_NONE);
	fx_vfs_close(v);
	release_store();
}

RK_TEST(split_once)
{
	struct rk_vfs *v;
	struct artifact *a, **outs = NULL, **outs2 = NULL, *first[8];
	size_t n = 0, n2 = 0;

	make_store();
	v = open_vfs(0);
	a = get_art(v, "100-linux", STEM);
	RK_ASSERT(a->derived == NULL);
	split(v, a, NULL, 0, &outs, &n);
	RK_ASSERT(a->derived != NULL);
	RK_ASSERT(n <= 8);
	memcpy(first, outs, n * sizeof(*outs));
	/* the same outputs again, even when asked with other arguments */
	split(v, a, NULL, 0, &outs2, &n2);
	RK_ASSERT(outs2 == outs);
	RK_ASSERT_EQ_INT(n, n2);
	for (size_t i = 0; i < n; i++)
		RK_ASSERT(outs2[i] == first[i]);
	split(v, a, "other", 1, &outs2, &n2);
	RK_ASSERT(outs2 == outs);
	RK_ASSERT_EQ_STR("blas_lib_generic", outs2[0]->art->stem);
	/* the split of each binary's device code is recorded in the cache */
	{
		char *rec;
		size_t len;
		const char *id = vfs_node_blob(vfs_find(a->root, "p/stage/lib/libfat.so"));

		rec = fx_read(fx_path("cache/kpack/%s.1", id), &len);
		/* two TUs, two arches: four lines, bundle order */
		RK_ASSERT(!strncmp(rec, "gfx1100\t-\t", 10));
		RK_ASSERT(strstr(rec, "\t" HIP("gfx1101") "\n") != NULL);
		{
			int lines = 0;

			for (size_t i = 0; i < len; i++)
				lines += rec[i] == '\n';
			RK_ASSERT_EQ_INT(4, lines);
		}
		free(rec);
	}
	fx_vfs_close(v);
	release_store();
}

RK_TEST(group_and_relkeys)
{
	struct rk_vfs *v;
	struct artifact *a, **outs = NULL;
	size_t n = 0, len, wlen;
	unsigned char *got, *want;

	make_store();
	v = open_vfs(0);
	a = get_art(v, "100-linux", STEM);
	split(v, a, "custom", 1, &outs, &n);
	RK_ASSERT_EQ_INT(4, n);
	RK_ASSERT_EQ_STR("custom_generic", outs[0]->art->stem);
	RK_ASSERT_EQ_STR("custom_gfx1100", outs[1]->art->stem);
	/* the group names the archives; keys and the kernel name are relative to the prefix */
	check_kpack(v, outs[1], "p/stage/.kpack/custom_gfx1100.kpack", 0, "custom", "lib/libfat.so",
		    RK_KPACK_NONE);
	check_kpack(v, outs[2], "p/stage/.kpack/custom_gfx1101.kpack", 1, "custom", "lib/libfat.so",
		    RK_KPACK_NONE);
	got = content(v, find(outs[0], "p/stage/lib/libfat.so"), &len);
	want = expected_rewrite(fat, fat_len, "lib/libfat.so", "custom", "lib/libfat.so",
				"../.kpack/custom_@GFXARCH@.kpack", &wlen);
	RK_ASSERT_EQ_INT(wlen, len);
	RK_ASSERT_EQ_MEM(want, got, len);
	free(got);
	free(want);
	fx_vfs_close(v);
	release_store();
}

RK_TEST(zstd_scheme)
{
	struct rk_vfs *v;
	struct artifact *a, **outs = NULL;
	size_t n = 0;
	struct node *k;

	make_store();
	v = open_vfs(1);
	a = get_art(v, "100-linux", STEM);
	split(v, a, NULL, 0, &outs, &n);
	/* a blob of its own, holding the same code objects */
	k = find(outs[1], "p/stage/.kpack/blas_lib_gfx1100.kpack");
	RK_ASSERT(vfs_node_blob(k) != NULL);
	check_kpack(v, outs[1], "p/stage/.kpack/blas_lib_gfx1100.kpack", 0, "blas_lib",
		    "p/stage/lib/libfat.so", RK_KPACK_ZSTD);
	check_kpack(v, outs[2], "p/stage/.kpack/blas_lib_gfx1101.kpack", 1, "blas_lib",
		    "p/stage/lib/libfat.so", RK_KPACK_ZSTD);
	fx_vfs_close(v);
	release_store();
}

RK_TEST(second_mount_same_split)
{
	struct rk_vfs *v;
	struct artifact *a, **outs = NULL;
	size_t n = 0, len1, len2, klen1, klen2;
	unsigned char *bin1, *bin2, *k1, *k2;

	make_store();
	v = open_vfs(0);
	a = get_art(v, "100-linux", STEM);
	split(v, a, NULL, 0, &outs, &n);
	bin1 = content(v, find(outs[0], "p/stage/lib/libfat.so"), &len1);
	k1 = content(v, find(outs[1], "p/stage/.kpack/blas_lib_gfx1100.kpack"), &klen1);
	fx_vfs_close(v);
	/* from the cached index and the recorded device-code split: the same bytes */
	v = open_vfs(0);
	a = get_art(v, "100-linux", STEM);
	split(v, a, NULL, 0, &outs, &n);
	RK_ASSERT_EQ_INT(4, n);
	bin2 = content(v, find(outs[0], "p/stage/lib/libfat.so"), &len2);
	k2 = content(v, find(outs[1], "p/stage/.kpack/blas_lib_gfx1100.kpack"), &klen2);
	RK_ASSERT_EQ_INT(len1, len2);
	RK_ASSERT_EQ_MEM(bin1, bin2, len1);
	RK_ASSERT_EQ_INT(klen1, klen2);
	RK_ASSERT_EQ_MEM(k1, k2, klen1);
	free(bin1);
	free(bin2);
	free(k1);
	free(k2);
	fx_vfs_close(v);
	release_store();
}
