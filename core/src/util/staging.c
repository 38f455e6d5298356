/* staging.c: output written whole or not at all (rk/staging.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk/buf.h"
#include "rk/staging.h"

#define TAG ".rockpack-"

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

static void rm_tree(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Split dir into its parent ("." for a bare name) and its last component. */
static int split_path(const char *dir, struct rk_buf *parent, struct rk_buf *base)
{
	size_t len = strlen(dir), slash;

	while (len > 1 && dir[len - 1] == '/')
		len--;
	for (slash = len; slash > 0 && dir[slash - 1] != '/'; slash--)
		;
	if (rk_buf_add(base, dir + slash, len - slash))
		return -ENOMEM;
	if (!slash)
		return rk_buf_adds(parent, ".");
	return rk_buf_add(parent, dir, slash > 1 ? slash - 1 : 1);
}

/* The siblings ".BASE.rockpack-PID" of processes that are gone: a killed run's. */
static void remove_stale(const char *parent, const char *base)
{
	struct rk_buf prefix = RK_BUF_INIT, path = RK_BUF_INIT;
	struct dirent *de;
	DIR *d = opendir(parent);

	if (!d || rk_buf_addf(&prefix, ".%s" TAG, base)) {
		if (d)
			closedir(d);
		return;
	}
	while ((de = readdir(d))) {
		char *end;
		long pid;

		if (strncmp(de->d_name, prefix.buf, prefix.len))
			continue;
		errno = 0;
		pid = strtol(de->d_name + prefix.len, &end, 10);
		if (errno || *end || pid <= 0 || pid == getpid())
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue; /* still running (or not ours to judge) */
		path.len = 0;
		if (!rk_buf_addf(&path, "%s/%s", parent, de->d_name))
			rm_tree(path.buf);
	}
	closedir(d);
	rk_buf_release(&prefix);
	rk_buf_release(&path);
}

int rk_staging_open(const char *dir, struct rk_staging *st, struct rk_err *err)
{
	struct rk_buf parent = RK_BUF_INIT, base = RK_BUF_INIT, tmp = RK_BUF_INIT;
	struct stat sb;
	int rc;

	st->dir = st->tmp = NULL;
	st->fd = -1;
	if (!stat(dir, &sb) && !S_ISDIR(sb.st_mode))
		return rk_err_set(err, -ENOTDIR, "%s: %s", dir, strerror(ENOTDIR));
	if ((rc = split_path(dir, &parent, &base)) ||
	    (rc = rk_buf_addf(&tmp, "%s/.%s" TAG "%ld", parent.buf, base.buf, (long)getpid())))
		goto out;
	remove_stale(parent.buf, base.buf);
	rm_tree(tmp.buf); /* our own pid's, from a pid reused */
	if (mkdir(tmp.buf, 0755)) {
		rc = rk_err_set(err, -errno, "%s: %s", dir, strerror(errno));
		goto out;
	}
	st->fd = open(tmp.buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (st->fd < 0) {
		rc = rk_err_set(err, -errno, "%s: %s", tmp.buf, strerror(errno));
		rmdir(tmp.buf);
		goto out;
	}
	if (!(st->dir = strdup(dir))) {
		rc = -ENOMEM;
		rk_staging_abort(st);
		goto out;
	}
	st->tmp = rk_buf_detach(&tmp, NULL);
out:
	rk_buf_release(&parent);
	rk_buf_release(&base);
	rk_buf_release(&tmp);
	return rc;
}

int rk_staging_commit(struct rk_staging *st, struct rk_err *err)
{
	struct dirent *de;
	int rc = 0, dfd;
	DIR *d;

	/* missing or empty: the whole output appears at once */
	if (!rename(st->tmp, st->dir)) {
		free(st->tmp);
		st->tmp = NULL;
		rk_staging_abort(st);
		return 0;
	}
	if (errno != ENOTEMPTY && errno != EEXIST) {
		rc = rk_err_set(err, -errno, "%s: %s", st->dir, strerror(errno));
		rk_staging_abort(st);
		return rc;
	}
	/* a directory with other things in it: each entry, never over one already there */
	dfd = open(st->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || !(d = fdopendir(dup(st->fd)))) {
		rc = rk_err_set(err, -errno, "%s: %s", st->dir, strerror(errno));
		if (dfd >= 0)
			close(dfd);
		rk_staging_abort(st);
		return rc;
	}
	while (!rc && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (renameat2(st->fd, de->d_name, dfd, de->d_name, RENAME_NOREPLACE))
			rc = rk_err_set(err, -errno, "%s: %s", de->d_name, strerror(errno));
	}
	closedir(d);
	close(dfd);
	rk_staging_abort(st);
	return rc;
}

void rk_staging_abort(struct rk_staging *st)
{
	if (!st)
		return;
	if (st->fd >= 0)
		close(st->fd);
	st->fd = -1;
	if (st->tmp)
		rm_tree(st->tmp);
	free(st->tmp);
	free(st->dir);
	st->tmp = st->dir = NULL;
}
