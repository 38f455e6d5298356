/* ingest.c: archive -> cache blobs + member index, in one streaming pass. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <archive.h>
#include <archive_entry.h>

#include "rk/buf.h"
#include "rk/cache.h"
#include "rk/frontier.h"
#include "rk/ingest.h"
#include "rk/log.h"
#include "rk/path.h"
#include "util/htab.h"
#include "util/array.h"

#define READ_CHUNK (1u << 20)
#define MANIFEST_NAME "artifact_manifest.txt"
#define MANIFEST_MAX (1u << 20)
#define ADVANCE_STEP (1u << 20) /* bytes between wakes of a staged file's readers */
/* Decompression is bounded: an archive may make at most BOMB_RATIO times the compressed
 * bytes read so far of data that takes disk space (runs of zeros are holes and do not
 * count), beyond BOMB_FREE that any archive may make. Real archives are far below: 3.5
 * for the demo's large artifact, 4 for Debian's libLLVM-15.so (zstd -10), under 10 for
 * ROCm's fat libraries; a zstd bomb of repeated bytes reaches 30000 (docs/reliability.md). */
#define BOMB_RATIO 1000
#define BOMB_FREE (64ull << 20)

struct seen {
	const char *path; /* points into the index member (stable: separately malloc'd) */
	size_t pos;
	UT_hash_handle hh;
};

/* The tree the members so far make, as `tar -x` leaves it (reader-owned): what each path
 * is (a member type, or IMPLIED: a directory only implied by paths below it) and whether
 * a directory holds anything. */
struct shape {
	uint8_t type;
	uint8_t full;
	UT_hash_handle hh;
	char path[];
};

#define IMPLIED 0xff

/* One member on its way from the reader thread to the committer thread. */
struct item {
	struct rk_member m; /* path and link malloc'd here */
	struct rk_blob_writer *w; /* written, not yet committed; NULL when no data */
	unsigned char *chunk; /* or: compressed bytes for the archive's SHA-256 */
	size_t chunk_len;
	struct item *next;
};

/* The committer: hashes and commits blobs, resolves hardlinks, appends to the index and
 * calls on_member, in archive order, while the reader decompresses the next members.
 * SHA-256 is the slowest step of an ingest, so this is where the second core goes. */
struct committer {
	pthread_t thread;
	pthread_mutex_t lock; /* protects: head, tail, count, done, rc */
	pthread_cond_t cond;
	struct item *head, *tail; /* members, in archive order */
	struct item *chead, *ctail; /* archive chunks: served first, so they cost little memory */
	unsigned count, max; /* members queued; bound from the descriptor limit */
	unsigned chunks; /* chunks queued (memory bound: CHUNKS_MAX MiB) */
	int done; /* the reader queued its last item */
	int rc; /* first failure; the reader stops when it sees it */
	struct rk_err err;
};

/* Queued files each hold one descriptor and their staged node another: the queue bound
 * is a quarter of the descriptor limit, within these. */
#define QUEUE_MIN 64
#define QUEUE_MAX 8192
#define CHUNKS_MAX 32

struct ingest {
	struct rk_cache *cache;
	struct rk_object *obj;
	const struct rk_ingest_opts *o;
	struct rk_index *idx;
	struct rk_err *err;
	struct rk_sha256 sha;
	int hashing;
	int read_rc; /* store error seen by the read callback */
	uint64_t in_bytes; /* compressed bytes read so far (reader-owned) */
	uint64_t dense_done; /* disk-taking bytes of the members done (reader-owned) */
	unsigned char *buf; /* the buffer libarchive is reading */
	size_t buf_len;
	struct seen *seen; /* committer-owned */
	struct shape *shape; /* reader-owned */
	struct rk_frontier **fronts; /* reader-owned: of every staged file */
	size_t nfronts, capfronts;
	_Atomic unsigned dropped;
	struct committer q;
};

static int enqueue_item(struct ingest *in, struct item *it);
static int enqueue(struct ingest *in, const struct rk_member *m, struct rk_blob_writer *w);

/* Libarchive is done with in->buf (it asks for more, or the stream ended): hand it to
 * the committer for the archive's SHA-256 and start a new one. */
static int hash_chunk(struct ingest *in)
{
	struct item *it;

	if (!in->buf_len)
		return 0;
	if (!(it = calloc(1, sizeof(*it))))
		return -ENOMEM;
	it->chunk = in->buf;
	it->chunk_len = in->buf_len;
	if (!(in->buf = malloc(READ_CHUNK))) {
		in->buf = it->chunk;
		free(it);
		return -ENOMEM;
	}
	in->buf_len = 0;
	return enqueue_item(in, it);
}

static la_ssize_t read_cb(struct archive *a, void *ud, const void **out)
{
	struct ingest *in = ud;
	ssize_t n;

	if (in->o->cancel && *in->o->cancel) {
		in->read_rc = -ECANCELED;
		archive_set_error(a, ECANCELED, "cancelled");
		return -1;
	}
	if (in->hashing && (in->read_rc = hash_chunk(in))) {
		archive_set_error(a, ENOMEM, "out of memory");
		return -1;
	}
	n = rk_object_read(in->obj, in->buf, READ_CHUNK, in->err);
	if (n < 0) {
		in->read_rc = (int)n;
		archive_set_error(a, EIO, "%s", rk_err_str(in->err, (int)n));
		return -1;
	}
	in->buf_len = (size_t)n;
	in->in_bytes += (uint64_t)n;
	if (in->o->progress)
		atomic_fetch_add(in->o->progress, (uint64_t)n);
	*out = in->buf;
	return n;
}

/* One line: what, and the member's name as it is shown (controls escaped). */
static void drop(struct ingest *in, const char *what, const char *name)
{
	struct rk_buf shown = RK_BUF_INIT;

	in->dropped++;
	rk_warn("'%s': %s '%s' dropped", in->o->name, what,
		rk_buf_add_shown(&shown, name) ? name : shown.buf);
	rk_buf_release(&shown);
}

static int archive_fail(struct ingest *in, struct archive *a, const char *what)
{
	if (in->read_rc)
		return rk_err_wrap(in->err, in->read_rc, "'%s'", in->o->name);
	return rk_err_set(in->err, -EBADMSG, "'%s': %s: %s", in->o->name, what,
			  archive_error_string(a) ? archive_error_string(a) : "corrupt data");
}

/* A member that cannot fit the cache (its bytes other than runs of zeros are more than
 * cache_size): no blob, one log line; it stays in the index without a blob, and reads of
 * it fail (EIO). The rest of the archive is served. */
static void refuse(struct ingest *in, const struct rk_member *m, uint64_t limit)
{
	rk_warn("'%s': member '%s' (%llu bytes) does not fit cache_size %llu; reading it "
		"fails (EIO)",
		in->o->name, m->path, (unsigned long long)m->size, (unsigned long long)limit);
}

/* dense: the disk-taking bytes the archive made so far. -EBADMSG past the bound (BOMB_*):
 * the whole archive fails, so no member of it is served (the run's others are). */
static int bomb_check(struct ingest *in, uint64_t dense)
{
	if (dense <= BOMB_FREE || dense / BOMB_RATIO <= in->in_bytes)
		return 0;
	return rk_err_set(in->err, -EBADMSG,
			  "'%s': decompresses to more than %u times its size (%llu bytes of data "
			  "from %llu): refused as a decompression bomb",
			  in->o->name, BOMB_RATIO, (unsigned long long)dense,
			  (unsigned long long)in->in_bytes);
}

/* Copy the entry's data into the uncommitted blob w (NULL: no cache) and into *mem when
 * given, advancing fr (may be NULL) as bytes land. Runs of zeros, and a sparse member's
 * holes, become holes of the blob. A member the cache cannot hold loses its blob (*wp
 * becomes NULL, fr fails). */
static int copy_data(struct ingest *in, struct archive *a, struct rk_member *m, struct rk_buf *mem,
		     struct rk_blob_writer **wp, struct rk_frontier *fr)
{
	struct rk_blob_writer *w = *wp;
	uint64_t limit = in->cache ? rk_cache_limit(in->cache) : 0, told = 0;
	int64_t pos = 0;
	int rc;

	for (;;) {
		const void *p;
		size_t n;
		la_int64_t off;
		int r = archive_read_data_block(a, &p, &n, &off);

		if (r == ARCHIVE_EOF)
			break;
		if (r < ARCHIVE_WARN)
			return archive_fail(in, a, m->path);
		if (off > pos) { /* a sparse member's hole */
			if (mem && off - pos > MANIFEST_MAX)
				return rk_err_set(in->err, -EPROTO, "'%s': %s is too large",
						  in->o->name, MANIFEST_NAME);
			if (w && (rc = rk_blob_hole(w, (uint64_t)(off - pos), in->err)))
				return rc;
			for (; mem && pos < off; pos++)
				if ((rc = rk_buf_add(mem, "", 1)))
					return rc;
			pos = off;
		}
		if ((w && (rc = rk_blob_write(w, p, n, in->err))) ||
		    (mem && (rc = rk_buf_add(mem, p, n))))
			return rc;
		if (w && (rc = bomb_check(in, in->dense_done + rk_blob_writer_dense(w))))
			return rc;
		pos += (int64_t)n;
		if (mem && mem->len > MANIFEST_MAX)
			return rk_err_set(in->err, -EPROTO, "'%s': %s is too large", in->o->name,
					  MANIFEST_NAME);
		if (w && limit && rk_blob_writer_dense(w) > limit) {
			rk_blob_abort(w);
			*wp = w = NULL;
			refuse(in, m, limit);
			if (fr)
				rk_frontier_end(fr, -EFBIG);
		}
		/* readers wake once a MiB (and at the end): a wake per 64 KiB block costs the
		 * decompressing thread more than it saves a reader */
		if (w && fr && (uint64_t)pos - told >= ADVANCE_STEP) {
			rk_frontier_advance(fr, (uint64_t)pos);
			told = (uint64_t)pos;
		}
	}
	if (w && fr && (uint64_t)pos != told)
		rk_frontier_advance(fr, (uint64_t)pos);
	if ((uint64_t)pos < m->size)
		return rk_err_set(in->err, -EBADMSG, "'%s': member '%s' truncated", in->o->name,
				  m->path);
	m->size = (uint64_t)pos;
	if (w)
		in->dense_done += rk_blob_writer_dense(w);
	return 0;
}

/* Give fr to the ingest's list: every frontier fails with the archive (rk/frontier.h). */
static int keep_frontier(struct ingest *in, struct rk_frontier *fr)
{
	if (RK_GROW(in->fronts, in->capfronts, in->nfronts, 64))
		return -ENOMEM;
	in->fronts[in->nfronts++] = fr;
	return 0;
}

/* A regular file: staged (readable) as soon as its bytes start to land, so that a reader
 * of a huge member streams behind the decompressor; then queued for its commit. */
static int regular_file(struct ingest *in, struct archive *a, struct rk_member *m, int first)
{
	struct rk_buf mem = RK_BUF_INIT;
	struct rk_blob_writer *w = NULL;
	struct rk_frontier *fr = NULL;
	int rc = 0;

	if (in->cache && (rc = rk_blob_create(in->cache, 0, &w, in->err)))
		return rc;
	if (w && m->size && in->o->on_staged) {
		if (!(fr = rk_frontier_new(m->size)) || (rc = keep_frontier(in, fr))) {
			rk_frontier_put(fr);
			rk_blob_abort(w);
			return -ENOMEM;
		}
		rc = in->o->on_staged(in->o->ctx, m, rk_blob_writer_fd(w), fr);
	}
	if (!rc)
		rc = copy_data(in, a, m, first ? &mem : NULL, &w, fr);
	/* the committer has not touched the index yet: prefixes are ours to write */
	if (!rc && first)
		rc = rk_index_parse_manifest(in->idx, mem.buf, mem.len, in->err);
	rk_buf_release(&mem);
	if (fr)
		rk_frontier_end(fr, rc);
	if (rc) {
		rk_blob_abort(w);
		return rc;
	}
	if (w && m->size == 0) {
		rk_blob_abort(w);
		w = NULL;
	}
	return enqueue(in, m, w);
}

static int add_member(struct ingest *in, struct rk_member *m)
{
	struct seen *s;
	int rc;

	HASH_FIND_STR(in->seen, m->path, s);
	if (s) {
		/* tar semantics: a later member with the same name replaces the earlier one;
		 * the index keeps its own path string (the hash key points at it) */
		struct rk_member *old = &in->idx->v[s->pos];
		char *path = old->path, *link = m->link ? strdup(m->link) : NULL;

		if (m->link && !link)
			return -ENOMEM;
		free(old->link);
		*old = *m;
		old->path = path;
		old->link = link;
		rc = 0;
	} else {
		if ((rc = rk_index_add(in->idx, m)))
			return rc;
		if (!(s = calloc(1, sizeof(*s))))
			return -ENOMEM;
		s->pos = in->idx->n - 1;
		s->path = in->idx->v[s->pos].path;
		HASH_ADD_KEYPTR(hh, in->seen, s->path, strlen(s->path), s);
		if (rk_htab_oom()) {
			free(s);
			return -ENOMEM;
		}
	}
	if (!rc && in->o->on_member)
		rc = in->o->on_member(in->o->ctx, in->idx, s->pos);
	return rc;
}

/* Committer side of one item: runs in the committer thread only. */
static int commit_item(struct ingest *in, struct item *it)
{
	struct rk_member *m = &it->m;
	struct seen *s;
	int rc;

	if (it->chunk) {
		rk_sha256_update(&in->sha, it->chunk, it->chunk_len);
		return 0;
	}
	if (it->w) {
		rc = rk_blob_commit(it->w, m->blob, &in->q.err);
		it->w = NULL;
		if (rc)
			return rc;
	}
	if (m->type == RK_MEMBER_HARDLINK) {
		HASH_FIND_STR(in->seen, m->link, s);
		if (!s || in->idx->v[s->pos].type != RK_MEMBER_FILE) {
			drop(in, "hardlink to a missing file", m->path);
			return 0;
		}
		m->size = in->idx->v[s->pos].size;
		m->mode = in->idx->v[s->pos].mode;
		memcpy(m->blob, in->idx->v[s->pos].blob, sizeof(m->blob));
	}
	return add_member(in, m);
}

static void free_item(struct item *it)
{
	free(it->chunk);
	rk_blob_abort(it->w);
	free(it->m.path);
	free(it->m.link);
	free(it);
}

static void *committer_main(void *p)
{
	struct ingest *in = p;
	struct committer *q = &in->q;

	for (;;) {
		struct item *it;
		int rc;

		pthread_mutex_lock(&q->lock);
		while (!q->head && !q->chead && !q->done)
			pthread_cond_wait(&q->cond, &q->lock);
		if ((it = q->chead)) {
			q->chead = it->next;
			if (!q->chead)
				q->ctail = NULL;
			q->chunks--;
		} else if ((it = q->head)) {
			q->head = it->next;
			if (!q->head)
				q->tail = NULL;
			q->count--;
		} else {
			pthread_mutex_unlock(&q->lock);
			return NULL;
		}
		rc = q->rc;
		pthread_cond_broadcast(&q->cond);
		pthread_mutex_unlock(&q->lock);
		if (!rc)
			rc = commit_item(in, it);
		free_item(it);
		if (rc) {
			pthread_mutex_lock(&q->lock);
			if (!q->rc)
				q->rc = rc;
			pthread_mutex_unlock(&q->lock);
		}
	}
}

/* Reader side: queue a copy of m (with its uncommitted blob). Fails with the
 * committer's error once it has one. */
static int enqueue(struct ingest *in, const struct rk_member *m, struct rk_blob_writer *w)
{
	struct item *it = calloc(1, sizeof(*it));

	if (!it || !(it->m.path = strdup(m->path)) ||
	    (m->link && !(it->m.link = strdup(m->link)))) {
		if (it)
			free(it->m.path);
		free(it);
		rk_blob_abort(w);
		return -ENOMEM;
	}
	it->m.size = m->size;
	it->m.mtime = m->mtime;
	it->m.mode = m->mode;
	it->m.type = m->type;
	it->w = w;
	return enqueue_item(in, it);
}

/* Queue it (ownership passes), waiting while the queue is full. */
static int enqueue_item(struct ingest *in, struct item *it)
{
	struct committer *q = &in->q;
	int rc;

	pthread_mutex_lock(&q->lock);
	while ((it->chunk ? q->chunks >= CHUNKS_MAX : q->count >= q->max) && !q->rc)
		pthread_cond_wait(&q->cond, &q->lock);
	rc = q->rc;
	if (!rc && it->chunk) {
		if (q->ctail)
			q->ctail->next = it;
		else
			q->chead = it;
		q->ctail = it;
		q->chunks++;
		pthread_cond_broadcast(&q->cond);
	} else if (!rc) {
		if (q->tail)
			q->tail->next = it;
		else
			q->head = it;
		q->tail = it;
		q->count++;
		pthread_cond_broadcast(&q->cond);
	}
	pthread_mutex_unlock(&q->lock);
	if (rc)
		free_item(it);
	return rc;
}

static int committer_failed(struct ingest *in)
{
	int rc;

	pthread_mutex_lock(&in->q.lock);
	rc = in->q.rc;
	pthread_mutex_unlock(&in->q.lock);
	return rc;
}

static struct shape *shape_find(struct ingest *in, const char *path)
{
	struct shape *s;

	HASH_FIND_STR(in->shape, path, s);
	return s;
}

static int shape_set(struct ingest *in, const char *path, uint8_t type)
{
	struct shape *s = shape_find(in, path);
	size_t len = strlen(path);

	if (s) {
		s->type = type;
		return 0;
	}
	if (!(s = calloc(1, sizeof(*s) + len + 1)))
		return -ENOMEM;
	memcpy(s->path, path, len + 1);
	s->type = type;
	HASH_ADD_KEYPTR(hh, in->shape, s->path, len, s);
	if (rk_htab_oom()) {
		free(s);
		return -ENOMEM;
	}
	return 0;
}

static int is_dir(const struct shape *s)
{
	return s->type == IMPLIED || s->type == RK_MEMBER_DIR;
}

/* Whether member path (of this type; link: a hardlink's target) goes into the tree, by
 * the rules of `tar -x` (GNU tar 1.34 and bsdtar agree): a later member replaces an
 * earlier non-directory of the same name, or an empty directory (a directory over a
 * directory updates it); it is refused, with a log line (tar fails on it too), below a
 * non-directory and as a non-directory in place of a directory that holds anything.
 * Decided here, in archive order, before a file is staged: the committer and the tree
 * only ever see members that stay. 1: take it, 0: refused, or -errno. */
static int shape_take(struct ingest *in, char *path, uint8_t type, const char *link)
{
	struct shape *s;
	char *slash;
	int rc;

	for (char *p = path; (slash = strchr(p, '/')); p = slash + 1) {
		*slash = '\0';
		s = shape_find(in, path);
		*slash = '/';
		if (s && !is_dir(s)) {
			drop(in, "member below a non-directory", path);
			return 0;
		}
	}
	s = shape_find(in, path);
	if (s && is_dir(s) && s->full && type != RK_MEMBER_DIR) {
		drop(in, "non-directory in place of a directory that is not empty", path);
		return 0;
	}
	if (link && (!(s = shape_find(in, link)) || s->type != RK_MEMBER_FILE)) {
		drop(in, "hardlink to a missing file", path);
		return 0;
	}
	for (char *p = path; (slash = strchr(p, '/')); p = slash + 1) {
		*slash = '\0';
		s = shape_find(in, path);
		rc = s ? 0 : shape_set(in, path, IMPLIED);
		if (!rc)
			shape_find(in, path)->full = 1;
		*slash = '/';
		if (rc)
			return rc;
	}
	return (rc = shape_set(in, path, type)) ? rc : 1;
}

static int one_member(struct ingest *in, struct archive *a, struct archive_entry *e, int first)
{
	char path[RK_INDEX_MAX_PATH + 1], link[RK_INDEX_MAX_PATH + 1];
	const char *name = archive_entry_pathname(e), *hl = archive_entry_hardlink(e), *why;
	struct rk_member m = {0};
	int rc, n;

	if (!name)
		return rk_err_set(in->err, -EBADMSG, "'%s': member without a name", in->o->name);
	n = rk_path_normalize(name, path, sizeof(path));
	if (first &&
	    (n <= 0 || strcmp(path, MANIFEST_NAME) || archive_entry_filetype(e) != AE_IFREG || hl))
		return rk_err_set(in->err, -EPROTO,
				  "'%s': first member is '%s', not " MANIFEST_NAME, in->o->name,
				  name);
	if (n == 0)
		return 0; /* "./": the root itself */
	if (n < 0) {
		drop(in, n == -EINVAL ? "member escaping the archive" : "member with a long name",
		     name);
		return 0;
	}
	/* a name tar -x, dpkg, rpm or the repodata cannot carry is refused once, here */
	if ((why = rk_path_unwritable(path))) {
		drop(in, why, name);
		return 0;
	}
	m.path = path;
	m.mtime = archive_entry_mtime(e);
	m.mode = archive_entry_perm(e) & 07777u & ~06000u;
	if (hl) {
		if (rk_path_normalize(hl, link, sizeof(link)) <= 0) {
			drop(in, "hardlink escaping the archive", name);
			return 0;
		}
		if ((rc = shape_take(in, path, RK_MEMBER_HARDLINK, link)) <= 0)
			return rc;
		m.type = RK_MEMBER_HARDLINK; /* resolved by the committer, in order */
		m.link = link;
		return enqueue(in, &m, NULL);
	}
	switch (archive_entry_filetype(e)) {
	case AE_IFREG:
		if ((rc = shape_take(in, path, RK_MEMBER_FILE, NULL)) <= 0)
			return rc;
		m.type = RK_MEMBER_FILE;
		m.size = archive_entry_size_is_set(e) ? (uint64_t)archive_entry_size(e) : 0;
		return regular_file(in, a, &m, first);
	case AE_IFDIR:
		if ((rc = shape_take(in, path, RK_MEMBER_DIR, NULL)) <= 0)
			return rc;
		m.type = RK_MEMBER_DIR;
		return enqueue(in, &m, NULL);
	case AE_IFLNK: {
		const char *t = archive_entry_symlink(e);

		if (!t || !t[0] || strlen(t) > RK_INDEX_MAX_PATH) {
			drop(in, "symlink without a valid target", name);
			return 0;
		}
		if (rk_path_link_escapes(path, t)) {
			drop(in, "symlink escaping the archive", name);
			return 0;
		}
		if ((rc = shape_take(in, path, RK_MEMBER_SYMLINK, NULL)) <= 0)
			return rc;
		m.type = RK_MEMBER_SYMLINK;
		m.link = (char *)t;
		m.size = strlen(t);
		return enqueue(in, &m, NULL);
	}
	default:
		drop(in, "special file", name);
		return 0;
	}
}

/* Let the committer finish what is queued and stop it (once; later calls just report).
 * Returns its first failure, with its message moved into the caller's err. */
static int drain(struct ingest *in)
{
	struct committer *q = &in->q;

	pthread_mutex_lock(&q->lock);
	if (q->done) {
		pthread_mutex_unlock(&q->lock);
		return q->rc;
	}
	q->done = 1;
	pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->lock);
	pthread_join(q->thread, NULL);
	if (q->rc && in->err && q->err.msg[0])
		*in->err = q->err;
	return q->rc;
}

int rk_ingest(struct rk_cache *c, struct rk_object *obj, const struct rk_ingest_opts *o,
	      struct rk_index *idx, struct rk_err *err)
{
	struct ingest in = {c, obj, o, idx, err};
	struct archive_entry *e;
	struct archive *a = NULL;
	struct seen *s, *tmp;
	struct shape *sh, *shtmp;
	struct rlimit rl;
	int rc = 0, first = 1, qrc;

	if (!(in.buf = malloc(READ_CHUNK)))
		return -ENOMEM;
	if (o->expect_sha256) {
		if ((rc = rk_sha256_init(&in.sha))) {
			free(in.buf);
			return rc;
		}
		in.hashing = 1;
	}
	in.q.max = QUEUE_MAX;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur / 4 < QUEUE_MAX)
		in.q.max = rl.rlim_cur / 4 > QUEUE_MIN ? (unsigned)(rl.rlim_cur / 4) : QUEUE_MIN;
	pthread_mutex_init(&in.q.lock, NULL);
	pthread_cond_init(&in.q.cond, NULL);
	if ((rc = -pthread_create(&in.q.thread, NULL, committer_main, &in))) {
		rk_sha256_release(&in.sha);
		free(in.buf);
		return rk_err_set(err, rc, "cannot start a thread: %s", strerror(-rc));
	}
	a = archive_read_new();
	if (!a) {
		rc = -ENOMEM;
		goto out;
	}
	archive_read_support_filter_zstd(a);
	archive_read_support_filter_xz(a);
	archive_read_support_filter_gzip(a);
	archive_read_support_format_tar(a);
	if (archive_read_open(a, &in, NULL, read_cb, NULL) != ARCHIVE_OK) {
		rc = archive_fail(&in, a, "open");
		goto out;
	}
	for (;;) {
		int r = archive_read_next_header(a, &e);

		if (r == ARCHIVE_EOF)
			break;
		if (r < ARCHIVE_WARN) {
			rc = archive_fail(&in, a, first ? "not a tar archive" : "reading");
			goto out;
		}
		if ((rc = one_member(&in, a, e, first)) || (rc = committer_failed(&in)))
			goto out;
		first = 0;
		if (o->cancel && *o->cancel) {
			rc = -ECANCELED;
			goto out;
		}
	}
	if (first) {
		rc = rk_err_set(err, -EPROTO, "'%s': empty archive", o->name);
		goto out;
	}
	if (o->read_all)
		*o->read_all = 1;
	/* the rest of the object (tar padding past the end-of-archive blocks) is hashed too */
	while (in.hashing) {
		ssize_t n;

		if ((rc = hash_chunk(&in)))
			goto out;
		if ((n = rk_object_read(obj, in.buf, READ_CHUNK, err)) < 0) {
			rc = (int)n;
			goto out;
		}
		if (n == 0)
			break;
		in.buf_len = (size_t)n;
	}
	if ((rc = drain(&in)))
		goto out;
	idx->archive_size = rk_object_size(obj);
	if (in.hashing) {
		char hex[RK_SHA256_HEX];

		rk_sha256_final(&in.sha, hex);
		in.hashing = 0;
		if (strcmp(hex, o->expect_sha256)) {
			rc = rk_err_set(err, -EBADMSG,
					"'%s': sha256 %.16s... does not match its "
					"sidecar %.16s...",
					o->name, hex, o->expect_sha256);
			goto out;
		}
		memcpy(idx->archive_sha256, hex, sizeof(hex));
	}
out:
	qrc = drain(&in);
	if (!rc)
		rc = qrc;
	pthread_mutex_destroy(&in.q.lock);
	pthread_cond_destroy(&in.q.cond);
	if (in.hashing)
		rk_sha256_release(&in.sha);
	if (a)
		archive_read_free(a);
	HASH_ITER(hh, in.seen, s, tmp) {
		HASH_DEL(in.seen, s);
		free(s);
	}
	/* a reader of a staged file of a bad archive fails, even below the frontier */
	for (size_t i = 0; i < in.nfronts; i++) {
		if (rc)
			rk_frontier_end(in.fronts[i], rc);
		rk_frontier_put(in.fronts[i]);
	}
	free(in.fronts);
	HASH_ITER(hh, in.shape, sh, shtmp) {
		HASH_DEL(in.shape, sh);
		free(sh);
	}
	free(in.buf);
	return rc;
}
