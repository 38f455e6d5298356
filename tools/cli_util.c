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

void rp_view_flag_name(const struct rk_vfs_opt_decl *d, char *buf, size_t n)
{
	if (d->flag) {
		snprintf(buf, n, "%s", d->flag);
		return;
	}
	snprintf(buf, n, "--%s", d->name);
	for (char *p = buf; *p; p++)
		if (*p == '_')
			*p = '-';
}

/* "<command>: <flag>": how rockpack names an option in messages. */
static void view_label(const struct rp_opts *o, const struct rk_vfs_opt_decl *d, char *buf,
		       size_t n)
{
	char flag[64];

	rp_view_flag_name(d, flag, sizeof(flag));
	snprintf(buf, n, "%s: %s", o->command ? o->command : "rockpack", flag);
}

int rp_view_flag(struct rp_opts *o, int argc, char **argv, int *i)
{
	const struct rk_vfs_opt_decl *d;
	struct rp_view_opt *p;
	struct rk_err err = RK_ERR_INIT;
	char flag[64], label[96], other[64];
	int rc;

	for (size_t k = 0; (d = rk_vfs_opt_at(k, NULL)); k++) {
		if (!d->command || !o->command || strcmp(d->command, o->command))
			continue;
		rp_view_flag_name(d, flag, sizeof(flag));
		if (!strcmp(argv[*i], flag))
			break;
	}
	if (!d)
		return 0;
	if (o->nview >= sizeof(o->view) / sizeof(o->view[0]))
		return rp_usage(o, "%s: too many options", o->command);
	p = &o->view[o->nview];
	*p = (struct rp_view_opt){.d = d, .value = d->flag_value};
	if (d->type == RK_VFS_OPT_LIST) {
		size_t n = 0;

		/* the words up to the next option */
		while (*i + 1 < argc && !rp_is_option(argv[*i + 1]))
			n += (size_t)snprintf(p->list + n,
					      n < sizeof(p->list) ? sizeof(p->list) - n : 0, "%s%s",
					      n ? ":" : "", argv[++*i]);
		if (!n)
			return rp_usage(o, "%s: option '%s' needs at least one name", o->command,
					flag);
		if (n >= sizeof(p->list))
			return rp_usage(o, "%s: option '%s': too many names", o->command, flag);
	} else if (d->type != RK_VFS_OPT_FLAG && !d->flag_value &&
		   !(p->value = rp_value(o, argc, argv, i))) {
		return 2;
	}
	view_label(o, d, label, sizeof(label));
	if ((rc = rk_vfs_opt_check(d, d->type == RK_VFS_OPT_LIST ? p->list : p->value, label,
				   &err)))
		return rp_usage(o, "%s", rk_err_str(&err, rc));
	for (size_t k = 0; k < o->nview; k++) {
		const struct rk_vfs_opt_decl *e = o->view[k].d;

		if (d->excludes && !strcmp(d->excludes, e->name)) {
			rp_view_flag_name(e, other, sizeof(other));
			return rp_usage(o, "%s: %s and %s exclude each other", o->command, flag,
					other);
		}
		if (e->excludes && !strcmp(e->excludes, d->name)) {
			rp_view_flag_name(e, other, sizeof(other));
			return rp_usage(o, "%s: %s and %s exclude each other", o->command, other,
					flag);
		}
	}
	o->nview++;
	return 1;
}

int rp_open(const struct rp_opts *o, const char *store, struct rk_vfs **out)
{
	enum { MAX = sizeof(o->view) / sizeof(o->view[0]) + 8 };
	struct rk_vfs_opt vopts[MAX];
	char labels[MAX][96];
	const struct rk_vfs_opt_decl *d;
	struct rk_vfs_opts vo = {
		.store = store,
		.cache_dir = o->cache_dir,
		.cache_group = o->cache_group,
		.cache_limit = o->cache_limit,
		.ingest_jobs = o->jobs,
		.remote = o->remote,
	};
	struct rk_err err = RK_ERR_INIT;
	size_t n = 0;
	int rc;

	for (size_t k = 0; k < o->nview; k++, n++) {
		const struct rp_view_opt *p = &o->view[k];

		view_label(o, p->d, labels[n], sizeof(labels[n]));
		vopts[n] = (struct rk_vfs_opt){.name = p->d->name,
					       .value = p->d->type == RK_VFS_OPT_LIST ? p->list
										      : p->value,
					       .label = labels[n]};
	}
	/* rockpack's own defaults of the command's options (split: --compression zstd) */
	for (size_t k = 0; (d = rk_vfs_opt_at(k, NULL)) && n < MAX; k++) {
		size_t j = 0;

		if (!d->flag_def || !d->command || !o->command || strcmp(d->command, o->command))
			continue;
		while (j < o->nview && o->view[j].d != d)
			j++;
		if (j < o->nview)
			continue;
		view_label(o, d, labels[n], sizeof(labels[n]));
		vopts[n] = (struct rk_vfs_opt){
			.name = d->name, .value = d->flag_def, .label = labels[n]};
		n++;
	}
	vo.view_opts = vopts;
	vo.nview_opts = n;
	rc = rk_vfs_open(&vo, out, &err);
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
