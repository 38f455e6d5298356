/* rk/hash.h: SHA-256 (OpenSSL EVP underneath, so SHA-NI where the CPU has it) and
 * small non-cryptographic hashes. A struct rk_sha256 has one owner thread. */
#ifndef RK_HASH_H
#define RK_HASH_H

#include <stddef.h>
#include <stdint.h>

#define RK_SHA256_HEX 65 /* 64 hex digits + NUL */

struct rk_sha256 {
	void *ctx; /* EVP_MD_CTX */
};

int rk_sha256_init(struct rk_sha256 *h); /* 0 or -ENOMEM */
void rk_sha256_update(struct rk_sha256 *h, const void *data, size_t len);
void rk_sha256_final(struct rk_sha256 *h, char hex[RK_SHA256_HEX]); /* also releases */
void rk_sha256_release(struct rk_sha256 *h); /* NULL ctx ok */
int rk_sha256_buf(const void *data, size_t len, char hex[RK_SHA256_HEX]);

/* True when s is exactly 64 lowercase hex digits. */
int rk_is_sha256_hex(const char *s);

/* 64-bit FNV-1a over len bytes, continuing from seed (use RK_FNV_SEED to start). */
#define RK_FNV_SEED 0xcbf29ce484222325ull
uint64_t rk_fnv64(uint64_t seed, const void *data, size_t len);

#endif
