/* rockpack.h: the CLI's shared pieces. Commands live in cmd_<name>.c. */
#ifndef ROCKPACK_H
#define ROCKPACK_H

#include <stddef.h>

#include "rk/vfs.h"

struct rp_opts {
	const char *cache_dir; /* --cache */
	uint64_t cache_limit; /* --cache-size */
	unsigned jobs; /* --jobs */
	int json; /* --json */
	int quiet; /* -q */
	int kpack_zstd; /* split: .kpack archives compressed per kernel */
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

/* Write the view at path (a directory's contents, or a file) into directory out
 * (created if missing); shown names it in messages. 0, or 1 after printing why. */
int rp_export(struct rk_vfs *v, const struct rp_opts *o, const char *path, const char *shown,
	      const char *out);

int cmd_ls(const struct rp_opts *o, int argc, char **argv);
int cmd_cat(const struct rp_opts *o, int argc, char **argv);
int cmd_cache(const struct rp_opts *o, int argc, char **argv);
int cmd_prefetch(const struct rp_opts *o, int argc, char **argv);
int cmd_export(const struct rp_opts *o, int argc, char **argv);
int cmd_split(const struct rp_opts *o, int argc, char **argv);
int cmd_recombine(const struct rp_opts *o, int argc, char **argv);
int cmd_verify(const struct rp_opts *o, int argc, char **argv);
int cmd_kpack(const struct rp_opts *o, int argc, char **argv);
int cmd_wheels(const struct rp_opts *o, int argc, char **argv);

#endif
