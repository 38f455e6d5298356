/* kpack_split.h: rocm-kpack's split of one artifact (kpack-format.md section 4.2), a
 * service of the views (services/kpack_split.c). */
#ifndef RK_SERVICES_KPACK_SPLIT_H
#define RK_SERVICES_KPACK_SPLIT_H

#include "rk/topology.h"
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

/* The kpack view's options (view_kpack.c declares them, in this order), which every
 * split reads, whichever view asks for it: */
enum { KPACK_OPT_COMPRESSION, KPACK_OPT_TOPOLOGY, KPACK_OPT_DATABASES, KPACK_NOPTS };
struct kpack_cfg {
	int zstd; /* kpack_compression=zstd: "zstd-per-kernel" instead of "none" */
	const struct rk_topology *topology; /* topology=FILE or split_databases (&topo);
					     * NULL: the built-in table */
	struct rk_topology topo;
	char **only; /* rk/kpack_view.h: the artifacts kpack/ splits (NULL: all) */
	size_t nonly;
};
/* The mount's (a zeroed one when there is none: defaults). */
const struct kpack_cfg *kpack_cfg(const struct rk_vfs *v);
/* struct vfs_view.config and config_free of the kpack view. */
int kpack_config(const char *const *vals, const char *const *labels, void **cfg,
		 struct rk_err *err);
void kpack_config_free(void *cfg);
/* split_databases's check: handler names (rk/kpack_db.h) separated by ':', or "none". */
int kpack_check_databases(const char *value, const char *label, struct rk_err *err);

#endif
