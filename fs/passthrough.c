/* passthrough.c: FUSE passthrough of plain files (kernel 6.9+, libfuse 3.17+). A file
 * whose whole content is one descriptor from offset 0 (a cache blob, a local store
 * object: rk_file_backing) is opened with a backing id: the kernel then reads that
 * descriptor itself, no READ reaches the daemon, and its pages are cached once (the
 * backing file's), not twice. Everything else (composites, bytes in memory, remote
 * objects, a member still streaming behind its ingest) is opened as before and read by
 * inode (files.c). A passthrough mount answers OPEN (a mount that cannot pass through
 * answers ENOSYS and saves the round trips: ops.c).
 *
 * The kernel's rules, which the table here keeps: every open of an inode that is open
 * with a backing file uses the same backing file (another id: EIO at open), and no inode
 * is open with and without passthrough at once (EIO too). So each inode open through
 * the daemon has one entry: its backing id and how many opens use it, or how many opens
 * read it by inode; a member opened while it streamed keeps its later opens off
 * passthrough until the last of them is released. The id is closed with the last
 * release. A failure to make a backing id (the cache on a stacked filesystem: ELOOP)
 * turns passthrough off for the mount, with one log line. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk/log.h"
#include "rkfs.h"

#define PT_BITS 8

struct rkfs_pt {
	uint64_t ino;
	int backing_id; /* > 0 while opens use it */
	unsigned opens; /* passed through */
	unsigned cached; /* read by inode */
	struct rkfs_pt *next;
};

static struct rkfs_pt **bucket(struct rkfs_pts *t, uint64_t ino)
{
	return &t->buckets[(ino * 0x9E3779B97F4A7C15ull) >> (64 - PT_BITS)];
}

static struct rkfs_pt *find(struct rkfs_pts *t, uint64_t ino)
{
	struct rkfs_pt *e;

	for (e = *bucket(t, ino); e && e->ino != ino; e = e->next)
		;
	return e;
}

int rkfs_pt_init(struct rkfs_pts *t)
{
	if (!(t->buckets = calloc((size_t)1 << PT_BITS, sizeof(*t->buckets))))
		return -ENOMEM;
	return pthread_mutex_init(&t->lock, NULL) ? -ENOMEM : 0;
}

void rkfs_pt_fini(struct rkfs_pts *t)
{
	if (!t->buckets)
		return;
	for (size_t i = 0; i < (size_t)1 << PT_BITS; i++) {
		struct rkfs_pt *e = t->buckets[i], *next;

		for (; e; e = next) {
			next = e->next;
			free(e); /* (the kernel closes backing ids with the connection) */
		}
	}
	free(t->buckets);
	t->buckets = NULL;
	pthread_mutex_destroy(&t->lock);
}

#ifdef RKFS_HAVE_PASSTHROUGH
/* A backing id for fd, or 0 (passthrough is turned off for the mount: logged once). */
static int backing_open(struct rkfs *fs, fuse_req_t req, int fd)
{
	int id;

	errno = 0;
	if ((id = fuse_passthrough_open(req, fd)) > 0)
		return id;
	atomic_store(&fs->pt.state, RKFS_PT_REFUSED);
	rk_warn("passthrough: the kernel refused a backing file (%s%s); reads of plain files "
		"go through the daemon from now on",
		errno ? strerror(errno) : "no reason given",
		errno == ELOOP	 ? ": is the cache on a stacked filesystem, such as overlayfs?"
		: errno == EPERM ? ": the daemon needs CAP_SYS_ADMIN"
				 : "");
	return 0;
}
#endif

int rkfs_pt_open(struct rkfs *fs, fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct rkfs_pts *t = &fs->pt;
	struct rkfs_ifile *f;
	struct rkfs_pt *e;
	int fd, rc;

	if ((rc = rkfs_file_get(fs, ino, &f)))
		return rc;
	/* a member opened while it streamed is a blob once published: its file kept open
	 * by inode is the staged one still, so open it again */
	if ((fd = rk_file_backing(rkfs_file_of(f))) == -EAGAIN) {
		rkfs_file_forget(fs, f);
		rkfs_file_put(fs, f);
		if ((rc = rkfs_file_get(fs, ino, &f)))
			return rc;
		fd = rk_file_backing(rkfs_file_of(f));
	}
	/* O_DIRECT through a backing file takes the backing file's alignment rules (ext4:
	 * EINVAL for an odd offset or size): read through the daemon unless the inode is
	 * passed through already (the kernel then refuses any other kind of open) */
	if (fi->flags & O_DIRECT)
		fd = -1;
	pthread_mutex_lock(&t->lock);
	if (!(e = find(t, ino))) {
		if (!(e = calloc(1, sizeof(*e)))) {
			pthread_mutex_unlock(&t->lock);
			rkfs_file_put(fs, f);
			return -ENOMEM;
		}
		e->ino = ino;
		e->next = *bucket(t, ino);
		*bucket(t, ino) = e;
	}
#ifdef RKFS_HAVE_PASSTHROUGH
	/* (the ioctl under the lock: two first opens of one inode must share one id) */
	if (!e->cached && !e->backing_id && fd >= 0 && atomic_load(&t->state) == RKFS_PT_ON)
		e->backing_id = backing_open(fs, req, fd);
#else
	(void)req, (void)fd; /* (backing_id stays 0) */
#endif
	if (e->backing_id) {
		e->opens++;
		atomic_fetch_add(&t->opened, 1);
#ifdef RKFS_HAVE_PASSTHROUGH
		fi->backing_id = e->backing_id;
#endif
		fi->keep_cache = 0; /* (refused with a backing file: the backing file's pages) */
		fi->fh = RKFS_FH_PASSTHROUGH;
	} else {
		e->cached++;
		fi->keep_cache = 1;
		fi->fh = RKFS_FH_BY_INO;
	}
	pthread_mutex_unlock(&t->lock);
	rkfs_file_put(fs, f);
	fi->noflush = 1;
	return 0;
}

void rkfs_pt_release(struct rkfs *fs, fuse_req_t req, fuse_ino_t ino, uint64_t fh)
{
	struct rkfs_pts *t = &fs->pt;
	struct rkfs_pt **p, *e;

	pthread_mutex_lock(&t->lock);
	for (p = bucket(t, ino); *p && (*p)->ino != ino; p = &(*p)->next)
		;
	if (!(e = *p)) {
		pthread_mutex_unlock(&t->lock);
		return;
	}
	if (fh == RKFS_FH_PASSTHROUGH && e->opens && !--e->opens) {
#ifdef RKFS_HAVE_PASSTHROUGH
		if (fuse_passthrough_close(req, e->backing_id) < 0)
			rk_debug("passthrough: closing backing id %d of inode %" PRIu64 " failed",
				 e->backing_id, (uint64_t)ino);
#endif
		e->backing_id = 0;
	} else if (fh == RKFS_FH_BY_INO && e->cached) {
		e->cached--;
	}
	if (!e->opens && !e->cached) {
		*p = e->next;
		free(e);
	}
	pthread_mutex_unlock(&t->lock);
	(void)req;
}

const char *rkfs_pt_state_text(int state)
{
	switch (state) {
	case RKFS_PT_ON:
		return "on";
	case RKFS_PT_OPTION:
		return "off (-o nopassthrough)";
	case RKFS_PT_BUILD:
		return "off (built with a libfuse without passthrough: 3.17 or later has it)";
	case RKFS_PT_KERNEL:
		return "off (the kernel offers none: 6.9 or later, CONFIG_FUSE_PASSTHROUGH)";
	case RKFS_PT_CAP:
		return "off (the daemon lacks CAP_SYS_ADMIN)";
	case RKFS_PT_REFUSED:
		return "off (the kernel refused a backing file: see the log)";
	}
	return "off";
}
