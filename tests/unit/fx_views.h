/* fx_views.h: what the view tests (test_view_kpack.c, test_view_packages.c) share: the
 * demo store (tests/demo/mkdemo.py, made by ctest's demo.store fixture: $RK_DEMO_STORE),
 * opened through the public API with view options, listings and file bytes. */
#ifndef FX_VIEWS_H
#define FX_VIEWS_H

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rk/buf.h"
#include "rk/vfs.h"
#include "rk_fixture.h"
#include "rk_test.h"

#define FX_LEGACY "24205988454-linux" /* fat binaries, families gfx110X-all, gfx94X-dcgpu */
#define FX_KPACKED "24205988455-linux" /* kpack-split */

/* The demo store's path (the test is skipped without one). */
static inline const char *fx_demo(void)
{
	const char *s = getenv("RK_DEMO_STORE");
	struct stat st;

	if (!s || stat(s, &st) || !S_ISDIR(st.st_mode))
		RK_SKIP("no demo store (RK_DEMO_STORE: ctest's demo.store fixture makes it)");
	return s;
}

/* The demo store with the views' options opts[0..n), a cache of its own in the test's
 * directory (cache dir name: several mounts of one test stay apart). */
static inline struct rk_vfs *fx_demo_open(const char *cache, const struct rk_vfs_opt *opts,
					  size_t n)
{
	struct rk_vfs_opts o = {.store = fx_demo(),
				.cache_dir = cache,
				.ingest_jobs = 2,
				.view_opts = opts,
				.nview_opts = n};

	return fx_vfs_open(&o);
}

static inline int fx_add_name(void *ctx, const char *name, const struct rk_attr *a, uint64_t next)
{
	(void)next;
	return rk_buf_addf(ctx, "%s%s%s", ((struct rk_buf *)ctx)->len ? " " : "", name,
			   S_ISDIR(a->mode)   ? "/"
			   : S_ISLNK(a->mode) ? "@"
					      : "");
}

/* The names in directory path, in listing order, space-separated, with "/" after a
 * directory and "@" after a symlink (malloc'd). */
static inline char *fx_ls(struct rk_vfs *v, const char *path)
{
	struct rk_buf b = RK_BUF_INIT;
	struct rk_attr a = fx_resolve(v, path);
	struct rk_err err = RK_ERR_INIT;
	int rc = rk_vfs_readdir_all(v, a.ino, fx_add_name, &b, &err);

	if (rc)
		rk_test_fail(__FILE__, __LINE__, "readdir '%s': %s", path, rk_err_str(&err, rc));
	if (rk_buf_adds(&b, ""))
		rk_test_fail(__FILE__, __LINE__, "out of memory");
	return rk_buf_detach(&b, NULL);
}

/* Whether name is a word of list (fx_ls). */
static inline int fx_has(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; (p = strstr(p, name)); p += n)
		if ((p == list || p[-1] == ' ') && (!p[n] || p[n] == ' '))
			return 1;
	return 0;
}

/* The bytes of file path (its size in *len; malloc'd, NUL-terminated); the size stat
 * gives must be the number of bytes read. */
static inline char *fx_cat(struct rk_vfs *v, const char *path, size_t *len)
{
	struct rk_attr a = fx_resolve(v, path);
	struct rk_err err = RK_ERR_INIT;
	struct rk_file *f = NULL;
	char *buf = malloc(a.size + 1);
	uint64_t off = 0;
	ssize_t r = 1;
	int rc = rk_vfs_open_file(v, a.ino, &f, &err);

	if (rc || !buf)
		rk_test_fail(__FILE__, __LINE__, "open '%s': %s", path, rk_err_str(&err, rc));
	RK_ASSERT_EQ_INT(a.size, rk_file_size(f));
	while (off < a.size && (r = rk_file_pread(f, buf + off, a.size - off, off, &err)) > 0)
		off += (uint64_t)r;
	if (r < 0)
		rk_test_fail(__FILE__, __LINE__, "read '%s': %s", path, rk_err_str(&err, (int)r));
	RK_ASSERT_EQ_INT(a.size, off);
	rk_file_close(f);
	buf[off] = '\0';
	*len = off;
	return buf;
}

/* rk_vfs_open of the demo store with opts: its failure's code and message (in msg). */
static inline int fx_demo_refused(const struct rk_vfs_opt *opts, size_t n, char *msg, size_t cap)
{
	struct rk_vfs_opts o = {.store = fx_demo(),
				.cache_dir = "cache",
				.ingest_jobs = 1,
				.view_opts = opts,
				.nview_opts = n};
	struct rk_vfs *v = NULL;
	struct rk_err err = RK_ERR_INIT;
	int rc;

	fx_quiet_logs();
	rc = rk_vfs_open(&o, &v, &err);
	RK_ASSERT(rc != 0);
	RK_ASSERT(v == NULL);
	snprintf(msg, cap, "%s", rk_err_str(&err, rc));
	return rc;
}

#endif
