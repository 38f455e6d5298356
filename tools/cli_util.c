/* cli_util.c: the helpers every rockpack command shares (cli_util.h). Uses the core
 * library and libc only; main.c and the commands call it, it calls neither. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_util.h"

int rp_line_shown;

void rp_clear_line(void)
{
	if (rp_line_shown) {
		fputs("\r\033[K", stderr);
		rp_line_shown = 0;
	}
}

int rp_fail(const char *fmt, ...)
{
	va_list ap;

	rp_clear_line();
	fputs("rockpack: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

int rp_usage(const struct rp_opts *o, const char *fmt, ...)
{
	va_list ap;

	rp_clear_line();
	fputs("rockpack: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see 'rockpack %s%s--help')\n", o->command ? o->command : "",
		o->command ? " " : "");
	return 2;
}

const char *rp_value(const struct rp_opts *o, int argc, char **argv, int *i)
{
	if (*i + 1 >= argc) {
		rp_usage(o, "%s: option '%s' needs a value", o->command, argv[*i]);
		return NULL;
	}
	return argv[++*i];
}

int rp_write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int rp_map(const char *path, struct rp_map *m)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st))
		rc = -errno;
	else if (!S_ISREG(st.st_mode) || st.st_size == 0)
		rc = -EINVAL;
	else if ((m->p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) ==
		 MAP_FAILED)
		rc = -errno;
	close(fd);
	if (rc)
		return rc;
	m->n = (size_t)st.st_size;
	madvise(m->p, m->n, MADV_RANDOM);
	return 0;
}

void rp_unmap(struct rp_map *m)
{
	munmap(m->p, m->n);
}

int rp_open(const struct rp_opts *o, const char *store, struct rk_vfs **out)
{
	struct rk_vfs_opts vo = {
		.store = store,
		.cache_dir = o->cache_dir,
		.cache_group = o->cache_group,
		.cache_limit = o->cache_limit,
		.ingest_jobs = o->jobs,
		.kpack_zstd = o->kpack_zstd,
		.kpack_topology = o->kpack_topology,
		.package_defs = o->package_defs,
		.sign_key = o->sign_key,
		.packages_multiarch = o->packages_multiarch,
		.wheel_deflate = o->wheel_deflate,
		.remote = o->remote,
	};
	struct rk_err err = RK_ERR_INIT;
	int rc = rk_vfs_open(&vo, out, &err);

	return rc ? rp_fail("%s", rk_err_str(&err, rc)) : 0;
}

/* The length of path's parent ("" -> 0), trailing slashes ignored. */
static size_t parent_len(const char *path, size_t len)
{
	while (len > 1 && path[len - 1] == '/')
		len--;
	while (len > 0 && path[len - 1] != '/')
		len--;
	while (len > 1 && path[len - 1] == '/')
		len--;
	return len;
}

int rp_mkdir_parents(const char *path)
{
	char *p = strdup(path);
	size_t len[64];
	int n = 0, made = 0;
	struct stat sb;

	if (!p)
		return -ENOMEM;
	/* walk up to the first ancestor that exists */
	for (size_t l = parent_len(p, strlen(p)); l > 0 && n < 64; l = parent_len(p, l)) {
		p[l] = '\0';
		if (!stat(p, &sb))
			break;
		if (errno != ENOENT) {
			made = -errno;
			break;
		}
		len[n++] = l;
		strcpy(p, path);
	}
	/* and create the missing ones, outermost first */
	for (int i = n - 1; made >= 0 && i >= 0; i--) {
		strcpy(p, path);
		p[len[i]] = '\0';
		if (mkdir(p, 0755) && errno != EEXIST)
			made = -errno;
		else if (made >= 0)
			made++;
	}
	if (made < 0)
		rp_rmdir_parents(path, n);
	free(p);
	return made;
}

void rp_rmdir_parents(const char *path, int n)
{
	char *p = strdup(path);
	size_t l = p ? strlen(p) : 0;

	for (int i = 0; p && i < n && (l = parent_len(p, l)) > 0; i++) {
		p[l] = '\0';
		if (rmdir(p) && errno != ENOENT)
			break;
	}
	free(p);
}
