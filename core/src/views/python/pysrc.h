/* pysrc.h: the Python files rockfs puts into the packages it synthesizes (the
 * rocm_sdk package, the pure package __init__.py of the binary wheels, the rocm
 * sdist's setup.py and pyproject.toml), embedded from core/python/ at build time
 * by core/python/embed.cmake. Paths are relative to core/python/, e.g.
 * "rocm_sdk/_dist_info.py", "pure/__init__.py", "sdist/setup.py"; the table is
 * sorted by path (strcmp). data[len] is a NUL byte. */
#ifndef RK_PYSRC_H
#define RK_PYSRC_H

#include <stddef.h>

struct rk_pysrc {
	const char *path;
	const unsigned char *data;
	size_t len;
};

extern const struct rk_pysrc rk_pysrc[];
extern const size_t rk_npysrc;

/* The exec stub of the runtime wheels (exe_stub.c, built and embedded by embed_stub.cmake):
 * rk_exe_stub_len bytes holding RK_EXE_STUB_MARK where the target's path goes. */
extern const char rk_exe_stub[];
extern const size_t rk_exe_stub_len;
#define RK_EXE_STUB_MARK "@ROCKFS-EXE-STUB-TARGET@"
#define RK_EXE_STUB_TARGET_MAX 4096

/* The embedded file at path (relative to core/python/, e.g. "sdist/setup.py"), or NULL. */
const struct rk_pysrc *rk_pysrc_find(const char *path);

/* The exec stub running rp (relative to its own directory) in *out (malloc'd,
 * rk_exe_stub_len bytes). 0, -ENAMETOOLONG or -ENOMEM. */
int rk_exe_stub_for(const char *rp, char **out);

/* _dist_info.py as TheRock writes it (6.5) for these families (formats/archive/wheel_text.h). */
struct rk_buf;
int pywheel_dist_info_py(const char *version, int split, char **families, size_t n,
			 const char *entry, const char *family, struct rk_buf *b);

#endif
