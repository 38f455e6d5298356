/* main.c: rockpack, the companion CLI. Runs the same core as the daemon, no FUSE.
 *
 *   rockpack [GLOBAL OPTIONS] COMMAND [ARGS and GLOBAL OPTIONS]
 *
 * Owns the global options, the general help, the core's log handler and the list of
 * commands (each defined with its help in its cmd_<name>.c, rockpack.h). Global options
 * are taken anywhere on the line, before or after the command, as git does; what is left
 * goes to the command. Exit codes: 0, 1 runtime error, 2 usage error. Uses cli_util.c;
 * nothing calls into it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "rk/log.h"
#include "rk/size.h"
#include "rk/url.h"
#include "cli_util.h"
#include "rockpack.h"

static const struct rp_command *const commands[] = {
	&rp_cmd_ls,	&rp_cmd_cat,	  &rp_cmd_prefetch, &rp_cmd_export,    &rp_cmd_install,
	&rp_cmd_wheels, &rp_cmd_packages, &rp_cmd_split,    &rp_cmd_recombine, &rp_cmd_verify,
	&rp_cmd_kpack,	&rp_cmd_cache,	  &rp_cmd_status,   &rp_cmd_release,
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static int verbose;

/* The core's messages. Errors are left out unless -v: every command reports its own
 * failure in one line, and a second line saying the same would only confuse. */
static void log_handler(enum rk_log_level level, const char *msg)
{
	static const char *const names[] = {"error", "warning", "info", "debug"};

	if (level == RK_LOG_ERR && !verbose)
		return;
	rp_clear_line();
	fprintf(stderr, "rockpack: %s: %s\n", names[level], msg);
}

static const char global_help[] =
	"global options (before or after the command):\n"
	"  --cache DIR          cache directory (default ~/.cache/rockfs)\n"
	"  --cache-size SIZE    cache size limit, e.g. 20G (cache gc shrinks to it)\n"
	"  --cache-group GROUP  a cache shared with GROUP on purpose (default: private)\n"
	"  --jobs N             archives decompressed at once (default: CPUs; 8+ remote)\n"
	"  --json               JSON output: listings, and a summary at the end of work\n"
	"  -q, --quiet          no progress and no summary on stderr\n"
	"  -v, --verbose        log what the core does\n"
	"  --endpoint URL, --region R, --addressing path|virtual, --no-sign   (s3)\n"
	"  --timeout SEC, --offline, --refresh                                (remote)\n";

static void usage(void)
{
	printf("usage: rockpack [options] COMMAND [ARGS]\n\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		printf("  %-10s %s\n", commands[i]->name, commands[i]->summary);
	printf("\noptions, before or after COMMAND: --cache DIR, --cache-size SIZE, --jobs N,\n"
	       "--json, -q, -v, remote stores' options; 'rockpack help COMMAND' for more.\n");
}

static void command_usage(const struct rp_command *c)
{
	printf("%s\n%s", c->usage, global_help);
}

static const struct rp_command *find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(name, commands[i]->name))
			return commands[i];
	return NULL;
}

static int unknown_command(const char *name)
{
	fprintf(stderr, "rockpack: '%s' is not a rockpack command. See 'rockpack --help'.\n", name);
	return 2;
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

static int parse_uint(const char *s, long lo, long hi, unsigned *out)
{
	char *end;
	long n = strtol(s, &end, 10);

	if (!*s || *end || n < lo || n > hi)
		return -1;
	*out = (unsigned)n;
	return 0;
}

enum { G_HELP = -1, G_VERSION = -2 };

/* The global options, by name; value: takes one. */
static const struct global {
	const char *name;
	int value;
} globals[] = {
	{"--cache", 1},	  {"--cache-size", 1}, {"--cache-group", 1}, {"--jobs", 1},
	{"--json", 0},	  {"--endpoint", 1},   {"--region", 1},	     {"--addressing", 1},
	{"--no-sign", 0}, {"--timeout", 1},    {"--offline", 0},     {"--refresh", 0},
	{"--quiet", 0},	  {"-q", 0},	       {"--verbose", 0},     {"-v", 0},
	{"--help", 0},	  {"-h", 0},	       {"--version", 0},     {"-V", 0},
};

/* Apply global option name (with value val). 0, G_HELP, G_VERSION, or 2 after a usage
 * error. */
static int apply_global(struct rp_opts *o, const char *name, const char *val)
{
	unsigned n;

	if (!strcmp(name, "--cache")) {
		o->cache_dir = val;
	} else if (!strcmp(name, "--cache-group")) {
		o->cache_group = val;
	} else if (!strcmp(name, "--cache-size")) {
		if (rk_size_parse(val, &o->cache_limit))
			return rp_usage(o, "--cache-size '%s': not a size (e.g. 20G)", val);
	} else if (!strcmp(name, "--jobs")) {
		if (parse_uint(val, 1, 256, &o->jobs))
			return rp_usage(o, "--jobs '%s': want 1..256", val);
	} else if (!strcmp(name, "--json")) {
		o->json = 1;
	} else if (!strcmp(name, "--endpoint")) {
		o->remote.endpoint = val;
	} else if (!strcmp(name, "--region")) {
		o->remote.region = val;
	} else if (!strcmp(name, "--addressing")) {
		if (strcmp(val, "path") && strcmp(val, "virtual"))
			return rp_usage(o, "--addressing '%s': path or virtual", val);
		o->remote.addressing = val[0];
	} else if (!strcmp(name, "--no-sign")) {
		o->remote.no_sign = 1;
	} else if (!strcmp(name, "--timeout")) {
		if (parse_uint(val, 1, 86400, &n))
			return rp_usage(o, "--timeout '%s': want 1..86400 seconds", val);
		o->remote.timeout_ms = n * 1000;
	} else if (!strcmp(name, "--offline")) {
		o->remote.offline = 1;
	} else if (!strcmp(name, "--refresh")) {
		o->remote.refresh = 1;
	} else if (!strcmp(name, "--quiet") || !strcmp(name, "-q")) {
		o->quiet = 1;
	} else if (!strcmp(name, "--verbose") || !strcmp(name, "-v")) {
		rk_log_level = RK_LOG_DEBUG;
		verbose = 1;
	} else if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
		return G_HELP;
	} else {
		return G_VERSION;
	}
	return 0;
}

/* argv[*i] as a global option: 1 if it is one (applied, *i past its value; *ret set to
 * G_HELP, G_VERSION or 2 if that is what it asks for), 0 if it is not. */
static int take_global(struct rp_opts *o, int argc, char **argv, int *i, int *ret)
{
	const char *arg = argv[*i];

	for (size_t g = 0; g < sizeof(globals) / sizeof(globals[0]); g++) {
		size_t len = strlen(globals[g].name);
		const char *val = NULL;

		if (strncmp(arg, globals[g].name, len))
			continue;
		if (arg[len] == '=' && globals[g].value)
			val = arg + len + 1;
		else if (arg[len])
			continue;
		else if (globals[g].value && *i + 1 >= argc) {
			*ret = rp_usage(o, "option '%s' needs a value", arg);
			return 1;
		} else if (globals[g].value) {
			val = argv[++*i];
		}
		*ret = apply_global(o, globals[g].name, val);
		return 1;
	}
	/* -qv and the like */
	if (arg[0] == '-' && arg[1] && arg[1] != '-' && arg[2] &&
	    !arg[strspn(arg + 1, "qvhV") + 1]) {
		for (const char *p = arg + 1; *p && !*ret; p++) {
			char one[3] = {'-', *p, '\0'};

			*ret = apply_global(o, one, NULL);
		}
		return 1;
	}
	return 0;
}

/* Whether arg is one of the command's options that take a value. */
static int valued(const struct rp_command *c, const char *arg)
{
	size_t n = strlen(arg);

	if (!n || arg[0] != '-')
		return 0;
	for (const char *p = c->valued ? strstr(c->valued, arg) : NULL; p; p = strstr(p + 1, arg))
		if ((p == c->valued || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 1;
	return 0;
}

/* The command line, kept for the commands, while the process's own (what ps shows) has
 * the password of a store URL hidden: `rockpack export http://u:p@host/ ...` may run
 * for an hour (rk_url_scrub_argv, as the daemon does). NULL when out of memory. Kept
 * for the life of the process. */
static char **keep_args(int argc, char **argv)
{
	static char **kept;

	if (!(kept = calloc((size_t)argc + 1, sizeof(*kept))))
		return NULL;
	for (int i = 0; i < argc; i++)
		if (!(kept[i] = strdup(argv[i])))
			return NULL;
	rk_url_scrub_argv(argc, argv);
	return kept;
}

int main(int argc, char **argv)
{
	struct rp_opts o = {0};
	const struct rp_command *c = NULL;
	char **rest = calloc((size_t)argc + 1, sizeof(*rest));
	int nrest = 0, ret = 0, help = 0, version = 0, is_help_cmd = 0, dashdash = 0;

	if (!rest || !(argv = keep_args(argc, argv)))
		return rp_fail("out of memory");
	raise_fd_limit();
	rk_log_set_handler(log_handler);
	for (int i = 1; i < argc && ret != 2; i++) {
		const char *arg = argv[i];
		int r = 0;

		if (dashdash) {
			rest[nrest++] = argv[i];
		} else if (!strcmp(arg, "--")) {
			dashdash = 1;
		} else if (take_global(&o, argc, argv, &i, &r)) {
			if (r == G_HELP)
				help = 1;
			else if (r == G_VERSION)
				version = 1;
			else
				ret = r;
		} else if (!c && !is_help_cmd && rp_is_option(arg)) {
			fprintf(stderr,
				"rockpack: unrecognized option '%s'. See 'rockpack --help'.\n",
				arg);
			ret = 2;
		} else if (!c && !is_help_cmd) {
			if (!strcmp(arg, "help"))
				is_help_cmd = 1;
			else if (!(c = find_command(arg)))
				ret = unknown_command(arg);
			else
				o.command = c->name;
		} else if (c && valued(c, arg) && i + 1 < argc) {
			rest[nrest++] = argv[i++];
			rest[nrest++] = argv[i];
		} else {
			rest[nrest++] = argv[i];
		}
	}
	if (ret)
		goto out;
	if (is_help_cmd) {
		/* rockpack help [COMMAND] */
		if (nrest > 1) {
			ret = rp_usage(&o, "usage: rockpack help [COMMAND]");
		} else if (nrest == 1) {
			if (!(c = find_command(rest[0])))
				ret = unknown_command(rest[0]);
			else
				command_usage(c);
		} else {
			usage();
		}
		goto out;
	}
	if (version) {
		printf("rockpack %s\n", ROCKFS_VERSION);
		goto out;
	}
	if (help) {
		if (c)
			command_usage(c);
		else
			usage();
		goto out;
	}
	if (!c) {
		fprintf(stderr, "rockpack: no command given. See 'rockpack --help'.\n");
		ret = 2;
		goto out;
	}
	ret = c->run(&o, nrest, rest);
out:
	free(rest);
	return ret;
}
