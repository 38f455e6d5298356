/* cmd_packages.c: rockpack packages STORE RUN --type deb|rpm -o DIR [--packages FILE]
 * [--sign-key KEY] [--multiarch]:
 * the run's native packages and their repository (RUN/packages/, views/packages/) as
 * real files, byte-equal to the mount: DIR receives deb/'s pool/ and dists/, or rpm/'s
 * x86_64/ (the packages and repodata/). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rk/buf.h"
#include "rk/pkgdefs.h"
#include "cli_export.h"
#include "rockpack.h"

int cmd_packages(const struct rp_opts *o, int argc, char **argv)
{
	static const char usage[] =
		"usage: rockpack packages STORE RUN --type deb|rpm -o DIR [--packages FILE] "
		"[--sign-key KEY] [--multiarch]";
	struct rk_err err = RK_ERR_INIT;
	struct rk_buf path = RK_BUF_INIT;
	struct rp_opts po = *o;
	const struct rk_run *r;
	const char *out = NULL, *type = NULL, *args[2];
	struct rk_vfs *v;
	int rc, ret = 1, nargs = 0;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(argv[i], "--type") && i + 1 < argc)
			type = argv[++i];
		else if (!strcmp(argv[i], "--packages") && i + 1 < argc)
			po.package_defs = argv[++i];
		else if (!strcmp(argv[i], "--sign-key") && i + 1 < argc)
			po.sign_key = argv[++i];
		else if (!strcmp(argv[i], "--multiarch"))
			po.packages_multiarch = 1;
		else if (argv[i][0] == '-' && argv[i][1])
			return rp_fail("%s: unknown option\n%s", argv[i], usage);
		else if (nargs < 2)
			args[nargs++] = argv[i];
		else
			nargs = 3;
	}
	if (nargs != 2 || !out || !type || (strcmp(type, "deb") && strcmp(type, "rpm")))
		return rp_fail("%s", usage);
	if (po.package_defs && (rc = rk_pkg_defs_check(po.package_defs, &err)))
		return rp_fail("%s", rk_err_str(&err, rc));
	if (po.sign_key && (rc = rk_pkg_sign_check(po.sign_key, &err)))
		return rp_fail("--sign-key: %s", rk_err_str(&err, rc));
	if (rp_open(&po, args[0], &v))
		return 1;
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
	ret = rp_export(v, &po, path.buf, type, out);
done:
	rk_buf_release(&path);
	rk_vfs_close(v);
	return ret;
}
