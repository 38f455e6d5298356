/* test_elf_rpath.c: the RPATH change of TheRock's wheels (rk/elf_rpath.h).
 *
 * Fixtures are built with cc at test time: libdep.so in dep/ and, in use/, a library or
 * an executable that needs it and has no rpath to dep/ (with a DT_RUNPATH, a DT_RPATH,
 * or none; linked by GNU ld or lld). The rewrite adds "$ORIGIN/../dep": the result must
 * read clean with readelf, carry the right DT_RPATH, and load (dlopen) or run, where the
 * original cannot find libdep.so. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk/composite.h"
#include "rk/elf_rpath.h"
#include "rk_fixture.h"
#include "rk_test.h"

static void sh(const char *cmd)
{
	if (system(cmd) != 0)
		rk_test_fail(__FILE__, __LINE__, "command failed: %s", cmd);
}

/* dep/libdep.so, and use/<out> built from main.c or use.c with ldflags. */
static void build(const char *out, int exe, const char *ldflags)
{
	char cmd[1024];

	fx_need_cc();
	fx_writes("dep.c", "int dep_value(void) { return 42; }\n");
	fx_writes("use.c",
		  "int dep_value(void);\nint use_value(void) { return dep_value() + 1; }\n");
	fx_writes("main.c",
		  "int dep_value(void);\nint main(void) { return dep_value() == 42 ? 0 : 3; }\n");
	fx_mkdirs("dep");
	fx_mkdirs("use");
	sh("cc -shared -fPIC -O1 -o dep/libdep.so -Wl,-soname,libdep.so dep.c");
	snprintf(cmd, sizeof(cmd), "cc %s -O1 -o use/%s %s -Ldep -ldep %s",
		 exe ? "-fPIE -pie" : "-shared -fPIC", out, exe ? "main.c" : "use.c", ldflags);
	sh(cmd);
}

struct image {
	unsigned char *p;
	size_t n;
};

static struct image map_file(const char *path)
{
	struct image im;
	struct stat st;
	int fd = open(path, O_RDONLY);

	RK_ASSERT(fd >= 0);
	RK_ASSERT_EQ_INT(0, fstat(fd, &st));
	im.n = (size_t)st.st_size;
	im.p = mmap(NULL, im.n, PROT_READ, MAP_PRIVATE, fd, 0);
	RK_ASSERT(im.p != MAP_FAILED);
	close(fd);
	return im;
}

static ssize_t read_img(void *ctx, uint32_t src, void *buf, size_t n, uint64_t off)
{
	const struct image *im = ctx;

	if (src != 0 || off > im->n || n > im->n - off)
		return -EIO;
	memcpy(buf, im->p + off, n);
	return (ssize_t)n;
}

/* Rewrite use/<in> into use/<out> with add; the output's rpath in rp. */
static void rewrite(const char *in, const char *out, const char *add, char *rp, size_t rplen)
{
	struct image im = map_file(fx_path("use/%s", in)), res;
	struct rk_composite c = RK_COMPOSITE_INIT;
	struct rk_err err = RK_ERR_INIT;
	unsigned char *buf;
	int is_rpath = 0, rc;

	rc = rk_elf_rpath_add(im.p, im.n, add, &c, &err);
	if (rc)
		rk_test_fail(__FILE__, __LINE__, "rewrite: %d %s", rc, err.msg);
	RK_ASSERT(c.size > im.n);
	buf = malloc(c.size);
	RK_ASSERT(buf);
	RK_ASSERT_EQ_INT((long long)c.size, rk_composite_pread(&c, read_img, &im, buf, c.size, 0));
	fx_write(fx_path("use/%s", out), buf, c.size);
	RK_ASSERT_EQ_INT(0, chmod(fx_path("use/%s", out), 0755));
	free(buf);
	rk_composite_release(&c);
	munmap(im.p, im.n);
	res = map_file(fx_path("use/%s", out));
	RK_ASSERT_EQ_INT(0, rk_elf_rpath_get(res.p, res.n, rp, rplen, &is_rpath, &err));
	RK_ASSERT_EQ_INT(1, is_rpath);
	munmap(res.p, res.n);
	/* readelf reads it all without a complaint */
	sh(fx_path(
		"readelf -a -W use/%s >readelf.out 2>&1 && ! grep -E '^readelf: (Warning|Error)' "
		"readelf.out",
		out));
	sh(fx_path("readelf -d use/%s | grep -q '(RPATH)' && ! readelf -d use/%s | grep -q RUNPATH",
		   out, out));
}

static int loads(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (h)
		dlclose(h);
	return h != NULL;
}

static void lib_case(const char *ldflags, const char *want_rp)
{
	char rp[4096], path[4096];

	build("libuse.so", 0, ldflags);
	snprintf(path, sizeof(path), "%s/use/libuse.so", rk_test_dir());
	RK_ASSERT(!loads(path)); /* libdep.so is not found */
	rewrite("libuse.so", "libuse2.so", "$ORIGIN/../dep", rp, sizeof(rp));
	RK_ASSERT_EQ_STR(want_rp, rp);
	snprintf(path, sizeof(path), "%s/use/libuse2.so", rk_test_dir());
	RK_ASSERT(loads(path));
}

RK_TEST(runpath_becomes_rpath_and_loads)
{
	lib_case("-Wl,-rpath,'$ORIGIN' -Wl,--enable-new-dtags", "$ORIGIN:$ORIGIN/../dep");
}

RK_TEST(rpath_extended_and_loads)
{
	lib_case("-Wl,-rpath,'$ORIGIN/x' -Wl,--disable-new-dtags", "$ORIGIN/x:$ORIGIN/../dep");
}

RK_TEST(no_rpath_gets_one)
{
	lib_case("", "$ORIGIN/../dep");
}

RK_TEST(lld_no_rpath_moves_dynamic)
{
	if (system("ld.lld --version >/dev/null 2>&1") != 0)
		RK_SKIP("ld.lld is not installed");
	lib_case("-fuse-ld=lld", "$ORIGIN/../dep");
}

RK_TEST(lld_runpath)
{
	if (system("ld.lld --version >/dev/null 2>&1") != 0)
		RK_SKIP("ld.lld is not installed");
	lib_case("-fuse-ld=lld -Wl,-rpath,'$ORIGIN' -Wl,--enable-new-dtags",
		 "$ORIGIN:$ORIGIN/../dep");
}

static void exe_case(const char *ldflags)
{
	char rp[4096];

	build("prog", 1, ldflags);
	RK_ASSERT(system("use/prog 2>/dev/null") != 0);
	rewrite("prog", "prog2", "$ORIGIN/../dep:$ORIGIN/../none", rp, sizeof(rp));
	sh("use/prog2");
	/* the program header table sits at p_vaddr = p_offset + bias (old kernels' AT_PHDR) */
	sh("readelf -lW use/prog2 | awk '$1==\"PHDR\" { exit !($2 == $3) }'");
}

RK_TEST(pie_executable_runs)
{
	exe_case("-Wl,-rpath,'$ORIGIN' -Wl,--enable-new-dtags");
}

RK_TEST(pie_executable_without_rpath_runs)
{
	exe_case("");
}

RK_TEST(lld_pie_executable_runs)
{
	if (system("ld.lld --version >/dev/null 2>&1") != 0)
		RK_SKIP("ld.lld is not installed");
	exe_case("-fuse-ld=lld");
}

RK_TEST(not_applicable_and_damaged)
{
	struct rk_composite c = RK_COMPOSITE_INIT;
	struct rk_err err = RK_ERR_INIT;
	struct image im;
	unsigned char *copy;

	/* not ELF, an object file: nothing to do */
	RK_ASSERT_EQ_INT(1, rk_elf_rpath_add("#!/bin/sh\n", 10, "$ORIGIN", &c, &err));
	RK_ASSERT_EQ_INT(0, (long long)c.size);
	build("libuse.so", 0, "");
	sh("cc -c -fPIC use.c -o use.o");
	im = map_file("use.o");
	RK_ASSERT_EQ_INT(1, rk_elf_rpath_add(im.p, im.n, "$ORIGIN", &c, &err));
	munmap(im.p, im.n);
	RK_ASSERT_EQ_INT(-EINVAL, rk_elf_rpath_add(im.p, 0, "", &c, &err));
	/* damaged: cut short, or PT_DYNAMIC pointing past the end */
	im = map_file("use/libuse.so");
	rk_err_clear(&err);
	RK_ASSERT_EQ_INT(-EBADMSG, rk_elf_rpath_add(im.p, 200, "$ORIGIN", &c, &err));
	RK_ASSERT(err.msg[0]);
	copy = malloc(im.n);
	RK_ASSERT(copy);
	memcpy(copy, im.p, im.n);
	for (unsigned i = 0; i < (unsigned)(copy[56] | copy[57] << 8); i++) {
		unsigned char *ph = copy + 64 + i * 56;

		if (ph[0] == 2) /* PT_DYNAMIC: offset far away */
			memset(ph + 8, 0x7f, 8);
	}
	rk_err_clear(&err);
	RK_ASSERT_EQ_INT(-EBADMSG, rk_elf_rpath_add(copy, im.n, "$ORIGIN", &c, &err));
	RK_ASSERT_EQ_INT(0, (long long)c.size);
	free(copy);
	munmap(im.p, im.n);
}
