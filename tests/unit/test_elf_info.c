/* test_elf_info.c: shared object, executable or neither, and DT_SONAME (rk/elf_info.h),
 * as file(1) tells them apart, on the small ELF
 * files of the fuzz corpus: a shared library with a soname, a PIE executable (ET_DYN,
 * but an executable to file(1) and to TheRock's wheel rules), a truncated library and
 * text. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rk/elf_info.h"
#include "rk_test.h"

static void info(const char *name, struct rk_elf_info *by_fd, struct rk_elf_info *by_mem)
{
	char path[512], buf[1 << 16];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", RK_ELF_CORPUS, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	RK_ASSERT(fd >= 0);
	rk_elf_info_fd(fd, by_fd);
	n = pread(fd, buf, sizeof(buf), 0);
	RK_ASSERT(n > 0);
	rk_elf_info_mem(buf, (size_t)n, by_mem);
	close(fd);
}

RK_TEST(shared_library_soname)
{
	struct rk_elf_info a, b;

	info("shared_soname", &a, &b);
	RK_ASSERT_EQ_INT(1, a.shared);
	RK_ASSERT_EQ_INT(0, a.executable);
	RK_ASSERT_EQ_STR("libx.so.1", a.soname);
	RK_ASSERT_EQ_INT(1, b.shared);
	RK_ASSERT_EQ_INT(0, b.executable);
	RK_ASSERT_EQ_STR("libx.so.1", b.soname);
}

RK_TEST(pie_executable_is_not_shared)
{
	struct rk_elf_info a, b;

	info("pie_exe", &a, &b);
	RK_ASSERT_EQ_INT(0, a.shared);
	RK_ASSERT_EQ_INT(0, b.shared);
	RK_ASSERT_EQ_INT(1, a.executable);
	RK_ASSERT_EQ_INT(1, b.executable);
	RK_ASSERT_EQ_STR("", a.soname);
}

RK_TEST(damaged_and_foreign_files)
{
	struct rk_elf_info a, b;

	info("truncated", &a, &b); /* the dynamic section is past the end */
	RK_ASSERT_EQ_STR("", a.soname);
	RK_ASSERT_EQ_STR("", b.soname);
	info("text", &a, &b);
	RK_ASSERT_EQ_INT(0, a.shared);
	RK_ASSERT_EQ_INT(0, b.shared);
	RK_ASSERT_EQ_INT(0, a.executable);
	rk_elf_info_mem("", 0, &a);
	RK_ASSERT_EQ_INT(0, a.shared);
	RK_ASSERT_EQ_INT(0, a.executable);
}
