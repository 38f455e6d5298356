/* kpack.c: .kpack archives (writer as a composite, reader) and the .rocm_kpack_ref
 * marker (kpack-format.md sections 1, 3.1); the runtime's lookup over real files is
 * services/kpack_lookup.c.
 *
 * The reader is stricter than the runtime where a stricter check only rejects files no
 * writer produces: nothing may follow the TOC, the compression scheme must be known, blob
 * ranges and the zstd region must lie between the header and the TOC, the zstd region
 * must end with its last frame, and a (key, arch) pair must not appear twice. The TOC and
 * the marker are read with formats/archive/msgpack_read.h (bounded, then msgpack-c's tree). */
#include <errno.h>
#include <limits.h>
#include <msgpack.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "rk/buf.h"
#include "formats/archive/msgpack_read.h"
#include "rk/kpack.h"
#include "util/le.h"

#define KPACK_MAGIC "KPAK"
#define KPACK_VERSION 1u
#define KPACK_HEADER 16 /* magic, version, toc_offset */
#define KPACK_BLOB_START 64
#define ZSTD_MAX_REGION (4ull << 30) /* the runtime's limits */
#define ZSTD_MAX_KERNELS 1048576u
#define ZSTD_LEVEL 3
#define MARKER_MAX (64u * 1024) /* MAX_METADATA_SIZE */
#define SCHEME_NONE "none"
#define SCHEME_ZSTD "zstd-per-kernel"
#define GFXARCH "@GFXARCH@"

/* msgpack writing ---------------------------------------------------------------------- */

/* The packer's callback result is checked once at the end: msgpack_sbuffer_write only
 * fails on ENOMEM, and a failed write leaves the buffer short, which nobody uses. */
struct mp_out {
	msgpack_sbuffer sb;
	msgpack_packer pk;
	int failed;
};

static int mp_write(void *data, const char *buf, size_t len)
{
	struct mp_out *o = data;

	if (o->failed || msgpack_sbuffer_write(&o->sb, buf, len)) {
		o->failed = 1;
		return -1;
	}
	return 0;
}

static void mp_init(struct mp_out *o)
{
	msgpack_sbuffer_init(&o->sb);
	msgpack_packer_init(&o->pk, o, mp_write);
	o->failed = 0;
}

static void mp_str(struct mp_out *o, const char *s)
{
	size_t n = strlen(s);

	msgpack_pack_str(&o->pk, n);
	msgpack_pack_str_body(&o->pk, s, n);
}

/* Writing ------------------------------------------------------------------------------- */

struct group {
	size_t first; /* index of the key's first kernel */
	size_t *v; /* its kernels in order */
	size_t n;
};

struct keyed {
	const char *key;
	size_t i;
};

static int keyed_cmp(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : (x->i > y->i) - (x->i < y->i);
}

static int group_cmp(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	return (x->first > y->first) - (x->first < y->first);
}

/* Group k[] by key in first-appearance order (a Python dict's insertion order). The
 * groups' v point into *idx. */
static int group_kernels(const struct rk_kpack_kernel *k, size_t n, size_t **idx,
			 struct group **groups, size_t *ngroups, struct rk_err *err)
{
	struct keyed *s = malloc((n ? n : 1) * sizeof(*s));
	size_t *v = malloc((n ? n : 1) * sizeof(*v));
	struct group *g = malloc((n ? n : 1) * sizeof(*g));
	size_t ng = 0;
	int rc = 0;

	if (!s || !v || !g) {
		rc = rk_err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (!k[i].key || !k[i].arch) {
			rc = rk_err_set(err, -EINVAL, "kernel %zu has no key or arch", i);
			goto out;
		}
		s[i].key = k[i].key;
		s[i].i = i;
	}
	qsort(s, n, sizeof(*s), keyed_cmp);
	for (size_t i = 0; i < n; i++) {
		v[i] = s[i].i;
		if (i && !strcmp(s[i].key, s[i - 1].key)) {
			struct group *cur = &g[ng - 1];

			for (size_t j = 0; j < cur->n; j++)
				if (!strcmp(k[cur->v[j]].arch, k[v[i]].arch)) {
					rc = rk_err_set(err, -EINVAL,
							"kernel '%s' for '%s' given twice",
							k[v[i]].key, k[v[i]].arch);
					goto out;
				}
			cur->n++;
			continue;
		}
		g[ng].first = v[i];
		g[ng].v = &v[i];
		g[ng].n = 1;
		ng++;
	}
	qsort(g, ng, sizeof(*g), group_cmp);
out:
	free(s);
	if (rc) {
		free(v);
		free(g);
		return rc;
	}
	*idx = v;
	*groups = g;
	*ngroups = ng;
	return 0;
}

/* The TOC in the reference writer's key order. */
static int pack_toc(struct mp_out *o, const char *group, const char *const *arches, size_t narches,
		    const struct rk_kpack_kernel *k, const struct group *g, size_t ng, int scheme,
		    const uint64_t *blob_off, uint64_t zstd_size)
{
	msgpack_packer *pk = &o->pk;

	msgpack_pack_map(pk, scheme == RK_KPACK_NONE ? 7 : 8);
	mp_str(o, "format_version");
	msgpack_pack_uint64(pk, 1);
	mp_str(o, "group_name");
	mp_str(o, group);
	mp_str(o, "gfx_arch_family");
	mp_str(o, narches ? arches[0] : "");
	mp_str(o, "gfx_arches");
	msgpack_pack_array(pk, narches);
	for (size_t i = 0; i < narches; i++)
		mp_str(o, arches[i]);
	mp_str(o, "toc");
	msgpack_pack_map(pk, ng);
	for (size_t i = 0; i < ng; i++) {
		mp_str(o, k[g[i].first].key);
		msgpack_pack_map(pk, g[i].n);
		for (size_t j = 0; j < g[i].n; j++) {
			const struct rk_kpack_kernel *e = &k[g[i].v[j]];
			size_t nmeta = (e->target != NULL) + (e->source_prefix != NULL);

			mp_str(o, e->arch);
			msgpack_pack_map(pk, nmeta ? 4 : 3);
			mp_str(o, "type");
			mp_str(o, "hsaco");
			mp_str(o, "ordinal");
			msgpack_pack_uint64(pk, g[i].v[j]);
			mp_str(o, "original_size");
			msgpack_pack_uint64(pk, e->size);
			if (nmeta) {
				mp_str(o, "metadata");
				msgpack_pack_map(pk, nmeta);
				if (e->target) {
					mp_str(o, "target");
					mp_str(o, e->target);
				}
				if (e->source_prefix) {
					mp_str(o, "source_prefix");
					mp_str(o, e->source_prefix);
				}
			}
		}
	}
	mp_str(o, "compression_scheme");
	if (scheme == RK_KPACK_NONE) {
		size_t n = 0;

		for (size_t i = 0; i < ng; i++)
			n += g[i].n;
		mp_str(o, SCHEME_NONE);
		mp_str(o, "blobs");
		msgpack_pack_array(pk, n);
		for (size_t i = 0; i < n; i++) {
			msgpack_pack_map(pk, 2);
			mp_str(o, "offset");
			msgpack_pack_uint64(pk, blob_off[i]);
			mp_str(o, "size");
			msgpack_pack_uint64(pk, k[i].size);
		}
	} else {
		mp_str(o, SCHEME_ZSTD);
		mp_str(o, "zstd_offset");
		msgpack_pack_uint64(pk, KPACK_BLOB_START);
		mp_str(o, "zstd_size");
		msgpack_pack_uint64(pk, zstd_size);
	}
	return o->failed ? -ENOMEM : 0;
}

/* Compress kernel e (read through the callback) and append "u32 size, frame". */
static int add_frame(struct rk_composite *s, const struct rk_kpack_kernel *e, ZSTD_CCtx *cctx,
		     rk_source_read_fn read_fn, void *ctx, uint64_t *region, struct rk_err *err)
{
	void *in = NULL, *out = NULL;
	size_t bound, z;
	uint64_t done = 0;
	unsigned char len[4];
	int rc = 0;

	if (e->size > SIZE_MAX / 2)
		return rk_err_set(err, -EFBIG, "kernel '%s' for '%s': too large", e->key, e->arch);
	bound = ZSTD_compressBound((size_t)e->size);
	in = malloc(e->size ? (size_t)e->size : 1);
	out = malloc(bound);
	if (!in || !out) {
		rc = rk_err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	while (done < e->size) {
		ssize_t got = read_fn(ctx, e->src, (char *)in + done, (size_t)(e->size - done),
				      e->off + done);

		if (got <= 0) {
			rc = rk_err_set(err, got < 0 ? (int)got : -EIO,
					"kernel '%s' for '%s': reading source %u at %llu failed",
					e->key, e->arch, (unsigned)e->src,
					(unsigned long long)(e->off + done));
			goto out;
		}
		done += (uint64_t)got;
	}
	z = ZSTD_compress2(cctx, out, bound, in, (size_t)e->size);
	if (ZSTD_isError(z)) {
		rc = rk_err_set(err, -EIO, "kernel '%s' for '%s': zstd: %s", e->key, e->arch,
				ZSTD_getErrorName(z));
		goto out;
	}
	if (z > UINT32_MAX || *region + 4 + z > ZSTD_MAX_REGION) {
		rc = rk_err_set(err, -EFBIG, "zstd region: over 4 GiB at kernel '%s'", e->key);
		goto out;
	}
	rk_put_le32(len, (uint32_t)z);
	if (rk_composite_bytes(s, len, 4) || rk_composite_bytes(s, out, z)) {
		rc = rk_err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	*region += 4 + z;
out:
	free(in);
	free(out);
	return rc;
}

static int build_zstd(struct rk_composite *s, const struct rk_kpack_kernel *k, size_t n,
		      rk_source_read_fn read_fn, void *ctx, uint64_t *region, struct rk_err *err)
{
	ZSTD_CCtx *cctx;
	unsigned char count[4];
	int rc = 0;

	if (n > ZSTD_MAX_KERNELS)
		return rk_err_set(err, -EFBIG, "%zu kernels: the runtime reads at most %u", n,
				  ZSTD_MAX_KERNELS);
	if (!read_fn)
		return rk_err_set(err, -EINVAL, "zstd scheme without a read callback");
	if (!(cctx = ZSTD_createCCtx()))
		return rk_err_set(err, -ENOMEM, "out of memory");
	/* what "zstd -3 --no-check" and python-zstandard's level 3 write */
	if (ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, ZSTD_LEVEL)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 0))) {
		ZSTD_freeCCtx(cctx);
		return rk_err_set(err, -EIO, "zstd: cannot set parameters");
	}
	rk_put_le32(count, (uint32_t)n);
	if (rk_composite_bytes(s, count, 4))
		rc = rk_err_set(err, -ENOMEM, "out of memory");
	*region = 4;
	for (size_t i = 0; i < n && !rc; i++)
		rc = add_frame(s, &k[i], cctx, read_fn, ctx, region, err);
	ZSTD_freeCCtx(cctx);
	return rc;
}

int rk_kpack_build(const char *group, const char *const *arches, size_t narches,
		   const struct rk_kpack_kernel *k, size_t n, int scheme, rk_source_read_fn read_fn,
		   void *ctx, struct rk_composite *out, struct rk_err *err)
{
	struct rk_composite s = RK_COMPOSITE_INIT;
	unsigned char header[KPACK_BLOB_START] = {0};
	size_t *idx = NULL, ng = 0;
	struct group *g = NULL;
	uint64_t *blob_off = NULL, pos = KPACK_BLOB_START, region = 0;
	struct mp_out o;
	int rc;

	if (scheme != RK_KPACK_NONE && scheme != RK_KPACK_ZSTD)
		return rk_err_set(err, -EINVAL, "unknown compression scheme %d", scheme);
	if (!group || (narches && !arches))
		return rk_err_set(err, -EINVAL, "no group name or arch list");
	for (size_t i = 0; i < narches; i++)
		if (!arches[i])
			return rk_err_set(err, -EINVAL, "arch %zu is NULL", i);
	if (n > UINT32_MAX)
		return rk_err_set(err, -EFBIG, "%zu kernels: ordinals are u32", n);
	rc = group_kernels(k, n, &idx, &g, &ng, err);
	if (rc)
		return rc;
	mp_init(&o);
	memcpy(header, KPACK_MAGIC, 4);
	rk_put_le32(header + 4, KPACK_VERSION);
	if (scheme == RK_KPACK_NONE) {
		/* the TOC is known before any byte is laid out */
		if (!(blob_off = malloc((n ? n : 1) * sizeof(*blob_off)))) {
			rc = rk_err_set(err, -ENOMEM, "out of memory");
			goto out;
		}
		for (size_t i = 0; i < n; i++) {
			blob_off[i] = pos;
			if (k[i].size > UINT64_MAX - pos) {
				rc = rk_err_set(err, -EFBIG, "kernel '%s': size overflows",
						k[i].key);
				goto out;
			}
			pos += k[i].size;
		}
		rk_put_le64(header + 8, pos);
		if ((rc = rk_composite_bytes(&s, header, sizeof(header))) != 0)
			goto nomem;
		for (size_t i = 0; i < n; i++)
			if (k[i].size &&
			    (rc = rk_composite_source(&s, k[i].src, k[i].off, k[i].size)))
				goto nomem;
	} else {
		if ((rc = rk_composite_bytes(&s, header, sizeof(header))) != 0)
			goto nomem;
		if ((rc = build_zstd(&s, k, n, read_fn, ctx, &region, err)) != 0)
			goto out;
		rk_put_le64(header + 8, KPACK_BLOB_START + region);
		if ((rc = rk_composite_write(&s, 8, header + 8, 8)) != 0)
			goto nomem;
	}
	if ((rc = pack_toc(&o, group, arches, narches, k, g, ng, scheme, blob_off, region)) ||
	    (rc = rk_composite_bytes(&s, o.sb.data, o.sb.size)))
		goto nomem;
	*out = s;
	s = (struct rk_composite)RK_COMPOSITE_INIT;
	goto out;
nomem:
	rc = rk_err_set(err, rc, "laying out the archive: %s", strerror(-rc));
out:
	rk_composite_release(&s);
	msgpack_sbuffer_destroy(&o.sb);
	free(blob_off);
	free(idx);
	free(g);
	return rc;
}

/* Reading ------------------------------------------------------------------------------- */

struct entry {
	char *arch;
	uint32_t ordinal;
	uint64_t original_size;
	int has_size;
};

struct binary {
	char *key;
	struct entry *e;
	size_t n;
};

struct range {
	uint64_t off, size;
};

struct rk_kpack {
	const unsigned char *p;
	size_t n;
	char *group;
	int scheme;
	char **arches;
	size_t narches;
	struct binary *bins; /* sorted by key */
	size_t nbins;
	struct range *blobs; /* "none": blobs; zstd: frames */
	size_t nblobs;
};

void rk_kpack_close(struct rk_kpack *k)
{
	if (!k)
		return;
	free(k->group);
	for (size_t i = 0; i < k->narches; i++)
		free(k->arches[i]);
	free(k->arches);
	for (size_t i = 0; i < k->nbins; i++) {
		for (size_t j = 0; j < k->bins[i].n; j++)
			free(k->bins[i].e[j].arch);
		free(k->bins[i].e);
		free(k->bins[i].key);
	}
	free(k->bins);
	free(k->blobs);
	free(k);
}

/* Fail with "toc: <what>" unless rc is ENOMEM. */
static int bad(struct rk_err *err, int rc, const char *what, const char *name)
{
	if (rc == -ENOMEM)
		return rk_err_set(err, -ENOMEM, "out of memory");
	return rk_err_set(err, -EBADMSG, "toc: %s%s%s%s", what, name ? " '" : "", name ? name : "",
			  name ? "'" : "");
}

static int parse_arches(struct rk_kpack *k, const msgpack_object *a, struct rk_err *err)
{
	int rc = 0;

	if (!a || a->type != MSGPACK_OBJECT_ARRAY)
		return bad(err, 0, "'gfx_arches' missing or not an array", NULL);
	if (!(k->arches = calloc(a->via.array.size + 1, sizeof(*k->arches))))
		return bad(err, -ENOMEM, "", NULL);
	for (uint32_t i = 0; i < a->via.array.size; i++) {
		if (!(k->arches[i] = rk_mp_strdup(&a->via.array.ptr[i], &rc)))
			return rk_err_set(err, rc == -ENOMEM ? -ENOMEM : -EBADMSG,
					  rc == -ENOMEM ? "out of memory"
							: "toc: gfx_arches[%u] is not a string",
					  (unsigned)i);
		k->narches++;
	}
	return 0;
}

static int parse_entry(struct entry *e, const msgpack_object *key, const msgpack_object *v,
		       const char *bin, struct rk_err *err)
{
	const msgpack_object *o;
	uint64_t ord;
	char name[64];
	int rc = 0;

	rk_mp_show(key, name);
	if (!(e->arch = rk_mp_strdup(key, &rc)))
		return rc == -ENOMEM
			       ? bad(err, rc, "", NULL)
			       : rk_err_set(err, -EBADMSG,
					    "toc: '%s': arch key '%s' is not a string", bin, name);
	if (v->type != MSGPACK_OBJECT_MAP)
		return rk_err_set(err, -EBADMSG, "toc: '%s' '%s': entry is not a map", bin, name);
	if (rk_mp_uint(rk_mp_get(v, "ordinal"), &ord) || ord > UINT32_MAX)
		return rk_err_set(err, -EBADMSG, "toc: '%s' '%s': 'ordinal' missing or not a u32",
				  bin, name);
	e->ordinal = (uint32_t)ord;
	if ((o = rk_mp_get(v, "original_size")) != NULL) {
		if (rk_mp_uint(o, &e->original_size))
			return rk_err_set(
				err, -EBADMSG,
				"toc: '%s' '%s': 'original_size' is not an unsigned integer", bin,
				name);
		e->has_size = 1;
	}
	if ((o = rk_mp_get(v, "type")) != NULL && o->type != MSGPACK_OBJECT_STR)
		return rk_err_set(err, -EBADMSG, "toc: '%s' '%s': 'type' is not a string", bin,
				  name);
	return 0;
}

static int bin_cmp(const void *a, const void *b)
{
	return strcmp(((const struct binary *)a)->key, ((const struct binary *)b)->key);
}

static int parse_toc_map(struct rk_kpack *k, const msgpack_object *t, struct rk_err *err)
{
	int rc = 0;

	if (!t || t->type != MSGPACK_OBJECT_MAP)
		return bad(err, 0, "'toc' missing or not a map", NULL);
	if (!(k->bins = calloc(t->via.map.size + 1, sizeof(*k->bins))))
		return bad(err, -ENOMEM, "", NULL);
	for (uint32_t i = 0; i < t->via.map.size; i++) {
		const msgpack_object *key = &t->via.map.ptr[i].key, *v = &t->via.map.ptr[i].val;
		struct binary *b = &k->bins[k->nbins];
		char name[64];

		rk_mp_show(key, name);
		if (!(b->key = rk_mp_strdup(key, &rc)))
			return rc == -ENOMEM ? bad(err, rc, "", NULL)
					     : bad(err, 0, "binary key is not a string:", name);
		k->nbins++;
		if (v->type != MSGPACK_OBJECT_MAP)
			return bad(err, 0, "arch map is not a map for", name);
		if (!(b->e = calloc(v->via.map.size + 1, sizeof(*b->e))))
			return bad(err, -ENOMEM, "", NULL);
		for (uint32_t j = 0; j < v->via.map.size; j++) {
			struct entry *e = &b->e[b->n];

			rc = parse_entry(e, &v->via.map.ptr[j].key, &v->via.map.ptr[j].val, b->key,
					 err);
			b->n += e->arch != NULL;
			if (rc)
				return rc;
			for (size_t x = 0; x + 1 < b->n; x++)
				if (!strcmp(b->e[x].arch, e->arch))
					return rk_err_set(err, -EBADMSG,
							  "toc: '%s': arch '%s' given twice",
							  b->key, e->arch);
		}
	}
	qsort(k->bins, k->nbins, sizeof(*k->bins), bin_cmp);
	for (size_t i = 1; i < k->nbins; i++)
		if (!strcmp(k->bins[i].key, k->bins[i - 1].key))
			return bad(err, 0, "binary key given twice:", k->bins[i].key);
	return 0;
}

static int parse_blobs(struct rk_kpack *k, const msgpack_object *a, uint64_t toc_off,
		       struct rk_err *err)
{
	if (!a || a->type != MSGPACK_OBJECT_ARRAY)
		return bad(err, 0, "'blobs' missing or not an array", NULL);
	if (!(k->blobs = calloc(a->via.array.size + 1, sizeof(*k->blobs))))
		return bad(err, -ENOMEM, "", NULL);
	k->nblobs = a->via.array.size;
	for (uint32_t i = 0; i < a->via.array.size; i++) {
		const msgpack_object *b = &a->via.array.ptr[i];
		struct range *r = &k->blobs[i];

		if (b->type != MSGPACK_OBJECT_MAP || rk_mp_uint(rk_mp_get(b, "offset"), &r->off) ||
		    rk_mp_uint(rk_mp_get(b, "size"), &r->size))
			return rk_err_set(err, -EBADMSG,
					  "toc: blobs[%u] is not a map of 'offset' and 'size'",
					  (unsigned)i);
		if (r->off < KPACK_HEADER || r->off > toc_off || r->size > toc_off - r->off)
			return rk_err_set(err, -EBADMSG,
					  "toc: blobs[%u] [%llu, +%llu) is not between the header "
					  "and the toc at %llu",
					  (unsigned)i, (unsigned long long)r->off,
					  (unsigned long long)r->size, (unsigned long long)toc_off);
	}
	return 0;
}

/* Index the "(u32 size, frame)*" list of the zstd region. */
static int parse_zstd(struct rk_kpack *k, const msgpack_object *toc, uint64_t toc_off,
		      struct rk_err *err)
{
	uint64_t off, size, pos, end;
	uint32_t count;

	if (rk_mp_uint(rk_mp_get(toc, "zstd_offset"), &off) ||
	    rk_mp_uint(rk_mp_get(toc, "zstd_size"), &size))
		return bad(err, 0, "'zstd_offset' or 'zstd_size' missing or not unsigned", NULL);
	if (size > ZSTD_MAX_REGION)
		return rk_err_set(err, -EBADMSG, "toc: zstd_size %llu is over 4 GiB",
				  (unsigned long long)size);
	if (off < KPACK_HEADER || off > toc_off || size > toc_off - off || size < 4)
		return rk_err_set(
			err, -EBADMSG,
			"toc: zstd region [%llu, +%llu) is not between the header and the "
			"toc at %llu",
			(unsigned long long)off, (unsigned long long)size,
			(unsigned long long)toc_off);
	count = rk_le32(k->p + off);
	if (count > ZSTD_MAX_KERNELS)
		return rk_err_set(err, -EBADMSG, "zstd region: num_kernels %u is over %u", count,
				  ZSTD_MAX_KERNELS);
	if (count > (size - 4) / 4)
		return rk_err_set(err, -EBADMSG,
				  "zstd region: num_kernels %u does not fit in %llu bytes", count,
				  (unsigned long long)size);
	if (!(k->blobs = calloc((size_t)count + 1, sizeof(*k->blobs))))
		return bad(err, -ENOMEM, "", NULL);
	k->nblobs = count;
	pos = off + 4;
	end = off + size;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t len;

		if (end - pos < 4)
			return rk_err_set(err, -EBADMSG,
					  "zstd region: frame %u size at %llu is past its end", i,
					  (unsigned long long)pos);
		len = rk_le32(k->p + pos);
		pos += 4;
		if (len > end - pos)
			return rk_err_set(
				err, -EBADMSG,
				"zstd region: frame %u (%u bytes at %llu) is past its end", i, len,
				(unsigned long long)pos);
		k->blobs[i].off = pos;
		k->blobs[i].size = len;
		pos += len;
	}
	if (pos != end)
		return rk_err_set(err, -EBADMSG, "zstd region: %llu bytes after the last frame",
				  (unsigned long long)(end - pos));
	return 0;
}

static int parse_toc(struct rk_kpack *k, const msgpack_object *toc, uint64_t toc_off,
		     struct rk_err *err)
{
	const msgpack_object *o;
	int rc = 0;

	if (toc->type != MSGPACK_OBJECT_MAP)
		return bad(err, 0, "not a map", NULL);
	for (uint32_t i = 0; i < toc->via.map.size; i++)
		if (toc->via.map.ptr[i].key.type != MSGPACK_OBJECT_STR)
			return bad(err, 0, "a key is not a string", NULL);
	if ((o = rk_mp_get(toc, "group_name")) != NULL && !(k->group = rk_mp_strdup(o, &rc)))
		return bad(err, rc, "'group_name' is not a string", NULL);
	if ((rc = parse_arches(k, rk_mp_get(toc, "gfx_arches"), err)) != 0)
		return rc;
	if ((rc = parse_toc_map(k, rk_mp_get(toc, "toc"), err)) != 0)
		return rc;
	o = rk_mp_get(toc, "compression_scheme");
	if (o && rk_mp_is_str(o, SCHEME_NONE)) {
		k->scheme = RK_KPACK_NONE;
		rc = parse_blobs(k, rk_mp_get(toc, "blobs"), toc_off, err);
	} else if (o && rk_mp_is_str(o, SCHEME_ZSTD)) {
		k->scheme = RK_KPACK_ZSTD;
		rc = parse_zstd(k, toc, toc_off, err);
	} else {
		char name[64] = "(missing)";

		if (o)
			rk_mp_show(o, name);
		return rk_err_set(err, -EBADMSG, "toc: unknown compression_scheme '%s'", name);
	}
	if (rc)
		return rc;
	for (size_t i = 0; i < k->nbins; i++)
		for (size_t j = 0; j < k->bins[i].n; j++) {
			const struct entry *e = &k->bins[i].e[j];

			if (e->ordinal >= k->nblobs)
				return rk_err_set(err, -EBADMSG,
						  "toc: '%s' '%s': ordinal %u is not below the %zu "
						  "blobs",
						  k->bins[i].key, e->arch, e->ordinal, k->nblobs);
			if (k->scheme == RK_KPACK_ZSTD && !e->has_size)
				return rk_err_set(
					err, -EBADMSG,
					"toc: '%s' '%s': no 'original_size' (zstd needs it)",
					k->bins[i].key, e->arch);
			if (k->scheme == RK_KPACK_NONE && e->has_size &&
			    e->original_size != k->blobs[e->ordinal].size)
				return rk_err_set(
					err, -EBADMSG,
					"toc: '%s' '%s': original_size %llu is not the blob "
					"size %llu",
					k->bins[i].key, e->arch,
					(unsigned long long)e->original_size,
					(unsigned long long)k->blobs[e->ordinal].size);
		}
	return 0;
}

int rk_kpack_open(const void *p, size_t n, struct rk_kpack **out, struct rk_err *err)
{
	const unsigned char *b = p;
	uint64_t toc_off;
	uint32_t version;
	struct rk_mp_cursor c;
	msgpack_unpacked u;
	struct rk_kpack *k;
	int rc;

	*out = NULL;
	if (n < KPACK_HEADER)
		return rk_err_set(err, -EBADMSG, "header: %zu bytes, too short", n);
	if (memcmp(b, KPACK_MAGIC, 4))
		return rk_err_set(err, -EBADMSG, "header: bad magic (not 'KPAK')");
	if ((version = rk_le32(b + 4)) != KPACK_VERSION)
		return rk_err_set(err, -EBADMSG, "header: unsupported version %u", version);
	toc_off = rk_le64(b + 8);
	if (toc_off < KPACK_HEADER || toc_off >= n)
		return rk_err_set(err, -EBADMSG, "header: toc_offset %llu outside [16, %zu)",
				  (unsigned long long)toc_off, n);
	c = RK_MP_CURSOR(b + toc_off, n - (size_t)toc_off);
	if (rk_mp_skip(&c, RK_MP_ANY_DEPTH))
		return rk_err_set(err, -EBADMSG, "toc: malformed or truncated msgpack at %llu",
				  (unsigned long long)toc_off);
	if (c.off != c.n)
		return rk_err_set(err, -EBADMSG, "toc: %zu trailing bytes after the map",
				  c.n - c.off);
	if (!(k = calloc(1, sizeof(*k))))
		return rk_err_set(err, -ENOMEM, "out of memory");
	k->p = b;
	k->n = n;
	msgpack_unpacked_init(&u);
	rc = rk_mp_unpack(c.p, c.off, &u);
	if (rc == 0)
		rc = parse_toc(k, &u.data, toc_off, err);
	else if (rc == -ENOMEM) /* also: nested deeper than msgpack-c's stack */
		rc = rk_err_set(err, -ENOMEM, "out of memory");
	else
		rc = rk_err_set(err, -EBADMSG, "toc: msgpack-c cannot parse it");
	msgpack_unpacked_destroy(&u);
	if (rc) {
		rk_kpack_close(k);
		return rc;
	}
	*out = k;
	return 0;
}

size_t rk_kpack_arch_count(const struct rk_kpack *k)
{
	return k->narches;
}

const char *rk_kpack_arch(const struct rk_kpack *k, size_t i)
{
	return i < k->narches ? k->arches[i] : NULL;
}

const char *rk_kpack_group(const struct rk_kpack *k)
{
	return k->group ? k->group : ""; /* group_name is optional */
}

int rk_kpack_scheme(const struct rk_kpack *k)
{
	return k->scheme;
}

size_t rk_kpack_binary_count(const struct rk_kpack *k)
{
	return k->nbins;
}

const char *rk_kpack_binary(const struct rk_kpack *k, size_t i)
{
	return i < k->nbins ? k->bins[i].key : NULL;
}

static const struct entry *find_entry(const struct rk_kpack *k, const char *key, const char *arch)
{
	struct binary probe = {(char *)key, NULL, 0};
	const struct binary *b = bsearch(&probe, k->bins, k->nbins, sizeof(*k->bins), bin_cmp);

	for (size_t j = 0; b && j < b->n; j++)
		if (!strcmp(b->e[j].arch, arch))
			return &b->e[j];
	return NULL;
}

int rk_kpack_get(const struct rk_kpack *k, const char *key, const char *arch, void **data,
		 size_t *size, struct rk_err *err)
{
	const struct entry *e = find_entry(k, key, arch);
	const struct range *r;
	uint64_t bound;
	void *buf;
	size_t z;

	*data = NULL;
	*size = 0;
	if (!e)
		return rk_err_set(err, -ENOENT, "no kernel '%s' for '%s'", key, arch);
	r = &k->blobs[e->ordinal];
	if (k->scheme == RK_KPACK_NONE) {
		if (!(buf = malloc(r->size ? (size_t)r->size : 1)))
			return rk_err_set(err, -ENOMEM, "out of memory");
		memcpy(buf, k->p + r->off, (size_t)r->size);
		*data = buf;
		*size = (size_t)r->size;
		return 0;
	}
	/* A zstd block (3-byte header, >= 1 byte) yields at most 128 KiB: refuse sizes no
	 * frame of this length can produce before allocating them. */
	bound = (r->size / 4 + 1) * (uint64_t)ZSTD_BLOCKSIZE_MAX;
	if (e->original_size > bound || e->original_size > SIZE_MAX / 2)
		return rk_err_set(
			err, -EBADMSG,
			"'%s' '%s': original_size %llu is impossible for a %llu-byte frame", key,
			arch, (unsigned long long)e->original_size, (unsigned long long)r->size);
	if (!(buf = malloc(e->original_size ? (size_t)e->original_size : 1)))
		return rk_err_set(err, -ENOMEM, "out of memory");
	z = ZSTD_decompress(buf, (size_t)e->original_size, k->p + r->off, (size_t)r->size);
	if (ZSTD_isError(z) || z != e->original_size) {
		free(buf);
		if (ZSTD_isError(z))
			return rk_err_set(err, -EBADMSG, "'%s' '%s': frame %u: zstd: %s", key, arch,
					  e->ordinal, ZSTD_getErrorName(z));
		return rk_err_set(err, -EBADMSG,
				  "'%s' '%s': frame %u holds %zu bytes, original_size is %llu", key,
				  arch, e->ordinal, z, (unsigned long long)e->original_size);
	}
	*data = buf;
	*size = z;
	return 0;
}

/* Marker -------------------------------------------------------------------------------- */

int rk_kpack_marker_encode(const char *const *paths, size_t npaths, const char *kernel_name,
			   void **out, size_t *len, struct rk_err *err)
{
	struct mp_out o;

	if (!npaths)
		return rk_err_set(err, -EINVAL, "marker: no search path");
	mp_init(&o);
	msgpack_pack_map(&o.pk, 2);
	mp_str(&o, "kpack_search_paths");
	msgpack_pack_array(&o.pk, npaths);
	for (size_t i = 0; i < npaths; i++)
		mp_str(&o, paths[i]);
	mp_str(&o, "kernel_name");
	mp_str(&o, kernel_name);
	if (o.failed) {
		msgpack_sbuffer_destroy(&o.sb);
		return rk_err_set(err, -ENOMEM, "out of memory");
	}
	*len = o.sb.size;
	*out = msgpack_sbuffer_release(&o.sb);
	return 0;
}

void rk_kpack_marker_release(struct rk_kpack_marker *m)
{
	for (size_t i = 0; i < m->npaths; i++)
		free(m->paths[i]);
	free(m->paths);
	free(m->kernel_name);
	memset(m, 0, sizeof(*m));
}

static int marker_fields(const msgpack_object *o, struct rk_kpack_marker *m, struct rk_err *err)
{
	const msgpack_object *v;
	int rc = 0;

	if (o->type != MSGPACK_OBJECT_MAP)
		return rk_err_set(err, -EBADMSG, "marker: not a msgpack map");
	v = rk_mp_get(o, "kernel_name");
	if (!v || v->type != MSGPACK_OBJECT_STR)
		return rk_err_set(err, -EBADMSG, "marker: 'kernel_name' missing or not a string");
	if (!(m->kernel_name = rk_mp_strdup(v, &rc)))
		return rc == -ENOMEM
			       ? rk_err_set(err, rc, "out of memory")
			       : rk_err_set(err, -EBADMSG, "marker: 'kernel_name' holds a NUL");
	v = rk_mp_get(o, "kpack_search_paths");
	if (!v || v->type != MSGPACK_OBJECT_ARRAY)
		return rk_err_set(err, -EBADMSG,
				  "marker: 'kpack_search_paths' missing or not an array");
	if (!(m->paths = calloc(v->via.array.size + 1, sizeof(*m->paths))))
		return rk_err_set(err, -ENOMEM, "out of memory");
	for (uint32_t i = 0; i < v->via.array.size; i++) {
		const msgpack_object *s = &v->via.array.ptr[i];

		if (s->type != MSGPACK_OBJECT_STR)
			continue; /* the runtime skips non-strings */
		if (!(m->paths[m->npaths] = rk_mp_strdup(s, &rc)))
			return rc == -ENOMEM
				       ? rk_err_set(err, rc, "out of memory")
				       : rk_err_set(err, -EBADMSG,
						    "marker: kpack_search_paths[%u] holds a NUL",
						    (unsigned)i);
		m->npaths++;
	}
	if (!m->npaths)
		return rk_err_set(err, -EBADMSG, "marker: no string in 'kpack_search_paths'");
	return 0;
}

int rk_kpack_marker_decode(const void *p, size_t n, struct rk_kpack_marker *out, struct rk_err *err)
{
	struct rk_mp_cursor c = RK_MP_CURSOR(p, RK_MIN(n, (size_t)MARKER_MAX));
	msgpack_unpacked u;
	int rc;

	memset(out, 0, sizeof(*out));
	if (rk_mp_skip(&c, RK_MP_ANY_DEPTH)) /* what follows the map is not read */
		return rk_err_set(err, -EBADMSG, "marker: malformed or truncated msgpack");
	msgpack_unpacked_init(&u);
	rc = rk_mp_unpack(p, c.off, &u);
	if (rc == 0)
		rc = marker_fields(&u.data, out, err);
	else if (rc == -ENOMEM) /* also: nested deeper than msgpack-c's stack */
		rc = rk_err_set(err, -ENOMEM, "out of memory");
	else
		rc = rk_err_set(err, -EBADMSG, "marker: msgpack-c cannot parse it");
	msgpack_unpacked_destroy(&u);
	if (rc)
		rk_kpack_marker_release(out);
	return rc;
}

int rk_kpack_search_pattern(const char *relpath, const char *group, char **out)
{
	struct rk_buf b = RK_BUF_INIT;
	size_t parts = 0;
	int rc = 0;

	/* depth = len(PurePath(relpath).parts) - 1: empty and "." components do not count */
	for (const char *s = relpath; *s;) {
		size_t n = strcspn(s, "/");

		parts += n && !(n == 1 && s[0] == '.');
		s += n + (s[n] == '/');
	}
	for (size_t i = 1; i < parts && !rc; i++)
		rc = rk_buf_adds(&b, "../");
	if (rc || rk_buf_addf(&b, ".kpack/%s_" GFXARCH ".kpack", group)) {
		rk_buf_release(&b);
		return -ENOMEM;
	}
	*out = rk_buf_detach(&b, NULL);
	return *out ? 0 : -ENOMEM;
}
