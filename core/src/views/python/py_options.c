/* py_options.c: the options of RUN/python/ (rk/vfs.h), for the view's table
 * (view_python.c). The config is one int: the synthesized wheels' members deflated
 * (services/wheel.c reads it with vfs_config(v, "python")). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/vfs_int.h"
#include "views/python/view_python.h"

/* clang-format off */
const struct rk_vfs_opt_decl py_opts[PY_NOPTS] = {
	{
		.name = "wheel_compression",
		.type = RK_VFS_OPT_STRING,
		.arg = "stored|deflate",
		.choices = 1,
		.def = "stored",
		.help = "python/: members of the synthesized wheels stored (default) or deflated "
			"as pip's own wheels are",
		.man = "how the members of the wheels `python/` synthesizes are kept in the zip: "
		       "`stored` (default: no compression, served straight from the cached files, "
		       "no CPU) or `deflate` (raw deflate, zlib level 6, what bdist_wheel and "
		       "TheRock's own wheels use: about 2.4x fewer bytes). Each member is "
		       "compressed once, on the first `stat` or open of a wheel that holds it, and "
		       "kept in the cache (`pieces/`), keyed by its content, so a member several "
		       "wheels share is compressed once and a remount compresses nothing; the "
		       "first `stat` of a deflated wheel waits for its members (its size is then "
		       "exact). Stored wheels from the store are served unchanged either way. "
		       "docs/python-sdk.md, \"Wheel compression\".",
		.command = "wheels",
		.flag = "--compress",
		.flag_value = "deflate",
	},
};
/* clang-format on */

int py_config(const char *const *vals, const char *const *labels, void **cfg, struct rk_err *err)
{
	int *deflate = malloc(sizeof(*deflate));

	(void)labels;
	(void)err;
	if (!deflate)
		return -ENOMEM;
	*deflate = vals[0] && !strcmp(vals[0], "deflate");
	*cfg = deflate;
	return 0;
}
