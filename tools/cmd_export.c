/* cmd_export.c: rockpack export STORE RUN PATH -o DIR: any view, written as real files
 * (cli_export.c does the writing). */
#include <string.h>

#include "rk/buf.h"
#include "cli_export.h"
#include "rockpack.h"

int cmd_export(const struct rp_opts *o, int argc, char **argv)
{
	struct rk_err err = RK_ERR_INIT;
	struct rk_buf path = RK_BUF_INIT;
	const struct rk_run *r;
	struct rk_vfs *v;
	const char *out = NULL;
	int rc, ret = 1;
	char *args[3];
	int nargs = 0;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (nargs < 3)
			args[nargs++] = argv[i];
		else
			nargs = 4;
	}
	if (nargs != 3 || !out)
		return rp_fail("usage: rockpack export STORE RUN PATH -o DIR");
	if (rp_open(o, args[0], &v))
		return 1;
	rc = rk_vfs_run(v, strcmp(args[1], ".") ? args[1] : "", &r, &err);
	if (rc)
		rp_fail("%s", rk_err_str(&err, rc));
	else if (rk_buf_addf(&path, "%s%s%s", r->path, r->path[0] ? "/" : "", args[2]))
		rp_fail("out of memory");
	else
		ret = rp_export(v, o, path.buf, args[2], out);
	rk_buf_release(&path);
	rk_vfs_close(v);
	return ret;
}
