/* wheel.c: a wheel from its members (services/wheel.h; the python view's synthesized
 * wheels and its kpack split of stored fat wheels): PEP 427 dist-info (METADATA, WHEEL,
 * top_level.txt, RECORD last, as bdist_wheel writes them), members sorted, laid out as a
 * zip of stored entries over cache blobs (formats/archive/zip_layout.h). RECORD's hashes are the
 * blobs' content ids; the CRC-32 of a blob is its recorded xattr, that of a composite file
 * (a rewritten binary, a .kpack) is computed once and kept as pyhash/sums-<digest>.
 * It also writes the blobs the view makes from composites (pymade) and names python/'s
 * pyhash/ records. */
#include <errno.h>
#include <libdeflate.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk/buf.h"
#include "rk/cache.h"
#include "rk/hash.h"
#include "rk/log.h"
#include "cache/composite_read.h"
#include "cache/tar_compress.h"
#include "cache/memo.h"
#include "services/wheel.h"
#include "formats/archive/zip_layout.h"
#include "util/array.h"

int pywheel_blob_open(struct rk_vfs *v, const char *id, uint64_t size, struct artifact *origin,
		      int *fd, struct rk_err *err)
{
	int rc = rk_blob_open(v->cache, id, size, fd, err);

	if ((rc == -ENOENT || rc == -EBADMSG) && origin) {
		rk_err_clear(err);
		rc = vfs_artifact_refill(v, origin, id, size, fd, err);
	}
	return rc;
}

void pywheel_release(struct pywheel *p)
{
	struct pyentry *e, *t;

	HASH_ITER(hh, p->ents, e, t) {
		HASH_DEL(p->ents, e);
		free(e->name);
		free(e->data);
		free(e);
	}
	rk_buf_release(&p->sources);
}

int pywheel_add(struct pywheel *p, const char *name, uint32_t mode, uint64_t size, const char *blob,
		char *data, const struct rk_composite *composite, struct artifact *origin)
{
	struct pyentry *e;

	if (!blob && !composite && !data && !(data = strdup("")))
		return -ENOMEM;
	HASH_FIND_STR(p->ents, name, e);
	if (e) {
		free(data);
		return 0;
	}
	if (!(e = calloc(1, sizeof(*e))) || !(e->name = strdup(name))) {
		free(e);
		free(data);
		return -ENOMEM;
	}
	e->mode = mode;
	e->size = size;
	if (blob)
		memcpy(e->blob, blob, RK_SHA256_HEX);
	e->data = data;
	e->composite = blob || data ? NULL : composite;
	e->origin = origin;
	HASH_ADD_KEYPTR(hh, p->ents, e->name, strlen(e->name), e);
	return rk_htab_oom() ? -ENOMEM : 0;
}

int pywheel_add_buf(struct pywheel *p, const char *name, struct rk_buf *b)
{
	size_t len = b->len;
	char *d = rk_buf_detach(b, NULL);

	return d ? pywheel_add(p, name, S_IFREG | 0644, len, NULL, d, NULL, NULL) : -ENOMEM;
}

int pywheel_add_str(struct pywheel *p, const char *name, const char *s)
{
	char *d = strdup(s);

	return d ? pywheel_add(p, name, S_IFREG | 0644, strlen(d), NULL, d, NULL, NULL) : -ENOMEM;
}

/* The CRC-32 and SHA-256 of a file that is a composite (a rewritten binary, a .kpack
 * archive): read through once, then remembered as pyhash/sums-<composite digest>
 * ("<crc hex> <sha256 hex>"). */
struct sums {
	struct rk_vfs *v;
	const struct rk_composite *l;
	uint32_t *crc;
	char *hex;
};

static int sums_load(void *ctx, char *data, size_t len)
{
	struct sums *s = ctx;
	unsigned c;

	(void)len;
	if (sscanf(data, "%8x %64s", &c, s->hex) != 2 || !rk_is_sha256_hex(s->hex))
		return -EINVAL;
	*s->crc = c;
	return 0;
}

static int sums_compute(void *ctx, struct rk_buf *rec, struct rk_err *err)
{
	struct sums *s = ctx;
	const struct rk_composite *l = s->l;
	struct rk_sha256 h;
	char *buf;
	int rc;

	if (!(buf = malloc(1 << 20)))
		return -ENOMEM;
	if ((rc = rk_sha256_init(&h))) {
		free(buf);
		return rc;
	}
	*s->crc = 0;
	for (uint64_t off = 0; !rc && off < l->size;) {
		size_t n = (size_t)RK_MIN((uint64_t)(1 << 20), l->size - off);
		ssize_t r = rk_composite_pread_blobs(s->v->cache, l, buf, n, off, NULL);

		if (r <= 0) {
			rc = rk_err_set(err, -EIO, "reading a synthesized member at %llu",
					(unsigned long long)off);
		} else {
			rk_sha256_update(&h, buf, (size_t)r);
			*s->crc = (uint32_t)libdeflate_crc32(*s->crc, buf, (size_t)r);
			off += (uint64_t)r;
		}
	}
	free(buf);
	if (rc) {
		rk_sha256_release(&h);
		return rc;
	}
	rk_sha256_final(&h, s->hex);
	return rk_buf_addf(rec, "%08x %s\n", (unsigned)*s->crc, s->hex);
}

static int composite_sums(struct rk_vfs *v, const struct rk_composite *l, uint32_t *crc,
			  char hex[RK_SHA256_HEX], struct rk_err *err)
{
	struct sums s = {v, l, crc, hex};
	const struct rk_memo m = {sums_load, sums_compute, &s, 256};
	char key[RK_SHA256_HEX], rel[128];
	int rc;

	if ((rc = pywheel_composite_digest(l, key)))
		return rc;
	snprintf(rel, sizeof(rel), "pyhash/sums-%s", key);
	return rk_memo_load_or_compute(v->cache, "pyhash", rel, &m, NULL, err); /* best effort */
}

/* ---- deflated members ---- */

#define DEFLATE_LEVEL 6 /* zlib's default, as Python's zipfile (and so bdist_wheel) use */

static pthread_mutex_t compute_lock = PTHREAD_MUTEX_INITIALIZER;

/* How piece i is read: opened in the cache, compressed again when missing or damaged. */
struct pzorigin {
	struct rk_origin o; /* first: the composite reader calls through it */
	struct pywheelz *w;
	size_t i;
};

struct pywheelz {
	struct rk_cache *cache;
	char *file; /* the wheel's name, for the log */
	struct rk_zip_member *m; /* names owned; blob, data, composite unused */
	size_t n;
	int64_t mtime;
	struct rk_composite raw; /* the members' contents end to end */
	size_t *first; /* member i's pieces are first[i] .. first[i + 1] - 1 */
	struct rk_tarz *z;
	struct pzorigin *origins; /* one per piece */
	_Atomic int logged; /* the reuse counts were logged */
};

static int pz_reopen(struct rk_origin *o, const char *id, uint64_t size, int *fd,
		     struct rk_err *err)
{
	struct pzorigin *p = (struct pzorigin *)o;
	struct rk_err why = RK_ERR_INIT;
	int rc;

	(void)id;
	(void)size;
	rk_err_clear(err); /* not a blob: the miss in blobs/ is expected */
	rc = rk_tarz_open_piece(p->w->z, p->i, p->w->cache, &p->w->raw, fd, &why);
	/* the reader's log line names the wheel */
	return rc ? rk_err_set(err, rc, "%s: %s", p->w->file, rk_err_str(&why, rc)) : 0;
}

void pywheelz_free(struct pywheelz *w)
{
	if (!w)
		return;
	for (size_t i = 0; w->m && i < w->n; i++)
		free((char *)w->m[i].name);
	free(w->m);
	free(w->file);
	free(w->first);
	free(w->origins);
	rk_tarz_free(w->z);
	rk_composite_release(&w->raw);
	free(w);
}

/* The deflated counterpart of the wheel of members zm[0..n). */
static int wheelz_plan(struct rk_vfs *v, const char *file, const struct rk_zip_member *zm, size_t n,
		       int64_t mtime, struct pywheelz **out)
{
	struct pywheelz *w = calloc(1, sizeof(*w));
	uint64_t *ends = calloc(n + 1, sizeof(*ends));
	int rc = 0;

	if (!w || !ends || !(w->file = strdup(file)) || !(w->m = calloc(n + 1, sizeof(*w->m))) ||
	    !(w->first = calloc(n + 1, sizeof(*w->first)))) {
		free(ends);
		pywheelz_free(w);
		return -ENOMEM;
	}
	w->cache = v->cache;
	w->mtime = mtime;
	for (size_t i = 0; !rc && i < n; i++) {
		uint32_t src;

		w->m[i] = (struct rk_zip_member){
			.mode = zm[i].mode, .size = zm[i].size, .crc = zm[i].crc};
		if (!(w->m[i].name = strdup(zm[i].name))) {
			rc = -ENOMEM;
			break;
		}
		w->n = i + 1;
		if (!zm[i].size)
			;
		else if (zm[i].blob &&
			 !(rc = rk_composite_add_source(&w->raw, zm[i].blob, zm[i].size,
							zm[i].origin, &src)))
			rc = rk_composite_source(&w->raw, src, 0, zm[i].size);
		else if (!zm[i].blob && zm[i].data)
			rc = rk_composite_bytes(&w->raw, zm[i].data, (size_t)zm[i].size);
		else if (!zm[i].blob)
			rc = rk_composite_append(&w->raw, zm[i].composite);
		ends[i] = w->raw.size;
	}
	if (!rc)
		rc = rk_tarz_plan_members(&w->raw, ends, n, DEFLATE_LEVEL, &w->z);
	if (!rc && !(w->origins = calloc(w->z->npieces + 1, sizeof(*w->origins))))
		rc = -ENOMEM;
	if (!rc) {
		size_t k = 0;

		for (size_t i = 0; i < w->z->npieces; i++)
			w->origins[i] = (struct pzorigin){{pz_reopen}, w, i};
		/* member i's pieces: those that start before its end */
		for (size_t i = 0; i < n; i++) {
			w->first[i] = k;
			while (k < w->z->npieces && w->z->pieces[k].uoff < ends[i])
				k++;
		}
		w->first[n] = k;
	}
	free(ends);
	if (rc) {
		pywheelz_free(w);
		return rc;
	}
	*out = w;
	return 0;
}

int pywheelz_make(struct rk_vfs *v, struct pywheelz *w, struct rk_composite **out,
		  struct rk_err *err)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct rk_zip_member *m = NULL;
	struct rk_composite *parts = NULL, *l = NULL;
	int rc;

	(void)v;
	/* one wheel at a time (each on every core): a member two wheels share is then found
	 * by the second, not deflated by both at once */
	pthread_mutex_lock(&compute_lock);
	rc = rk_tarz_compute(w->z, w->cache, &w->raw, ncpu > 0 ? (unsigned)ncpu : 1, err);
	pthread_mutex_unlock(&compute_lock);
	if (rc)
		return rc;
	if (!atomic_exchange(&w->logged, 1))
		rk_info("%s%sdeflated: %zu pieces, %u compressed, %u from the cache",
			rk_log_where ? "" : w->file, rk_log_where ? "" : ": ", w->z->npieces,
			w->z->compressed, w->z->reused);
	if (!(m = calloc(w->n + 1, sizeof(*m))) || !(parts = calloc(w->n + 1, sizeof(*parts))) ||
	    !(l = calloc(1, sizeof(*l)))) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; !rc && i < w->n; i++) {
		m[i] = w->m[i];
		if (!m[i].size)
			continue; /* stored: nothing to deflate */
		m[i].method = RK_ZIP_DEFLATED;
		m[i].composite = &parts[i];
		for (size_t k = w->first[i]; !rc && k < w->first[i + 1]; k++) {
			const struct rk_tarz_piece *p = &w->z->pieces[k];
			uint32_t src;

			m[i].csize += p->clen;
			/* the piece's key names it; no blob has that name, so it is read
			 * through its origin (the cached piece) */
			if (!(rc = rk_composite_add_source(&parts[i], p->key, p->clen,
							   &w->origins[k].o, &src)))
				rc = rk_composite_source(&parts[i], src, 0, p->clen);
		}
	}
	if (!rc && (rc = rk_zip_layout_build(m, w->n, w->mtime, l)))
		rc = rk_err_set(err, rc, "deflated wheel layout: %s", strerror(-rc));
out:
	for (size_t i = 0; parts && i < w->n; i++)
		rk_composite_release(&parts[i]);
	free(parts);
	free(m);
	if (rc) {
		free(l);
		return rc;
	}
	*out = l;
	return 0;
}

static int b64url_of_hex(const char *hex, char out[44])
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	unsigned char d[33] = {0};
	size_t o = 0;

	for (int i = 0; i < 32; i++) {
		unsigned v;

		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return -EINVAL;
		d[i] = (unsigned char)v;
	}
	for (int i = 0; i < 33; i += 3) {
		uint32_t w = (uint32_t)d[i] << 16 | (uint32_t)d[i + 1] << 8 | d[i + 2];

		for (int k = 0; k < 4 && o < 43; k++)
			out[o++] = tab[(w >> (18 - 6 * k)) & 63];
	}
	out[43] = '\0';
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp((*(struct pyentry *const *)a)->name, (*(struct pyentry *const *)b)->name);
}

/* "{dist}-{version}" with '-' escaped to '_' in both (PEP 427), in out[n]. */
static void dist_stem(const char *version, const char *dist, char *out, size_t n)
{
	snprintf(out, n, "%s-%s", dist, version);
	for (size_t i = 0; out[i]; i++)
		if (out[i] == '-' && i != strlen(dist))
			out[i] = '_';
}

static int is_dist_info(const char *name, const char *stem)
{
	size_t n = strlen(stem);

	return !strncmp(name, stem, n) && !strncmp(name + n, ".dist-info/", 11);
}

int pywheel_finish(struct rk_vfs *v, struct pywheel *p, const struct pywheel_info *in,
		   struct pysynth_set *out, struct rk_err *err)
{
	const char *dist = in->dist, *requires = in->requires, *summary = in->summary;
	struct rk_buf meta = RK_BUF_INIT, rec = RK_BUF_INIT, tmp = RK_BUF_INIT, lay = RK_BUF_INIT;
	struct pyentry **order = NULL, *e, *t;
	struct rk_zip_member *zm = NULL;
	struct rk_composite *l = NULL;
	const int *deflate = vfs_config(v, "python"); /* wheel_compression=deflate */
	char stem[300], name[600];
	size_t n = 0;
	int rc;

	if (strlen(in->version) >= 128 || strlen(in->tag) >= 96)
		return rk_err_set(err, -ENAMETOOLONG, "version or tag too long");
	dist_stem(in->version, dist, stem, sizeof(stem));
	rc = rk_buf_addf(&meta, "Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: %s\n", dist,
			 in->version, summary);
	if (!rc && requires)
		rc = rk_buf_addf(&meta, "Requires-Dist: %s\n", requires);
	if (!rc) {
		snprintf(name, sizeof(name), "%s.dist-info/METADATA", stem);
		rc = pywheel_add_buf(p, name, &meta);
	}
	if (!rc && !(rc = rk_buf_addf(&tmp,
				      "Wheel-Version: 1.0\nGenerator: rockfs\nRoot-Is-Purelib: "
				      "false\nTag: %s\n",
				      in->tag))) {
		snprintf(name, sizeof(name), "%s.dist-info/WHEEL", stem);
		rc = pywheel_add_buf(p, name, &tmp);
	}
	if (!rc) {
		snprintf(name, sizeof(name), "%s.dist-info/top_level.txt", stem);
		rc = pywheel_add_str(p, name, in->top_level);
	}
	if (!rc && in->entry_points) {
		snprintf(name, sizeof(name), "%s.dist-info/entry_points.txt", stem);
		rc = pywheel_add_str(p, name, in->entry_points);
	}
	if (rc)
		goto out;
	/* members sorted, then the dist-info files as bdist_wheel writes them, RECORD last */
	if (!(order = malloc((HASH_COUNT(p->ents) + 2) * sizeof(*order)))) {
		rc = -ENOMEM;
		goto out;
	}
	HASH_ITER(hh, p->ents, e, t) {
		if (!is_dist_info(e->name, stem))
			order[n++] = e;
	}
	qsort(order, n, sizeof(*order), cmp_entry);
	/* bdist_wheel's order: METADATA, WHEEL, entry_points.txt, top_level.txt */
	for (int i = 0; i < 4; i++) {
		static const char *const di[] = {"METADATA", "WHEEL", "entry_points.txt",
						 "top_level.txt"};

		snprintf(name, sizeof(name), "%s.dist-info/%s", stem, di[i]);
		HASH_FIND_STR(p->ents, name, e);
		if (e)
			order[n++] = e;
	}
	if (!(zm = calloc(n + 1, sizeof(*zm)))) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; !rc && i < n; i++) {
		char hex[RK_SHA256_HEX], b64[44];

		e = order[i];
		zm[i].name = e->name;
		zm[i].mode = e->mode;
		zm[i].size = e->size;
		zm[i].origin = e->origin ? &e->origin->blob_origin : NULL;
		if (e->blob[0]) {
			zm[i].blob = e->blob;
			memcpy(hex, e->blob, RK_SHA256_HEX);
			rc = rk_blob_crc32(v->cache, e->blob, e->size, &zm[i].crc, err);
			if (rc == -ENOENT || rc == -EBADMSG) { /* evicted: re-create it */
				int fd;

				rk_err_clear(err);
				if (!(rc = pywheel_blob_open(v, e->blob, e->size, e->origin, &fd,
							     err))) {
					close(fd);
					rc = rk_blob_crc32(v->cache, e->blob, e->size, &zm[i].crc,
							   err);
				}
			}
		} else if (e->composite) {
			zm[i].composite = e->composite;
			rc = composite_sums(v, e->composite, &zm[i].crc, hex, err);
		} else {
			zm[i].data = e->data;
			zm[i].crc = (uint32_t)libdeflate_crc32(0, e->data, e->size);
			rc = rk_sha256_buf(e->data, e->size, hex);
		}
		if (!rc && !(rc = b64url_of_hex(hex, b64)))
			rc = rk_buf_addf(&rec, "%s,sha256=%s,%llu\n", e->name, b64,
					 (unsigned long long)e->size);
	}
	/* the platform layout the devel tree links to (not the directory's own
	 * __init__.py: _rocm_sdk_devel has its own) */
	for (size_t i = 0; !rc && i < n; i++) {
		const char *slash = strchr(order[i]->name, '/');

		if (!strncmp(order[i]->name, "_rocm_sdk_", 10) && slash &&
		    strcmp(slash + 1, "__init__.py"))
			rc = rk_buf_add(&lay, order[i]->name, strlen(order[i]->name) + 1);
	}
	snprintf(name, sizeof(name), "%s.dist-info/RECORD", stem);
	if (!rc)
		rc = rk_buf_addf(&rec, "%s,,\n", name);
	if (rc)
		goto out;
	zm[n].name = name;
	zm[n].mode = S_IFREG | 0644;
	zm[n].size = rec.len;
	zm[n].data = rec.buf;
	zm[n].crc = (uint32_t)libdeflate_crc32(0, rec.buf, rec.len);
	if (!(l = calloc(1, sizeof(*l)))) {
		rc = -ENOMEM;
		goto out;
	}
	if ((rc = rk_zip_layout_build(zm, n + 1, in->mtime, l))) {
		free(l);
		goto out;
	}
	{
		struct pywheelz *wz = NULL;
		struct pysynth *ps;
		char file[600];

		snprintf(file, sizeof(file), "%s-%s.whl", stem, in->tag);
		/* (before name, RECORD's, is reused) */
		if (deflate && *deflate && (rc = wheelz_plan(v, file, zm, n + 1, in->mtime, &wz))) {
			rk_composite_free(l);
			goto out;
		}
		snprintf(name, sizeof(name), "%s.dist-info/METADATA", stem);
		HASH_FIND_STR(p->ents, name, e);
		if (!(ps = pysynth_push(out)) || !(ps->file = strdup(file)) ||
		    !(ps->meta = malloc(e->size + 1)) ||
		    !(ps->from = strdup(in->from	 ? in->from
					: p->sources.buf ? p->sources.buf
							 : ""))) {
			rk_composite_free(l);
			pywheelz_free(wz);
			rc = -ENOMEM;
			goto out;
		}
		memcpy(ps->meta, e->data, e->size);
		ps->meta[e->size] = '\0';
		ps->meta_len = e->size;
		/* the platform layout, which a stored wheel of its name is checked against */
		if (lay.len) {
			ps->members = lay.buf;
			ps->members_len = lay.len;
			lay = (struct rk_buf)RK_BUF_INIT;
		}
		ps->zip = l;
		ps->size = l->size;
		rc = pywheel_composite_digest(l, ps->key);
		ps->wz = wz;
		if (!rc && wz) {
			/* its identity: the stored wheel's, deflated */
			char id[100];

			snprintf(id, sizeof(id), "%.64s deflate %d", ps->key, DEFLATE_LEVEL);
			rc = rk_sha256_buf(id, strlen(id), ps->key);
			rk_composite_free(ps->zip);
			ps->zip = NULL;
			ps->size = UINT64_MAX;
		}
	}
out:
	free(zm);
	free(order);
	rk_buf_release(&meta);
	rk_buf_release(&rec);
	rk_buf_release(&tmp);
	rk_buf_release(&lay);
	return rc;
}

struct pysynth *pysynth_push(struct pysynth_set *s)
{
	if (RK_GROW(s->v, s->cap, s->n, 8))
		return NULL;
	memset(&s->v[s->n], 0, sizeof(s->v[0]));
	return &s->v[s->n++];
}

/* Write composite l into a cache blob once (remembered under pyhash/), id in id. */
struct blobmemo {
	struct rk_vfs *v;
	const struct rk_composite *l;
	char *id;
};

static int blob_load(void *ctx, char *data, size_t len)
{
	struct blobmemo *m = ctx;

	if (len < RK_SHA256_HEX - 1)
		return -EINVAL;
	data[RK_SHA256_HEX - 1] = '\0';
	if (!rk_is_sha256_hex(data) || !rk_blob_exists(m->v->cache, data, m->l->size))
		return -ENOENT;
	memcpy(m->id, data, RK_SHA256_HEX);
	return 0;
}

static int blob_compute(void *ctx, struct rk_buf *rec, struct rk_err *err)
{
	struct blobmemo *m = ctx;
	const struct rk_composite *l = m->l;
	struct rk_blob_writer *w;
	char *buf;
	int rc;

	if (!(buf = malloc(1 << 20)))
		return -ENOMEM;
	if ((rc = rk_blob_create(m->v->cache, 1, &w, err))) {
		free(buf);
		return rc;
	}
	for (uint64_t off = 0; !rc && off < l->size;) {
		size_t n = (size_t)RK_MIN((uint64_t)(1 << 20), l->size - off);
		ssize_t r = rk_composite_pread_blobs(m->v->cache, l, buf, n, off, NULL);

		if (r <= 0)
			rc = rk_err_set(err, -EIO, "reading the devel tarball at %llu",
					(unsigned long long)off);
		else if (!(rc = rk_blob_write(w, buf, (size_t)r, err)))
			off += (uint64_t)r;
	}
	free(buf);
	if (rc) {
		rk_blob_abort(w);
		return rc;
	}
	if ((rc = rk_blob_commit(w, m->id, err)))
		return rc;
	return rk_buf_addf(rec, "%s\n", m->id);
}

static int materialize(struct rk_vfs *v, const struct rk_composite *l, char id[RK_SHA256_HEX],
		       struct rk_err *err)
{
	struct blobmemo bm = {v, l, id};
	const struct rk_memo m = {blob_load, blob_compute, &bm, 128};
	char key[RK_SHA256_HEX], rel[128];
	int rc, unkept;

	if ((rc = pywheel_composite_digest(l, key)))
		return rc;
	snprintf(rel, sizeof(rel), "pyhash/blob-%s", key);
	if ((rc = rk_memo_load_or_compute(v->cache, "pyhash", rel, &m, &unkept, err)))
		return rc;
	if (unkept)
		rk_warn("python: could not remember the devel tarball in the cache");
	return 0;
}

/* ---- blobs the view writes (pymade) ---- */

/* An artifact with no archive whose one file is a blob written from a composite: its
 * refill (the engine's, when the blob is missing) writes the blob again. */
struct pymade {
	struct artifact a; /* first: a struct artifact * is a struct pymade * */
	struct rk_artifact art;
	struct rk_composite c;
};

static int made_refill(struct rk_vfs *v, struct artifact *a, struct rk_err *err)
{
	char id[RK_SHA256_HEX];

	return materialize(v, &((struct pymade *)a)->c, id, err);
}

int pymade_new(struct rk_vfs *v, struct run *r, const char *name, struct rk_composite *c,
	       struct artifact **out)
{
	struct pymade *m = calloc(1, sizeof(*m));

	if (!m || !(m->art.file = strdup(name)) || !(m->art.stem = strdup(name))) {
		if (m)
			free(m->art.file);
		free(m);
		return -ENOMEM;
	}
	vfs_artifact_init(&m->a);
	m->a.v = v;
	m->a.run = r;
	m->a.art = &m->art;
	m->a.state = ART_DONE;
	m->a.refill_fn = made_refill;
	m->c = *c;
	*c = (struct rk_composite)RK_COMPOSITE_INIT;
	*out = &m->a;
	return 0;
}

int pymade_write(struct rk_vfs *v, struct artifact *made, char id[RK_SHA256_HEX],
		 struct rk_err *err)
{
	return materialize(v, &((struct pymade *)made)->c, id, err);
}

void pymade_free(struct artifact *made)
{
	struct pymade *m = (struct pymade *)made;

	if (!m)
		return;
	vfs_artifact_release(&m->a);
	rk_composite_release(&m->c);
	free(m->art.file);
	free(m->art.stem);
	free(m);
}

void pysynth_truncate(struct pysynth_set *s, size_t n)
{
	for (size_t i = n; i < s->n; i++) {
		free(s->v[i].file);
		rk_composite_free(s->v[i].zip);
		pywheelz_free(s->v[i].wz);
		free(s->v[i].bytes);
		free(s->v[i].meta);
		free(s->v[i].from);
		free(s->v[i].members);
		pymade_free(s->v[i].made);
	}
	if (n < s->n)
		s->n = n;
}

void pysynth_release(struct pysynth_set *s)
{
	pysynth_truncate(s, 0);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

int pywheel_composite_digest(const struct rk_composite *l, char hex[RK_SHA256_HEX])
{
	struct rk_sha256 h;
	int rc = rk_sha256_init(&h);

	if (rc)
		return rc;
	/* what it hashes is what the segment lists before composites hashed, so that the
	 * sums and blobs remembered under those digests stay found */
	for (size_t i = 0; i < l->npieces; i++) {
		const struct rk_piece *g = &l->pieces[i];

		rk_sha256_update(&h, &g->kind, 1);
		rk_sha256_update(&h, &g->len, sizeof(g->len));
		if (g->kind == RK_PIECE_BYTES)
			rk_sha256_update(&h, l->arena + g->at, g->len);
		else if (g->kind == RK_PIECE_SOURCE) {
			rk_sha256_update(&h, l->sources[g->src].id, RK_SHA256_HEX);
			rk_sha256_update(&h, &g->at, sizeof(g->at));
		}
	}
	rk_sha256_final(&h, hex);
	return 0;
}

struct pywheel *pywheel_new(void)
{
	struct pywheel *w = calloc(1, sizeof(*w));

	if (w)
		w->sources = (struct rk_buf)RK_BUF_INIT;
	return w;
}

void pywheel_free(struct pywheel *w)
{
	if (w) {
		pywheel_release(w);
		free(w);
	}
}

int vfs_pyhash_rel(struct rk_vfs *v, const char *kind, const char *path, uint64_t size,
		   int64_t mtime_ns, char rel[RK_MEMO_NAME])
{
	char sz[32], mt[32];
	const char *parts[] = {kind, rk_store_id(v->store), path, sz, mt};

	snprintf(sz, sizeof(sz), "%llu", (unsigned long long)size);
	snprintf(mt, sizeof(mt), "%lld", (long long)mtime_ns);
	return rk_memo_name("pyhash", kind, parts, 5, rel);
}
