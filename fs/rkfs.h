/* rkfs.h: the daemon's shared state and its FUSE low-level operations table. */
#ifndef RKFS_H
#define RKFS_H

#define FUSE_USE_VERSION 312
#include <fuse_lowlevel.h>

#include "rk/vfs.h"

struct rkfs {
	struct rk_vfs *vfs; /* thread-safe; owns every inode */
	uid_t uid; /* reported owner of every file */
	gid_t gid;
	double timeout; /* entry/attr cache timeout: content never changes */
};

extern const struct fuse_lowlevel_ops rkfs_ops;

#endif
