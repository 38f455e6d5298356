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
 * themselves are never written: reads are served from the layout. A tarball whose tree
 * holds a damaged artifact cannot be whole: it is listed, and fails with EIO. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rk/log.h"
#include "rk/manifest.h"
#include "cache/tar_compress.h"
#include "formats/archive/tar_layout.h"
#include "engine/vfs_int.h"
#include "services/flatten.h"
#include "services/tarz_file.h"
#include "services/tree_tar.h"

/* Build the archive nodes file, file.gz and file.zst in private directory dir from the
 * flatten of x. */
static int make_tarball(struct rk_vfs *v, struct node *dir, struct run *r, const char *x, int tests,
			const char *file, struct rk_err *err)
{
	struct rk_composite *l = calloc(1, sizeof(*l));
	struct node *root = NULL, *n;
	int64_t newest = 0;
	int rc;

	if (!l)
		return -ENOMEM;
	/* the tree to archive, a private flatten (tests: everything, the same tree as
	 * dist/<x>); the composite keeps what it needs of it */
	root = vfs_tree_new(file, S_IFDIR | 0755, 0);
	rc = root ? vfs_flatten(v, r, x, !tests, root, NULL, NULL, err) : -ENOMEM;
	if (rc) {
		vfs_tree_free(root);
		free(l);
		return rc;
	}
	rc = vfs_tree_tar(root, l, &newest);
	vfs_tree_free(root);
	if (rc) {
		free(l);
		return rk_err_set(err, rc, "tarball '%s': %s", file, strerror(-rc));
	}
	n = vfs_composite_file(dir, file, S_IFREG | 0444, newest, l);
	if (!n)
		return -ENOMEM;
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
		zn = vfs_tarz_file(dir, zname, newest, l, z);
		if (!zn)
			rc = -ENOMEM;
	}
	return rc;
}

/* A release tarball that cannot be whole (an artifact of its tree is damaged for good):
 * listed as the healthy ones are, and every stat or open of it fails with EIO. */
struct broken {
	struct run *r;
	int tests;
	char x[];
};

static int make_broken(struct rk_vfs *v, void *ctx, struct rk_composite **out, struct rk_err *err)
{
	struct broken *b = ctx;
	struct node *root = vfs_tree_new(b->x, S_IFDIR | 0755, 0);
	int rc = root ? vfs_flatten(v, b->r, b->x, !b->tests, root, NULL, NULL, err) : -ENOMEM;

	(void)out;
	vfs_tree_free(root);
	/* a damaged artifact stays so for the life of the mount: the flatten fails again */
	return rc ? rc : rk_err_set(err, -EIO, "'%s': made again on the next mount", b->x);
}

/* The nodes file, file.gz and file.zst of a tarball that cannot be whole. */
static int add_broken(struct node *dir, struct run *r, const char *x, int tests, const char *file)
{
	int rc = 0;

	for (int k = 0; !rc && k < 3; k++) {
		struct broken *b = calloc(1, sizeof(*b) + strlen(x) + 1);
		struct node *n;
		char name[600];

		if (!b)
			return -ENOMEM;
		b->r = r;
		b->tests = tests;
		memcpy(b->x, x, strlen(x) + 1);
		snprintf(name, sizeof(name), "%s%s", file, k == 0 ? "" : k == 1 ? ".gz" : ".zst");
		n = vfs_later_file(dir, name, vfs_node_mtime(dir), UINT64_MAX, make_broken, free,
				   b);
		if (!n)
			rc = -ENOMEM;
		else
			vfs_later_logged(n, -EIO); /* the artifact's failure is logged already */
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
	out = vfs_tree_new(vfs_node_name(dir), vfs_node_mode(dir), vfs_node_mtime(dir));
	rc = out ? vfs_dist_names(v, r, 1, &names, &n) : -ENOMEM;
	for (size_t i = 0; !rc && i < n; i++)
		for (int tests = 0; !rc && tests <= 1; tests++) {
			char file[512];

			snprintf(file, sizeof(file), "therock-dist-%s-%s%s-%s.tar", platform,
				 names[i], tests ? "-tests" : "", version);
			rc = make_tarball(v, out, r, names[i], tests, file, err);
			/* a damaged artifact (logged when it failed) takes down the tarballs
			 * that hold it, not the others */
			if (rc == -EIO) {
				rk_err_clear(err);
				rc = add_broken(out, r, names[i], tests, file);
			}
		}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(version);
	/* the tarballs CI stored: each under its own name, a made one of that name not
	 * served (docs/views.md, "Stored and synthesized") */
	if (!rc)
		rc = vfs_run_stored_over(v, r, "tarballs", out, err);
	if (rc) {
		vfs_tree_free(out);
		return rc;
	}
	return vfs_graft(v, dir, out);
}

/* Its lines in the mount's README. */
static const char readme[] =
	"  <run>/tarballs/        TheRock's release tarballs, .tar/.tar.gz/.tar.zst, made\n"
	"                         on read (the first look at a .gz/.zst compresses it)\n";

const struct vfs_view vfs_view_tarballs = {
	.name = "tarballs",
	.stored_over = 1,
	.readme = readme,
	.shown = vfs_run_has_artifacts,
	.populate = pop_tarballs,
};
