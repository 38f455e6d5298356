/* cmd_prefetch.c: rockpack prefetch STORE RUN: ingest every artifact, with progress. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rk/size.h"
#include "cli_util.h"
#include "rockpack.h"

static void progress(void *ctx, uint64_t done, uint64_t total, unsigned finished, unsigned count)
{
	int width = 30, fill = total ? (int)((double)done / (double)total * width) : width;
	char d[32], t[32];

	(void)ctx;
	rk_size_format(done, d, sizeof(d));
	rk_size_format(total, t, sizeof(t));
	fprintf(stderr, "\r[%.*s%*s] %3d%%  %u/%u artifacts  %s / %s ", fill,
		"##############################", width - fill, "",
		total ? (int)(100.0 * (double)done / (double)total) : 100, finished, count, d, t);
	fflush(stderr);
}

int cmd_prefetch(const struct rp_opts *o, int argc, char **argv)
{
	struct rk_err err = RK_ERR_INIT;
	struct rk_vfs_stats st;
	struct rk_vfs *v;
	int rc, tty = isatty(STDERR_FILENO) && !o->quiet;

	if (argc != 2)
		return rp_fail("usage: rockpack prefetch STORE RUN");
	if (rp_open(o, argv[0], &v))
		return 1;
	rc = rk_vfs_prefetch(v, strcmp(argv[1], ".") ? argv[1] : "", tty ? progress : NULL, NULL,
			     &err);
	rk_vfs_stats(v, &st);
	if (tty && st.ingests + st.index_loads + st.ingest_failures)
		fputc('\n', stderr);
	if (!o->quiet && st.ingests + st.index_loads + st.ingest_failures)
		fprintf(stderr, "prefetch: %llu decompressed, %llu already cached, %llu failed\n",
			(unsigned long long)st.ingests, (unsigned long long)st.index_loads,
			(unsigned long long)st.ingest_failures);
	rk_vfs_close(v);
	return rc ? rp_fail("%s", rk_err_str(&err, rc)) : 0;
}
