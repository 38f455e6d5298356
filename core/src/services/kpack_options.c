/* kpack_options.c: what every kpack split reads from the mount's options (the kpack
 * view declares them: view_kpack.c; services/kpack_split.h: struct kpack_cfg), and the
 * selection of rk/kpack_view.h kept with them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk/kpack_db.h"
#include "rk/kpack_view.h"
#include "rk/topology.h"
#include "engine/vfs_int.h"
#include "services/kpack_split.h"

/* The selection of rk/kpack_view.h (the kpack config's only): set before RUN/kpack/ is
 * read, read-only after; freed with the config by rk_vfs_close. */
int rk_kpack_view_select(struct rk_vfs *v, const char *const *stems, size_t n)
{
	struct kpack_cfg *c = vfs_config(v, "kpack");
	char **nv = n ? calloc(n, sizeof(*nv)) : NULL;

	if (!c || (n && !nv)) {
		free(nv);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		if (!(nv[i] = strdup(stems[i]))) {
			while (i--)
				free(nv[i]);
			free(nv);
			return -ENOMEM;
		}
	for (size_t i = 0; i < c->nonly; i++)
		free(c->only[i]);
	free(c->only);
	c->only = nv;
	c->nonly = n;
	return 0;
}

int vfs_kpack_selected(const struct rk_vfs *v, const char *stem)
{
	const struct kpack_cfg *c = kpack_cfg(v);

	for (size_t i = 0; i < c->nonly; i++)
		if (!strcmp(c->only[i], stem))
			return 1;
	return !c->nonly;
}

/* ---- the kpack view's options (view_kpack.c declares them) ---- */

const struct kpack_cfg *kpack_cfg(const struct rk_vfs *v)
{
	static const struct kpack_cfg none = {0};
	const struct kpack_cfg *c = vfs_config(v, "kpack");

	return c ? c : &none;
}

int kpack_check_databases(const char *value, const char *label, struct rk_err *err)
{
	if (!strcmp(value, "none"))
		return 0;
	for (const char *p = value, *e;; p = e + 1) {
		char w[64];
		size_t n;

		e = strchr(p, ':');
		n = e ? (size_t)(e - p) : strlen(p);
		snprintf(w, sizeof(w), "%.*s", (int)n, p);
		if (n >= sizeof(w) || rk_kpack_db_handler(w) < 0) {
			char known[200] = "";

			for (int j = 0; j < RK_KPACK_DB_NHANDLERS; j++)
				snprintf(known + strlen(known), sizeof(known) - strlen(known),
					 "%s%s", j ? ", " : "", rk_kpack_db_name(j));
			return rk_err_set(err, -EINVAL,
					  "%s: unknown database handler '%s' (want none or some "
					  "of: %s)",
					  label, w, known);
		}
		if (!e)
			return 0;
	}
}

void kpack_config_free(void *cfg)
{
	struct kpack_cfg *c = cfg;

	if (!c)
		return;
	rk_topology_release(&c->topo);
	for (size_t i = 0; i < c->nonly; i++)
		free(c->only[i]);
	free(c->only);
	free(c);
}

int kpack_config(const char *const *vals, const char *const *labels, void **cfg, struct rk_err *err)
{
	struct kpack_cfg *c = calloc(1, sizeof(*c));
	const char *dbs = vals[KPACK_OPT_DATABASES];
	int rc = 0;

	if (!c)
		return -ENOMEM;
	c->zstd = vals[KPACK_OPT_COMPRESSION] && !strcmp(vals[KPACK_OPT_COMPRESSION], "zstd");
	if (vals[KPACK_OPT_TOPOLOGY]) {
		struct rk_err terr = RK_ERR_INIT;

		if ((rc = rk_topology_load(vals[KPACK_OPT_TOPOLOGY], &c->topo, &terr)))
			rc = rk_err_set(err, rc, "%s: %s", labels[KPACK_OPT_TOPOLOGY],
					rk_err_str(&terr, rc));
		c->topology = &c->topo;
	} else if (dbs) {
		/* checked (kpack_check_databases): every word a handler, or "none" */
		c->topo.every = 1;
		for (const char *p = dbs, *e; strcmp(dbs, "none"); p = e + 1) {
			char w[64];

			e = strchr(p, ':');
			snprintf(w, sizeof(w), "%.*s", (int)(e ? (size_t)(e - p) : strlen(p)), p);
			rk_kpack_db_set_add(&c->topo.all, rk_kpack_db_handler(w));
			if (!e)
				break;
		}
		c->topology = &c->topo;
	}
	if (rc) {
		kpack_config_free(c);
		return rc;
	}
	*cfg = c;
	return 0;
}
