/* cmd_install.c: rockpack install STORE --run-id ID --amdgpu-family F [flags] --output-dir DIR,
 * TheRock's build_tools/install_rocm_from_artifacts.py with its options (docs/install.md):
 * the flags become a spec name (rk/install.h) and the tree RUN/install/<spec>/ of the
 * install view is written out (cli_export.c), files from the cache. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk/buf.h"
#include "rk/install.h"
#include "cli_export.h"
#include "rockpack.h"

/* 1 when directory path exists and holds an entry (the script would delete it first;
 * rockpack install never deletes). */
static int nonempty_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int found = 0;

	if (!d)
		return 0;
	while (!found && (e = readdir(d)))
		found = strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return found;
}

/* Print what would be fetched (as the script's "Filtered artifacts to download"). */
static int dry_run(const struct rp_opts *o, const struct rk_install_spec *s, const struct rk_run *r,
		   const char *spec)
{
	size_t *idx = NULL, n = 0;

	if (rk_install_select(s, r, &idx, &n))
		return rp_fail("out of memory");
	if (!n) {
		free(idx);
		return rp_fail("no matching artifacts for run '%s' (%s)", r->name, spec);
	}
	if (o->json) {
		printf("{\"run\": \"%s\", \"spec\": \"%s\", \"artifacts\": [", r->name, spec);
		for (size_t i = 0; i < n; i++)
			printf("%s\"%s\"", i ? ", " : "", r->arts[idx[i]].file);
		printf("]}\n");
	} else {
		for (size_t i = 0; i < n; i++)
			printf("%s\n", r->arts[idx[i]].file);
	}
	free(idx);
	return 0;
}

static int cmd_install(const struct rp_opts *o, int argc, char **argv)
{
	struct rk_err err = RK_ERR_INIT;
	struct rk_buf run = RK_BUF_INIT, path = RK_BUF_INIT, shown = RK_BUF_INIT;
	struct rk_install_spec s;
	struct rp_progress p;
	const struct rk_run *r;
	struct rk_vfs *v;
	const char *store = NULL, *run_id = NULL, *repo = NULL, *platform = "linux", *family = NULL,
		   *targets = NULL, *out = "./therock-build";
	char spec[1024];
	int dry = 0, rc, ret = 1;

	memset(&s, 0, sizeof(s));
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], **val = NULL;

		if (!strcmp(a, "--run-id"))
			val = &run_id;
		else if (!strcmp(a, "--run-github-repo"))
			val = &repo;
		else if (!strcmp(a, "--platform"))
			val = &platform;
		else if (!strcmp(a, "--amdgpu-family") || !strcmp(a, "--artifact-group"))
			val = &family;
		else if (!strcmp(a, "--amdgpu-targets"))
			val = &targets;
		else if (!strcmp(a, "--output-dir"))
			val = &out;
		if (val) {
			if (!(*val = rp_value(o, argc, argv, &i)))
				return 2;
		} else if (!strcmp(a, "--dry-run")) {
			dry = 1;
		} else if (!strcmp(a, "--release") || !strcmp(a, "--latest-release") ||
			   !strcmp(a, "--input-dir")) {
			return rp_usage(o, "install: %s is not supported yet (docs/install.md)", a);
		} else if (!strncmp(a, "--no-", 5) && !rk_install_spec_set(&s, a + 5, 0)) {
			continue;
		} else if (!strncmp(a, "--", 2) && !rk_install_spec_set(&s, a + 2, 1)) {
			continue;
		} else if (rp_is_option(a)) {
			return rp_usage(o, "install: unknown option '%s'", a);
		} else if (!store) {
			store = a;
		} else {
			return rp_usage(o, "install: unexpected argument '%s'", a);
		}
	}
	if (!store || !run_id || !family)
		return rp_usage(o, "usage: rockpack install STORE --run-id ID --amdgpu-family F "
				   "[flags] [--output-dir DIR]");
	if (strcmp(platform, "linux") && strcmp(platform, "windows"))
		return rp_usage(o, "install: --platform must be linux or windows");
	if (rk_buf_addf(&path, "%s", family) ||
	    (targets && targets[0] && rk_buf_addf(&path, "@%s", targets)))
		return rp_fail("out of memory");
	/* the spec's family and targets through its parser: the same checks as a lookup */
	{
		struct rk_install_spec t;

		if (rk_install_spec_parse(path.buf, &t, &err)) {
			rk_buf_release(&path);
			return rp_usage(o, "install: %s", err.msg);
		}
		memcpy(s.family, t.family, sizeof(s.family));
		memcpy(s.targets, t.targets, sizeof(s.targets));
		s.ntargets = t.ntargets;
	}
	rk_buf_release(&path);
	if (rk_install_spec_name(&s, spec, sizeof(spec)) < 0)
		return rp_usage(o, "install: too many targets");
	/* {owner}-{repo}/ for runs of another repository (TheRock's external bucket) */
	if (repo && strcmp(repo, "ROCm/TheRock")) {
		const char *slash = strchr(repo, '/');

		if (!slash || strchr(slash + 1, '/') || slash == repo || !slash[1])
			return rp_usage(o, "install: --run-github-repo must be OWNER/REPO");
		if (rk_buf_addf(&run, "%.*s-%s/", (int)(slash - repo), repo, slash + 1))
			return rp_fail("out of memory");
	}
	if (rk_buf_addf(&run, "%s-%s", run_id, platform))
		return rp_fail("out of memory");
	if (!dry && nonempty_dir(out)) {
		rk_buf_release(&run);
		return rp_fail("'%s' is not empty: remove it first (install_rocm_from_artifacts.py "
			       "deletes it; rockpack install never deletes)",
			       out);
	}
	if (rp_open(o, store, &v)) {
		rk_buf_release(&run);
		return 1;
	}
	rc = rk_vfs_run(v, run.buf, &r, &err);
	if (rc) {
		rp_fail("%s", rk_err_str(&err, rc));
	} else if (dry) {
		ret = dry_run(o, &s, r, spec);
	} else if (rk_buf_addf(&path, "%s%sinstall/%s", r->path, r->path[0] ? "/" : "", spec) ||
		   rk_buf_addf(&shown, "%s/install/%s", r->name, spec)) {
		rp_fail("out of memory");
	} else {
		rp_progress_init(&p, o, "files");
		ret = rp_export(v, &p, path.buf, shown.buf, out);
		ret = rp_progress_end(&p, ret, out, NULL, NULL);
	}
	rk_buf_release(&run);
	rk_buf_release(&path);
	rk_buf_release(&shown);
	rk_vfs_close(v);
	return ret;
}

const struct rp_command rp_cmd_install = {
	"install",
	cmd_install,
	"install a run's artifacts as install_rocm_from_artifacts.py does",
	"usage: rockpack install STORE --run-id ID --amdgpu-family F [--amdgpu-targets T,...]\n"
	"         [--run-github-repo OWNER/REPO] [--platform linux|windows] [component flags]\n"
	"         [--tests] [--base-only] [--output-dir DIR] [--dry-run]\n"
	"\n"
	"TheRock's build_tools/install_rocm_from_artifacts.py --run-id with the same options\n"
	"and the same result: the artifacts its flags select, flattened into DIR (default\n"
	"./therock-build, created; it must not hold files already), from rockfs's cache (each\n"
	"archive is decompressed once, for every later install too). The tree is the install\n"
	"view's RUN/install/<spec>/ (docs/install.md). Component flags, each also as --no-X:\n"
	"--aqlprofile --blas --debug-tools --fft --hipdnn --hipdnn-integration-tests\n"
	"--hipdnn-samples --hipfile --miopen --miopenprovider --hiptensor --hipblasltprovider\n"
	"--hipkernelprovider --prim --mpi --rand --rccl --rocshmem --rocdecode --rocjpeg\n"
	"--rocjitsu --mirage --rocprofiler-compute --rocprofiler-sdk --rocprofiler-systems\n"
	"--rocprofiler-systems-examples --rocrtst --rocalution --kfdtest --rocwmma --rpp\n"
	"--libhipcxx --hipthreads. Without one, every artifact of the family.\n"
	"--release, --latest-release and --input-dir are not supported yet.\n"
	"\n"
	"  --run-id ID            the CI run (the store's ID-PLATFORM directory)\n"
	"  --run-github-repo O/R  a run of another repository (the store's O-R/ directory)\n"
	"  --amdgpu-family F      the GPU family (also --artifact-group)\n"
	"  --amdgpu-targets T,... targets of split artifacts (default: the family's)\n"
	"  --output-dir DIR       where to install\n"
	"  --dry-run              print the artifacts that would be installed\n",
	" --run-id --run-github-repo --platform --amdgpu-family --artifact-group --amdgpu-targets "
	"--output-dir ",
};
