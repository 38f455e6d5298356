/* kpack_split.c: rocm-kpack's split_artifacts of one artifact, computed on read, a
 * service of the views (kpack/, and through flatten.c dist/ and tarballs/; python/ for
 * stored fat wheels) (kpack-format.md section 4.2).
 *
 * A legacy artifact <P>_<family> (fat host binaries) splits into outputs that are
 * artifacts of their own, "struct artifact" objects with a tree but no archive:
 *   <P>_generic  every file except database files; each fat host binary rewritten
 *                (rk/kpack_elf.h) to point at its .kpack archives;
 *   <P>_<arch>   <first sorted prefix with kernels>/.kpack/<P>_<arch>.kpack holding the
 *                code objects of that exact arch (scheme "none", or "zstd-per-kernel"
 *                when the mount asks for it), plus the database files
 *                of base arch <arch> (rk/kpack_db.h).
 * Nothing is copied: unchanged files share the artifact's blobs, a rewritten binary and a
 * .kpack archive are composite files over those blobs (their sources carry the artifact's
 * origin, which re-creates an evicted blob) (compressed bundles are decompressed
 * once into a blob of their own). A file that cannot be split (broken bundle, mismatching
 * code object, unsafe ELF) stays in the generic output unchanged, with one log line.
 *
 * The split is kept as the artifact's derived value (arch->derived), computed once under
 * arch->derived_lock; arch->derived_restore re-creates the blobs it made (decompressed
 * bundles, zstd archives) when the cache evicted them. The outputs' roots are nodes
 * of the run's directory in no listing: the kpack view links them into RUN/kpack/.
 *
 * Uses the engine's tree and artifacts (engine/vfs_int.h) and the formats (bundle, kpack,
 * kpack_elf, kpack_db). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk/artifact.h"
#include "rk/buf.h"
#include "rk/bundle.h"
#include "rk/cache.h"
#include "rk/hash.h"
#include "rk/gpu.h"
#include "rk/kpack.h"
#include "rk/kpack_binary.h"
#include "rk/kpack_db.h"
#include "rk/kpack_elf.h"
#include "rk/kpack_view.h"
#include "rk/log.h"
#include "rk/composite.h"
#include "rk/target.h"
#include "rk/topology.h"
#include "engine/vfs_int.h"
#include "services/kpack_split.h"
#include "util/array.h"

/* One output of a split: a synthesized artifact. */
struct out {
	struct artifact a; /* a.art = &art, a.root, a.prefixes; state DONE */
	struct rk_artifact art;
	char key[RK_TARGET_MAX]; /* "" for generic, else the arch */
};

/* A zstd-per-kernel .kpack archive: what it holds, and its blob once made. */
struct zarchive {
	char *group, *arch;
	struct rk_kpack_kernel *k; /* strings owned; k[i].arch is arch */
	size_t n;
	struct source *src;
	size_t nsrc;
	char id[RK_SHA256_HEX];
	uint64_t size;
};

/* The .kpack archive of one arch, between prepare_archives and build_outputs. */
struct kpack_archive {
	char arch[RK_TARGET_MAX];
	const char *prefix; /* the first prefix (sorted) with code objects for it */
	int64_t mtime; /* the newest of the binaries it holds code objects of */
	struct rk_composite *composite; /* scheme none */
	struct zarchive z; /* zstd */
};

/* A decompressed bundle kept as a blob, and the binary it comes from. */
struct payload {
	char id[RK_SHA256_HEX], host[RK_SHA256_HEX];
	uint64_t size, host_size;
};

struct kpack_split {
	struct artifact **outs; /* struct out's first member */
	size_t nouts;
	struct payload *pay; /* for restore */
	size_t npay;
	struct zarchive *z; /* zstd archives, for restore */
	size_t nz;
};

/* A file or directory of the artifact being split. */
struct entry {
	char *path; /* member path: "<prefix>/<rel>" */
	size_t rel; /* offset of rel in path */
	size_t prefix; /* index into a->prefixes */
	uint32_t mode;
	uint64_t size;
	int64_t mtime;
	const struct node *node; /* the member's browse node (its content) */
	char *data; /* blob id or symlink target */
	char db[RK_TARGET_MAX]; /* database file of this base arch, else "" */
};

struct kernel {
	char *key; /* "<prefix>/<rel>#<i>" */
	char arch[RK_TARGET_MAX];
	char *id; /* bundle entry id */
	const char *prefix;
	size_t src; /* index into the split's sources */
	uint64_t off, size;
	int64_t mtime; /* of the binary it comes from */
};

struct source {
	char id[RK_SHA256_HEX];
	uint64_t size;
};

struct split {
	struct rk_vfs *v;
	struct artifact *a;
	int64_t mtime; /* the run directory's: of the outputs' roots */
	int relkeys; /* vfs_kpack_split's relkeys */
	const struct rk_kpack_db_set *dbs; /* the database handlers this split runs */
	char group[2 * RK_ARTIFACT_FIELD + 2]; /* "<name>_<component>" */
	struct entry *e;
	size_t ne;
	struct kernel *k;
	size_t nk;
	struct source *src;
	size_t nsrc;
	struct payload *pay;
	size_t npay;
	struct rk_composite **rewrites; /* per entry: the rewritten binary, or NULL */
	struct kpack_archive *ar;
	size_t nar;
	struct out **outs;
	size_t nouts;
};

/* Arrays grow to powers of two from 16: make room for element n. */
static int grow(void **v, size_t n, size_t size)
{
	void *nv;

	if (n >= 16 ? n & (n - 1) : n)
		return 0;
	nv = realloc(*v, (n ? n * 2 : 16) * size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	return 0;
}

/* ---- collecting the artifact's files ---- */

/* A browse member's blob id or symlink target, or NULL. */
static const char *member_data(const struct node *c)
{
	return vfs_node_blob(c) ? vfs_node_blob(c) : vfs_node_target(c);
}

static int collect(struct split *s, const struct node *dir, struct rk_buf *path, size_t prefix,
		   size_t rel)
{
	size_t len = path->len;
	int rc = 0;

	for (size_t i = 0; !rc && i < vfs_dir_count(dir); i++) {
		const struct node *c = vfs_dir_node(dir, i);
		struct entry *e;

		if ((rc = rk_buf_addf(path, "/%s", vfs_dir_name(dir, i))))
			break;
		if (vfs_owning_prefix(s->a, path->buf) == prefix) {
			if ((rc = grow((void **)&s->e, s->ne, sizeof(*s->e))))
				break;
			e = &s->e[s->ne];
			memset(e, 0, sizeof(*e));
			e->path = strdup(path->buf);
			e->data = member_data(c) ? strdup(member_data(c)) : NULL;
			if (!e->path || (member_data(c) && !e->data)) {
				free(e->path);
				free(e->data);
				rc = -ENOMEM;
				break;
			}
			s->ne++;
			e->rel = rel;
			e->prefix = prefix;
			e->mode = vfs_node_mode(c);
			e->size = vfs_node_size(c);
			e->mtime = vfs_node_mtime(c);
			e->node = c;
			if (S_ISDIR(vfs_node_mode(c)))
				rc = collect(s, c, path, prefix, rel);
		}
		path->len = len;
		path->buf[len] = '\0';
	}
	return rc;
}

/* ---- splitting one fat binary ---- */

static int add_source(struct split *s, const char *id, uint64_t size, size_t *idx)
{
	for (size_t i = 0; i < s->nsrc; i++)
		if (!strcmp(s->src[i].id, id)) {
			*idx = i;
			return 0;
		}
	if (grow((void **)&s->src, s->nsrc, sizeof(*s->src)))
		return -ENOMEM;
	memcpy(s->src[s->nsrc].id, id, RK_SHA256_HEX);
	s->src[s->nsrc].size = size;
	*idx = s->nsrc++;
	return 0;
}

/* Give composite c (built over the numbers of srcs[0..n)) its source table, the blobs of
 * artifact a, and move it to *out (malloc'd). c is left empty. */
static int keep_composite(struct rk_composite *c, const struct source *srcs, size_t n,
			  struct artifact *a, struct rk_composite **out)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < n; i++)
		rc = rk_composite_add_source(c, srcs[i].id, srcs[i].size, &a->blob_origin, NULL);
	if (!rc && !(*out = malloc(sizeof(**out))))
		rc = -ENOMEM;
	if (!rc) {
		**out = *c;
		*c = (struct rk_composite)RK_COMPOSITE_INIT;
	}
	return rc;
}

/* Count of code objects already seen for arch in this binary (the TU index). */
static unsigned next_index(const struct split *s, size_t first, const char *arch)
{
	unsigned n = 0;

	for (size_t i = first; i < s->nk; i++)
		n += !strcmp(s->k[i].arch, arch);
	return n;
}

static void drop_kernels(struct split *s, size_t first)
{
	while (s->nk > first) {
		s->nk--;
		free(s->k[s->nk].key);
		free(s->k[s->nk].id);
	}
}

/* Append a code object of binary e (whose code objects start at s->k[first]). */
static int push_kernel(struct split *s, const struct entry *e, size_t first, const char *arch,
		       const char *id, size_t src, uint64_t off, uint64_t size)
{
	struct kernel *k;

	if (grow((void **)&s->k, s->nk, sizeof(*s->k)))
		return -ENOMEM;
	k = &s->k[s->nk];
	memset(k, 0, sizeof(*k));
	snprintf(k->arch, sizeof(k->arch), "%s", arch);
	k->id = strdup(id);
	if (!k->id || asprintf(&k->key, "%s#%u", s->relkeys ? e->path + e->rel : e->path,
			       next_index(s, first, arch)) < 0) {
		free(k->id);
		return -ENOMEM;
	}
	s->nk++;
	k->prefix = s->a->prefixes[e->prefix];
	k->src = src;
	k->off = off;
	k->size = size;
	k->mtime = e->mtime;
	return 0;
}

/* Remember that payload blob id (a decompressed bundle) comes from host blob e. */
static int add_payload(struct split *s, const char *id, uint64_t size, const struct entry *e)
{
	struct payload *p;

	for (size_t i = 0; i < s->npay; i++)
		if (!strcmp(s->pay[i].id, id))
			return 0;
	if (grow((void **)&s->pay, s->npay, sizeof(*s->pay)))
		return -ENOMEM;
	p = &s->pay[s->npay++];
	memcpy(p->id, id, RK_SHA256_HEX);
	p->size = size;
	memcpy(p->host, e->data, RK_SHA256_HEX);
	p->host_size = e->size;
	return 0;
}

/* The split of one binary's device code, cached as kpack/<binary blob id>.1: one line
 * per code object in bundle order,
 *   <arch> TAB <payload blob id, or "-" for the binary itself> TAB <its size> TAB
 *   <offset> TAB <size> TAB <bundle entry id>
 * so that a later mount neither decompresses compressed bundles again nor hashes their
 * payloads. A record whose payload blobs are gone is ignored. */
#define RECORD_DIR "kpack"
#define RECORD_VERSION 1

static int load_record(struct split *s, const struct entry *e, size_t host, size_t nwrappers)
{
	char rel[128], *data = NULL, *save = NULL;
	size_t len, first = s->nk, count = 0;
	int rc;

	snprintf(rel, sizeof(rel), RECORD_DIR "/%s.%d", e->data, RECORD_VERSION);
	if (rk_cache_get_file(s->v->cache, rel, 16 << 20, &data, &len, NULL))
		return -ENOENT;
	rc = 0;
	for (char *line = strtok_r(data, "\n", &save); !rc && line;
	     line = strtok_r(NULL, "\n", &save)) {
		char arch[RK_TARGET_MAX], src[RK_SHA256_HEX], id[512];
		unsigned long long ssize, off, size;
		size_t idx = host;

		if (sscanf(line, "%63[^\t]\t%64[^\t]\t%llu\t%llu\t%llu\t%511[^\n]", arch, src,
			   &ssize, &off, &size, id) != 6 ||
		    off > ssize || size > ssize - off) {
			rc = -ENOENT;
		} else if (strcmp(src, "-")) {
			if (!rk_blob_exists(s->v->cache, src, ssize))
				rc = -ENOENT;
			else if (!(rc = add_source(s, src, ssize, &idx)))
				rc = add_payload(s, src, ssize, e);
		} else if (ssize != e->size) {
			rc = -ENOENT;
		}
		if (!rc)
			rc = push_kernel(s, e, first, arch, id, idx, off, size);
		count++;
	}
	free(data);
	if (!rc && (!count || count % nwrappers))
		rc = -ENOENT;
	if (rc)
		drop_kernels(s, first);
	return rc;
}

static void save_record(struct split *s, const struct entry *e, size_t first, size_t host)
{
	struct rk_buf b = RK_BUF_INIT;
	char rel[128];
	int rc = 0;

	for (size_t i = first; !rc && i < s->nk; i++) {
		const struct kernel *k = &s->k[i];

		rc = rk_buf_addf(&b, "%s\t%s\t%llu\t%llu\t%llu\t%s\n", k->arch,
				 k->src == host ? "-" : s->src[k->src].id,
				 (unsigned long long)s->src[k->src].size,
				 (unsigned long long)k->off, (unsigned long long)k->size, k->id);
	}
	snprintf(rel, sizeof(rel), RECORD_DIR "/%s.%d", e->data, RECORD_VERSION);
	if (!rc)
		rk_cache_put_file(s->v->cache, rel, b.buf, b.len, NULL); /* best effort */
	rk_buf_release(&b);
}

static int add_kernels(struct split *s, struct entry *e, const struct rk_fat_elf *fe,
		       const unsigned char *img, struct rk_err *err)
{
	const unsigned char *sec = img + fe->fatbin_off;
	struct rk_fatbin fb = {0};
	size_t first = s->nk, host;
	char(*payload)[RK_SHA256_HEX] = NULL;
	unsigned *index = NULL;
	int rc;

	if ((rc = add_source(s, e->data, e->size, &host)))
		return rc;
	if (fe->nwrappers && !load_record(s, e, host, fe->nwrappers))
		return 0;
	rc = rk_fatbin_parse(sec, fe->fatbin_size, 0, &fb, err);
	if (rc)
		return rk_err_wrap(err, rc, ".hip_fatbin");
	if (!fb.nentries) {
		rk_fatbin_release(&fb);
		return rk_err_set(err, -EBADMSG, ".hip_fatbin holds no device code");
	}
	if (!(payload = calloc(fb.nbundles, sizeof(*payload))) ||
	    !(index = calloc(fb.nentries, sizeof(*index)))) {
		rc = -ENOMEM;
		goto out;
	}
	if ((rc = rk_kpack_check_entries(img, fe, &fb, index, err)))
		goto out;
	for (size_t i = 0; i < fb.nentries; i++) {
		const struct rk_bundle_entry *be = &fb.entries[i];
		const struct rk_bundle *b = &fb.bundles[be->bundle];
		size_t src = host;
		uint64_t off = fe->fatbin_off + be->off;

		if (b->format == RK_BUNDLE_CCOB) {
			if (!payload[be->bundle][0] &&
			    (rc = rk_blob_put(s->v->cache, b->payload, b->usize,
					      payload[be->bundle], err)))
				goto out;
			if ((rc = add_source(s, payload[be->bundle], b->usize, &src)) ||
			    (rc = add_payload(s, payload[be->bundle], b->usize, e)))
				goto out;
			off = be->off;
		}
		if ((rc = push_kernel(s, e, first, be->arch, be->id, src, off, be->size)))
			goto out;
	}
	/* wrapper i belongs to the i-th code object of each arch (section 5.3) */
	for (size_t i = first; i < s->nk; i++)
		if (next_index(s, first, s->k[i].arch) != fe->nwrappers) {
			rc = rk_err_set(err, -EBADMSG, "%zu wrappers but %u code objects for '%s'",
					fe->nwrappers, next_index(s, first, s->k[i].arch),
					s->k[i].arch);
			goto out;
		}
	save_record(s, e, first, host);
out:
	if (rc)
		drop_kernels(s, first);
	free(payload);
	free(index);
	rk_fatbin_release(&fb);
	return rc;
}

/* Split fat binary e (index i): its kernels join s->k, its rewrite s->rewrites[i]. */
static int split_binary(struct split *s, size_t i, const unsigned char *img,
			const struct rk_fat_elf *fe, struct rk_err *err)
{
	struct entry *e = &s->e[i];
	struct rk_composite c = RK_COMPOSITE_INIT;
	struct source self;
	size_t first = s->nk;
	int rc;

	if ((rc = add_kernels(s, e, fe, img, err)))
		return rc;
	rc = rk_kpack_host_rewrite(img, e->size, e->path + e->rel, s->group,
				   s->relkeys ? e->path + e->rel : e->path, &c, err);
	memcpy(self.id, e->data, RK_SHA256_HEX);
	self.size = e->size;
	if (!rc) /* source 0: the binary */
		rc = keep_composite(&c, &self, 1, s->a, &s->rewrites[i]);
	if (rc)
		drop_kernels(s, first);
	rk_composite_release(&c);
	return rc;
}

/* Look at regular file i: database file, fat binary, or neither. */
static int classify(struct split *s, size_t i, struct rk_err *err)
{
	struct entry *e = &s->e[i];
	struct rk_fat_elf fe;
	unsigned char *img = MAP_FAILED;
	int fd = -1, rc;

	/* the handlers see the path below the prefix root, and come first (rocm-kpack's
	 * FileClassificationVisitor) */
	if (rk_kpack_db_classify(e->path + e->rel, s->dbs, e->db))
		return 0;
	e->db[0] = '\0';
	if (!vfs_node_blob(e->node) || e->size < 64)
		return 0;
	rc = rk_blob_open(s->v->cache, e->data, e->size, &fd, err);
	if (rc == -ENOENT || rc == -EBADMSG)
		rc = vfs_artifact_refill(s->v, s->a, e->data, e->size, &fd, err);
	if (rc)
		return rc;
	img = mmap(NULL, e->size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (img == MAP_FAILED)
		return rk_err_set(err, -errno, "mmap: %s", strerror(errno));
	madvise(img, e->size, MADV_RANDOM); /* headers only: no fault-around, no readahead */
	if (memcmp(img, "\177ELF", 4))
		rc = 0;
	else if ((rc = rk_kpack_elf_inspect(img, e->size, &fe, err)) == 1)
		rc = fe.fatbin_nobits ? 0 : split_binary(s, i, img, &fe, err);
	munmap(img, e->size);
	return rc;
}

/* ---- building the outputs ---- */

static struct out *get_out(struct split *s, const char *key)
{
	struct out *o;
	char name[RK_ARTIFACT_FIELD];
	char stem[3 * RK_ARTIFACT_FIELD + 3];

	for (size_t i = 0; i < s->nouts; i++)
		if (!strcmp(s->outs[i]->key, key))
			return s->outs[i];
	if (grow((void **)&s->outs, s->nouts, sizeof(*s->outs)) || !(o = calloc(1, sizeof(*o))))
		return NULL;
	snprintf(o->key, sizeof(o->key), "%s", key);
	snprintf(name, sizeof(name), "%s", *key ? key : "generic");
	snprintf(stem, sizeof(stem), "%s_%s", s->group, name);
	o->art.an = s->a->art->an;
	snprintf(o->art.an.target, sizeof(o->art.an.target), "%s", name);
	o->art.stem = strdup(stem);
	o->art.mtime_ns = s->a->art->mtime_ns;
	o->a.v = s->v;
	o->a.run = s->a->run;
	o->a.art = &o->art;
	o->a.state = ART_DONE;
	o->a.source = s->a;
	vfs_artifact_init(&o->a);
	s->outs[s->nouts++] = o;
	if (!o->art.stem)
		return NULL;
	return o;
}

/* The directory for path's parent in o's tree (created as needed). o's root is a private
 * tree: a view that shows the output grafts it. */
static struct node *out_dir(struct split *s, struct out *o, const char *path, const char **base)
{
	if (!o->a.root) {
		char hidden[3 * RK_ARTIFACT_FIELD + 8];

		/* named per source so that every family's outputs have their own stable
		 * inode numbers */
		snprintf(hidden, sizeof(hidden), "%s/%s", s->a->art->stem, o->art.stem);
		if (!(o->a.root = vfs_tree_new(hidden, S_IFDIR | 0755, s->mtime)))
			return NULL;
	}
	return vfs_mkdirs(o->a.root, path, base, s->mtime);
}

/* A new node at path in o (directories on the way created); NULL on ENOMEM, or when
 * something else is in the way (a source tree never has that). */
static struct node *out_add(struct split *s, struct out *o, const char *path, uint32_t mode,
			    int64_t mtime)
{
	const char *base;
	struct node *d = out_dir(s, o, path, &base), *n;

	if (!d)
		return NULL;
	if ((n = vfs_dent_find(d, base)))
		return S_ISDIR(vfs_node_mode(n)) && S_ISDIR(mode) ? n : NULL;
	return vfs_node_add(d, base, mode, mtime);
}

static int add_entry(struct split *s, struct out *o, size_t i)
{
	struct entry *e = &s->e[i];
	struct node *n;

	/* directories come with their files, as split_artifacts copies files only */
	if (S_ISDIR(e->mode))
		return 0;
	if (!(n = out_add(s, o, e->path, e->mode, e->mtime)))
		return -ENOMEM;
	vfs_node_set_origin(n, s->a);
	if (s->rewrites[i]) {
		struct rk_composite *c = s->rewrites[i];

		s->rewrites[i] = NULL;
		return vfs_file_set_composite(n, c);
	}
	return vfs_file_copy(n, e->node);
}

/* Whether output o (generic: the artifact being split) has a directory prefix. */
static int has_dir(const struct split *s, const struct out *o, const char *prefix)
{
	struct node *root = *o->key ? o->a.root : s->a->root;

	return root && vfs_find_dir(root, prefix);
}

/* Whether the split found code objects of arch in binaries under prefix. */
static int has_code(const struct split *s, const char *arch, const char *prefix)
{
	for (size_t i = 0; i < s->nk; i++)
		if (!strcmp(s->k[i].arch, arch) && !strcmp(s->k[i].prefix, prefix))
			return 1;
	return 0;
}

/* o's artifact_manifest.txt, as split_artifacts writes them: for generic, the prefixes it
 * processed (read_artifact_manifest skips those with no directory in the artifact), in
 * manifest order; for an arch output, the prefixes it has content under: when it has a
 * .kpack archive, with every prefix whose binaries have code objects for it (even with
 * no directory here: the archive is under the first one only) and sorted, as
 * create_kpack_files rewrites the list, last; else in manifest order
 * (process_database_files appends each prefix as it meets it). o->a.prefixes: those
 * with a directory. */
static int out_manifest(struct split *s, struct out *o)
{
	struct rk_buf b = RK_BUF_INIT;
	char **p = calloc(s->a->nprefixes + 1, sizeof(*p));
	size_t n = 0;
	int archive = 0, rc = 0;
	struct node *f;

	if (!p)
		return -ENOMEM;
	for (size_t i = 0; *o->key && i < s->nar; i++)
		archive |= !strcmp(s->ar[i].arch, o->key);
	for (size_t i = 0; i < s->a->nprefixes; i++)
		if (has_dir(s, o, s->a->prefixes[i]) ||
		    (archive && has_code(s, o->key, s->a->prefixes[i])))
			p[n++] = s->a->prefixes[i];
	if (archive)
		qsort(p, n, sizeof(*p), rk_cmp_str);
	for (size_t i = 0; !rc && i < n; i++)
		rc = rk_buf_addf(&b, "%s\n", p[i]);
	if (!rc && !(o->a.prefixes = calloc(n + 1, sizeof(char *))))
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < n; i++)
		if (has_dir(s, o, p[i]) && !(o->a.prefixes[o->a.nprefixes++] = strdup(p[i])))
			rc = -ENOMEM;
	free(p);
	if (!rc && !(f = out_add(s, o, "artifact_manifest.txt", S_IFREG | 0644,
				 o->a.root ? vfs_node_mtime(o->a.root) : s->mtime)))
		rc = -ENOMEM;
	if (!rc) {
		size_t len = b.len;
		char *text = rk_buf_detach(&b, NULL);

		rc = text ? vfs_file_set_bytes(f, text, len) : -ENOMEM;
	}
	rk_buf_release(&b);
	return rc;
}

/* Reads code objects for the zstd scheme from their blobs, opened as needed. */
struct src_reader {
	struct rk_vfs *v;
	struct artifact *a; /* the artifact: refills */
	const struct source *src;
	int *fd;
};

static ssize_t read_source(void *ctx, uint32_t src, void *buf, size_t n, uint64_t off)
{
	struct src_reader *r = ctx;
	const struct source *so = &r->src[src];
	ssize_t got;

	if (r->fd[src] < 0) {
		int rc = rk_blob_open(r->v->cache, so->id, so->size, &r->fd[src], NULL);

		if (rc == -ENOENT || rc == -EBADMSG)
			rc = vfs_artifact_refill(r->v, r->a, so->id, so->size, &r->fd[src], NULL);
		if (rc)
			return rc;
	}
	got = pread(r->fd[src], buf, n, (off_t)off);
	return got < 0 ? -errno : got;
}

/* A zstd-per-kernel archive lives in the cache as a blob, found again through the record
 * kpack/<key>.zst ("<blob id> <size>"), key = SHA-256 of what it holds. */
static int zarchive_key(const struct zarchive *z, char key[RK_SHA256_HEX])
{
	struct rk_sha256 h;
	char num[64];

	if (rk_sha256_init(&h))
		return -ENOMEM;
	rk_sha256_update(&h, "zstd-per-kernel 1", 18);
	rk_sha256_update(&h, z->group, strlen(z->group) + 1);
	rk_sha256_update(&h, z->arch, strlen(z->arch) + 1);
	for (size_t i = 0; i < z->n; i++) {
		const struct rk_kpack_kernel *k = &z->k[i];

		rk_sha256_update(&h, k->key, strlen(k->key) + 1);
		rk_sha256_update(&h, k->target, strlen(k->target) + 1);
		rk_sha256_update(&h, k->source_prefix, strlen(k->source_prefix) + 1);
		rk_sha256_update(&h, z->src[k->src].id, RK_SHA256_HEX);
		snprintf(num, sizeof(num), "%llu %llu", (unsigned long long)k->off,
			 (unsigned long long)k->size);
		rk_sha256_update(&h, num, strlen(num) + 1);
	}
	rk_sha256_final(&h, key);
	return 0;
}

/* Find or build archive z's blob (z->id, z->size). */
static int zarchive_make(struct rk_vfs *v, struct artifact *a, struct zarchive *z,
			 struct rk_err *err)
{
	struct rk_composite sp = RK_COMPOSITE_INIT;
	struct rk_blob_writer *w = NULL;
	struct src_reader r = {v, a, z->src, calloc(z->nsrc + 1, sizeof(int))};
	const char *arches[1] = {z->arch};
	char key[RK_SHA256_HEX], rel[128], *rec = NULL;
	unsigned long long size;
	size_t len;
	int rc;

	if (!r.fd || (rc = zarchive_key(z, key))) {
		free(r.fd);
		return -ENOMEM;
	}
	snprintf(rel, sizeof(rel), RECORD_DIR "/%s.zst", key);
	if (!rk_cache_get_file(v->cache, rel, 256, &rec, &len, NULL) &&
	    sscanf(rec, "%64s %llu", z->id, &size) == 2 && rk_blob_exists(v->cache, z->id, size)) {
		z->size = size;
		free(rec);
		free(r.fd);
		return 0;
	}
	free(rec);
	for (size_t i = 0; i < z->nsrc; i++)
		r.fd[i] = -1;
	rc = rk_kpack_build(z->group, arches, 1, z->k, z->n, RK_KPACK_ZSTD, read_source, &r, &sp,
			    err);
	for (size_t i = 0; i < z->nsrc; i++)
		if (r.fd[i] >= 0)
			close(r.fd[i]);
	free(r.fd);
	if (!rc)
		rc = rk_blob_create(v->cache, 1, &w, err);
	for (size_t i = 0; !rc && i < sp.npieces; i++) /* the zstd scheme's pieces are all bytes */
		rc = sp.pieces[i].kind == RK_PIECE_BYTES
			     ? rk_blob_write(w, sp.arena + sp.pieces[i].at, sp.pieces[i].len, err)
			     : rk_err_set(err, -EINVAL, "zstd archive with a source piece");
	if (!rc) {
		rc = rk_blob_commit(w, z->id, err);
		w = NULL;
	}
	rk_blob_abort(w);
	z->size = sp.size;
	rk_composite_release(&sp);
	if (!rc) {
		char line[100];

		snprintf(line, sizeof(line), "%s %llu\n", z->id, (unsigned long long)z->size);
		rk_cache_put_file(v->cache, rel, line, strlen(line), NULL); /* best effort */
	}
	return rc;
}

static void zarchive_release(struct zarchive *z)
{
	for (size_t i = 0; i < z->n; i++) {
		free((char *)z->k[i].key);
		free((char *)z->k[i].target);
		free((char *)z->k[i].source_prefix);
	}
	free(z->k);
	free(z->src);
	free(z->group);
	free(z->arch);
	memset(z, 0, sizeof(*z));
}

/* The .kpack archive of each arch, made before the tree is locked: a composite over the
 * sources (scheme "none") or a blob (zstd). */
static int prepare_archives(struct split *s, struct rk_err *err)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < s->nk; i++) {
		struct kpack_archive *ar;
		struct rk_kpack_kernel *kk;
		size_t n = 0, j;

		for (j = 0; j < s->nar && strcmp(s->ar[j].arch, s->k[i].arch); j++)
			;
		if (j < s->nar)
			continue; /* that arch is done */
		if (grow((void **)&s->ar, s->nar, sizeof(*s->ar)) ||
		    !(kk = calloc(s->nk, sizeof(*kk))))
			return -ENOMEM;
		ar = &s->ar[s->nar++];
		memset(ar, 0, sizeof(*ar));
		snprintf(ar->arch, sizeof(ar->arch), "%s", s->k[i].arch);
		for (j = i; j < s->nk; j++) {
			const struct kernel *k = &s->k[j];

			if (strcmp(k->arch, ar->arch))
				continue;
			kk[n++] = (struct rk_kpack_kernel){.key = k->key,
							   .arch = k->arch,
							   .target = k->id,
							   .source_prefix =
								   s->relkeys ? "" : k->prefix,
							   .src = (uint32_t)k->src,
							   .off = k->off,
							   .size = k->size};
			if (!ar->prefix || strcmp(k->prefix, ar->prefix) < 0)
				ar->prefix = k->prefix;
			if (k->mtime > ar->mtime)
				ar->mtime = k->mtime;
		}
		if (!kpack_cfg(s->v)->zstd) {
			const char *arches[1] = {ar->arch};
			struct rk_composite sp = RK_COMPOSITE_INIT;

			rc = rk_kpack_build(s->group, arches, 1, kk, n, RK_KPACK_NONE, NULL, NULL,
					    &sp, err);
			if (!rc)
				rc = keep_composite(&sp, s->src, s->nsrc, s->a, &ar->composite);
			rk_composite_release(&sp);
			free(kk);
			continue;
		}
		/* zstd: an owned copy of the list, kept for rebuilding after eviction */
		ar->z.k = kk;
		ar->z.n = n;
		ar->z.group = strdup(s->group);
		ar->z.arch = strdup(ar->arch);
		ar->z.src = malloc((s->nsrc + 1) * sizeof(*s->src));
		if (!ar->z.group || !ar->z.arch || !ar->z.src)
			return -ENOMEM;
		memcpy(ar->z.src, s->src, s->nsrc * sizeof(*s->src));
		ar->z.nsrc = s->nsrc;
		for (j = 0; j < n; j++) {
			kk[j].arch = ar->z.arch;
			kk[j].key = strdup(kk[j].key);
			kk[j].target = strdup(kk[j].target);
			kk[j].source_prefix = strdup(kk[j].source_prefix);
			if (!kk[j].key || !kk[j].target || !kk[j].source_prefix)
				return -ENOMEM;
		}
		rc = zarchive_make(s->v, s->a, &ar->z, err);
	}
	return rc;
}

/* Place archive ar into its output. */
static int add_kpack(struct split *s, struct kpack_archive *ar)
{
	struct out *o = get_out(s, ar->arch);
	struct rk_buf path = RK_BUF_INIT;
	struct node *f = NULL;
	int rc = o ? 0 : -ENOMEM;

	if (!rc)
		rc = rk_buf_addf(&path, "%s/.kpack/%s_%s.kpack", ar->prefix, s->group, ar->arch);
	if (!rc && !(f = out_add(s, o, path.buf, S_IFREG | 0644, ar->mtime)))
		rc = -ENOMEM;
	if (!rc) {
		vfs_node_set_origin(f, s->a);
		if (ar->composite) {
			struct rk_composite *c = ar->composite;

			ar->composite = NULL;
			rc = vfs_file_set_composite(f, c);
		} else {
			rc = vfs_file_set_blob(f, ar->z.id, ar->z.size);
		}
	}
	rk_buf_release(&path);
	return rc;
}

static int build_outputs(struct split *s)
{
	struct out *g = get_out(s, "");
	int rc = g ? 0 : -ENOMEM;

	for (size_t i = 0; !rc && i < s->ne; i++) {
		struct entry *e = &s->e[i];
		struct out *o = e->db[0] ? get_out(s, e->db) : g;

		rc = o ? add_entry(s, o, i) : -ENOMEM;
	}
	for (size_t i = 0; !rc && i < s->nar; i++)
		rc = add_kpack(s, &s->ar[i]);
	for (size_t i = 0; !rc && i < s->nouts; i++)
		rc = out_manifest(s, s->outs[i]);
	return rc;
}

static int cmp_out(const void *x, const void *y)
{
	const struct out *a = *(struct out *const *)x, *b = *(struct out *const *)y;

	return strcmp(a->key, b->key); /* "" (generic) first */
}

static void free_out(struct out *o)
{
	vfs_tree_free(o->a.root); /* unless a view serves it */
	vfs_artifact_release(&o->a);
	free(o->art.stem);
	free(o);
}

static void split_release(struct split *s)
{
	for (size_t i = 0; i < s->ne; i++) {
		free(s->e[i].path);
		free(s->e[i].data);
		if (s->rewrites)
			rk_composite_free(s->rewrites[i]);
	}
	for (size_t i = 0; i < s->nk; i++) {
		free(s->k[i].key);
		free(s->k[i].id);
	}
	for (size_t i = 0; i < s->nar; i++) {
		rk_composite_free(s->ar[i].composite);
		zarchive_release(&s->ar[i].z);
	}
	free(s->ar);
	free(s->e);
	free(s->k);
	free(s->src);
	free(s->pay);
	free(s->rewrites);
}

static int do_split(struct rk_vfs *v, struct artifact *a, const char *group, int relkeys,
		    struct kpack_split *ks, struct rk_err *err)
{
	struct split s = {.v = v, .a = a, .mtime = vfs_node_mtime(a->run->dir), .relkeys = relkeys};
	struct rk_buf path = RK_BUF_INIT;
	struct rk_kpack_db_set wheel_dbs;
	int rc;

	/* an artifact splits with the handlers its topology entry asks for (TheRock passes
	 * them to split_artifacts --split-databases); a wheel with those of any artifact */
	if (group) {
		snprintf(s.group, sizeof(s.group), "%s", group);
		rk_topology_wheel_dbs(kpack_cfg(v)->topology, &wheel_dbs);
		s.dbs = &wheel_dbs;
	} else {
		snprintf(s.group, sizeof(s.group), "%s_%s", a->art->an.name, a->art->an.component);
		s.dbs = rk_topology_dbs(kpack_cfg(v)->topology, a->art->an.name);
	}
	if ((rc = vfs_artifacts_wait(v, &a, 1, err)))
		return rc;
	/* a's tree is immutable now that it is DONE */
	for (size_t i = 0; !rc && i < a->nprefixes; i++) {
		const struct node *p = vfs_find_dir(a->root, a->prefixes[i]);

		path.len = 0;
		if (p && !(rc = rk_buf_adds(&path, a->prefixes[i])))
			rc = collect(&s, p, &path, i, path.len + 1);
	}
	rk_buf_release(&path);
	if (!rc && !(s.rewrites = calloc(s.ne + 1, sizeof(*s.rewrites))))
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < s.ne; i++) {
		struct rk_err e = RK_ERR_INIT;
		int r;

		if (!S_ISREG(s.e[i].mode))
			continue;
		r = classify(&s, i, &e);
		/* a file kept unsplit is a different split: only a file whose bytes cannot be
		 * split is; one that cannot be read (-EIO) or a cache that cannot be written
		 * (transient: tried again on the next access) fails the split */
		if (r == -ENOMEM || r == -EIO || rk_err_transient(r))
			rc = rk_err_set(err, r, "'%s': %s", s.e[i].path, rk_err_str(&e, r));
		else if (r)
			rk_warn("'%s': '%s': %s; kept unsplit in %s_generic", a->art->stem,
				s.e[i].path, rk_err_str(&e, r), s.group);
	}
	if (!rc)
		rc = prepare_archives(&s, err);
	if (!rc)
		rc = build_outputs(&s);
	if (s.nouts)
		qsort(s.outs, s.nouts, sizeof(*s.outs), cmp_out);
	/* on failure the caller frees the outputs */
	ks->outs = (struct artifact **)s.outs;
	ks->nouts = s.nouts;
	ks->pay = s.pay;
	ks->npay = s.npay;
	s.pay = NULL;
	/* zstd archives stay described, to be made again if evicted */
	if (s.nar && s.ar[0].z.k && (ks->z = calloc(s.nar, sizeof(*ks->z)))) {
		for (size_t i = 0; i < s.nar; i++) {
			ks->z[ks->nz++] = s.ar[i].z;
			memset(&s.ar[i].z, 0, sizeof(s.ar[i].z));
		}
	}
	if (!rc)
		rk_info("'%s': split into %zu outputs (%zu code objects)", a->art->stem, s.nouts,
			s.nk);
	split_release(&s);
	return rc;
}

static void split_free(void *p)
{
	struct kpack_split *ks = p;

	for (size_t i = 0; i < ks->nouts; i++)
		free_out((struct out *)ks->outs[i]);
	free(ks->outs);
	free(ks->pay);
	for (size_t i = 0; i < ks->nz; i++)
		zarchive_release(&ks->z[i]);
	free(ks->z);
	free(ks);
}

static int restore(struct rk_vfs *v, struct artifact *a, const char *want, uint64_t size, int *fd,
		   struct rk_err *err);

int vfs_kpack_split(struct rk_vfs *v, struct artifact *a, const char *group, int relkeys,
		    struct artifact ***outs, size_t *nouts, struct rk_err *err)
{
	struct kpack_split *ks;
	int rc = 0;

	pthread_mutex_lock(&a->derived_lock);
	if (!a->derived) {
		/* a failure is not kept: the next access tries again (the archive may have
		 * failed for a network timeout; a corrupt one fails again at once) */
		if (!(ks = calloc(1, sizeof(*ks)))) {
			rc = -ENOMEM;
		} else if ((rc = do_split(v, a, group, relkeys, ks, err))) {
			split_free(ks);
		} else {
			a->derived = ks;
			a->derived_free = split_free;
			a->derived_restore = restore;
		}
	}
	if (!rc) {
		ks = a->derived;
		*outs = ks->outs;
		*nouts = ks->nouts;
	}
	pthread_mutex_unlock(&a->derived_lock);
	return rc;
}

/* Re-create blob want (evicted from the cache): a decompressed bundle, from the binary
 * it came from, or a zstd archive, compressed again. */
static int restore(struct rk_vfs *v, struct artifact *a, const char *want, uint64_t size, int *fd,
		   struct rk_err *err)
{
	struct payload p = {0};
	struct rk_fat_elf fe;
	struct rk_fatbin fb = {0};
	unsigned char *img;
	int hfd = -1, rc = -ENOENT;

	struct zarchive z = {0};

	const struct kpack_split *ks;

	pthread_mutex_lock(&a->derived_lock);
	ks = a->derived;
	for (size_t i = 0; ks && i < ks->npay; i++)
		if (!strcmp(ks->pay[i].id, want))
			p = ks->pay[i];
	for (size_t i = 0; ks && i < ks->nz; i++)
		if (!strcmp(ks->z[i].id, want))
			z = ks->z[i]; /* a shallow copy: the lists are immutable */
	pthread_mutex_unlock(&a->derived_lock);
	if (z.k) {
		/* a zstd archive: compress it again (the same bytes, so the same id) */
		rc = zarchive_make(v, a, &z, err);
		return rc ? rc : rk_blob_open(v->cache, want, size, fd, err);
	}
	if (!p.id[0])
		return rk_err_set(err, -ENOENT, "blob %.12s: not in the cache", want);
	rc = rk_blob_open(v->cache, p.host, p.host_size, &hfd, err);
	if (rc == -ENOENT || rc == -EBADMSG)
		rc = vfs_artifact_refill(v, a, p.host, p.host_size, &hfd, err);
	if (rc)
		return rc;
	img = mmap(NULL, p.host_size, PROT_READ, MAP_SHARED, hfd, 0);
	close(hfd);
	if (img == MAP_FAILED)
		return rk_err_set(err, -errno, "mmap: %s", strerror(errno));
	rc = rk_kpack_elf_inspect(img, p.host_size, &fe, err);
	if (rc == 1)
		rc = rk_fatbin_parse(img + fe.fatbin_off, fe.fatbin_size, 0, &fb, err);
	else if (!rc)
		rc = rk_err_set(err, -EIO, "blob %.12s: no longer a fat binary", p.host);
	for (size_t i = 0; !rc && i < fb.nbundles; i++) {
		char id[RK_SHA256_HEX];

		if (fb.bundles[i].payload)
			rc = rk_blob_put(v->cache, fb.bundles[i].payload, fb.bundles[i].usize, id,
					 err);
	}
	rk_fatbin_release(&fb);
	munmap(img, p.host_size);
	return rc ? rc : rk_blob_open(v->cache, want, size, fd, err);
}
