/* runs.c: runs by name for rk/vfs.h: finding one (with the nearest names when it is
 * missing), listing them, prefetching one, and a run's manifest. docs/internals/vfs.md. */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rk/ingest.h"
#include "rk/log.h"
#include "rk/manifest.h"
#include "rk/nearest.h"

#include "engine/vfs_int.h"
#include "engine/engine.h"
#include "util/array.h"

/* ---- runs ---- */

/* A run name the store does not have: -ENOENT, and the message names the (up to) three
 * runs closest to it by edit distance, for a typo in a long run id. */
static int no_such_run(struct rk_vfs *v, const char *name, struct rk_err *err)
{
	struct rk_buf near = RK_BUF_INIT;
	char **names = NULL;
	size_t n = 0, idx[3], k = 0;
	int rc;

	if (!rk_vfs_list_runs(v, &names, &n, NULL))
		k = rk_nearest_names(name, (const char *const *)names, n, 3, idx);
	for (size_t i = 0; i < k; i++)
		if (rk_buf_addf(&near, "%s%s", i ? ", " : "", names[idx[i]]))
			break;
	if (near.len)
		rc = rk_err_set(err, -ENOENT, "run '%s': no such run (nearest: %s)", name,
				near.buf);
	else
		rc = rk_err_set(err, -ENOENT, "run '%s': no such run (the store lists none)", name);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	rk_buf_release(&near);
	return rc;
}

static int run_dir(struct rk_vfs *v, const char *name, struct node **out, struct rk_err *err)
{
	struct rk_attr a;
	struct node *root, *n;
	int rc;

	if ((rc = get_dir(v, RK_ROOT_INO, &root, err)))
		return rc;
	if (root->run) {
		*out = root;
		return 0;
	}
	if (!name || !name[0])
		return rk_err_set(err, -EINVAL, "the store holds several runs: name one");
	rc = rk_vfs_resolve(v, name, &a, err);
	if (rc == -ENOENT)
		return no_such_run(v, name, err);
	if (rc)
		return rc;
	if ((rc = get_dir(v, a.ino, &n, err)))
		return rc;
	if (!n->run)
		return no_such_run(v, name, err);
	*out = n;
	return 0;
}

static int run_cat(struct rk_vfs *v, const char *name, const struct rk_run **out,
		   struct rk_err *err)
{
	struct node *n;
	int rc = run_dir(v, name, &n, err);

	if (!rc)
		*out = n->run->cat;
	return rc;
}

struct name_list {
	char **v;
	size_t n;
	int rc;
};

static void name_add(struct name_list *l, const char *a, const char *b)
{
	char **nv = realloc(l->v, (l->n + 1) * sizeof(*nv));
	size_t len = strlen(a) + (b ? strlen(b) + 1 : 0) + 1;

	if (!nv || !(nv[l->n] = malloc(len))) {
		if (nv)
			l->v = nv;
		l->rc = -ENOMEM;
		return;
	}
	l->v = nv;
	if (b)
		snprintf(l->v[l->n], len, "%s/%s", a, b);
	else
		snprintf(l->v[l->n], len, "%s", a);
	l->n++;
}

static int list_runs(struct rk_vfs *v, char ***names, size_t *count, struct rk_err *err)
{
	struct name_list l = {0};
	struct node *root;
	int rc;

	if ((rc = get_dir(v, RK_ROOT_INO, &root, err)))
		return rc;
	if (root->run) {
		name_add(&l, root->run->cat->name, NULL);
	} else {
		walk_due(v, root);
		for (size_t i = 0; !l.rc && i < root->nents; i++) {
			struct node *n = root->order[i]->node;

			if (n->pop == pop_run) {
				name_add(&l, n->name, NULL);
			} else if (n->pop == pop_org) {
				if (vfs_populate(v, n, err))
					continue;
				walk_due(v, n);
				pthread_rwlock_rdlock(&v->tree);
				for (size_t j = 0; !l.rc && j < n->nents; j++)
					if (n->order[j]->node->pop == pop_run)
						name_add(&l, n->name, n->order[j]->name);
				pthread_rwlock_unlock(&v->tree);
			}
		}
	}
	if (l.rc) {
		for (size_t i = 0; i < l.n; i++)
			free(l.v[i]);
		free(l.v);
		return l.rc;
	}
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), rk_cmp_str);
	*names = l.v;
	*count = l.n;
	return 0;
}

static int prefetch(struct rk_vfs *v, const char *name, rk_progress_fn progress, void *ctx,
		    struct rk_err *err)
{
	struct node *dir;
	struct run *r;
	uint64_t total = 0;
	int rc;

	if ((rc = run_dir(v, name, &dir, err)))
		return rc;
	r = dir->run;
	for (size_t i = 0; i < r->cat->narts; i++) {
		total += r->cat->arts[i].size;
		if ((rc = vfs_artifact_start(v, &r->artifacts[i])))
			return rk_err_set(err, rc, "cannot start ingest: %s", strerror(-rc));
	}
	for (;;) {
		unsigned finished = 0;
		uint64_t done = 0;
		struct timespec ts;

		pthread_mutex_lock(&v->wait_lock);
		for (size_t i = 0; i < r->cat->narts; i++) {
			struct artifact *a = &r->artifacts[i];

			if (a->state == ART_DONE || a->state == ART_FAILED) {
				finished++;
				done += a->art->size;
			} else {
				done += RK_MIN(a->progress, a->art->size);
			}
			if (a->state == ART_FAILED && !rc)
				rc = artifact_eio(a, err);
		}
		if (finished == r->cat->narts) {
			pthread_mutex_unlock(&v->wait_lock);
			if (progress)
				progress(ctx, total, total, finished, (unsigned)r->cat->narts);
			return rc;
		}
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 100000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&v->wait_cond, &v->wait_lock, &ts);
		pthread_mutex_unlock(&v->wait_lock);
		if (progress)
			progress(ctx, done, total, finished, (unsigned)r->cat->narts);
	}
}

#define BASE_MANIFEST "base/aux-overlay/stage/share/therock/therock_manifest.json"

static int run_manifest(struct rk_vfs *v, const char *name, struct rk_manifest *out,
			struct rk_err *err)
{
	struct node *dir;
	int rc = run_dir(v, name, &dir, err);

	return rc ? rc : vfs_run_manifest(v, dir, out, err);
}

/* The copy of the manifest inside the run's base_lib_generic artifact, parsed. */
static int base_manifest(struct rk_vfs *v, struct node *dir, struct rk_manifest *out,
			 struct rk_err *err)
{
	struct rk_file *f = NULL;
	struct rk_attr a;
	char *data = NULL;
	size_t len = 0;
	int rc;

	if (!rk_run_find(dir->run->cat, "base_lib_generic"))
		return rk_err_set(err, -ENOENT, "run '%s' has no base_lib_generic",
				  dir->run->cat->name);
	rc = rk_vfs_lookup(v, dir->ino, "browse", &a, err);
	if (!rc)
		rc = rk_vfs_lookup(v, a.ino, "base_lib_generic", &a, err);
	for (const char *p = BASE_MANIFEST; !rc && *p;) {
		char comp[256];
		size_t n = strcspn(p, "/");

		snprintf(comp, sizeof(comp), "%.*s", (int)n, p);
		rc = rk_vfs_lookup(v, a.ino, comp, &a, err);
		p += n + (p[n] == '/');
	}
	if (rc == -ENOENT)
		rc = rk_err_set(err, rc, "base_lib_generic has no %s", BASE_MANIFEST);
	if (!rc && a.size > RK_MANIFEST_MAX)
		rc = rk_err_set(err, -EFBIG, "therock_manifest.json is too large");
	if (!rc)
		rc = rk_vfs_open_file(v, a.ino, &f, err);
	if (!rc && !(data = malloc(a.size + 1)))
		rc = -ENOMEM;
	while (!rc && len < a.size) {
		ssize_t n = rk_file_pread(f, data + len, a.size - len, len, err);

		if (n <= 0)
			rc = n < 0 ? (int)n : -EIO;
		else
			len += (size_t)n;
	}
	rk_file_close(f);
	if (!rc)
		rc = rk_manifest_parse(data, len, out, err);
	free(data);
	return rc;
}

/* The run's manifests/therock_manifest.json, parsed. */
static int store_manifest(struct rk_vfs *v, struct node *dir, struct rk_manifest *out,
			  struct rk_err *err)
{
	struct rk_buf path = RK_BUF_INIT;
	const char *p = dir->run->cat->path;
	char *data = NULL;
	size_t len = 0;
	int rc;

	if (rk_buf_addf(&path, "%s%smanifests/therock_manifest.json", p, p[0] ? "/" : ""))
		return -ENOMEM;
	rc = rk_store_read_small(v->store, path.buf, RK_MANIFEST_MAX, &data, &len, err);
	rk_buf_release(&path);
	if (!rc)
		rc = rk_manifest_parse(data, len, out, err);
	free(data);
	return rc;
}

/* The run's manifest: manifests/therock_manifest.json, else the copy inside
 * base_lib_generic (TheRock puts the same file in both). A stored manifest that cannot
 * be read or parsed is not taken for "no manifest" (packages at 0.0.0, tarballs
 * "unversioned"): the copy is used instead, and the run's log says so once. */
int vfs_run_manifest(struct rk_vfs *v, struct node *dir, struct rk_manifest *out,
		     struct rk_err *err)
{
	struct rk_err serr = RK_ERR_INIT, berr = RK_ERR_INIT;
	struct run *r = dir->run;
	int rc, brc;

	if (!r->cat->has_manifest) {
		if (!rk_run_find(r->cat, "base_lib_generic"))
			return rk_err_set(err, -ENOENT, "run '%s' has no therock_manifest.json",
					  r->cat->name);
		return base_manifest(v, dir, out, err);
	}
	if (!(rc = store_manifest(v, dir, out, &serr)))
		return 0;
	brc = base_manifest(v, dir, out, &berr);
	if (!atomic_exchange(&r->manifest_warned, 1)) {
		if (brc)
			rk_warn("run '%s': manifests/therock_manifest.json: %s; and the copy in "
				"base_lib_generic: %s",
				r->cat->path, rk_err_str(&serr, rc), rk_err_str(&berr, brc));
		else
			rk_warn("run '%s': manifests/therock_manifest.json: %s; using the copy in "
				"base_lib_generic (%s)",
				r->cat->path, rk_err_str(&serr, rc), BASE_MANIFEST);
	}
	if (brc)
		return rk_err_set(err, rc, "manifests/therock_manifest.json: %s",
				  rk_err_str(&serr, rc));
	return 0;
}

/* ---- the runs a store view sees (vfs_int.h) ---- */

int vfs_store_runs(struct rk_vfs *v, const struct node *dir, char ***names, size_t *count,
		   struct rk_err *err)
{
	struct node *sd = store_dir(dir);
	char **out;
	size_t n = 0;
	int rc = 0;

	if (!sd)
		return rk_err_set(err, -EINVAL, "not in a store directory");
	refresh_listing(v, sd);
	pthread_rwlock_rdlock(&v->tree);
	out = calloc(sd->nents + 1, sizeof(*out));
	for (size_t i = 0; out && !rc && i < sd->nents; i++)
		if (sd->order[i]->node->pop == pop_run && !(out[n++] = strdup(sd->order[i]->name)))
			rc = -ENOMEM;
	pthread_rwlock_unlock(&v->tree);
	if (!out || rc) {
		for (size_t i = 0; out && i < n; i++)
			free(out[i]);
		free(out);
		return -ENOMEM;
	}
	qsort(out, n, sizeof(*out), rk_cmp_str);
	*names = out;
	*count = n;
	return 0;
}

int vfs_store_run(struct rk_vfs *v, const struct node *dir, const char *name, struct run **out,
		  struct rk_err *err)
{
	struct node *sd = store_dir(dir), *n = NULL;
	int rc;

	if (sd) {
		pthread_rwlock_rdlock(&v->tree);
		n = vfs_dent_find(sd, name);
		if (n && n->pop != pop_run)
			n = NULL;
		pthread_rwlock_unlock(&v->tree);
	}
	if (!n)
		return rk_err_set(err, -ENOENT, "run '%s': no such run here", name);
	if ((rc = vfs_populate(v, n, err)))
		return rc;
	*out = n->run;
	return 0;
}

struct node *vfs_store_run_dir(struct rk_vfs *v, const struct node *at, const char *name,
			       const char *path, struct rk_err *err)
{
	const char *whole = path;
	struct run *r;
	struct node *n;
	char comp[256];

	if (vfs_store_run(v, at, name, &r, err))
		return NULL;
	n = r->dir;
	while (n && *path) {
		size_t len = strcspn(path, "/");

		if (len >= sizeof(comp) || vfs_populate(v, n, err))
			return NULL;
		memcpy(comp, path, len);
		comp[len] = '\0';
		n = vfs_find_dir(n, comp);
		path += len + (path[len] == '/');
	}
	if (!n) {
		rk_err_set(err, -ENOENT, "run '%s' has no %s/", name, whole);
		return NULL;
	}
	return vfs_populate(v, n, err) ? NULL : n;
}

/* ---- a store that names a run ---- */

/* A remote store whose last component is a run name (s3://bucket/999-linux) that the
 * server has nothing under: refused, with the nearest run names of its parent, rather
 * than mounted empty. 0 when it has something, or when that cannot be told (a failing
 * listing fails the mount's root later, with its own message). */
int vfs_check_run_store(struct rk_vfs *v, const char *location, const struct rk_store_opts *o,
			struct rk_err *err)
{
	struct rk_store_list l = {0};
	struct rk_store *parent = NULL;
	struct rk_buf near = RK_BUF_INIT;
	const char **names = NULL;
	size_t len = strlen(location), cut, n = 0, idx[3], k = 0;
	char *up, last[256];
	int rc;

	while (len && location[len - 1] == '/')
		len--;
	for (cut = len; cut && location[cut - 1] != '/'; cut--)
		;
	if (!rk_store_is_remote(location) || len - cut >= sizeof(last) || cut < 2 ||
	    location[cut - 2] == '/') /* "s3://x" or "http://host" itself */
		return 0;
	snprintf(last, sizeof(last), "%.*s", (int)(len - cut), location + cut);
	if (!rk_run_name_valid(last))
		return 0;
	rc = rk_store_list(v->store, "", &l, NULL);
	if (rc != -ENOENT && (rc || l.n)) {
		rk_store_list_release(&l);
		return 0;
	}
	rk_store_list_release(&l);
	if (!(up = strndup(location, cut - 1)))
		return -ENOMEM;
	if (!rk_store_open_opts(up, o, &parent, NULL) && !rk_store_list(parent, "", &l, NULL) &&
	    (names = calloc(l.n + 1, sizeof(*names)))) {
		for (size_t i = 0; i < l.n; i++)
			if (l.v[i].is_dir && rk_run_name_valid(l.v[i].name))
				names[n++] = l.v[i].name;
		k = rk_nearest_names(last, names, n, 3, idx);
		for (size_t i = 0; i < k; i++)
			if (rk_buf_addf(&near, "%s%s", i ? ", " : "", names[idx[i]]))
				break;
	}
	rc = rk_err_set(err, -ENOENT,
			"'%s': no such run: %s holds nothing under %s/ (%s%s); mount %s to see "
			"its runs",
			location, up, last, near.len ? "nearest: " : "no run there",
			near.len ? near.buf : "", up);
	free(names);
	rk_store_list_release(&l);
	rk_store_close(parent);
	rk_buf_release(&near);
	free(up);
	return rc;
}

/* ---- rk/vfs.h: each call holds v->life while it uses nodes (trim.c) ---- */

int rk_vfs_run(struct rk_vfs *v, const char *name, const struct rk_run **out, struct rk_err *err)
{
	int rc;

	pthread_rwlock_rdlock(&v->life);
	rc = run_cat(v, name, out, err);
	pthread_rwlock_unlock(&v->life);
	return rc;
}

int rk_vfs_list_runs(struct rk_vfs *v, char ***names, size_t *count, struct rk_err *err)
{
	int rc;

	pthread_rwlock_rdlock(&v->life);
	rc = list_runs(v, names, count, err);
	pthread_rwlock_unlock(&v->life);
	return rc;
}

int rk_vfs_prefetch(struct rk_vfs *v, const char *name, rk_progress_fn progress, void *ctx,
		    struct rk_err *err)
{
	int rc;

	pthread_rwlock_rdlock(&v->life);
	rc = prefetch(v, name, progress, ctx, err);
	pthread_rwlock_unlock(&v->life);
	return rc;
}

int rk_vfs_run_manifest(struct rk_vfs *v, const char *name, struct rk_manifest *out,
			struct rk_err *err)
{
	int rc;

	pthread_rwlock_rdlock(&v->life);
	rc = run_manifest(v, name, out, err);
	pthread_rwlock_unlock(&v->life);
	return rc;
}
