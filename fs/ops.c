/* ops.c: FUSE low-level operations over struct rk_vfs.
 *
 * Every state lives in struct rkfs (fuse_req_userdata). Every entry handed to the kernel
 * (a lookup, a readdirplus entry with an inode) counts a reference in the engine, and
 * FORGET gives them back: a run whose nodes the kernel holds none of (and nobody has
 * open) may be dropped to honour memory_target, and is built again on its next lookup
 * (rk_vfs_forget; docs/internals/vfs.md "Node lifetime"). Content is
 * immutable: long entry/attr timeouts, keep_cache, cached readdir, and reads spliced
 * straight from cache files. Every write path answers EROFS.
 *
 * Directories are never opened: opendir answers ENOSYS, and the kernel then opens every
 * directory by itself, keeping its cached listing (no OPENDIR or RELEASEDIR round trip
 * per directory and walk). Directories listing the store's runs (rk_attr.live) are the
 * exception to "never changes": their attributes time out after list_ttl, a getattr
 * then lists the store again, and when runs were added their mtime has moved on, which
 * makes the kernel drop its cached listing (it compares the two). The names of runs in
 * them have entry timeouts of list_ttl: a lookup then may find the run changed in the
 * store and answer a new inode for it (the old one keeps serving what is open). Files
 * are not opened
 * either (open answers ENOSYS): reads come without a handle and find their file by inode
 * (files.c). Both fall back to opening when the kernel cannot do without. A mount with
 * FUSE passthrough answers opens (passthrough.c): a plain file's open gives the kernel
 * its cache blob to read itself; other files are still read by inode. */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "rk/log.h"
#include "rkfs.h"

static struct rkfs *fs_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

static void to_stat(const struct rkfs *fs, const struct rk_attr *a, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = a->ino;
	st->st_mode = a->mode;
	st->st_nlink = a->nlink;
	st->st_size = (off_t)a->size;
	st->st_blksize = 128 * 1024;
	st->st_blocks = (blkcnt_t)((a->size + 511) / 512);
	st->st_uid = fs->uid;
	st->st_gid = fs->gid;
	st->st_mtim.tv_sec = a->mtime;
	st->st_ctim.tv_sec = a->mtime;
	st->st_atim.tv_sec = a->mtime;
}

/* How long the kernel may keep a's attributes: a live directory's mtime changes. */
static double attr_timeout(const struct rkfs *fs, const struct rk_attr *a)
{
	return a->live && fs->list_ttl ? fs->list_ttl : fs->timeout;
}

/* How long the kernel may keep the entry for a: a run's name may be given a new inode
 * when the run changes in the store (rk_attr.run). */
static double entry_timeout(const struct rkfs *fs, const struct rk_attr *a)
{
	return a->run && fs->list_ttl ? fs->list_ttl : fs->timeout;
}

static void reply_err(fuse_req_t req, int rc)
{
	fuse_reply_err(req, rc < 0 ? -rc : EIO);
}

static void rkfs_op_init(void *userdata, struct fuse_conn_info *conn)
{
	struct rkfs *fs = userdata;

#ifdef RKFS_HAVE_PASSTHROUGH
	/* passthrough.c: plain files read by the kernel from their blobs; opens are then
	 * answered (a backing id is given at open) */
	if (atomic_load(&fs->pt.state) == RKFS_PT_ON) {
		if (conn->capable & FUSE_CAP_PASSTHROUGH) {
			conn->want |= FUSE_CAP_PASSTHROUGH;
			fs->passthrough = 1;
		} else {
			atomic_store(&fs->pt.state, RKFS_PT_KERNEL);
		}
	}
#endif
	rk_info("FUSE passthrough: %s", rkfs_pt_state_text(atomic_load(&fs->pt.state)));
	if (!fs->passthrough && (conn->capable & FUSE_CAP_NO_OPEN_SUPPORT)) {
		conn->want |= FUSE_CAP_NO_OPEN_SUPPORT;
		fs->no_open = 1;
	}
	if (conn->capable & FUSE_CAP_NO_OPENDIR_SUPPORT) {
		conn->want |= FUSE_CAP_NO_OPENDIR_SUPPORT;
		fs->no_opendir = 1;
	}
	/* a readdir from the start asks for the directory's attributes when they have
	 * timed out (a live directory's mtime) */
	if (conn->capable & FUSE_CAP_AUTO_INVAL_DATA)
		conn->want |= FUSE_CAP_AUTO_INVAL_DATA;
	if (conn->capable & FUSE_CAP_SPLICE_WRITE)
		conn->want |= FUSE_CAP_SPLICE_WRITE;
	if (conn->capable & FUSE_CAP_SPLICE_MOVE)
		conn->want |= FUSE_CAP_SPLICE_MOVE;
	if (conn->capable & FUSE_CAP_CACHE_SYMLINKS)
		conn->want |= FUSE_CAP_CACHE_SYMLINKS;
	/* every readdir is a readdirplus: the entries' attributes come with the names (not
	 * only in the first reply, as the kernel's adaptive policy would do), so that a walk
	 * after a mount needs no lookup round trip per entry */
	if (conn->capable & FUSE_CAP_READDIRPLUS)
		conn->want |= FUSE_CAP_READDIRPLUS;
	conn->want &= ~FUSE_CAP_READDIRPLUS_AUTO;
	conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
	/* (an O_TRUNC open then truncates with a setattr, which answers EROFS: an open
	 * that is not sent must not truncate) */
	conn->want &= ~FUSE_CAP_ATOMIC_O_TRUNC;
	conn->max_background = 64;
	conn->congestion_threshold = 48;
}

/* The status file (status.c): every lookup and getattr takes a new snapshot of the text
 * and reports its size with an mtime moved on, attributes never cached (timeout 0); the
 * kernel then drops the pages it holds (FUSE_CAP_AUTO_INVAL_DATA) and a read is served
 * from that snapshot, so size and bytes agree. */
static void status_stat(struct rkfs *fs, struct stat *st)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	pthread_mutex_lock(&fs->status_lock);
	fs->status_len = rkfs_status_text(fs, fs->status, sizeof(fs->status));
	memset(st, 0, sizeof(*st));
	st->st_ino = RKFS_STATUS_INO;
	st->st_mode = S_IFREG | 0444;
	st->st_nlink = 1;
	st->st_size = (off_t)fs->status_len;
	st->st_uid = fs->uid;
	st->st_gid = fs->gid;
	st->st_mtim.tv_sec = now.tv_sec;
	st->st_mtim.tv_nsec = (long)(fs->status_gen++ % 1000000000);
	st->st_ctim = st->st_atim = st->st_mtim;
	pthread_mutex_unlock(&fs->status_lock);
}

static void status_read(fuse_req_t req, struct rkfs *fs, size_t size, off_t off)
{
	char buf[sizeof(fs->status)];
	size_t len;

	pthread_mutex_lock(&fs->status_lock);
	if (!fs->status_len)
		fs->status_len = rkfs_status_text(fs, fs->status, sizeof(fs->status));
	len = fs->status_len;
	memcpy(buf, fs->status, len);
	pthread_mutex_unlock(&fs->status_lock);
	if (off < 0 || (size_t)off >= len)
		fuse_reply_buf(req, NULL, 0);
	else
		fuse_reply_buf(req, buf + off, len - (size_t)off < size ? len - (size_t)off : size);
}

static void rkfs_op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct rkfs *fs = fs_of(req);
	struct fuse_entry_param e;
	struct rk_attr a;
	int rc;

	rkfs_readahead_first_request(fs);
	if (parent == FUSE_ROOT_ID && !strcmp(name, RKFS_STATUS_NAME)) {
		memset(&e, 0, sizeof(e));
		e.ino = RKFS_STATUS_INO;
		e.entry_timeout = fs->timeout;
		status_stat(fs, &e.attr);
		fuse_reply_entry(req, &e);
		return;
	}
	rc = rk_vfs_lookup_ref(fs->vfs, parent, name, &a, NULL);

	if (rc) {
		reply_err(req, rc);
		return;
	}
	memset(&e, 0, sizeof(e));
	e.ino = a.ino;
	e.attr_timeout = attr_timeout(fs, &a);
	e.entry_timeout = entry_timeout(fs, &a);
	to_stat(fs, &a, &e.attr);
	if (fuse_reply_entry(req, &e) == -ENOENT) /* interrupted: the kernel took nothing */
		rk_vfs_forget(fs->vfs, a.ino, 1);
}

int rkfs_forget_entry(void *ctx, uint64_t parent, const char *name)
{
	struct rkfs *fs = ctx;
	struct fuse_session *se;
	int rc = 0;

	pthread_rwlock_rdlock(&fs->notify_lock);
	if ((se = atomic_load(&fs->se)))
		rc = fuse_lowlevel_notify_inval_entry(se, parent, name, strlen(name));
	pthread_rwlock_unlock(&fs->notify_lock);
	if (rc && rc != -ENOENT) /* (ENOENT: the kernel holds no such entry) */
		rk_debug("asking the kernel to forget '%s': %s", name, strerror(-rc));
	return rc;
}

void rkfs_notify_stop(struct rkfs *fs)
{
	struct timespec ts;
	/* A request waits in the kernel while a lookup in that directory is unanswered; the
	 * loop has ended, so such a lookup is answered only once the mount is gone: after
	 * 2 s, stop the next requests and unmount (the one waiting is inside its write, its
	 * descriptor held by the kernel). */
	int locked;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 2;
	locked = !pthread_rwlock_timedwrlock(&fs->notify_lock, &ts);
	atomic_store(&fs->se, NULL);
	if (locked)
		pthread_rwlock_unlock(&fs->notify_lock);
}

/* (the status file is the daemon's, never freed: its references are not counted) */
static void forget_one(struct rkfs *fs, uint64_t ino, uint64_t nlookup)
{
	if (ino == RKFS_STATUS_INO)
		return;
	rkfs_file_drop(fs, ino); /* no read comes for an inode the kernel forgot */
	rk_vfs_forget(fs->vfs, ino, nlookup);
}

static void rkfs_op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	forget_one(fs_of(req), ino, nlookup);
	fuse_reply_none(req);
}

static void rkfs_op_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *f)
{
	for (size_t i = 0; i < count; i++)
		forget_one(fs_of(req), f[i].ino, f[i].nlookup);
	fuse_reply_none(req);
}

static void rkfs_op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct rkfs *fs = fs_of(req);
	struct rk_attr a;
	struct stat st;
	int rc;

	(void)fi;
	rkfs_readahead_first_request(fs);
	if (ino == RKFS_STATUS_INO) {
		status_stat(fs, &st);
		fuse_reply_attr(req, &st, 0);
		return;
	}
	rc = rk_vfs_getattr(fs->vfs, ino, &a, NULL);
	/* a live directory's attributes timed out: list the store again if its listing is
	 * older than list_ttl (new runs move its mtime on) */
	if (!rc && a.live && fs->list_ttl && rk_vfs_refresh(fs->vfs, ino))
		rc = rk_vfs_getattr(fs->vfs, ino, &a, NULL);
	if (rc) {
		reply_err(req, rc);
		return;
	}
	to_stat(fs, &a, &st);
	fuse_reply_attr(req, &st, attr_timeout(fs, &a));
}

static void rkfs_op_readlink(fuse_req_t req, fuse_ino_t ino)
{
	char buf[4097];
	int rc = rk_vfs_readlink(fs_of(req)->vfs, ino, buf, sizeof(buf), NULL);

	if (rc < 0)
		reply_err(req, rc);
	else
		fuse_reply_readlink(req, buf);
}

/* ENOSYS, when the kernel can do without: it stops asking, and opens directories with
 * the flags set here itself. (A kernel that cannot: the same flags, here.) */
static void rkfs_op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct rk_attr a;
	int rc;

	if (fs_of(req)->no_opendir) {
		fuse_reply_err(req, ENOSYS);
		return;
	}
	rc = rk_vfs_getattr(fs_of(req)->vfs, ino, &a, NULL);
	if (!rc && !S_ISDIR(a.mode))
		rc = -ENOTDIR;
	if (rc) {
		reply_err(req, rc);
		return;
	}
	fi->cache_readdir = 1;
	fi->keep_cache = 1; /* a live directory's cached listing goes with its mtime */
	fuse_reply_open(req, fi);
}

struct dirbuf {
	fuse_req_t req;
	struct rkfs *fs;
	char *buf;
	size_t size, len;
	int plus;
};

static int dir_add(struct dirbuf *d, const char *name, const struct rk_attr *a, off_t next)
{
	struct fuse_entry_param e;
	size_t n;

	memset(&e, 0, sizeof(e));
	to_stat(d->fs, a, &e.attr);
	if (d->plus) {
		int dot = !strcmp(name, ".") || !strcmp(name, "..");

		/* no lookup reference for dot entries; none either for a size not known yet
		 * (a compressed tarball): the kernel then looks it up, and lookup computes it */
		e.ino = dot || a->pending ? 0 : a->ino;
		e.attr_timeout = attr_timeout(d->fs, a);
		e.entry_timeout = entry_timeout(d->fs, a);
		n = fuse_add_direntry_plus(d->req, d->buf + d->len, d->size - d->len, name, &e,
					   next);
	} else {
		n = fuse_add_direntry(d->req, d->buf + d->len, d->size - d->len, name, &e.attr,
				      next);
	}
	if (n > d->size - d->len)
		return 1; /* full: this entry goes in the next call */
	d->len += n;
	return 0;
}

static int fill_entry(void *ctx, const char *name, const struct rk_attr *a, uint64_t next)
{
	return dir_add(ctx, name, a, (off_t)next + 2);
}

static void do_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, int plus)
{
	struct rkfs *fs = fs_of(req);
	struct dirbuf d = {req, fs, NULL, size, 0, plus};
	struct rk_attr self, a;
	int rc;

	rkfs_readahead_first_request(fs);
	if (!(d.buf = malloc(size))) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	rc = rk_vfs_getattr(fs->vfs, ino, &self, NULL);
	if (!rc && off < 1 && dir_add(&d, ".", &self, 1))
		goto reply;
	if (!rc && off < 2) {
		/* (this populates the directory: a failure is the answer, and is not tried a
		 * second time by the readdir below, which would double the wait on a server
		 * that stopped answering) */
		rc = rk_vfs_lookup(fs->vfs, ino, "..", &a, NULL);
		if (rc == -ENOENT)
			a = self;
		if (rc && rc != -ENOENT)
			goto reply;
		rc = 0;
		if (dir_add(&d, "..", &a, 2))
			goto reply;
	}
	if (!rc && plus) /* every entry with an inode is a reference the kernel keeps */
		rc = rk_vfs_readdir_ref(fs->vfs, ino, off < 2 ? 0 : (uint64_t)off - 2, fill_entry,
					&d, NULL);
	else if (!rc)
		rc = rk_vfs_readdir(fs->vfs, ino, off < 2 ? 0 : (uint64_t)off - 2, fill_entry, &d,
				    NULL);
reply:
	if (rc)
		reply_err(req, rc);
	else
		fuse_reply_buf(req, d.buf, d.len);
	free(d.buf);
}

static void rkfs_op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			    struct fuse_file_info *fi)
{
	(void)fi;
	do_readdir(req, ino, size, off, 0);
}

static void rkfs_op_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
				struct fuse_file_info *fi)
{
	(void)fi;
	do_readdir(req, ino, size, off, 1);
}

static void handle_free(struct rkfs *fs, struct rkfs_handle *h)
{
	pthread_mutex_lock(&fs->lock);
	if (h->prev)
		h->prev->next = h->next;
	else
		fs->handles = h->next;
	if (h->next)
		h->next->prev = h->prev;
	pthread_mutex_unlock(&fs->lock);
	rk_file_close(h->file);
	free(h);
}

void rkfs_close_handles(struct rkfs *fs)
{
	while (fs->handles)
		handle_free(fs, fs->handles);
}

/* ENOSYS, when the kernel can do without: it stops asking (the mount is read-only, so
 * the kernel refuses a write open itself) and reads come without a handle (files.c). */
static void rkfs_op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct rkfs *fs = fs_of(req);
	struct rkfs_handle *h;
	int rc;

	if ((fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & O_TRUNC)) {
		fuse_reply_err(req, EROFS);
		return;
	}
	if (fs->no_open) {
		fuse_reply_err(req, ENOSYS);
		return;
	}
	if (ino == RKFS_STATUS_INO) { /* read by inode, never from the page cache */
		fi->fh = 0;
		fi->direct_io = 1;
		fuse_reply_open(req, fi);
		return;
	}
	if (fs->passthrough) {
		if ((rc = rkfs_pt_open(fs, req, ino, fi)))
			reply_err(req, rc);
		else if (fuse_reply_open(req, fi) == -ENOENT)
			rkfs_pt_release(fs, req, ino, fi->fh); /* the open was interrupted */
		return;
	}
	if (!(h = calloc(1, sizeof(*h)))) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	rc = rk_vfs_open_file(fs->vfs, ino, &h->file, NULL);
	if (rc) {
		free(h);
		reply_err(req, rc);
		return;
	}
	pthread_mutex_lock(&fs->lock);
	h->next = fs->handles;
	if (h->next)
		h->next->prev = h;
	fs->handles = h;
	pthread_mutex_unlock(&fs->lock);
	fi->fh = (uint64_t)(uintptr_t)h;
	fi->keep_cache = 1;
	fi->noflush = 1;
	if (fuse_reply_open(req, fi) == -ENOENT)
		handle_free(fs, h); /* the open was interrupted */
}

/* Extents one reply may take: a read of more pieces (a tarball of many small files) is
 * copied. libfuse sizes its splice pipe at a page per extent plus the bytes. */
#define READ_EXTENTS 64

static int read_file(fuse_req_t req, struct rk_file *f, size_t size, off_t off);

static void rkfs_op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			 struct fuse_file_info *fi)
{
	struct rkfs *fs = fs_of(req);
	struct rkfs_ifile *e;
	int rc;

	if (ino == RKFS_STATUS_INO) {
		status_read(req, fs, size, off);
		return;
	}
	if (fi->fh > RKFS_FH_PASSTHROUGH) {
		read_file(req, ((struct rkfs_handle *)(uintptr_t)fi->fh)->file, size, off);
		return;
	}
	if ((rc = rkfs_file_get(fs, ino, &e))) {
		reply_err(req, rc);
		return;
	}
	if (read_file(req, rkfs_file_of(e), size, off))
		rkfs_file_forget(fs, e);
	rkfs_file_put(fs, e);
}

/* Reply to a read of f: 0, or the error replied. */
static int read_file(fuse_req_t req, struct rk_file *f, size_t size, off_t off)
{
	struct rk_extent ext[READ_EXTENTS];
	_Alignas(struct fuse_bufvec) char
		mem[sizeof(struct fuse_bufvec) + (READ_EXTENTS - 1) * sizeof(struct fuse_buf)];
	struct fuse_bufvec *bv = (struct fuse_bufvec *)mem;
	char *buf;
	ssize_t n, k;

	if (off < 0) {
		fuse_reply_buf(req, NULL, 0);
		return 0;
	}
	/* the file's bytes as descriptor ranges: the kernel moves them (splice), no copy here */
	k = rk_file_extents(f, (uint64_t)off, size, ext, READ_EXTENTS);
	if (k >= 0) {
		bv->count = (size_t)k;
		bv->idx = 0;
		bv->off = 0;
		for (ssize_t i = 0; i < k; i++) {
			struct fuse_buf *b = &bv->buf[i];

			memset(b, 0, sizeof(*b));
			b->size = ext[i].len;
			if (ext[i].fd >= 0) {
				b->flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK | FUSE_BUF_FD_RETRY;
				b->fd = ext[i].fd;
				b->pos = (off_t)ext[i].pos;
			} else {
				b->mem = (void *)ext[i].mem;
			}
		}
		if (!k)
			fuse_reply_buf(req, NULL, 0); /* past the end */
		else
			fuse_reply_data(req, bv, FUSE_BUF_SPLICE_MOVE);
		rk_extents_close(ext, (size_t)k);
		return 0;
	}
	if (k != -E2BIG) {
		reply_err(req, (int)k);
		return (int)k;
	}
	if (!(buf = malloc(size))) {
		fuse_reply_err(req, ENOMEM);
		return -ENOMEM;
	}
	n = rk_file_pread(f, buf, size, (uint64_t)off, NULL);
	if (n < 0)
		reply_err(req, (int)n);
	else
		fuse_reply_buf(req, buf, (size_t)n);
	free(buf);
	return n < 0 ? (int)n : 0;
}

static void rkfs_op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	if (fi->fh == RKFS_FH_BY_INO || fi->fh == RKFS_FH_PASSTHROUGH)
		rkfs_pt_release(fs_of(req), req, ino, fi->fh);
	else if (fi->fh) /* (none: the open answered ENOSYS) */
		handle_free(fs_of(req), (struct rkfs_handle *)(uintptr_t)fi->fh);
	fuse_reply_err(req, 0);
}

static void rkfs_op_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct rk_vfs_stats vs;
	struct statvfs st;

	(void)ino;
	rk_vfs_stats(fs_of(req)->vfs, &vs);
	memset(&st, 0, sizeof(st));
	st.f_bsize = 4096;
	st.f_frsize = 4096;
	st.f_files = vs.nodes;
	st.f_namemax = 255;
	st.f_flag = ST_RDONLY | ST_NOSUID | ST_NODEV;
	fuse_reply_statfs(req, &st);
}

/* Every operation that would change something. */
static void erofs(fuse_req_t req)
{
	fuse_reply_err(req, EROFS);
}

static void rkfs_op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
			    struct fuse_file_info *fi)
{
	(void)ino, (void)attr, (void)to_set, (void)fi;
	erofs(req);
}

static void rkfs_op_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
			  dev_t rdev)
{
	(void)parent, (void)name, (void)mode, (void)rdev;
	erofs(req);
}

static void rkfs_op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
	(void)parent, (void)name, (void)mode;
	erofs(req);
}

static void rkfs_op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	(void)parent, (void)name;
	erofs(req);
}

static void rkfs_op_symlink(fuse_req_t req, const char *link, fuse_ino_t parent, const char *name)
{
	(void)link, (void)parent, (void)name;
	erofs(req);
}

static void rkfs_op_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
			   fuse_ino_t newparent, const char *newname, unsigned int flags)
{
	(void)parent, (void)name, (void)newparent, (void)newname, (void)flags;
	erofs(req);
}

static void rkfs_op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname)
{
	(void)ino, (void)newparent, (void)newname;
	erofs(req);
}

static void rkfs_op_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
			  struct fuse_file_info *fi)
{
	(void)ino, (void)buf, (void)size, (void)off, (void)fi;
	erofs(req);
}

static void rkfs_op_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
			   struct fuse_file_info *fi)
{
	(void)parent, (void)name, (void)mode, (void)fi;
	erofs(req);
}

static void rkfs_op_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name, const char *value,
			     size_t size, int flags)
{
	(void)ino, (void)name, (void)value, (void)size, (void)flags;
	erofs(req);
}

static void rkfs_op_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
	(void)ino, (void)name;
	erofs(req);
}

static void rkfs_op_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t offset, off_t length,
			      struct fuse_file_info *fi)
{
	(void)ino, (void)mode, (void)offset, (void)length, (void)fi;
	erofs(req);
}

const struct fuse_lowlevel_ops rkfs_ops = {
	.init = rkfs_op_init,
	.lookup = rkfs_op_lookup,
	.forget = rkfs_op_forget,
	.forget_multi = rkfs_op_forget_multi,
	.getattr = rkfs_op_getattr,
	.readlink = rkfs_op_readlink,
	.opendir = rkfs_op_opendir,
	.readdir = rkfs_op_readdir,
	.readdirplus = rkfs_op_readdirplus,
	.open = rkfs_op_open,
	.read = rkfs_op_read,
	.release = rkfs_op_release,
	.statfs = rkfs_op_statfs,
	.setattr = rkfs_op_setattr,
	.mknod = rkfs_op_mknod,
	.mkdir = rkfs_op_mkdir,
	.unlink = rkfs_op_unlink,
	.rmdir = rkfs_op_unlink,
	.symlink = rkfs_op_symlink,
	.rename = rkfs_op_rename,
	.link = rkfs_op_link,
	.write = rkfs_op_write,
	.create = rkfs_op_create,
	.setxattr = rkfs_op_setxattr,
	.removexattr = rkfs_op_removexattr,
	.fallocate = rkfs_op_fallocate,
};
