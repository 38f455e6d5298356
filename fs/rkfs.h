/* rkfs.h: the daemon's shared state and its FUSE low-level operations table. */
#ifndef RKFS_H
#define RKFS_H

#define FUSE_USE_VERSION 312
#include <fuse_lowlevel.h>

#include <pthread.h>
#include <stdint.h>

#include "rk/vfs.h"

/* An open file: the kernel's fh points here. Listed so that files still open when the
 * daemon stops are freed too. */
struct rkfs_handle {
	struct rk_file *file;
	struct rkfs_handle *prev, *next; /* rkfs.lock */
};

/* Files open by inode (files.c), for reads that come without a handle. */
#define RKFS_FILES_BITS 8
struct rkfs_ifile;
struct rkfs_files {
	pthread_mutex_t lock; /* protects: everything here, each listed file's refs */
	struct rkfs_ifile *buckets[1 << RKFS_FILES_BITS];
	struct rkfs_ifile *first, *last; /* used last first */
	unsigned n;
};

/* Passthrough (passthrough.c): the table of inodes open through the daemon, and the
 * mount's state. */
enum {
	RKFS_PT_ON, /* the kernel granted it: plain files are passed through */
	RKFS_PT_OPTION, /* off: -o nopassthrough */
	RKFS_PT_BUILD, /* off: the libfuse built against has no passthrough API */
	RKFS_PT_KERNEL, /* off: the kernel does not offer it */
	RKFS_PT_CAP, /* off: the daemon lacks CAP_SYS_ADMIN */
	RKFS_PT_REFUSED, /* off: the kernel refused a backing file (logged) */
};
struct rkfs_pt;
struct rkfs_pts {
	pthread_mutex_t lock; /* protects: the table */
	struct rkfs_pt **buckets;
	_Atomic int state; /* RKFS_PT_* (set by main and init, then only turned off) */
	_Atomic uint64_t opened; /* opens passed through */
};

/* fi->fh of an open on a passthrough mount (anything above is a struct rkfs_handle): */
#define RKFS_FH_BY_INO 1 /* read by inode (files.c) */
#define RKFS_FH_PASSTHROUGH 2 /* passed through (no read comes; if one did: by inode) */

struct rkfs {
	struct rk_vfs *vfs; /* thread-safe; owns every inode */
	uid_t uid; /* reported owner of every file */
	gid_t gid;
	double timeout; /* entry/attr cache timeout: content never changes */
	double list_ttl; /* attr timeout of live directories (rk_attr.live); 0: never */
	int no_opendir; /* the kernel opens directories without asking (set by init) */
	int no_open; /* ... and files: reads come without a handle (set by init) */
	int passthrough; /* the kernel granted passthrough (init): opens go to passthrough.c */
	struct rkfs_pts pt;
	const char *mountpoint; /* absolute (libfuse resolves it) */
	/* the session, for the core's requests that the kernel forget an entry
	 * (rkfs_forget_entry); NULL once unmounting. notify_lock: read by each request,
	 * written by the unmount */
	struct fuse_session *_Atomic se;
	pthread_rwlock_t notify_lock;
	struct {
		_Atomic int done; /* the first request after INIT has been seen */
		_Atomic int kb; /* the read-ahead it set (readahead.c); 0: the kernel's */
	} ra;
	const char *store; /* as given on the command line, its password hidden: for status */
	pthread_mutex_t lock; /* protects: handles */
	struct rkfs_handle *handles;
	struct rkfs_files files;
	pthread_mutex_t status_lock; /* protects: the status text last reported */
	char status[4096];
	size_t status_len;
	uint64_t status_gen; /* moves the file's mtime on, so the kernel reads it again */
};

/* Close every handle still open (after the session loop has ended). */
void rkfs_close_handles(struct rkfs *fs);

/* files.c: ino's open file, opened now if it is not open yet (0 or -errno); give it
 * back with rkfs_file_put. rkfs_files_close closes all (after the session loop). */
int rkfs_file_get(struct rkfs *fs, uint64_t ino, struct rkfs_ifile **out);
struct rk_file *rkfs_file_of(const struct rkfs_ifile *e);
void rkfs_file_put(struct rkfs *fs, struct rkfs_ifile *e);
/* A read of e failed: the next read opens the file again (call before the put). */
void rkfs_file_forget(struct rkfs *fs, struct rkfs_ifile *e);
void rkfs_files_close(struct rkfs *fs);
/* The kernel forgot ino: its open file (if kept) is closed once no read uses it, so
 * that its run may be dropped (memory_target). */
void rkfs_file_drop(struct rkfs *fs, uint64_t ino);

/* passthrough.c: open ino on a mount with passthrough (state once RKFS_PT_ON): a
 * backing id when its content is one final descriptor, else read by inode; fills fi
 * (fh, backing_id, keep_cache). 0 or -errno. rkfs_pt_release: its release (fh as set). */
int rkfs_pt_init(struct rkfs_pts *t);
void rkfs_pt_fini(struct rkfs_pts *t);
int rkfs_pt_open(struct rkfs *fs, fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void rkfs_pt_release(struct rkfs *fs, fuse_req_t req, fuse_ino_t ino, uint64_t fh);
const char *rkfs_pt_state_text(int state);

/* rk_vfs_opts.forget_entry (ops.c): ask the kernel to forget parent's entry name
 * (ctx: the struct rkfs; 0 or -errno). rkfs_notify_stop: no request after it (before
 * unmounting). */
int rkfs_forget_entry(void *ctx, uint64_t parent, const char *name);
void rkfs_notify_stop(struct rkfs *fs);

/* readahead.c: at the first request after INIT (lookup, getattr, readdir), raise the
 * mount's read-ahead on a passthrough mount (once; a failure is logged). */
#define RKFS_READAHEAD_KB 1024
void rkfs_readahead_first_request(struct rkfs *fs);

extern const struct fuse_lowlevel_ops rkfs_ops;

/* status.c: the status text ("key: value" lines) into buf; returns its length (at most
 * size). ops.c serves it as MOUNTPOINT/.rockfs-status (inode RKFS_STATUS_INO, not
 * listed). */
#define RKFS_STATUS_NAME ".rockfs-status"
#define RKFS_STATUS_INO 2 /* below RK_FIRST_INO: never an engine inode */
size_t rkfs_status_text(const struct rkfs *fs, char *buf, size_t size);

#endif
