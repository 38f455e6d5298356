/* pkg_channel.h: the all-runs apt and dnf repositories of the release view
 * (release/packages/{deb,rpm}/all/, and the alias latest): one repository whose index
 * holds every run's packages, merged from each run's own index (RUN/packages/<kind>/)
 * with its paths rewritten, as upstream's aggregate_{deb,rpm}_metadata.py merge
 * sources. docs/views.md "release/", docs/internals/services.md. */
#ifndef RK_SERVICES_PKG_CHANNEL_H
#define RK_SERVICES_PKG_CHANNEL_H

#include <stdint.h>

struct rk_vfs;
struct node;

/* Add all/ (a lazy directory) and latest (a relative symlink to the directory of the
 * highest run id) to private directory out, release/packages/<kind>/ (named "deb" or
 * "rpm": all/'s populate reads its parent's name), which holds a directory
 * "<YYYYMMDD>-<run id>" per run of the channel: all/ holds those runs. 0 or -ENOMEM. */
int vfs_channel_add(struct node *out, int64_t mtime);

#endif
