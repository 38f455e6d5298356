/* files.c: open files by inode. A kernel that opens files without asking (open answered
 * ENOSYS once, FUSE_CAP_NO_OPEN_SUPPORT) sends no OPEN and no RELEASE round trip per
 * file: its reads come without a handle. A read takes its inode's rk_file here, opening
 * it on first use; the FILES_KEEP used last stay open, so that a file read in many
 * requests (or by many readers) is opened once. An open that fails is not remembered,
 * nor a file a read failed on (its archive failed while it streamed, a blob went bad):
 * the next read opens it again, as the next open(2) did (a transient failure of an
 * archive is tried again then). */
#include <errno.h>
#include <stdlib.h>

#include "rkfs.h"

#define FILES_KEEP 64 /* files kept open once unused (each holds a descriptor or a few) */

struct rkfs_ifile {
	uint64_t ino;
	struct rk_file *file;
	unsigned refs; /* reads using it, plus one while listed (files.lock) */
	struct rkfs_ifile *hnext; /* its bucket's chain */
	struct rkfs_ifile *prev, *next; /* the listed ones, used last first */
};

static struct rkfs_ifile **bucket(struct rkfs_files *t, uint64_t ino)
{
	return &t->buckets[(ino * 0x9E3779B97F4A7C15ull) >> (64 - RKFS_FILES_BITS)];
}

static struct rkfs_ifile *find(struct rkfs_files *t, uint64_t ino)
{
	struct rkfs_ifile *e;

	for (e = *bucket(t, ino); e && e->ino != ino; e = e->hnext)
		;
	return e;
}

static void lru_unlink(struct rkfs_files *t, struct rkfs_ifile *e)
{
	if (e->prev)
		e->prev->next = e->next;
	else
		t->first = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		t->last = e->prev;
	e->prev = e->next = NULL;
}

static void lru_push(struct rkfs_files *t, struct rkfs_ifile *e)
{
	e->prev = NULL;
	e->next = t->first;
	if (t->first)
		t->first->prev = e;
	else
		t->last = e;
	t->first = e;
}

/* Take e out of the table; returns it when nobody reads it any more (to be freed). */
static struct rkfs_ifile *unlist(struct rkfs_files *t, struct rkfs_ifile *e)
{
	struct rkfs_ifile **p = bucket(t, e->ino);

	while (*p != e)
		p = &(*p)->hnext;
	*p = e->hnext;
	lru_unlink(t, e);
	t->n--;
	return --e->refs ? NULL : e;
}

static void ifile_free(struct rkfs_ifile *e)
{
	if (e) {
		rk_file_close(e->file);
		free(e);
	}
}

int rkfs_file_get(struct rkfs *fs, uint64_t ino, struct rkfs_ifile **out)
{
	struct rkfs_files *t = &fs->files;
	struct rkfs_ifile *e, *drop = NULL;
	struct rk_file *f;
	int rc;

	pthread_mutex_lock(&t->lock);
	if ((e = find(t, ino))) {
		e->refs++;
		lru_unlink(t, e);
		lru_push(t, e);
		pthread_mutex_unlock(&t->lock);
		*out = e;
		return 0;
	}
	pthread_mutex_unlock(&t->lock);
	/* (no lock across the open: it may wait for an archive) */
	if ((rc = rk_vfs_open_file(fs->vfs, ino, &f, NULL)))
		return rc;
	rk_file_kept(f); /* (closed when the kernel forgets ino: rkfs_file_drop) */
	pthread_mutex_lock(&t->lock);
	if ((e = find(t, ino))) { /* another read opened it meanwhile */
		e->refs++;
		pthread_mutex_unlock(&t->lock);
		rk_file_close(f);
		*out = e;
		return 0;
	}
	if (!(e = calloc(1, sizeof(*e)))) {
		pthread_mutex_unlock(&t->lock);
		rk_file_close(f);
		return -ENOMEM;
	}
	e->ino = ino;
	e->file = f;
	e->refs = 2;
	e->hnext = *bucket(t, ino);
	*bucket(t, ino) = e;
	lru_push(t, e);
	if (++t->n > FILES_KEEP)
		drop = unlist(t, t->last);
	pthread_mutex_unlock(&t->lock);
	ifile_free(drop);
	*out = e;
	return 0;
}

struct rk_file *rkfs_file_of(const struct rkfs_ifile *e)
{
	return e->file;
}

void rkfs_file_put(struct rkfs *fs, struct rkfs_ifile *e)
{
	unsigned refs;

	pthread_mutex_lock(&fs->files.lock);
	refs = --e->refs;
	pthread_mutex_unlock(&fs->files.lock);
	if (!refs)
		ifile_free(e);
}

void rkfs_file_forget(struct rkfs *fs, struct rkfs_ifile *e)
{
	struct rkfs_ifile *drop = NULL;

	pthread_mutex_lock(&fs->files.lock);
	if (find(&fs->files, e->ino) == e)
		drop = unlist(&fs->files, e); /* (NULL: the caller still holds it) */
	pthread_mutex_unlock(&fs->files.lock);
	ifile_free(drop);
}

void rkfs_file_drop(struct rkfs *fs, uint64_t ino)
{
	struct rkfs_ifile *e, *drop = NULL;

	pthread_mutex_lock(&fs->files.lock);
	if ((e = find(&fs->files, ino)))
		drop = unlist(&fs->files, e);
	pthread_mutex_unlock(&fs->files.lock);
	ifile_free(drop);
}

void rkfs_files_close(struct rkfs *fs)
{
	struct rkfs_files *t = &fs->files;

	while (t->first)
		ifile_free(unlist(t, t->first));
}
