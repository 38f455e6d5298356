/* view_python.c: RUN/python/, a pip "simple" index (PEP 503, 658, 714) over the wheels
 * and sdists the run stores in python/ or python/<group>/ (therock-formats.md 6.6) and
 * the packages synthesized from its artifacts (view_python_synth.c).
 *
 *   python/simple/index.html             one link per project (PEP 503-normalized)
 *   python/simple/<project>/index.html   one link per file: #sha256=, data-requires-python,
 *                                        data-core-metadata (and data-dist-info-metadata)
 *   python/files/<file>                  the stored bytes, or the synthesized package
 *   python/files/<wheel>.metadata        the wheel's METADATA
 *   python/find-links/<file>             symlinks to ../files/<file>
 *   python/index.html                    the flat --find-links page TheRock's upload step
 *                                        writes: every served file, href files/<file>
 *   python/<family>/index.html           legacy (fat) runs, one per family and per stored
 *                                        group (python/<group>/): that family's files and
 *                                        the generic ones, href ../files/<file>
 *   python/<family>/<file>               a multi-family legacy run's per-family rocm sdist
 *                                        and devel wheel (upstream's dist/<family>/, the
 *                                        same names in each), linked by that family's
 *                                        page alone (./<file>), never by simple/
 *   python/PROVENANCE                    where each file came from
 *   python/stored/                       the run's python/ folder as CI stored it (its
 *                                        index.html pages included), read-only
 *
 * Populating python/ reads each stored wheel's METADATA (a few ranged reads) and builds
 * the synthesized packages; a project's files are hashed when its page is first looked
 * at, once: the hash is kept in the cache under pyhash/ (keyed by the store, path, size
 * and mtime, or a synthesized wheel's composite digest), so a remount reads no file whole.
 * A stored file of a project the view makes is checked against it first (check_stored:
 * version, and the platform layout the synthesized devel tree links into); one that fails
 * is not served (python/stored/ still has it) and its project is synthesized. Otherwise
 * a stored file wins over a synthesized one of the same name, and a project the run stores
 * any file of is served from the store alone (its synthesized files are not served); when
 * two groups store a file of the same name, the first (sorted) one is served; PROVENANCE
 * says so. The flat and family pages carry no hashes (as upstream's): they are made with
 * python/'s listing and hash nothing. A wheel whose METADATA cannot be read is listed
 * without data-core-metadata, with one log line; a file that cannot be read to hash is
 * left out of its page, with one log line. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rk/buf.h"
#include "rk/cache.h"
#include "rk/hash.h"
#include "rk/log.h"
#include "rk/wheel.h"
#include "cache/composite_read.h"
#include "cache/memo.h"
#include "services/flatten.h"
#include "views/python/view_python.h"
#include "formats/archive/pep503.h"
#include "util/array.h"

struct pyfile {
	char *file; /* e.g. "rocm_sdk_core-7.13.0-py3-none-linux_x86_64.whl" */
	char *path; /* store path */
	char *rel; /* below python/, e.g. "gfx110X-all/<file>" */
	char project[256];
	char dist_info[300];
	int kind; /* enum rk_pyfile */
	uint64_t size;
	int64_t mtime, mtime_ns;
	char sha[RK_SHA256_HEX];
	char *meta; /* METADATA, or NULL */
	size_t meta_len;
	char meta_sha[RK_SHA256_HEX];
	char *requires_python;
	char *dup_of; /* not served: the rel of the stored file that is (same name, or project) */
	char *rejected; /* a stored file not served: why it is not what the artifacts make */
	int by_project; /* dup_of is a stored file of the same project, another name */
	int split_product; /* synthesized by the kpack split of a stored fat wheel */
	int meta_owned; /* meta belongs to the .metadata node (immutable, kept to the end) */
	int unreadable; /* its bytes could not be hashed (logged): left out of its page */
	struct pysynth *syn; /* synthesized (view_python_synth.c), while populating */
	int synth; /* synthesized, not stored */
	char family[64]; /* "", or served in python/<family>/ only (pysynth.family) */
	char syn_key[RK_SHA256_HEX]; /* a synthesized wheel's composite digest */
	const struct rk_composite *zip; /* a synthesized wheel: its node's composite */
	struct pywheelz *wz; /* a deflated synthesized wheel: its node's (pywheelz_make) */
	const char *bytes; /* the synthesized sdist: its node's bytes */
	int meta_tried; /* read_metadata ran (before the kpack split) */
	/* once the set is kept (pop_python's end): */
	pthread_mutex_t lock; /* hashing it; sha, hashed and unreadable */
	int hashed;
};

struct pyset {
	struct pyfile *v;
	size_t n, cap;
	int locks; /* every v[i].lock is initialized */
	pthread_t bg; /* the background hasher */
	int bg_started;
	_Atomic int stop; /* asks it to stop */
	struct rk_vfs *vfs;
};

/* Whether f is listed (not a duplicate name, readable). */
static int served(const struct pyfile *f)
{
	return !f->dup_of && !f->unreadable && !f->rejected;
}

static void pyset_release(struct pyset *s)
{
	for (size_t i = 0; i < s->n; i++) {
		if (s->locks)
			pthread_mutex_destroy(&s->v[i].lock);
		free(s->v[i].file);
		free(s->v[i].path);
		free(s->v[i].rel);
		if (!s->v[i].meta_owned)
			free(s->v[i].meta);
		free(s->v[i].requires_python);
		free(s->v[i].dup_of);
		free(s->v[i].rejected);
	}
	free(s->v);
}

/* A new entry in s for package file `file` (kind and names parsed, file copied), or NULL
 * with *rc 0 when it is not a package file, -ENOMEM when out of memory. */
static struct pyfile *pyset_add(struct pyset *s, const char *file, int *rc)
{
	struct pyfile f = {0}, *n;

	*rc = 0;
	f.kind = rk_pyfile_parse(file, f.project, sizeof(f.project), f.dist_info,
				 sizeof(f.dist_info));
	if (f.kind == RK_PYFILE_NONE)
		return NULL;
	if (RK_GROW(s->v, s->cap, s->n, 16)) {
		*rc = -ENOMEM;
		return NULL;
	}
	n = &s->v[s->n++]; /* the set owns it from here, even half made */
	*n = f;
	if (!(n->file = strdup(file)))
		*rc = -ENOMEM;
	return *rc ? NULL : n;
}

/* Add the package files of one store listing (dir: "python" or "python/<group>"). */
static int pyset_scan(const char *run_path, const char *sub, struct pyset *s,
		      struct rk_store_list *l)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < l->n; i++) {
		const struct rk_store_entry *e = &l->v[i];
		struct pyfile *f;

		if (e->is_dir || !(f = pyset_add(s, e->name, &rc)))
			continue;
		f->size = e->size;
		f->mtime = e->mtime;
		f->mtime_ns = e->mtime_ns;
		if (asprintf(&f->rel, "%s%s%s", sub, sub[0] ? "/" : "", e->name) < 0 ||
		    asprintf(&f->path, "%s%spython/%s", run_path, run_path[0] ? "/" : "", f->rel) <
			    0)
			rc = -ENOMEM;
	}
	return rc;
}

/* ---- hashes, once per stored file version, kept in the cache ---- */

/* f's record: by store identity, or a synthesized wheel's composite digest. */
static int hash_key(struct rk_vfs *v, const struct pyfile *f, char rel[128])
{
	return f->synth ? vfs_pyhash_rel(v, "", f->syn_key, 0, 0, rel)
			: vfs_pyhash_rel(v, "", f->path, f->size, f->mtime_ns, rel);
}

static int hash_object(struct rk_vfs *v, struct pyfile *f, struct rk_err *err)
{
	struct rk_object *o;
	struct rk_sha256 h;
	uint64_t total = 0;
	char *buf;
	int rc;

	if ((rc = rk_store_object_open(v->store, f->path, &o, err)))
		return rc;
	if (!(buf = malloc(1 << 20)) || (rc = rk_sha256_init(&h))) {
		free(buf);
		rk_object_close(o);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t r = rk_object_read(o, buf, 1 << 20, err);

		if (r <= 0) {
			rc = (int)r;
			break;
		}
		rk_sha256_update(&h, buf, (size_t)r);
		total += (uint64_t)r;
	}
	if (!rc && total != f->size)
		rc = rk_err_set(err, -EIO, "'%s': read %llu bytes, listed %llu", f->path,
				(unsigned long long)total, (unsigned long long)f->size);
	if (rc)
		rk_sha256_release(&h);
	else
		rk_sha256_final(&h, f->sha);
	free(buf);
	rk_object_close(o);
	return rc;
}

/* The sha256 of a synthesized wheel: its bytes read once through the composite (a
 * deflated wheel's made for it: its members are compressed, or found, first). */
static int hash_composite(struct rk_vfs *v, struct pyfile *f, struct rk_err *err)
{
	struct rk_composite *made = NULL;
	const struct rk_composite *zip = f->zip;
	struct rk_sha256 h;
	char *buf = malloc(1 << 20);
	int rc = buf ? rk_sha256_init(&h) : -ENOMEM;

	if (!rc && f->wz) {
		if ((rc = pywheelz_make(v, f->wz, &made, err)))
			rk_sha256_release(&h);
		zip = made;
	}
	for (uint64_t off = 0; !rc && off < zip->size;) {
		ssize_t r = rk_composite_pread_blobs(
			v->cache, zip, buf, (size_t)RK_MIN((uint64_t)(1 << 20), zip->size - off),
			off, NULL);

		if (r <= 0)
			rc = rk_err_set(err, -EIO, "'%s': unreadable at %llu", f->file,
					(unsigned long long)off);
		else
			rk_sha256_update(&h, buf, (size_t)r);
		off += r > 0 ? (uint64_t)r : 0;
	}
	if (buf && !rc)
		rk_sha256_final(&h, f->sha);
	else if (buf && (!f->wz || made))
		rk_sha256_release(&h);
	rk_composite_free(made);
	free(buf);
	return rc;
}

struct sha_memo {
	struct rk_vfs *v;
	struct pyfile *f;
};

static int sha_load(void *ctx, char *data, size_t len)
{
	struct pyfile *f = ((struct sha_memo *)ctx)->f;

	if (len < RK_SHA256_HEX - 1)
		return -EINVAL;
	data[RK_SHA256_HEX - 1] = '\0';
	if (!rk_is_sha256_hex(data))
		return -EINVAL;
	memcpy(f->sha, data, RK_SHA256_HEX);
	return 0;
}

static int sha_compute(void *ctx, struct rk_buf *rec, struct rk_err *err)
{
	struct sha_memo *m = ctx;
	int rc = m->f->synth ? hash_composite(m->v, m->f, err) : hash_object(m->v, m->f, err);

	return rc ? rc : rk_buf_addf(rec, "%s\n", m->f->sha);
}

static int file_sha256(struct rk_vfs *v, struct pyfile *f, struct rk_err *err)
{
	struct sha_memo sm = {v, f};
	const struct rk_memo m = {sha_load, sha_compute, &sm, 4096};
	char rel[128];
	int rc, unkept;

	if (f->bytes)
		return rk_sha256_buf(f->bytes, f->size, f->sha);
	if ((rc = hash_key(v, f, rel)))
		return rc;
	if ((rc = rk_memo_load_or_compute(v->cache, "pyhash", rel, &m, &unkept, err)))
		return rc;
	if (unkept)
		rk_warn("'%s': could not keep its hash in the cache", f->path);
	return 0;
}

static ssize_t obj_pread(void *ctx, void *buf, size_t n, uint64_t off)
{
	return rk_object_pread(ctx, buf, n, off, NULL);
}

/* f's METADATA, or a log line saying why not. */
static void read_metadata(struct rk_vfs *v, struct pyfile *f)
{
	struct rk_err err = RK_ERR_INIT;
	struct rk_object *o;
	char key[128], rel[136];
	int rc, keep = v->cache && !hash_key(v, f, key), kept = 0;

	/* kept in the cache next to the hash: a remount (or an offline one) reads nothing */
	if (keep) {
		snprintf(rel, sizeof(rel), "%s.meta", key);
		kept = !rk_cache_get_file(v->cache, rel, RK_WHEEL_MAX_METADATA, &f->meta,
					  &f->meta_len, NULL);
	}
	rc = kept ? 0 : rk_store_object_open(v->store, f->path, &o, &err);
	if (!rc && !kept) {
		rc = rk_wheel_metadata(obj_pread, o, rk_object_size(o), f->dist_info, &f->meta,
				       &f->meta_len, &err);
		rk_object_close(o);
		if (!rc && keep) {
			rk_cache_area(v->cache, "pyhash");
			if (rk_cache_put_file(v->cache, rel, f->meta, f->meta_len, NULL))
				rk_warn("'%s': could not keep its METADATA in the cache", f->path);
		}
	}
	if (!rc)
		rc = rk_sha256_buf(f->meta, f->meta_len, f->meta_sha);
	if (!rc) {
		if (rk_metadata_field(f->meta, f->meta_len, "Requires-Python",
				      &f->requires_python) == -ENOMEM)
			rc = -ENOMEM;
	}
	if (rc) {
		rk_warn("python: '%s': no METADATA served: %s", f->path, rk_err_str(&err, rc));
		free(f->meta);
		f->meta = NULL;
	}
}

/* ---- stored against synthesized ---- */

/* The version in package file name `file` of kind `kind` (a wheel's second field, an
 * sdist's after its last '-'), in out[n] ("" when it does not fit). */
static void file_version(int kind, const char *file, char *out, size_t n)
{
	const char *a, *b;

	out[0] = '\0';
	if (kind == RK_PYFILE_WHEEL) {
		if (!(a = strchr(file, '-')) || !(b = strchr(++a, '-')))
			return;
	} else {
		b = file + strlen(file) - (sizeof(".tar.gz") - 1);
		for (a = b; a > file && a[-1] != '-'; a--)
			;
	}
	if ((size_t)(b - a) < n)
		snprintf(out, n, "%.*s", (int)(b - a), a);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct rk_wheel_member *)a)->name,
		      ((const struct rk_wheel_member *)b)->name);
}

static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Stored wheel f's member names, sorted, each NUL-terminated, in *names (*len bytes), or
 * NULL for a damaged wheel (not a zip: read_metadata logs it, and it is served as a
 * damaged wheel is): kept in the cache next to its hash (pyhash/<key>.names), so a
 * remount reads nothing. Only -ENOMEM and transient failures fail the call. */
static int stored_names(struct rk_vfs *v, const struct pyfile *f, char **names, size_t *len,
			struct rk_err *err)
{
	struct rk_wheel_member *m = NULL;
	struct rk_buf b = RK_BUF_INIT;
	struct rk_object *o;
	char key[128], rel[136];
	size_t n = 0;
	int rc, keep = v->cache && !hash_key(v, f, key);

	if (keep) {
		snprintf(rel, sizeof(rel), "%s.names", key);
		if (!rk_cache_get_file(v->cache, rel, 64 << 20, names, len, NULL)) {
			if (!*len || (*names)[*len - 1] == '\0')
				return 0;
			free(*names); /* not a record of ours: listed again */
			*names = NULL;
		}
	}
	if (!(rc = rk_store_object_open(v->store, f->path, &o, err))) {
		rc = rk_wheel_list(obj_pread, o, rk_object_size(o), &m, &n, err);
		rk_object_close(o);
	}
	if (rc == -ENOMEM || rk_err_transient(rc))
		return rc;
	if (rc) {
		rk_err_clear(err);
		*names = NULL;
		*len = 0;
		return 0;
	}
	if (n)
		qsort(m, n, sizeof(*m), cmp_name);
	for (size_t i = 0; !rc && i < n; i++)
		rc = rk_buf_add(&b, m[i].name, strlen(m[i].name) + 1);
	rk_wheel_members_free(m, n);
	if (rc) {
		rk_buf_release(&b);
		return -ENOMEM;
	}
	if (keep) {
		rk_cache_area(v->cache, "pyhash");
		if (rk_cache_put_file(v->cache, rel, b.buf, b.len, NULL))
			rk_warn("'%s': could not keep its member list in the cache", f->path);
	}
	*len = b.len;
	if (!(*names = malloc(b.len + 1))) {
		rk_buf_release(&b);
		return -ENOMEM;
	}
	memcpy(*names, b.buf, b.len);
	rk_buf_release(&b);
	return 0;
}

/* Whether stored wheel f holds every member of the platform layout `lay` (syn->members):
 * in *missing the first it lacks (NULL when it has them all, or is damaged). */
static int lacks_layout(struct rk_vfs *v, const struct pyfile *f, const char *lay, size_t len,
			const char **missing, struct rk_err *err)
{
	char *names = NULL;
	const char **idx = NULL;
	size_t nlen = 0, n = 0;
	int rc;

	*missing = NULL;
	if ((rc = stored_names(v, f, &names, &nlen, err)) || !names)
		return rc;
	for (size_t off = 0; off < nlen; off += strlen(names + off) + 1)
		n++;
	if (n && !(idx = malloc(n * sizeof(*idx)))) {
		free(names);
		return -ENOMEM;
	}
	n = 0;
	for (size_t off = 0; off < nlen; off += strlen(names + off) + 1)
		idx[n++] = names + off;
	/* (sorted when kept; a record is sorted again, cheaply, in case) */
	if (n)
		qsort(idx, n, sizeof(*idx), cmp_strp);
	for (size_t off = 0; off < len && !*missing; off += strlen(lay + off) + 1) {
		const char *key = lay + off;

		if (!n || !bsearch(&key, idx, n, sizeof(*idx), cmp_strp))
			*missing = key;
	}
	free(idx);
	free(names);
	return 0;
}

/* Check the stored package files of s against what the view makes of the artifacts (syn,
 * before the kpack split): a stored file of a project the view makes is served only when
 * it has the version the view makes and, when the devel wheel served is the synthesized
 * one (its tree links into the platform layout of the synthesized runtime wheels), every
 * member of that layout. Else it is rejected (not offered by any page: the synthesized
 * files of its project are, so stored and synthesized never mix into a broken set). */
static int check_stored(struct rk_vfs *v, struct pyset *s, const struct pysynth_set *syn,
			struct rk_err *err)
{
	int devel_stored = 0, rc = 0;

	for (size_t i = 0; i < s->n; i++)
		devel_stored |= !strcmp(s->v[i].project, "rocm-sdk-devel");
	for (size_t i = 0; !rc && i < s->n; i++) {
		struct pyfile *f = &s->v[i];
		char fv[128], sv[128], project[256];
		const char *missing = NULL;

		file_version(f->kind, f->file, fv, sizeof(fv));
		for (size_t j = 0; !rc && !f->rejected && j < syn->n; j++) {
			const struct pysynth *p = &syn->v[j];
			int kind = rk_pyfile_parse(p->file, project, sizeof(project), NULL, 0);

			if (kind == RK_PYFILE_NONE || strcmp(project, f->project))
				continue;
			file_version(kind, p->file, sv, sizeof(sv));
			if (strcmp(fv, sv)) {
				if (asprintf(&f->rejected, "version %s, the artifacts make %s", fv,
					     sv) < 0)
					f->rejected = NULL, rc = -ENOMEM;
			} else if (!devel_stored && f->kind == RK_PYFILE_WHEEL && p->members &&
				   kind == RK_PYFILE_WHEEL &&
				   !(rc = lacks_layout(v, f, p->members, p->members_len, &missing,
						       err)) &&
				   missing &&
				   asprintf(&f->rejected,
					    "lacks %s, which the synthesized devel tree links to",
					    missing) < 0) {
				f->rejected = NULL;
				rc = -ENOMEM;
			}
		}
	}
	return rc;
}

/* ---- rendering ---- */

/* The families of a legacy run's python/<family>/ pages (sorted, distinct). */
struct pyfams {
	char **name;
	size_t n;
};

/* The served files of s->v[lo..hi) as the index pages see them (*out malloc'd). */
static int index_files(const struct pyset *s, size_t lo, size_t hi, struct rk_pyindex_file **out,
		       size_t *n)
{
	struct rk_pyindex_file *v = calloc(hi - lo + 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	*n = 0;
	for (size_t i = lo; i < hi; i++) {
		const struct pyfile *f = &s->v[i];

		if (served(f))
			v[(*n)++] = (struct rk_pyindex_file){
				.file = f->file,
				.project = f->project,
				.family = f->family,
				.sha = f->sha,
				.requires_python = f->requires_python,
				.meta_sha = f->meta ? f->meta_sha : NULL,
				.split_product = f->split_product};
	}
	*out = v;
	return 0;
}

enum page { PAGE_ROOT, PAGE_FLAT, PAGE_PROJECT };

/* simple/index.html, a --find-links page (family NULL: python/index.html) or the project
 * page of s->v[lo..hi), into b (formats/archive/pep503.h). */
static int render(const struct pyset *s, size_t lo, size_t hi, enum page page, const char *family,
		  struct rk_buf *b)
{
	struct rk_pyindex_file *v;
	size_t n;
	int rc = index_files(s, lo, hi, &v, &n);

	if (rc)
		return rc;
	if (page == PAGE_ROOT)
		rc = rk_pep503_root(v, n, b);
	else if (page == PAGE_FLAT)
		rc = rk_pep503_flat(v, n, family, b);
	else
		rc = rk_pep503_project(s->v[lo].project, v, n, b);
	free(v);
	return rc;
}

static int cmp_pyfile(const void *a, const void *b)
{
	const struct pyfile *x = a, *y = b;
	int c = strcmp(x->project, y->project);

	if (!c)
		c = strcmp(x->file, y->file);
	if (!c)
		c = x->synth - y->synth;
	return c ? c : strcmp(x->rel, y->rel);
}

/* A SRC_BYTES file of private dir taking b's buffer. */
static int add_bytes(struct node *dir, const char *name, struct rk_buf *b, int64_t mtime)
{
	struct node *n = vfs_node_add(dir, name, S_IFREG | 0444, mtime);
	char *data;

	if (!n)
		return -ENOMEM;
	if (b->alloc) {
		size_t len = b->len;

		data = b->buf;
		*b = (struct rk_buf)RK_BUF_INIT;
		return vfs_file_set_bytes(n, data, len);
	}
	data = strdup("");
	return data ? vfs_file_set_bytes(n, data, 0) : -ENOMEM;
}

static int pop_pyproject(struct rk_vfs *v, struct node *dir, struct rk_err *err);

static int make_deflated(struct rk_vfs *v, void *ctx, struct rk_composite **out, struct rk_err *err)
{
	return pywheelz_make(v, ctx, out, err);
}

static void free_deflated(void *ctx)
{
	pywheelz_free(ctx);
}

/* files/<f>, a deflated wheel: made (compressed) on first stat or open. */
static int add_deflated(struct node *files, struct pyfile *f)
{
	struct pywheelz *wz = f->syn->wz;

	f->syn->wz = NULL; /* the node owns it, even when it cannot be made */
	if (!vfs_later_file(files, f->file, f->mtime, UINT64_MAX, make_deflated, free_deflated, wz))
		return -ENOMEM;
	f->wz = wz;
	return 0;
}

/* python/'s entries, in private directory py. */
static int build_tree(struct node *py, struct pyset *s, const struct pyfams *fm)
{
	struct node *simple, *files, *links;
	struct rk_buf b = RK_BUF_INIT;
	int64_t newest = 0;
	int rc = 0;

	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].mtime > newest)
			newest = s->v[i].mtime;
	if (!newest)
		newest = vfs_node_mtime(py);
	simple = vfs_node_add(py, "simple", S_IFDIR | 0555, newest);
	files = vfs_node_add(py, "files", S_IFDIR | 0555, newest);
	links = vfs_node_add(py, "find-links", S_IFDIR | 0555, newest);
	if (!simple || !files || !links)
		return -ENOMEM;
	for (size_t i = 0; i < fm->n; i++)
		if (!vfs_node_add(py, fm->name[i], S_IFDIR | 0555, newest))
			return -ENOMEM;
	for (size_t i = 0; !rc && i < s->n; i++) {
		struct pyfile *f = &s->v[i];
		struct node *n, *d = f->family[0] ? vfs_find(py, f->family) : files;
		char *target;

		if (!served(f) || !d)
			continue;
		if (f->syn && f->syn->wz) {
			if ((rc = add_deflated(d, f)))
				break;
			n = NULL;
		} else if (!(n = vfs_node_add(d, f->file, S_IFREG | 0444, f->mtime))) {
			rc = -ENOMEM;
			break;
		}
		if (!n) {
			/* a deflated wheel: made on first stat or open (add_deflated) */
		} else if (f->syn && f->syn->zip) {
			/* a wheel: a zip as a composite file */
			struct rk_composite *zip = f->syn->zip;

			f->zip = zip;
			f->syn->zip = NULL;
			if ((rc = vfs_file_set_composite(n, zip)))
				break;
		} else if (f->syn) {
			char *bytes = f->syn->bytes;

			f->bytes = bytes;
			f->syn->bytes = NULL;
			if ((rc = vfs_file_set_bytes(n, bytes, f->size)))
				break;
		} else if ((rc = vfs_file_set_store(n, f->path, f->size))) {
			break;
		}
		if (f->family[0])
			continue; /* no .metadata, no find-links/: simple/ never lists it */
		if (f->meta) {
			char name[600];
			struct node *m;

			snprintf(name, sizeof(name), "%s.metadata", f->file);
			if (!(m = vfs_node_add(files, name, S_IFREG | 0444, f->mtime))) {
				rc = -ENOMEM;
				break;
			}
			(void)vfs_file_set_bytes(m, f->meta, f->meta_len); /* m is private */
			f->meta_owned = 1; /* still read for rendering */
		}
		if (asprintf(&target, "../files/%s", f->file) < 0)
			target = NULL;
		n = target ? vfs_symlink(links, f->file, f->mtime, target) : NULL;
		free(target);
		if (!n) {
			rc = -ENOMEM;
			break;
		}
	}
	if (!rc && !(rc = render(s, 0, s->n, PAGE_ROOT, NULL, &b)))
		rc = add_bytes(simple, "index.html", &b, newest);
	if (!rc && !(rc = render(s, 0, s->n, PAGE_FLAT, NULL, &b)))
		rc = add_bytes(py, "index.html", &b, newest);
	for (size_t i = 0; !rc && i < fm->n; i++)
		if (!(rc = render(s, 0, s->n, PAGE_FLAT, fm->name[i], &b)))
			rc = add_bytes(vfs_find(py, fm->name[i]), "index.html", &b, newest);
	/* simple/<project>/ is rendered on first look: only then are its files hashed */
	for (size_t lo = 0, hi; !rc && lo < s->n; lo = hi) {
		int any = 0;

		for (hi = lo; hi < s->n && !strcmp(s->v[hi].project, s->v[lo].project); hi++)
			any |= served(&s->v[hi]) && !s->v[hi].family[0];
		if (any && !vfs_lazy_dir(simple, s->v[lo].project, pop_pyproject, newest))
			rc = -ENOMEM;
	}
	if (!rc) {
		b.len = 0;
		rc = rk_buf_adds(&b, "# python/ of this run: where each file comes from\n");
		for (size_t i = 0; !rc && i < s->n; i++) {
			const struct pyfile *f = &s->v[i];

			if (f->rejected)
				rc = rk_buf_addf(&b, "%s\tstored python/%s\tnot served: %s\n",
						 f->family[0] ? f->rel : f->file, f->rel,
						 f->rejected);
			else if (f->dup_of && f->by_project)
				rc = rk_buf_addf(&b,
						 "synthesized %s\tnot served: project %s is stored "
						 "(python/%s)\n",
						 f->rel, f->project, f->dup_of);
			else if (f->dup_of)
				rc = rk_buf_addf(
					&b, "%s%s\tnot served: same name as stored python/%s\n",
					f->syn ? "synthesized " : "", f->rel, f->dup_of);
			else if (f->syn && !strncmp(f->syn->from, "kpack-split ", 12))
				rc = rk_buf_addf(&b, "%s\t%s\n", f->file, f->syn->from);
			else if (f->syn)
				rc = rk_buf_addf(&b, "%s\tsynthesized from %s\n",
						 f->family[0] ? f->rel : f->file, f->syn->from);
			else
				rc = rk_buf_addf(&b, "%s\tstored python/%s\n",
						 f->family[0] ? f->rel : f->file, f->rel);
		}
		if (!rc)
			rc = add_bytes(py, "PROVENANCE", &b, newest);
	}
	rk_buf_release(&b);
	return rc;
}

/* Add the synthesized packages of syn to s (they sort after stored files of the same
 * name, which therefore win). */
static int pyset_synth(struct pyset *s, struct pysynth_set *syn, int64_t mtime)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < syn->n; i++) {
		struct pysynth *p = &syn->v[i];
		struct pyfile *f;

		if (!(f = pyset_add(s, p->file, &rc)))
			continue;
		f->syn = p;
		f->synth = 1;
		f->split_product = p->from && !strncmp(p->from, "kpack-split ", 12);
		memcpy(f->family, p->family, sizeof(f->family));
		memcpy(f->syn_key, p->key, RK_SHA256_HEX);
		f->size = p->size;
		f->mtime = mtime;
		if (p->meta) {
			f->meta = p->meta; /* moves: the node or pyset_release frees it */
			f->meta_len = p->meta_len;
			p->meta = NULL;
		}
		if ((p->family[0] ? asprintf(&f->rel, "%s/%s", p->family, p->file) < 0 &&
					    !(f->rel = NULL)
				  : !(f->rel = strdup(p->file))) ||
		    !(f->path = strdup("(synthesized)")) ||
		    (f->meta && (rk_sha256_buf(f->meta, f->meta_len, f->meta_sha) ||
				 rk_metadata_field(f->meta, f->meta_len, "Requires-Python",
						   &f->requires_python) == -ENOMEM)))
			rc = -ENOMEM;
	}
	return rc;
}

static void *hash_ahead(void *p);
extern const struct vfs_view vfs_view_python;

/* The family of a legacy run r whose group (python/<family>/) stored file f sits in, or
 * NULL. */
static const char *stored_family(struct rk_vfs *v, struct run *r, const struct pyfile *f)
{
	const char *slash = strchr(f->rel, '/');
	size_t n = slash ? (size_t)(slash - f->rel) : 0;

	if (!slash || n >= sizeof(f->family) || vfs_run_is_split(v, r))
		return NULL;
	for (size_t i = 0; i < r->cat->ntargets; i++)
		if (strlen(r->cat->targets[i]) == n && !strncmp(r->cat->targets[i], f->rel, n) &&
		    strcmp(r->cat->targets[i], "generic"))
			return r->cat->targets[i];
	return NULL;
}

/* Add family name to fm (a name python/ has already, or a dot name, is not one). */
static int pyfams_add(struct pyfams *fm, const char *name)
{
	static const char *const taken[] = {"simple", "files", "find-links", "PROVENANCE",
					    "index.html", "stored"};

	if (!name[0] || name[0] == '.' || strchr(name, '/'))
		return 0;
	for (size_t i = 0; i < sizeof(taken) / sizeof(taken[0]); i++)
		if (!strcmp(name, taken[i]))
			return 0;
	for (size_t i = 0; i < fm->n; i++)
		if (!strcmp(name, fm->name[i]))
			return 0;
	return (fm->name[fm->n++] = strdup(name)) ? 0 : -ENOMEM;
}

static void pyfams_release(struct pyfams *fm)
{
	for (size_t i = 0; i < fm->n; i++)
		free(fm->name[i]);
	free(fm->name);
}

/* python/<family>/ pages: the stored groups (python/<group>/, TheRock's single-arch and
 * legacy layouts) and, for a legacy (not kpack-split) run, its families; sorted. */
static int pyfams_of(struct rk_vfs *v, struct run *r, const struct rk_store_list *top,
		     struct pyfams *fm)
{
	size_t cap = top->n + r->cat->ntargets;
	int rc = 0;

	if (!cap)
		return 0;
	if (!(fm->name = calloc(cap, sizeof(*fm->name))))
		return -ENOMEM;
	for (size_t i = 0; !rc && i < top->n; i++)
		if (top->v[i].is_dir)
			rc = pyfams_add(fm, top->v[i].name);
	if (!rc && !vfs_run_is_split(v, r))
		for (size_t i = 0; !rc && i < r->cat->ntargets; i++)
			if (strcmp(r->cat->targets[i], "generic"))
				rc = pyfams_add(fm, r->cat->targets[i]);
	if (fm->n)
		qsort(fm->name, fm->n, sizeof(*fm->name), rk_cmp_str);
	return rc;
}

/* The view's state for run r, created on first use (populating python/ runs once at a
 * time, and its pages only after it). */
static struct pystate *pystate_of(struct run *r)
{
	void **slot = vfs_view_state(r, &vfs_view_python);

	if (!*slot)
		*slot = calloc(1, sizeof(struct pystate));
	return *slot;
}

/* python/stored/: the run's python/ folder as CI stored it (its index.html pages and
 * files at their own paths, the stored bytes), when it has one. */
static int add_stored(struct run *r, struct node *root)
{
	char *path = NULL;
	int rc = 0;

	if (!r->cat->has_python)
		return 0;
	if (asprintf(&path, "%s%spython", r->cat->path, r->cat->path[0] ? "/" : "") < 0)
		return -ENOMEM;
	if (!vfs_stored_dir(root, "stored", path, vfs_node_mtime(root)))
		rc = -ENOMEM;
	free(path);
	return rc;
}

static int pop_python(struct rk_vfs *v, struct node *dir, struct rk_err *err)
{
	struct run *r = vfs_node_run(dir);
	struct pystate *ps = pystate_of(r);
	struct pyset s = {0};
	struct pysynth_set syn = {0};
	struct rk_store_list top = {0};
	struct pyfams fm = {0};
	char *path = NULL;
	int rc;

	if (!ps)
		return -ENOMEM;
	if (asprintf(&path, "%s%spython", r->cat->path, r->cat->path[0] ? "/" : "") < 0)
		return -ENOMEM;
	rc = r->cat->has_python ? rk_store_list(v->store, path, &top, err) : 0;
	if (rc) {
		free(path);
		return rc;
	}
	rc = pyset_scan(r->cat->path, "", &s, &top);
	if (!rc)
		rc = pyfams_of(v, r, &top, &fm);
	for (size_t i = 0; !rc && i < top.n; i++) {
		struct rk_store_list l;
		char *sub = NULL;

		if (!top.v[i].is_dir)
			continue;
		if (asprintf(&sub, "%s/%s", path, top.v[i].name) < 0) {
			rc = -ENOMEM;
			break;
		}
		if (!(rc = rk_store_list(v->store, sub, &l, err))) {
			rc = pyset_scan(r->cat->path, top.v[i].name, &s, &l);
			rk_store_list_release(&l);
		}
		free(sub);
	}
	rk_store_list_release(&top);
	free(path);
	if (!rc)
		rc = vfs_python_synth(v, r, &syn, err);
	if (!rc && s.n) {
		/* the kpack split of stored fat libraries wheels whose METADATA reads (a
		 * damaged one has its log line from read_metadata) */
		struct pystored *st = calloc(s.n, sizeof(*st));
		size_t n = 0;

		if (!st)
			rc = -ENOMEM;
		if (st)
			rc = check_stored(v, &s, &syn, err);
		for (size_t i = 0; !rc && st && i < s.n; i++) {
			if (s.v[i].kind != RK_PYFILE_WHEEL)
				continue;
			read_metadata(v, &s.v[i]);
			s.v[i].meta_tried = 1;
			if (s.v[i].meta && !s.v[i].rejected)
				st[n++] = (struct pystored){s.v[i].file,  s.v[i].path,
							    s.v[i].rel,	  s.v[i].size,
							    s.v[i].mtime, s.v[i].mtime_ns};
		}
		if (st && !rc)
			rc = vfs_python_split(v, r, ps, st, n, &syn, err);
		free(st);
	}
	if (!rc)
		rc = pyset_synth(&s, &syn, vfs_node_mtime(dir));
	if (!rc && s.n)
		qsort(s.v, s.n, sizeof(*s.v), cmp_pyfile);
	/* a name a legacy run stores in several family groups (python/<family>/, upstream's
	 * multi-arch dist/<family>/: the rocm sdist and devel wheel of each family) is served
	 * in each family's directory, not in files/ */
	for (size_t i = 0; !rc && i < s.n; i++) {
		const char *fi = s.v[i].synth ? NULL : stored_family(v, r, &s.v[i]), *fj;

		for (size_t j = 0; fi && j < s.n; j++)
			if (i != j && !s.v[j].synth && !strcmp(s.v[i].file, s.v[j].file) &&
			    (fj = stored_family(v, r, &s.v[j])) && strcmp(fi, fj)) {
				snprintf(s.v[i].family, sizeof(s.v[i].family), "%s", fi);
				break;
			}
	}
	/* the same file name twice in one directory: the first (stored before synthesized,
	 * then by group) is served */
	for (size_t i = 0; !rc && i < s.n; i++)
		for (size_t j = 0; j < i; j++)
			if (!s.v[j].dup_of && !s.v[j].rejected &&
			    !strcmp(s.v[i].file, s.v[j].file) &&
			    !strcmp(s.v[i].family, s.v[j].family)) {
				if (!(s.v[i].dup_of = strdup(s.v[j].rel)))
					rc = -ENOMEM;
				break;
			}
	/* a project the run stores: its synthesized files are not served (one source per
	 * project: pip never mixes a stored build with a synthesized one) */
	for (size_t i = 0; !rc && i < s.n; i++) {
		if (!s.v[i].synth || s.v[i].dup_of)
			continue;
		for (size_t j = 0; j < s.n; j++)
			if (!s.v[j].synth && !s.v[j].rejected &&
			    !strcmp(s.v[i].project, s.v[j].project)) {
				s.v[i].by_project = 1;
				if (!(s.v[i].dup_of = strdup(s.v[j].rel)))
					rc = -ENOMEM;
				break;
			}
	}
	for (size_t i = 0; !rc && i < s.n; i++)
		if (served(&s.v[i]) && !s.v[i].synth && s.v[i].kind == RK_PYFILE_WHEEL &&
		    !s.v[i].meta_tried)
			read_metadata(v, &s.v[i]);
	/* the origins of blobs the wheels' members are made of live with the run */
	for (size_t i = 0; !rc && i < syn.n; i++) {
		struct artifact **nv;

		if (!syn.v[i].made)
			continue;
		if (!(nv = realloc(ps->made, (ps->nmade + 1) * sizeof(*nv)))) {
			rc = -ENOMEM;
			break;
		}
		ps->made = nv;
		ps->made[ps->nmade++] = syn.v[i].made;
		syn.v[i].made = NULL;
	}
	if (!rc) {
		struct node *root =
			vfs_tree_new(vfs_node_name(dir), vfs_node_mode(dir), vfs_node_mtime(dir));

		if (!root)
			rc = -ENOMEM;
		else if ((rc = build_tree(root, &s, &fm)) || (rc = add_stored(r, root)))
			vfs_tree_free(root);
		else
			rc = vfs_graft(v, dir, root);
	}
	for (size_t i = 0; i < s.n; i++)
		s.v[i].syn = NULL; /* released below; what the pages need was copied */
	pysynth_release(&syn);
	pyfams_release(&fm);
	if (!rc && !(ps->set = malloc(sizeof(*ps->set))))
		rc = -ENOMEM;
	if (rc) {
		pyset_release(&s);
		return rc;
	}
	*ps->set = s; /* for the project pages (pop_pyproject) */
	for (size_t i = 0; i < s.n; i++)
		pthread_mutex_init(&ps->set->v[i].lock, NULL);
	ps->set->locks = 1;
	ps->set->vfs = v;
	ps->set->bg_started = s.n && !pthread_create(&ps->set->bg, NULL, hash_ahead, ps->set);
	return 0;
}

static int pop_pyproject(struct rk_vfs *v, struct node *dir, struct rk_err *err)
{
	struct pyset *s = pystate_of(vfs_node_run(dir))->set;
	struct rk_buf b = RK_BUF_INIT;
	size_t lo = 0, hi;
	int rc = 0;

	while (lo < s->n && strcmp(s->v[lo].project, vfs_node_name(dir)))
		lo++;
	for (hi = lo; hi < s->n && !strcmp(s->v[hi].project, vfs_node_name(dir)); hi++) {
		struct pyfile *f = &s->v[hi];

		pthread_mutex_lock(&f->lock);
		if (served(f) && !f->hashed) {
			rc = file_sha256(v, f, err);
			f->hashed = !rc;
			if (rc && rc != -ENOMEM && !rk_err_transient(rc)) {
				/* gone or unreadable: left out of the page, the rest stays */
				rk_warn("python: '%s': not listed: %s", f->rel,
					rk_err_str(err, rc));
				rk_err_clear(err);
				f->unreadable = 1;
				rc = 0;
			}
		}
		pthread_mutex_unlock(&f->lock);
		if (rc)
			return rc; /* a timeout fails the page: a later look tries again */
	}
	if (!(rc = render(s, lo, hi, PAGE_PROJECT, NULL, &b))) {
		struct node *root =
			vfs_tree_new(vfs_node_name(dir), vfs_node_mode(dir), vfs_node_mtime(dir));

		if (!root)
			rc = -ENOMEM;
		else if ((rc = add_bytes(root, "index.html", &b, vfs_node_mtime(dir))))
			vfs_tree_free(root);
		else
			rc = vfs_graft(v, dir, root);
	}
	rk_buf_release(&b);
	return rc;
}

/* The background hasher: while pip reads the first project page, hash the other files
 * that are cheap to read (synthesized ones, and stored ones of a local store) on the other
 * core, so that their pages are ready when asked for. A failure is left to the page,
 * which logs it. Never on a remote store: that would download the whole run. */
static void *hash_ahead(void *p)
{
	struct pyset *s = p;
	struct rk_vfs *v = s->vfs;
	int local = !strncmp(rk_store_id(v->store), "dir:", 4);

	for (size_t i = 0; i < s->n && !s->stop && !v->cancel; i++) {
		struct pyfile *f = &s->v[i];
		struct rk_err err = RK_ERR_INIT;

		if ((!f->synth && !local) || f->family[0])
			continue;
		pthread_mutex_lock(&f->lock);
		if (served(f) && !f->hashed)
			f->hashed = !file_sha256(v, f, &err);
		pthread_mutex_unlock(&f->lock);
	}
	return NULL;
}

static void python_stop(void *state)
{
	struct pystate *ps = state;

	if (ps->set && ps->set->bg_started) {
		ps->set->stop = 1;
		pthread_join(ps->set->bg, NULL);
		ps->set->bg_started = 0;
	}
}

static void python_free(void *state)
{
	struct pystate *ps = state;

	python_stop(ps);
	if (ps->set)
		pyset_release(ps->set);
	free(ps->set);
	vfs_python_split_free(ps);
	for (size_t i = 0; i < ps->nmade; i++)
		pymade_free(ps->made[i]);
	free(ps->made);
	free(ps);
}

/* Its lines in the mount's README. */
static const char readme[] =
	"  <run>/python/          runs with stored wheels: a pip index, use\n"
	"                         pip install --index-url file://<run>/python/simple/ ...\n"
	"                         or TheRock's --find-links pages: python/index.html,\n"
	"                         python/<family>/index.html (legacy runs); a stored\n"
	"                         file wins over a made one of its name (PROVENANCE);\n"
	"                         python/stored/ is the python/ folder CI stored, as is\n";

/* python/: stored packages, or a manifest to version synthesized ones */
static int shown(const struct rk_run *cat)
{
	return cat->has_python || cat->has_manifest || rk_run_find(cat, "base_lib_generic");
}

const struct vfs_view vfs_view_python = {
	.name = "python",
	.stored_over = 1,
	.readme = readme,
	.shown = shown,
	.populate = pop_python,
	.stop = python_stop,
	.free = python_free,
	.opts = py_opts,
	.nopts = PY_NOPTS,
	.config = py_config,
	.config_free = free,
};
