/* main.c: rockfs, the daemon: options, mount, loop, clean shutdown.
 *
 *   rockfs [options] STORE MOUNTPOINT
 *   mount -t fuse.rockfs STORE MOUNTPOINT -o cache=DIR,cache_size=20G
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include "rk/buf.h"
#include "rk/cache.h"
#include "rk/log.h"
#include "rk/size.h"
#include "rk/store.h"
#include "rk/url.h"
#include "rkfs.h"

#ifdef RKFS_HAVE_PASSTHROUGH
#define PT_BUILT "built in"
#else
#define PT_BUILT "not built in: libfuse 3.17 or later has it"
#endif

struct options {
	char *store;
	char *mnt; /* the mountpoint as given (libfuse parses it again) */
	char *cache;
	char *cache_size;
	char *memory_target;
	char *cache_group;
	char *jobs;
	char *endpoint, *region, *addressing;
	char *timeout, *retries, *list_ttl, *run_final_age;
	int offline, refresh, no_sign, nopassthrough;
	struct rk_vfs_opt view[64]; /* the views' options (-o NAME[=VALUE], rk/vfs.h), malloc'd
				     * name=value text */
	size_t nview;
	int allow_other; /* seen, and passed on to libfuse */
	int help, version;
};

enum { KEY_ALLOW_OTHER = 1 };

#define OPT(t, p)                                 \
	{                                         \
		t, offsetof(struct options, p), 1 \
	}
static const struct fuse_opt option_spec[] = {
	OPT("cache=%s", cache),
	OPT("cache_size=%s", cache_size),
	OPT("memory_target=%s", memory_target),
	OPT("cache_group=%s", cache_group),
	OPT("jobs=%s", jobs),
	OPT("endpoint=%s", endpoint),
	OPT("region=%s", region),
	OPT("addressing=%s", addressing),
	OPT("timeout=%s", timeout),
	OPT("list_ttl=%s", list_ttl),
	OPT("run_final_age=%s", run_final_age),
	OPT("retries=%s", retries),
	OPT("offline", offline),
	OPT("refresh", refresh),
	OPT("no_sign", no_sign),
	OPT("nopassthrough", nopassthrough),
	OPT("-h", help),
	OPT("--help", help),
	OPT("-V", version),
	OPT("--version", version),
	FUSE_OPT_KEY("allow_other", KEY_ALLOW_OTHER),
	FUSE_OPT_END,
};

/* -o NAME[=VALUE] that a view declares (rk_vfs_opt_find): kept for rk_vfs_open. 1 when
 * taken; 0 for any other (or too many). */
static int view_opt(struct options *o, const char *arg)
{
	struct rk_vfs_opt *vo = &o->view[o->nview];
	char *name, *eq;

	if (o->nview >= sizeof(o->view) / sizeof(o->view[0]) || !(name = strdup(arg)))
		return 0;
	if ((eq = strchr(name, '=')))
		*eq = '\0';
	if (!rk_vfs_opt_find(name)) {
		free(name);
		return 0;
	}
	vo->name = name; /* one allocation: name, then the value */
	vo->value = eq ? eq + 1 : NULL;
	o->nview++;
	return 1;
}

static int opt_proc(void *data, const char *arg, int key, struct fuse_args *outargs)
{
	struct options *o = data;

	(void)outargs;
	if (key == KEY_ALLOW_OTHER) {
		o->allow_other = 1;
		return 1; /* libfuse's option: keep it */
	}
	if (key == FUSE_OPT_KEY_NONOPT && !o->store) {
		o->store = strdup(arg);
		return 0;
	}
	if (key == FUSE_OPT_KEY_NONOPT && !o->mnt) {
		o->mnt = strdup(arg); /* checked before libfuse resolves it */
		return 1;
	}
	if (key == FUSE_OPT_KEY_OPT && view_opt(o, arg))
		return 0; /* a view's: rk_vfs_open checks it */
	return 1; /* libfuse's, or unknown: libfuse refuses it */
}

/* A numeric option: a whole number in [lo, hi] (unset: *out stays), else one line and -1. */
static int num_opt(const char *name, const char *s, unsigned lo, unsigned hi, unsigned *out)
{
	char *end;
	long long n;

	if (!s)
		return 0;
	errno = 0;
	n = strtoll(s, &end, 10);
	if (!*s || *end || errno || n < lo || n > hi) {
		fprintf(stderr, "rockfs: %s=%s: want a whole number from %u to %u\n", name, s, lo,
			hi);
		return -1;
	}
	*out = (unsigned)n;
	return 0;
}

/* A field of /proc/self/mountinfo, in place: the kernel writes ' ', '\t', '\n' and '\\'
 * as octal escapes ("\040"). */
static char *mountinfo_unescape(char *f)
{
	char *r = f, *w = f;

	while (*r) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 4;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
	return f;
}

/* Is there a rockfs mount of source (its fsname, "rockfs:STORE"; NULL: of any store) on
 * the directory real? */
static int mounted_here(const char *real, const char *source)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	int found = 0;

	if (!f)
		return 0; /* no /proc: libfuse decides */
	while (!found && getline(&line, &cap, f) > 0) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE ... */
		char *save = NULL, *tok, *mnt = NULL, *type = NULL, *src = NULL;
		int i = 0, dash = 0;

		for (tok = strtok_r(line, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
			if (!dash && i == 4)
				mnt = tok;
			else if (!dash && i > 5 && !strcmp(tok, "-"))
				dash = i;
			else if (dash && i == dash + 1)
				type = tok;
			else if (dash && i == dash + 2)
				src = tok;
			i++;
		}
		found = mnt && type && src && !strcmp(type, "fuse.rockfs") &&
			!strcmp(mountinfo_unescape(mnt), real) &&
			(!source || !strcmp(mountinfo_unescape(src), source));
	}
	free(line);
	fclose(f);
	return found;
}

/* mnt as the mount table spells it (absolute, no symlink), also when it is the root of a
 * dead mount that realpath cannot enter (ENOTCONN): its parent resolved, then its name.
 * malloc'd, or NULL with errno set. */
static char *mount_path(const char *mnt)
{
	char *real = realpath(mnt, NULL), *path, *name, *parent;
	size_t n;

	if (real || errno != ENOTCONN || !(path = strdup(mnt)))
		return real;
	for (n = strlen(path); n > 1 && path[n - 1] == '/';)
		path[--n] = '\0';
	name = strrchr(path, '/');
	if (name)
		*name++ = '\0';
	parent = realpath(!name ? "." : path[0] ? path : "/", NULL);
	if (parent && asprintf(&real, "%s%s%s", parent, strcmp(parent, "/") ? "/" : "",
			       name ? name : path) < 0)
		real = NULL;
	free(parent);
	free(path);
	if (!real)
		errno = ENOMEM;
	return real;
}

/* `fusermount3 -u -z -- path`: the unprivileged way to detach a FUSE mount of our user.
 * 0 when it exited 0. */
static int run_fusermount(const char *path)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (!pid) {
		execlp("fusermount3", "fusermount3", "-u", "-z", "--", path, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

/* A rockfs mount on the directory real whose daemon is gone (killed: the kernel answers
 * every request with ENOTCONN, "Transport endpoint is not connected") serves nothing
 * and never will: detach it lazily, as `fusermount3 -u -z` does, with one log line, so
 * that the new mount goes on. 0 (detached, or nothing dead there), or one line on
 * stderr and -1. */
static int detach_dead(const char *real)
{
	struct statfs sf;

	if (!mounted_here(real, NULL) || !statfs(real, &sf) || errno != ENOTCONN)
		return 0;
	if (umount2(real, MNT_DETACH) && (errno != EPERM || run_fusermount(real))) {
		fprintf(stderr,
			"rockfs: mountpoint '%s': a rockfs mount whose daemon is gone (Transport "
			"endpoint is not connected), and it cannot be detached: %s\n",
			real, strerror(errno));
		return -1;
	}
	rk_warn("mountpoint '%s': the rockfs mount on it had lost its daemon (Transport "
		"endpoint is not connected); detached it, as fusermount3 -u -z would",
		real);
	return 0;
}

/* The mountpoint, at the door: an existing directory, without a rockfs mount of this
 * store on it already (libfuse would stack a second one); a dead rockfs mount on it is
 * detached first. "/dev/fd/N" (a /dev/fuse descriptor mount.fuse3 opened) is not a
 * path. 0, or one line on stderr and -1. */
static int check_mountpoint(const char *mnt, const char *source)
{
	char *real;
	struct stat st;
	int dup;

	if (!strncmp(mnt, "/dev/fd/", 8))
		return 0;
	if (stat(mnt, &st) && errno == ENOTCONN && (real = mount_path(mnt))) {
		dup = detach_dead(real);
		free(real);
		if (dup)
			return -1;
	}
	if (stat(mnt, &st)) {
		fprintf(stderr, "rockfs: mountpoint '%s': %s\n", mnt,
			errno == ENOENT ? "does not exist" : strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "rockfs: mountpoint '%s': not a directory\n", mnt);
		return -1;
	}
	if (!source)
		return 0;
	if (!(real = realpath(mnt, NULL))) {
		fprintf(stderr, "rockfs: mountpoint '%s': %s\n", mnt, strerror(errno));
		return -1;
	}
	if (detach_dead(real)) {
		free(real);
		return -1;
	}
	dup = mounted_here(real, source);
	free(real);
	if (dup) {
		fprintf(stderr, "rockfs: mountpoint '%s': already holds a rockfs mount of '%s'\n",
			mnt, source + strlen("rockfs:"));
		return -1;
	}
	return 0;
}

/* One view option in usage(): "-o NAME[=ARG]", then its help wrapped in a column. */
static void usage_opt(const struct rk_vfs_opt_decl *d)
{
	enum { COL = 27, WIDTH = 86 };
	int n = printf("    -o %s%s%s", d->name, d->arg ? "=" : "", d->arg ? d->arg : "");
	const char *p = d->help;

	if (n > COL - 2) {
		printf("\n");
		n = 0;
	}
	while (*p) {
		size_t w = strcspn(p, " ");

		if (n > COL && n + 1 + (int)w > WIDTH) {
			printf("\n");
			n = 0;
		}
		n += n < COL ? printf("%*s%.*s", COL - n, "", (int)w, p)
			     : printf(" %.*s", (int)w, p);
		p += w;
		p += *p == ' ';
	}
	printf("\n");
}

static void usage(const char *prog)
{
	const struct rk_vfs_opt_decl *d;

	printf("usage: %s [options] STORE MOUNTPOINT\n"
	       "\n"
	       "Mount a TheRock artifact store (a directory of CI runs, or one run) read-only.\n"
	       "STORE is a local directory, s3://bucket[/prefix] or an http(s):// URL with\n"
	       "index.html listings (docs/remote-stores.md).\n"
	       "\n"
	       "rockfs options:\n"
	       "    -o cache=DIR           cache directory (default $XDG_CACHE_HOME/rockfs or\n"
	       "                           ~/.cache/rockfs)\n"
	       "    -o cache_size=SIZE     evict least recently used data above SIZE (e.g. 20G)\n"
	       "    -o memory_target=SIZE  drop the trees of runs nobody uses while the daemon\n"
	       "                           holds more (rebuilt on their next access; default\n"
	       "                           128M; 0: never)\n"
	       "    -o cache_group=GROUP   share the cache with GROUP on purpose (group-readable\n"
	       "                           files, setgid directories); default: a cache only\n"
	       "                           its owner can read, refused if others can write it\n"
	       "    -o jobs=N              archives decompressed at once (default: CPUs,\n"
	       "                           at least 8 for a remote store)\n"
	       "    -o endpoint=URL        s3: a custom endpoint (path-style), e.g.\n"
	       "                           http://127.0.0.1:9000 (or $AWS_ENDPOINT_URL)\n"
	       "    -o region=R            s3: the bucket's region (or $AWS_REGION)\n"
	       "    -o addressing=path|virtual   s3: URL style (default: path with an endpoint)\n"
	       "    -o no_sign             s3: unsigned requests even when credentials are set\n"
	       "    -o list_ttl=SEC        list the store's runs again when a look at the root\n"
	       "                           finds its listing older than SEC, so that new runs\n"
	       "                           appear (default 2 for a directory, 60 for a remote\n"
	       "                           store; 0: never)\n"
	       "    -o timeout=SEC         remote: give up on one operation after SEC seconds\n"
	       "                           (EIO and a log line; default 60)\n"
	       "    -o retries=N           remote: retries of a failed request (default 6)\n"
	       "    -o offline             remote: no network; serve what the cache holds\n"
	       "    -o refresh             remote: list runs again instead of using the cached\n"
	       "                           listings (for runs still being uploaded)\n"
	       "    -o run_final_age=SEC   remote: a run whose newest object is younger is still\n"
	       "                           being uploaded: its listing is asked again on the\n"
	       "                           next mount (default 86400; 0: final when first\n"
	       "                           listed)\n"
	       "    -o nopassthrough       read plain files through the daemon even where the\n"
	       "                           kernel could read their cache blobs itself (FUSE\n"
	       "                           passthrough: %s)\n"
	       "    -o max_threads=N       FUSE worker threads (rockfs raises libfuse's default\n"
	       "                           of 10 to 64: lookups may wait for an archive)\n"
	       "    -f                     stay in the foreground, log to stderr\n"
	       "    -d                     debug: foreground, FUSE and rockfs debug output\n"
	       "    -s                     single-threaded\n"
	       "\n"
	       "view options (each view's own: docs/views.md):\n",
	       prog, PT_BUILT);
	for (size_t i = 0; (d = rk_vfs_opt_at(i, NULL)); i++)
		usage_opt(d);
	printf("\nFUSE options:\n");
	fuse_cmdline_help();
	fuse_lowlevel_help();
}

static void syslog_handler(enum rk_log_level level, const char *msg)
{
	static const int prio[] = {LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG};

	syslog(prio[level], "%s", msg);
}

/* A local store with no run in it mounts (runs may come later), with one warning line;
 * the README at the mount's root says the same. A remote store is not listed here: that
 * would hold the mount up on the network. */
static void warn_if_empty(struct rk_vfs *v, const char *store)
{
	char **names = NULL;
	size_t n = 0;

	if (rk_vfs_list_runs(v, &names, &n, NULL))
		return; /* the mount's root fails the same way, with its own log line */
	if (!n)
		rk_warn("store '%s' holds no runs: the mount is empty (its README says so)", store);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* The start and stop lines, at every log level (an operator's first questions: what was
 * mounted with which options, and what did it do). The options are the command line's
 * own words, as ps shows them: with the password of a store URL hidden (main scrubs
 * argv; S3 credentials come from the environment). */
static void log_start(const struct rkfs *fs, const char *mnt, int argc, char **argv)
{
	struct rk_buf args = RK_BUF_INIT;
	struct rk_cache *c = rk_vfs_cache(fs->vfs);
	char limit[32] = "none";

	for (int i = 1; i < argc; i++)
		if (rk_buf_addf(&args, "%s%s", i > 1 ? " " : "", argv[i]))
			break;
	if (rk_cache_limit(c))
		rk_size_format(rk_cache_limit(c), limit, sizeof(limit));
	rk_log_emit(RK_LOG_INFO,
		    "rockfs %s: serving '%s' on '%s', cache '%s' (cache_size %s; command line: %s)",
		    ROCKFS_VERSION, fs->store, mnt, rk_cache_dir(c), limit,
		    args.buf ? args.buf : "");
	rk_buf_release(&args);
}

static void log_stop(const struct rkfs *fs, int rc)
{
	struct rk_vfs_stats st;

	rk_vfs_stats(fs->vfs, &st);
	rk_log_emit(RK_LOG_INFO,
		    "stopped (%s) after %" PRIu64 " s: %" PRIu64 " runs listed, %" PRIu64
		    " archives decompressed, %" PRIu64 " loaded from the cache, errors: %" PRIu64
		    " archive, %" PRIu64 " transient, %" PRIu64 " cache; %" PRIu64
		    " requests, %" PRIu64 " bytes fetched, %" PRIu64 " bytes cached",
		    rc < 0   ? strerror(-rc)
		    : rc > 0 ? strsignal(rc)
			     : "unmounted",
		    st.uptime_s, st.runs, st.ingests, st.index_loads, st.ingest_failures,
		    st.transient_failures, st.cache_discarded, st.remote_requests, st.remote_bytes,
		    st.cache_written);
}

#ifdef RKFS_HAVE_PASSTHROUGH
/* Does this process hold CAP_SYS_ADMIN (which the kernel asks of a daemon that gives
 * backing files)? Read from /proc/self/status: no libcap for one bit. */
static int has_sys_admin(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	unsigned long long eff = 0;
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "CapEff: %llx", &eff) == 1;
	fclose(f);
	return found && (eff >> 21 & 1); /* CAP_SYS_ADMIN is capability 21 */
}
#endif

/* Each member an ingest has written but not yet hashed holds a descriptor: allow many. */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int main(int argc, char *argv[])
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct options o = {0};
	struct fuse_cmdline_opts cmd = {0};
	struct rk_vfs_opts vo = {0};
	struct rk_err err = RK_ERR_INIT;
	struct fuse_session *se = NULL;
	struct fuse_loop_config *lc = NULL;
	struct rkfs fs = {.lock = PTHREAD_MUTEX_INITIALIZER,
			  .files.lock = PTHREAD_MUTEX_INITIALIZER,
			  .status_lock = PTHREAD_MUTEX_INITIALIZER,
			  .notify_lock = PTHREAD_RWLOCK_INITIALIZER};
	char fsname[4200], source[4100], shown[4096], *store_abs = NULL;
	unsigned timeout_s = 0, final_age_s = 0;
	int rc, ret = 1;

	if (fuse_opt_parse(&args, &o, option_spec, opt_proc) == -1)
		return 1;
	/* libfuse holds copies of what it parsed: hide a store URL's password from ps now */
	rk_url_scrub_argv(argc, argv);
	raise_fd_limit();
	if (o.help) {
		usage(argv[0]);
		ret = 0;
		goto out;
	}
	if (o.version) {
		printf("rockfs %s\nFUSE library version %s\nFUSE passthrough: %s\n", ROCKFS_VERSION,
		       fuse_pkgversion(), PT_BUILT);
		ret = 0;
		goto out;
	}
	if (o.mnt && check_mountpoint(o.mnt, NULL))
		goto out;
	if (fuse_parse_cmdline(&args, &cmd) != 0)
		goto out;
	if (!o.store || !cmd.mountpoint) {
		fprintf(stderr, "usage: %s [options] STORE MOUNTPOINT (see --help)\n", argv[0]);
		goto out;
	}
	if (cmd.debug)
		rk_log_level = RK_LOG_DEBUG;
	else if (cmd.foreground)
		rk_log_level = RK_LOG_INFO;
	vo.store = o.store;
	vo.cache_dir = o.cache;
	vo.cache_group = o.cache_group;
	/* a local directory is listed again cheaply; a remote store costs a request */
	vo.list_ttl_s = rk_store_is_remote(o.store) ? 60 : 2;
	if (num_opt("jobs", o.jobs, 1, 256, &vo.ingest_jobs) ||
	    num_opt("timeout", o.timeout, 1, 86400, &timeout_s) ||
	    num_opt("list_ttl", o.list_ttl, 0, 86400 * 365, &vo.list_ttl_s) ||
	    num_opt("run_final_age", o.run_final_age, 0, 86400 * 365, &final_age_s) ||
	    num_opt("retries", o.retries, 0, 100, &vo.remote.retries))
		goto out;
	if (cmd.max_threads < 1 || cmd.max_threads > 100000) {
		fprintf(stderr, "rockfs: max_threads=%u: want a whole number from 1 to 100000\n",
			cmd.max_threads);
		goto out;
	}
	vo.view_opts = o.view;
	vo.nview_opts = o.nview;
	vo.remote.endpoint = o.endpoint;
	vo.remote.region = o.region;
	vo.remote.offline = o.offline;
	vo.remote.refresh = o.refresh;
	vo.remote.run_final_age = !o.run_final_age ? 0 : final_age_s ? (long long)final_age_s : -1;
	vo.remote.no_sign = o.no_sign;
	vo.remote.timeout_ms = timeout_s * 1000;
	if (o.addressing) {
		if (strcmp(o.addressing, "path") && strcmp(o.addressing, "virtual")) {
			fprintf(stderr, "rockfs: addressing '%s': path or virtual\n", o.addressing);
			goto out;
		}
		vo.remote.addressing = o.addressing[0];
	}
	if (o.cache_size && (rk_size_parse(o.cache_size, &vo.cache_limit) || !vo.cache_limit)) {
		fprintf(stderr, "rockfs: cache_size=%s: want a size above 0 (e.g. 20G)\n",
			o.cache_size);
		goto out;
	}
	vo.memory_target = (uint64_t)128 << 20;
	vo.forget_entry = rkfs_forget_entry;
	vo.forget_ctx = &fs;
	if (o.memory_target && rk_size_parse(o.memory_target, &vo.memory_target)) {
		fprintf(stderr,
			"rockfs: memory_target=%s: want a size (e.g. 128M; 0: never drop)\n",
			o.memory_target);
		goto out;
	}
	/* a private store's bytes, served to every local user: say so once */
	if (o.allow_other && !o.no_sign && !strncmp(o.store, "s3://", 5) &&
	    getenv("AWS_ACCESS_KEY_ID") && getenv("AWS_SECRET_ACCESS_KEY"))
		rk_warn("allow_other: '%s' is read with credentials, and every local user can now "
			"read what the mount serves (file modes come from the archives)",
			rk_url_shown(o.store, shown, sizeof(shown)));
	rc = rk_vfs_open(&vo, &fs.vfs, &err);
	if (rc) {
		fprintf(stderr, "rockfs: %s\n", rk_err_str(&err, rc));
		goto out;
	}
	/* the store as the mount table (world-readable), status and logs show it: a local
	 * one by its absolute path, a URL without its password */
	store_abs = rk_store_is_remote(o.store) ? NULL : realpath(o.store, NULL);
	rk_url_shown(o.store, shown, sizeof(shown));
	snprintf(source, sizeof(source), "rockfs:%s", store_abs ? store_abs : shown);
	if (check_mountpoint(cmd.mountpoint, source))
		goto out;
	if (!rk_store_is_remote(o.store))
		warn_if_empty(fs.vfs, o.store);
	fs.store = shown;
	fs.uid = getuid();
	fs.gid = getgid();
	fs.timeout = 86400.0;
	fs.list_ttl = vo.list_ttl_s;
	fs.mountpoint = cmd.mountpoint;
#ifdef RKFS_HAVE_PASSTHROUGH
	fs.pt.state = o.nopassthrough	? RKFS_PT_OPTION
		      : has_sys_admin() ? RKFS_PT_ON /* if the kernel grants it (init) */
					: RKFS_PT_CAP;
#else
	fs.pt.state = o.nopassthrough ? RKFS_PT_OPTION : RKFS_PT_BUILD;
#endif
	if (rkfs_pt_init(&fs.pt))
		goto out;

	snprintf(fsname, sizeof(fsname), "-ofsname=%s,subtype=rockfs,ro,default_permissions",
		 source);
	if (fuse_opt_add_arg(&args, fsname))
		goto out;
	se = fuse_session_new(&args, &rkfs_ops, sizeof(rkfs_ops), &fs);
	if (!se)
		goto out;
	if (fuse_set_signal_handlers(se))
		goto out;
	if (fuse_session_mount(se, cmd.mountpoint))
		goto out_signals;
	atomic_store(&fs.se, se);
	if (!cmd.foreground) {
		openlog("rockfs", LOG_PID, LOG_DAEMON);
		rk_log_set_handler(syslog_handler);
	}
	fuse_daemonize(cmd.foreground);
	log_start(&fs, cmd.mountpoint, argc, argv);
	if (cmd.singlethread) {
		rc = fuse_session_loop(se);
	} else {
		lc = fuse_loop_cfg_create();
		if (!lc) {
			rc = -ENOMEM;
		} else {
			fuse_loop_cfg_set_clone_fd(lc, cmd.clone_fd);
			/* 10 is libfuse's default: lookups that wait for an ingest need more */
			fuse_loop_cfg_set_max_threads(lc,
						      cmd.max_threads == 10 ? 64 : cmd.max_threads);
			if (cmd.max_idle_threads != UINT_MAX)
				fuse_loop_cfg_set_idle_threads(lc, cmd.max_idle_threads);
			rc = fuse_session_loop_mt(se, lc);
		}
	}
	ret = rc < 0 ? 1 : 0; /* positive: the signal that stopped the loop, a clean exit */
	rkfs_notify_stop(&fs);
	fuse_session_unmount(se);
	log_stop(&fs, rc);
out_signals:
	fuse_remove_signal_handlers(se);
out:
	if (lc)
		fuse_loop_cfg_destroy(lc);
	if (se)
		fuse_session_destroy(se);
	rkfs_close_handles(&fs);
	rkfs_files_close(&fs);
	rkfs_pt_fini(&fs.pt);
	pthread_mutex_destroy(&fs.lock);
	pthread_mutex_destroy(&fs.status_lock);
	pthread_rwlock_destroy(&fs.notify_lock);
	pthread_mutex_destroy(&fs.files.lock);
	rk_vfs_close(fs.vfs);
	free(cmd.mountpoint);
	free(o.store);
	free(o.mnt);
	free(o.cache);
	free(o.cache_size);
	free(o.memory_target);
	free(o.cache_group);
	free(o.jobs);
	free(o.timeout);
	free(o.list_ttl);
	free(o.run_final_age);
	free(o.retries);
	for (size_t i = 0; i < o.nview; i++)
		free((char *)o.view[i].name);
	free(store_abs);
	free(o.endpoint);
	free(o.region);
	free(o.addressing);
	fuse_opt_free_args(&args);
	return ret;
}
