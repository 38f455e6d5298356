/* cli_util.h: what every rockpack command shares (cli_util.c): the global options
 * (struct rp_opts, filled by main.c), failure messages, writes, file maps and opening
 * the views of a store. A leaf: it uses the core library and libc, never main.c or a
 * command. */
#ifndef ROCKPACK_CLI_UTIL_H
#define ROCKPACK_CLI_UTIL_H

#include <stddef.h>

#include "rk/vfs.h"

struct rp_opts {
	const char *command; /* the command's name, for messages */
	const char *cache_dir; /* --cache */
	const char *cache_group; /* --cache-group: a shared cache (rk/cache.h) */
	uint64_t cache_limit; /* --cache-size */
	unsigned jobs; /* --jobs */
	int json; /* --json */
	int quiet; /* -q */
	struct rp_view_opt {
		const struct rk_vfs_opt_decl *d;
		const char *value; /* NULL: a flag, or list */
		char list[512]; /* a list's words, ':'-separated */
	} view[8]; /* the command's flags of the views' options (rp_view_flag) */
	size_t nview;
	struct rk_store_opts remote; /* --endpoint, --region, --offline, ... */
};

/* A progress line is on stderr (cli_progress.c): rp_fail, rp_usage and the log handler
 * take it off first (rp_clear_line) so that a message starts on a clean line. */
extern int rp_line_shown;
void rp_clear_line(void);
/* Print "rockpack: <msg>" on stderr and return 1 (the exit code of a failed command). */
int rp_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A usage error: print "rockpack: <msg> (see 'rockpack COMMAND --help')" on stderr, one
 * line, and return 2. */
int rp_usage(const struct rp_opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The value of the option argv[*i] (advancing *i), or NULL after a usage error saying it
 * is missing. */
const char *rp_value(const struct rp_opts *o, int argc, char **argv, int *i);
/* Whether arg is an option (starts with '-' and is not "-"). */
static inline int rp_is_option(const char *arg)
{
	return arg[0] == '-' && arg[1];
}
/* Write all of p to fd. 0 or -errno. */
int rp_write_all(int fd, const char *p, size_t n);
/* A read-only map of a whole regular, non-empty file (MADV_RANDOM: the kpack tools read
 * headers through it, not every page). 0, or -errno (-EINVAL: not a regular, non-empty
 * file); nothing printed. */
struct rp_map {
	void *p;
	size_t n;
};
int rp_map(const char *path, struct rp_map *m);
void rp_unmap(struct rp_map *m);
/* Create the missing directories above path (not path itself), as Python's
 * mkdir(parents=True) does; mode 0755 less the umask. The number created (>= 0, for
 * rp_rmdir_parents) or -errno; nothing printed. */
int rp_mkdir_parents(const char *path);
/* Remove the n directories above path that rp_mkdir_parents created, if empty. */
void rp_rmdir_parents(const char *path, int n);
/* When argv[*i] is the flag of a view's option for o->command (rk/vfs.h: the option's
 * command and flag), take it and its value (advancing *i) into o->view, checked as
 * rk_vfs_opt_check does: 1, or 2 after a usage error; 0 when it is no such flag. */
int rp_view_flag(struct rp_opts *o, int argc, char **argv, int *i);
/* The rockpack spelling of d's flag ("--sign-key") into buf. */
void rp_view_flag_name(const struct rk_vfs_opt_decl *d, char *buf, size_t n);
/* Open the views of store with o's view options (and the defaults rockpack gives those of
 * o->command: flag_def), or print why not and return non-zero. */
int rp_open(const struct rp_opts *o, const char *store, struct rk_vfs **out);

#endif
