/* populate.c: lazy directories: vfs_populate (once, no lock held, others wait), the
 * engine's populate functions (the root and {owner}-{repo}/ listings, a run with its
 * views, an artifact), the mount's README, and listing the store again (new runs, a run
 * served anew). The locks: vfs.c; docs/internals/vfs.md. */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "rk/ingest.h"
#include "rk/log.h"

#include "engine/vfs_int.h"
#include "engine/engine.h"

/* The mount's README: this head, each view's lines (vfs_views order), this tail. */
static const char readme_head[] =
	"This is a rockfs mount of a TheRock artifact store (read-only).\n"
	"\n"
	"  <run>/                 one CI run, {run_id}-{platform} or local-{platform}\n"
	"                         (under {owner}-{repo}/ for runs of other repositories);\n"
	"                         <run>/README says what CI stored in it and what rockfs\n"
	"                         makes. Other folders and files of the store are passed\n"
	"                         through as they are\n"
	"  <run>/artifacts/       the stored archives (.tar.zst / .tar.xz) and their\n"
	"                         .sha256sum sidecars, passed through unchanged\n"
	"  <run>/logs/, manifests/ and any other folder CI stored in the run: as stored\n"
	"                         (read-only); a stored file wins over a made one of its\n"
	"                         name in tarballs/, packages/ and python/ (PROVENANCE)\n"
	"  <run>/browse/<name>/   the contents of one artifact archive, prefixes kept;\n"
	"                         the archive is decompressed once, on first access, into\n"
	"                         the local cache, and files appear as they are written\n";
static const char readme_empty[] =
	"THIS STORE WAS EMPTY WHEN MOUNTED: its directory held no CI run\n"
	"({run_id}-{platform} directories of artifact archives), nor archives of one\n"
	"run. Check the STORE argument of the mount (rockfs(8)); runs published later\n"
	"appear in this directory as they come (-o list_ttl).\n"
	"\n";
static const char readme_tail[] =
	"\n"
	"Nothing is downloaded or decompressed until you read inside browse/.\n"
	"A corrupt archive makes its browse directory fail with EIO (see the daemon log);\n"
	"everything else keeps working. Unmount with: fusermount3 -u <mountpoint>\n"
	"More: man rockfs (the daemon), man rockpack (the same views without FUSE),\n"
	"and README.md and docs/ in the rockfs source tree.\n";

/* ---- population ---- */

/* The README of the mount's root; empty: the store holds no run (the daemon also said so
 * in its log when it mounted). */
static int add_readme(struct rk_vfs *v, struct node *dir, int empty)
{
	struct rk_buf b = RK_BUF_INIT;
	struct node *n;
	int rc = empty ? rk_buf_adds(&b, readme_empty) : 0;

	if (!rc)
		rc = rk_buf_adds(&b, readme_head);
	for (size_t i = 0; !rc && i < vfs_nviews; i++)
		rc = rk_buf_adds(&b, vfs_views[i]->readme);
	if (!rc)
		rc = rk_buf_adds(&b, readme_tail);
	if (rc) {
		rk_buf_release(&b);
		return rc;
	}
	pthread_rwlock_wrlock(&v->tree);
	n = served_add(v, dir, "README", S_IFREG | 0444, v->mount_time);
	if (!n || !(n->data = rk_buf_detach(&b, NULL)))
		rc = -ENOMEM;
	else {
		n->src = SRC_BYTES;
		n->size = strlen(n->data);
	}
	pthread_rwlock_unlock(&v->tree);
	rk_buf_release(&b);
	return rc;
}

static uint64_t now_ms(void);

static int pop_artifact(struct rk_vfs *v, struct node *dir, struct rk_err *err)
{
	(void)err;
	return vfs_artifact_start(v, dir->artifact);
}

int pop_run(struct rk_vfs *v, struct node *dir, struct rk_err *err)
{
	const char *name =
		dir->ino == RK_ROOT_INO ? strrchr(rk_store_id(v->store), '/') + 1 : dir->name;
	struct node *arts, *browse;
	struct rk_run *cat;
	struct run *r;
	int64_t newest;
	int rc;

	if ((rc = rk_run_load(v->store, dir->ctx ? dir->ctx : "", name, &cat, err)))
		return rc;
	r = calloc(1, sizeof(*r));
	if (!r || !(r->artifacts = calloc(cat->narts + 1, sizeof(*r->artifacts))) ||
	    !(r->vstate = calloc(vfs_nviews + 1, sizeof(*r->vstate)))) {
		if (r)
			free(r->artifacts);
		free(r);
		rk_run_free(cat);
		return -ENOMEM;
	}
	r->cat = cat;
	r->forget_used = -1;
	/* a local run's folders are read live: what refresh_run compares is made now */
	r->sig_ok = v->list_ttl_ms && dir->parent && !rk_store_is_remote(rk_store_id(v->store)) &&
		    !rk_run_tree_sig(v->store, cat, &r->sig, NULL);
	dir->listed_ms = now_ms();
	pthread_mutex_lock(&v->wait_lock);
	r->next = v->runs;
	v->runs = r;
	v->n_runs++;
	pthread_mutex_unlock(&v->wait_lock);

	newest = listing_newest(&cat->files);
	if (listing_newest(&cat->dirs) > newest)
		newest = listing_newest(&cat->dirs);
	pthread_rwlock_wrlock(&v->tree);
	if (dir->dropped) /* its tree was dropped: built again from the listing and the cache */
		v->n_rebuilt++;
	dir->run = r;
	r->used_s = mono_s();
	if (newest > 0) /* looked up before its parent's walk: the newest object's time */
		dir->mtime = newest;
	r->dir = dir;
	arts = served_lazy_dir(v, dir, "artifacts", NULL, dir->mtime);
	browse = served_lazy_dir(v, dir, "browse", NULL, dir->mtime);
	rc = arts && browse ? 0 : -ENOMEM;
	for (size_t i = 0; !rc && i < vfs_nviews; i++) {
		struct node *vd;

		if (vfs_views[i]->place != VFS_VIEW_RUN || !vfs_views[i]->shown(cat))
			continue;
		vd = served_lazy_dir(v, dir, vfs_views[i]->name, vfs_views[i]->populate,
				     dir->mtime);
		if (vd)
			vd->miss = vfs_views[i]->miss;
		else
			rc = -ENOMEM;
	}
	for (size_t i = 0; !rc && i < cat->files.n; i++) {
		const struct rk_store_entry *f = &cat->files.v[i];
		struct node *n;

		if (f->is_dir)
			continue;
		n = served_add(v, arts, f->name, S_IFREG | 0444, f->mtime);
		if (!n) {
			rc = -ENOMEM;
			break;
		}
		n->src = SRC_STORE;
		n->size = f->size;
		if (!(n->data = join_path(cat->path, f->name)))
			rc = -ENOMEM;
	}
	/* the run's stored folders that no view lays its files over: as stored */
	for (size_t i = 0; !rc && i < cat->dirs.n; i++) {
		const struct rk_store_entry *e = &cat->dirs.v[i];
		struct node *n;

		/* a view's name: tarballs/, packages/ and python/ lay the stored files over
		 * theirs (vfs_run_stored_over); TheRock stores no folder named like another */
		if (vfs_dent_find(dir, e->name))
			continue;
		n = served_lazy_dir(v, dir, e->name, vfs_pop_stored, e->mtime);
		if (!n || !(n->ctx = join_path(cat->path, e->name)))
			rc = -ENOMEM;
	}
	for (size_t i = 0; !rc && i < cat->narts; i++) {
		struct artifact *a = &r->artifacts[i];

		a->v = v;
		a->run = r;
		a->art = &cat->arts[i];
		vfs_artifact_init(a);
		a->root = served_lazy_dir(v, browse, cat->arts[i].stem, pop_artifact,
					  cat->arts[i].mtime_ns / 1000000000);
		if (!a->root) {
			rc = -ENOMEM;
			break;
		}
		a->root->mode = S_IFDIR | 0755;
		a->root->artifact = a;
	}
	pthread_rwlock_unlock(&v->tree);
	return rc ? rc : run_readme(v, dir, cat);
}

static int looks_like_org(const char *name)
{
	return name[0] != '.' && strchr(name, '-') && !rk_run_name_valid(name);
}

/* What a directory entry of the store (or of an org) is under the mount: a run, an org
 * (at the top only: {owner}-{repo}/, a plain prefix when it holds no run), any other
 * folder passed through as stored, or nothing (a file: vfs_stored_files). */
static vfs_pop_fn pop_kind(const struct rk_store_entry *e, int top)
{
	if (!e->is_dir)
		return NULL;
	if (rk_run_name_valid(e->name))
		return pop_run;
	return top && looks_like_org(e->name) ? pop_org : vfs_pop_stored;
}

/* Whether the store (listing l of its root) is one run: it holds archives, or its name
 * is a run's and it holds CI's logs/ and no run (a failed build uploads its logs only). */
static int store_is_run(struct rk_vfs *v, const struct rk_store_list *l)
{
	const char *slash = strrchr(rk_store_id(v->store), '/');
	int logs = 0;

	if (rk_listing_has_artifacts(l))
		return 1;
	if (!slash || !rk_run_name_valid(slash + 1))
		return 0;
	for (size_t i = 0; i < l->n; i++) {
		if (pop_kind(&l->v[i], 1) == pop_run || pop_kind(&l->v[i], 1) == pop_org)
			return 0;
		logs |= l->v[i].is_dir && !strcmp(l->v[i].name, "logs");
	}
	return logs;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The run and org directories of listing l that dir does not have yet, as lazy
 * directories; *added counts them (NULL ok: the first listing), *runs gets the new runs
 * (malloc'd, *nruns of them) for walk_later. An entry without a time (an S3 common prefix)
 * has the mount's until its walk. A listing again that adds entries moves dir's mtime on
 * (a second at least): the kernel compares it with the mtime of the listing it cached,
 * and drops that listing when they differ. */
static int add_listed(struct rk_vfs *v, struct node *dir, const char *path, int top,
		      const struct rk_store_list *l, unsigned *added, struct node ***runs,
		      size_t *nruns)
{
	int64_t now = time(NULL);
	int rc = 0;

	*nruns = 0;
	if (!(*runs = calloc(l->n + 1, sizeof(**runs))))
		return -ENOMEM;
	pthread_rwlock_wrlock(&v->tree);
	for (size_t i = 0; !rc && i < l->n; i++) {
		const char *name = l->v[i].name;
		vfs_pop_fn kind = pop_kind(&l->v[i], top);
		struct node *n;

		if (!kind || vfs_dent_find(dir, name))
			continue;
		n = served_lazy_dir(v, dir, name, kind,
				    l->v[i].mtime > 0 ? l->v[i].mtime : v->mount_time);
		if (!n || !(n->ctx = join_path(path, name))) {
			rc = -ENOMEM;
		} else {
			n->lists_runs = kind == pop_org;
			if (kind == pop_run)
				(*runs)[(*nruns)++] = n;
			if (added)
				(*added)++;
		}
	}
	if (added && *added)
		dir->mtime = dir->mtime < now ? now : dir->mtime + 1;
	pthread_rwlock_unlock(&v->tree);
	return rc;
}

/* Whether a listing made at listed_ms is due again: list_ttl has (about) passed. The
 * kernel asks again once the entry or attributes it got with that listing time out
 * (list_ttl after the reply, which comes a little after listed_ms): a strict comparison
 * would find it a hair too young then and wait a second list_ttl. */
static int ttl_passed(const struct rk_vfs *v, uint64_t listed_ms)
{
	return now_ms() - listed_ms + v->list_ttl_ms / 8 >= v->list_ttl_ms;
}

/* Log the entries of listing l that a store view's directory in dir hides (once). */
static void log_hidden(struct rk_vfs *v, struct node *dir, const char *path, int top,
		       const struct rk_store_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		if (pop_kind(&l->v[i], top))
			store_views_hides(v, dir, path, l->v[i].name);
}

static int pop_dirs(struct rk_vfs *v, struct node *dir, const char *path, int top,
		    struct rk_err *err)
{
	struct rk_store_list l;
	struct node **runs = NULL;
	size_t nruns = 0;
	int rc = rk_store_list(v->store, path, &l, err), has_run = 0;

	if (rc)
		return rc;
	if (top && store_is_run(v, &l)) {
		rk_store_list_release(&l);
		if ((rc = add_readme(v, dir, 0)))
			return rc;
		return pop_run(v, dir, err);
	}
	for (size_t i = 0; top && i < l.n; i++)
		if (pop_kind(&l.v[i], top) == pop_run || pop_kind(&l.v[i], top) == pop_org)
			top = 2; /* not empty */
	for (size_t i = 0; !top && i < l.n && !has_run; i++)
		has_run = pop_kind(&l.v[i], top) == pop_run;
	if ((top && (rc = add_readme(v, dir, top == 1))) ||
	    ((top || has_run) && (rc = store_views_add(v, dir))) ||
	    (rc = vfs_stored_files(v, dir, path, &l))) {
		rk_store_list_release(&l);
		return rc;
	}
	log_hidden(v, dir, path, top, &l);
	rc = add_listed(v, dir, path, top, &l, NULL, &runs, &nruns);
	rk_store_list_release(&l);
	if (!rc)
		rc = walk_later(v, dir, runs, nruns);
	else
		free(runs);
	dir->listed_ms = now_ms();
	return rc;
}

int pop_org(struct rk_vfs *v, struct node *dir, struct rk_err *err)
{
	return pop_dirs(v, dir, dir->ctx, 0, err);
}

int pop_root(struct rk_vfs *v, struct node *dir, struct rk_err *err)
{
	return pop_dirs(v, dir, "", 1, err);
}

/* A directory listing runs of the store (its root, {owner}-{repo}/) lists the store again
 * when its listing is older than list_ttl, adding the runs published since (runs are
 * never taken away: an open file or a cwd may be in one). Returns 1 when dir gained
 * entries, else 0; a failure to list is logged and changes nothing. */
int refresh_listing(struct rk_vfs *v, struct node *dir)
{
	struct rk_err err = RK_ERR_INIT;
	struct rk_store_list l;
	struct node **runs = NULL;
	size_t nruns = 0;
	unsigned added = 0;
	int rc, top = !dir->parent;
	const char *path = top ? "" : dir->ctx;

	if (!v->list_ttl_ms || !dir->lists_runs)
		return 0;
	pthread_mutex_lock(&v->wait_lock);
	rc = dir->pop_state == PS_DONE && !dir->pop_rc;
	pthread_mutex_unlock(&v->wait_lock);
	if (!rc || dir->run) /* not listed yet (its first populate lists it), or a run */
		return 0;
	pthread_mutex_lock(&v->refresh_lock);
	if (!ttl_passed(v, dir->listed_ms)) {
		pthread_mutex_unlock(&v->refresh_lock);
		return 0;
	}
	rk_store_forget(v->store, path);
	rc = rk_store_list(v->store, path, &l, &err);
	if (!rc) {
		log_hidden(v, dir, path, top, &l);
		rc = add_listed(v, dir, path, top, &l, &added, &runs, &nruns);
		rk_store_list_release(&l);
	}
	if (!rc) /* the new runs: listed by the next readdir of dir */
		rc = walk_later(v, dir, runs, nruns);
	else
		free(runs);
	dir->listed_ms = now_ms(); /* a failure too: list_ttl bounds the requests */
	pthread_mutex_unlock(&v->refresh_lock);
	if (rc)
		rk_warn("'%s': listing the store again: %s", path[0] ? path : "/",
			rk_err_str(&err, rc));
	else if (added)
		rk_info("'%s': %u new run%s", path[0] ? path : "/", added, added > 1 ? "s" : "");
	return added > 0;
}

/* A store view's directory n of dir that follows the runs (vfs_renew_dir), looked up
 * after list_ttl: the store directory it is in is listed again when due, and when its
 * mtime moved since the last lookup (a run was added, or served anew: refresh_run), a
 * new, unpopulated node takes n's name (a new inode: its entry's short timeout makes the
 * kernel look the name up again; the old tree stays for what is open in it). Returns
 * the node that has the name now. */
struct node *renew_dir(struct rk_vfs *v, struct node *dir, struct node *n)
{
	struct node *sd = store_dir(dir), *now;
	int64_t seen;
	int done;

	if (!v->list_ttl_ms || !sd)
		return n;
	refresh_listing(v, sd);
	pthread_mutex_lock(&v->refresh_lock);
	pthread_rwlock_rdlock(&v->tree);
	now = vfs_dent_find(dir, n->name);
	seen = sd->mtime;
	pthread_rwlock_unlock(&v->tree);
	pthread_mutex_lock(&v->wait_lock);
	done = n->pop_state != PS_TODO;
	pthread_mutex_unlock(&v->wait_lock);
	if (now != n || n->renew_seen < 0 || n->renew_seen == seen || !done) {
		if (now == n)
			n->renew_seen = seen;
		pthread_mutex_unlock(&v->refresh_lock);
		return now ? now : n;
	}
	pthread_rwlock_wrlock(&v->tree);
	now = served_new(v, dir, n->name, n->mode, n->mtime);
	if (now) {
		now->pop = n->pop;
		now->pop_state = PS_TODO;
		now->renew = 1;
		now->renew_seen = seen;
		vfs_dent_set(dir, n->name, now);
		dir->mtime++; /* the kernel drops its cached listing of dir */
	}
	pthread_rwlock_unlock(&v->tree);
	pthread_mutex_unlock(&v->refresh_lock);
	if (now)
		rk_info("'%s': the store lists other runs: made anew", n->name);
	return now ? now : n;
}

/* Whether the store lost files of run r while it was served: its listing found it gone,
 * or one of its artifacts failed because a file of it was missing (-ENOENT: the run was
 * moved away, or a file deleted). What was made meanwhile (failed artifacts, views built
 * without them) is wrong once the files are back. */
static int run_lost_files(struct rk_vfs *v, const struct run *r)
{
	int lost = r->gone;

	pthread_mutex_lock(&v->wait_lock);
	for (size_t i = 0; !lost && i < r->cat->narts; i++)
		lost = r->artifacts[i].state == ART_FAILED && r->artifacts[i].rc == -ENOENT;
	pthread_mutex_unlock(&v->wait_lock);
	return lost;
}

/* A populated run directory n of dir whose listing is older than list_ttl asks the
 * store whether the run may have changed (a run still being uploaded, or one `rockpack
 * cache refresh` was run for) and, if so, lists it again (a run not populated yet is
 * listed by its populate). When its files differ, or the store had lost some of them
 * (run_lost_files) and has them again, the run is served anew: a new, unpopulated node
 * takes its name (a new inode: its entry's short timeout makes the kernel look the name
 * up again), and the old tree stays for the files and working directories still in
 * it. Returns the node that has the name now. */
struct node *refresh_run(struct rk_vfs *v, struct node *dir, struct node *n)
{
	struct rk_err err = RK_ERR_INIT;
	struct rk_run *cat = NULL;
	struct node *now;
	struct run *r;
	uint64_t sig = 0;
	int rc, lost = 0, moved = 0;

	pthread_rwlock_rdlock(&v->tree);
	r = n->run;
	pthread_rwlock_unlock(&v->tree);
	if (!v->list_ttl_ms || !r || !n->parent)
		return n;
	pthread_mutex_lock(&v->refresh_lock);
	pthread_rwlock_rdlock(&v->tree);
	now = vfs_dent_find(dir, n->name);
	pthread_rwlock_unlock(&v->tree);
	/* what the run held below its top (python/, logs/), from the listings the store
	 * still remembers of it (S3: all of them, from the run's one listing sequence):
	 * made at the first look, before rk_store_run_stale drops them; not at populate,
	 * where an HTTP store would list (and HEAD) every folder of every run */
	if (now == n && !r->sig_ok && ttl_passed(v, n->listed_ms))
		r->sig_ok = !rk_run_tree_sig(v->store, r->cat, &r->sig, NULL);
	if (now != n || !ttl_passed(v, n->listed_ms) ||
	    !rk_store_run_stale(v->store, r->cat->path)) {
		if (now == n && ttl_passed(v, n->listed_ms))
			n->listed_ms = now_ms(); /* asked: final, not changed */
		pthread_mutex_unlock(&v->refresh_lock);
		return now ? now : n;
	}
	n->listed_ms = now_ms(); /* a failure too: list_ttl bounds the requests */
	rc = rk_run_load(v->store, r->cat->path, r->cat->name, &cat, &err);
	if (rc == -ENOENT)
		r->gone = 1;
	if (!rc)
		lost = run_lost_files(v, r);
	/* a file added below the run's top (python/, logs/) */
	if (!rc && r->sig_ok && rk_run_same(r->cat, cat))
		moved = !rk_run_tree_sig(v->store, cat, &sig, NULL) && sig != r->sig;
	if (!rc && (lost || moved || !rk_run_same(r->cat, cat))) {
		pthread_rwlock_wrlock(&v->tree);
		now = served_new(v, dir, n->name, S_IFDIR | 0555, n->mtime);
		if (now && (now->ctx = strdup(n->ctx))) {
			now->pop = pop_run;
			now->pop_state = PS_TODO;
			vfs_dent_set(dir, n->name, now);
			dir->mtime++; /* the kernel drops its cached listing of dir */
		} else {
			now = NULL; /* a node made is freed with the inode table */
			rc = -ENOMEM;
		}
		pthread_rwlock_unlock(&v->tree);
		if (now && lost)
			rk_info("run '%s': the store has the files it had lost again; served anew",
				r->cat->path);
		else if (now && moved)
			rk_info("run '%s': files below it changed (%zu artifact%s); served anew",
				r->cat->path, cat->narts, cat->narts == 1 ? "" : "s");
		else if (now)
			rk_info("run '%s': its listing changed (%zu artifact%s, was %zu); served "
				"anew",
				r->cat->path, cat->narts, cat->narts == 1 ? "" : "s",
				r->cat->narts);
	}
	pthread_mutex_unlock(&v->refresh_lock);
	rk_run_free(cat);
	if (rc)
		rk_warn("run '%s': listing it again: %s", r->cat->path, rk_err_str(&err, rc));
	return now ? now : n;
}

/* n's path from the mount's root ("RUN/dist/gfx1100"), for log lines. */
void node_path(struct rk_vfs *v, const struct node *n, char *buf, size_t size)
{
	const struct node *p;
	size_t len = 0, need;

	pthread_rwlock_rdlock(&v->tree);
	for (p = n; p && p->parent; p = p->parent)
		len += strlen(p->name) + (len ? 1 : 0);
	if (len >= size) { /* too deep for buf: the name alone */
		snprintf(buf, size, "%s", n->name);
	} else {
		buf[len] = 0;
		for (p = n; p && p->parent; p = p->parent) {
			need = strlen(p->name);
			len -= need;
			memcpy(buf + len, p->name, need);
			if (len)
				buf[--len] = '/';
		}
	}
	pthread_rwlock_unlock(&v->tree);
}

int vfs_populate(struct rk_vfs *v, struct node *n, struct rk_err *err)
{
	struct rk_err local = RK_ERR_INIT; /* the log line needs the cause */
	int rc, waited = 0, transient;

	if (!err)
		err = &local;

	pthread_mutex_lock(&v->wait_lock);
	while (n->pop_state == PS_RUNNING) {
		pthread_cond_wait(&v->wait_cond, &v->wait_lock);
		waited = 1;
	}
	/* a transient failure (network, disk full) is final only for those who waited for
	 * that attempt */
	if (n->pop_state == PS_DONE && (!n->pop_transient || waited)) {
		rc = n->pop_rc;
		pthread_mutex_unlock(&v->wait_lock);
		return rc && rc != -ENOMEM
			       ? rk_err_set(err, rc, "'%s': unavailable (see log)", n->name)
			       : rc;
	}
	n->pop_state = PS_RUNNING;
	pthread_mutex_unlock(&v->wait_lock);

	if (n->pop) {
		const char *outer = rk_log_where;
		char where[1024];

		node_path(v, n, where, sizeof(where));
		rk_log_where = where;
		rc = n->pop(v, n, err);
		rk_log_where = outer;
		if (rc && rc != -ENOMEM) {
			const char *cause = rk_err_str(err, rc);

			rk_log_where = NULL;
			if (strncmp(cause, where, strlen(where)))
				rk_err_log("'%s': %s", where, cause);
			else
				rk_err_log("%s", cause);
			rk_log_where = outer;
		}
	} else {
		rc = 0;
	}
	transient = rk_err_transient(rc);
	if (rc && rc != -ENOMEM) {
		if (!transient) /* a transient code is kept: a populate calling this one fails */
			rc = -EIO; /* transiently too (dist/.rockfs/ over dist/X/) */
	}
	pthread_mutex_lock(&v->wait_lock);
	n->pop_state = PS_DONE;
	n->pop_rc = rc;
	n->pop_transient = (uint8_t)transient;
	pthread_cond_broadcast(&v->wait_cond);
	pthread_mutex_unlock(&v->wait_lock);
	return rc;
}
