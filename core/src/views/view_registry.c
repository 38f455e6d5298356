/* view_registry.c: the views, in the order their directories appear in RUN/ (and their
 * lines in the mount's README). Adding a view: its view_<name>.c with one struct
 * vfs_view, and one line here. */
#include <stddef.h>

#include "engine/vfs_int.h"

extern const struct vfs_view vfs_view_dist, vfs_view_install, vfs_view_kpack, vfs_view_tarballs,
	vfs_view_python, vfs_view_packages, vfs_view_release;

const struct vfs_view *const vfs_views[] = {
	&vfs_view_dist,	  &vfs_view_install,  &vfs_view_kpack,	 &vfs_view_tarballs,
	&vfs_view_python, &vfs_view_packages, &vfs_view_release,
};
const size_t vfs_nviews = sizeof(vfs_views) / sizeof(vfs_views[0]);

void **vfs_view_state(struct run *r, const struct vfs_view *view)
{
	for (size_t i = 0; i < vfs_nviews; i++)
		if (vfs_views[i] == view)
			return &r->vstate[i];
	return NULL; /* not a registered view: a programming error */
}
