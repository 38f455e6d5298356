/* fuzz_tar_ingest.c: rk_ingest (no cache) over arbitrary bytes: zstd, xz or gzip
 * detection, libarchive's tar reader and TheRock's member rules. There is no in-memory
 * object yet, so each input is written to one file in a private temporary store and
 * opened through rk_store_object_open. Inputs of odd length also check the archive's
 * SHA-256 (against the right value, so the hashing path runs to the end).
 * Invariants on success: every member path is normalized, and no kept symlink resolves
 * outside the archive root, even through other kept symlinks. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rk/hash.h"
#include "rk/ingest.h"
#include "rk/log.h"
#include "rk/path.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], file[96];
static struct rk_store *store;

static void quiet(enum rk_log_level l, const char *msg)
{
	(void)l;
	(void)msg;
}

static void cleanup(void)
{
	rk_store_close(store);
	rmdir(dir);
}

static int setup(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/rk-fuzz-tar.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir) || rk_store_open(dir, &store, NULL))
		return -1;
	snprintf(file, sizeof(file), "%s/in.tar", dir);
	rk_log_set_handler(quiet);
	atexit(cleanup);
	return 0;
}

static const struct rk_member *find(const struct rk_index *idx, const char *path)
{
	for (size_t i = 0; i < idx->n; i++)
		if (!strcmp(idx->v[i].path, path))
			return &idx->v[i];
	return NULL;
}

/* Follow target from directory cur (modified in place) through the index's symlinks;
 * -1 when it climbs above the root. */
static int resolve(const struct rk_index *idx, char *cur, size_t n, const char *target, int hops)
{
	const char *p = target;

	if (target[0] == '/')
		return -1;
	while (*p) {
		size_t c = strcspn(p, "/");

		if (c == 2 && p[0] == '.' && p[1] == '.') {
			char *s = strrchr(cur, '/');

			if (!cur[0])
				return -1;
			if (s)
				*s = '\0';
			else
				cur[0] = '\0';
		} else if (c && !(c == 1 && p[0] == '.')) {
			const struct rk_member *m;
			size_t l = strlen(cur);

			if (l + c + 2 > n)
				return 0; /* too long to matter: ENAMETOOLONG */
			snprintf(cur + l, n - l, "%s%.*s", l ? "/" : "", (int)c, p);
			m = find(idx, cur);
			if (m && m->type == RK_MEMBER_SYMLINK && hops < 40) {
				char *s = strrchr(cur, '/');

				if (s)
					*s = '\0';
				else
					cur[0] = '\0';
				if (resolve(idx, cur, n, m->link, hops + 1) < 0)
					return -1;
			}
		}
		p += c;
		while (*p == '/')
			p++;
	}
	return 0;
}

static void check(const struct rk_index *idx)
{
	static char cur[RK_INDEX_MAX_PATH * 4];
	char norm[RK_INDEX_MAX_PATH + 1];

	if (idx->n == 0 || strcmp(idx->v[0].path, "artifact_manifest.txt"))
		abort();
	for (size_t i = 0; i < idx->n; i++) {
		const struct rk_member *m = &idx->v[i];
		char *s;

		if (rk_path_normalize(m->path, norm, sizeof(norm)) <= 0 || strcmp(norm, m->path))
			abort();
		if (m->type != RK_MEMBER_SYMLINK)
			continue;
		snprintf(cur, sizeof(cur), "%s", m->path);
		s = strrchr(cur, '/');
		if (s)
			*s = '\0';
		else
			cur[0] = '\0';
		if (resolve(idx, cur, sizeof(cur), m->link, 0) < 0)
			abort(); /* a kept symlink leaves the archive */
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char hex[RK_SHA256_HEX];
	struct rk_ingest_opts o = {.name = "fuzz.tar"};
	struct rk_object *obj = NULL;
	struct rk_index idx = {0};
	int fd;

	if (!store && setup())
		abort();
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
	if (rk_store_object_open(store, "in.tar", &obj, NULL))
		abort();
	unlink(file); /* the object keeps it open; nothing is left behind after a crash */
	if ((size & 1) && !rk_sha256_buf(data, size, hex))
		o.expect_sha256 = hex;
	if (rk_ingest(NULL, obj, &o, &idx, NULL) == 0) {
		check(&idx);
		if (o.expect_sha256 && strcmp(idx.archive_sha256, hex))
			abort();
		if (idx.archive_size != size)
			abort();
	}
	rk_index_release(&idx);
	rk_object_close(obj);
	return 0;
}
