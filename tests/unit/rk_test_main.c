/* rk_test_main.c: runs one RK_TEST by name in a fresh temporary directory.
 *
 *   test_<module> <name>   run one test: exit 0 pass, 1 fail, 77 skip
 *   test_<module> --list   print the test names
 *   test_<module>          run every test
 * Each test runs in a child process, so its directory is removed even when it crashes
 * (the parent then dies of the same signal, for ctest to report). RK_TEST_KEEP=1 keeps
 * the directory of a failed test; RK_TEST_NOFORK=1 runs in-process (for a debugger). */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rk_test.h"

static struct rk_test *tests, **tail = &tests;
static char tmpdir[PATH_MAX], origdir[PATH_MAX];

void rk_test_register(struct rk_test *t)
{
	*tail = t; /* constructors run in file order: keep it */
	tail = &t->next;
}

const char *rk_test_dir(void)
{
	return tmpdir;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static int chmod_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)ftw;
	if (flag == FTW_D)
		chmod(path, (st->st_mode & 07777) | 0700);
	return 0;
}

static void cleanup(int failed)
{
	if (!tmpdir[0])
		return;
	if (chdir(origdir))
		perror("chdir");
	if (failed && getenv("RK_TEST_KEEP")) {
		fprintf(stderr, "kept %s\n", tmpdir);
		return;
	}
	nftw(tmpdir, chmod_one, 16, FTW_PHYS);
	if (nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS))
		fprintf(stderr, "warning: cannot remove %s: %s\n", tmpdir, strerror(errno));
	tmpdir[0] = '\0';
}

/* In the child, the parent removes the directory: only leave it. */
static int in_child;

static void finish(int failed)
{
	if (in_child)
		tmpdir[0] = '\0';
	else
		cleanup(failed);
}

void rk_test_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	finish(1);
	exit(1);
}

void rk_test_skip(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "skipped: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	finish(0);
	exit(77);
}

void rk_test_fail_int(const char *file, int line, const char *e, const char *a, long long ev,
		      long long av)
{
	rk_test_fail(file, line, "%s == %s\n  expected: %lld (0x%llx)\n  actual:   %lld (0x%llx)",
		     e, a, ev, (unsigned long long)ev, av, (unsigned long long)av);
}

void rk_test_check_str(const char *file, int line, const char *e, const char *a, const char *ev,
		       const char *av)
{
	if (ev == av || (ev && av && !strcmp(ev, av)))
		return;
	rk_test_fail(file, line, "%s == %s\n  expected: %s%s%s\n  actual:   %s%s%s", e, a,
		     ev ? "\"" : "", ev ? ev : "NULL", ev ? "\"" : "", av ? "\"" : "",
		     av ? av : "NULL", av ? "\"" : "");
}

void rk_test_check_mem(const char *file, int line, const char *e, const char *a, const void *ev,
		       const void *av, size_t n)
{
	const unsigned char *x = ev, *y = av;
	size_t i;

	for (i = 0; i < n && x[i] == y[i]; i++)
		;
	if (i == n)
		return;
	rk_test_fail(file, line,
		     "%s == %s (%zu bytes)\n  first difference at offset %zu: "
		     "expected 0x%02x, actual 0x%02x",
		     e, a, n, i, x[i], y[i]);
}

/* Run t in a fresh directory; returns its exit status, or -signal when it crashed. */
static int run_one(struct rk_test *t)
{
	const char *base = getenv("TMPDIR");
	int st = 0;
	pid_t pid;

	snprintf(tmpdir, sizeof(tmpdir), "%s/rk-test.%s.XXXXXX", base && *base ? base : "/tmp",
		 t->name);
	if (!getcwd(origdir, sizeof(origdir)) || !mkdtemp(tmpdir)) {
		perror(tmpdir);
		return 1;
	}
	if (getenv("RK_TEST_NOFORK")) {
		if (chdir(tmpdir))
			return 1;
		t->fn();
		cleanup(0);
		return 0;
	}
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		in_child = 1;
		if (chdir(tmpdir))
			_exit(1);
		t->fn();
		exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0) {
		perror("fork");
		cleanup(1);
		return 1;
	}
	st = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? -WTERMSIG(st) : 1;
	cleanup(st != 0 && st != 77);
	return st;
}

int main(int argc, char **argv)
{
	int failed = 0, st;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc > 1 && !strcmp(argv[1], "--list")) {
		for (struct rk_test *t = tests; t; t = t->next)
			printf("%s\n", t->name);
		return 0;
	}
	if (argc > 1) {
		for (struct rk_test *t = tests; t; t = t->next) {
			if (strcmp(t->name, argv[1]))
				continue;
			st = run_one(t);
			if (st < 0) { /* die the way the test did */
				signal(-st, SIG_DFL);
				raise(-st);
			}
			return st < 0 ? 1 : st;
		}
		fprintf(stderr, "%s: no test named '%s' (see --list)\n", argv[0], argv[1]);
		return 1;
	}
	for (struct rk_test *t = tests; t; t = t->next) {
		st = run_one(t);
		printf("%-4s %s\n", st == 0 ? "ok" : st == 77 ? "skip" : "FAIL", t->name);
		failed += st != 0 && st != 77;
	}
	return failed ? 1 : 0;
}
