/* view_python_split.c: the kpack split of a stored fat libraries wheel, as rocm-kpack's
 * wheel splitter (rocm-systems shared/kpack/python/rocm_kpack/wheel_splitter.py) and
 * TheRock's device wheel rules (templates/rocm-sdk-device) would produce it, computed on
 * read for RUN/python/:
 *
 *   rocm_sdk_libraries_<family>-V-<tag>.whl  (stored, fat; platform dir
 *                                            _rocm_sdk_libraries_<family>/)
 *     -> rocm_sdk_libraries-V-<tag>.whl      host code: the platform dir renamed to
 *                                            _rocm_sdk_libraries/, fat binaries rewritten,
 *                                            database files removed, the pure package
 *                                            with _dist_info.py for kpack mode
 *     -> rocm_sdk_device_<t>-V-<tag>.whl     per base target t: the .kpack archives
 *                                            _rocm_sdk_libraries/.kpack/
 *                                            rocm_sdk_libraries_<arch>.kpack, the database
 *                                            files of t, .devel_links/<t>.json
 *
 * The stored wheel's members are extracted once into cache blobs; the member list is kept
 * as pyhash/members-<key> (key: store id, path, size, mtime), so a remount extracts
 * nothing. The platform directory becomes an artifact without an archive (a struct artifact
 * whose tree is those blobs) and goes through the kpack split service, with the wheel
 * splitter's naming: group "rocm_sdk_libraries", kernel names relative to the platform
 * directory. The split's outputs (blobs, rewritten binaries and .kpack archives as
 * composite files) become wheels, composites too (zip_layout.h); nothing is copied. docs/kpack.md,
 * "Wheel split". */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rk/buf.h"
#include "rk/cache.h"
#include "rk/gpu.h"
#include "rk/hash.h"
#include "rk/index.h"
#include "rk/log.h"
#include "rk/path.h"
#include "rk/wheel.h"
#include "views/python/pysrc.h"
#include "views/python/view_python.h"
#include "formats/archive/wheel_text.h"
#include "util/array.h"
#include "services/kpack_split.h"

#define LIB_PREFIX "rocm_sdk_libraries_"
#define PLATFORM "_rocm_sdk_libraries"
#define PURE "rocm_sdk_libraries"
#define SPLIT_MTIME 315532800 /* 1980-01-01T00:00:00Z */

/* A stored fat wheel as an artifact: the arch is the first member (outputs point at it). */
struct pywheel_artifact {
	struct artifact a;
	struct rk_artifact art;
	char *store_path;
	uint64_t size;
	int64_t mtime_ns;
	char *prefix; /* "_rocm_sdk_libraries_<family>" */
};

/* One extracted member. */
struct member {
	char *name; /* normalized */
	uint32_t mode;
	uint64_t size;
	char blob[RK_SHA256_HEX]; /* "" when empty */
};

struct members {
	struct member *v;
	size_t n;
};

static void members_release(struct members *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].name);
	free(m->v);
	m->v = NULL;
	m->n = 0;
}

static ssize_t obj_pread(void *ctx, void *buf, size_t n, uint64_t off)
{
	return rk_object_pread(ctx, buf, n, off, NULL);
}

static int blob_write(void *ctx, const void *buf, size_t n)
{
	return rk_blob_write(ctx, buf, n, NULL);
}

static int record_rel(struct rk_vfs *v, const struct pywheel_artifact *w, char rel[128])
{
	return vfs_pyhash_rel(v, "members-", w->store_path, w->size, w->mtime_ns, rel);
}

/* The member list remembered in the cache (an index in the cache's RKIX format,
 * rk/index.h: one file member each), when every blob of it is still there. */
static int load_members(struct rk_vfs *v, const char *rel, struct members *m)
{
	struct rk_index idx = {0};
	char *data = NULL;
	size_t len;
	int rc;

	if (rk_cache_get_file(v->cache, rel, 64 << 20, &data, &len, NULL))
		return -ENOENT;
	rc = rk_index_parse(data, len, &idx, NULL) ? -ENOENT : 0; /* an old or bad record */
	free(data);
	if (!rc && !(m->v = calloc(idx.n + 1, sizeof(*m->v))))
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < idx.n; i++) {
		const struct rk_member *x = &idx.v[i];

		if (x->type != RK_MEMBER_FILE ||
		    (x->size && !rk_blob_exists(v->cache, x->blob, x->size))) {
			rc = -ENOENT;
			break;
		}
		if (!(m->v[m->n].name = strdup(x->path))) {
			rc = -ENOMEM;
			break;
		}
		m->v[m->n].size = x->size;
		m->v[m->n].mode = S_IFREG | x->mode;
		memcpy(m->v[m->n].blob, x->blob, RK_SHA256_HEX);
		m->n++;
	}
	rk_index_release(&idx);
	if (rc)
		members_release(m);
	return rc;
}

/* Extract every file member of the stored wheel into blobs (and remember the list). */
static int ingest(struct rk_vfs *v, struct pywheel_artifact *w, struct members *m, int force,
		  struct rk_err *err)
{
	struct rk_wheel_member *zm = NULL;
	struct rk_object *o = NULL;
	struct rk_index idx = {0};
	struct rk_buf rec = RK_BUF_INIT;
	char rel[128];
	size_t zn = 0;
	int rc;

	if ((rc = record_rel(v, w, rel)))
		return rc;
	if (!force && !load_members(v, rel, m))
		return 0;
	if ((rc = rk_store_object_open(v->store, w->store_path, &o, err)))
		return rc;
	if (rk_object_size(o) != w->size) {
		rk_object_close(o);
		return rk_err_set(err, -EIO, "size changed");
	}
	rc = rk_wheel_list(obj_pread, o, w->size, &zm, &zn, err);
	if (!rc && !(m->v = calloc(zn + 1, sizeof(*m->v))))
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < zn; i++) {
		struct member *x = &m->v[m->n];
		struct rk_blob_writer *bw = NULL;
		char name[4096];
		int len;

		if (zm[i].name[strlen(zm[i].name) - 1] == '/')
			continue; /* a directory entry */
		len = rk_path_normalize(zm[i].name, name, sizeof(name));
		if (len <= 0 || strchr(name, '\n') || strchr(name, '\t')) {
			rc = rk_err_set(err, -EBADMSG, "unsafe member name '%s'", zm[i].name);
			break;
		}
		if (!(x->name = strdup(name))) {
			rc = -ENOMEM;
			break;
		}
		m->n++;
		x->size = zm[i].usize;
		x->mode = S_IFREG | ((zm[i].mode & 0111) ? 0755 : 0644);
		if (zm[i].usize) {
			if (!(rc = rk_blob_create(v->cache, 1, &bw, err)))
				rc = rk_wheel_extract(obj_pread, o, w->size, &zm[i], blob_write, bw,
						      err);
			if (!rc)
				rc = rk_blob_commit(bw, x->blob, err);
			else
				rk_blob_abort(bw);
		}
		if (!rc) {
			struct rk_member im = {.path = x->name,
					       .size = x->size,
					       .mode = x->mode & 07777,
					       .type = RK_MEMBER_FILE};

			memcpy(im.blob, x->blob, RK_SHA256_HEX);
			rc = rk_index_add(&idx, &im);
		}
	}
	rk_wheel_members_free(zm, zn);
	rk_object_close(o);
	if (!rc && !(rc = rk_index_serialize(&idx, &rec))) {
		rk_cache_area(v->cache, "pyhash");
		if (rk_cache_put_file(v->cache, rel, rec.buf, rec.len, NULL))
			rk_warn("python: '%s': could not keep its member list", w->store_path);
	}
	if (rc)
		members_release(m);
	rk_index_release(&idx);
	rk_buf_release(&rec);
	return rc;
}

/* refill_fn: a blob of the wheel went missing; extract the wheel again. */
static int wheel_refill(struct rk_vfs *v, struct artifact *a, struct rk_err *err)
{
	struct members m = {0};
	int rc = ingest(v, (struct pywheel_artifact *)a, &m, 1, err);

	members_release(&m);
	return rc;
}

/* The platform directory's files as the arch's tree (private, the wheel's own). */
static int build_tree(struct pywheel_artifact *w, const struct members *m, int64_t mtime,
		      struct rk_err *err)
{
	size_t plen = strlen(w->prefix);
	char hidden[600];
	int rc = 0, any = 0;

	snprintf(hidden, sizeof(hidden), ".pysplit/%s", w->art.file);
	w->a.root = vfs_tree_new(hidden, S_IFDIR | 0755, mtime);
	if (!w->a.root)
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < m->n; i++) {
		const struct member *x = &m->v[i];
		const char *base;
		struct node *d, *n;

		if (strncmp(x->name, w->prefix, plen) || x->name[plen] != '/')
			continue;
		if (!(d = vfs_mkdirs(w->a.root, x->name, &base, mtime)) || vfs_dent_find(d, base)) {
			rc = rk_err_set(err, -EBADMSG, "member '%s' twice or under a file",
					x->name);
			break;
		}
		if (!(n = vfs_node_add(d, base, x->mode, mtime))) {
			rc = -ENOMEM;
			break;
		}
		vfs_node_set_origin(n, &w->a);
		if (x->size) {
			rc = vfs_file_set_blob(n, x->blob, x->size);
		} else {
			char *empty = strdup("");

			rc = empty ? vfs_file_set_bytes(n, empty, 0) : -ENOMEM;
		}
		any = 1;
	}
	if (!rc && !any)
		rc = rk_err_set(err, -ENOENT, "no '%s/' directory", w->prefix);
	return rc;
}

/* ---- the wheels ---- */

struct splitwheels {
	struct rk_vfs *v;
	struct pywheel_artifact *w;
	const char *version, *tag;
	char from[600];
	int64_t mtime;
	struct pysynth_set *out;
	struct rk_err *err;
};

/* Add the files below dir (rel: their path below the platform directory) to wheel p as
 * _rocm_sdk_libraries/<rel>; links (device wheels): their .devel_links entries. Tree
 * lock held. */
static int add_tree(struct pywheel *p, const struct node *dir, struct rk_buf *rel,
		    struct rk_buf *links, struct artifact *origin)
{
	size_t len = rel->len;
	int rc = 0;

	for (size_t i = 0; !rc && i < vfs_dir_count(dir); i++) {
		const struct node *c = vfs_dir_node(dir, i);
		char name[4200];

		if ((rc = rk_buf_addf(rel, "%s%s", len ? "/" : "", vfs_dir_name(dir, i))))
			break;
		snprintf(name, sizeof(name), PLATFORM "/%s", rel->buf);
		if (S_ISDIR(vfs_node_mode(c))) {
			rc = add_tree(p, c, rel, links, origin);
		} else if (S_ISREG(vfs_node_mode(c))) {
			uint32_t mode = S_IFREG | ((vfs_node_mode(c) & 0111) ? 0755 : 0644);

			if (vfs_node_composite(c))
				rc = pywheel_add(p, name, mode, vfs_node_size(c), NULL, NULL,
						 vfs_node_composite(c), origin);
			else if (vfs_node_blob(c))
				rc = pywheel_add(p, name, mode, vfs_node_size(c), vfs_node_blob(c),
						 NULL, NULL, origin);
			else if (!vfs_node_size(c))
				rc = pywheel_add(p, name, mode, 0, NULL, NULL, NULL, NULL);
			else
				rc = -EIO;
			if (!rc && links)
				rc = rk_wheel_devel_link(links, rel->buf);
		}
		rel->len = len;
		rel->buf[len] = '\0';
	}
	return rc;
}

static int host_wheel(struct splitwheels *sw, struct artifact *g, const struct members *m,
		      char **arches, size_t narches)
{
	struct pywheel *p = pywheel_new();
	struct rk_buf rel = RK_BUF_INIT, di = RK_BUF_INIT;
	char req[200], summary[300];
	const struct node *pd;
	int rc = p ? 0 : -ENOMEM;

	pd = g->root ? vfs_find_dir(g->root, sw->w->prefix) : NULL;
	if (!rc && !pd)
		rc = rk_err_set(sw->err, -EIO, "split lost '%s/'", sw->w->prefix);
	if (!rc && !(rc = rk_buf_adds(&rel, "")))
		rc = add_tree(p, pd, &rel, NULL, &sw->w->a);
	/* the rest of the stored wheel but its dist-info and _dist_info.py */
	for (size_t i = 0; !rc && i < m->n; i++) {
		const struct member *x = &m->v[i];
		const char *slash = strchr(x->name, '/');
		size_t tl = slash ? (size_t)(slash - x->name) : strlen(x->name);

		if ((tl == strlen(sw->w->prefix) && !strncmp(x->name, sw->w->prefix, tl)) ||
		    (tl > 10 && !strncmp(x->name + tl - 10, ".dist-info", 10)) ||
		    !strcmp(x->name, PURE "/_dist_info.py"))
			continue;
		rc = pywheel_add(p, x->name, x->mode, x->size, x->blob[0] ? x->blob : NULL, NULL,
				 NULL, &sw->w->a);
	}
	if (!rc)
		rc = pywheel_dist_info_py(sw->version, 1, arches, narches, "libraries", NULL, &di);
	if (!rc) {
		size_t len = di.len;
		char *d = rk_buf_detach(&di, NULL);

		rc = d ? pywheel_add(p, PURE "/_dist_info.py", S_IFREG | 0644, len, NULL, d, NULL,
				     NULL)
		       : -ENOMEM;
	}
	snprintf(req, sizeof(req), "rocm-sdk-core==%s", sw->version);
	snprintf(summary, sizeof(summary),
		 "ROCm SDK math libraries, host code (kpack split by rockfs of %s)",
		 sw->w->art.file);
	if (!rc) {
		struct pywheel_info in = {.dist = "rocm-sdk-libraries",
					  .version = sw->version,
					  .tag = sw->tag,
					  .requires = req,
					  .summary = summary,
					  .top_level = PLATFORM "\n" PURE "\n",
					  .from = sw->from,
					  .mtime = sw->mtime};

		rc = pywheel_finish(sw->v, p, &in, sw->out, sw->err);
	}
	pywheel_free(p);
	rk_buf_release(&rel);
	rk_buf_release(&di);
	return rc;
}

/* The device wheel of base target t: every arch output whose base is t. */
static int device_wheel(struct splitwheels *sw, const char *t, struct artifact **outs, size_t nouts)
{
	struct pywheel *p = pywheel_new();
	struct rk_buf rel = RK_BUF_INIT, links = RK_BUF_INIT, json = RK_BUF_INIT;
	char dist[200], req[200], summary[300], name[300];
	int rc = p ? 0 : -ENOMEM;

	if (!rc)
		rc = rk_buf_adds(&links, "");
	for (size_t i = 1; !rc && i < nouts; i++) {
		char base[64];
		const struct node *pd;

		if (rk_gpu_base_arch(outs[i]->art->an.target, base, sizeof(base)) <= 0 ||
		    strcmp(base, t))
			continue;
		if (!(pd = outs[i]->root ? vfs_find_dir(outs[i]->root, sw->w->prefix) : NULL))
			continue;
		rel.len = 0;
		if (!(rc = rk_buf_adds(&rel, "")))
			rc = add_tree(p, pd, &rel, &links, &sw->w->a);
	}
	if (!rc)
		rc = rk_buf_addf(&json, "{\"version\": \"%s\", \"links\": [%s]}\n", sw->version,
				 links.buf);
	snprintf(name, sizeof(name), PLATFORM "/.devel_links/%s.json", t);
	if (!rc) {
		size_t len = json.len;
		char *d = rk_buf_detach(&json, NULL);

		rc = d ? pywheel_add(p, name, S_IFREG | 0644, len, NULL, d, NULL, NULL) : -ENOMEM;
	}
	snprintf(dist, sizeof(dist), "rocm-sdk-device-%s", t);
	snprintf(req, sizeof(req), "rocm-sdk-libraries==%s", sw->version);
	snprintf(summary, sizeof(summary),
		 "ROCm SDK device code for %s (kpack split by rockfs of %s)", t, sw->w->art.file);
	if (!rc) {
		struct pywheel_info in = {.dist = dist,
					  .version = sw->version,
					  .tag = sw->tag,
					  .requires = req,
					  .summary = summary,
					  .top_level = PLATFORM "\n",
					  .from = sw->from,
					  .mtime = sw->mtime};

		rc = pywheel_finish(sw->v, p, &in, sw->out, sw->err);
	}
	pywheel_free(p);
	rk_buf_release(&rel);
	rk_buf_release(&links);
	rk_buf_release(&json);
	return rc;
}

/* ---- one stored wheel ---- */

static void pywheel_artifact_free(struct pywheel_artifact *w)
{
	if (!w)
		return;
	vfs_artifact_release(&w->a); /* its split first: the outputs link nothing of the tree */
	vfs_tree_free(w->a.root);
	free(w->art.file);
	free(w->art.stem);
	free(w->store_path);
	free(w->prefix);
	free(w);
}

void vfs_python_split_free(struct pystate *ps)
{
	for (size_t i = 0; i < ps->nwheels; i++)
		pywheel_artifact_free((struct pywheel_artifact *)ps->wheels[i]);
	free(ps->wheels);
	ps->wheels = NULL;
	ps->nwheels = 0;
}

/* "{dist}-{version}(-{build})?-{py}-{abi}-{plat}.whl": the dist, version and tag. */
static int wheel_fields(const char *file, char *dist, char *version, char *tag, size_t n)
{
	char buf[512], *f[6];
	size_t nf = 0;
	char *save = NULL;

	if (strlen(file) >= sizeof(buf) || strlen(file) < 4)
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%.*s", (int)(strlen(file) - 4), file);
	for (char *t = strtok_r(buf, "-", &save); t; t = strtok_r(NULL, "-", &save)) {
		if (nf == 6)
			return -EINVAL;
		f[nf++] = t;
	}
	if (nf < 5)
		return -EINVAL;
	if ((size_t)snprintf(dist, n, "%s", f[0]) >= n ||
	    (size_t)snprintf(version, n, "%s", f[1]) >= n ||
	    (size_t)snprintf(tag, n, "%s-%s-%s", f[nf - 3], f[nf - 2], f[nf - 1]) >= n)
		return -EINVAL;
	return 0;
}

static int split_one(struct rk_vfs *v, struct run *r, struct pystate *ps, const struct pystored *st,
		     struct pysynth_set *out, struct rk_err *err)
{
	struct pywheel_artifact *w = calloc(1, sizeof(*w));
	struct members m = {0};
	struct artifact **outs = NULL, **grow;
	char dist[200], version[200], tag[200], **arches = NULL, **bases = NULL;
	size_t nouts = 0, narches = 0, nbases = 0;
	/* every time in the split wheels is the zip epoch: the stored wheel's own mtime is
	 * the store's (a local file's, an S3 upload's), and the same wheel must give the
	 * same bytes from every store */
	struct splitwheels sw = {.v = v, .out = out, .err = err, .mtime = SPLIT_MTIME};
	int rc;

	if (!w)
		return -ENOMEM;
	vfs_artifact_init(&w->a);
	if (!(grow = realloc(ps->wheels, (ps->nwheels + 1) * sizeof(*grow)))) {
		pywheel_artifact_free(w);
		return -ENOMEM;
	}
	ps->wheels = grow;
	ps->wheels[ps->nwheels++] = &w->a; /* freed with the run */
	if (wheel_fields(st->file, dist, version, tag, sizeof(dist)))
		return rk_err_set(err, -EINVAL, "not a wheel name");
	w->a.v = v;
	w->a.run = r;
	w->a.art = &w->art;
	w->a.state = ART_DONE;
	w->a.refill_fn = wheel_refill;
	w->size = st->size;
	w->mtime_ns = st->mtime_ns;
	snprintf(w->art.an.name, sizeof(w->art.an.name), "python");
	snprintf(w->art.an.component, sizeof(w->art.an.component), "wheel");
	snprintf(w->art.an.target, sizeof(w->art.an.target), "%s", dist + strlen(LIB_PREFIX));
	w->art.mtime_ns = st->mtime_ns;
	w->art.size = st->size;
	if (asprintf(&w->art.file, "python/%s", st->rel) < 0)
		w->art.file = NULL;
	if (asprintf(&w->art.stem, "python:%s", st->file) < 0)
		w->art.stem = NULL;
	if (asprintf(&w->prefix, "_%s", dist) < 0)
		w->prefix = NULL;
	w->store_path = strdup(st->path);
	w->a.prefixes = calloc(2, sizeof(char *));
	if (!w->art.file || !w->art.stem || !w->prefix || !w->store_path || !w->a.prefixes ||
	    !(w->a.prefixes[0] = strdup(w->prefix)))
		return -ENOMEM;
	w->a.nprefixes = 1;
	sw.w = w;
	sw.version = version;
	sw.tag = tag;
	snprintf(sw.from, sizeof(sw.from), "kpack-split from stored python/%s", st->rel);

	if ((rc = ingest(v, w, &m, 0, err)) || (rc = build_tree(w, &m, SPLIT_MTIME, err)))
		goto out;
	/* the wheel splitter's group (the host dist, '-' -> '_') and keys relative to the
	 * prefix */
	if ((rc = vfs_kpack_split(v, &w->a, PURE, 1, &outs, &nouts, err)))
		goto out;
	if (nouts < 2) {
		rc = rk_err_set(err, -ENOENT, "no device code to split");
		goto out;
	}
	if (!(arches = calloc(nouts, sizeof(char *))) || !(bases = calloc(nouts, sizeof(char *)))) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 1; i < nouts; i++) {
		char base[64];
		size_t j;

		arches[narches++] = (char *)outs[i]->art->an.target;
		if (rk_gpu_base_arch(outs[i]->art->an.target, base, sizeof(base)) <= 0) {
			rc = rk_err_set(err, -EINVAL, "bad arch '%s'", outs[i]->art->an.target);
			goto out;
		}
		for (j = 0; j < nbases && strcmp(bases[j], base); j++)
			;
		if (j == nbases && !(bases[nbases++] = strdup(base))) {
			rc = -ENOMEM;
			goto out;
		}
	}
	qsort(arches, narches, sizeof(*arches), rk_cmp_str);
	qsort(bases, nbases, sizeof(*bases), rk_cmp_str);
	rc = host_wheel(&sw, outs[0], &m, arches, narches);
	for (size_t i = 0; !rc && i < nbases; i++)
		rc = device_wheel(&sw, bases[i], outs, nouts);
	if (!rc)
		rk_info("python: '%s': split into rocm-sdk-libraries and %zu device wheels",
			w->art.file, nbases);
out:
	for (size_t i = 0; bases && i < nbases; i++)
		free(bases[i]);
	free(bases);
	free(arches);
	members_release(&m);
	return rc;
}

int vfs_python_split(struct rk_vfs *v, struct run *r, struct pystate *ps, const struct pystored *st,
		     size_t n, struct pysynth_set *out, struct rk_err *err)
{
	int rc = 0;

	if (!v->cache)
		return 0;
	for (size_t i = 0; !rc && i < n; i++) {
		char dist[200], version[200], tag[200];
		size_t before = out->n;
		struct rk_err e = RK_ERR_INIT;
		int dup = 0;

		if (wheel_fields(st[i].file, dist, version, tag, sizeof(dist)) ||
		    strncmp(dist, LIB_PREFIX, strlen(LIB_PREFIX)) || !dist[strlen(LIB_PREFIX)])
			continue;
		for (size_t j = 0; j < i; j++)
			dup |= !strcmp(st[j].file, st[i].file);
		if (dup)
			continue; /* the same file in another group: only the first is served */
		rc = split_one(v, r, ps, &st[i], out, &e);
		if (rc)
			pysynth_truncate(out, before); /* all of one wheel's split, or none */
		if (rc && rc != -ENOMEM && !rk_err_transient(rc) && rc != -ECANCELED) {
			rk_warn("python: 'python/%s': no kpack-split wheels: %s", st[i].rel,
				rk_err_str(&e, rc));
			rc = 0;
		} else if (rc) {
			rk_err_set(err, rc, "'python/%s': %s", st[i].rel, rk_err_str(&e, rc));
		}
	}
	return rc;
}
