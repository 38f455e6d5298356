/* cmd_cat.c: rockpack cat STORE RUN ARTIFACT PATH: the bytes the mount would serve. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk/buf.h"
#include "cli_util.h"
#include "rockpack.h"

static int cmd_cat(const struct rp_opts *o, int argc, char **argv)
{
	struct rk_err err = RK_ERR_INIT;
	struct rk_buf path = RK_BUF_INIT;
	struct rk_file *f = NULL;
	struct rk_attr a;
	struct rk_vfs *v;
	const struct rk_run *r;
	char *buf = NULL;
	uint64_t off = 0;
	int rc, ret = 1;

	for (int i = 0; i < argc; i++)
		if (rp_is_option(argv[i]))
			return rp_usage(o, "cat: unknown option '%s'", argv[i]);
	if (argc != 4)
		return rp_usage(o, "usage: rockpack cat STORE RUN ARTIFACT PATH");
	if (rp_open(o, argv[0], &v))
		return 1;
	rc = rk_vfs_run(v, strcmp(argv[1], ".") ? argv[1] : "", &r, &err);
	if (rc) {
		rp_fail("%s", rk_err_str(&err, rc));
		goto out;
	}
	if (rk_buf_addf(&path, "%s%sbrowse/%s/%s", r->path, r->path[0] ? "/" : "", argv[2],
			argv[3])) {
		rp_fail("out of memory");
		goto out;
	}
	if ((rc = rk_vfs_resolve(v, path.buf, &a, &err))) {
		rp_fail("%s/%s: %s", argv[2], argv[3],
			rc == -ENOENT ? strerror(-rc) : rk_err_str(&err, rc));
		goto out;
	}
	if (!S_ISREG(a.mode)) {
		rp_fail("%s/%s: not a regular file", argv[2], argv[3]);
		goto out;
	}
	if ((rc = rk_vfs_open_file(v, a.ino, &f, &err))) {
		rp_fail("%s/%s: %s", argv[2], argv[3], rk_err_str(&err, rc));
		goto out;
	}
	if (!(buf = malloc(1 << 20))) {
		rp_fail("out of memory");
		goto out;
	}
	while (off < a.size) {
		ssize_t n = rk_file_pread(f, buf, 1 << 20, off, &err);

		if (n <= 0) {
			rp_fail("%s/%s: %s", argv[2], argv[3],
				n < 0 ? rk_err_str(&err, (int)n) : "unexpected end of file");
			goto out;
		}
		if ((rc = rp_write_all(STDOUT_FILENO, buf, (size_t)n))) {
			rp_fail("write: %s", strerror(-rc));
			goto out;
		}
		off += (uint64_t)n;
	}
	ret = 0;
out:
	free(buf);
	rk_file_close(f);
	rk_buf_release(&path);
	rk_vfs_close(v);
	return ret;
}

const struct rp_command rp_cmd_cat = {
	"cat",
	cmd_cat,
	"write one file of an artifact to stdout",
	"usage: rockpack cat STORE RUN ARTIFACT PATH\n"
	"\n"
	"Write the file PATH of ARTIFACT (an artifact stem such as base_lib_generic) to\n"
	"stdout: the bytes the mount serves at RUN/browse/ARTIFACT/PATH.\n",
	NULL,
};
