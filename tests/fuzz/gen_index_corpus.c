/* gen_index_corpus.c: writes the seed files of corpus/index/ with rk_index_serialize, so
 * the seeds follow the format when it changes. Not a test; run it by hand:
 *   build/tests/fuzz/gen_index_corpus tests/fuzz/corpus/index */
#include <stdio.h>
#include <string.h>

#include "rk/index.h"

#define BLOB_A "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define BLOB_B "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

static void add(struct rk_index *idx, int type, const char *path, const char *link, uint64_t size,
		uint32_t mode, const char *blob)
{
	struct rk_member m = {0};

	m.type = (uint8_t)type;
	m.path = (char *)path;
	m.link = (char *)link;
	m.size = size;
	m.mtime = 1767225600;
	m.mode = mode;
	snprintf(m.blob, sizeof(m.blob), "%s", blob ? blob : "");
	if (rk_index_add(idx, &m))
		perror("rk_index_add");
}

static int save(const char *dir, const char *name, struct rk_index *idx)
{
	struct rk_buf b = RK_BUF_INIT;
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (rk_index_serialize(idx, &b) || !(f = fopen(path, "wb"))) {
		perror(path);
		return 1;
	}
	fwrite(b.buf, 1, b.len, f);
	fclose(f);
	rk_buf_release(&b);
	rk_index_release(idx);
	return 0;
}

int main(int argc, char **argv)
{
	struct rk_index idx = {0};
	int rc = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	rc |= save(argv[1], "empty.rkix", &idx);

	rk_index_add_prefix(&idx, "math-libs/BLAS/rocBLAS/stage");
	rk_index_add_prefix(&idx, "math-libs/BLAS/hipBLASLt/stage");
	rc |= save(argv[1], "prefixes-only.rkix", &idx);

	rk_index_add_prefix(&idx, "p/stage");
	idx.archive_size = 4096;
	memcpy(idx.archive_sha256, BLOB_B, sizeof(idx.archive_sha256));
	add(&idx, RK_MEMBER_FILE, "artifact_manifest.txt", NULL, 8, 0644, BLOB_A);
	add(&idx, RK_MEMBER_DIR, "p/stage/lib", NULL, 0, 0755, NULL);
	add(&idx, RK_MEMBER_FILE, "p/stage/lib/libx.so.1", NULL, 1234, 0755, BLOB_B);
	add(&idx, RK_MEMBER_SYMLINK, "p/stage/lib/libx.so", "libx.so.1", 9, 0777, NULL);
	add(&idx, RK_MEMBER_HARDLINK, "p/stage/lib/libx-copy.so.1", "p/stage/lib/libx.so.1", 1234,
	    0755, BLOB_B);
	add(&idx, RK_MEMBER_FILE, "p/stage/empty", NULL, 0, 0600, NULL);
	add(&idx, RK_MEMBER_HARDLINK, "p/stage/empty2", "p/stage/empty", 0, 0600, NULL);
	rc |= save(argv[1], "all-types.rkix", &idx);

	rk_index_add_prefix(&idx, "base/aux-overlay/stage");
	add(&idx, RK_MEMBER_FILE, "artifact_manifest.txt", NULL, 23, 0644, BLOB_A);
	add(&idx, RK_MEMBER_FILE, "base/aux-overlay/stage/share/therock/therock_manifest.json",
	    NULL, 100, 0644, BLOB_B);
	rc |= save(argv[1], "base.rkix", &idx);

	/* a symlink whose target has ".." (allowed: links are not paths) */
	add(&idx, RK_MEMBER_SYMLINK, "a/b/up", "../../x", 7, 0777, NULL);
	rc |= save(argv[1], "symlink-up.rkix", &idx);
	return rc;
}
