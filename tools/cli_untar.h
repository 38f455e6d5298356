/* cli_untar.h: a tarball extracted into a directory, safely (cli_untar.c), for rockpack
 * install --release. A leaf below the commands: uses cli_util.c, cli_progress.c,
 * libarchive and libc. */
#ifndef ROCKPACK_CLI_UNTAR_H
#define ROCKPACK_CLI_UNTAR_H

#include <stdint.h>
#include <sys/types.h>

#include "cli_progress.h"

/* Where the tarball's bytes come from: pread(ctx, buf, n, off) returns the bytes read
 * (0 at the end) or -errno. */
struct rp_untar_src {
	ssize_t (*pread)(void *ctx, void *buf, size_t n, uint64_t off);
	void *ctx;
	uint64_t size;
};

/* Extract the tar (compressed or not, as libarchive reads it) into directory out
 * (created if missing; it must not hold the names written), as Python's
 * tarfile.extractall(out, filter="tar") does for TheRock's tarballs: a leading '/' is
 * dropped, modes lose the setuid/setgid/sticky and group/other write bits, files get
 * their mtimes, symlinks and hardlinks are made as links. Nothing is ever written
 * outside out: every entry is made relative to the descriptor of its directory, reached
 * from out one component at a time without following a symlink; an entry with a '..'
 * component, one whose path goes through a symlink or a file, a hardlink to a path that
 * is not a file already extracted, and device or fifo entries are refused (the
 * extraction fails, nothing is moved into out: rk/staging.h). shown names the tarball
 * in messages. 0, or 1 after printing why. */
int rp_untar(struct rp_progress *p, const struct rp_untar_src *src, const char *shown,
	     const char *out);

#endif
