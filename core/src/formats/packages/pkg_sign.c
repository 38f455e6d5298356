/* pkg_sign.c: OpenPGP signatures of repository indexes with the user's GnuPG keyring
 * (gpgme): InRelease (a clear-signed Release) and Release.gpg for apt, repomd.xml.asc
 * for dnf, as `gpg --clearsign` / `gpg --detach-sign --armor` make them. The key is
 * named as gpg names keys (fingerprint, key id, user id); its secret part must be
 * usable without a passphrase prompt (gpg-agent may hold it). */
#include <errno.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <gpgme.h>

#include "rk/pkgdefs.h"
#include "formats/packages/pkg_rules.h"

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void init(void)
{
	gpgme_check_version(NULL); /* gpgme's one-time setup, not thread-safe */
}

/* A context signing with key, armored. */
static int context(const char *key, gpgme_ctx_t *out, struct rk_err *err)
{
	gpgme_key_t k = NULL;
	gpgme_ctx_t ctx;
	gpgme_error_t ge;

	pthread_once(&init_once, init);
	if ((ge = gpgme_new(&ctx)))
		return rk_err_set(err, -ENOMEM, "gpgme: %s", gpgme_strerror(ge));
	gpgme_set_armor(ctx, 1);
	gpgme_set_pinentry_mode(ctx, GPGME_PINENTRY_MODE_CANCEL); /* a daemon asks no one */
	if ((ge = gpgme_get_key(ctx, key, &k, 1)) || (ge = gpgme_signers_add(ctx, k))) {
		gpgme_key_unref(k);
		gpgme_release(ctx);
		return rk_err_set(err, -ENOKEY, "signing key '%s': %s", key, gpgme_strerror(ge));
	}
	gpgme_key_unref(k);
	*out = ctx;
	return 0;
}

int pkg_sign(const char *key, const void *data, size_t len, int clear, char **out,
	     size_t *outlen, struct rk_err *err)
{
	gpgme_data_t in = NULL, sig = NULL;
	gpgme_ctx_t ctx = NULL;
	gpgme_error_t ge;
	char *p;
	size_t n = 0;
	int rc = context(key, &ctx, err);

	if (rc)
		return rc;
	if ((ge = gpgme_data_new_from_mem(&in, data, len, 0)) || (ge = gpgme_data_new(&sig)) ||
	    (ge = gpgme_op_sign(ctx, in, sig, clear ? GPGME_SIG_MODE_CLEAR : GPGME_SIG_MODE_DETACH)))
		rc = rk_err_set(err, -EIO, "signing with '%s': %s", key, gpgme_strerror(ge));
	p = rc ? NULL : gpgme_data_release_and_get_mem(sig, &n);
	if (!rc) {
		sig = NULL;
		if (!p || !(*out = malloc(n + 1)))
			rc = -ENOMEM;
		else {
			memcpy(*out, p, n);
			(*out)[n] = '\0';
			*outlen = n;
		}
		gpgme_free(p);
	}
	gpgme_data_release(in);
	gpgme_data_release(sig);
	gpgme_release(ctx);
	return rc;
}

int rk_pkg_sign_check(const char *key, struct rk_err *err)
{
	char *sig = NULL;
	size_t n;
	int rc = pkg_sign(key, "rockfs", 6, 0, &sig, &n, err);

	free(sig);
	return rc;
}

/* ---- for RPM header signatures (views/packages/pkg_rpmsign.c runs gpg as rpmsign does) ---- */

int pkg_sign_subkey(const char *key, char *fpr, size_t fprlen, unsigned *tag, long long *since,
		    struct rk_err *err)
{
	gpgme_ctx_t ctx;
	gpgme_key_t k = NULL;
	gpgme_error_t ge;
	int rc = -ENOKEY;

	pthread_once(&init_once, init);
	if ((ge = gpgme_new(&ctx)))
		return rk_err_set(err, -ENOMEM, "gpgme: %s", gpgme_strerror(ge));
	if ((ge = gpgme_get_key(ctx, key, &k, 1))) {
		gpgme_release(ctx);
		return rk_err_set(err, -ENOKEY, "signing key '%s': %s", key, gpgme_strerror(ge));
	}
	for (gpgme_subkey_t s = k->subkeys; s; s = s->next)
		if (s->can_sign && !s->revoked && !s->expired && !s->disabled && !s->invalid &&
		    s->fpr && strlen(s->fpr) + 1 < fprlen) {
			snprintf(fpr, fprlen, "%s!", s->fpr); /* that subkey */
			*tag = s->pubkey_algo == GPGME_PK_RSA || s->pubkey_algo == GPGME_PK_RSA_S
				       ? 268u
				       : 267u;
			*since = s->timestamp;
			rc = 0; /* the last one: gpg signs with the newest signing subkey */
		}
	gpgme_key_unref(k);
	gpgme_release(ctx);
	return rc ? rk_err_set(err, rc, "signing key '%s': no usable signing subkey", key) : 0;
}

const char *pkg_sign_gpg(void)
{
	gpgme_engine_info_t e = NULL;

	pthread_once(&init_once, init);
	if (!gpgme_get_engine_info(&e))
		for (; e; e = e->next)
			if (e->protocol == GPGME_PROTOCOL_OpenPGP && e->file_name)
				return e->file_name;
	return "gpg";
}

int pkg_sign_pubkey(const char *key, char **out, size_t *outlen, struct rk_err *err)
{
	gpgme_ctx_t ctx;
	gpgme_data_t d = NULL;
	gpgme_error_t ge;
	char *p;
	size_t n = 0;

	pthread_once(&init_once, init);
	if ((ge = gpgme_new(&ctx)))
		return rk_err_set(err, -ENOMEM, "gpgme: %s", gpgme_strerror(ge));
	gpgme_set_armor(ctx, 1);
	if ((ge = gpgme_data_new(&d)) || (ge = gpgme_op_export(ctx, key, 0, d))) {
		gpgme_data_release(d);
		gpgme_release(ctx);
		return rk_err_set(err, -EIO, "exporting '%s': %s", key, gpgme_strerror(ge));
	}
	p = gpgme_data_release_and_get_mem(d, &n);
	gpgme_release(ctx);
	if (!p || !n || !(*out = malloc(n))) {
		gpgme_free(p);
		return p && n ? -ENOMEM : rk_err_set(err, -ENOKEY, "exporting '%s': no key", key);
	}
	memcpy(*out, p, n);
	*outlen = n;
	gpgme_free(p);
	return 0;
}
