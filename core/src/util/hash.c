/* hash.c: SHA-256 via OpenSSL EVP, FNV-1a. */
#include <errno.h>
#include <string.h>

#include <openssl/evp.h>

#include "rk/hash.h"

int rk_sha256_init(struct rk_sha256 *h)
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();

	if (!c)
		return -ENOMEM;
	if (EVP_DigestInit_ex(c, EVP_sha256(), NULL) != 1) {
		EVP_MD_CTX_free(c);
		return -ENOMEM;
	}
	h->ctx = c;
	return 0;
}

void rk_sha256_update(struct rk_sha256 *h, const void *data, size_t len)
{
	EVP_DigestUpdate(h->ctx, data, len);
}

void rk_sha256_final(struct rk_sha256 *h, char hex[RK_SHA256_HEX])
{
	static const char digits[] = "0123456789abcdef";
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	EVP_DigestFinal_ex(h->ctx, md, &n);
	for (unsigned int i = 0; i < 32; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 15];
	}
	hex[64] = '\0';
	rk_sha256_release(h);
}

void rk_sha256_release(struct rk_sha256 *h)
{
	if (h->ctx)
		EVP_MD_CTX_free(h->ctx);
	h->ctx = NULL;
}

int rk_sha256_buf(const void *data, size_t len, char hex[RK_SHA256_HEX])
{
	struct rk_sha256 h;
	int rc = rk_sha256_init(&h);

	if (rc)
		return rc;
	rk_sha256_update(&h, data, len);
	rk_sha256_final(&h, hex);
	return 0;
}

int rk_is_sha256_hex(const char *s)
{
	size_t i;

	for (i = 0; i < 64; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return s[64] == '\0';
}

uint64_t rk_fnv64(uint64_t seed, const void *data, size_t len)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++) {
		seed ^= p[i];
		seed *= 0x100000001b3ull;
	}
	return seed;
}
