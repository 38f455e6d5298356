/* cmd_kpack.c: rockpack kpack show|extract|resolve: look inside kpack files.
 *
 *   kpack show FILE.kpack                 group, arches, scheme and every code object
 *   kpack extract FILE.kpack KEY ARCH -o OUT
 *   kpack resolve BINARY --arch A[,A...]  what the HIP runtime would load for each
 *                                         wrapper of a split host binary: index,
 *                                         sha256, size and target of the code object
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk/hash.h"
#include "rk/kpack.h"
#include "rk/kpack_elf.h"
#include "rk/target.h"
#include "rockpack.h"

struct mapped {
	void *p;
	size_t n;
};

static int map_file(const char *path, struct mapped *m)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return rp_fail("%s: %s", path, strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size == 0) {
		close(fd);
		return rp_fail("%s: not a regular, non-empty file", path);
	}
	m->n = (size_t)st.st_size;
	m->p = mmap(NULL, m->n, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m->p == MAP_FAILED)
		return rp_fail("%s: mmap: %s", path, strerror(errno));
	return 0;
}

static int show(const char *file)
{
	struct rk_err err = RK_ERR_INIT;
	struct rk_kpack *k;
	struct mapped m;
	int rc, ret = 0;

	if (map_file(file, &m))
		return 1;
	if ((rc = rk_kpack_open(m.p, m.n, &k, &err))) {
		munmap(m.p, m.n);
		return rp_fail("%s: %s", file, rk_err_str(&err, rc));
	}
	printf("group\t%s\nscheme\t%s\narches\t", rk_kpack_group(k),
	       rk_kpack_scheme(k) == RK_KPACK_ZSTD ? "zstd-per-kernel" : "none");
	for (size_t i = 0; i < rk_kpack_arch_count(k); i++)
		printf("%s%s", i ? " " : "", rk_kpack_arch(k, i));
	putchar('\n');
	for (size_t i = 0; !ret && i < rk_kpack_binary_count(k); i++)
		for (size_t j = 0; !ret && j < rk_kpack_arch_count(k); j++) {
			const char *key = rk_kpack_binary(k, i), *arch = rk_kpack_arch(k, j);
			char target[RK_TARGET_MAX], sha[RK_SHA256_HEX];
			void *data;
			size_t size;

			rc = rk_kpack_get(k, key, arch, &data, &size, &err);
			if (rc == -ENOENT)
				continue;
			if (!rc)
				rc = rk_codeobj_target(data, size, target, &err);
			if (!rc)
				rc = rk_sha256_buf(data, size, sha);
			if (rc)
				ret = rp_fail("%s: '%s' for '%s': %s", file, key, arch,
					      rk_err_str(&err, rc));
			else
				printf("%s\t%s\t%zu\t%s\t%s\n", key, arch, size, target, sha);
			free(data);
		}
	rk_kpack_close(k);
	munmap(m.p, m.n);
	return ret;
}

static int extract(const char *file, const char *key, const char *arch, const char *out)
{
	struct rk_err err = RK_ERR_INIT;
	struct rk_kpack *k;
	struct mapped m;
	void *data = NULL;
	size_t size;
	int rc, fd, ret = 0;

	if (map_file(file, &m))
		return 1;
	rc = rk_kpack_open(m.p, m.n, &k, &err);
	if (!rc) {
		rc = rk_kpack_get(k, key, arch, &data, &size, &err);
		rk_kpack_close(k);
	}
	munmap(m.p, m.n);
	if (rc)
		return rp_fail("%s: %s", file, rk_err_str(&err, rc));
	fd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 || (rc = rp_write_all(fd, data, size)))
		ret = rp_fail("%s: %s", out, strerror(fd < 0 ? errno : -rc));
	if (fd >= 0 && close(fd) && !ret)
		ret = rp_fail("%s: %s", out, strerror(errno));
	free(data);
	return ret;
}

static int resolve(const char *binary, const char *arch_list)
{
	struct rk_err err = RK_ERR_INIT;
	struct rk_kpack_marker mk = {0};
	struct rk_fat_elf fe;
	struct mapped m;
	const char *archs[16];
	char *list = strdup(arch_list), *save = NULL, real[PATH_MAX];
	size_t narchs = 0;
	int rc, ret = 0;

	if (!list)
		return rp_fail("out of memory");
	for (char *t = strtok_r(list, ",", &save); t && narchs < 16; t = strtok_r(NULL, ",", &save))
		archs[narchs++] = t;
	if (!narchs || !realpath(binary, real) || map_file(real, &m)) {
		free(list);
		return narchs ? rp_fail("%s: %s", binary, strerror(errno)) : rp_fail("no --arch");
	}
	rc = rk_kpack_elf_inspect(m.p, m.n, &fe, &err);
	if (rc == 0 || (rc == 1 && !fe.has_marker))
		ret = rp_fail("%s: not a split host binary (no .rocm_kpack_ref)", binary);
	else if (rc < 0)
		ret = rp_fail("%s: %s", binary, rk_err_str(&err, rc));
	else if ((rc = rk_kpack_marker_decode((const char *)m.p + fe.marker_off, fe.marker_size,
					      &mk, &err)))
		ret = rp_fail("%s: marker: %s", binary, rk_err_str(&err, rc));
	munmap(m.p, m.n);
	for (unsigned i = 0; !ret && i < fe.nwrappers; i++) {
		char target[RK_TARGET_MAX], sha[RK_SHA256_HEX];
		void *data = NULL;
		size_t size = 0;

		rc = rk_kpack_load(&mk, real, i, archs, narchs, &data, &size, &err);
		if (!rc)
			rc = rk_codeobj_target(data, size, target, &err);
		if (!rc)
			rc = rk_sha256_buf(data, size, sha);
		if (rc)
			ret = rp_fail("%s: wrapper %u: %s", binary, i, rk_err_str(&err, rc));
		else
			printf("%u\t%s\t%zu\t%s\n", i, sha, size, target);
		free(data);
	}
	rk_kpack_marker_release(&mk);
	free(list);
	return ret;
}

int cmd_kpack(const struct rp_opts *o, int argc, char **argv)
{
	(void)o;
	if (argc == 2 && !strcmp(argv[0], "show"))
		return show(argv[1]);
	if (argc == 6 && !strcmp(argv[0], "extract") && !strcmp(argv[4], "-o"))
		return extract(argv[1], argv[2], argv[3], argv[5]);
	if (argc == 4 && !strcmp(argv[0], "resolve") && !strcmp(argv[2], "--arch"))
		return resolve(argv[1], argv[3]);
	return rp_fail("usage: rockpack kpack show FILE | extract FILE KEY ARCH -o OUT | "
		       "resolve BINARY --arch A[,A...]");
}
