/* kpack_binary.c: the split of one fat host binary (rk/kpack_binary.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rk/kpack.h"
#include "rk/kpack_binary.h"
#include "rk/target.h"

int rk_kpack_check_entries(const unsigned char *img, const struct rk_fat_elf *fe,
			   const struct rk_fatbin *fb, unsigned *index, struct rk_err *err)
{
	const unsigned char *sec = img + fe->fatbin_off;

	for (size_t i = 0; i < fb->nentries; i++) {
		const struct rk_bundle_entry *e = &fb->entries[i];
		char got[RK_TARGET_MAX], want[RK_TARGET_MAX];
		int rc = rk_codeobj_target(rk_fatbin_data(fb, e, sec), e->size, got, err);

		if (rc)
			return rk_err_wrap(err, rc, "bundle entry '%s'", e->id);
		if (rk_target_canon(e->arch, want) || strcmp(got, want))
			return rk_err_set(err, -EBADMSG,
					  "bundle entry '%s' holds a code object for '%s'", e->id,
					  got);
		index[i] = 0;
		for (size_t j = 0; j < i; j++)
			index[i] += !strcmp(fb->entries[j].arch, e->arch);
	}
	return 0;
}

int rk_kpack_host_rewrite(const unsigned char *img, size_t n, const char *relpath,
			  const char *group, const char *kname, struct rk_composite *out,
			  struct rk_err *err)
{
	char *pattern = NULL;
	void *marker = NULL;
	size_t mlen = 0;
	int rc = rk_kpack_search_pattern(relpath, group, &pattern);

	if (!rc)
		rc = rk_kpack_marker_encode((const char *const *)&pattern, 1, kname, &marker, &mlen,
					    err);
	if (!rc)
		rc = rk_kpack_elf_transform(img, n, marker, mlen, out, err);
	free(marker);
	free(pattern);
	return rc;
}
