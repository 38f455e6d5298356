/* view_tarball.c: RUN/tarballs/, TheRock's release tarballs computed on read
 * (therock-formats.md section 5; build_tools/build_tarballs.py).
 *
 * For each release name X (the run's families; for a kpack-split run its release
 * families and multiarch), two archives:
 *   therock-dist-<platform>-X-<version>.tar        the dist tree without the test
 *                                                  component and fftw3
 *   therock-dist-<platform>-X-tests-<version>.tar  everything: dist/X itself
 * <version> is the manifest's rocm_package_version ("unversioned" without one).
 * The bytes are those of GNU tar (tar_layout.h) over the flattened tree, members sorted
 * by name, owner and group 0, every mtime the newest mtime in the tree. Listing the
 * directory builds every tree (and so ingests the run's artifacts); the archives
 * themselves are never written: reads are served from the layout. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rk/buf.h"
#include "rk/log.h"
#include "rk/manifest.h"
#include "cache/tar_compress.h"
#include "formats/tar_layout.h"
#include "engine/vfs_int.h"

struct seen_link {
	const struct node *node;
	char *path;
	UT_hash_handle hh;
};

struct collect {
	struct rk_tar_member *v;
	size_t n, cap;
	struct seen_link *links;
	int64_t newest;
};

static int cmp_dent(const void *a, const void *b)
{
	return strcmp((*(struct dent *const *)a)->name, (*(struct dent *const *)b)->name);
}

static int push(struct collect *c, struct rk_tar_member *m)
{
	if (c->n == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 256;
		struct rk_tar_member *v = realloc(c->v, ncap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->v = v;
		c->cap = ncap;
	}
	c->v[c->n++] = *m;
	return 0;
}

/* Members of dir (path "./..../", ending in '/'), depth first, names sorted as GNU tar's
 * --sort=name does. */
static int collect(struct collect *c, const struct node *dir, struct rk_buf *path)
{
	struct dent **order = NULL;
	size_t len = path->len;
	int rc = 0;

	if (dir->nents && !(order = malloc(dir->nents * sizeof(*order))))
		return -ENOMEM;
	if (dir->nents)
		memcpy(order, dir->order, dir->nents * sizeof(*order));
	if (dir->nents)
		qsort(order, dir->nents, sizeof(*order), cmp_dent);
	for (size_t i = 0; !rc && i < dir->nents; i++) {
		const struct node *n = order[i]->node;
		struct rk_tar_member m = {0};
		struct seen_link *sl = NULL;

		if ((rc = rk_buf_adds(path, order[i]->name)) ||
		    (S_ISDIR(n->mode) && (rc = rk_buf_adds(path, "/"))))
			break;
		if (n->mtime > c->newest)
			c->newest = n->mtime;
		m.mode = n->mode;
		m.size = n->size;
		m.origin = n->origin;
		if (!(m.path = strdup(path->buf))) {
			rc = -ENOMEM;
			break;
		}
		if (S_ISLNK(n->mode)) {
			m.link = n->data;
		} else if (S_ISREG(n->mode)) {
			m.blob = n->src == SRC_BLOB ? n->data : NULL;
			if (n->nlink > 1) {
				HASH_FIND(hh, c->links, &n, sizeof(n), sl);
				if (sl) {
					m.link = sl->path; /* the first path of this inode */
					m.hardlink = 1;
				} else if ((sl = calloc(1, sizeof(*sl)))) {
					sl->node = n;
					sl->path = (char *)m.path;
					HASH_ADD(hh, c->links, node, sizeof(sl->node), sl);
					if (rk_htab_oom()) {
						free(sl);
						rc = -ENOMEM;
					}
				} else {
					rc = -ENOMEM;
				}
			}
		}
		if (!rc && (rc = push(c, &m)))
			free((char *)m.path);
		if (!rc && S_ISDIR(n->mode))
			rc = collect(c, n, path);
		path->len = len;
		path->buf[len] = '\0';
	}
	free(order);
	return rc;
}

static void collect_release(struct collect *c)
{
	struct seen_link *sl, *tmp;

	HASH_ITER(hh, c->links, sl, tmp) {
		HASH_DEL(c->links, sl);
		free(sl);
	}
	for (size_t i = 0; i < c->n; i++)
		free((char *)c->v[i].path);
	free(c->v);
}

/* Build the archive nodes file, file.gz and file.zst in private directory dir from the
 * flatten of x. */
static int make_tarball(struct rk_vfs *v, struct node *dir, struct run *r, const char *x, int tests,
			const char *file, struct rk_err *err)
{
	struct rk_buf path = RK_BUF_INIT;
	struct collect c = {0};
	struct rk_tar_layout *l = calloc(1, sizeof(*l));
	struct rk_tar_member top = {0};
	struct node *root = NULL, *n;
	int rc;

	if (!l)
		return -ENOMEM;
	/* the tree to archive, a private flatten (tests: everything, the same tree as
	 * dist/<x>); the layout keeps what it needs of it */
	root = vfs_tree_new(file, S_IFDIR | 0755, 0);
	rc = root ? vfs_flatten(v, r, x, !tests, root, NULL, NULL, err) : -ENOMEM;
	if (rc) {
		vfs_tree_free(root);
		free(l);
		return rc;
	}
	top.path = strdup("./");
	top.mode = root->mode;
	rc = top.path ? push(&c, &top) : -ENOMEM;
	if (!rc && !(rc = rk_buf_adds(&path, "./")))
		rc = collect(&c, root, &path);
	if (rc && top.path && (!c.n || c.v[0].path != top.path))
		free((char *)top.path);
	if (!rc)
		rc = rk_tar_layout_build(c.v, c.n, c.newest, l);
	collect_release(&c);
	vfs_tree_free(root);
	rk_buf_release(&path);
	if (rc) {
		free(l);
		return rk_err_set(err, rc, "tarball '%s': %s", file, strerror(-rc));
	}
	n = vfs_node_add(dir, file, S_IFREG | 0444, c.newest);
	if (n) {
		n->src = SRC_TAR;
		n->tar = l;
		n->size = l->size;
	}
	if (!n) {
		rk_tar_layout_release(l);
		free(l);
		return -ENOMEM;
	}
	/* .tar.gz (TheRock's format, gzip -6) and .tar.zst (zstd -3, seekable): planned
	 * now, compressed on first stat or read */
	for (int codec = RK_CODEC_GZIP; !rc && codec <= RK_CODEC_ZSTD; codec++) {
		struct rk_tarz *z;
		char zname[600];
		struct node *zn;

		snprintf(zname, sizeof(zname), "%s.%s", file,
			 codec == RK_CODEC_GZIP ? "gz" : "zst");
		if ((rc = rk_tarz_plan(l, codec, codec == RK_CODEC_GZIP ? 6 : 3, &z)))
			break;
		zn = vfs_node_add(dir, zname, S_IFREG | 0444, c.newest);
		if (zn) {
			zn->src = SRC_TARZ;
			zn->tar = l;
			zn->tarz = z;
		}
		if (!zn) {
			rk_tarz_free(z);
			rc = -ENOMEM;
		}
	}
	return rc;
}

static int pop_tarballs(struct rk_vfs *v, struct node *dir, struct rk_err *err)
{
	struct run *r = vfs_node_run(dir);
	const char *platform =
		strrchr(r->cat->name, '-') ? strrchr(r->cat->name, '-') + 1 : "linux";
	struct rk_manifest m;
	char **names = NULL, *version;
	struct node *out;
	size_t n = 0;
	int rc, have_m = !vfs_run_manifest(v, r->dir, &m, NULL);

	version = strdup(have_m && m.rocm_package_version ? m.rocm_package_version : "unversioned");
	if (have_m)
		rk_manifest_release(&m);
	if (!version)
		return -ENOMEM;
	out = vfs_tree_new(dir->name, dir->mode, dir->mtime);
	rc = out ? vfs_dist_names(v, r, 1, &names, &n) : -ENOMEM;
	for (size_t i = 0; !rc && i < n; i++)
		for (int tests = 0; !rc && tests <= 1; tests++) {
			char file[512];

			snprintf(file, sizeof(file), "therock-dist-%s-%s%s-%s.tar", platform,
				 names[i], tests ? "-tests" : "", version);
			rc = make_tarball(v, out, r, names[i], tests, file, err);
		}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(version);
	if (rc) {
		vfs_tree_free(out);
		return rc;
	}
	return vfs_graft(v, dir, out);
}

static int shown(const struct rk_run *cat)
{
	return cat->narts > 0;
}

const struct vfs_view vfs_view_tarballs = {
	.name = "tarballs",
	.readme = "  <run>/tarballs/        TheRock's release tarballs, .tar/.tar.gz/.tar.zst, made\n"
		  "                         on read (the first look at a .gz/.zst compresses it)\n",
	.shown = shown,
	.populate = pop_tarballs,
};
