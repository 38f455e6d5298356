/* index.c: struct rk_index, its on-disk form and artifact_manifest.txt parsing. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rk/index.h"
#include "rk/path.h"

#define INDEX_MAGIC "RKIX"
#define INDEX_VERSION 1u

int rk_index_add(struct rk_index *idx, const struct rk_member *m)
{
	struct rk_member c = *m;

	if (idx->n == idx->cap) {
		size_t ncap = idx->cap ? idx->cap * 2 : 256;
		struct rk_member *v;

		if (idx->n >= RK_INDEX_MAX_MEMBERS)
			return -EFBIG;
		v = realloc(idx->v, ncap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		idx->v = v;
		idx->cap = ncap;
	}
	c.path = strdup(m->path);
	c.link = m->link ? strdup(m->link) : NULL;
	if (!c.path || (m->link && !c.link)) {
		free(c.path);
		free(c.link);
		return -ENOMEM;
	}
	idx->v[idx->n++] = c;
	return 0;
}

int rk_index_add_prefix(struct rk_index *idx, const char *prefix)
{
	char **v = realloc(idx->prefixes, (idx->nprefixes + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	idx->prefixes = v;
	if (!(v[idx->nprefixes] = strdup(prefix)))
		return -ENOMEM;
	idx->nprefixes++;
	return 0;
}

void rk_index_release(struct rk_index *idx)
{
	for (size_t i = 0; i < idx->n; i++) {
		free(idx->v[i].path);
		free(idx->v[i].link);
	}
	for (size_t i = 0; i < idx->nprefixes; i++)
		free(idx->prefixes[i]);
	free(idx->v);
	free(idx->prefixes);
	memset(idx, 0, sizeof(*idx));
}

static int put_u8(struct rk_buf *b, uint8_t v)
{
	return rk_buf_add(b, &v, 1);
}

static int put_u32(struct rk_buf *b, uint32_t v)
{
	unsigned char x[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
			      (unsigned char)(v >> 24)};

	return rk_buf_add(b, x, 4);
}

static int put_u64(struct rk_buf *b, uint64_t v)
{
	int rc = put_u32(b, (uint32_t)v);

	return rc ? rc : put_u32(b, (uint32_t)(v >> 32));
}

static int put_str(struct rk_buf *b, const char *s)
{
	size_t len = s ? strlen(s) : 0;
	int rc = put_u32(b, (uint32_t)len);

	return rc ? rc : rk_buf_add(b, s ? s : "", len);
}

static int hexval(char c)
{
	return c <= '9' ? c - '0' : c - 'a' + 10;
}

int rk_index_serialize(const struct rk_index *idx, struct rk_buf *out)
{
	static const char zeros[64] = {0};
	int rc;

	if ((rc = rk_buf_add(out, INDEX_MAGIC, 4)) || (rc = put_u32(out, INDEX_VERSION)) ||
	    (rc = put_u64(out, idx->archive_size)) ||
	    (rc = rk_buf_add(out, idx->archive_sha256[0] ? idx->archive_sha256 : zeros, 64)) ||
	    (rc = put_u32(out, (uint32_t)idx->nprefixes)) || (rc = put_u32(out, (uint32_t)idx->n)))
		return rc;
	for (size_t i = 0; i < idx->nprefixes; i++)
		if ((rc = put_str(out, idx->prefixes[i])))
			return rc;
	for (size_t i = 0; i < idx->n; i++) {
		const struct rk_member *m = &idx->v[i];

		if ((rc = put_u8(out, m->type)) || (rc = put_u32(out, m->mode)) ||
		    (rc = put_u64(out, m->size)) || (rc = put_u64(out, (uint64_t)m->mtime)))
			return rc;
		if (m->blob[0]) {
			unsigned char bin[32];

			for (int j = 0; j < 32; j++)
				bin[j] = (unsigned char)(hexval(m->blob[2 * j]) << 4 |
							 hexval(m->blob[2 * j + 1]));
			if ((rc = put_u8(out, 1)) || (rc = rk_buf_add(out, bin, 32)))
				return rc;
		} else if ((rc = put_u8(out, 0))) {
			return rc;
		}
		if ((rc = put_str(out, m->path)) || (rc = put_str(out, m->link)))
			return rc;
	}
	return 0;
}

struct reader {
	const unsigned char *p, *end;
};

static int get(struct reader *r, void *dst, size_t n)
{
	if ((size_t)(r->end - r->p) < n)
		return -EBADMSG;
	memcpy(dst, r->p, n);
	r->p += n;
	return 0;
}

static int get_u32(struct reader *r, uint32_t *v)
{
	unsigned char x[4];
	int rc = get(r, x, 4);

	if (!rc)
		*v = (uint32_t)x[0] | (uint32_t)x[1] << 8 | (uint32_t)x[2] << 16 |
		     (uint32_t)x[3] << 24;
	return rc;
}

static int get_u64(struct reader *r, uint64_t *v)
{
	uint32_t lo, hi;
	int rc = get_u32(r, &lo);

	if (!rc && !(rc = get_u32(r, &hi)))
		*v = (uint64_t)hi << 32 | lo;
	return rc;
}

/* A string of at most RK_INDEX_MAX_PATH bytes without NUL; malloc'd, NULL if empty and
 * allow_empty. */
static int get_str(struct reader *r, char **out, int allow_empty)
{
	uint32_t len;
	char *s;
	int rc = get_u32(r, &len);

	if (rc)
		return rc;
	if (len > RK_INDEX_MAX_PATH || (size_t)(r->end - r->p) < len || (!len && !allow_empty))
		return -EBADMSG;
	if (!len) {
		*out = NULL;
		return 0;
	}
	if (memchr(r->p, '\0', len))
		return -EBADMSG;
	if (!(s = malloc(len + 1)))
		return -ENOMEM;
	memcpy(s, r->p, len);
	s[len] = '\0';
	r->p += len;
	*out = s;
	return 0;
}

static int valid_rel(const char *s)
{
	char tmp[RK_INDEX_MAX_PATH + 1];
	int n = rk_path_normalize(s, tmp, sizeof(tmp));

	return n > 0 && !strcmp(tmp, s);
}

int rk_index_parse(const void *data, size_t len, struct rk_index *out, struct rk_err *err)
{
	static const char digits[] = "0123456789abcdef";
	struct reader r = {data, (const unsigned char *)data + len};
	struct rk_index idx = {0};
	uint32_t version, np, nm;
	char magic[4], sha[64];
	int rc;

	if ((rc = get(&r, magic, 4)) || memcmp(magic, INDEX_MAGIC, 4) ||
	    (rc = get_u32(&r, &version)) || version != INDEX_VERSION)
		return rk_err_set(err, -EBADMSG, "index: bad magic or version");
	if ((rc = get_u64(&r, &idx.archive_size)) || (rc = get(&r, sha, 64)) ||
	    (rc = get_u32(&r, &np)) || (rc = get_u32(&r, &nm)))
		goto bad;
	if (sha[0]) {
		memcpy(idx.archive_sha256, sha, 64);
		idx.archive_sha256[64] = '\0';
		if (!rk_is_sha256_hex(idx.archive_sha256))
			goto bad;
	} else {
		for (int i = 0; i < 64; i++)
			if (sha[i])
				goto bad;
	}
	if (np > 65536 || nm > RK_INDEX_MAX_MEMBERS || nm > len / 26)
		goto bad;
	if (np && !(idx.prefixes = calloc(np, sizeof(char *))))
		goto nomem;
	while (idx.nprefixes < np) {
		if ((rc = get_str(&r, &idx.prefixes[idx.nprefixes], 0)))
			goto fail;
		if (!valid_rel(idx.prefixes[idx.nprefixes++])) /* owned by idx from here */
			goto bad;
	}
	if (nm && !(idx.v = calloc(nm, sizeof(*idx.v))))
		goto nomem;
	idx.cap = nm;
	for (; idx.n < nm;) {
		struct rk_member *m = &idx.v[idx.n];
		uint8_t has_blob;

		if ((rc = get(&r, &m->type, 1)) || (rc = get_u32(&r, &m->mode)) ||
		    (rc = get_u64(&r, &m->size)) || (rc = get_u64(&r, (uint64_t *)&m->mtime)) ||
		    (rc = get(&r, &has_blob, 1)))
			goto fail;
		if (m->type < RK_MEMBER_FILE || m->type > RK_MEMBER_HARDLINK ||
		    (m->mode & ~01777u) || has_blob > 1)
			goto bad;
		if (has_blob) {
			unsigned char bin[32];

			if ((rc = get(&r, bin, 32)))
				goto fail;
			for (int j = 0; j < 32; j++) {
				m->blob[2 * j] = digits[bin[j] >> 4];
				m->blob[2 * j + 1] = digits[bin[j] & 15];
			}
			m->blob[64] = '\0';
		}
		idx.n++; /* from here the member owns what get_str gives it */
		if ((rc = get_str(&r, &m->path, 0)) || (rc = get_str(&r, &m->link, 1)))
			goto fail;
		/* a name ingest refuses (rk_path_unwritable): an index an older rockfs wrote;
		 * dropped as corrupt, the archive is ingested again and the name refused */
		if (!valid_rel(m->path) || rk_path_unwritable(m->path))
			goto bad;
		if ((m->type == RK_MEMBER_SYMLINK || m->type == RK_MEMBER_HARDLINK) != !!m->link)
			goto bad;
		/* a file with bytes and no blob: one the cache could not hold (ingest.c) */
		if (has_blob &&
		    !((m->type == RK_MEMBER_FILE || m->type == RK_MEMBER_HARDLINK) && m->size > 0))
			goto bad;
	}
	if (r.p != r.end)
		goto bad;
	*out = idx;
	return 0;
bad:
	rc = -EBADMSG;
	goto fail;
nomem:
	rc = -ENOMEM;
fail:
	rk_index_release(&idx);
	return rk_err_set(err, rc == -ENOMEM ? rc : -EBADMSG, "index: %s",
			  rc == -ENOMEM ? "out of memory" : "corrupt");
}

int rk_index_parse_manifest(struct rk_index *idx, const char *text, size_t len, struct rk_err *err)
{
	const char *p = text, *end = text + len;
	char line[RK_INDEX_MAX_PATH + 1], norm[RK_INDEX_MAX_PATH + 1];
	int rc;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);

		if (n && p[n - 1] == '\r')
			n--;
		if (n > RK_INDEX_MAX_PATH || memchr(p, '\0', n))
			return rk_err_set(err, -EPROTO, "artifact_manifest.txt: bad line");
		memcpy(line, p, n);
		line[n] = '\0';
		p = nl ? nl + 1 : end;
		if (strspn(line, " \t") == n)
			continue;
		rc = rk_path_normalize(line, norm, sizeof(norm));
		if (rc <= 0 || strcmp(norm, line))
			return rk_err_set(err, -EPROTO, "artifact_manifest.txt: bad prefix '%s'",
					  line);
		if ((rc = rk_index_add_prefix(idx, norm)))
			return rc;
	}
	return 0;
}
