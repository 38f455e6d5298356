/* rockpack.h: the commands of rockpack, one cmd_<name>.c each. Each command file defines
 * its table entry (struct rp_command: name, run function, summary, usage text); main.c
 * lists the entries, parses the global options and dispatches. A command uses cli_util.h
 * (and cli_export.h, cli_progress.h), never main.c or another command. run takes the
 * global options and the command's own arguments (argv[0] is its first argument, not its
 * name) and returns the exit code: 0, 1 (runtime error), 2 (usage error, rp_usage()). */
#ifndef ROCKPACK_H
#define ROCKPACK_H

struct rp_opts;

struct rp_command {
	const char *name;
	int (*run)(const struct rp_opts *o, int argc, char **argv);
	const char *summary; /* one line of `rockpack --help` */
	const char *usage; /* `rockpack COMMAND --help`: synopsis, description, options */
	/* the command's options that take a value (" -o --type "): main.c does not take
	 * their values for global options */
	const char *valued;
};

extern const struct rp_command rp_cmd_ls, rp_cmd_cat, rp_cmd_cache, rp_cmd_prefetch, rp_cmd_export,
	rp_cmd_install, rp_cmd_split, rp_cmd_recombine, rp_cmd_verify, rp_cmd_kpack, rp_cmd_wheels,
	rp_cmd_packages, rp_cmd_status, rp_cmd_release;

#endif
