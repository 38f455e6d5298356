/* test_staging.c: output written whole or not at all (rk/staging.h). The tests run in a
 * fresh temporary directory. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk/staging.h"
#include "rk_test.h"

static void put(int dirfd, const char *name, const char *text)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL, 0644);

	RK_ASSERT(fd >= 0);
	RK_ASSERT_EQ_INT((long long)strlen(text), write(fd, text, strlen(text)));
	close(fd);
}

/* Entries of "." other than dot files and out/: what a staging left behind. */
static int leftovers(void)
{
	DIR *d = opendir(".");
	struct dirent *de;
	int n = 0;

	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    strcmp(de->d_name, "out"))
			n++;
	closedir(d);
	return n;
}

RK_TEST(commit_into_a_missing_directory_and_nothing_before)
{
	struct rk_staging st;
	struct stat sb;

	RK_ASSERT_EQ_INT(0, rk_staging_open("out", &st, NULL));
	put(st.fd, "a", "A");
	RK_ASSERT(stat("out", &sb) && errno == ENOENT); /* nothing with the final name yet */
	RK_ASSERT_EQ_INT(0, rk_staging_commit(&st, NULL));
	RK_ASSERT_EQ_INT(0, stat("out/a", &sb));
	RK_ASSERT_EQ_INT(0, leftovers());
}

RK_TEST(commit_into_an_empty_and_a_full_directory)
{
	struct rk_staging st;
	struct stat sb;

	RK_ASSERT_EQ_INT(0, mkdir("out", 0755));
	RK_ASSERT_EQ_INT(0, rk_staging_open("out/", &st, NULL));
	put(st.fd, "a", "A");
	RK_ASSERT_EQ_INT(0, rk_staging_commit(&st, NULL));
	RK_ASSERT_EQ_INT(0, rk_staging_open("out", &st, NULL));
	put(st.fd, "b", "B");
	RK_ASSERT_EQ_INT(0, rk_staging_commit(&st, NULL));
	RK_ASSERT_EQ_INT(0, stat("out/a", &sb));
	RK_ASSERT_EQ_INT(0, stat("out/b", &sb));
	/* an entry already there is never replaced */
	RK_ASSERT_EQ_INT(0, rk_staging_open("out", &st, NULL));
	put(st.fd, "a", "other");
	RK_ASSERT_EQ_INT(-EEXIST, rk_staging_commit(&st, NULL));
	RK_ASSERT_EQ_INT(0, stat("out/a", &sb));
	RK_ASSERT_EQ_INT(1, sb.st_size);
	RK_ASSERT_EQ_INT(0, leftovers());
}

RK_TEST(abort_and_stale_siblings_leave_nothing)
{
	struct rk_staging st;
	struct stat sb;

	RK_ASSERT_EQ_INT(0, rk_staging_open("out", &st, NULL));
	put(st.fd, "a", "A");
	rk_staging_abort(&st);
	rk_staging_abort(&st);
	RK_ASSERT(stat("out", &sb) && errno == ENOENT);
	RK_ASSERT_EQ_INT(0, leftovers());
	/* a killed run's sibling (a pid that cannot be running) goes with the next run */
	RK_ASSERT_EQ_INT(0, mkdir(".out.rockpack-2147483646", 0755));
	RK_ASSERT_EQ_INT(0, mkdir(".out.rockpack-2147483646/d", 0755));
	RK_ASSERT_EQ_INT(0, rk_staging_open("out", &st, NULL));
	RK_ASSERT(stat(".out.rockpack-2147483646", &sb) && errno == ENOENT);
	rk_staging_abort(&st);
	/* a file where the directory should be */
	put(AT_FDCWD, "file", "x");
	RK_ASSERT_EQ_INT(-ENOTDIR, rk_staging_open("file", &st, NULL));
}
