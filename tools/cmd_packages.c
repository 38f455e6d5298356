/* cmd_packages.c: rockpack packages STORE RUN --type deb|rpm -o DIR [--packages FILE]
 * [--sign-key KEY] [--multiarch]:
 * the run's native packages and their repository (RUN/packages/, views/packages/) as
 * real files, byte-equal to the mount: DIR receives deb/'s pool/ and dists/, or rpm/'s
 * x86_64/ (the packages and repodata/). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rk/buf.h"
#include "cli_export.h"
#include "rockpack.h"

static int cmd_packages(const struct rp_opts *o, int argc, char **argv)
{
	static const char usage[] =
		"usage: rockpack packages STORE RUN --type deb|rpm -o DIR [--packages FILE] "
		"[--sign-key KEY] [--multiarch]";
	struct rk_err err = RK_ERR_INIT;
	struct rk_buf path = RK_BUF_INIT;
	struct rp_opts po = *o;
	struct rp_progress p;
	const struct rk_run *r;
	const char *out = NULL, *type = NULL, *args[2];
	struct rk_vfs *v;
	int rc, ret = 1, nargs = 0;

	for (int i = 0; i < argc; i++) {
		const char **val = !strcmp(argv[i], "-o")	? &out
				   : !strcmp(argv[i], "--type") ? &type
								: NULL;
		int taken;

		if (val) {
			if (!(*val = rp_value(o, argc, argv, &i)))
				return 2;
		} else if ((taken = rp_view_flag(&po, argc, argv, &i))) {
			/* --packages, --sign-key, --multiarch (views/packages/) */
			if (taken == 2)
				return 2;
		} else if (rp_is_option(argv[i])) {
			return rp_usage(o, "packages: unknown option '%s'", argv[i]);
		} else if (nargs < 2) {
			args[nargs++] = argv[i];
		} else {
			nargs = 3;
		}
	}
	if (nargs != 2 || !out || !type)
		return rp_usage(o, "%s", usage);
	if (strcmp(type, "deb") && strcmp(type, "rpm"))
		return rp_usage(o, "packages: --type '%s': want deb or rpm", type);
	if (rp_open(&po, args[0], &v))
		return 1;
	rp_progress_init(&p, o, "files");
	rc = rk_vfs_run(v, strcmp(args[1], ".") ? args[1] : "", &r, &err);
	if (rc) {
		rp_fail("%s", rk_err_str(&err, rc));
		goto done;
	}
	if (rk_buf_addf(&path, "%s%spackages/%s", r->path, r->path[0] ? "/" : "",
			strcmp(type, "deb") ? "rpm" : "deb")) {
		rp_fail("out of memory");
		goto done;
	}
	ret = rp_export(v, &p, path.buf, type, out);
done:
	ret = rp_progress_end(&p, ret, out, NULL, NULL);
	rk_buf_release(&path);
	rk_vfs_close(v);
	return ret;
}

const struct rp_command rp_cmd_packages = {
	"packages",
	cmd_packages,
	"write a run's native packages as an apt or dnf repository",
	"usage: rockpack packages STORE RUN --type deb|rpm -o DIR [--packages FILE]\n"
	"                         [--sign-key KEY] [--multiarch]\n"
	"\n"
	"Write the run's native packages and their repository as RUN/packages/ shows them:\n"
	"deb: DIR/pool/main/*.deb and DIR/dists/stable/ (an apt repository); rpm: *.rpm and\n"
	"repodata/ (a dnf repository). Byte for byte what the mount serves.\n"
	"Progress on a terminal; --json prints a summary object at the end.\n"
	"\n"
	"  --type deb|rpm    the repository kind\n"
	"  -o DIR            the output directory\n"
	"  --packages FILE   TheRock's package.json instead of the built-in definitions\n"
	"  --sign-key KEY    sign the indexes with this GnuPG key\n"
	"  --multiarch       a legacy run packaged as the multi-arch set\n",
	" -o --type --packages --sign-key ",
};
