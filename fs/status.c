/* status.c: what a running daemon is doing, as the text of the mount root's hidden file
 * .rockfs-status (one "key: value" line each; ops.c serves it, not listed): `cat
 * MOUNTPOINT/.rockfs-status`, or `rockpack status MOUNTPOINT`. Not extended attributes:
 * answering getxattr at all makes the kernel ask on every inode (`ls -l` asks three
 * times per entry, `cp -a` four), so the daemon answers ENOSYS and the kernel stops.
 * Uses rk_vfs_stats; nothing here changes state. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "rk/cache.h"
#include "rkfs.h"

/* One line: its key and value, from one snapshot of the counters. */
struct field {
	const char *name;
	int text; /* 1: s below, else n */
	const char *s;
	uint64_t n;
};

static size_t fields(const struct rkfs *fs, struct field *f)
{
	struct rk_vfs_stats st;
	size_t i = 0;

	rk_vfs_stats(fs->vfs, &st);
#define S(k, v) f[i++] = (struct field){k, 1, v, 0}
#define N(k, v)                 \
	f[i++] = (struct field) \
	{                       \
		k, 0, NULL, v   \
	}
	S("version", ROCKFS_VERSION);
	S("store", fs->store);
	S("cache", rk_cache_dir(rk_vfs_cache(fs->vfs)));
	N("uptime", st.uptime_s);
	N("runs", st.runs);
	N("ingests_running", st.ingests_running);
	N("ingests_waiting", st.ingests_waiting);
	N("ingests_done", st.ingests);
	N("index_loads", st.index_loads);
	N("read_ahead", st.read_ahead);
	N("read_ahead_pieces", st.read_ahead_pieces);
	N("errors_archive", st.ingest_failures);
	N("errors_transient", st.transient_failures);
	N("errors_cache", st.cache_discarded);
	N("remote_requests", st.remote_requests);
	N("remote_bytes", st.remote_bytes);
	N("cache_limit", st.cache_limit);
	N("cache_used", st.cache_used);
	N("cache_written", st.cache_written);
	N("nodes", st.nodes);
	S("passthrough", rkfs_pt_state_text(atomic_load(&fs->pt.state)));
	N("passthrough_opens", atomic_load(&fs->pt.opened));
	N("mount_read_ahead_kb", (uint64_t)atomic_load(&fs->ra.kb));
	N("memory_target", st.mem_target);
	N("memory_used", st.mem_used);
	N("memory_nodes", st.mem_nodes);
	N("memory_listings", st.mem_listings);
	N("memory_indexes", st.mem_indexes);
	N("runs_loaded", st.runs_loaded);
	N("runs_dropped", st.runs_dropped);
	N("runs_rebuilt", st.runs_rebuilt);
#undef S
#undef N
	return i;
}

#define NFIELDS 40

static int put(char *buf, size_t size, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int put(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf + *len, *len < size ? size - *len : 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	*len += (size_t)n;
	return 0;
}

size_t rkfs_status_text(const struct rkfs *fs, char *buf, size_t size)
{
	struct field f[NFIELDS];
	size_t n = fields(fs, f), len = 0;

	for (size_t i = 0; i < n; i++) {
		if (f[i].text)
			put(buf, size, &len, "%s: %s\n", f[i].name, f[i].s);
		else
			put(buf, size, &len, "%s: %" PRIu64 "\n", f[i].name, f[i].n);
	}
	return len < size ? len : size;
}
