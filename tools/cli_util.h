/* cli_util.h: what every rockpack command shares (cli_util.c): the global options
 * (struct rp_opts, filled by main.c), failure messages, writes, file maps and opening
 * the views of a store. A leaf: it uses the core library and libc, never main.c or a
 * command. */
#ifndef ROCKPACK_CLI_UTIL_H
#define ROCKPACK_CLI_UTIL_H

#include <stddef.h>

#include "rk/vfs.h"

struct rp_opts {
	const char *cache_dir; /* --cache */
	const char *cache_group; /* --cache-group: a shared cache (rk/cache.h) */
	uint64_t cache_limit; /* --cache-size */
	unsigned jobs; /* --jobs */
	int json; /* --json */
	int quiet; /* -q */
	int kpack_zstd; /* split: .kpack archives compressed per kernel */
	const char *package_defs; /* packages: --packages FILE (rk/pkgdefs.h) */
	const char *sign_key; /* packages: --sign-key KEY */
	int packages_multiarch; /* packages: --multiarch */
	struct rk_store_opts remote; /* --endpoint, --region, --offline, ... */
};

/* Print "rockpack: <msg>" on stderr and return 1 (the exit code of a failed command). */
int rp_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Write all of p to fd. 0 or -errno. */
int rp_write_all(int fd, const char *p, size_t n);
/* A read-only map of a whole regular, non-empty file (MADV_RANDOM: the kpack tools read
 * headers through it, not every page). 0, or -errno (-EINVAL: not a regular, non-empty
 * file); nothing printed. */
struct rp_map {
	void *p;
	size_t n;
};
int rp_map(const char *path, struct rp_map *m);
void rp_unmap(struct rp_map *m);
/* Open the views of store, or print why not and return non-zero. */
int rp_open(const struct rp_opts *o, const char *store, struct rk_vfs **out);

#endif
