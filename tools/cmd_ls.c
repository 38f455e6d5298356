/* cmd_ls.c: rockpack ls STORE [RUN] [--json]: runs, or one run's artifacts. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rk/buf.h"
#include "rk/manifest.h"
#include "rk/size.h"
#include "cli_util.h"
#include "rockpack.h"

static int print_buf(struct rk_buf *b, int rc)
{
	if (rc) {
		rk_buf_release(b);
		return rp_fail("out of memory");
	}
	fwrite(b->buf, 1, b->len, stdout);
	rk_buf_release(b);
	return 0;
}

static uint64_t total_size(const struct rk_run *r)
{
	uint64_t t = 0;

	for (size_t i = 0; i < r->narts; i++)
		t += r->arts[i].size;
	return t;
}

static int ls_runs(const struct rp_opts *o, struct rk_vfs *v)
{
	struct rk_err err = RK_ERR_INIT;
	struct rk_buf b = RK_BUF_INIT;
	char **names, sz[32];
	size_t n;
	int rc = rk_vfs_list_runs(v, &names, &n, &err), failed = 0, printed = 0;

	if (rc)
		return rp_fail("%s", rk_err_str(&err, rc));
	if (o->json)
		rc = rk_buf_adds(&b, "[");
	else if (n)
		rc = rk_buf_addf(&b, "%-40s %9s %12s  %s\n", "RUN", "ARTIFACTS", "SIZE", "TARGETS");
	for (size_t i = 0; !rc && i < n; i++) {
		const struct rk_run *r;

		if ((rc = rk_vfs_run(v, names[i], &r, &err))) {
			failed = rp_fail("'%s': %s", names[i], rk_err_str(&err, rc));
			rc = 0; /* the other runs are still listed; the exit status says it */
			continue;
		}
		if (o->json) {
			rc = rk_buf_addf(&b, "%s\n {\"run\": ", printed++ ? "," : "") ||
			     rk_buf_add_json_str(&b, names[i]) ||
			     rk_buf_addf(&b,
					 ", \"artifacts\": %zu, \"bytes\": %llu, \"targets\": [",
					 r->narts, (unsigned long long)total_size(r));
			for (size_t t = 0; !rc && t < r->ntargets; t++)
				rc = rk_buf_adds(&b, t ? ", " : "") ||
				     rk_buf_add_json_str(&b, r->targets[t]);
			rc = rc || rk_buf_adds(&b, "]}");
		} else {
			rk_size_format(total_size(r), sz, sizeof(sz));
			rc = rk_buf_addf(&b, "%-40s %9zu %12s ", names[i], r->narts, sz);
			for (size_t t = 0; !rc && t < r->ntargets; t++)
				rc = rk_buf_addf(&b, " %s", r->targets[t]);
			rc = rc || rk_buf_adds(&b, "\n");
		}
	}
	if (!rc && o->json)
		rc = rk_buf_adds(&b, "\n]\n");
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return print_buf(&b, rc ? -1 : 0) || failed;
}

static int ls_run(const struct rp_opts *o, struct rk_vfs *v, const char *name)
{
	struct rk_err err = RK_ERR_INIT;
	struct rk_buf b = RK_BUF_INIT;
	struct rk_manifest m = {0};
	const struct rk_run *r;
	int rc = rk_vfs_run(v, name, &r, &err), have_m;
	char sz[32];

	if (rc)
		return rp_fail("%s", rk_err_str(&err, rc));
	have_m = !rk_vfs_run_manifest(v, name, &m, &err);
	if (o->json) {
		rc = rk_buf_adds(&b, "{\"run\": ") || rk_buf_add_json_str(&b, r->name) ||
		     rk_buf_adds(&b, ", \"manifest\": ");
		if (!rc && have_m) {
			rc = rk_buf_adds(&b, "{\"rocm_package_version\": ") ||
			     (m.rocm_package_version
				      ? rk_buf_add_json_str(&b, m.rocm_package_version)
				      : rk_buf_adds(&b, "null")) ||
			     rk_buf_adds(&b, ", \"the_rock_commit\": ") ||
			     (m.the_rock_commit ? rk_buf_add_json_str(&b, m.the_rock_commit)
						: rk_buf_adds(&b, "null")) ||
			     rk_buf_adds(&b, ", \"flags\": {");
			for (size_t i = 0; !rc && i < m.nflags; i++)
				rc = rk_buf_adds(&b, i ? ", " : "") ||
				     rk_buf_add_json_str(&b, m.flags[i].name) ||
				     (m.flags[i].is_bool
					      ? rk_buf_addf(&b, ": %s",
							    m.flags[i].value ? "true" : "false")
					      : rk_buf_addf(&b, ": %lld", m.flags[i].value));
			rc = rc || rk_buf_adds(&b, "}}");
		} else if (!rc) {
			rc = rk_buf_adds(&b, "null");
		}
		rc = rc || rk_buf_adds(&b, ", \"kpack_split\": ") ||
		     rk_buf_adds(&b, have_m && m.kpack_split ? "true" : "false") ||
		     rk_buf_adds(&b, ", \"targets\": [");
		for (size_t t = 0; !rc && t < r->ntargets; t++)
			rc = rk_buf_adds(&b, t ? ", " : "") ||
			     rk_buf_add_json_str(&b, r->targets[t]);
		rc = rc || rk_buf_adds(&b, "], \"artifacts\": [");
		for (size_t i = 0; !rc && i < r->narts; i++) {
			const struct rk_artifact *a = &r->arts[i];

			rc = rk_buf_adds(&b, i ? ",\n  {\"name\": " : "\n  {\"name\": ") ||
			     rk_buf_add_json_str(&b, a->an.name) ||
			     rk_buf_adds(&b, ", \"component\": ") ||
			     rk_buf_add_json_str(&b, a->an.component) ||
			     rk_buf_adds(&b, ", \"target\": ") ||
			     rk_buf_add_json_str(&b, a->an.target) ||
			     rk_buf_adds(&b, ", \"file\": ") || rk_buf_add_json_str(&b, a->file) ||
			     rk_buf_addf(&b, ", \"bytes\": %llu, \"sha256sum\": %s}",
					 (unsigned long long)a->size,
					 a->sidecar ? "true" : "false");
		}
		rc = rc || rk_buf_adds(&b, "\n]}\n");
	} else {
		rc = rk_buf_addf(&b, "run      %s\nversion  %s\nkpack    %s\ntargets ", r->name,
				 have_m && m.rocm_package_version ? m.rocm_package_version : "?",
				 !have_m	 ? "unknown (no therock_manifest.json)"
				 : m.kpack_split ? "split (KPACK_SPLIT_ARTIFACTS on)"
						 : "legacy (fat binaries)");
		for (size_t t = 0; !rc && t < r->ntargets; t++)
			rc = rk_buf_addf(&b, " %s", r->targets[t]);
		rc = rc || rk_buf_addf(&b, "\n\n%-40s %-5s %-16s %10s  %s\n", "ARTIFACT", "COMP",
				       "TARGET", "SIZE", "FILE");
		for (size_t i = 0; !rc && i < r->narts; i++) {
			const struct rk_artifact *a = &r->arts[i];

			rk_size_format(a->size, sz, sizeof(sz));
			rc = rk_buf_addf(&b, "%-40s %-5s %-16s %10s  %s%s\n", a->stem,
					 a->an.component, a->an.target, sz, a->file,
					 a->sidecar ? "" : " (no sha256sum)");
		}
	}
	if (have_m)
		rk_manifest_release(&m);
	return print_buf(&b, rc ? -1 : 0);
}

/* ls STORE RUN PATH: the names in the view directory RUN/PATH, one a line, directories
 * with a trailing '/' (what shell completion offers); with --json a JSON array. The
 * filler runs under the tree lock: it only copies. */
static int add_name(void *ctx, const char *name, const struct rk_attr *a, uint64_t next)
{
	struct rk_buf *b = ctx;

	(void)next;
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return 0;
	return rk_buf_addf(b, "%s%s\n", name, S_ISDIR(a->mode) ? "/" : "") ? -ENOMEM : 0;
}

static int ls_path(const struct rp_opts *o, struct rk_vfs *v, const char *run, const char *rel)
{
	struct rk_err err = RK_ERR_INIT;
	struct rk_buf path = RK_BUF_INIT, names = RK_BUF_INIT, b = RK_BUF_INIT;
	const struct rk_run *r;
	struct rk_attr a;
	int rc = rk_vfs_run(v, strcmp(run, ".") ? run : "", &r, &err);

	while (*rel == '/')
		rel++;
	if (!rc && rk_buf_addf(&path, "%s%s%s", r->path, r->path[0] && *rel ? "/" : "", rel))
		rc = -ENOMEM;
	if (!rc)
		rc = rk_vfs_resolve(v, path.buf, &a, &err);
	if (!rc && !S_ISDIR(a.mode))
		rc = -ENOTDIR;
	if (!rc)
		rc = rk_vfs_readdir_all(v, a.ino, add_name, &names, &err);
	rk_buf_release(&path);
	if (rc) {
		rk_buf_release(&names);
		return rp_fail("%s: %s", *rel ? rel : run,
			       rc == -ENOENT || rc == -ENOTDIR ? strerror(-rc)
							       : rk_err_str(&err, rc));
	}
	if (!o->json) {
		rc = names.len ? rk_buf_addf(&b, "%s", names.buf) : 0;
	} else {
		int n = 0;

		rc = rk_buf_adds(&b, "[");
		for (char *p = names.buf, *nl; !rc && p && (nl = strchr(p, '\n')); p = nl + 1) {
			*nl = '\0';
			rc = rk_buf_adds(&b, n++ ? ", " : "") || rk_buf_add_json_str(&b, p);
		}
		rc = rc || rk_buf_adds(&b, "]\n");
	}
	rk_buf_release(&names);
	return print_buf(&b, rc ? -1 : 0);
}

static int cmd_ls(const struct rp_opts *o, int argc, char **argv)
{
	struct rk_vfs *v;
	int rc;

	for (int i = 0; i < argc; i++)
		if (rp_is_option(argv[i]))
			return rp_usage(o, "ls: unknown option '%s'", argv[i]);
	if (argc < 1 || argc > 3)
		return rp_usage(o, "usage: rockpack ls STORE [RUN [PATH]] [--json]");
	if (rp_open(o, argv[0], &v))
		return 1;
	rc = argc == 3	 ? ls_path(o, v, argv[1], argv[2])
	     : argc == 2 ? ls_run(o, v, argv[1])
			 : ls_runs(o, v);
	rk_vfs_close(v);
	return rc;
}

const struct rp_command rp_cmd_ls = {
	"ls",
	cmd_ls,
	"list the runs of a store, or the artifacts of one run",
	"usage: rockpack ls STORE [RUN [PATH]] [--json]\n"
	"\n"
	"Without RUN: every run of STORE with its artifact count, total size and GPU\n"
	"targets. With RUN: its version, kpack mode, targets and every artifact.\n"
	"With PATH: the names in the view directory RUN/PATH (dist, browse/A/...), one a\n"
	"line, directories with a trailing '/' (what shell completion offers).\n"
	"--json prints the same as JSON.\n",
	NULL,
};
