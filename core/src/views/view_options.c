/* view_options.c: the views' options (rk/vfs.h "the views' options"): the list of what
 * the view tables declare, the generic checks of a value by its type, and the per-mount
 * config each view makes from them at rk_vfs_open (struct vfs_view.config). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rk/size.h"
#include "engine/vfs_int.h"

const struct rk_vfs_opt_decl *rk_vfs_opt_at(size_t i, const char **view)
{
	for (size_t k = 0; k < vfs_nviews; i -= vfs_views[k++]->nopts)
		if (i < vfs_views[k]->nopts) {
			if (view)
				*view = vfs_views[k]->name;
			return &vfs_views[k]->opts[i];
		}
	return NULL;
}

const struct rk_vfs_opt_decl *rk_vfs_opt_find(const char *name)
{
	const struct rk_vfs_opt_decl *d;

	for (size_t i = 0; (d = rk_vfs_opt_at(i, NULL)); i++)
		if (!strcmp(d->name, name))
			return d;
	return NULL;
}

/* Whether word is one of the '|'-separated words of list. */
static int one_of(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; p; p = strchr(p, '|'), p = p ? p + 1 : NULL)
		if (!strncmp(p, word, n) && (p[n] == '|' || !p[n]))
			return 1;
	return 0;
}

int rk_vfs_opt_check(const struct rk_vfs_opt_decl *d, const char *value, const char *label,
		     struct rk_err *err)
{
	uint64_t size;

	if (!label)
		label = d->name;
	if (d->type == RK_VFS_OPT_FLAG && value)
		return rk_err_set(err, -EINVAL, "%s: takes no value", label);
	if (d->type != RK_VFS_OPT_FLAG && (!value || !*value))
		return rk_err_set(err, -EINVAL, "%s: needs a value", label);
	if (d->type == RK_VFS_OPT_STRING && d->choices && !one_of(d->arg, value)) {
		char want[256] = "";
		const char *p = d->arg;

		/* "a|b|c" -> "a, b or c" */
		for (size_t n = 0; *p && n + 4 < sizeof(want); p++) {
			const char *sep = *p != '|' ? NULL : strchr(p + 1, '|') ? ", " : " or ";

			if (!sep) {
				want[n++] = *p;
			} else {
				n += (size_t)snprintf(want + n, sizeof(want) - n, "%s", sep);
				n = n < sizeof(want) ? n : sizeof(want) - 1;
			}
		}
		return rk_err_set(err, -EINVAL, "%s '%s': want %s", label, value, want);
	}
	if (d->type == RK_VFS_OPT_SIZE && rk_size_parse(value, &size))
		return rk_err_set(err, -EINVAL, "%s=%s: want a size (e.g. 20G)", label, value);
	return d->check ? d->check(value, label, err) : 0;
}

/* The index in o->view_opts of the last option named name, or -1. */
static long given(const struct rk_vfs_opts *o, const char *name)
{
	long at = -1;

	for (size_t i = 0; i < o->nview_opts; i++)
		if (!strcmp(o->view_opts[i].name, name))
			at = (long)i;
	return at;
}

static const char *label_of(const struct rk_vfs_opt *g)
{
	return g->label ? g->label : g->name;
}

/* The digest of the options as given (name and value each, in their order). */
static int opts_digest(const struct rk_vfs_opts *o, char hex[RK_SHA256_HEX])
{
	struct rk_sha256 h;

	if (rk_sha256_init(&h))
		return -ENOMEM;
	for (size_t i = 0; i < o->nview_opts; i++) {
		const char *val = o->view_opts[i].value ? o->view_opts[i].value : "";

		rk_sha256_update(&h, o->view_opts[i].name, strlen(o->view_opts[i].name) + 1);
		rk_sha256_update(&h, val, strlen(val) + 1);
	}
	rk_sha256_final(&h, hex);
	return 0;
}

int vfs_opts_apply(struct rk_vfs *v, const struct rk_vfs_opts *o, struct rk_err *err)
{
	int rc = 0;

	for (size_t i = 0; i < o->nview_opts; i++) {
		const struct rk_vfs_opt *g = &o->view_opts[i];
		const struct rk_vfs_opt_decl *d = rk_vfs_opt_find(g->name);
		long other;

		if (!d)
			return rk_err_set(err, -EINVAL, "%s: no view takes this option",
					  label_of(g));
		if ((rc = rk_vfs_opt_check(d, g->value, label_of(g), err)))
			return rc;
		if (d->excludes && (other = given(o, d->excludes)) >= 0)
			return rk_err_set(err, -EINVAL, "%s and %s exclude each other", label_of(g),
					  label_of(&o->view_opts[other]));
	}
	if (!(v->vconf = calloc(vfs_nviews, sizeof(*v->vconf))) ||
	    !(v->opt_names = calloc(o->nview_opts + 1, sizeof(*v->opt_names))) ||
	    !(v->opt_values = calloc(o->nview_opts + 1, sizeof(*v->opt_values))))
		return -ENOMEM;
	for (size_t i = 0; i < o->nview_opts; i++, v->nopts_given++)
		if (!(v->opt_names[i] = strdup(o->view_opts[i].name)) ||
		    !(v->opt_values[i] = strdup(o->view_opts[i].value ? o->view_opts[i].value : "")))
			return -ENOMEM;
	if ((rc = opts_digest(o, v->opts_sig)))
		return rc;
	for (size_t k = 0; !rc && k < vfs_nviews; k++) {
		const struct vfs_view *w = vfs_views[k];
		const char **vals, **labels;

		if (!w->config)
			continue;
		vals = calloc(w->nopts + 1, sizeof(*vals));
		labels = calloc(w->nopts + 1, sizeof(*labels));
		if (!vals || !labels) {
			rc = -ENOMEM;
		} else {
			for (size_t i = 0; i < w->nopts; i++) {
				long at = given(o, w->opts[i].name);

				vals[i] = at < 0		   ? w->opts[i].def
					  : o->view_opts[at].value ? o->view_opts[at].value
								   : "";
				labels[i] = at < 0 ? w->opts[i].name : label_of(&o->view_opts[at]);
			}
			rc = w->config(vals, labels, &v->vconf[k], err);
		}
		free(vals);
		free(labels);
	}
	return rc;
}

void vfs_opts_release(struct rk_vfs *v)
{
	for (size_t k = 0; v->vconf && k < vfs_nviews; k++)
		if (v->vconf[k] && vfs_views[k]->config_free)
			vfs_views[k]->config_free(v->vconf[k]);
	free(v->vconf);
	v->vconf = NULL;
	for (size_t i = 0; v->opt_names && v->opt_names[i]; i++) {
		free(v->opt_names[i]);
		free(v->opt_values[i]);
	}
	free(v->opt_names);
	free(v->opt_values);
	v->opt_names = v->opt_values = NULL;
	v->nopts_given = 0;
}

const char *vfs_opt_given(const struct rk_vfs *v, const char *name)
{
	const char *last = NULL;

	for (size_t i = 0; i < v->nopts_given; i++)
		if (!strcmp(v->opt_names[i], name))
			last = v->opt_values[i];
	return last;
}

void *vfs_config(const struct rk_vfs *v, const char *view)
{
	for (size_t k = 0; v->vconf && k < vfs_nviews; k++)
		if (!strcmp(vfs_views[k]->name, view))
			return v->vconf[k];
	return NULL;
}
