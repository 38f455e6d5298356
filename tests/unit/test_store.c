/* test_store.c: the local directory store. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk/store.h"
#include "rk_fixture.h"
#include "rk_test.h"

static struct rk_store *open_store(const char *loc)
{
	struct rk_store *s = NULL;
	struct rk_err err = RK_ERR_INIT;
	int rc = rk_store_open(loc, &s, &err);

	if (rc)
		rk_test_fail(__FILE__, __LINE__, "rk_store_open('%s'): %s", loc,
			     rk_err_str(&err, rc));
	return s;
}

RK_TEST(id_is_the_real_path)
{
	struct rk_store *s;
	char want[PATH_MAX + 8], here[PATH_MAX];

	fx_mkdirs("store/sub");
	RK_ASSERT(symlink("store", "alias") == 0);
	s = open_store("alias/sub/..");
	RK_ASSERT(realpath(".", here) != NULL); /* the test directory may sit behind a symlink */
	snprintf(want, sizeof(want), "dir:%s/store", here);
	RK_ASSERT_EQ_STR(want, rk_store_id(s));
	rk_store_close(s);
	rk_store_close(NULL);
}

RK_TEST(open_errors)
{
	struct rk_store *s = NULL;
	struct rk_err err = RK_ERR_INIT;

	RK_ASSERT_EQ_INT(-ENOENT, rk_store_open("missing", &s, &err));
	RK_ASSERT(err.msg[0]);
	fx_writes("file", "x");
	RK_ASSERT_EQ_INT(-ENOTDIR, rk_store_open("file", &s, NULL));
	/* remote locations are checked for form here (test_remote.c), without any request */
	RK_ASSERT_EQ_INT(-EINVAL, rk_store_open("s3://", &s, NULL));
	RK_ASSERT_EQ_INT(-EINVAL, rk_store_open("https://h/x?q", &s, NULL));
	RK_ASSERT(s == NULL);
	RK_ASSERT_EQ_INT(0, rk_store_open("s3://bucket/x", &s, NULL));
	RK_ASSERT_EQ_STR("s3://bucket/x", rk_store_id(s));
	rk_store_close(s);
}

RK_TEST(list_sorted_with_sizes)
{
	struct rk_store *s;
	struct rk_store_list l = {0};
	struct timespec ts[2] = {{1767225600, 5}, {1767225600, 123456789}};

	fx_writes("store/zeta", "zz");
	fx_writes("store/Alpha", "a");
	fx_writes("store/beta_lib_generic.tar.zst", "12345");
	fx_writes("store/.hidden", "");
	fx_mkdirs("store/logs");
	RK_ASSERT_EQ_INT(0, utimensat(AT_FDCWD, "store/zeta", ts, 0));
	s = open_store("store");
	RK_ASSERT_EQ_INT(0, rk_store_list(s, "", &l, NULL));
	RK_ASSERT_EQ_INT(5, l.n);
	RK_ASSERT_EQ_STR(".hidden", l.v[0].name);
	RK_ASSERT_EQ_STR("Alpha", l.v[1].name);
	RK_ASSERT_EQ_STR("beta_lib_generic.tar.zst", l.v[2].name);
	RK_ASSERT_EQ_STR("logs", l.v[3].name);
	RK_ASSERT_EQ_STR("zeta", l.v[4].name);
	RK_ASSERT_EQ_INT(5, l.v[2].size);
	RK_ASSERT_EQ_INT(0, l.v[2].is_dir);
	RK_ASSERT_EQ_INT(1, l.v[3].is_dir);
	RK_ASSERT_EQ_INT(0, l.v[3].size);
	RK_ASSERT_EQ_INT(1767225600, l.v[4].mtime);
	RK_ASSERT_EQ_INT(1767225600ll * 1000000000 + 123456789, l.v[4].mtime_ns);
	rk_store_list_release(&l);
	RK_ASSERT(l.v == NULL && l.n == 0);
	rk_store_close(s);
}

RK_TEST(list_skips_dot_entries_and_specials)
{
	struct rk_store *s;
	struct rk_store_list l = {0};

	fx_writes("store/a", "");
	RK_ASSERT(mkfifo("store/fifo", 0644) == 0);
	RK_ASSERT(symlink("missing", "store/dangling") == 0);
	RK_ASSERT(symlink("a", "store/good-link") == 0);
	s = open_store("store");
	RK_ASSERT_EQ_INT(0, rk_store_list(s, "", &l, NULL));
	RK_ASSERT_EQ_INT(1, l.n); /* no ".", "..", fifo or link (dangling or not) */
	RK_ASSERT_EQ_STR("a", l.v[0].name);
	rk_store_list_release(&l);
	rk_store_close(s);
}

/* Symlinks, FIFOs and devices put in place after a listing: no open follows or serves
 * them (and a FIFO does not block the open waiting for a writer). */
RK_TEST(open_follows_no_symlink)
{
	struct rk_store *s;
	struct rk_store_list l = {0};
	struct rk_object *o = NULL;
	struct rk_err err = RK_ERR_INIT;

	fx_writes("store/run/a", "a");
	fx_writes("outside/run/a", "secret");
	RK_ASSERT(symlink("../outside/run/a", "store/run/link") == 0);
	RK_ASSERT(symlink("a", "store/run/inside") == 0);
	RK_ASSERT(symlink("../outside/run", "store/linked-run") == 0);
	RK_ASSERT(mkfifo("store/run/fifo", 0644) == 0);
	s = open_store("store");
	RK_ASSERT_EQ_INT(0, rk_store_object_open(s, "run/a", &o, NULL));
	rk_object_close(o);
	o = NULL;
	RK_ASSERT_EQ_INT(-ELOOP, rk_store_object_open(s, "run/link", &o, &err));
	RK_ASSERT(strstr(err.msg, "'run/link' is a symlink") != NULL);
	RK_ASSERT_EQ_INT(-ELOOP, rk_store_object_open(s, "run/inside", &o, NULL));
	RK_ASSERT_EQ_INT(-ELOOP, rk_store_object_open(s, "linked-run/a", &o, &err));
	RK_ASSERT(strstr(err.msg, "'linked-run' is a symlink") != NULL);
	RK_ASSERT_EQ_INT(-ELOOP, rk_store_list(s, "linked-run", &l, NULL));
	RK_ASSERT_EQ_INT(-EPERM, rk_store_object_open(s, "run/fifo", &o, &err));
	RK_ASSERT(strstr(err.msg, "'run/fifo' is a FIFO") != NULL);
	RK_ASSERT(o == NULL);
	RK_ASSERT_EQ_INT(0, rk_store_list(s, "run", &l, NULL));
	RK_ASSERT_EQ_INT(1, l.n);
	rk_store_list_release(&l);
	rk_store_close(s);
}

RK_TEST(list_subdirs_and_empty)
{
	struct rk_store *s;
	struct rk_store_list l = {0};
	struct rk_err err = RK_ERR_INIT;

	fx_writes("store/run-1/x/y.txt", "y");
	fx_mkdirs("store/empty");
	s = open_store("store");
	RK_ASSERT_EQ_INT(0, rk_store_list(s, "run-1/x", &l, NULL));
	RK_ASSERT_EQ_INT(1, l.n);
	RK_ASSERT_EQ_STR("y.txt", l.v[0].name);
	rk_store_list_release(&l);
	RK_ASSERT_EQ_INT(0, rk_store_list(s, "empty", &l, NULL));
	RK_ASSERT_EQ_INT(0, l.n);
	rk_store_list_release(&l);
	RK_ASSERT_EQ_INT(-ENOENT, rk_store_list(s, "nope", &l, &err));
	RK_ASSERT(err.msg[0]);
	RK_ASSERT_EQ_INT(-ENOTDIR, rk_store_list(s, "run-1/x/y.txt", &l, NULL));
	rk_store_close(s);
}

RK_TEST(refuses_dotdot_and_absolute)
{
	static const char *const bad[] = {"..", "../store", "a/../..", "/etc",
					  "/",	"a//b",	    "sub/..",  "sub/../../x"};
	struct rk_store *s;
	struct rk_store_list l = {0};
	struct rk_object *o = NULL;
	char *data = NULL;
	size_t len;

	fx_writes("secret", "outside");
	fx_writes("store/sub/f", "inside");
	s = open_store("store");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (rk_store_list(s, bad[i], &l, NULL) != -EINVAL)
			rk_test_fail(__FILE__, __LINE__, "list('%s') not refused", bad[i]);
		if (rk_store_object_open(s, bad[i], &o, NULL) != -EINVAL)
			rk_test_fail(__FILE__, __LINE__, "open('%s') not refused", bad[i]);
	}
	RK_ASSERT_EQ_INT(-EINVAL, rk_store_read_small(s, "../secret", 100, &data, &len, NULL));
	RK_ASSERT(o == NULL && data == NULL);
	rk_store_close(s);
}

RK_TEST(object_read_pread_size)
{
	struct rk_store *s;
	struct rk_object *o = NULL;
	struct rk_err err = RK_ERR_INIT;
	char buf[16];

	fx_writes("store/run/obj.bin", "0123456789");
	s = open_store("store");
	RK_ASSERT_EQ_INT(0, rk_store_object_open(s, "run/obj.bin", &o, &err));
	RK_ASSERT_EQ_INT(10, rk_object_size(o));
	RK_ASSERT(rk_object_mtime_ns(o) > 0);
	RK_ASSERT(rk_object_fd(o) >= 0);
	RK_ASSERT_EQ_INT(4, rk_object_read(o, buf, 4, NULL));
	RK_ASSERT_EQ_MEM("0123", buf, 4);
	/* pread does not move the sequential position */
	RK_ASSERT_EQ_INT(3, rk_object_pread(o, buf, 3, 7, NULL));
	RK_ASSERT_EQ_MEM("789", buf, 3);
	RK_ASSERT_EQ_INT(2, rk_object_pread(o, buf, 16, 8, NULL));
	RK_ASSERT_EQ_INT(0, rk_object_pread(o, buf, 16, 10, NULL));
	RK_ASSERT_EQ_INT(0, rk_object_pread(o, buf, 16, 1000, NULL));
	RK_ASSERT_EQ_INT(6, rk_object_read(o, buf, 16, NULL));
	RK_ASSERT_EQ_MEM("456789", buf, 6);
	RK_ASSERT_EQ_INT(0, rk_object_read(o, buf, 16, NULL)); /* end */
	rk_object_close(o);
	rk_object_close(NULL);
	rk_store_close(s);
}

RK_TEST(object_open_errors)
{
	struct rk_store *s;
	struct rk_object *o = NULL;

	fx_writes("store/f", "x");
	fx_mkdirs("store/d");
	s = open_store("store");
	RK_ASSERT_EQ_INT(-ENOENT, rk_store_object_open(s, "missing", &o, NULL));
	RK_ASSERT_EQ_INT(-EISDIR, rk_store_object_open(s, "d", &o, NULL));
	RK_ASSERT_EQ_INT(-ENOTDIR, rk_store_object_open(s, "f/x", &o, NULL));
	RK_ASSERT(o == NULL);
	rk_store_close(s);
}

RK_TEST(object_is_a_snapshot_of_an_open_file)
{
	struct rk_store *s;
	struct rk_object *o = NULL;
	char buf[8];

	fx_writes("store/f", "before");
	s = open_store("store");
	RK_ASSERT_EQ_INT(0, rk_store_object_open(s, "f", &o, NULL));
	RK_ASSERT_EQ_INT(0, unlink("store/f"));
	RK_ASSERT_EQ_INT(6, rk_object_pread(o, buf, sizeof(buf), 0, NULL));
	RK_ASSERT_EQ_MEM("before", buf, 6);
	rk_object_close(o);
	rk_store_close(s);
}

RK_TEST(read_small_limits)
{
	struct rk_store *s;
	struct rk_err err = RK_ERR_INIT;
	char *data = NULL;
	size_t len = 0;

	fx_writes("store/sum", "abc\n");
	fx_writes("store/empty", "");
	s = open_store("store");
	RK_ASSERT_EQ_INT(0, rk_store_read_small(s, "sum", 4, &data, &len, NULL));
	RK_ASSERT_EQ_INT(4, len);
	RK_ASSERT_EQ_STR("abc\n", data); /* NUL-terminated */
	free(data);
	data = NULL;
	RK_ASSERT_EQ_INT(-EFBIG, rk_store_read_small(s, "sum", 3, &data, &len, &err));
	RK_ASSERT(err.msg[0]);
	RK_ASSERT(data == NULL);
	RK_ASSERT_EQ_INT(0, rk_store_read_small(s, "empty", 0, &data, &len, NULL));
	RK_ASSERT_EQ_INT(0, len);
	RK_ASSERT_EQ_STR("", data);
	free(data);
	data = NULL;
	RK_ASSERT_EQ_INT(-ENOENT, rk_store_read_small(s, "missing", 10, &data, &len, NULL));
	RK_ASSERT(rk_store_read_small(s, "", 10, &data, &len, NULL) < 0); /* the root */
	RK_ASSERT(data == NULL);
	rk_store_close(s);
}

RK_TEST(relative_store_survives_chdir)
{
	struct rk_store *s;
	struct rk_store_list l = {0};

	fx_writes("store/a", "1");
	fx_mkdirs("elsewhere");
	s = open_store("store");
	RK_ASSERT_EQ_INT(0, chdir("elsewhere"));
	RK_ASSERT_EQ_INT(0, rk_store_list(s, "", &l, NULL));
	RK_ASSERT_EQ_INT(1, l.n);
	rk_store_list_release(&l);
	rk_store_close(s);
}
