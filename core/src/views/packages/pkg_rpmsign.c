/* pkg_rpmsign.c: with -o sign_key, every RPM's header signed as rpmsign signs it (into the
 * signature header's reserved space, formats/packages/rpm_layout.h) and the public key
 * served beside the repository (rpm/RPM-GPG-KEY), so dnf's gpgcheck=1 holds. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/vfs_int.h"
#include "formats/packages/pkg_rules.h"
#include "formats/packages/rpm_layout.h"
#include "views/packages/packages.h"

int pkg_rpm_sign(const struct rk_vfs *v, struct rk_composite *c, const struct rk_rpm_info *info,
		 int64_t when, struct rk_err *err)
{
	const char *key = pkg_cfg(v)->sign_key;
	unsigned char *hdr = NULL;
	char *sig = NULL;
	size_t hlen, slen;
	unsigned tag;
	int rc;

	if (!key)
		return 0;
	if ((rc = rk_rpm_sign_header(c, info, &hdr, &hlen)))
		return rk_err_set(err, rc, "the .rpm's header: %s", strerror(-rc));
	rc = pkg_sign_rpm(key, when, hdr, hlen, &sig, &slen, &tag, err);
	if (!rc && (rc = rk_rpm_set_signature(c, info, tag, sig, slen)))
		rk_err_set(err, rc, "the .rpm's signature (%zu bytes): %s", slen, strerror(-rc));
	free(hdr);
	free(sig);
	return rc;
}

int pkg_rpm_pubkey(const struct rk_vfs *v, struct node *dir, int64_t mtime, struct rk_err *err)
{
	const char *key = pkg_cfg(v)->sign_key;
	char *pub = NULL;
	size_t n;
	int rc;

	if (!key)
		return 0;
	if ((rc = pkg_sign_pubkey(key, &pub, &n, err)))
		return rc;
	if (!vfs_bytes_adopt(dir, PKG_RPM_KEY, S_IFREG | 0444, mtime, pub, n))
		return -ENOMEM; /* (adopt frees pub) */
	return 0;
}
