/* main.c: rockpack, the companion CLI. Runs the same core as the daemon, no FUSE.
 *
 *   rockpack [--cache DIR] [--cache-size SIZE] [--jobs N] [--json] [-q] COMMAND ARGS
 *
 * Owns the global options, the usage text, the core's log handler and the command
 * table; dispatches to cmd_<name>.c (rockpack.h). Uses cli_util.c; nothing calls into
 * it. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "rk/log.h"
#include "rk/size.h"
#include "cli_util.h"
#include "rockpack.h"

/* The commands, by name (rockpack.h). */
static const struct {
	const char *name;
	int (*run)(const struct rp_opts *o, int argc, char **argv);
} commands[] = {
	{"ls", cmd_ls},
	{"cat", cmd_cat},
	{"cache", cmd_cache},
	{"prefetch", cmd_prefetch},
	{"export", cmd_export},
	{"split", cmd_split},
	{"recombine", cmd_recombine},
	{"verify", cmd_verify},
	{"kpack", cmd_kpack},
	{"wheels", cmd_wheels},
	{"packages", cmd_packages},
};

static int verbose;

/* The core's messages. Errors are left out unless -v: every command reports its own
 * failure in one line, and a second line saying the same would only confuse. */
static void log_handler(enum rk_log_level level, const char *msg)
{
	static const char *const names[] = {"error", "warning", "info", "debug"};

	if (level == RK_LOG_ERR && !verbose)
		return;
	fprintf(stderr, "rockpack: %s: %s\n", names[level], msg);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: rockpack [options] COMMAND ...\n"
		"\n"
		"commands:\n"
		"  ls STORE [RUN]                 runs of a store, or the artifacts of one run\n"
		"  cat STORE RUN ARTIFACT PATH    a file inside an artifact, to stdout\n"
		"  prefetch STORE RUN             decompress every artifact of RUN into the cache\n"
		"  export STORE RUN PATH -o DIR   write a view (dist/X, tarballs/F, browse/A) as\n"
		"                                 real files into DIR\n"
		"  wheels STORE RUN -o DIR [--index]\n"
		"                                 the run's wheels and sdists (python/files), or\n"
		"                                 with --index files/ + simple/ for pip "
		"--index-url\n"
		"  packages STORE RUN --type deb|rpm -o DIR [--packages FILE] [--sign-key KEY]\n"
		"           [--multiarch]\n"
		"                                 the run's native packages as an apt or dnf\n"
		"                                 repository\n"
		"  split STORE RUN [ARTIFACT...] -o DIR [--targets T,...] [--compression "
		"zstd|none]\n"
		"                                 the run's artifacts split per GPU arch\n"
		"                                 (rocm-kpack's split_artifacts; .kpack archives\n"
		"                                 zstd-per-kernel unless --compression none)\n"
		"  recombine SHARDS --config CFG -o DIR [--component C]\n"
		"                                 merge split shards into arch groups\n"
		"  verify DIR                     check split artifacts in DIR\n"
		"  kpack show FILE | extract FILE KEY ARCH -o OUT | resolve BIN --arch A,...\n"
		"                                 look inside .kpack archives and split binaries\n"
		"  kpack split FAT -o DIR [--group G] [--path NAME] [--compression zstd|none]\n"
		"                                 split one fat binary file\n"
		"  cache stats|gc|verify          inspect, shrink (--cache-size) or check the "
		"cache\n"
		"  cache refresh RUN              forget the cached listings of RUN (remote "
		"stores)\n"
		"\n"
		"options:\n"
		"  --cache DIR        cache directory (default ~/.cache/rockfs)\n"
		"  --cache-size SIZE  size limit, e.g. 20G (gc shrinks to it)\n"
		"  --cache-group GROUP  a cache shared with GROUP on purpose (default: private)\n"
		"  --jobs N           archives decompressed at once (default: CPUs; 8+ remote)\n"
		"  --json             listings as JSON\n"
		"  -q, --quiet        no progress output\n"
		"  --endpoint URL     s3: custom endpoint, path-style (or $AWS_ENDPOINT_URL)\n"
		"  --region R         s3: the bucket's region (or $AWS_REGION)\n"
		"  --addressing path|virtual   s3: URL style\n"
		"  --no-sign          s3: unsigned requests even with credentials\n"
		"  --timeout SEC      remote: one operation's time limit (default 60)\n"
		"  --offline          remote: no network; use what the cache holds\n"
		"  --refresh          remote: list runs again (ignore cached listings)\n"
		"  -v, --verbose      log what the core does\n"
		"  -h, --help         this text;  -V, --version\n"
		"\n"
		"STORE is a directory, s3://bucket[/prefix] or an http(s):// URL.\n"
		"RUN is a run directory name such as 24205988455-linux (or ROCm-rocm-libraries/\n"
		"<run> for other repositories); for a store that is itself one run, use '.'.\n");
}

/* Each member an ingest has written but not yet hashed holds a descriptor: allow many. */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"cache", required_argument, NULL, 'c'},
		{"cache-size", required_argument, NULL, 's'},
		{"cache-group", required_argument, NULL, 'g'},
		{"jobs", required_argument, NULL, 'j'},
		{"json", no_argument, NULL, 'J'},
		{"endpoint", required_argument, NULL, 'E'},
		{"region", required_argument, NULL, 'R'},
		{"addressing", required_argument, NULL, 'A'},
		{"no-sign", no_argument, NULL, 'N'},
		{"timeout", required_argument, NULL, 'T'},
		{"offline", no_argument, NULL, 'O'},
		{"refresh", no_argument, NULL, 'F'},
		{"quiet", no_argument, NULL, 'q'},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	struct rp_opts o = {0};
	const char *cmd;
	int c;

	raise_fd_limit();
	rk_log_set_handler(log_handler);
	while ((c = getopt_long(argc, argv, "+qvhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			o.cache_dir = optarg;
			break;
		case 'g':
			o.cache_group = optarg;
			break;
		case 's':
			if (rk_size_parse(optarg, &o.cache_limit))
				return rp_fail("--cache-size '%s': not a size (e.g. 20G)", optarg);
			break;
		case 'j': {
			char *end;
			long n = strtol(optarg, &end, 10);

			if (*end || n < 1 || n > 256)
				return rp_fail("--jobs '%s': want 1..256", optarg);
			o.jobs = (unsigned)n;
			break;
		}
		case 'J':
			o.json = 1;
			break;
		case 'E':
			o.remote.endpoint = optarg;
			break;
		case 'R':
			o.remote.region = optarg;
			break;
		case 'A':
			if (strcmp(optarg, "path") && strcmp(optarg, "virtual"))
				return rp_fail("--addressing '%s': path or virtual", optarg);
			o.remote.addressing = optarg[0];
			break;
		case 'N':
			o.remote.no_sign = 1;
			break;
		case 'T': {
			char *end;
			long n = strtol(optarg, &end, 10);

			if (*end || n < 1 || n > 86400)
				return rp_fail("--timeout '%s': want 1..86400 seconds", optarg);
			o.remote.timeout_ms = (unsigned)n * 1000;
			break;
		}
		case 'O':
			o.remote.offline = 1;
			break;
		case 'F':
			o.remote.refresh = 1;
			break;
		case 'q':
			o.quiet = 1;
			break;
		case 'v':
			rk_log_level = RK_LOG_DEBUG;
			verbose = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("rockpack %s\n", ROCKFS_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	cmd = argv[optind];
	argc -= optind + 1;
	argv += optind + 1;
	/* options may also follow the command: accept --json there */
	for (int i = 0; i < argc; i++)
		if (!strcmp(argv[i], "--json")) {
			o.json = 1;
			memmove(&argv[i], &argv[i + 1], (size_t)(argc - i - 1) * sizeof(*argv));
			argc--;
			i--;
		}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(cmd, commands[i].name))
			return commands[i].run(&o, argc, argv);
	usage(stderr);
	return rp_fail("'%s': unknown command", cmd) + 1;
}
