/* test_cache.c: blobs, metadata files, locks, eviction and verification. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rk/cache.h"
#include "rk_fixture.h"
#include "rk_test.h"

#define SHA_EMPTY "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define SHA_ABC "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
#define XATTR_LEN 73 /* user.rockfs.crc32: "<crc32 hex> <blob id>" */

static struct rk_cache *open_cache(const char *dir, uint64_t limit)
{
	struct rk_cache *c = NULL;
	struct rk_err err = RK_ERR_INIT;
	int rc = rk_cache_open(dir, limit, &c, &err);

	if (rc)
		rk_test_fail(__FILE__, __LINE__, "rk_cache_open: %s", rk_err_str(&err, rc));
	return c;
}

static const char *blob_file(const char *dir, const char *id)
{
	return fx_path("%s/blobs/%.2s/%s", dir, id, id);
}

static int exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static void read_fd(int fd, const char *want, size_t len)
{
	char *got = malloc(len + 1);

	RK_ASSERT_EQ_INT((ssize_t)len, pread(fd, got, len + 1, 0));
	RK_ASSERT_EQ_MEM(want, got, len);
	free(got);
}

/* Overwrite a committed blob on disk (keeping or changing its size). */
static void corrupt(const char *path, const char *data)
{
	chmod(path, 0644);
	fx_writes(path, data);
	chmod(path, 0400);
}

static size_t count_dir(const char *path)
{
	char cmd[4200];
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls -A '%s'", path);
	p = popen(cmd, "r");
	while (p && fgets(cmd, sizeof(cmd), p))
		n++;
	if (p)
		pclose(p);
	return n;
}

RK_TEST(open_creates_layout)
{
	struct rk_cache *c = open_cache("deep/er/cache", 0);
	size_t len;
	char *v;

	RK_ASSERT_EQ_STR("deep/er/cache", rk_cache_dir(c));
	RK_ASSERT(exists("deep/er/cache/blobs/00"));
	RK_ASSERT(exists("deep/er/cache/blobs/ff"));
	RK_ASSERT(exists("deep/er/cache/index"));
	RK_ASSERT(exists("deep/er/cache/locks"));
	RK_ASSERT(exists("deep/er/cache/tmp"));
	v = fx_read("deep/er/cache/VERSION", &len);
	RK_ASSERT_EQ_STR("rockfs-cache 1\n", v);
	free(v);
	rk_cache_close(c);
	/* reopening an existing cache works */
	c = open_cache("deep/er/cache", 0);
	rk_cache_close(c);
	rk_cache_close(NULL);
}

RK_TEST(open_rejects_other_version)
{
	struct rk_cache *c = NULL;
	struct rk_err err = RK_ERR_INIT;

	fx_writes("cache/VERSION", "rockfs-cache 2\n");
	RK_ASSERT_EQ_INT(-EPROTO, rk_cache_open("cache", 0, &c, &err));
	RK_ASSERT(c == NULL);
	RK_ASSERT(err.msg[0]);
	fx_writes("cache/VERSION", "");
	RK_ASSERT_EQ_INT(-EPROTO, rk_cache_open("cache", 0, &c, NULL));
}

RK_TEST(open_fails_on_a_file)
{
	struct rk_cache *c = NULL;

	fx_writes("notadir", "x");
	RK_ASSERT(rk_cache_open("notadir", 0, &c, NULL) < 0);
	RK_ASSERT(c == NULL);
}

RK_TEST(blob_put_open_round_trip)
{
	struct rk_cache *c = open_cache("cache", 0);
	char id[RK_SHA256_HEX];
	struct stat st;
	int fd = -1;

	RK_ASSERT_EQ_INT(0, rk_blob_put(c, "abc", 3, id, NULL));
	RK_ASSERT_EQ_STR(SHA_ABC, id);
	RK_ASSERT(stat(blob_file("cache", id), &st) == 0);
	RK_ASSERT_EQ_INT(3, st.st_size);
	RK_ASSERT_EQ_INT(0400, st.st_mode & 07777);
	RK_ASSERT_EQ_INT(0, rk_blob_open(c, id, 3, &fd, NULL));
	read_fd(fd, "abc", 3);
	RK_ASSERT_EQ_INT(-1, write(fd, "x", 1)); /* read-only descriptor */
	close(fd);
	RK_ASSERT_EQ_INT(0, count_dir("cache/tmp"));
	rk_cache_close(c);
}

RK_TEST(blob_empty)
{
	struct rk_cache *c = open_cache("cache", 0);
	char id[RK_SHA256_HEX];
	int fd = -1;

	RK_ASSERT_EQ_INT(0, rk_blob_put(c, "", 0, id, NULL));
	RK_ASSERT_EQ_STR(SHA_EMPTY, id);
	RK_ASSERT_EQ_INT(0, rk_blob_open(c, id, 0, &fd, NULL));
	close(fd);
	rk_cache_close(c);
}

RK_TEST(blob_writer_streams)
{
	struct rk_cache *c = open_cache("cache", 0);
	struct rk_blob_writer *w = NULL;
	char id[RK_SHA256_HEX], chunk[4096];
	int fd = -1;

	memset(chunk, 'a', sizeof(chunk));
	RK_ASSERT_EQ_INT(0, rk_blob_create(c, 1, &w, NULL));
	RK_ASSERT_EQ_INT(1, count_dir("cache/tmp"));
	RK_ASSERT_EQ_INT(0, rk_blob_write(w, "a", 1, NULL));
	for (int i = 0; i < 244; i++)
		RK_ASSERT_EQ_INT(0, rk_blob_write(w, chunk, sizeof(chunk), NULL));
	RK_ASSERT_EQ_INT(0, rk_blob_write(w, chunk, 0, NULL));
	RK_ASSERT_EQ_INT(0, rk_blob_write(w, chunk, 1000000 - 1 - 244 * 4096, NULL));
	RK_ASSERT_EQ_INT(0, rk_blob_commit(w, id, NULL));
	/* one million 'a': the FIPS 180-2 long vector */
	RK_ASSERT_EQ_STR("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0", id);
	RK_ASSERT_EQ_INT(0, count_dir("cache/tmp"));
	RK_ASSERT_EQ_INT(0, rk_blob_open(c, id, 1000000, &fd, NULL));
	close(fd);
	rk_cache_close(c);
}

/* Runs of zeros become holes: the blob reads back whole, hashes as its full content and
 * takes (about) its data on disk; rk_blob_hole appends zeros the same way. */
RK_TEST(blob_zeros_are_holes)
{
	struct rk_cache *c = open_cache("cache", 0);
	struct rk_blob_writer *w = NULL, *w2 = NULL;
	static char zeros[1 << 20];
	char id[RK_SHA256_HEX], id2[RK_SHA256_HEX], back[16];
	struct stat st;
	int fd = -1;

	RK_ASSERT_EQ_INT(0, rk_blob_create(c, 0, &w, NULL));
	RK_ASSERT_EQ_INT(0, rk_blob_write(w, "head", 4, NULL)); /* a partial first block */
	for (int i = 0; i < 64; i++)
		RK_ASSERT_EQ_INT(0, rk_blob_write(w, zeros, sizeof(zeros) - 7, NULL));
	RK_ASSERT_EQ_INT(0, rk_blob_write(w, "tail", 4, NULL));
	RK_ASSERT_EQ_INT(0, rk_blob_write(w, zeros, 5000, NULL)); /* ends in a hole */
	RK_ASSERT_EQ_INT(8, (long long)rk_blob_writer_dense(w));
	RK_ASSERT_EQ_INT(0, rk_blob_commit(w, id, NULL));
	/* the same content written hashing as it goes, with rk_blob_hole */
	RK_ASSERT_EQ_INT(0, rk_blob_create(c, 1, &w2, NULL));
	RK_ASSERT_EQ_INT(0, rk_blob_write(w2, "head", 4, NULL));
	RK_ASSERT_EQ_INT(0, rk_blob_hole(w2, 64 * (uint64_t)(sizeof(zeros) - 7), NULL));
	RK_ASSERT_EQ_INT(0, rk_blob_write(w2, "tail", 4, NULL));
	RK_ASSERT_EQ_INT(0, rk_blob_hole(w2, 5000, NULL));
	RK_ASSERT_EQ_INT(0, rk_blob_commit(w2, id2, NULL));
	RK_ASSERT_EQ_STR(id, id2);
	uint64_t size = 4 + 64 * (uint64_t)(sizeof(zeros) - 7) + 4 + 5000;
	RK_ASSERT_EQ_INT(0, stat(blob_file("cache", id), &st));
	RK_ASSERT_EQ_INT((long long)size, (long long)st.st_size);
	RK_ASSERT((uint64_t)st.st_blocks * 512 < 1u << 20); /* 64 MiB of zeros: holes */
	RK_ASSERT_EQ_INT(0, rk_blob_open(c, id, size, &fd, NULL));
	RK_ASSERT_EQ_INT(4, pread(fd, back, 4, 0));
	RK_ASSERT_EQ_MEM("head", back, 4);
	RK_ASSERT_EQ_INT(8, pread(fd, back, 8, (off_t)(size - 5000 - 6)));
	RK_ASSERT_EQ_MEM("\0\0tail\0\0", back, 8);
	RK_ASSERT_EQ_INT(1, pread(fd, back, 16, (off_t)size - 1));
	RK_ASSERT_EQ_INT(0, back[0]);
	close(fd);
	rk_cache_close(c);
}

RK_TEST(blob_writer_deferred_hash)
{
	struct rk_cache *c = open_cache("cache", 0);
	struct rk_blob_writer *w = NULL;
	char id[RK_SHA256_HEX], back[8];
	int fd = -1;

	/* hash_now = 0: commit hashes the file it reads back */
	RK_ASSERT_EQ_INT(0, rk_blob_create(c, 0, &w, NULL));
	RK_ASSERT_EQ_INT(0, rk_blob_write(w, "a", 1, NULL));
	RK_ASSERT_EQ_INT(0, rk_blob_write(w, "bc", 2, NULL));
	/* the writer's file reads back from offset 0 before commit */
	RK_ASSERT_EQ_INT(3, pread(rk_blob_writer_fd(w), back, sizeof(back), 0));
	RK_ASSERT_EQ_MEM("abc", back, 3);
	RK_ASSERT_EQ_INT(0, rk_blob_commit(w, id, NULL));
	RK_ASSERT_EQ_STR(SHA_ABC, id);
	RK_ASSERT_EQ_INT(0, rk_blob_open(c, id, 3, &fd, NULL));
	read_fd(fd, "abc", 3);
	close(fd);
	/* an empty deferred blob */
	RK_ASSERT_EQ_INT(0, rk_blob_create(c, 0, &w, NULL));
	RK_ASSERT_EQ_INT(0, rk_blob_commit(w, id, NULL));
	RK_ASSERT_EQ_STR(SHA_EMPTY, id);
	RK_ASSERT_EQ_INT(0, count_dir("cache/tmp"));
	rk_cache_close(c);
}

RK_TEST(blob_abort_leaves_nothing)
{
	struct rk_cache *c = open_cache("cache", 0);
	struct rk_blob_writer *w = NULL;
	struct rk_cache_stats st;

	RK_ASSERT_EQ_INT(0, rk_blob_create(c, 1, &w, NULL));
	RK_ASSERT_EQ_INT(0, rk_blob_write(w, "partial", 7, NULL));
	rk_blob_abort(w);
	RK_ASSERT_EQ_INT(0, rk_blob_create(c, 0, &w, NULL));
	RK_ASSERT_EQ_INT(0, rk_blob_write(w, "partial", 7, NULL));
	rk_blob_abort(w);
	rk_blob_abort(NULL);
	RK_ASSERT_EQ_INT(0, count_dir("cache/tmp"));
	RK_ASSERT_EQ_INT(0, rk_cache_stats(c, &st, NULL));
	RK_ASSERT_EQ_INT(0, st.blobs);
	rk_cache_close(c);
}

RK_TEST(blob_dedup)
{
	struct rk_cache *c = open_cache("cache", 0);
	char id1[RK_SHA256_HEX], id2[RK_SHA256_HEX], id3[RK_SHA256_HEX];
	struct rk_cache_stats st;

	RK_ASSERT_EQ_INT(0, rk_blob_put(c, "same bytes", 10, id1, NULL));
	RK_ASSERT_EQ_INT(0, rk_blob_put(c, "same bytes", 10, id2, NULL));
	RK_ASSERT_EQ_INT(0, rk_blob_put(c, "other", 5, id3, NULL));
	RK_ASSERT_EQ_STR(id1, id2);
	RK_ASSERT(strcmp(id1, id3));
	RK_ASSERT_EQ_INT(0, rk_cache_stats(c, &st, NULL));
	RK_ASSERT_EQ_INT(2, st.blobs);
	RK_ASSERT_EQ_INT(15, st.blob_bytes);
	RK_ASSERT_EQ_INT(0, count_dir("cache/tmp"));
	rk_cache_close(c);
}

RK_TEST(blob_missing_is_enoent)
{
	struct rk_cache *c = open_cache("cache", 0);
	int fd = -1;

	RK_ASSERT_EQ_INT(-ENOENT, rk_blob_open(c, SHA_ABC, 3, &fd, NULL));
	RK_ASSERT_EQ_INT(-1, fd); /* out-param untouched */
	rk_cache_close(c);
}

RK_TEST(blob_bad_id_is_einval)
{
	struct rk_cache *c = open_cache("cache", 0);
	int fd = -1;

	RK_ASSERT_EQ_INT(-EINVAL, rk_blob_open(c, "", 0, &fd, NULL));
	RK_ASSERT_EQ_INT(-EINVAL, rk_blob_open(c, "../../VERSION", 0, &fd, NULL));
	RK_ASSERT_EQ_INT(
		-EINVAL,
		rk_blob_open(c, "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD",
			     3, &fd, NULL));
	rk_cache_close(c);
}

RK_TEST(blob_wrong_size_is_ebadmsg)
{
	struct rk_cache *c = open_cache("cache", 0);
	struct rk_err err = RK_ERR_INIT;
	char id[RK_SHA256_HEX];
	int fd = -1;

	RK_ASSERT_EQ_INT(0, rk_blob_put(c, "abc", 3, id, NULL));
	RK_ASSERT_EQ_INT(-EBADMSG, rk_blob_open(c, id, 4, &fd, &err));
	RK_ASSERT(err.msg[0]);
	RK_ASSERT(!exists(blob_file("cache", id))); /* discarded */
	RK_ASSERT_EQ_INT(-ENOENT, rk_blob_open(c, id, 3, &fd, NULL));
	rk_cache_close(c);
}

RK_TEST(blob_corrupted_on_disk_rejected_by_fresh_handle)
{
	struct rk_cache *a = open_cache("cache", 0), *b;
	struct rk_err err = RK_ERR_INIT;
	char id[RK_SHA256_HEX];
	int fd = -1;

	RK_ASSERT_EQ_INT(0, rk_blob_put(a, "hello", 5, id, NULL));
	rk_cache_close(a);
	corrupt(blob_file("cache", id), "jello"); /* same size: only the hash can tell */
	b = open_cache("cache", 0);
	RK_ASSERT_EQ_INT(-EBADMSG, rk_blob_open(b, id, 5, &fd, &err));
	RK_ASSERT_EQ_INT(-1, fd);
	RK_ASSERT(strstr(err.msg, "hash") != NULL);
	RK_ASSERT(!exists(blob_file("cache", id))); /* deleted, never served */
	RK_ASSERT_EQ_INT(-ENOENT, rk_blob_open(b, id, 5, &fd, NULL));
	/* putting the content again repairs it */
	RK_ASSERT_EQ_INT(0, rk_blob_put(b, "hello", 5, id, NULL));
	RK_ASSERT_EQ_INT(0, rk_blob_open(b, id, 5, &fd, NULL));
	read_fd(fd, "hello", 5);
	close(fd);
	rk_cache_close(b);
}

RK_TEST(blob_checked_by_crc_or_sha256)
{
	struct rk_cache *a = open_cache("cache", 0), *b;
	struct rk_err err = RK_ERR_INIT;
	char id[RK_SHA256_HEX], v[80];
	int fd = -1;

	RK_ASSERT_EQ_INT(0, rk_blob_put(a, "hello", 5, id, NULL));
	rk_cache_close(a);
	if (getxattr(blob_file("cache", id), "user.rockfs.crc32", v, sizeof(v)) != XATTR_LEN)
		RK_SKIP("no user xattrs on this file system");
	RK_ASSERT_EQ_MEM("3610a686 ", v, 9); /* CRC32 of "hello", then the blob's id */
	RK_ASSERT_EQ_MEM(id, v + 9, 64);
	corrupt(blob_file("cache", id), "jello");
	b = open_cache("cache", 0);
	RK_ASSERT_EQ_INT(-EBADMSG, rk_blob_open(b, id, 5, &fd, &err));
	RK_ASSERT(strstr(err.msg, "CRC32") != NULL);
	/* without the record (an older cache), the SHA-256 is checked */
	RK_ASSERT_EQ_INT(0, rk_blob_put(b, "hello", 5, id, NULL));
	rk_cache_close(b);
	chmod(blob_file("cache", id), 0644);
	RK_ASSERT_EQ_INT(0, removexattr(blob_file("cache", id), "user.rockfs.crc32"));
	corrupt(blob_file("cache", id), "jello");
	b = open_cache("cache", 0);
	RK_ASSERT_EQ_INT(-EBADMSG, rk_blob_open(b, id, 5, &fd, &err));
	RK_ASSERT(strstr(err.msg, "SHA-256") != NULL);
	RK_ASSERT_EQ_INT(0, rk_blob_put(b, "hello", 5, id, NULL));
	rk_cache_close(b);
	b = open_cache("cache", 0);
	RK_ASSERT_EQ_INT(0, rk_blob_open(b, id, 5, &fd, NULL));
	read_fd(fd, "hello", 5);
	close(fd);
	rk_cache_close(b);
}

RK_TEST(blob_crc32_recorded_or_computed)
{
	struct rk_cache *a = open_cache("cache", 0), *b;
	struct rk_err err = RK_ERR_INIT;
	char id[RK_SHA256_HEX], empty[RK_SHA256_HEX], v[80];
	uint32_t crc = 1;
	struct stat st;

	RK_ASSERT_EQ_INT(0, rk_blob_put(a, "hello", 5, id, NULL));
	RK_ASSERT_EQ_INT(0, rk_blob_put(a, "", 0, empty, NULL));
	if (getxattr(blob_file("cache", id), "user.rockfs.crc32", v, sizeof(v)) != XATTR_LEN)
		RK_SKIP("no user xattrs on this file system");
	/* the value recorded at commit */
	RK_ASSERT_EQ_INT(0, rk_blob_crc32(a, id, 5, &crc, &err));
	RK_ASSERT_EQ_INT(0x3610a686, crc); /* CRC32 of "hello" */
	RK_ASSERT_EQ_INT(0, rk_blob_crc32(a, empty, 0, &crc, &err));
	RK_ASSERT_EQ_INT(0, crc);
	/* without the record: computed and recorded again, the blob stays read-only; once by
	 * the handle that wrote it, once by a fresh one (which checks the SHA-256 too) */
	for (int i = 0; i < 2; i++) {
		b = i ? open_cache("cache", 0) : a;
		chmod(blob_file("cache", id), 0644);
		RK_ASSERT_EQ_INT(0, removexattr(blob_file("cache", id), "user.rockfs.crc32"));
		chmod(blob_file("cache", id), 0400);
		crc = 1;
		RK_ASSERT_EQ_INT(0, rk_blob_crc32(b, id, 5, &crc, &err));
		RK_ASSERT_EQ_INT(0x3610a686, crc);
		memset(v, 0, sizeof(v));
		RK_ASSERT_EQ_INT(XATTR_LEN, getxattr(blob_file("cache", id), "user.rockfs.crc32", v,
						     sizeof(v)));
		RK_ASSERT_EQ_MEM("3610a686 ", v, 9);
		RK_ASSERT_EQ_STR(id, v + 9);
		RK_ASSERT_EQ_INT(0, stat(blob_file("cache", id), &st));
		RK_ASSERT_EQ_INT(0400, st.st_mode & 07777);
		if (i)
			rk_cache_close(b);
	}
	/* missing, or of another size (which leaves the blob alone) */
	crc = 1;
	RK_ASSERT_EQ_INT(-ENOENT, rk_blob_crc32(a, SHA_ABC, 3, &crc, &err));
	RK_ASSERT_EQ_INT(-ENOENT, rk_blob_crc32(a, id, 4, &crc, &err));
	RK_ASSERT_EQ_INT(1, crc);
	RK_ASSERT(exists(blob_file("cache", id)));
	rk_cache_close(a);
}

struct crc_thread {
	struct rk_cache *c;
	const char *id;
	int bad;
};

static void *crc_thread(void *arg)
{
	struct crc_thread *t = arg;

	for (int i = 0; i < 50; i++) {
		uint32_t crc = 0;

		if (rk_blob_crc32(t->c, t->id, 5, &crc, NULL) || crc != 0x3610a686)
			t->bad++;
	}
	return NULL;
}

RK_TEST(blob_crc32_from_many_threads)
{
	struct rk_cache *a = open_cache("cache", 0), *b;
	struct crc_thread t[8];
	pthread_t th[8];
	char id[RK_SHA256_HEX], v[80];
	struct stat st;

	RK_ASSERT_EQ_INT(0, rk_blob_put(a, "hello", 5, id, NULL));
	rk_cache_close(a);
	if (getxattr(blob_file("cache", id), "user.rockfs.crc32", v, sizeof(v)) != XATTR_LEN)
		RK_SKIP("no user xattrs on this file system");
	chmod(blob_file("cache", id), 0644);
	RK_ASSERT_EQ_INT(0, removexattr(blob_file("cache", id), "user.rockfs.crc32"));
	chmod(blob_file("cache", id), 0400);
	/* a fresh handle: every thread may be the one that checks and records */
	b = open_cache("cache", 0);
	for (int i = 0; i < 8; i++) {
		t[i] = (struct crc_thread){b, id, 0};
		RK_ASSERT_EQ_INT(0, pthread_create(&th[i], NULL, crc_thread, &t[i]));
	}
	for (int i = 0; i < 8; i++) {
		RK_ASSERT_EQ_INT(0, pthread_join(th[i], NULL));
		RK_ASSERT_EQ_INT(0, t[i].bad);
	}
	RK_ASSERT_EQ_INT(XATTR_LEN,
			 getxattr(blob_file("cache", id), "user.rockfs.crc32", v, sizeof(v)));
	RK_ASSERT_EQ_MEM("3610a686 ", v, 9);
	RK_ASSERT_EQ_INT(0, stat(blob_file("cache", id), &st));
	RK_ASSERT_EQ_INT(0400, st.st_mode & 07777);
	rk_cache_close(b);
}

/* A handle that checked a blob checks it again once it changes on disk (a rewrite keeps
 * its size, a truncation does not): the check holds for the file as it was checked. */
RK_TEST(blob_changed_after_check_is_checked_again)
{
	struct rk_cache *a = open_cache("cache", 0), *b = open_cache("cache", 0);
	char id[RK_SHA256_HEX];
	int fd = -1;

	RK_ASSERT_EQ_INT(0, rk_blob_put(a, "hello", 5, id, NULL));
	RK_ASSERT_EQ_INT(0, rk_blob_open(b, id, 5, &fd, NULL)); /* b hashes it now */
	close(fd);
	RK_ASSERT_EQ_INT(0, rk_blob_open(b, id, 5, &fd, NULL)); /* and not again */
	close(fd);
	corrupt(blob_file("cache", id), "jello");
	RK_ASSERT_EQ_INT(-EBADMSG, rk_blob_open(b, id, 5, &fd, NULL));
	RK_ASSERT(!exists(blob_file("cache", id)));
	/* the writer's own handle too */
	RK_ASSERT_EQ_INT(0, rk_blob_put(a, "hello", 5, id, NULL));
	corrupt(blob_file("cache", id), "jello");
	RK_ASSERT_EQ_INT(-EBADMSG, rk_blob_open(a, id, 5, &fd, NULL));
	rk_cache_close(a);
	rk_cache_close(b);
}

/* A descriptor kept open across reads: rechecked cheaply while its blob is unchanged,
 * checked again once it changed; a copy made again meanwhile is left alone. */
RK_TEST(blob_recheck_of_an_open_descriptor)
{
	struct rk_cache *c = open_cache("cache", 0);
	char id[RK_SHA256_HEX];
	int fd = -1, fd2 = -1;

	RK_ASSERT_EQ_INT(0, rk_blob_put(c, "hello", 5, id, NULL));
	RK_ASSERT_EQ_INT(0, rk_blob_open(c, id, 5, &fd, NULL));
	RK_ASSERT_EQ_INT(0, rk_blob_recheck(c, id, 5, fd, NULL));
	corrupt(blob_file("cache", id), "jello"); /* in place: fd sees it */
	RK_ASSERT_EQ_INT(-EBADMSG, rk_blob_recheck(c, id, 5, fd, NULL));
	RK_ASSERT(!exists(blob_file("cache", id)));
	close(fd);
	/* truncated */
	RK_ASSERT_EQ_INT(0, rk_blob_put(c, "hello", 5, id, NULL));
	RK_ASSERT_EQ_INT(0, rk_blob_open(c, id, 5, &fd, NULL));
	chmod(blob_file("cache", id), 0644);
	RK_ASSERT_EQ_INT(0, truncate(blob_file("cache", id), 2));
	RK_ASSERT_EQ_INT(-EBADMSG, rk_blob_recheck(c, id, 5, fd, NULL));
	/* made again meanwhile: the old descriptor fails, the new copy stays */
	RK_ASSERT_EQ_INT(0, rk_blob_put(c, "hello", 5, id, NULL));
	RK_ASSERT_EQ_INT(-EBADMSG, rk_blob_recheck(c, id, 5, fd, NULL));
	RK_ASSERT(exists(blob_file("cache", id)));
	RK_ASSERT_EQ_INT(0, rk_blob_open(c, id, 5, &fd2, NULL));
	read_fd(fd2, "hello", 5);
	close(fd2);
	close(fd);
	rk_cache_close(c);
}

/* Two blobs of one size swapped on disk (their recorded CRC32s go with them): each is
 * discarded on open, by a handle that had checked them before as by a fresh one. */
RK_TEST(blob_moved_to_another_name_is_discarded)
{
	struct rk_cache *a = open_cache("cache", 0), *b;
	struct rk_err err = RK_ERR_INIT;
	char x[RK_SHA256_HEX], y[RK_SHA256_HEX], v[80];
	int fd = -1;

	RK_ASSERT_EQ_INT(0, rk_blob_put(a, "hello", 5, x, NULL));
	RK_ASSERT_EQ_INT(0, rk_blob_put(a, "world", 5, y, NULL));
	RK_ASSERT_EQ_INT(0, rk_blob_open(a, x, 5, &fd, NULL));
	close(fd);
	RK_ASSERT_EQ_INT(0, rename(blob_file("cache", x), "swap"));
	RK_ASSERT_EQ_INT(0, rename(blob_file("cache", y), blob_file("cache", x)));
	RK_ASSERT_EQ_INT(0, rename("swap", blob_file("cache", y)));
	RK_ASSERT_EQ_INT(-EBADMSG, rk_blob_open(a, x, 5, &fd, &err));
	if (getxattr(blob_file("cache", y), "user.rockfs.crc32", v, sizeof(v)) == XATTR_LEN)
		RK_ASSERT(strstr(err.msg, "moved") != NULL);
	RK_ASSERT(!exists(blob_file("cache", x)));
	b = open_cache("cache", 0);
	RK_ASSERT_EQ_INT(-EBADMSG, rk_blob_open(b, y, 5, &fd, NULL));
	RK_ASSERT(!exists(blob_file("cache", y)));
	rk_cache_close(b);
	rk_cache_close(a);
}

/* A blob whose recorded CRC32 is an older rockfs's (no id) is checked by its SHA-256 and
 * the CRC32 recorded again, with the id. */
RK_TEST(blob_old_crc_record_is_checked_and_recorded_again)
{
	struct rk_cache *a = open_cache("cache", 0), *b;
	char id[RK_SHA256_HEX], v[80];
	int fd = -1;

	RK_ASSERT_EQ_INT(0, rk_blob_put(a, "hello", 5, id, NULL));
	rk_cache_close(a);
	if (getxattr(blob_file("cache", id), "user.rockfs.crc32", v, sizeof(v)) != XATTR_LEN)
		RK_SKIP("no user xattrs on this file system");
	chmod(blob_file("cache", id), 0644);
	RK_ASSERT_EQ_INT(0,
			 setxattr(blob_file("cache", id), "user.rockfs.crc32", "3610a686", 8, 0));
	chmod(blob_file("cache", id), 0400);
	b = open_cache("cache", 0);
	RK_ASSERT_EQ_INT(0, rk_blob_open(b, id, 5, &fd, NULL));
	read_fd(fd, "hello", 5);
	close(fd);
	memset(v, 0, sizeof(v));
	RK_ASSERT_EQ_INT(XATTR_LEN,
			 getxattr(blob_file("cache", id), "user.rockfs.crc32", v, sizeof(v)));
	RK_ASSERT_EQ_MEM("3610a686 ", v, 9);
	RK_ASSERT_EQ_STR(id, v + 9);
	rk_cache_close(b);
}

/* A blob that rots on disk must not be "revived" by a later put of the same content:
 * the dedup path in rk_blob_commit only compares sizes and then marks the id verified,
 * so the corrupt file is served from then on. */
RK_TEST(blob_put_over_corrupt_copy_serves_good_bytes)
{
	struct rk_cache *a = open_cache("cache", 0), *b;
	char id[RK_SHA256_HEX];
	int fd = -1;

	RK_ASSERT_EQ_INT(0, rk_blob_put(a, "hello", 5, id, NULL));
	rk_cache_close(a);
	corrupt(blob_file("cache", id), "jello");
	b = open_cache("cache", 0);
	RK_ASSERT_EQ_INT(0, rk_blob_put(b, "hello", 5, id, NULL)); /* e.g. an archive re-ingest */
	RK_ASSERT_EQ_INT(0, rk_blob_open(b, id, 5, &fd, NULL));
	read_fd(fd, "hello", 5);
	close(fd);
	rk_cache_close(b);
}

RK_TEST(two_handles_share_one_dir)
{
	struct rk_cache *a = open_cache("cache", 0), *b = open_cache("cache", 0);
	char ida[RK_SHA256_HEX], idb[RK_SHA256_HEX];
	char *data = NULL;
	size_t len = 0;
	int fd = -1;

	RK_ASSERT_EQ_INT(0, rk_blob_put(a, "from a", 6, ida, NULL));
	RK_ASSERT_EQ_INT(0, rk_blob_open(b, ida, 6, &fd, NULL));
	read_fd(fd, "from a", 6);
	close(fd);
	RK_ASSERT_EQ_INT(0, rk_blob_put(b, "from a", 6, idb, NULL));
	RK_ASSERT_EQ_STR(ida, idb);
	RK_ASSERT_EQ_INT(0, rk_cache_put_file(b, "index/k.rkix", "idx", 3, NULL));
	RK_ASSERT_EQ_INT(0, rk_cache_get_file(a, "index/k.rkix", 100, &data, &len, NULL));
	RK_ASSERT_EQ_INT(3, len);
	RK_ASSERT_EQ_STR("idx", data);
	free(data);
	rk_cache_close(a);
	rk_cache_close(b);
}

RK_TEST(put_get_file)
{
	struct rk_cache *c = open_cache("cache", 0);
	struct rk_err err = RK_ERR_INIT;
	static const char bin[] = "a\0b\0c";
	char *data = NULL;
	size_t len = 0;

	RK_ASSERT_EQ_INT(-ENOENT, rk_cache_get_file(c, "index/x.rkix", 100, &data, &len, NULL));
	RK_ASSERT_EQ_INT(0, rk_cache_put_file(c, "index/x.rkix", bin, sizeof(bin), NULL));
	RK_ASSERT_EQ_INT(0, rk_cache_get_file(c, "index/x.rkix", 100, &data, &len, NULL));
	RK_ASSERT_EQ_INT(sizeof(bin), len);
	RK_ASSERT_EQ_MEM(bin, data, sizeof(bin));
	RK_ASSERT_EQ_INT('\0', data[len]);
	free(data);
	/* replace: atomic, nothing left in tmp/ */
	RK_ASSERT_EQ_INT(0, rk_cache_put_file(c, "index/x.rkix", "new", 3, NULL));
	RK_ASSERT_EQ_INT(0, rk_cache_get_file(c, "index/x.rkix", 3, &data, &len, NULL));
	RK_ASSERT_EQ_STR("new", data);
	free(data);
	RK_ASSERT_EQ_INT(0, count_dir("cache/tmp"));
	/* the size cap */
	data = NULL;
	RK_ASSERT_EQ_INT(-EFBIG, rk_cache_get_file(c, "index/x.rkix", 2, &data, &len, &err));
	RK_ASSERT(data == NULL);
	/* empty file */
	RK_ASSERT_EQ_INT(0, rk_cache_put_file(c, "index/e.rkix", "", 0, NULL));
	RK_ASSERT_EQ_INT(0, rk_cache_get_file(c, "index/e.rkix", 0, &data, &len, NULL));
	RK_ASSERT_EQ_INT(0, len);
	RK_ASSERT_EQ_STR("", data);
	free(data);
	/* remove */
	RK_ASSERT_EQ_INT(0, rk_cache_remove_file(c, "index/x.rkix"));
	RK_ASSERT_EQ_INT(-ENOENT, rk_cache_remove_file(c, "index/x.rkix"));
	RK_ASSERT_EQ_INT(-ENOENT, rk_cache_get_file(c, "index/x.rkix", 100, &data, &len, NULL));
	rk_cache_close(c);
}

RK_TEST(put_file_into_missing_dir_fails_cleanly)
{
	struct rk_cache *c = open_cache("cache", 0);
	struct rk_err err = RK_ERR_INIT;

	/* a part of the cache gone is a cache that cannot be written now: transient */
	RK_ASSERT_EQ_INT(-EROFS, rk_cache_put_file(c, "nodir/x", "x", 1, &err));
	RK_ASSERT(rk_err_transient(-EROFS));
	RK_ASSERT(err.msg[0]);
	RK_ASSERT_EQ_INT(0, count_dir("cache/tmp"));
	rk_cache_close(c);
}

RK_TEST(put_file_is_atomic_for_readers)
{
	struct rk_cache *c = open_cache("cache", 0);
	char *big = malloc(1 << 20), *data;
	size_t len;
	pid_t pid;
	int st;

	memset(big, 'A', 1 << 20);
	RK_ASSERT_EQ_INT(0, rk_cache_put_file(c, "index/a", big, 1 << 20, NULL));
	pid = fork();
	if (pid == 0) {
		/* a reader in another process only ever sees a whole old or new file */
		for (int i = 0; i < 200; i++) {
			if (rk_cache_get_file(c, "index/a", 2 << 20, &data, &len, NULL))
				_exit(2);
			if (len != (1 << 20) || (data[0] != data[len - 1]))
				_exit(3);
			free(data);
		}
		_exit(0);
	}
	for (int i = 0; i < 50; i++) {
		memset(big, 'A' + i % 26, 1 << 20);
		RK_ASSERT_EQ_INT(0, rk_cache_put_file(c, "index/a", big, 1 << 20, NULL));
	}
	RK_ASSERT(waitpid(pid, &st, 0) == pid);
	RK_ASSERT(WIFEXITED(st));
	RK_ASSERT_EQ_INT(0, WEXITSTATUS(st));
	free(big);
	rk_cache_close(c);
}

static void put_aged(struct rk_cache *c, const char *data, time_t mtime, char id[RK_SHA256_HEX])
{
	struct timespec ts[2] = {{mtime, 0}, {mtime, 0}};

	RK_ASSERT_EQ_INT(0, rk_blob_put(c, data, strlen(data), id, NULL));
	RK_ASSERT_EQ_INT(0, utimensat(AT_FDCWD, blob_file("cache", id), ts, 0));
}

RK_TEST(gc_evicts_oldest_first)
{
	struct rk_cache *c = open_cache("cache", 0);
	char old[RK_SHA256_HEX], mid[RK_SHA256_HEX], young[RK_SHA256_HEX];
	struct rk_cache_stats st;
	time_t now = time(NULL);

	put_aged(c, "0123456789", now - 3000, mid); /* 10 bytes */
	put_aged(c, "01234567890123456789", now - 5000, old); /* 20 bytes */
	put_aged(c, "young!", now - 10, young); /* 6 bytes */
	RK_ASSERT_EQ_INT(0, rk_cache_gc(c, 36, &st, NULL)); /* already under: nothing */
	RK_ASSERT_EQ_INT(0, st.evicted);
	RK_ASSERT_EQ_INT(3, st.blobs);
	RK_ASSERT_EQ_INT(36, st.blob_bytes);
	RK_ASSERT_EQ_INT(0, rk_cache_gc(c, 16, &st, NULL));
	RK_ASSERT_EQ_INT(1, st.evicted); /* the oldest (20 bytes) is enough */
	RK_ASSERT_EQ_INT(20, st.evicted_bytes);
	RK_ASSERT_EQ_INT(2, st.blobs);
	RK_ASSERT_EQ_INT(16, st.blob_bytes);
	RK_ASSERT(!exists(blob_file("cache", old)));
	RK_ASSERT(exists(blob_file("cache", mid)));
	RK_ASSERT_EQ_INT(0, rk_cache_gc(c, 15, &st, NULL));
	RK_ASSERT_EQ_INT(1, st.evicted);
	RK_ASSERT(!exists(blob_file("cache", mid)));
	RK_ASSERT(exists(blob_file("cache", young)));
	RK_ASSERT_EQ_INT(0, rk_cache_gc(c, 0, &st, NULL));
	RK_ASSERT_EQ_INT(1, st.evicted);
	RK_ASSERT_EQ_INT(0, st.blobs);
	RK_ASSERT_EQ_INT(0, st.blob_bytes);
	rk_cache_close(c);
}

RK_TEST(gc_evicted_blob_is_enoent)
{
	struct rk_cache *c = open_cache("cache", 0);
	struct rk_cache_stats st;
	char id[RK_SHA256_HEX];
	int fd = -1;

	RK_ASSERT_EQ_INT(0, rk_blob_put(c, "abc", 3, id, NULL));
	RK_ASSERT_EQ_INT(0, rk_cache_gc(c, 0, &st, NULL));
	RK_ASSERT_EQ_INT(-ENOENT, rk_blob_open(c, id, 3, &fd, NULL));
	/* and a later put brings it back, even into the same handle */
	RK_ASSERT_EQ_INT(0, rk_blob_put(c, "abc", 3, id, NULL));
	RK_ASSERT_EQ_INT(0, rk_blob_open(c, id, 3, &fd, NULL));
	close(fd);
	rk_cache_close(c);
}

RK_TEST(open_refreshes_use_stamp)
{
	struct rk_cache *c = open_cache("cache", 0);
	char a[RK_SHA256_HEX], b[RK_SHA256_HEX];
	struct rk_cache_stats st;
	time_t now = time(NULL);
	int fd = -1;

	put_aged(c, "aaaa", now - 5000, a);
	put_aged(c, "bbbb", now - 4000, b);
	RK_ASSERT_EQ_INT(0, rk_blob_open(c, a, 4, &fd, NULL)); /* a is now the most recent */
	close(fd);
	RK_ASSERT_EQ_INT(0, rk_cache_gc(c, 4, &st, NULL));
	RK_ASSERT(exists(blob_file("cache", a)));
	RK_ASSERT(!exists(blob_file("cache", b)));
	rk_cache_close(c);
}

RK_TEST(size_limit_evicts_on_add)
{
	struct rk_cache *c = open_cache("cache", 100);
	char id[RK_SHA256_HEX], first[RK_SHA256_HEX], buf[41];
	struct rk_cache_stats st;
	time_t now = time(NULL);

	put_aged(c, "first blob, the oldest one of them all!!", now - 9000, first); /* 40 */
	for (int i = 0; i < 4; i++) {
		snprintf(buf, sizeof(buf), "blob %d %034d", i, i); /* 40 bytes each */
		put_aged(c, buf, now - 1000 + i, id);
	}
	RK_ASSERT_EQ_INT(0, rk_cache_stats(c, &st, NULL));
	RK_ASSERT(st.blob_bytes <= 100);
	RK_ASSERT(!exists(blob_file("cache", first)));
	RK_ASSERT(exists(blob_file("cache", id))); /* the newest survives */
	rk_cache_close(c);
	/* a fresh handle with a limit starts from what is on disk */
	c = open_cache("cache", 50);
	RK_ASSERT_EQ_INT(0, rk_blob_put(c, "x", 1, id, NULL));
	RK_ASSERT_EQ_INT(0, rk_cache_stats(c, &st, NULL));
	RK_ASSERT(st.blob_bytes <= 50);
	rk_cache_close(c);
}

RK_TEST(verify_counts_and_deletes_bad_blobs)
{
	struct rk_cache *c = open_cache("cache", 0);
	char good[RK_SHA256_HEX], bad1[RK_SHA256_HEX], bad2[RK_SHA256_HEX];
	struct rk_cache_stats st;

	RK_ASSERT_EQ_INT(0, rk_blob_put(c, "good", 4, good, NULL));
	RK_ASSERT_EQ_INT(0, rk_blob_put(c, "bad one", 7, bad1, NULL));
	RK_ASSERT_EQ_INT(0, rk_blob_put(c, "bad two", 7, bad2, NULL));
	corrupt(blob_file("cache", bad1), "BAD ONE");
	corrupt(blob_file("cache", bad2), "shorter");
	chmod(blob_file("cache", bad2), 0644);
	RK_ASSERT_EQ_INT(0, truncate(blob_file("cache", bad2), 3));
	RK_ASSERT_EQ_INT(0, rk_cache_verify(c, &st, NULL));
	RK_ASSERT_EQ_INT(3, st.blobs);
	RK_ASSERT_EQ_INT(2, st.bad);
	RK_ASSERT(exists(blob_file("cache", good)));
	RK_ASSERT(!exists(blob_file("cache", bad1)));
	RK_ASSERT(!exists(blob_file("cache", bad2)));
	/* a second pass finds nothing */
	RK_ASSERT_EQ_INT(0, rk_cache_verify(c, &st, NULL));
	RK_ASSERT_EQ_INT(1, st.blobs);
	RK_ASSERT_EQ_INT(0, st.bad);
	rk_cache_close(c);
}

RK_TEST(verify_and_stats_ignore_strays)
{
	struct rk_cache *c = open_cache("cache", 0);
	struct rk_cache_stats st;

	fx_writes("cache/blobs/ab/README", "not a blob");
	fx_writes("cache/blobs/ab/.hidden", "not a blob");
	fx_writes("cache/index/one.rkix", "12345");
	fx_writes("cache/index/two.rkix", "1");
	RK_ASSERT_EQ_INT(0, rk_cache_stats(c, &st, NULL));
	RK_ASSERT_EQ_INT(0, st.blobs);
	RK_ASSERT_EQ_INT(2, st.indexes);
	RK_ASSERT_EQ_INT(6, st.index_bytes);
	RK_ASSERT_EQ_INT(0, rk_cache_verify(c, &st, NULL));
	RK_ASSERT_EQ_INT(0, st.bad_blobs);
	RK_ASSERT(exists("cache/blobs/ab/README"));
	/* the two "indexes" are not records (no trailer): bad, deleted */
	RK_ASSERT_EQ_INT(2, st.records[0]);
	RK_ASSERT_EQ_INT(2, st.bad_records[0]);
	RK_ASSERT_EQ_INT(2, st.bad);
	RK_ASSERT(!exists("cache/index/one.rkix"));
	rk_cache_close(c);
}

/* A record is its payload, then "RKR2", the payload's CRC32 and length (little-endian),
 * and the first 16 hex digits of the SHA-256 of its key, a NUL and those 16 bytes. */
RK_TEST(record_framing_on_disk)
{
	struct rk_cache *c = open_cache("cache", 0);
	char hex[RK_SHA256_HEX], bound[64];
	size_t n = 0;
	char *raw;

	RK_ASSERT_EQ_INT(0, rk_cache_put_file(c, "kpack/r", "hello", 5, NULL));
	raw = fx_read("cache/kpack/r", &n);
	RK_ASSERT_EQ_INT(5 + 32, n);
	RK_ASSERT_EQ_MEM("hello", raw, 5);
	RK_ASSERT_EQ_MEM("RKR2", raw + 5, 4);
	RK_ASSERT_EQ_MEM("\x86\xa6\x10\x36", raw + 9, 4); /* crc32("hello") = 0x3610a686 */
	RK_ASSERT_EQ_MEM("\x05\0\0\0\0\0\0\0", raw + 13, 8);
	memcpy(bound, "kpack/r", 8); /* with its NUL */
	memcpy(bound + 8, raw + 5, 16);
	RK_ASSERT_EQ_INT(0, rk_sha256_buf(bound, 8 + 16, hex));
	RK_ASSERT_EQ_MEM(hex, raw + 21, 16);
	free(raw);
	rk_cache_close(c);
}

/* Records swapped or copied to another key read as absent (get and open_file, in the
 * handle that wrote them too), and verify counts them bad; the right one is kept. */
RK_TEST(record_moved_to_another_key_reads_as_absent)
{
	struct rk_cache *c = open_cache("cache", 0), *fresh;
	struct rk_cache_stats st;
	char *data = NULL;
	size_t len = 0;
	int fd = -1;

	RK_ASSERT_EQ_INT(0, rk_cache_put_file(c, "index/a.rkix", "aaaa", 4, NULL));
	RK_ASSERT_EQ_INT(0, rk_cache_put_file(c, "index/b.rkix", "bbbb", 4, NULL));
	RK_ASSERT_EQ_INT(0, rename("cache/index/a.rkix", "swap"));
	RK_ASSERT_EQ_INT(0, rename("cache/index/b.rkix", "cache/index/a.rkix"));
	RK_ASSERT_EQ_INT(0, rename("swap", "cache/index/b.rkix"));
	RK_ASSERT_EQ_INT(-ENOENT, rk_cache_get_file(c, "index/a.rkix", 100, &data, &len, NULL));
	RK_ASSERT(data == NULL);
	RK_ASSERT(!exists("cache/index/a.rkix"));
	RK_ASSERT_EQ_INT(-ENOENT, rk_cache_open_file(c, "index/b.rkix", &fd, NULL, NULL));
	RK_ASSERT(!exists("cache/index/b.rkix"));
	/* pieces read in place: a handle that had checked both */
	RK_ASSERT_EQ_INT(0, rk_cache_put_file(c, "pieces/p", "pppp", 4, NULL));
	RK_ASSERT_EQ_INT(0, rk_cache_put_file(c, "pieces/q", "qqqq", 4, NULL));
	RK_ASSERT_EQ_INT(0, rk_cache_open_file(c, "pieces/q", &fd, NULL, NULL));
	close(fd);
	fx_sh("cp cache/pieces/p cache/pieces/q");
	RK_ASSERT_EQ_INT(-ENOENT, rk_cache_open_file(c, "pieces/q", &fd, NULL, NULL));
	RK_ASSERT(exists("cache/pieces/p"));
	/* verify: every kind */
	RK_ASSERT_EQ_INT(0, rk_cache_area(c, "pyhash"));
	RK_ASSERT_EQ_INT(0, rk_cache_put_file(c, "pyhash/x", "same", 4, NULL));
	fx_sh("cp cache/pyhash/x cache/pyhash/y && cp cache/pieces/p cache/pieces/r");
	fresh = open_cache("cache", 0);
	RK_ASSERT_EQ_INT(0, rk_cache_verify(fresh, &st, NULL));
	RK_ASSERT_EQ_INT(2, st.bad);
	RK_ASSERT_EQ_INT(1, st.bad_records[1]); /* pieces/r */
	RK_ASSERT_EQ_INT(1, st.bad_records[3]); /* pyhash/y */
	RK_ASSERT(exists("cache/pyhash/x") && !exists("cache/pyhash/y"));
	RK_ASSERT(exists("cache/pieces/p") && !exists("cache/pieces/r"));
	rk_cache_close(fresh);
	rk_cache_close(c);
}

/* A record rewritten under a handle that checked it (same size, same key, a valid
 * trailer: only its bytes changed) is checked again on its next open. */
RK_TEST(record_changed_after_check_is_checked_again)
{
	struct rk_cache *c = open_cache("cache", 0);
	size_t n = 0;
	char *raw;
	int fd = -1;

	RK_ASSERT_EQ_INT(0, rk_cache_put_file(c, "pieces/p", "pppp", 4, NULL));
	RK_ASSERT_EQ_INT(0, rk_cache_open_file(c, "pieces/p", &fd, NULL, NULL));
	close(fd);
	raw = fx_read("cache/pieces/p", &n);
	raw[0] ^= 1;
	fx_write("cache/pieces/p", raw, n);
	free(raw);
	RK_ASSERT_EQ_INT(-ENOENT, rk_cache_open_file(c, "pieces/p", &fd, NULL, NULL));
	RK_ASSERT(!exists("cache/pieces/p"));
	rk_cache_close(c);
}

/* A record of the format before the key binding ("RKR1", 16 bytes) is an old one:
 * absent, made again. */
RK_TEST(record_of_the_format_before_is_absent)
{
	struct rk_cache *c = open_cache("cache", 0);
	char *data = NULL;
	size_t len = 0;

	/* "hello", "RKR1", crc32, length: valid records of the format before, shorter and
	 * longer than the trailer of today */
	fx_write("cache/index/v1.rkix", "helloRKR1\x86\xa6\x10\x36\x05\0\0\0\0\0\0\0", 21);
	RK_ASSERT_EQ_INT(-ENOENT, rk_cache_get_file(c, "index/v1.rkix", 4096, &data, &len, NULL));
	RK_ASSERT(!exists("cache/index/v1.rkix"));
	fx_write("cache/index/v1.rkix",
		 "0123456789abcdef0123456789abcdefhelloRKR1A\\\x9f\xa0\x25\0\0\0\0\0\0\0", 53);
	RK_ASSERT_EQ_INT(-ENOENT, rk_cache_get_file(c, "index/v1.rkix", 4096, &data, &len, NULL));
	rk_cache_close(c);
}

/* Every single-bit flip anywhere in a record (payload or trailer) makes it absent: it is
 * deleted, never returned; get and open_file alike. */
RK_TEST(record_any_bit_flip_reads_as_absent)
{
	struct rk_cache *c = open_cache("cache", 0);
	static const char payload[] = "lib/cmake/hiprand\tblob\n";
	size_t plen = sizeof(payload) - 1, flen = plen + 32;

	RK_ASSERT_EQ_INT(0, rk_cache_area(c, "pyhash"));
	for (size_t bit = 0; bit < flen * 8; bit++) {
		struct rk_cache *fresh;
		char *data = NULL, *raw;
		size_t len = 0, n = 0;
		int fd = -1;

		RK_ASSERT_EQ_INT(0, rk_cache_put_file(c, "pyhash/r", payload, plen, NULL));
		raw = fx_read("cache/pyhash/r", &n);
		RK_ASSERT_EQ_INT(flen, n);
		raw[bit / 8] ^= (char)(1u << (bit % 8));
		fx_write("cache/pyhash/r", raw, n);
		free(raw);
		/* get: checked every time */
		RK_ASSERT_EQ_INT(-ENOENT,
				 rk_cache_get_file(c, "pyhash/r", 4096, &data, &len, NULL));
		RK_ASSERT(data == NULL);
		RK_ASSERT(!exists("cache/pyhash/r"));
		/* open_file in a process (handle) that has not checked it yet */
		RK_ASSERT_EQ_INT(0, rk_cache_put_file(c, "pyhash/r", payload, plen, NULL));
		raw = fx_read("cache/pyhash/r", &n);
		raw[bit / 8] ^= (char)(1u << (bit % 8));
		fx_write("cache/pyhash/r", raw, n);
		free(raw);
		fresh = open_cache("cache", 0);
		RK_ASSERT_EQ_INT(-ENOENT, rk_cache_open_file(fresh, "pyhash/r", &fd, NULL, NULL));
		RK_ASSERT(!exists("cache/pyhash/r"));
		rk_cache_close(fresh);
	}
	rk_cache_close(c);
}

RK_TEST(record_open_file_gives_payload_extent)
{
	struct rk_cache *c = open_cache("cache", 0), *other;
	uint64_t len = 0;
	uint32_t crc = 0;
	int fd = -1;

	RK_ASSERT_EQ_INT(0, rk_cache_put_file(c, "pieces/p", "hello", 5, NULL));
	other = open_cache("cache", 0);
	RK_ASSERT_EQ_INT(0, rk_cache_open_file(other, "pieces/p", &fd, &len, &crc));
	RK_ASSERT_EQ_INT(5, len);
	RK_ASSERT_EQ_INT(0x3610a686, crc);
	{
		char got[8] = "";

		RK_ASSERT_EQ_INT(5, pread(fd, got, 5, 0));
		RK_ASSERT_EQ_MEM("hello", got, 5);
	}
	close(fd);
	rk_cache_close(other);
	rk_cache_close(c);
}

/* A record written by an older rockfs (no trailer) is absent: deleted, made again. */
RK_TEST(record_without_trailer_is_absent)
{
	struct rk_cache *c = open_cache("cache", 0);
	char *data = NULL;
	size_t len = 0;
	int fd = -1;

	fx_writes("cache/index/old.rkix", "RKIX an index from before");
	RK_ASSERT_EQ_INT(-ENOENT, rk_cache_get_file(c, "index/old.rkix", 4096, &data, &len, NULL));
	RK_ASSERT(!exists("cache/index/old.rkix"));
	fx_writes("cache/pieces/old", "x");
	RK_ASSERT_EQ_INT(-ENOENT, rk_cache_open_file(c, "pieces/old", &fd, NULL, NULL));
	RK_ASSERT(!exists("cache/pieces/old"));
	rk_cache_close(c);
}

RK_TEST(verify_checks_every_kind_of_record)
{
	struct rk_cache *c = open_cache("cache", 0);
	struct rk_cache_stats st;
	size_t n = 0;
	char *raw;

	RK_ASSERT_EQ_INT(0, rk_cache_area(c, "pyhash"));
	RK_ASSERT_EQ_INT(0, rk_cache_area(c, "pkghash"));
	RK_ASSERT_EQ_INT(0, rk_cache_area(c, "remote"));
	for (size_t k = 0; k < RK_CACHE_KINDS; k++) {
		RK_ASSERT_EQ_INT(0, rk_cache_put_file(c, fx_path("%s/good", rk_cache_kinds[k]),
						      "good", 4, NULL));
		RK_ASSERT_EQ_INT(0, rk_cache_put_file(c, fx_path("%s/bad", rk_cache_kinds[k]),
						      "bad!", 4, NULL));
		raw = fx_read(fx_path("cache/%s/bad", rk_cache_kinds[k]), &n);
		raw[k] ^= 4;
		fx_write(fx_path("cache/%s/bad", rk_cache_kinds[k]), raw, n);
		free(raw);
	}
	RK_ASSERT_EQ_INT(0, rk_cache_verify(c, &st, NULL));
	RK_ASSERT_EQ_INT(RK_CACHE_KINDS, st.bad);
	RK_ASSERT_EQ_INT(0, st.bad_blobs);
	for (size_t k = 0; k < RK_CACHE_KINDS; k++) {
		RK_ASSERT_EQ_INT(2, st.records[k]);
		RK_ASSERT_EQ_INT(1, st.bad_records[k]);
		RK_ASSERT(exists(fx_path("cache/%s/good", rk_cache_kinds[k])));
		RK_ASSERT(!exists(fx_path("cache/%s/bad", rk_cache_kinds[k])));
	}
	RK_ASSERT_EQ_INT(0, rk_cache_verify(c, &st, NULL));
	RK_ASSERT_EQ_INT(0, st.bad);
	rk_cache_close(c);
}

RK_TEST(lock_excludes_other_holders)
{
	struct rk_cache *c = open_cache("cache", 0);
	int fd = -1, probe;

	RK_ASSERT_EQ_INT(0, rk_cache_lock(c, "i-key", &fd, NULL));
	RK_ASSERT(fd >= 0);
	probe = open("cache/locks/i-key", O_RDWR);
	RK_ASSERT(probe >= 0);
	RK_ASSERT_EQ_INT(-1, flock(probe, LOCK_EX | LOCK_NB));
	RK_ASSERT_EQ_INT(EWOULDBLOCK, errno);
	rk_cache_unlock(fd);
	RK_ASSERT_EQ_INT(0, flock(probe, LOCK_EX | LOCK_NB));
	close(probe);
	rk_cache_unlock(-1);
	rk_cache_close(c);
}

RK_TEST(default_dir)
{
	char out[256];

	setenv("XDG_CACHE_HOME", "/xdg/cache", 1);
	RK_ASSERT_EQ_INT(0, rk_cache_default_dir(out, sizeof(out)));
	RK_ASSERT_EQ_STR("/xdg/cache/rockfs", out);
	RK_ASSERT_EQ_INT(-ENAMETOOLONG, rk_cache_default_dir(out, 10));
	setenv("XDG_CACHE_HOME", "relative", 1); /* not absolute: ignored (XDG spec) */
	setenv("HOME", "/home/u", 1);
	RK_ASSERT_EQ_INT(0, rk_cache_default_dir(out, sizeof(out)));
	RK_ASSERT_EQ_STR("/home/u/.cache/rockfs", out);
	unsetenv("XDG_CACHE_HOME");
	unsetenv("HOME");
	RK_ASSERT_EQ_INT(0, rk_cache_default_dir(out, sizeof(out)));
	RK_ASSERT_EQ_INT(0, strncmp(out, "/var/tmp/rockfs-", 16));
}
