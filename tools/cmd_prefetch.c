/* cmd_prefetch.c: rockpack prefetch STORE RUN: ingest every artifact, with progress. */
#include <stdio.h>
#include <string.h>

#include "rk/cache.h"
#include "cli_progress.h"
#include "rockpack.h"

static void progress(void *ctx, uint64_t done, uint64_t total, unsigned finished, unsigned count)
{
	rp_progress_set(ctx, done, total, finished, count);
}

static int cmd_prefetch(const struct rp_opts *o, int argc, char **argv)
{
	struct rk_err err = RK_ERR_INIT;
	struct rk_vfs_stats st;
	struct rp_progress p;
	struct rk_vfs *v;
	char extra[160], json[160], dir[4096];
	int rc, ret = 0;

	for (int i = 0; i < argc; i++)
		if (rp_is_option(argv[i]))
			return rp_usage(o, "prefetch: unknown option '%s'", argv[i]);
	if (argc != 2)
		return rp_usage(o, "usage: rockpack prefetch STORE RUN");
	if (rp_open(o, argv[0], &v))
		return 1;
	rp_progress_init(&p, o, "artifacts");
	rc = rk_vfs_prefetch(v, strcmp(argv[1], ".") ? argv[1] : "", progress, &p, &err);
	rk_vfs_stats(v, &st);
	snprintf(dir, sizeof(dir), "%s", rk_cache_dir(rk_vfs_cache(v)));
	rk_vfs_close(v);
	if (rc) {
		rp_progress_finish(&p);
		return rp_fail("%s", rk_err_str(&err, rc));
	}
	snprintf(extra, sizeof(extra), "%llu decompressed, %llu already cached, %llu failed",
		 (unsigned long long)st.ingests, (unsigned long long)st.index_loads,
		 (unsigned long long)st.ingest_failures);
	if (o->json) {
		snprintf(json, sizeof(json),
			 ", \"decompressed\": %llu, \"cached\": %llu, \"failed\": %llu",
			 (unsigned long long)st.ingests, (unsigned long long)st.index_loads,
			 (unsigned long long)st.ingest_failures);
		ret = rp_progress_end(&p, 0, dir, NULL, json);
	} else {
		rp_progress_finish(&p);
		if (!o->quiet)
			fprintf(stderr, "prefetch: %s\n", extra);
	}
	return ret;
}

const struct rp_command rp_cmd_prefetch = {
	"prefetch",
	cmd_prefetch,
	"decompress every artifact of a run into the cache",
	"usage: rockpack prefetch STORE RUN\n"
	"\n"
	"Decompress (for a remote store: download and decompress) every artifact of RUN\n"
	"into the cache, --jobs at a time, so that a mount (even -o offline) serves it\n"
	"without decompressing. Progress on a terminal; a summary line at the end, or with\n"
	"--json a summary object on stdout.\n",
	NULL,
};
