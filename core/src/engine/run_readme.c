/* run_readme.c: what a run directory says about itself: RUN/README (or, for a store that
 * is one run, a section of the mount's README): which of its folders are the files CI
 * stored, served as stored, and which rockfs makes; a run without archives (a failed
 * build: CI uploaded its logs only); what a Windows run has. The rule is docs/views.md
 * ("Stored and synthesized"). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rk/buf.h"
#include "rk/log.h"

#include "engine/vfs_int.h"
#include "engine/engine.h"

/* Whether the run view of that name lays the run's stored folder of its name over
 * what it makes (its stored_over: tarballs/, packages/, python/). */
static int overlays(const char *name)
{
	for (size_t i = 0; i < vfs_nviews; i++)
		if (vfs_views[i]->place == VFS_VIEW_RUN && !strcmp(vfs_views[i]->name, name))
			return vfs_views[i]->stored_over;
	return 0;
}

static int pad(const char *name)
{
	size_t len = strlen(name);

	return len < 21 ? (int)(21 - len) : 0;
}

static int section(struct rk_buf *b, struct node *dir, const struct rk_run *cat)
{
	int windows = !strcmp(rk_run_platform(cat), "windows"), rc;

	if (!cat->narts)
		rc = rk_buf_addf(b, "RUN %s HAS NO ARTIFACTS (the build failed?)%s\n\n", cat->name,
				 rk_run_has_dir(cat, "logs") ? "; its logs are in logs/" : "");
	else
		rc = rk_buf_addf(b, "Run %s (%s): %zu artifact archive%s.\n\n", cat->name,
				 rk_run_platform(cat), cat->narts, cat->narts == 1 ? "" : "s");
	if (!rc)
		rc = rk_buf_adds(b,
				 "Stored by CI, served as stored (read-only, the stored bytes):\n"
				 "  artifacts/             the files at the run's root\n");
	for (size_t i = 0; !rc && i < cat->dirs.n; i++) {
		const char *name = cat->dirs.v[i].name;
		struct node *n = vfs_dent_find(dir, name);

		if (!n || n->pop == vfs_pop_stored)
			rc = rk_buf_addf(b, "  %s/%*s the stored folder\n", name, pad(name), "");
		else if (overlays(name))
			rc = rk_buf_addf(b,
					 "  %s/%*s the stored files under their own names; "
					 "rockfs makes\n%25sthe others (%s/PROVENANCE)\n",
					 name, pad(name), "", "", name);
	}
	if (!rc)
		rc = rk_buf_adds(b, "Made by rockfs from the archives:");
	for (size_t i = 0; !rc && cat->narts && i < dir->nents; i++) {
		struct node *n = dir->order[i]->node;

		if (S_ISDIR(n->mode) && n->pop != vfs_pop_stored && strcmp(n->name, "artifacts"))
			rc = rk_buf_addf(b, " %s/", n->name);
	}
	if (!rc && !cat->narts)
		rc = rk_buf_adds(b, " nothing (browse/ is empty)");
	if (!rc)
		rc = rk_buf_adds(b, "\n");
	if (!rc && windows)
		rc = rk_buf_adds(
			b, "A Windows run: TheRock builds no native packages for Windows,\n"
			   "so there is no packages/; python/ serves the wheels CI stored.\n");
	return rc ? rc : rk_buf_adds(b, "\n");
}

int run_readme(struct rk_vfs *v, struct node *dir, const struct rk_run *cat)
{
	struct rk_buf b = RK_BUF_INIT;
	struct node *n;
	size_t len;
	int rc;

	pthread_rwlock_wrlock(&v->tree);
	rc = section(&b, dir, cat);
	n = vfs_dent_find(dir, "README");
	if (!rc && n && n->src == SRC_BYTES) {
		/* the mount's README (the store is this run): the run's section first when
		 * it has no archives, else last */
		struct rk_buf all = RK_BUF_INIT;

		rc = cat->narts ? rk_buf_addf(&all, "%s\n%s", n->data, b.buf)
				: rk_buf_addf(&all, "%s%s", b.buf, n->data);
		rk_buf_release(&b);
		b = all;
	} else if (!rc && !n) {
		n = served_add(v, dir, "README", S_IFREG | 0444, dir->mtime);
		if (n)
			n->src = SRC_BYTES;
		else
			rc = -ENOMEM;
	} else if (!rc) {
		rc = 0; /* a stored file named README at the run's root: it stays */
		n = NULL;
	}
	if (!rc && n) {
		char *data = rk_buf_detach(&b, &len);

		if (!data) {
			rc = -ENOMEM;
		} else {
			free(n->data);
			n->data = data;
			n->size = len;
		}
	}
	pthread_rwlock_unlock(&v->tree);
	rk_buf_release(&b);
	if (!rc && !cat->narts && dir->ino == RK_ROOT_INO)
		rk_warn("run '%s' has no artifacts (the build failed?)%s", cat->name,
			rk_run_has_dir(cat, "logs") ? "; its logs are in logs/" : "");
	return rc;
}
