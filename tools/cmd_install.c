/* cmd_install.c: rockpack install STORE --run-id ID --amdgpu-family F [flags] --output-dir DIR,
 * TheRock's build_tools/install_rocm_from_artifacts.py with its options (docs/install.md):
 * the flags become a spec name (rk/install.h) and the tree RUN/install/<spec>/ of the
 * install view is written out (cli_export.c), files from the cache. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk/buf.h"
#include "rk/install.h"
#include "rk/store.h"
#include "cli_copy.h"
#include "cli_export.h"
#include "cli_untar.h"
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

/* --input-dir: the script runs `rsync -azP INPUT_DIR OUTPUT_DIR` (an existing TheRock
 * tree, copied as it is: no selection), into the directory it just made. */
static int install_input_dir(const struct rp_opts *o, const char *input, const char *out, int dry,
			     const char *store)
{
	struct rp_progress p;

	if (store)
		return rp_usage(o, "install: --input-dir takes no STORE (it copies a local tree)");
	if (dry) {
		if (o->json) {
			struct rk_buf b = RK_BUF_INIT;
			int rc = rk_buf_adds(&b, "{\"input_dir\": ") ||
				 rk_buf_add_json_str(&b, input) ||
				 rk_buf_adds(&b, ", \"output_dir\": ") ||
				 rk_buf_add_json_str(&b, out) || rk_buf_adds(&b, "}\n");

			if (rc)
				return rp_fail("out of memory");
			fwrite(b.buf, 1, b.len, stdout);
			rk_buf_release(&b);
		} else {
			printf("would copy %s to %s (as rsync -a)\n", input, out);
		}
		return 0;
	}
	if (nonempty_dir(out))
		return rp_fail("'%s' is not empty: remove it first (install_rocm_from_artifacts.py "
			       "deletes it; rockpack install never deletes)",
			       out);
	rp_progress_init(&p, o, "files");
	return rp_progress_end(&p, rp_copy_tree(&p, input, out), out, NULL, NULL);
}

/* --release, --latest-release: TheRock's multi-arch tarballs,
 * therock-dist-{platform}-{group}-{version}.tar.gz, which the script downloads from
 * s3://therock-{nightly,dev}-tarball/v4/tarball/ and extracts. Looked for in the store
 * under these directories (a copy of the script's bucket, of the release pipeline's
 * v5/rocm/core/, or the root of that prefix), then in the store's release/tarball/
 * view (a rockfs store of runs: view_release.c). */
static const char *const release_dirs[] = {"v4/tarball", "v5/rocm/core/tarball", "tarball"};

/* The end of \d+\.\d+\.\d+ at s, or NULL. */
static const char *xyz(const char *s)
{
	for (int k = 0; k < 3; k++) {
		if (!isdigit((unsigned char)*s))
			return NULL;
		while (isdigit((unsigned char)*s))
			s++;
		if (k < 2 && *s++ != '.')
			return NULL;
	}
	return s;
}

/* What the version v is, as the script's patterns tell: 'n' a nightly
 * (X.Y.Z{a,rc}YYYYMMDD: *date set), 'd' a dev (X.Y.Z.dev0+HEX), 'p' plain X.Y.Z (the
 * tarball names' pattern takes it, --release does not), 0 none. */
static int version_kind(const char *v, long *date)
{
	const char *s = xyz(v);

	if (!s)
		return 0;
	if (!*s)
		return 'p';
	if (*s == 'a' || (s[0] == 'r' && s[1] == 'c')) {
		s += *s == 'a' ? 1 : 2;
		if (strlen(s) != 8 || strspn(s, "0123456789") != 8)
			return 0;
		if (date)
			*date = strtol(s, NULL, 10);
		return 'n';
	}
	if (!strncmp(s, ".dev0+", 6) && s[6] && strspn(s + 6, "0123456789abcdef") == strlen(s + 6))
		return 'd';
	return 0;
}

/* The version in tarball name name for platform and group (the script's
 * extract_version_from_asset_name), or NULL. */
static const char *name_version(const char *name, const char *platform, const char *group)
{
	size_t pl = strlen(platform), gl = strlen(group), n = strlen(name);
	const char *v;

	if (strncmp(name, "therock-dist-", 13) || strncmp(name + 13, platform, pl) ||
	    name[13 + pl] != '-' || strncmp(name + 14 + pl, group, gl) ||
	    name[14 + pl + gl] != '-' || n < 7 || strcmp(name + n - 7, ".tar.gz") ||
	    (gl >= 6 && !strcmp(group + gl - 6, "-tests")))
		return NULL;
	v = name + 15 + pl + gl;
	return v;
}

struct tarball {
	char path[1024]; /* in the store, or in the view (vfs) */
	char version[256];
	long date; /* YYYYMMDD of a nightly, else 0 */
	int64_t mtime_ns;
	int in_view;
};

/* Keep t in *best when it sorts before it (the script: newest parsed date, then newest
 * LastModified). */
static void consider(struct tarball *best, int *found, const char *dir, const char *name,
		     const char *platform, const char *group, int64_t mtime_ns, int in_view)
{
	const char *v = name_version(name, platform, group);
	char ver[256];
	long date = 0;

	if (!v ||
	    (size_t)snprintf(ver, sizeof(ver), "%.*s", (int)(strlen(v) - 7), v) >= sizeof(ver) ||
	    !version_kind(ver, &date))
		return;
	if (*found && (date < best->date || (date == best->date && mtime_ns <= best->mtime_ns)))
		return;
	if ((size_t)snprintf(best->path, sizeof(best->path), "%s/%s", dir, name) >=
	    sizeof(best->path))
		return;
	memcpy(best->version, ver, sizeof(ver));
	best->date = date;
	best->mtime_ns = mtime_ns;
	best->in_view = in_view;
	*found = 1;
}

struct view_list {
	struct tarball *best;
	int *found;
	const char *platform, *group;
};

static int view_entry(void *ctx, const char *name, const struct rk_attr *a, uint64_t next)
{
	struct view_list *l = ctx;

	(void)next;
	consider(l->best, l->found, "release/tarball", name, l->platform, l->group,
		 a->mtime * 1000000000LL, 1);
	return 0;
}

/* The file the release/tarball/ symlink at path names, in the view's tree (its target
 * taken lexically from its directory; one that leaves the tree is refused). */
static int view_target(struct rk_vfs *v, const char *path, struct rk_attr *a, struct rk_err *err)
{
	char target[4097], full[8192], *c, *save = NULL;
	struct rk_buf out = RK_BUF_INIT;
	int rc = rk_vfs_resolve(v, path, a, err), n;

	if (rc || !S_ISLNK(a->mode))
		return rc;
	if ((n = rk_vfs_readlink(v, a->ino, target, sizeof(target), err)) < 0)
		return n;
	snprintf(full, sizeof(full), "%.*s/%s", (int)(strrchr(path, '/') - path), path, target);
	rc = rk_buf_adds(&out, "") ? -ENOMEM : 0;
	for (c = strtok_r(full, "/", &save); !rc && c; c = strtok_r(NULL, "/", &save)) {
		if (!strcmp(c, "."))
			continue;
		if (!strcmp(c, "..")) {
			char *slash = strrchr(out.buf, '/');

			if (!out.len)
				rc = rk_err_set(err, -EINVAL, "%s: its target leaves the tree",
						path);
			else {
				out.len = slash ? (size_t)(slash - out.buf) : 0;
				out.buf[out.len] = '\0';
			}
		} else if (rk_buf_addf(&out, "%s%s", out.len ? "/" : "", c)) {
			rc = -ENOMEM;
		}
	}
	if (!rc)
		rc = rk_vfs_resolve(v, out.buf, a, err);
	if (!rc && !S_ISREG(a->mode))
		rc = rk_err_set(err, -EINVAL, "%s: not a file", path);
	rk_buf_release(&out);
	return rc;
}

struct read_src {
	struct rk_object *obj;
	struct rk_file *f;
};

static ssize_t src_pread(void *ctx, void *buf, size_t n, uint64_t off)
{
	struct read_src *s = ctx;
	struct rk_err err = RK_ERR_INIT;
	ssize_t r = s->obj ? rk_object_pread(s->obj, buf, n, off, &err)
			   : rk_file_pread(s->f, buf, n, off, &err);

	if (r < 0)
		rp_fail("read: %s", rk_err_str(&err, (int)r));
	return r;
}

static int install_release(const struct rp_opts *o, const char *store, const char *release,
			   const char *platform, const char *group, const char *out, int dry)
{
	struct rk_err err = RK_ERR_INIT;
	struct rk_store *s = NULL;
	struct rk_vfs *v = NULL;
	struct tarball t;
	struct read_src src = {0};
	struct rp_untar_src us = {src_pread, &src, 0};
	struct rp_progress p;
	char name[512];
	int found = 0, rc, ret = 1;

	memset(&t, 0, sizeof(t));
	if (release) {
		int k = version_kind(release, NULL);

		if (k != 'n' && k != 'd')
			return rp_usage(o,
					"install: --release '%s': want a nightly (X.Y.ZaYYYYMMDD, "
					"X.Y.ZrcYYYYMMDD) or dev (X.Y.Z.dev0+HASH) version",
					release);
		if ((size_t)snprintf(name, sizeof(name), "therock-dist-%s-%s-%s.tar.gz", platform,
				     group, release) >= sizeof(name))
			return rp_usage(o, "install: --release: too long");
		snprintf(t.version, sizeof(t.version), "%s", release);
	}
	if (!dry && nonempty_dir(out))
		return rp_fail("'%s' is not empty: remove it first (install_rocm_from_artifacts.py "
			       "deletes it; rockpack install never deletes)",
			       out);
	if ((rc = rk_store_open_opts(store, &o->remote, &s, &err)))
		return rp_fail("%s: %s", store, rk_err_str(&err, rc));
	/* the bucket's layouts, in the store itself */
	for (size_t i = 0; !found && i < sizeof(release_dirs) / sizeof(release_dirs[0]); i++) {
		if (release) {
			snprintf(t.path, sizeof(t.path), "%s/%s", release_dirs[i], name);
			rc = rk_store_object_open(s, t.path, &src.obj, &err);
			if (!rc)
				found = 1;
			else if (rc != -ENOENT && rc != -ENOTDIR) {
				rp_fail("%s: %s", t.path, rk_err_str(&err, rc));
				goto done;
			}
		} else {
			struct rk_store_list l = {0};

			rc = rk_store_list(s, release_dirs[i], &l, &err);
			if (rc && rc != -ENOENT && rc != -ENOTDIR) {
				rp_fail("%s: %s", release_dirs[i], rk_err_str(&err, rc));
				goto done;
			}
			for (size_t k = 0; !rc && k < l.n; k++)
				if (!l.v[k].is_dir)
					consider(&t, &found, release_dirs[i], l.v[k].name, platform,
						 group, l.v[k].mtime_ns, 0);
			rk_store_list_release(&l);
		}
	}
	/* else the store's release/tarball/ view */
	if (!found) {
		struct rk_attr a;

		if (rp_open(o, store, &v))
			goto done;
		if (release) {
			snprintf(t.path, sizeof(t.path), "release/tarball/%s", name);
			found = !rk_vfs_resolve(v, t.path, &a, &err);
			t.in_view = 1;
		} else if (!(rc = rk_vfs_resolve(v, "release/tarball", &a, &err))) {
			struct view_list l = {&t, &found, platform, group};

			if ((rc = rk_vfs_readdir_all(v, a.ino, view_entry, &l, &err))) {
				rp_fail("release/tarball: %s", rk_err_str(&err, rc));
				goto done;
			}
		}
	}
	if (!found) {
		if (release)
			rp_fail("%s: no %s in %s/, %s/, %s/ or release/tarball/", store, name,
				release_dirs[0], release_dirs[1], release_dirs[2]);
		else
			rp_fail("%s: no release of '%s' for %s (therock-dist-%s-%s-VERSION.tar.gz)",
				store, group, platform, platform, group);
		goto done;
	}
	if (dry) {
		if (o->json) {
			struct rk_buf b = RK_BUF_INIT;

			if (rk_buf_adds(&b, "{\"release\": ") ||
			    rk_buf_add_json_str(&b, t.version) ||
			    rk_buf_adds(&b, ", \"tarball\": ") ||
			    rk_buf_add_json_str(&b, strrchr(t.path, '/') + 1) ||
			    rk_buf_adds(&b, ", \"path\": ") || rk_buf_add_json_str(&b, t.path) ||
			    rk_buf_adds(&b, "}\n"))
				rp_fail("out of memory");
			else
				fwrite(b.buf, 1, b.len, stdout), ret = 0;
			rk_buf_release(&b);
		} else {
			printf("%s\n", t.path);
			ret = 0;
		}
		goto done;
	}
	if (t.in_view) {
		struct rk_attr a;

		if ((rc = view_target(v, t.path, &a, &err)) ||
		    (rc = rk_vfs_open_file(v, a.ino, &src.f, &err))) {
			rp_fail("%s: %s", t.path, rk_err_str(&err, rc));
			goto done;
		}
		us.size = rk_file_size(src.f);
	} else {
		if (!src.obj && (rc = rk_store_object_open(s, t.path, &src.obj, &err))) {
			rp_fail("%s: %s", t.path, rk_err_str(&err, rc));
			goto done;
		}
		us.size = rk_object_size(src.obj);
	}
	rp_progress_init(&p, o, "files");
	ret = rp_progress_end(&p, rp_untar(&p, &us, t.path, out), out, NULL, NULL);
done:
	if (src.f)
		rk_file_close(src.f);
	rk_object_close(src.obj);
	if (v)
		rk_vfs_close(v);
	rk_store_close(s);
	return ret;
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
		   *targets = NULL, *out = "./therock-build", *release = NULL, *input = NULL,
		   *jobs = NULL, *link = "copy";
	struct rp_export_opts eo = {0};
	char spec[1024];
	int dry = 0, latest = 0, rc, ret = 1;

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
		else if (!strcmp(a, "--release"))
			val = &release;
		else if (!strcmp(a, "--input-dir"))
			val = &input;
		else if (!strcmp(a, "-j"))
			val = &jobs;
		else if (!strcmp(a, "--link"))
			val = &link;
		if (!strncmp(a, "--link=", 7)) {
			link = a + 7;
		} else if (val) {
			if (!(*val = rp_value(o, argc, argv, &i)))
				return 2;
		} else if (!strcmp(a, "--dry-run")) {
			dry = 1;
		} else if (!strcmp(a, "--latest-release")) {
			latest = 1;
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
	/* the writers: -j N (or the global --jobs), default one a CPU */
	if (jobs) {
		char *end;
		unsigned long n = strtoul(jobs, &end, 10);

		if (*end || !jobs[0] || n < 1 || n > 256)
			return rp_usage(o, "install: -j '%s': want 1..256", jobs);
		eo.jobs = (unsigned)n;
	} else if (o->jobs) {
		eo.jobs = o->jobs;
	} else {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		eo.jobs = n < 1 ? 1 : n > 64 ? 64 : (unsigned)n;
	}
	if (!strcmp(link, "copy"))
		eo.link = RP_LINK_COPY;
	else if (!strcmp(link, "reflink"))
		eo.link = RP_LINK_REFLINK;
	else if (!strcmp(link, "auto"))
		eo.link = RP_LINK_AUTO;
	else if (!strcmp(link, "hard"))
		/* a hard link shares the inode, so its mode: the cache's blobs are 0400 (0440 in
		 * a group cache) and one blob holds the bytes of files of every mode (an
		 * executable and a header with the same bytes); and a write into the installed
		 * file would be a write into the cache (docs/install.md) */
		return rp_usage(
			o, "install: --link=hard is refused: the cache's blobs are read-only "
			   "(0400) and shared by files of every mode; use --link=reflink or auto");
	else
		return rp_usage(o, "install: --link '%s': want copy, reflink or auto", link);
	/* one source, as the script's mutually exclusive group */
	if (!!run_id + !!release + latest + !!input > 1)
		return rp_usage(o, "install: --run-id, --release, --latest-release and --input-dir "
				   "exclude each other");
	if (strcmp(platform, "linux") && strcmp(platform, "windows"))
		return rp_usage(o, "install: --platform must be linux or windows");
	if (input && family)
		return install_input_dir(o, input, out, dry, store);
	if ((release || latest) && store && family)
		return install_release(o, store, release, platform, family, out, dry);
	if (!store || !run_id || !family)
		return rp_usage(o,
				"usage: rockpack install STORE (--run-id ID | --release V | "
				"--latest-release) --amdgpu-family F [flags] [--output-dir DIR]");
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
		ret = rp_export_with(v, &p, path.buf, shown.buf, out, &eo);
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
	"         [--tests] [--base-only] [--output-dir DIR] [--dry-run] [-j N] [--link MODE]\n"
	"       rockpack install STORE (--release V | --latest-release) --amdgpu-family F\n"
	"         [--platform P] [--output-dir DIR] [--dry-run]\n"
	"       rockpack install --input-dir SRC --amdgpu-family F [--output-dir DIR]\n"
	"\n"
	"TheRock's build_tools/install_rocm_from_artifacts.py with the same options\n"
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
	"--release and --latest-release extract therock-dist-PLATFORM-F-VERSION.tar.gz\n"
	"from the store's v4/tarball/ (the script's bucket), v5/rocm/core/tarball/,\n"
	"tarball/, or its release/tarball/ view; --input-dir copies a local tree as the\n"
	"script's rsync -a does.\n"
	"\n"
	"  --run-id ID            the CI run (the store's ID-PLATFORM directory)\n"
	"  --run-github-repo O/R  a run of another repository (the store's O-R/ directory)\n"
	"  --release V            a release: nightly X.Y.ZaYYYYMMDD or dev X.Y.Z.dev0+HASH\n"
	"  --latest-release       the newest release of the family\n"
	"  --input-dir SRC        copy local tree SRC (SRC/: its contents); no STORE\n"
	"  --amdgpu-family F      the GPU family (also --artifact-group)\n"
	"  --amdgpu-targets T,... targets of split artifacts (default: the family's)\n"
	"  --output-dir DIR       where to install\n"
	"  --dry-run              print the artifacts (the tarball) that would be installed\n"
	"  -j N                   files written at once (default: the CPUs, or --jobs)\n"
	"  --link MODE            copy (default), reflink (of the cache's blobs; fail where\n"
	"                         the file system has none) or auto (reflink, else copy)\n",
	" --run-id --run-github-repo --platform --amdgpu-family --artifact-group --amdgpu-targets "
	"--output-dir --release --input-dir -j --link ",
};
