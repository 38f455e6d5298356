/* fuzz_untar.c: rockpack install --release's extraction (tools/cli_untar.c) on arbitrary
 * bytes, as an attacker's release bucket would serve them. Each input is extracted into
 * a fresh directory DIR/out next to a canary DIR/canary. Invariants: whatever the archive
 * holds and whether the extraction succeeds, DIR holds nothing but the canary (unchanged)
 * and, on success, out (no staging sibling is left); nothing leaks (ASan). */
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_untar.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct mem {
	const uint8_t *p;
	size_t n;
};

static ssize_t mem_pread(void *ctx, void *buf, size_t n, uint64_t off)
{
	const struct mem *m = ctx;

	if (off >= m->n)
		return 0;
	if (n > m->n - off)
		n = m->n - off;
	memcpy(buf, m->p + off, n);
	return (ssize_t)n;
}

static int writable(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)ftw;
	if (flag == FTW_D && S_ISDIR(st->st_mode))
		chmod(path, 0700);
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void rm_tree(const char *path)
{
	/* directories made 0555 by an archive: writable again first, on the way down */
	nftw(path, writable, 16, FTW_PHYS);
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rp_opts o = {.command = "fuzz", .quiet = 1};
	char dir[] = "/tmp/fuzz_untar.XXXXXX", out[64], canary[64], buf[8];
	struct mem m = {data, size};
	struct rp_untar_src src = {mem_pread, &m, size};
	struct rp_progress p;
	struct dirent *e;
	DIR *d;
	int fd, ok;

	if (!mkdtemp(dir))
		abort();
	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(canary, sizeof(canary), "%s/canary", dir);
	fd = open(canary, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || write(fd, "canary", 6) != 6 || close(fd))
		abort();
	rp_progress_init(&p, &o, "files");
	ok = !rp_untar(&p, &src, "fuzz", out);
	if (!(d = opendir(dir)))
		abort();
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    !strcmp(e->d_name, "canary"))
			continue;
		if (!strcmp(e->d_name, "out") && ok)
			continue;
		fprintf(stderr, "fuzz_untar: '%s' left next to the output (ok=%d)\n", e->d_name,
			ok);
		abort();
	}
	closedir(d);
	fd = open(canary, O_RDONLY);
	if (fd < 0 || read(fd, buf, sizeof(buf)) != 6 || memcmp(buf, "canary", 6))
		abort();
	close(fd);
	rm_tree(dir);
	return 0;
}
