/* ingest.c: archive -> cache blobs + member index, in one streaming pass. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <archive.h>
#include <archive_entry.h>

#include "rk/ingest.h"
#include "rk/log.h"
#include "rk/path.h"
#include "htab.h"

#define READ_CHUNK (1u << 20)
#define MANIFEST_NAME "artifact_manifest.txt"
#define MANIFEST_MAX (1u << 20)

struct seen {
	const char *path; /* points into the index member (stable: separately malloc'd) */
	size_t pos;
	UT_hash_handle hh;
};

struct ingest {
	struct rk_cache *cache;
	struct rk_object *obj;
	const struct rk_ingest_opts *o;
	struct rk_index *idx;
	struct rk_err *err;
	struct rk_sha256 sha;
	int hashing;
	int read_rc; /* store error seen by the read callback */
	unsigned char *buf;
	struct seen *seen;
	unsigned dropped;
};

static la_ssize_t read_cb(struct archive *a, void *ud, const void **out)
{
	struct ingest *in = ud;
	ssize_t n;

	if (in->o->cancel && *in->o->cancel) {
		in->read_rc = -ECANCELED;
		archive_set_error(a, ECANCELED, "cancelled");
		return -1;
	}
	n = rk_object_read(in->obj, in->buf, READ_CHUNK, in->err);
	if (n < 0) {
		in->read_rc = (int)n;
		archive_set_error(a, EIO, "%s", rk_err_str(in->err, (int)n));
		return -1;
	}
	if (in->hashing)
		rk_sha256_update(&in->sha, in->buf, (size_t)n);
	if (in->o->progress)
		atomic_fetch_add(in->o->progress, (uint64_t)n);
	*out = in->buf;
	return n;
}

static void drop(struct ingest *in, const char *what, const char *name)
{
	in->dropped++;
	rk_warn("'%s': %s '%s' dropped", in->o->name, what, name);
}

static int archive_fail(struct ingest *in, struct archive *a, const char *what)
{
	if (in->read_rc)
		return rk_err_wrap(in->err, in->read_rc, "'%s'", in->o->name);
	return rk_err_set(in->err, -EBADMSG, "'%s': %s: %s", in->o->name, what,
			  archive_error_string(a) ? archive_error_string(a) : "corrupt data");
}

/* Copy the entry's data into a new blob (and into *mem when mem is given). */
static int copy_data(struct ingest *in, struct archive *a, struct rk_member *m,
		     struct rk_buf *mem)
{
	struct rk_blob_writer *w = NULL;
	int64_t pos = 0;
	int rc;

	if (in->cache && (rc = rk_blob_create(in->cache, &w, in->err)))
		return rc;
	for (;;) {
		const void *p;
		size_t n;
		la_int64_t off;
		int r = archive_read_data_block(a, &p, &n, &off);

		if (r == ARCHIVE_EOF)
			break;
		if (r < ARCHIVE_WARN) {
			rc = archive_fail(in, a, m->path);
			goto fail;
		}
		while (pos < off) { /* sparse hole: materialize zeros */
			static const char zeros[4096];
			size_t z = (size_t)RK_MIN((int64_t)sizeof(zeros), off - pos);

			if ((w && (rc = rk_blob_write(w, zeros, z, in->err))) ||
			    (mem && (rc = rk_buf_add(mem, zeros, z))))
				goto fail;
			pos += (int64_t)z;
		}
		if ((w && (rc = rk_blob_write(w, p, n, in->err))) ||
		    (mem && (rc = rk_buf_add(mem, p, n))))
			goto fail;
		pos += (int64_t)n;
		if (mem && mem->len > MANIFEST_MAX) {
			rc = rk_err_set(in->err, -EPROTO, "'%s': %s is too large", in->o->name,
					MANIFEST_NAME);
			goto fail;
		}
	}
	if ((uint64_t)pos < m->size) {
		rc = rk_err_set(in->err, -EBADMSG, "'%s': member '%s' truncated", in->o->name,
				m->path);
		goto fail;
	}
	m->size = (uint64_t)pos;
	if (w && m->size == 0) {
		rk_blob_abort(w);
		return 0;
	}
	return w ? rk_blob_commit(w, m->blob, in->err) : 0;
fail:
	rk_blob_abort(w);
	return rc;
}

static int add_member(struct ingest *in, struct rk_member *m)
{
	struct seen *s;
	int rc;

	HASH_FIND_STR(in->seen, m->path, s);
	if (s) {
		/* tar semantics: a later member with the same name replaces the earlier one */
		struct rk_member *old = &in->idx->v[s->pos];
		char *link = m->link ? strdup(m->link) : NULL;

		if (m->link && !link)
			return -ENOMEM;
		free(old->link);
		m->path = old->path;
		*old = *m;
		old->link = link;
		HASH_DEL(in->seen, s);
		s->path = old->path;
		HASH_ADD_KEYPTR(hh, in->seen, s->path, strlen(s->path), s);
		rc = rk_htab_oom() ? -ENOMEM : 0;
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

static int one_member(struct ingest *in, struct archive *a, struct archive_entry *e, int first)
{
	char path[RK_INDEX_MAX_PATH + 1], link[RK_INDEX_MAX_PATH + 1];
	const char *name = archive_entry_pathname(e), *hl = archive_entry_hardlink(e);
	struct rk_member m = {0};
	struct rk_buf mem = RK_BUF_INIT;
	int rc, n;

	if (!name)
		return rk_err_set(in->err, -EBADMSG, "'%s': member without a name", in->o->name);
	n = rk_path_normalize(name, path, sizeof(path));
	if (first && (n <= 0 || strcmp(path, MANIFEST_NAME) ||
		      archive_entry_filetype(e) != AE_IFREG || hl))
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
	m.path = path;
	m.mtime = archive_entry_mtime(e);
	m.mode = archive_entry_perm(e) & 07777u & ~06000u;
	if (hl) {
		struct seen *s;

		if (rk_path_normalize(hl, link, sizeof(link)) <= 0) {
			drop(in, "hardlink escaping the archive", name);
			return 0;
		}
		HASH_FIND_STR(in->seen, link, s);
		if (!s || in->idx->v[s->pos].type != RK_MEMBER_FILE) {
			drop(in, "hardlink to a missing file", name);
			return 0;
		}
		m.type = RK_MEMBER_HARDLINK;
		m.link = link;
		m.size = in->idx->v[s->pos].size;
		m.mode = in->idx->v[s->pos].mode;
		memcpy(m.blob, in->idx->v[s->pos].blob, sizeof(m.blob));
		return add_member(in, &m);
	}
	switch (archive_entry_filetype(e)) {
	case AE_IFREG:
		m.type = RK_MEMBER_FILE;
		m.size = archive_entry_size_is_set(e) ? (uint64_t)archive_entry_size(e) : 0;
		rc = copy_data(in, a, &m, first ? &mem : NULL);
		if (!rc && first)
			rc = rk_index_parse_manifest(in->idx, mem.buf, mem.len, in->err);
		rk_buf_release(&mem);
		if (rc)
			return rc;
		return add_member(in, &m);
	case AE_IFDIR:
		m.type = RK_MEMBER_DIR;
		return add_member(in, &m);
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
		m.type = RK_MEMBER_SYMLINK;
		m.link = (char *)t;
		m.size = strlen(t);
		return add_member(in, &m);
	}
	default:
		drop(in, "special file", name);
		return 0;
	}
}

int rk_ingest(struct rk_cache *c, struct rk_object *obj, const struct rk_ingest_opts *o,
	      struct rk_index *idx, struct rk_err *err)
{
	struct ingest in = {c, obj, o, idx, err};
	struct archive_entry *e;
	struct archive *a = NULL;
	struct seen *s, *tmp;
	int rc = 0, first = 1;

	if (!(in.buf = malloc(READ_CHUNK)))
		return -ENOMEM;
	if (o->expect_sha256) {
		if ((rc = rk_sha256_init(&in.sha)))
			goto out;
		in.hashing = 1;
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
		if ((rc = one_member(&in, a, e, first)))
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
	idx->archive_size = rk_object_size(obj);
	if (in.hashing) {
		char hex[RK_SHA256_HEX];
		ssize_t n;

		while ((n = rk_object_read(obj, in.buf, READ_CHUNK, err)) > 0)
			rk_sha256_update(&in.sha, in.buf, (size_t)n);
		if (n < 0) {
			rc = (int)n;
			goto out;
		}
		rk_sha256_final(&in.sha, hex);
		in.hashing = 0;
		if (strcmp(hex, o->expect_sha256)) {
			rc = rk_err_set(err, -EBADMSG, "'%s': sha256 %.16s... does not match its "
					"sidecar %.16s...", o->name, hex, o->expect_sha256);
			goto out;
		}
		memcpy(idx->archive_sha256, hex, sizeof(hex));
	}
out:
	if (in.hashing)
		rk_sha256_release(&in.sha);
	if (a)
		archive_read_free(a);
	HASH_ITER(hh, in.seen, s, tmp)
	{
		HASH_DEL(in.seen, s);
		free(s);
	}
	free(in.buf);
	return rc;
}
