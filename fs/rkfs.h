/* rkfs.h: the daemon's shared state and its FUSE low-level operations table. */
#ifndef RKFS_H
#define RKFS_H

#define FUSE_USE_VERSION 312
#include <fuse_lowlevel.h>

#include <pthread.h>

#include "rk/vfs.h"

/* An open file: the kernel's fh points here. Listed so that files still open when the
 * daemon stops are freed too. */
struct rkfs_handle {
	struct rk_file *file;
	struct rkfs_handle *prev, *next; /* rkfs.lock */
};

struct rkfs {
	struct rk_vfs *vfs; /* thread-safe; owns every inode */
	uid_t uid; /* reported owner of every file */
	gid_t gid;
	double timeout; /* entry/attr cache timeout: content never changes */
	double list_ttl; /* attr timeout of live directories (rk_attr.live); 0: never */
	int no_opendir; /* the kernel opens directories without asking (set by init) */
	const char *store; /* as given on the command line, for status */
	pthread_mutex_t lock; /* protects: handles */
	struct rkfs_handle *handles;
};

/* Close every handle still open (after the session loop has ended). */
void rkfs_close_handles(struct rkfs *fs);

extern const struct fuse_lowlevel_ops rkfs_ops;

/* status.c: the value of status attribute name ("user.rockfs.X") into buf, its length
 * (which may exceed size: then buf holds a prefix) in *len; -1 for another name. */
int rkfs_status_get(const struct rkfs *fs, const char *name, char *buf, size_t size, size_t *len);
/* The attribute names, NUL-terminated one after another; returns their length. */
size_t rkfs_status_list(const struct rkfs *fs, char *buf, size_t size);

#endif
