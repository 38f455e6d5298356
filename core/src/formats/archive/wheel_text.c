/* wheel_text.c: _dist_info.py and .devel_links entries (formats/archive/wheel_text.h). */
#include <string.h>

#include "formats/archive/wheel_text.h"

int rk_wheel_dist_info_py(const char *tmpl, size_t len, const char *version, int split,
			  char *const *families, size_t n, const char *entry, const char *family,
			  struct rk_buf *b)
{
	const char *os = "LINUX";
	int rc = rk_buf_add(b, tmpl, len);

	if (!rc)
		rc = rk_buf_addf(b, "__version__ = '%s'\nPY_PACKAGE_SUFFIX_NONCE = ''\n", version);
	if (!rc && split)
		rc = rk_buf_adds(b, "ALL_PACKAGES[\"libraries\"].dist_package_template = "
				    "\"rocm-sdk-libraries\"\n");
	if (!rc && n)
		rc = rk_buf_addf(b, "DEFAULT_TARGET_FAMILY = '%s'\n", families[0]);
	for (size_t i = 0; !rc && i < n; i++)
		rc = rk_buf_addf(b, "AVAILABLE_TARGET_FAMILIES.append('%s')\n", families[i]);
	for (size_t i = 0; !rc && i < n; i++)
		rc = rk_buf_addf(b, "%s_TARGET_FAMILIES.append('%s')\n", os, families[i]);
	if (!rc)
		rc = family ? rk_buf_addf(b, "THIS_TARGET_FAMILY = '%s'\n", family)
			    : rk_buf_adds(b, "THIS_TARGET_FAMILY = None\n");
	if (!rc)
		rc = entry ? rk_buf_addf(b, "THIS_PACKAGE_ENTRY = ALL_PACKAGES['%s']\n", entry)
			   : rk_buf_adds(b, "THIS_PACKAGE_ENTRY = None\n");
	return rc;
}

int rk_wheel_devel_link(struct rk_buf *links, const char *rel)
{
	struct rk_buf t = RK_BUF_INIT;
	int rc = 0;

	for (const char *q = rel; !rc && q; q = strchr(q + 1, '/'))
		rc = rk_buf_adds(&t, "../");
	if (!rc)
		rc = rk_buf_addf(&t, "_rocm_sdk_libraries/%s", rel);
	if (!rc && !(rc = rk_buf_addf(links, "%s{\"relpath\": ", links->len ? ", " : "")) &&
	    !(rc = rk_buf_add_json_str(links, rel)) &&
	    !(rc = rk_buf_adds(links, ", \"target\": ")) &&
	    !(rc = rk_buf_add_json_str(links, t.buf)))
		rc = rk_buf_adds(links, "}");
	rk_buf_release(&t);
	return rc;
}
