/* view_install.c: RUN/install/<spec>/, the install tree TheRock's
 * install_rocm_from_artifacts.py writes for a GPU family and component flags (spec names:
 * rk/install.h, e.g. gfx94X-dcgpu+blas+tests), flattened as dist/ is (the flatten service)
 * from the artifacts the install selection (services/install_select.c) picks. There are
 * too many specs to list: RUN/install/ lists a README only, and a spec is made when it is
 * looked up (struct vfs_view.miss), so walks of the mount cost nothing here. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rk/install.h"
#include "engine/vfs_int.h"
#include "services/flatten.h"

static const char readme[] =
	"  <run>/install/<spec>/  the tree TheRock's install_rocm_from_artifacts.py installs,\n"
	"                         made when looked up (not listed): spec is a GPU family,\n"
	"                         optionally @targets, then +flag per component flag, e.g.\n"
	"                         install/gfx94X-dcgpu+blas+tests (docs/install.md)\n";

static const char install_readme[] =
	"install/: the trees TheRock's build_tools/install_rocm_from_artifacts.py installs,\n"
	"one per spec, made when a spec is looked up (none is listed):\n"
	"\n"
	"  FAMILY[@TARGET,...][+FLAG]...\n"
	"\n"
	"FAMILY is --amdgpu-family, the targets --amdgpu-targets, each FLAG a component flag\n"
	"without its dashes (blas, fft, miopen, prim, rand, rccl, ...), tests or base-only:\n"
	"\n"
	"  ls install/gfx94X-dcgpu+blas+tests/bin\n"
	"  export ROCM_PATH=$PWD/install/gfx94X-dcgpu+base-only\n"
	"\n"
	"is what\n"
	"\n"
	"  install_rocm_from_artifacts.py --run-id RUN --amdgpu-family gfx94X-dcgpu --blas "
	"--tests\n"
	"\n"
	"writes, file for file; `rockpack install` writes the same tree out. A spec without\n"
	"flags is every artifact of the family (as the script without flags).\n";

/* Make a spec the run selects something for: a lazy directory, flattened on first use. */
static int pop_spec(struct rk_vfs *v, struct node *dir, struct rk_err *err);

static int miss_spec(struct rk_vfs *v, struct node *dir, const char *name, struct rk_err *err)
{
	struct run *r = vfs_node_run(dir);
	struct rk_install_spec s;
	struct node *root;
	size_t *idx = NULL, n = 0;
	int rc;

	if (!r || rk_install_spec_parse(name, &s, NULL))
		return -ENOENT;
	if ((rc = rk_install_select(&s, r->cat, &idx, &n)))
		return rc;
	free(idx);
	if (!n) /* the script stops: "No matching artifacts" */
		return -ENOENT;
	root = vfs_tree_new(vfs_node_name(dir), vfs_node_mode(dir), vfs_node_mtime(dir));
	if (!root)
		return -ENOMEM;
	if (!vfs_lazy_dir(root, name, pop_spec, vfs_node_mtime(dir))) {
		vfs_tree_free(root);
		return -ENOMEM;
	}
	vfs_node_set_mode(vfs_find(root, name), S_IFDIR | 0755); /* as dist/'s roots */
	(void)err;
	return vfs_graft(v, dir, root);
}

static int pop_spec(struct rk_vfs *v, struct node *dir, struct rk_err *err)
{
	struct run *r = vfs_node_run(dir);
	struct rk_install_spec s;
	struct artifact **as = NULL;
	struct node *root;
	size_t *idx = NULL, n = 0;
	int rc = rk_install_spec_parse(vfs_node_name(dir), &s, err);

	if (!rc)
		rc = rk_install_select(&s, r->cat, &idx, &n);
	if (!rc && n && !(as = malloc(n * sizeof(*as))))
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < n; i++)
		as[i] = &r->artifacts[idx[i]];
	free(idx);
	root = rc ? NULL
		  : vfs_tree_new(vfs_node_name(dir), vfs_node_mode(dir), vfs_node_mtime(dir));
	if (!rc && !root)
		rc = -ENOMEM;
	if (!rc)
		rc = vfs_flatten_artifacts(v, as, n, root, err);
	free(as);
	if (rc) {
		vfs_tree_free(root);
		return rk_err_wrap(err, rc, "install");
	}
	return vfs_graft(v, dir, root);
}

static int pop_install(struct rk_vfs *v, struct node *dir, struct rk_err *err)
{
	struct node *root =
		vfs_tree_new(vfs_node_name(dir), vfs_node_mode(dir), vfs_node_mtime(dir));

	(void)err;
	if (!root || !vfs_bytes_file(root, "README", S_IFREG | 0444, vfs_node_mtime(dir),
				     install_readme, sizeof(install_readme) - 1)) {
		vfs_tree_free(root);
		return -ENOMEM;
	}
	return vfs_graft(v, dir, root);
}

const struct vfs_view vfs_view_install = {
	.name = "install",
	.readme = readme,
	.shown = vfs_run_has_artifacts,
	.populate = pop_install,
	.miss = miss_spec,
};
