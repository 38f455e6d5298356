/* cmd_release.c: rockpack release STORE -o DIR [--kind tarball|python|deb|rpm]: the store's
 * release/ (views/view_release.c) as real files, laid out as TheRock's release buckets'
 * v5/rocm/core/ (DIR/tarball/, DIR/whl-next/, DIR/packages/{deb,rpm}/), each symlink of
 * the view written as the run view file it names: one `aws s3 sync DIR
 * s3://<bucket>/v5/rocm/core/` or rsync publishes it. */
#include <string.h>

#include "rk/buf.h"
#include "cli_export.h"
#include "rockpack.h"

static const struct {
	const char *kind, *path; /* --kind, its directory below release/ (and DIR) */
} kinds[] = {
	{"tarball", "tarball"},
	{"python", "whl-next"},
	{"deb", "packages/deb"},
	{"rpm", "packages/rpm"},
};

static int cmd_release(const struct rp_opts *given, int argc, char **argv)
{
	struct rp_opts opts = *given, *o = &opts;
	struct rk_buf path = RK_BUF_INIT, dst = RK_BUF_INIT;
	struct rp_progress p;
	struct rk_vfs *v;
	const char *out = NULL, *kind = NULL, *store = NULL;
	int ret = 0, nargs = 0, found = 0, taken;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-o")) {
			if (!(out = rp_value(o, argc, argv, &i)))
				return 2;
		} else if (!strcmp(argv[i], "--kind")) {
			if (!(kind = rp_value(o, argc, argv, &i)))
				return 2;
		} else if ((taken = rp_view_flag(o, argc, argv, &i))) {
			if (taken == 2)
				return 2; /* --run-kind, --newest, --platform, --min-age
					   * (views/view_release.c) */
		} else if (rp_is_option(argv[i])) {
			return rp_usage(o, "release: unknown option '%s'", argv[i]);
		} else if (!nargs++) {
			store = argv[i];
		}
	}
	if (nargs != 1 || !out)
		return rp_usage(o,
				"usage: rockpack release STORE -o DIR "
				"[--kind tarball|python|deb|rpm] [--run-kind all|split|legacy] "
				"[--newest N] [--platform all|linux|windows] [--min-age DURATION]");
	for (size_t i = 0; kind && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		found |= !strcmp(kind, kinds[i].kind);
	if (kind && !found)
		return rp_usage(o, "release: --kind '%s': one of tarball, python, deb, rpm", kind);
	if (rp_open(o, store, &v))
		return 1;
	rp_progress_init(&p, o, "files");
	for (size_t i = 0; !ret && i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (kind && strcmp(kind, kinds[i].kind))
			continue;
		path.len = dst.len = 0;
		if (rk_buf_addf(&path, "release/%s", kinds[i].path) ||
		    rk_buf_addf(&dst, "%s/%s", out, kinds[i].path))
			ret = rp_fail("out of memory");
		else
			ret = rp_export_follow(v, &p, path.buf, path.buf, dst.buf);
	}
	ret = rp_progress_end(&p, ret, out, NULL, NULL);
	rk_buf_release(&path);
	rk_buf_release(&dst);
	rk_vfs_close(v);
	return ret;
}

const struct rp_command rp_cmd_release = {
	"release",
	cmd_release,
	"write the store's release/ (TheRock's release buckets) as real files",
	"usage: rockpack release STORE -o DIR [--kind tarball|python|deb|rpm]\n"
	"                        [--run-kind all|split|legacy] [--newest N]\n"
	"                        [--platform all|linux|windows] [--min-age DURATION]\n"
	"\n"
	"Write the runs of STORE as TheRock's release buckets lay them out (the mount's\n"
	"release/, docs/views.md): DIR/tarball/ (every run's .tar.gz), DIR/whl-next/<project>/\n"
	"(every run's wheels and sdists, PEP 503 pages), DIR/packages/{deb,rpm}/<YYYYMMDD>-<run\n"
	"id>/ (each Linux run's repository, index pages) and DIR/packages/{deb,rpm}/all/ (one\n"
	"repository of every run; the link latest is not written). Files are real copies of\n"
	"the run views' bytes, so `aws s3 sync DIR s3://BUCKET/v5/rocm/core/` publishes\n"
	"them. --kind writes one of the four. DIR's parts must not exist; nothing is overwritten.\n"
	"Progress on a terminal; --json prints a summary object at the end.\n"
	"\n"
	"  -o DIR       the output directory\n"
	"  --kind KIND  only tarball/ (tarball), whl-next/ (python), packages/deb/ (deb) or\n"
	"               packages/rpm/ (rpm)\n"
	"  --run-kind K only kpack-split (split) or legacy runs (rockfs -o release_kind)\n"
	"  --newest N   only the newest N runs, by run id (rockfs -o release_newest)\n"
	"  --platform P only the linux or the windows runs (rockfs -o release_platform)\n"
	"  --min-age D  only runs finished D ago or more: 36h, 2d (rockfs -o release_min_age)\n"
	"Damaged or incomplete runs are left out (the mount's release/README lists them).\n",
	" -o --kind --run-kind --newest --platform --min-age ",
};
