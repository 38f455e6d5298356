/* cmd_cache.c: rockpack cache stats|gc|verify. */
#include <stdio.h>
#include <string.h>

#include "rk/cache.h"
#include "rk/size.h"
#include "rk/store.h"
#include "cli_util.h"
#include "rockpack.h"

/* rockpack cache refresh RUN: the next listing of RUN (in any remote store) asks the
 * server again. RUN may be given as org/run. */
static int cache_refresh(const struct rp_opts *o, const char *run)
{
	struct rk_err err = RK_ERR_INIT;
	const char *slash = strrchr(run, '/');
	struct rk_cache *c;
	char dir[4096];
	int rc;

	if (slash)
		run = slash + 1;
	if (!o->cache_dir && rk_cache_default_dir(dir, sizeof(dir)))
		return rp_fail("cannot find a cache directory: set --cache");
	rc = rk_cache_open_shared(o->cache_dir ? o->cache_dir : dir, 0, o->cache_group, &c, &err);
	if (rc)
		return rp_fail("%s", rk_err_str(&err, rc));
	rc = rk_store_refresh_run(c, run, &err);
	rk_cache_close(c);
	if (rc < 0)
		return rp_fail("cache refresh: %s", rk_err_str(&err, rc));
	if (!o->quiet)
		printf("%s: %d cached listing%s forgotten\n", run, rc, rc == 1 ? "" : "s");
	return 0;
}

static int cmd_cache(const struct rp_opts *o, int argc, char **argv)
{
	struct rk_err err = RK_ERR_INIT;
	struct rk_cache_stats st;
	struct rk_cache *c;
	char dir[4096], a[32], b[32];
	int rc, ret = 0;

	for (int i = 0; i < argc; i++)
		if (rp_is_option(argv[i]))
			return rp_usage(o, "cache: unknown option '%s'", argv[i]);
	if (argc == 2 && !strcmp(argv[0], "refresh"))
		return cache_refresh(o, argv[1]);
	if (argc != 1 ||
	    (strcmp(argv[0], "stats") && strcmp(argv[0], "gc") && strcmp(argv[0], "verify")))
		return rp_usage(o, "usage: rockpack [--cache DIR] [--cache-size SIZE] cache "
				   "stats|gc|verify|refresh RUN");
	if (!strcmp(argv[0], "gc") && !o->cache_limit)
		return rp_usage(o, "cache gc: give the size to shrink to with --cache-size");
	if (!o->cache_dir && rk_cache_default_dir(dir, sizeof(dir)))
		return rp_fail("cannot find a cache directory: set --cache");
	rc = rk_cache_open_shared(o->cache_dir ? o->cache_dir : dir, 0, o->cache_group, &c, &err);
	if (rc)
		return rp_fail("%s", rk_err_str(&err, rc));
	if (!strcmp(argv[0], "stats"))
		rc = rk_cache_stats(c, &st, &err);
	else if (!strcmp(argv[0], "gc"))
		rc = rk_cache_gc(c, o->cache_limit, &st, &err);
	else
		rc = rk_cache_verify(c, &st, &err);
	if (rc) {
		ret = rp_fail("cache %s: %s", argv[0], rk_err_str(&err, rc));
	} else if (o->json) {
		printf("{\"dir\": \"%s\", \"blobs\": %llu, \"blob_bytes\": %llu, \"indexes\": "
		       "%llu, "
		       "\"evicted\": %llu, \"evicted_bytes\": %llu, \"bad\": %llu",
		       rk_cache_dir(c), (unsigned long long)st.blobs,
		       (unsigned long long)st.blob_bytes, (unsigned long long)st.indexes,
		       (unsigned long long)st.evicted, (unsigned long long)st.evicted_bytes,
		       (unsigned long long)st.bad);
		if (!strcmp(argv[0], "verify")) {
			printf(", \"bad_blobs\": %llu, \"records\": {",
			       (unsigned long long)st.bad_blobs);
			for (size_t k = 0; k < RK_CACHE_KINDS; k++)
				printf("%s\"%s\": {\"count\": %llu, \"bad\": %llu}", k ? ", " : "",
				       rk_cache_kinds[k], (unsigned long long)st.records[k],
				       (unsigned long long)st.bad_records[k]);
			printf("}");
		}
		printf("}\n");
	} else {
		rk_size_format(st.blob_bytes, a, sizeof(a));
		printf("cache   %s\nblobs   %llu (%s)\n", rk_cache_dir(c),
		       (unsigned long long)st.blobs, a);
		if (!strcmp(argv[0], "stats"))
			printf("indexes %llu\n", (unsigned long long)st.indexes);
		if (!strcmp(argv[0], "gc")) {
			rk_size_format(st.evicted_bytes, b, sizeof(b));
			printf("evicted %llu (%s)\n", (unsigned long long)st.evicted, b);
		}
		if (!strcmp(argv[0], "verify")) {
			printf("        %llu bad\n", (unsigned long long)st.bad_blobs);
			for (size_t k = 0; k < RK_CACHE_KINDS; k++)
				printf("%-7s %llu records, %llu bad\n", rk_cache_kinds[k],
				       (unsigned long long)st.records[k],
				       (unsigned long long)st.bad_records[k]);
			printf("bad     %llu%s\n", (unsigned long long)st.bad,
			       st.bad ? " (deleted; they are re-created on next use)" : "");
		}
	}
	if (!rc && !strcmp(argv[0], "verify") && st.bad)
		ret = 1;
	rk_cache_close(c);
	return ret;
}

const struct rp_command rp_cmd_cache = {
	"cache",
	cmd_cache,
	"inspect, shrink or check the cache; forget a run's listings",
	"usage: rockpack cache stats|gc|verify\n"
	"       rockpack cache refresh RUN\n"
	"\n"
	"stats    the cache's directory, cached contents and size\n"
	"gc       evict least recently used contents down to --cache-size SIZE\n"
	"verify   re-hash every cached file and record, delete the bad ones (exit 1 if any)\n"
	"refresh  forget the cached listings of RUN (or org/RUN) for every remote store,\n"
	"         so that the next listing asks the server again (running mounts on\n"
	"         this cache too, within their list_ttl)\n"
	"The cache is --cache DIR (default ~/.cache/rockfs).\n",
	NULL,
};
