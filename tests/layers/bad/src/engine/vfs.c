#include "services/flatten.h"
extern const struct vfs_view vfs_view_dist;
