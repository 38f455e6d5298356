/* view_python_synth.c: the Python packages TheRock would build from a run's artifacts
 * (therock-formats.md 6.1-6.5; build_python_packages.py, py_packaging.py), synthesized
 * for RUN/python/ without building anything:
 *
 *   rocm_sdk_core-V-py3-none-P.whl                 core runtime (6.2 "core")
 *   rocm_sdk_libraries-V-...whl                    kpack-split runs: generic libraries
 *   rocm_sdk_libraries_<family>-V-...whl           legacy runs: one per family
 *   rocm_sdk_device_<target>-V-...whl              kpack-split runs: one per base target
 *   rocm_sdk_devel-V-...whl                        headers, cmake, ... as _devel.tar
 *   rocm_profiler-V-...whl                         rocprofiler-compute/-systems, when the
 *                                                  run has them
 *   rocm-V.tar.gz                                  the selector sdist (our rocm_sdk package)
 *
 * A wheel is a zip of stored entries laid out over the cache blobs of the flattened
 * artifacts (services/wheel.c, zip_layout.h): its size is known at once and any range is
 * read directly. RECORD hashes are the blobs' own content ids. Only the devel wheel's
 * _devel.tar is written once into the cache (its hash goes into RECORD). */
#include <errno.h>
#include <fcntl.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "rk/buf.h"
#include "rk/cache.h"
#include "rk/elf_info.h"
#include "rk/elf_rpath.h"
#include "rk/gpu.h"
#include "rk/hash.h"
#include "rk/log.h"
#include "rk/manifest.h"
#include "cache/composite_read.h"
#include "views/python/pysrc.h"
#include "formats/archive/tar_layout.h"
#include "views/python/wheel_plan.h"
#include "formats/gpu/elf_runpath.h"
#include "formats/archive/wheel_text.h"
#include "views/python/view_python.h"
#include "formats/archive/zip_layout.h"
#include "services/flatten.h"
#include "services/tree_tar.h"
#include "util/array.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ---- ELF facts per blob ---- */

struct elfinfo {
	char blob[RK_SHA256_HEX];
	struct rk_elf_info i;
	UT_hash_handle hh;
};

/* ---- one package being assembled ---- */

/* A path materialized by a runtime wheel (for the devel tree), or a soname alias. Keyed
 * by the path for the core wheel, by "<family>\t<path>" for a legacy libraries wheel: a
 * family's devel tree links only into its own libraries wheel (py_packaging.py
 * _find_populated, _find_soname_alias). */
struct owned {
	char *path; /* the key */
	char *owner; /* platform package; NULL for an alias */
	char *soname_path; /* aliases: the path kept under the soname */
	UT_hash_handle hh;
};

struct synth {
	struct rk_vfs *v;
	struct run *r;
	int split;
	char version[128];
	char tag[96]; /* "py3-none-linux_x86_64" */
	char **families;
	size_t nfamilies;
	struct elfinfo *elf;
	struct owned *owned;
	int64_t mtime;
	int profiler; /* a rocm-profiler wheel was made: the sdist offers the profiler extra */
	struct pysynth_set *out;
	struct rk_err *err;
};

struct pkg {
	struct pywheel w; /* its members; w.sources: artifact stems, for PROVENANCE */
	const char *family; /* a legacy libraries wheel's family, else NULL */
	int kind; /* enum pkg_kind */
	const char *platform;
	const char *const *rpath; /* the rpath_deps (in _rocm_sdk_core), NULL-terminated */
	struct rk_composite **rw; /* members rewritten with them (owned) */
	size_t nrw, caprw;
};

static void pkg_release(struct pkg *p)
{
	pywheel_release(&p->w);
	for (size_t i = 0; i < p->nrw; i++)
		rk_composite_free(p->rw[i]);
	free(p->rw);
	p->rw = NULL;
	p->nrw = p->caprw = 0;
}

static int blob_open(struct synth *s, const char *id, uint64_t size, struct artifact *origin,
		     int *fd)
{
	return pywheel_blob_open(s->v, id, size, origin, fd, s->err);
}

/* Finish p as wheel dist (dist-info, zip layout) into s->out. */
static int finish_wheel(struct synth *s, struct pkg *p, const char *dist, const char *requires,
			const char *summary, const char *top_level, const char *entry_points)
{
	struct pywheel_info in = {.dist = dist,
				  .entry_points = entry_points,
				  .version = s->version,
				  .tag = s->tag,
				  .requires = requires,
				  .summary = summary,
				  .top_level = top_level,
				  .mtime = s->mtime};

	return pywheel_finish(s->v, &p->w, &in, s->out, s->err);
}

static int owned_add(struct synth *s, const char *family, const char *path, const char *owner,
		     const char *soname_path)
{
	struct owned *o;
	char *key = NULL;

	if (asprintf(&key, "%s%s%s", family ? family : "", family ? "\t" : "", path) < 0)
		return -ENOMEM;
	HASH_FIND_STR(s->owned, key, o);
	if (o) {
		free(key);
		return 0;
	}
	if (!(o = calloc(1, sizeof(*o))) || !(o->path = key) ||
	    (owner && !(o->owner = strdup(owner))) ||
	    (soname_path && !(o->soname_path = strdup(soname_path)))) {
		free(key);
		if (o)
			free(o->owner);
		free(o);
		return -ENOMEM;
	}
	HASH_ADD_KEYPTR(hh, s->owned, o->path, strlen(o->path), o);
	return rk_htab_oom() ? -ENOMEM : 0;
}

/* Open blob id of artifact origin, re-creating it when it was evicted. */
/* The ELF facts of regular file n (cached per blob) in *out. */
static int elf_of(struct synth *s, const struct node *n, const struct rk_elf_info **out)
{
	static const struct rk_elf_info none = {0};
	struct elfinfo *e;
	int fd, rc;

	*out = &none;
	if (!vfs_node_blob(n) || vfs_node_size(n) < 64)
		return 0;
	HASH_FIND(hh, s->elf, vfs_node_blob(n), RK_SHA256_HEX - 1, e);
	if (e) {
		*out = &e->i;
		return 0;
	}
	if ((rc = blob_open(s, vfs_node_blob(n), vfs_node_size(n), vfs_node_origin(n), &fd)))
		return rc;
	if (!(e = calloc(1, sizeof(*e)))) {
		close(fd);
		return -ENOMEM;
	}
	memcpy(e->blob, vfs_node_blob(n), RK_SHA256_HEX);
	rk_elf_info_fd(fd, &e->i);
	close(fd);
	HASH_ADD(hh, s->elf, blob, RK_SHA256_HEX - 1, e);
	if (rk_htab_oom()) {
		free(e);
		return -ENOMEM;
	}
	*out = &e->i;
	return 0;
}

/* Resolve the symlink at path (relative to root) to its final node and path (out, n
 * bytes). NULL when it dangles, loops or leaves the tree. */
static struct node *resolve(struct node *root, const char *path, char *out, size_t n)
{
	char cur[4096], next[4096];
	struct node *x = NULL;

	snprintf(cur, sizeof(cur), "%s", path);
	for (int hops = 0; hops < 40; hops++) {
		const char *slash, *t;
		char *comps[512];
		size_t nc = 0;
		char *tok, *save;

		if (!(x = vfs_find(root, cur)))
			return NULL;
		if (!S_ISLNK(vfs_node_mode(x))) {
			snprintf(out, n, "%s", cur);
			return x;
		}
		t = vfs_node_target(x);
		if (!t || t[0] == '/')
			return NULL;
		slash = strrchr(cur, '/');
		if ((size_t)snprintf(next, sizeof(next), "%.*s%s%s", slash ? (int)(slash - cur) : 0,
				     cur, slash ? "/" : "", t) >= sizeof(next))
			return NULL;
		/* normalize: drop ".", pop on ".." (never above the root) */
		for (tok = strtok_r(next, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
			if (!strcmp(tok, "."))
				continue;
			if (!strcmp(tok, "..")) {
				if (!nc)
					return NULL;
				nc--;
				continue;
			}
			if (nc == ARRAY_LEN(comps))
				return NULL;
			comps[nc++] = tok;
		}
		cur[0] = '\0';
		for (size_t i = 0, len = 0; i < nc; i++) {
			int w = snprintf(cur + len, sizeof(cur) - len, "%s%s", i ? "/" : "",
					 comps[i]);

			if (w < 0 || (size_t)w >= sizeof(cur) - len)
				return NULL;
			len += (size_t)w;
		}
	}
	return NULL;
}

/* Embedded Python file src (NULL: not embedded, a build fault) as path in wheel p. */
static int add_embedded(struct pkg *p, const char *path, const struct rk_pysrc *src)
{
	char *d;

	if (!src)
		return -ENOENT;
	if (!(d = malloc(src->len + 1)))
		return -ENOMEM;
	memcpy(d, src->data, src->len);
	return pywheel_add(&p->w, path, S_IFREG | 0644, src->len, NULL, d, NULL, NULL);
}

/* The member rel (its path below the platform directory) made of blob file t: when t is an
 * executable or a shared object, TheRock's RPATH change (py_packaging.py _extend_rpath:
 * "$ORIGIN/<up to site-packages>/_rocm_sdk_core/<dep>" per rpath_dep, then
 * _normalize_rpath: DT_RPATH) as a composite over its blob in *c (kept in p->rw until
 * the wheel is finished); *c NULL when the file stays as it is. A damaged ELF file fails
 * the package with a message naming it. */
static int rpath_member(struct synth *s, struct pkg *p, const struct node *t, const char *rel,
			struct rk_composite **c)
{
	struct rk_buf add = RK_BUF_INIT;
	unsigned char head[18];
	void *img = MAP_FAILED;
	int fd = -1, rc;

	*c = NULL;
	if (!p->rpath || !vfs_node_blob(t) || vfs_node_size(t) < 64 || pyplan_not_a_program(rel))
		return 0;
	if ((rc = blob_open(s, vfs_node_blob(t), vfs_node_size(t), vfs_node_origin(t), &fd)))
		return rc;
	if (pread(fd, head, sizeof(head), 0) != (ssize_t)sizeof(head) ||
	    memcmp(head, "\177ELF", 4) || (head[16] != 2 && head[16] != 3) || head[17]) {
		close(fd); /* not ELF, or not ET_EXEC / ET_DYN */
		return 0;
	}
	for (size_t i = 0; !rc && p->rpath[i]; i++) {
		rc = rk_buf_addf(&add, "%s$ORIGIN", i ? ":" : "");
		/* the platform directory's parent, from the file's directory */
		for (const char *q = rel; !rc && q; q = strchr(q + 1, '/'))
			rc = rk_buf_adds(&add, "/..");
		if (!rc)
			rc = rk_buf_addf(&add, "/_rocm_sdk_core/%s", p->rpath[i]);
	}
	if (!rc && (img = mmap(NULL, vfs_node_size(t), PROT_READ, MAP_SHARED, fd, 0)) == MAP_FAILED)
		rc = rk_err_set(s->err, -errno, "'%s': mmap: %s", rel, strerror(errno));
	close(fd);
	if (!rc && !(rc = RK_GROW(p->rw, p->caprw, p->nrw, 8)) && !(*c = calloc(1, sizeof(**c))))
		rc = -ENOMEM;
	if (!rc) {
		rc = rk_elf_rpath_add(img, vfs_node_size(t), add.buf, *c, s->err);
		if (rc < 0 && rc != -ENOMEM)
			rk_err_wrap(s->err, rc, "'%s'", rel);
	}
	if (img != MAP_FAILED)
		munmap(img, vfs_node_size(t));
	if (!rc)
		rc = rk_composite_add_source(*c, vfs_node_blob(t), vfs_node_size(t),
					     vfs_node_blob_origin(t), NULL);
	if (!rc) {
		p->rw[p->nrw++] = *c;
	} else {
		rk_composite_free(*c);
		*c = NULL;
	}
	rk_buf_release(&add);
	return rc == 1 ? 0 : rc;
}

/* 6.3: a runtime wheel's files from the flattened tree, without symlinks. */
static int runtime_walk(struct synth *s, struct pkg *p, struct node *root, struct node *dir,
			struct rk_buf *rel)
{
	size_t len = rel->len;
	int rc = 0;

	for (size_t i = 0; !rc && i < vfs_dir_count(dir); i++) {
		struct node *c = vfs_dir_node(dir, i), *t = c;
		const char *name = vfs_dir_name(dir, i);
		char out[4096], target[4096], dirpart[4096];
		const struct rk_elf_info *e;

		if ((rc = rk_buf_addf(rel, "%s%s", len ? "/" : "", name)))
			break;
		snprintf(dirpart, sizeof(dirpart), "%.*s", (int)len, rel->buf);
		if (pyplan_excluded(p->kind, rel->buf, S_ISDIR(vfs_node_mode(c)))) {
			/* left out */
		} else if (S_ISDIR(vfs_node_mode(c))) {
			rc = runtime_walk(s, p, root, c, rel);
		} else if (S_ISLNK(vfs_node_mode(c)) &&
			   (!(t = resolve(root, rel->buf, target, sizeof(target))) ||
			    !S_ISREG(vfs_node_mode(t)))) {
			/* dangling, looping or to a directory: dropped */
		} else if ((rc = elf_of(s, t, &e))) {
			/* unreadable: the package fails (never different bytes) */
		} else if (e->shared && S_ISLNK(vfs_node_mode(c))) {
			/* a name of a shared library: an alias of the soname name */
			const char *slash = strrchr(target, '/');

			snprintf(out, sizeof(out), "%.*s%s%s", slash ? (int)(slash - target) : 0,
				 target, slash ? "/" : "",
				 e->soname[0] ? e->soname
				 : slash      ? slash + 1
					      : target);
			if (strcmp(out, rel->buf))
				rc = owned_add(s, p->family, rel->buf, NULL, out);
		} else if (S_ISLNK(vfs_node_mode(c)) && e->executable) {
			/* a symlink to an ELF executable: a stub that execs it, argv kept
			 * (TheRock compiles one: exe_stub_gen.py); to a script, a copy below,
			 * as upstream's libmagic test ("ELF ... executable,") decides */
			char rp[4096], *stub = NULL;

			pyplan_relpath(dirpart, target, rp, sizeof(rp));
			if (!(rc = rk_exe_stub_for(rp, &stub)))
				rc = pywheel_add(&p->w, rel->buf, S_IFREG | 0755, rk_exe_stub_len,
						 NULL, stub, NULL, NULL);
			else
				rc = rk_err_set(s->err, rc, "'%s': no stub for '%s'", rel->buf, rp);
		} else {
			/* a file (or a symlink to one: its target's bytes); a shared library
			 * goes under its soname */
			if (e->shared && e->soname[0] && strcmp(e->soname, name) &&
			    !S_ISLNK(vfs_node_mode(c))) {
				snprintf(out, sizeof(out), "%s%s%s", dirpart, len ? "/" : "",
					 e->soname);
				rc = owned_add(s, p->family, rel->buf, NULL, out);
			} else {
				snprintf(out, sizeof(out), "%s", rel->buf);
			}
			struct rk_composite *rw = NULL;

			if (!rc && vfs_node_size(t) && !vfs_node_blob(t))
				rc = rk_err_set(s->err, -EIO, "'%s': not a cache blob", rel->buf);
			if (!rc)
				rc = rpath_member(s, p, t, out, &rw);
			if (!rc && rw)
				rc = pywheel_add(&p->w, out,
						 S_IFREG |
							 ((vfs_node_mode(t) & 0111) ? 0755 : 0644),
						 rw->size, NULL, NULL, rw, vfs_node_origin(t));
			else if (!rc)
				rc = pywheel_add(&p->w, out,
						 S_IFREG |
							 ((vfs_node_mode(t) & 0111) ? 0755 : 0644),
						 vfs_node_size(t),
						 vfs_node_size(t) ? vfs_node_blob(t) : NULL,
						 vfs_node_size(t) ? NULL : strdup(""), NULL,
						 vfs_node_origin(t));
		}
		rel->len = len;
		rel->buf[len] = '\0';
	}
	return rc;
}

/* The pure package of a wheel: <pure>/__init__.py and <pure>/_dist_info.py. */
static int add_pure(const struct synth *s, struct pkg *p, const char *pure, const char *entry,
		    const char *family)
{
	const struct rk_pysrc *init = rk_pysrc_find("pure/__init__.py");
	struct rk_buf b = RK_BUF_INIT;
	char name[300];
	char *d;
	int rc;

	if (!init)
		return -ENOENT;
	snprintf(name, sizeof(name), "%s/__init__.py", pure);
	if (!(d = malloc(init->len + 1)))
		return -ENOMEM;
	memcpy(d, init->data, init->len);
	if ((rc = pywheel_add(&p->w, name, S_IFREG | 0644, init->len, NULL, d, NULL, NULL)))
		return rc;
	if ((rc = pywheel_dist_info_py(s->version, s->split, s->families, s->nfamilies, entry,
					 family, &b))) {
		rk_buf_release(&b);
		return rc;
	}
	snprintf(name, sizeof(name), "%s/_dist_info.py", pure);
	return pywheel_add_buf(&p->w, name, &b);
}

/* ---- packages ---- */

/* A hidden directory with the flatten of the run's artifacts wanted by package kind. */
static int flatten_pkg(struct synth *s, struct pkg *p, int kind, const char *family,
		       const char *target, struct node **root)
{
	struct run *r = s->r;
	struct artifact **as = calloc(r->cat->narts + 1, sizeof(*as));
	size_t n = 0;
	int rc;

	if (!as)
		return -ENOMEM;
	for (size_t i = 0; i < r->cat->narts; i++)
		if (pyplan_wanted(r->artifacts[i].art->an.name, r->artifacts[i].art->an.component,
				  r->artifacts[i].art->an.target, kind, s->split, family, target))
			as[n++] = &r->artifacts[i];
	for (size_t i = 0; i < n; i++)
		if ((rc = rk_buf_addf(&p->w.sources, "%s%s", i ? " " : "", as[i]->art->stem))) {
			free(as);
			return rc;
		}
	*root = vfs_tree_new(".python", S_IFDIR | 0755, 0); /* private, freed by the caller */
	rc = *root ? vfs_flatten_artifacts(s->v, as, n, *root, s->err) : -ENOMEM;
	free(as);
	if (!rc && !n)
		rc = -ENOENT;
	if (rc) {
		vfs_tree_free(*root);
		*root = NULL;
	}
	return rc;
}

/* Newest mtime below dir. */
static void newest(const struct node *dir, int64_t *t)
{
	for (size_t i = 0; i < vfs_dir_count(dir); i++) {
		const struct node *c = vfs_dir_node(dir, i);

		if (vfs_node_mtime(c) > *t)
			*t = vfs_node_mtime(c);
		if (S_ISDIR(vfs_node_mode(c)))
			newest(c, t);
	}
}

/* build_python_packages.py ensure_profiler_library_symlinks: for each versioned
 * lib/librocprof-sys*.so.* and lib/libprofiler-hub*.so.* the name without its last suffix
 * (a symlink there, which the wheel build turns into a copy: the same member here), unless
 * the wheel has that name. */
static int profiler_links(struct pkg *p)
{
	static const char *const globs[] = {"lib/librocprof-sys*.so.*", "lib/libprofiler-hub*.so.*",
					    NULL};
	struct pyentry *e, *t;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	HASH_ITER(hh, p->w.ents, e, t) {
		if (!pyplan_glob_any(globs, e->name))
			continue;
		if (RK_GROW(names, cap, n, 8)) {
			free(names);
			return -ENOMEM;
		}
		names[n++] = e->name;
	}
	for (size_t i = 0; !rc && i < n; i++) {
		char link[4096];
		struct pyentry *x, *have;
		char *data = NULL;

		HASH_FIND_STR(p->w.ents, names[i], x);
		snprintf(link, sizeof(link), "%.*s", (int)(strrchr(names[i], '.') - names[i]),
			 names[i]);
		HASH_FIND_STR(p->w.ents, link, have);
		if (!x || have)
			continue;
		if (x->data && !(data = malloc(x->size + 1)))
			rc = -ENOMEM;
		else if (x->data)
			memcpy(data, x->data, x->size);
		if (!rc)
			rc = pywheel_add(&p->w, link, x->mode, x->size, x->blob[0] ? x->blob : NULL,
					 data, x->composite, x->origin);
	}
	free(names);
	return rc;
}

/* Whether the wheel holds member as an executable (a console script's program). */
static int has_program(void *ctx, const char *member)
{
	struct pyentry *e;

	HASH_FIND_STR(((struct pkg *)ctx)->w.ents, member, e);
	return e && (e->mode & 0111);
}

/* entry_points.txt of runtime wheel p in b, and its _cli.py (ours, embedded as src) when
 * it declares any. */
static int entry_points(struct pkg *p, const char *platform, const char *src, const char *cli,
			struct rk_buf *b)
{
	int rc = pyplan_entry_points(p->kind, platform, has_program, p, b);

	return !rc && b->len ? add_embedded(p, cli, rk_pysrc_find(src)) : rc;
}

/* A runtime wheel (core, libraries[-family], profiler): 6.3. */
static int runtime_wheel(struct synth *s, int kind, const char *family)
{
	struct pkg p = {.w.sources = RK_BUF_INIT,
			.family = family,
			.kind = kind,
			.rpath = pyplan_rpath(kind)};
	struct rk_buf rel = RK_BUF_INIT, top = RK_BUF_INIT, eps = RK_BUF_INIT;
	struct pyplan_names nm;
	const char *dist = nm.dist, *platform = nm.platform, *pure = nm.pure;
	char req[200], summary[300];
	struct node *root;
	int rc;

	pyplan_names(kind, family, &nm);
	p.platform = platform;
	rc = flatten_pkg(s, &p, kind, family, NULL, &root);
	/* no library artifact (of the family): upstream's build makes the libraries wheel
	 * anyway, nearly empty (build_python_packages.py populates one per family and the
	 * kpack-split one always), and the sdist's libraries extra requires it */
	if (rc == -ENOENT && kind == PKG_LIBRARIES)
		rc = (root = vfs_tree_new(".python", S_IFDIR | 0755, 0))
			     ? rk_buf_adds(&p.w.sources, "no artifact (none has library files)")
			     : -ENOMEM;
	if (rc) {
		pkg_release(&p);
		return rc == -ENOENT ? 0 : rc; /* nothing to package */
	}
	newest(root, &s->mtime);
	if (!(rc = rk_buf_addf(&rel, "%s", "")))
		rc = runtime_walk(s, &p, root, root, &rel);
	if (!rc && kind == PKG_PROFILER && !p.w.ents)
		goto out; /* nothing left after the include globs */
	if (!rc && kind == PKG_PROFILER)
		rc = profiler_links(&p);
	/* the files go under the platform package; record who owns each path */
	if (!rc) {
		struct pyentry *e, *t, *moved = NULL;

		HASH_ITER(hh, p.w.ents, e, t) {
			char *name = NULL;

			HASH_DEL(p.w.ents, e);
			if (asprintf(&name, "%s/%s", platform, e->name) < 0 ||
			    (rc = owned_add(s, family, e->name, platform, NULL))) {
				free(name);
				free(e->name);
				free(e->data);
				free(e);
				rc = rc ? rc : -ENOMEM;
				continue;
			}
			free(e->name);
			e->name = name;
			HASH_ADD_KEYPTR(hh, moved, e->name, strlen(e->name), e);
		}
		p.w.ents = moved;
		if (!rc && rk_htab_oom())
			rc = -ENOMEM;
	}
	if (!rc) { /* an empty module, as py_packaging.py's platform_dir makes it */
		char init[200];

		snprintf(init, sizeof(init), "%s/__init__.py", platform);
		rc = pywheel_add_str(&p.w, init, "");
	}
	if (!rc)
		rc = add_pure(s, &p, pure,
			      kind == PKG_CORE	     ? "core"
			      : kind == PKG_PROFILER ? "profiler"
						     : "libraries",
			      family);
	snprintf(req, sizeof(req), "rocm-sdk-core==%s", s->version);
	snprintf(summary, sizeof(summary), "ROCm %s (synthesized by rockfs from run %s)",
		 kind == PKG_CORE	? "SDK core runtime"
		 : kind == PKG_PROFILER ? "profiler applications"
					: "SDK math libraries",
		 s->r->cat->name);
	if (!rc)
		rc = rk_buf_addf(&top, "%s\n%s\n", platform, pure);
	if (!rc && kind == PKG_CORE)
		rc = entry_points(&p, platform, "core/_cli.py", "rocm_sdk_core/_cli.py", &eps);
	if (!rc && kind == PKG_PROFILER)
		rc = entry_points(&p, platform, "profiler/_cli.py", "rocm_profiler/_cli.py",
				  &eps);
	/* upstream's rocm-profiler requires nothing */
	if (!rc)
		rc = finish_wheel(s, &p, dist, kind == PKG_LIBRARIES ? req : NULL, summary, top.buf,
				  eps.len ? eps.buf : NULL);
out:
	pkg_release(&p);
	vfs_tree_free(root);
	rk_buf_release(&rel);
	rk_buf_release(&top);
	rk_buf_release(&eps);
	return rc;
}

/* Device wheel for base target t: its files verbatim into the libraries platform
 * directory, plus .devel_links/<t>.json (6.3). */
static int device_walk(struct synth *s, struct pkg *p, struct node *dir, struct rk_buf *rel,
		       struct rk_buf *links)
{
	size_t len = rel->len;
	int rc = 0;

	for (size_t i = 0; !rc && i < vfs_dir_count(dir); i++) {
		struct node *c = vfs_dir_node(dir, i);
		char name[4096];

		if ((rc = rk_buf_addf(rel, "%s%s", len ? "/" : "", vfs_dir_name(dir, i))))
			break;
		snprintf(name, sizeof(name), "_rocm_sdk_libraries/%s", rel->buf);
		if (S_ISDIR(vfs_node_mode(c))) {
			rc = device_walk(s, p, c, rel, links);
		} else if (S_ISREG(vfs_node_mode(c))) {
			struct rk_composite *rw = NULL;

			if (vfs_node_size(c) && !vfs_node_blob(c))
				rc = -EIO;
			if (!rc)
				rc = rpath_member(s, p, c, rel->buf, &rw);
			if (!rc && rw)
				rc = pywheel_add(&p->w, name,
						 S_IFREG |
							 ((vfs_node_mode(c) & 0111) ? 0755 : 0644),
						 rw->size, NULL, NULL, rw, vfs_node_origin(c));
			else if (!rc)
				rc = pywheel_add(&p->w, name,
						 S_IFREG |
							 ((vfs_node_mode(c) & 0111) ? 0755 : 0644),
						 vfs_node_size(c),
						 vfs_node_size(c) ? vfs_node_blob(c) : NULL,
						 vfs_node_size(c) ? NULL : strdup(""), NULL,
						 vfs_node_origin(c));
			/* target: relative to the link's directory in the devel tree,
			 * "../" per component of relpath (py_packaging.py) */
			if (!rc)
				rc = rk_wheel_devel_link(links, rel->buf);
		} /* symlinks: none in device artifacts; a wheel could not hold one */
		rel->len = len;
		rel->buf[len] = '\0';
	}
	return rc;
}

static int device_wheel(struct synth *s, const char *t)
{
	struct pkg p = {.w.sources = RK_BUF_INIT, .kind = PKG_DEVICE, .rpath = pyplan_rpath(PKG_DEVICE)};
	struct rk_buf rel = RK_BUF_INIT, links = RK_BUF_INIT, json = RK_BUF_INIT;
	char dist[160], req[200], summary[300], name[300];
	struct node *root;
	int rc;

	snprintf(dist, sizeof(dist), "rocm-sdk-device-%s", t);
	rc = flatten_pkg(s, &p, PKG_DEVICE, NULL, t, &root);
	if (rc) {
		pkg_release(&p);
		return rc == -ENOENT ? 0 : rc;
	}
	newest(root, &s->mtime);
	if (!(rc = rk_buf_addf(&rel, "%s", "")) && !(rc = rk_buf_addf(&links, "%s", "")))
		rc = device_walk(s, &p, root, &rel, &links);
	if (!rc)
		rc = rk_buf_addf(&json, "{\"version\": \"%s\", \"links\": [%s]}\n", s->version,
				 links.buf);
	snprintf(name, sizeof(name), "_rocm_sdk_libraries/.devel_links/%s.json", t);
	if (!rc)
		rc = pywheel_add_buf(&p.w, name, &json);
	snprintf(req, sizeof(req), "rocm-sdk-libraries==%s", s->version);
	snprintf(summary, sizeof(summary),
		 "ROCm SDK device code for %s (synthesized by rockfs "
		 "from run %s)",
		 t, s->r->cat->name);
	if (!rc)
		rc = finish_wheel(s, &p, dist, req, summary, "_rocm_sdk_libraries\n", NULL);
	pkg_release(&p);
	vfs_tree_free(root);
	rk_buf_release(&rel);
	rk_buf_release(&links);
	rk_buf_release(&json);
	return rc;
}

/* ---- devel (6.4) ---- */

/* A devel tree file of its own (no runtime wheel has it): _normalize_rpath, a DT_RUNPATH
 * entry becomes DT_RPATH (the same string; formats/gpu/elf_runpath.h), as a composite over its
 * blob in *c (kept in p->rw); *c NULL when the file stays as it is. */
static int runpath_member(struct synth *s, struct pkg *p, const struct node *t, const char *rel,
			  struct rk_composite **c)
{
	const struct rk_elf_info *e;
	int rc;

	*c = NULL;
	if (!vfs_node_blob(t) || vfs_node_size(t) < 64 || pyplan_not_a_program(rel))
		return 0;
	if ((rc = elf_of(s, t, &e)) || (rc = RK_GROW(p->rw, p->caprw, p->nrw, 8)) ||
	    (rc = rk_elf_runpath_to_rpath(e, vfs_node_blob(t), vfs_node_size(t),
					  vfs_node_blob_origin(t), c)))
		return rc;
	if (*c)
		p->rw[p->nrw++] = *c;
	return 0;
}

static int devel_walk(struct synth *s, struct pkg *p, struct vfs_tar_list *l, struct node *dir,
		      struct rk_buf *rel)
{
	size_t len = rel->len;
	int rc = 0;

	for (size_t i = 0; !rc && i < vfs_dir_count(dir); i++) {
		struct node *c = vfs_dir_node(dir, i);
		char path[4096], link[4096];
		struct owned *o;
		int depth = 1;

		if ((rc = rk_buf_addf(rel, "%s%s", len ? "/" : "", vfs_dir_name(dir, i))))
			break;
		for (const char *q = rel->buf; *q; q++)
			depth += *q == '/';
		snprintf(path, sizeof(path), "_rocm_sdk_devel/%s%s", rel->buf,
			 S_ISDIR(vfs_node_mode(c)) ? "/" : "");
		/* the core wheel's first, then this family's libraries wheel's */
		HASH_FIND_STR(s->owned, rel->buf, o);
		if (!o && p->family) {
			char key[4096];

			snprintf(key, sizeof(key), "%s\t%s", p->family, rel->buf);
			HASH_FIND_STR(s->owned, key, o);
		}
		if (S_ISDIR(vfs_node_mode(c))) {
			if (!(rc = vfs_tar_list_push(l, path, S_IFDIR | 0755, 0, NULL, NULL, NULL)))
				rc = devel_walk(s, p, l, c, rel);
		} else if (o && o->owner) {
			/* a runtime wheel has it: a relative link into that package */
			size_t k = 0;

			for (int d = 0; d < depth && k + 3 < sizeof(link); d++)
				k += (size_t)snprintf(link + k, sizeof(link) - k, "../");
			snprintf(link + k, sizeof(link) - k, "%s/%s", o->owner, rel->buf);
			rc = vfs_tar_list_push(l, path, S_IFLNK | 0777, 0, NULL, link, NULL);
		} else if (o) {
			/* a soname alias: a link to the soname */
			char dirpart[4096];

			snprintf(dirpart, sizeof(dirpart), "%.*s", (int)len, rel->buf);
			pyplan_relpath(dirpart, o->soname_path, link, sizeof(link));
			rc = vfs_tar_list_push(l, path, S_IFLNK | 0777, 0, NULL, link, NULL);
		} else if (S_ISLNK(vfs_node_mode(c))) {
			rc = vfs_tar_list_push(l, path, S_IFLNK | 0777, 0, NULL, vfs_node_target(c), NULL);
		} else if (vfs_node_size(c) && !vfs_node_blob(c)) {
			rc = rk_err_set(s->err, -EIO, "'%s': not a cache blob", rel->buf);
		} else {
			struct rk_composite *rw = NULL;

			if (!(rc = runpath_member(s, p, c, rel->buf, &rw)) && rw)
				rc = vfs_tar_list_push(l, path, S_IFREG | 0644 | (vfs_node_mode(c) & 0111),
						rw->size, NULL, NULL, NULL);
			else if (!rc)
				rc = vfs_tar_list_push(l, path, S_IFREG | 0644 | (vfs_node_mode(c) & 0111), vfs_node_size(c),
						vfs_node_size(c) ? vfs_node_blob(c) : NULL, NULL,
						vfs_node_origin(c));
			if (!rc && rw)
				l->v[l->n - 1].content = rw;
		}
		rel->len = len;
		rel->buf[len] = '\0';
	}
	return rc;
}

/* Tag the package just pushed to s->out as served in python/<family>/ only. */
static void in_family_dir(struct synth *s, size_t n0, const char *family)
{
	if (family && s->out->n > n0)
		snprintf(s->out->v[s->out->n - 1].family, sizeof(s->out->v[0].family), "%s",
			 family);
}

/* The devel wheel (6.4) of a legacy run's family (NULL: a kpack-split run's, or a run
 * without families): its tree links into the core wheel and that family's libraries
 * wheel. own_dir: served in python/<family>/ (upstream's dist/<family>/). */
static int devel_wheel(struct synth *s, const char *family, int own_dir)
{
	struct pkg p = {.w.sources = RK_BUF_INIT, .kind = PKG_DEVEL, .family = family};
	struct rk_buf rel = RK_BUF_INIT;
	struct vfs_tar_list l = {0};
	struct rk_composite tar = RK_COMPOSITE_INIT;
	struct artifact *made = NULL;
	size_t n0 = s->out->n;
	uint64_t size;
	char req[200], summary[300], id[RK_SHA256_HEX];
	struct node *root;
	int rc;

	rc = flatten_pkg(s, &p, PKG_DEVEL, family, NULL, &root);
	if (rc) {
		pkg_release(&p);
		return rc == -ENOENT ? 0 : rc;
	}
	newest(root, &s->mtime);
	if (!(rc = rk_buf_addf(&rel, "%s", "")) &&
	    !(rc = vfs_tar_list_push(&l, "_rocm_sdk_devel/", S_IFDIR | 0755, 0, NULL, NULL, NULL)))
		rc = devel_walk(s, &p, &l, root, &rel);
	/* an empty module, as upstream's tarball has it: its expansion (_devel.py
	 * get_devel_root) fails without _rocm_sdk_devel/__init__.py */
	if (!rc && !vfs_find(root, "__init__.py"))
		rc = vfs_tar_list_push(&l, "_rocm_sdk_devel/__init__.py", S_IFREG | 0644, 0, NULL, NULL,
				NULL);
	if (!rc) {
		rc = vfs_tar_list_layout(&l, s->mtime, &tar);
	}
	/* _devel.tar is written into the cache; made, its origin, writes it again once
	 * evicted (served with the wheel) */
	size = tar.size;
	if (!rc)
		rc = pymade_new(s->v, s->r, "rocm_sdk_devel/_devel.tar", &tar, &made);
	if (!rc)
		rc = pymade_write(s->v, made, id, s->err);
	if (!rc)
		rc = pywheel_add(&p.w, "rocm_sdk_devel/_devel.tar", S_IFREG | 0644, size, id, NULL,
				 NULL, made);
	if (!rc)
		rc = add_pure(s, &p, "rocm_sdk_devel", "devel", family);
	snprintf(req, sizeof(req), "rocm-sdk-core==%s", s->version);
	snprintf(summary, sizeof(summary),
		 "ROCm SDK development files%s%s (synthesized by rockfs "
		 "from run %s)",
		 family ? " for " : "", family ? family : "", s->r->cat->name);
	if (!rc)
		rc = finish_wheel(s, &p, "rocm-sdk-devel", req, summary, "rocm_sdk_devel\n", NULL);
	if (!rc && s->out->n > n0) {
		s->out->v[s->out->n - 1].made = made;
		made = NULL;
	}
	if (!rc && own_dir)
		in_family_dir(s, n0, family);
	pymade_free(made);
	rk_composite_release(&tar);
	vfs_tar_list_release(&l);
	pkg_release(&p);
	vfs_tree_free(root);
	rk_buf_release(&rel);
	return rc;
}

/* ---- the rocm selector sdist (6.5) ---- */

static int sdist_add(struct synth *s, struct vfs_tar_list *l, const char *path, const void *data,
		     size_t len)
{
	char id[RK_SHA256_HEX];
	int rc = len ? rk_blob_put(s->v->cache, data, len, id, s->err) : 0;

	return rc ? rc : vfs_tar_list_push(l, path, S_IFREG | 0644, len, len ? id : NULL, NULL, NULL);
}

/* The rocm sdist; family: a multi-family legacy run's sdist of that family, restricted to
 * it (py_packaging.py restrict_families: the version lines, then THIS_TARGET_FAMILY,
 * THIS_PACKAGE_ENTRY, DEFAULT_TARGET_FAMILY and AVAILABLE_TARGET_FAMILIES of that family
 * alone), served in python/<family>/. */
static int sdist(struct synth *s, const char *family)
{
	size_t n0 = s->out->n;
	struct rk_buf b = RK_BUF_INIT;
	struct vfs_tar_list l = {0};
	struct rk_composite tar = RK_COMPOSITE_INIT;
	char base[200], path[400], *raw = NULL, *gz = NULL;
	size_t gzlen = 0;
	int rc;

	snprintf(base, sizeof(base), "rocm-%s", s->version);
	snprintf(path, sizeof(path), "%s/", base);
	rc = vfs_tar_list_push(&l, path, S_IFDIR | 0755, 0, NULL, NULL, NULL);
	if (!rc && !(rc = rk_buf_addf(&b,
				      "Metadata-Version: 2.1\nName: rocm\nVersion: %s\nSummary: "
				      "ROCm SDK selector (synthesized by rockfs from run %s)\n",
				      s->version, s->r->cat->name))) {
		snprintf(path, sizeof(path), "%s/PKG-INFO", base);
		rc = sdist_add(s, &l, path, b.buf, b.len);
	}
	for (size_t i = 0; !rc && i < rk_npysrc; i++) {
		const struct rk_pysrc *f = &rk_pysrc[i];

		if (!strncmp(f->path, "sdist/", 6)) {
			snprintf(path, sizeof(path), "%s/%s", base, f->path + 6);
			rc = sdist_add(s, &l, path, f->data, f->len);
		} else if (!strcmp(f->path, "rocm_sdk/_dist_info.py")) {
			b.len = 0;
			snprintf(path, sizeof(path), "%s/src/%s", base, f->path);
			if (family) {
				/* the base: no family lines */
				rc = pywheel_dist_info_py(s->version, s->split, NULL, 0, NULL,
							  family, &b);
				if (!rc)
					rc = rk_buf_addf(&b,
							 "DEFAULT_TARGET_FAMILY = '%s'\n"
							 "AVAILABLE_TARGET_FAMILIES.append('%s')\n",
							 family, family);
			} else {
				rc = pywheel_dist_info_py(s->version, s->split, s->families,
							  s->nfamilies, NULL, NULL, &b);
				/* simple/'s sdist: files/ has the first family's devel wheel */
				if (!rc && !s->split && s->nfamilies > 1)
					rc = rk_buf_addf(&b, "DEVEL_FAMILY = '%s'\n",
							 s->families[0]);
			}
			/* no extra without a wheel behind it: upstream's Linux build always
			 * makes rocm-profiler (and refuses to go on without profiler
			 * artifacts); a run without them has no profiler package */
			if (!rc && !s->profiler)
				rc = rk_buf_adds(&b, "UNBUILT_PACKAGES.add('profiler')\n");
			if (!rc)
				rc = sdist_add(s, &l, path, b.buf, b.len);
		} else if (!strncmp(f->path, "rocm_sdk/", 9)) {
			snprintf(path, sizeof(path), "%s/src/%s", base, f->path);
			rc = sdist_add(s, &l, path, f->data, f->len);
		}
	}
	snprintf(path, sizeof(path), "%s/src/", base);
	if (!rc)
		rc = vfs_tar_list_push(&l, path, S_IFDIR | 0755, 0, NULL, NULL, NULL);
	snprintf(path, sizeof(path), "%s/src/rocm_sdk/", base);
	if (!rc)
		rc = vfs_tar_list_push(&l, path, S_IFDIR | 0755, 0, NULL, NULL, NULL);
	snprintf(path, sizeof(path), "%s/src/rocm_sdk/tests/", base);
	if (!rc)
		rc = vfs_tar_list_push(&l, path, S_IFDIR | 0755, 0, NULL, NULL, NULL);
	if (!rc) {
		rc = vfs_tar_list_layout(&l, s->mtime, &tar);
	}
	if (!rc && !(raw = malloc(tar.size)))
		rc = -ENOMEM;
	if (!rc && rk_composite_pread_blobs(s->v->cache, &tar, raw, tar.size, 0, NULL) !=
			   (ssize_t)tar.size)
		rc = -EIO;
	if (!rc) {
		struct libdeflate_compressor *c = libdeflate_alloc_compressor(9);
		size_t bound = c ? libdeflate_gzip_compress_bound(c, tar.size) : 0;

		if (!c || !(gz = malloc(bound)) ||
		    !(gzlen = libdeflate_gzip_compress(c, raw, tar.size, gz, bound)))
			rc = -ENOMEM;
		libdeflate_free_compressor(c);
	}
	if (!rc) {
		struct pysynth *ps = pysynth_push(s->out);

		snprintf(path, sizeof(path), "%s.tar.gz", base);
		if (!ps || !(ps->file = strdup(path)) || !(ps->from = strdup("rockfs rocm_sdk"))) {
			rc = -ENOMEM;
		} else {
			ps->bytes = gz;
			ps->size = gzlen;
			gz = NULL;
			in_family_dir(s, n0, family);
		}
	}
	free(gz);
	free(raw);
	rk_composite_release(&tar);
	vfs_tar_list_release(&l);
	rk_buf_release(&b);
	return rc;
}

/* ---- the run ---- */

/* Whether a failure of one package leaves the others worth serving. */
static int recoverable(int rc)
{
	return rc && rc != -ENOMEM && !rk_err_transient(rc) && rc != -ECANCELED;
}

int vfs_python_synth(struct rk_vfs *v, struct run *r, struct pysynth_set *out, struct rk_err *err)
{
	struct synth s = {.v = v, .r = r, .out = out, .err = err};
	struct rk_manifest m;
	struct utsname u;
	char **bases = NULL;
	size_t nbases = 0;
	int rc = 0;
	const char *platform = strrchr(r->cat->name, '-');

	if (!v->cache || !platform || strcmp(platform, "-linux"))
		return 0; /* wheels of Windows runs are not ELF trees */
	if (vfs_run_manifest(v, r->dir, &m, NULL))
		return 0;
	if (!m.rocm_package_version || !pyplan_plain_word(m.rocm_package_version) ||
	    strlen(m.rocm_package_version) >= sizeof(s.version)) {
		rk_warn("python: run '%s': no usable rocm_package_version in its manifest; no "
			"packages synthesized",
			r->cat->name);
		rk_manifest_release(&m);
		return 0;
	}
	snprintf(s.version, sizeof(s.version), "%s", m.rocm_package_version);
	rk_manifest_release(&m);
	snprintf(s.tag, sizeof(s.tag), "py3-none-linux_%s", uname(&u) ? "x86_64" : u.machine);
	s.split = vfs_run_is_split(v, r);
	if (!(s.families = calloc(r->cat->ntargets + 1, sizeof(char *))) ||
	    !(bases = calloc(r->cat->ntargets + 1, sizeof(char *))))
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < r->cat->ntargets; i++) {
		const char *t = r->cat->targets[i];
		char base[64];

		if (!strcmp(t, "generic") || !pyplan_plain_word(t))
			continue;
		s.families[s.nfamilies++] = (char *)t;
		if (s.split && rk_gpu_base_arch(t, base, sizeof(base)) > 0 &&
		    (!nbases || strcmp(bases[nbases - 1], base)) &&
		    !(bases[nbases++] = strdup(base)))
			rc = -ENOMEM;
	}
	/* core first: the devel tree links to what the runtime wheels hold */
	if (!rc && recoverable(rc = runtime_wheel(&s, PKG_CORE, NULL))) {
		rk_warn("python: run '%s': rocm-sdk-core not synthesized: %s", r->cat->name,
			rk_err_str(err, rc));
		rk_err_clear(err);
		rc = 0;
	}
	if (!rc) {
		size_t n0 = s.out->n;

		if (recoverable(rc = runtime_wheel(&s, PKG_PROFILER, NULL))) {
			rk_warn("python: run '%s': rocm-profiler not synthesized: %s",
				r->cat->name, rk_err_str(err, rc));
			rk_err_clear(err);
			rc = 0;
		}
		s.profiler = s.out->n > n0;
	}
	for (size_t i = 0; !rc && i < (s.split ? 1 : s.nfamilies); i++)
		if (recoverable(rc = runtime_wheel(&s, PKG_LIBRARIES,
						   s.split ? NULL : s.families[i]))) {
			rk_warn("python: run '%s': rocm-sdk-libraries%s%s not synthesized: %s",
				r->cat->name, s.split ? "" : "-", s.split ? "" : s.families[i],
				rk_err_str(err, rc));
			rk_err_clear(err);
			rc = 0;
		}
	for (size_t i = 0; !rc && i < nbases; i++)
		if (recoverable(rc = device_wheel(&s, bases[i]))) {
			rk_warn("python: run '%s': rocm-sdk-device-%s not synthesized: %s",
				r->cat->name, bases[i], rk_err_str(err, rc));
			rk_err_clear(err);
			rc = 0;
		}
	/* the devel wheel: a legacy run's first family's (python/files/, simple/), and with
	 * several families every family's own with its own sdist in python/<family>/, as
	 * upstream's dist/<family>/ (build_python_packages.py _run_legacy) */
	for (size_t i = 0; !rc && i < (!s.split && s.nfamilies > 1 ? s.nfamilies + 1 : 1); i++) {
		const char *fam = s.split || !s.nfamilies ? NULL : s.families[i ? i - 1 : 0];

		if (recoverable(rc = devel_wheel(&s, fam, i > 0))) {
			rk_warn("python: run '%s': rocm-sdk-devel%s%s not synthesized: %s",
				r->cat->name, i ? " of " : "", i ? fam : "", rk_err_str(err, rc));
			rk_err_clear(err);
			rc = 0;
		}
	}
	if (!rc && s.out->n)
		rc = sdist(&s, NULL);
	for (size_t i = 0; !rc && s.out->n && !s.split && s.nfamilies > 1 && i < s.nfamilies; i++)
		rc = sdist(&s, s.families[i]);
	{
		struct elfinfo *e, *t;
		struct owned *o, *ot;

		HASH_ITER(hh, s.elf, e, t) {
			HASH_DEL(s.elf, e);
			free(e);
		}
		HASH_ITER(hh, s.owned, o, ot) {
			HASH_DEL(s.owned, o);
			free(o->path);
			free(o->owner);
			free(o->soname_path);
			free(o);
		}
	}
	for (size_t i = 0; i < nbases; i++)
		free(bases[i]);
	free(bases);
	free(s.families);
	return rc;
}
