/* cmd_packages.c: rockpack packages STORE RUN --type deb|rpm -o DIR [--packages FILE]
 * [--sign-key KEY] [--multiarch] [--compress none|zstd|xz] [--strict]:
 * the run's native packages and their repository (RUN/packages/, views/packages/) as
 * real files, byte-equal to the mount: DIR receives deb/'s pool/ and dists/, or rpm/'s
 * x86_64/ (the packages and repodata/). The repository's README (what the view left out
 * and why, the artifacts no definition selects) is summed up on stderr; --strict fails
 * when a package was left out. When the built-in definitions are of another TheRock commit
 * than the run's, the "Definitions:" line of RUN/packages/README says so on stderr too. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk/buf.h"
#include "cli_export.h"
#include "rockpack.h"

/* The lines of section `head` of the README at path (each "  what: why", or "  what"):
 * the first four whats joined by ", " into *list (malloc'd; NULL when none); their
 * number. -1: no README. */
static int section(const char *path, const char *head, char **list)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	struct rk_buf b = RK_BUF_INIT;
	int in = 0, n = 0;

	*list = NULL;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "  ", 2)) {
			in = !strncmp(line, head, strlen(head));
			continue;
		}
		if (!in || !strcmp(line, "  none"))
			continue;
		line[2 + strcspn(line + 2, ":")] = '\0';
		if (n < 4 && rk_buf_addf(&b, "%s%s", n ? ", " : "", line + 2)) {
			n = -1;
			break;
		}
		n++;
	}
	fclose(f);
	if (n > 0)
		*list = rk_buf_detach(&b, NULL);
	rk_buf_release(&b);
	return n;
}

/* What the repository written to out left out (out/README, rpm: out/x86_64/README), for
 * the summary line (*extra, *json: malloc'd, NULL when nothing); with strict, 1 (and one
 * line) when a package was left out. */
static int report(const char *out, int rpm, int strict, char **extra, char **json)
{
	struct rk_buf path = RK_BUF_INIT;
	char *pk = NULL, *art = NULL;
	int npk = -1, nart = -1, ret = 0;

	*extra = *json = NULL;
	if (!rk_buf_addf(&path, "%s%s/README", out, rpm ? "/x86_64" : "")) {
		npk = section(path.buf, "Packages left out", &pk);
		nart = section(path.buf, "Artifacts of the run", &art);
	}
	if (strict && npk != 0) {
		ret = npk < 0 ? rp_fail("packages: --strict: cannot read %s", path.buf)
			      : rp_fail("packages: --strict: %d packages left out (%s%s; why: %s)",
					npk, pk, npk > 4 ? ", ..." : "", path.buf);
	} else if (npk > 0 || nart > 0) {
		if (asprintf(extra, "%d packages left out, %d artifacts no definition selects (%s)",
			     npk > 0 ? npk : 0, nart > 0 ? nart : 0, path.buf) < 0)
			*extra = NULL;
	}
	if (!ret && asprintf(json, ", \"left_out\": %d, \"unselected_artifacts\": %d",
			     npk > 0 ? npk : 0, nart > 0 ? nart : 0) < 0)
		*json = NULL;
	free(pk);
	free(art);
	rk_buf_release(&path);
	return ret;
}

/* RUN/packages/README's "Definitions:" line on stderr when it says the definitions are
 * not of the commit the run was built from (the view's pkg_defs_provenance). */
static void definitions_note(struct rk_vfs *v, const struct rk_run *r)
{
	struct rk_err err = RK_ERR_INIT;
	struct rk_buf path = RK_BUF_INIT;
	struct rk_file *f = NULL;
	struct rk_attr a;
	char buf[8192], *line;
	ssize_t n = 0;

	if (!rk_buf_addf(&path, "%s%spackages/README", r->path, r->path[0] ? "/" : "") &&
	    !rk_vfs_resolve(v, path.buf, &a, &err) && !rk_vfs_open_file(v, a.ino, &f, &err))
		n = rk_file_pread(f, buf, sizeof(buf) - 1, 0, &err);
	rk_file_close(f);
	rk_buf_release(&path);
	if (n <= 0)
		return;
	buf[n] = 0;
	if (!(line = strstr(buf, "\nDefinitions: ")) || !strstr(line, ", not of TheRock "))
		return;
	line++;
	line[strcspn(line, "\n")] = 0;
	rp_clear_line();
	fprintf(stderr, "rockpack: note: %s\n", line);
}

static int cmd_packages(const struct rp_opts *o, int argc, char **argv)
{
	static const char usage[] =
		"usage: rockpack packages STORE RUN --type deb|rpm -o DIR [--packages FILE] "
		"[--sign-key KEY] [--multiarch] [--compress none|zstd|xz] [--strict]";
	struct rk_err err = RK_ERR_INIT;
	struct rk_buf path = RK_BUF_INIT;
	struct rp_opts po = *o;
	struct rp_progress p;
	const struct rk_run *r;
	const char *out = NULL, *type = NULL, *args[2];
	struct rk_vfs *v;
	char *extra = NULL, *json = NULL;
	int rc, ret = 1, nargs = 0, strict = 0;

	for (int i = 0; i < argc; i++) {
		const char **val = !strcmp(argv[i], "-o")	? &out
				   : !strcmp(argv[i], "--type") ? &type
								: NULL;
		int taken;

		if (val) {
			if (!(*val = rp_value(o, argc, argv, &i)))
				return 2;
		} else if (!strcmp(argv[i], "--strict")) {
			strict = 1;
		} else if ((taken = rp_view_flag(&po, argc, argv, &i))) {
			/* --packages, --sign-key, --multiarch, --compress (views/packages/) */
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
	if (!ret && !o->quiet)
		definitions_note(v, r);
	if (!ret)
		ret = report(out, !strcmp(type, "rpm"), strict, &extra, &json);
done:
	ret = rp_progress_end(&p, ret, out, extra, json);
	free(extra);
	free(json);
	rk_buf_release(&path);
	rk_vfs_close(v);
	return ret;
}

const struct rp_command rp_cmd_packages = {
	"packages",
	cmd_packages,
	"write a run's native packages as an apt or dnf repository",
	"usage: rockpack packages STORE RUN --type deb|rpm -o DIR [--packages FILE]\n"
	"                         [--sign-key KEY] [--multiarch] [--compress none|zstd|xz]\n"
	"                         [--strict]\n"
	"\n"
	"Write the run's native packages and their repository as RUN/packages/ shows them:\n"
	"deb: DIR/pool/main/*.deb and DIR/dists/stable/ (an apt repository); rpm: *.rpm and\n"
	"repodata/ (a dnf repository). Byte for byte what the mount serves.\n"
	"DIR/README lists the packages left out (a definition that selects no file of the\n"
	"run, and every package needing one left out) and the artifacts no definition\n"
	"selects; the summary line counts both. A note says when the built-in definitions\n"
	"are of another TheRock commit than the one the run was built from.\n"
	"Progress on a terminal; --json prints a summary object at the end.\n"
	"\n"
	"  --type deb|rpm    the repository kind\n"
	"  -o DIR            the output directory\n"
	"  --packages FILE   TheRock's package.json instead of the built-in definitions\n"
	"  --sign-key KEY    sign the indexes with this GnuPG key\n"
	"  --multiarch       a legacy run packaged as the multi-arch set\n"
	"  --compress HOW    data.tar and the RPM payload as zstd or xz (default none)\n"
	"  --strict          fail (exit 1) when a package was left out\n",
	" -o --type --packages --sign-key --compress ",
};
