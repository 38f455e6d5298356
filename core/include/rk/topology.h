/* rk/topology.h: what the kpack split takes from TheRock's BUILD_TOPOLOGY.toml: the
 * database handlers each artifact's split runs (split_databases = [...] in
 * [artifacts.<name>]; rk/kpack_db.h).
 *
 * The parser reads the TOML that file is written in (tables, dotted and quoted keys,
 * strings of the four kinds, arrays, inline tables, numbers, booleans and dates, comments)
 * and keeps only artifacts.<name>.split_databases; anything else is checked for syntax and
 * skipped. A file that is not TOML, has no [artifacts] table, gives split_databases as
 * anything but an array of strings (or twice), or names a handler rocm-kpack does not
 * have is an error with its line (upstream's split_artifacts would refuse the name). */
#ifndef RK_TOPOLOGY_H
#define RK_TOPOLOGY_H

#include <stddef.h>

#include "rk/err.h"
#include "rk/kpack_db.h"

struct rk_topology_entry {
	char *name; /* the artifact name: "blas" for blas_lib_gfx94X-dcgpu */
	struct rk_kpack_db_set dbs;
};

struct rk_topology {
	struct rk_topology_entry *e; /* in file order */
	size_t n;
	int every; /* 1: every artifact splits with `all`, whatever e says (rockpack split
		    * --split-databases) */
	struct rk_kpack_db_set all;
};

#define RK_TOPOLOGY_INIT \
	{                \
		0        \
	}

/* The biggest file read (BUILD_TOPOLOGY.toml is about 30 KiB). */
#define RK_TOPOLOGY_MAX (4u << 20)

/* Parse text[0..len) (name: for messages) into t (RK_TOPOLOGY_INIT). 0, or -EINVAL /
 * -ENOMEM with err "<name>:<line>: <what>"; t is then empty. */
int rk_topology_parse(const char *text, size_t len, const char *name, struct rk_topology *t,
		      struct rk_err *err);

/* Read and parse the file at path. 0, or a negative errno with err. */
int rk_topology_load(const char *path, struct rk_topology *t, struct rk_err *err);

/* The built-in table: packaging/therock-topology.toml, embedded (parsed once, never
 * freed; NULL only when memory runs out). */
const struct rk_topology *rk_topology_builtin(void);

/* The handlers the split of artifact name runs with t (NULL: the built-in table): its
 * split_databases, or the empty set when it has none. Never NULL. */
const struct rk_kpack_db_set *rk_topology_dbs(const struct rk_topology *t, const char *name);

/* The handlers the split of a fat wheel runs with t (NULL: the built-in table) into *out:
 * a wheel holds the files of many artifacts, so every handler t asks for any artifact,
 * in registry order (with `every`, t->all). A handler no artifact asks for (aotriton,
 * composablekernel in TheRock's table) leaves its files in the host wheel, as the
 * artifact split leaves them in <name>_<component>_generic. */
void rk_topology_wheel_dbs(const struct rk_topology *t, struct rk_kpack_db_set *out);

void rk_topology_release(struct rk_topology *t);

/* The embedded packaging/therock-topology.toml (NUL-terminated; len without the NUL). */
extern const char rk_topology_toml[];
extern const size_t rk_topology_toml_len;

#endif
