/* cmd_export.c: rockpack export STORE RUN PATH -o DIR: any view, written as real files
 * (cli_export.c does the writing), with progress on a terminal. */
#include <string.h>

#include "rk/buf.h"
#include "cli_export.h"
#include "rockpack.h"

static int cmd_export(const struct rp_opts *o, int argc, char **argv)
{
	struct rk_err err = RK_ERR_INIT;
	struct rk_buf path = RK_BUF_INIT;
	struct rp_progress p;
	const struct rk_run *r;
	struct rk_vfs *v;
	const char *out = NULL;
	int rc, ret = 1;
	char *args[3];
	int nargs = 0;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-o")) {
			if (!(out = rp_value(o, argc, argv, &i)))
				return 2;
		} else if (rp_is_option(argv[i])) {
			return rp_usage(o, "export: unknown option '%s'", argv[i]);
		} else if (nargs < 3) {
			args[nargs++] = argv[i];
		} else {
			nargs = 4;
		}
	}
	if (nargs != 3 || !out)
		return rp_usage(o, "usage: rockpack export STORE RUN PATH -o DIR");
	if (rp_open(o, args[0], &v))
		return 1;
	rp_progress_init(&p, o, "files");
	rc = rk_vfs_run(v, strcmp(args[1], ".") ? args[1] : "", &r, &err);
	if (rc)
		rp_fail("%s", rk_err_str(&err, rc));
	else if (rk_buf_addf(&path, "%s%s%s", r->path, r->path[0] ? "/" : "", args[2]))
		rp_fail("out of memory");
	else
		ret = rp_export(v, &p, path.buf, args[2], out);
	ret = rp_progress_end(&p, ret, out, NULL, NULL);
	rk_buf_release(&path);
	rk_vfs_close(v);
	return ret;
}

const struct rp_command rp_cmd_export = {
	"export",
	cmd_export,
	"write a view (dist/T, tarballs/F, browse/A, ...) as real files",
	"usage: rockpack export STORE RUN PATH -o DIR\n"
	"\n"
	"Write the view at RUN/PATH as real files into DIR (created if missing): a\n"
	"directory (dist/gfx1100, browse/<artifact>) with modes, times, symlinks and\n"
	"hardlinks; a file (tarballs/<name>.tar.zst) as DIR/<name>. Byte for byte what the\n"
	"mount serves; never writes outside DIR, never overwrites.\n"
	"Progress on a terminal; --json prints a summary object at the end.\n"
	"\n"
	"  -o DIR   the output directory\n",
	" -o ",
};
