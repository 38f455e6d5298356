/* manifest.c: therock_manifest.json via jansson. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "rk/manifest.h"

static int opt_string(json_t *root, const char *key, char **out, struct rk_err *err)
{
	json_t *v = json_object_get(root, key);

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return rk_err_set(err, -EPROTO, "manifest: '%s' is not a string", key);
	*out = strdup(json_string_value(v));
	return *out ? 0 : -ENOMEM;
}

int rk_manifest_parse(const char *json, size_t len, struct rk_manifest *out, struct rk_err *err)
{
	struct rk_manifest m = {0};
	json_error_t jerr;
	json_t *root, *flags, *subs;
	int rc = 0;

	if (len > RK_MANIFEST_MAX)
		return rk_err_set(err, -EFBIG, "manifest: %zu bytes is over the limit", len);
	root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return rk_err_set(err, -EPROTO, "manifest: line %d: %s", jerr.line, jerr.text);
	if (!json_is_object(root)) {
		rc = rk_err_set(err, -EPROTO, "manifest: top level is not an object");
		goto out;
	}
	if ((rc = opt_string(root, "the_rock_commit", &m.the_rock_commit, err)) ||
	    (rc = opt_string(root, "github_run_id", &m.github_run_id, err)) ||
	    (rc = opt_string(root, "rocm_package_version", &m.rocm_package_version, err)) ||
	    (rc = opt_string(root, "rocm_version", &m.rocm_version, err)))
		goto out;
	subs = json_object_get(root, "submodules");
	if (subs && !json_is_null(subs)) {
		if (!json_is_array(subs)) {
			rc = rk_err_set(err, -EPROTO, "manifest: 'submodules' is not a list");
			goto out;
		}
		m.nsubmodules = json_array_size(subs);
	}
	flags = json_object_get(root, "flags");
	if (flags && !json_is_null(flags)) {
		const char *key;
		json_t *v;

		if (!json_is_object(flags)) {
			rc = rk_err_set(err, -EPROTO, "manifest: 'flags' is not an object");
			goto out;
		}
		m.flags = calloc(json_object_size(flags) + 1, sizeof(*m.flags));
		if (!m.flags) {
			rc = -ENOMEM;
			goto out;
		}
		json_object_foreach(flags, key, v)
		{
			struct rk_manifest_flag *f = &m.flags[m.nflags];

			if (json_is_boolean(v)) {
				f->is_bool = 1;
				f->value = json_is_true(v);
			} else if (json_is_integer(v)) {
				f->value = json_integer_value(v);
			} else {
				rc = rk_err_set(err, -EPROTO,
						"manifest: flag '%s' is not a bool or int", key);
				goto out;
			}
			if (!(f->name = strdup(key))) {
				rc = -ENOMEM;
				goto out;
			}
			m.nflags++;
			if (!strcmp(key, "KPACK_SPLIT_ARTIFACTS"))
				m.kpack_split = f->value != 0;
		}
	}
out:
	json_decref(root);
	if (rc)
		rk_manifest_release(&m);
	else
		*out = m;
	return rc;
}

void rk_manifest_release(struct rk_manifest *m)
{
	free(m->the_rock_commit);
	free(m->github_run_id);
	free(m->rocm_package_version);
	free(m->rocm_version);
	for (size_t i = 0; i < m->nflags; i++)
		free(m->flags[i].name);
	free(m->flags);
	memset(m, 0, sizeof(*m));
}
