/* rockpack.h: the commands of rockpack, one cmd_<name>.c each. main.c parses the global
 * options and dispatches to them through its command table; a command uses cli_util.h
 * (and cli_export.h), never main.c or another command. Each takes the global options and
 * its own arguments (argv[0] is its first argument, not its name) and returns the exit
 * code. */
#ifndef ROCKPACK_H
#define ROCKPACK_H

struct rp_opts;

int cmd_ls(const struct rp_opts *o, int argc, char **argv);
int cmd_cat(const struct rp_opts *o, int argc, char **argv);
int cmd_cache(const struct rp_opts *o, int argc, char **argv);
int cmd_prefetch(const struct rp_opts *o, int argc, char **argv);
int cmd_export(const struct rp_opts *o, int argc, char **argv);
int cmd_split(const struct rp_opts *o, int argc, char **argv);
int cmd_recombine(const struct rp_opts *o, int argc, char **argv);
int cmd_verify(const struct rp_opts *o, int argc, char **argv);
int cmd_kpack(const struct rp_opts *o, int argc, char **argv);
int cmd_wheels(const struct rp_opts *o, int argc, char **argv);
int cmd_packages(const struct rp_opts *o, int argc, char **argv);

#endif
