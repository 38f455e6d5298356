/* test_store_view.c: the store-level view contract (struct vfs_view.place VFS_VIEW_STORE)
 * with a minimal view registered for these tests only (vfs_test_store_views): its
 * directory at the root and in each {owner}-{repo}/, populated once and lazily, with the
 * runs it sees, its per-store state freed at unmount, and its name kept over a store
 * entry of the same name. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk/log.h"
#include "rk/vfs.h"
#include "rk_fixture.h"
#include "rk_test.h"

#include "engine/vfs_int.h"

static const struct fx_member small[] = {
	FX_MANIFEST("s/stage\n"),
	{FX_FILE, "s/stage/hello.txt", "hello\n", -1, 0644},
};

/* What the test view did, and the state it keeps per store directory. */
static int n_populated, n_stopped, n_freed;
struct spans_state {
	size_t runs;
};

static int spans_populate(struct rk_vfs *v, struct node *dir, struct rk_err *err);

static void spans_stop(void *state)
{
	(void)state;
	n_stopped++;
}

static void spans_free(void *state)
{
	free(state);
	n_freed++;
}

/* Lists each run of its store directory as an empty directory. */
static const struct vfs_view spans_view = {
	.name = "spans",
	.readme = "",
	.populate = spans_populate,
	.stop = spans_stop,
	.free = spans_free,
	.place = VFS_VIEW_STORE,
};

/* The same with a name an org directory can have. */
static const struct vfs_view org_named_view = {
	.name = "ROCm-TheRock",
	.readme = "",
	.populate = spans_populate,
	.place = VFS_VIEW_STORE,
};

static int spans_populate(struct rk_vfs *v, struct node *dir, struct rk_err *err)
{
	void **slot = vfs_store_state(v, dir, &spans_view);
	struct spans_state *st;
	struct node *root;
	char **names = NULL;
	size_t n = 0;
	int rc;

	if ((rc = vfs_store_runs(v, dir, &names, &n, err)))
		return rc;
	root = vfs_tree_new("", S_IFDIR | 0555, 0);
	RK_ASSERT(root);
	for (size_t i = 0; i < n; i++) {
		RK_ASSERT(vfs_node_add(root, names[i], S_IFDIR | 0555, 0));
		free(names[i]);
	}
	free(names);
	n_populated++;
	if (slot) { /* spans_view (org_named_view keeps no state) */
		RK_ASSERT(!*slot); /* once per store directory */
		st = calloc(1, sizeof(*st));
		RK_ASSERT(st);
		st->runs = n;
		*slot = st;
	}
	return vfs_graft(v, dir, root);
}

/* store/100-linux, store/200-linux, store/ROCm-TheRock/300-windows. */
static void make_store(void)
{
	fx_tar("store/100-linux/small_lib_generic.tar.zst", FX_ZSTD, small, 2);
	fx_tar("store/200-linux/small_lib_generic.tar.zst", FX_ZSTD, small, 2);
	fx_tar("store/ROCm-TheRock/300-windows/small_lib_generic.tar.zst", FX_ZSTD, small, 2);
}

static struct rk_vfs *open_with(const struct vfs_view *const *views, size_t n, unsigned ttl)
{
	struct rk_vfs_opts o = {
		.store = "store", .cache_dir = "cache", .ingest_jobs = 1, .list_ttl_s = ttl};
	struct rk_vfs *v;

	n_populated = n_stopped = n_freed = 0;
	vfs_test_store_views(views, n);
	v = fx_vfs_open(&o);
	vfs_test_store_views(NULL, 0);
	return v;
}

struct listing {
	char names[16][64];
	size_t n;
};

static int fill(void *ctx, const char *name, const struct rk_attr *a, uint64_t next)
{
	struct listing *l = ctx;

	(void)a;
	(void)next;
	if (l->n < 16)
		snprintf(l->names[l->n], sizeof(l->names[0]), "%s", name);
	l->n++;
	return 0;
}

/* path's entries, "a b c" (listing order). */
static const char *list(struct rk_vfs *v, const char *path)
{
	static char out[1024];
	struct listing l = {0};
	struct rk_attr a = fx_resolve(v, path);
	size_t len = 0;

	RK_ASSERT_EQ_INT(0, rk_vfs_readdir(v, a.ino, 0, fill, &l, NULL));
	out[0] = '\0';
	for (size_t i = 0; i < l.n && i < 16; i++)
		len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%s", i ? " " : "",
					l.names[i]);
	return out;
}

static const struct vfs_view *const spans_only[] = {&spans_view};

RK_TEST(lazy_once_per_store_and_freed)
{
	struct rk_vfs *v;
	struct rk_attr a;
	char **runs;
	size_t n;

	make_store();
	v = open_with(spans_only, 1, 0);
	RK_ASSERT_EQ_STR("README release spans 100-linux 200-linux ROCm-TheRock", list(v, ""));
	RK_ASSERT_EQ_INT(0, n_populated); /* listed, not populated */
	a = fx_resolve(v, "spans");
	RK_ASSERT(S_ISDIR(a.mode));
	RK_ASSERT_EQ_INT(0, n_populated); /* a lookup does not populate either */
	RK_ASSERT_EQ_STR("100-linux 200-linux", list(v, "spans"));
	RK_ASSERT_EQ_INT(1, n_populated);
	RK_ASSERT_EQ_STR("100-linux 200-linux", list(v, "spans"));
	RK_ASSERT(S_ISDIR(fx_resolve(v, "spans/200-linux").mode));
	RK_ASSERT_EQ_INT(1, n_populated); /* once */
	/* each {owner}-{repo}/ has its own, with its own runs */
	RK_ASSERT_EQ_STR("release spans 300-windows", list(v, "ROCm-TheRock"));
	RK_ASSERT_EQ_INT(1, n_populated);
	RK_ASSERT_EQ_STR("300-windows", list(v, "ROCm-TheRock/spans"));
	RK_ASSERT_EQ_INT(2, n_populated);
	/* runs are still runs only */
	RK_ASSERT_EQ_INT(0, rk_vfs_list_runs(v, &runs, &n, NULL));
	RK_ASSERT_EQ_INT(3, n);
	RK_ASSERT_EQ_STR("100-linux", runs[0]);
	RK_ASSERT_EQ_STR("ROCm-TheRock/300-windows", runs[2]);
	for (size_t i = 0; i < n; i++)
		free(runs[i]);
	free(runs);
	RK_ASSERT_EQ_INT(-ENOENT, rk_vfs_run(v, "spans", &(const struct rk_run *){NULL}, NULL));
	fx_vfs_close(v);
	RK_ASSERT_EQ_INT(2, n_stopped);
	RK_ASSERT_EQ_INT(2, n_freed);
}

RK_TEST(not_populated_not_freed)
{
	struct rk_vfs *v;

	make_store();
	v = open_with(spans_only, 1, 0);
	RK_ASSERT_EQ_STR("100-linux 200-linux", list(v, "spans"));
	fx_vfs_close(v);
	RK_ASSERT_EQ_INT(1, n_populated); /* the org's was never needed */
	RK_ASSERT_EQ_INT(1, n_freed);
}

RK_TEST(no_store_view_no_directory)
{
	struct rk_vfs *v;

	make_store();
	v = open_with(NULL, 0, 0);
	RK_ASSERT_EQ_STR("README release 100-linux 200-linux ROCm-TheRock", list(v, ""));
	RK_ASSERT_EQ_STR("release 300-windows", list(v, "ROCm-TheRock"));
	fx_vfs_close(v);
}

/* A single-run store's root is the run: no store view there. */
RK_TEST(single_run_root_has_none)
{
	struct rk_vfs *v;
	struct rk_vfs_opts o = {.store = "store/100-linux", .cache_dir = "cache"};

	make_store();
	vfs_test_store_views(spans_only, 1);
	v = fx_vfs_open(&o);
	vfs_test_store_views(NULL, 0);
	RK_ASSERT_EQ_INT(-ENOENT, rk_vfs_resolve(v, "spans", &(struct rk_attr){0}, NULL));
	fx_vfs_close(v);
}

/* A run published while mounted joins the root's listing once; the view's directory
 * stays one entry, and a view populated after that sees the run. */
RK_TEST(live_refresh_keeps_one_view_directory)
{
	struct rk_vfs *v;

	make_store();
	v = open_with(spans_only, 1, 1);
	RK_ASSERT_EQ_STR("README release spans 100-linux 200-linux ROCm-TheRock", list(v, ""));
	fx_tar("store/400-linux/small_lib_generic.tar.zst", FX_ZSTD, small, 2);
	usleep(1100 * 1000);
	RK_ASSERT_EQ_INT(1, rk_vfs_refresh(v, RK_ROOT_INO));
	RK_ASSERT_EQ_STR("README release spans 100-linux 200-linux ROCm-TheRock 400-linux", list(v, ""));
	RK_ASSERT_EQ_STR("100-linux 200-linux 400-linux", list(v, "spans"));
	fx_vfs_close(v);
}

static int warned;
static void count_warn(enum rk_log_level level, const char *msg)
{
	if (level == RK_LOG_WARN && strstr(msg, "the store view ROCm-TheRock/ has its name"))
		warned++;
}

/* A store view's name keeps its directory: the org of that name is not listed, and that
 * is logged once, not at every listing again. */
RK_TEST(view_name_wins_logged_once)
{
	static const struct vfs_view *const views[] = {&org_named_view};
	struct rk_vfs *v;
	int level = rk_log_level;

	make_store();
	v = open_with(views, 1, 1);
	rk_log_set_handler(count_warn);
	rk_log_level = RK_LOG_WARN;
	warned = 0;
	RK_ASSERT_EQ_STR("README release ROCm-TheRock 100-linux 200-linux", list(v, ""));
	RK_ASSERT_EQ_INT(1, warned);
	RK_ASSERT_EQ_STR("100-linux 200-linux", list(v, "ROCm-TheRock")); /* the view's */
	usleep(1100 * 1000);
	RK_ASSERT_EQ_INT(0, rk_vfs_refresh(v, RK_ROOT_INO));
	RK_ASSERT_EQ_INT(1, warned);
	rk_log_set_handler(NULL);
	rk_log_level = level;
	fx_vfs_close(v);
}

/* A store view named like a run (or README, or twice) is refused at open. */
RK_TEST(bad_names_refused)
{
	static const struct vfs_view run_named = {.name = "500-linux",
						  .readme = "",
						  .populate = spans_populate,
						  .place = VFS_VIEW_STORE};
	static const struct vfs_view readme_named = {.name = "README",
						     .readme = "",
						     .populate = spans_populate,
						     .place = VFS_VIEW_STORE};
	static const struct vfs_view *const bad[][2] = {
		{&run_named, NULL}, {&readme_named, NULL}, {&spans_view, &spans_view}};
	struct rk_vfs_opts o = {.store = "store", .cache_dir = "cache"};

	make_store();
	for (size_t i = 0; i < 3; i++) {
		struct rk_vfs *v = NULL;
		struct rk_err err = RK_ERR_INIT;

		vfs_test_store_views(bad[i], bad[i][1] ? 2 : 1);
		RK_ASSERT_EQ_INT(-EINVAL, rk_vfs_open(&o, &v, &err));
		vfs_test_store_views(NULL, 0);
		RK_ASSERT(!v);
		RK_ASSERT(strstr(err.msg, "store view"));
	}
}
