/* cmd_wheels.c: rockpack wheels STORE RUN -o DIR [--index] [--compress]: the run's Python
 * packages (RUN/python/, view_python.c) as real files, byte-equal to the mount (with
 * --compress, to a mount with -o wheel_compression=deflate).
 *
 * Without --index DIR receives python/files/ itself (the wheels, sdists and the wheels'
 * .metadata files): a directory for pip's --find-links. With --index DIR receives
 * files/, simple/, PROVENANCE and index.html, so that pip --index-url file://DIR/simple/
 * and --find-links file://DIR/index.html work, and, for a legacy run, its family
 * directories (DIR/<family>/: that family's sdist, devel wheel and index.html, which
 * TheRock's multi-family upload writes). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "rk/buf.h"
#include "cli_export.h"
#include "rockpack.h"

/* The family directories of python/ (every directory but files/, simple/ and
 * find-links/), one name a line. */
static int add_family(void *ctx, const char *name, const struct rk_attr *a, uint64_t next)
{
	(void)next;
	if (!S_ISDIR(a->mode) || name[0] == '.' || !strcmp(name, "files") ||
	    !strcmp(name, "simple") || !strcmp(name, "find-links"))
		return 0;
	return rk_buf_addf(ctx, "%s\n", name) ? -ENOMEM : 0;
}

static int cmd_wheels(const struct rp_opts *given, int argc, char **argv)
{
	struct rp_opts opts = *given, *o = &opts;
	static const char *const parts[] = {"files", "simple", "PROVENANCE", "index.html"};
	struct rk_err err = RK_ERR_INIT;
	struct rk_buf path = RK_BUF_INIT, dst = RK_BUF_INIT, fams = RK_BUF_INIT;
	const struct rk_run *r;
	struct rk_attr a;
	struct rp_progress p;
	struct rk_vfs *v;
	const char *out = NULL, *args[2];
	int rc, ret = 1, index = 0, nargs = 0, taken;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-o")) {
			if (!(out = rp_value(o, argc, argv, &i)))
				return 2;
		} else if (!strcmp(argv[i], "--index")) {
			index = 1;
		} else if ((taken = rp_view_flag(o, argc, argv, &i))) {
			if (taken == 2)
				return 2; /* --compress (views/python/) */
		} else if (rp_is_option(argv[i])) {
			return rp_usage(o, "wheels: unknown option '%s'", argv[i]);
		} else if (nargs < 2) {
			args[nargs++] = argv[i];
		} else {
			nargs = 3;
		}
	}
	if (nargs != 2 || !out)
		return rp_usage(o,
				"usage: rockpack wheels STORE RUN -o DIR [--index] [--compress]");
	if (rp_open(o, args[0], &v))
		return 1;
	rp_progress_init(&p, o, "files");
	rc = rk_vfs_run(v, strcmp(args[1], ".") ? args[1] : "", &r, &err);
	if (rc) {
		rp_fail("%s", rk_err_str(&err, rc));
		goto done;
	}
	if (rk_buf_addf(&path, "%s%spython", r->path, r->path[0] ? "/" : "")) {
		rp_fail("out of memory");
		goto done;
	}
	if ((rc = rk_vfs_resolve(v, path.buf, &a, &err))) {
		rp_fail("%s: %s", args[1],
			rc == -ENOENT ? "the run stores no Python packages (no python/)"
				      : rk_err_str(&err, rc));
		goto done;
	}
	if (!index) {
		if (!rk_buf_adds(&path, "/files"))
			ret = rp_export(v, &p, path.buf, "python/files", out);
		else
			rp_fail("out of memory");
		goto done;
	}
	ret = 0;
	for (size_t i = 0; !ret && i < sizeof(parts) / sizeof(parts[0]); i++) {
		size_t len = path.len;
		int dir = !strchr(parts[i], '.') && strcmp(parts[i], "PROVENANCE");

		dst.len = 0;
		if (rk_buf_addf(&path, "/%s", parts[i]) ||
		    rk_buf_addf(&dst, "%s%s%s", out, dir ? "/" : "", dir ? parts[i] : "")) {
			ret = rp_fail("out of memory");
			break;
		}
		if (dir && (rc = rp_mkdir_parents(out)) >= 0 && mkdir(out, 0755) && errno != EEXIST)
			rc = -errno;
		if (dir && rc < 0) {
			ret = rp_fail("%s: %s", out, strerror(-rc));
			break;
		}
		ret = rp_export(v, &p, path.buf, parts[i], dst.buf);
		path.len = len;
		path.buf[len] = '\0';
	}
	if (!ret && (rc = rk_vfs_readdir_all(v, a.ino, add_family, &fams, &err)))
		ret = rp_fail("%s: python/: %s", args[1], rk_err_str(&err, rc));
	for (char *f = fams.buf, *nl; !ret && f && (nl = strchr(f, '\n')); f = nl + 1) {
		size_t len = path.len;

		*nl = '\0';
		dst.len = 0;
		if (rk_buf_addf(&path, "/%s", f) || rk_buf_addf(&dst, "%s/%s", out, f)) {
			ret = rp_fail("out of memory");
			break;
		}
		ret = rp_export(v, &p, path.buf, f, dst.buf);
		path.len = len;
		path.buf[len] = '\0';
	}
done:
	ret = rp_progress_end(&p, ret, out, NULL, NULL);
	rk_buf_release(&path);
	rk_buf_release(&dst);
	rk_buf_release(&fams);
	rk_vfs_close(v);
	return ret;
}

const struct rp_command rp_cmd_wheels = {
	"wheels",
	cmd_wheels,
	"write a run's wheels and sdists (a pip index with --index)",
	"usage: rockpack wheels STORE RUN -o DIR [--index] [--compress]\n"
	"\n"
	"Write the run's Python packages as RUN/python/ shows them: the wheels, sdists and\n"
	"the wheels' .metadata files into DIR (a pip --find-links directory), or with\n"
	"--index DIR/files/, DIR/simple/, DIR/PROVENANCE and DIR/index.html, for\n"
	"pip install --index-url file://DIR/simple/ (or --find-links file://DIR/index.html),\n"
	"and a legacy run's family directories, DIR/<family>/ (--find-links\n"
	"file://DIR/<family>/index.html).\n"
	"Byte for byte what the mount serves.\n"
	"Progress on a terminal; --json prints a summary object at the end.\n"
	"\n"
	"  -o DIR       the output directory\n"
	"  --index      also the simple/ index, PROVENANCE and the flat index.html\n"
	"  --compress   the synthesized wheels' members deflated (as pip's own wheels), not\n"
	"               stored: what a mount with -o wheel_compression=deflate serves\n",
	" -o ",
};
