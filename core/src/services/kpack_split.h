/* kpack_split.h: rocm-kpack's split of one artifact (kpack-format.md section 4.2), a
 * service of the views (services/kpack_split.c). */
#ifndef RK_SERVICES_KPACK_SPLIT_H
#define RK_SERVICES_KPACK_SPLIT_H

#include "engine/vfs_int.h"

/* Split artifact a (ingesting it) once; *outs receives its outputs (generic first, then
 * one per architecture), owned by a (a->derived). group: the .kpack group name (NULL:
 * "<name>_<component>"); relkeys: kernel names and TOC keys relative to the prefix,
 * source_prefix "" (rocm-kpack's wheel splitter) instead of "<prefix>/<rel>". The same
 * artifact is always split with the same group and relkeys. */
int vfs_kpack_split(struct rk_vfs *v, struct artifact *a, const char *group, int relkeys,
		    struct artifact ***outs, size_t *nouts, struct rk_err *err);

/* Whether RUN/kpack/ of a legacy run splits artifact stem: every artifact, or those
 * selected with rk_kpack_view_select (rk/kpack_view.h). */
int vfs_kpack_selected(const struct rk_vfs *v, const char *stem);

#endif
