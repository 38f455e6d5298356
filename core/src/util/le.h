/* le.h: little-endian loads and stores for the binary formats (ELF, offload bundles,
 * .kpack headers, tarball piece trailers). Byte by byte: any alignment, any host. */
#ifndef RK_LE_H
#define RK_LE_H

#include <stdint.h>

static inline uint16_t rk_le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t rk_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t rk_le64(const unsigned char *p)
{
	return (uint64_t)rk_le32(p) | (uint64_t)rk_le32(p + 4) << 32;
}

static inline void rk_put_le16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static inline void rk_put_le32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static inline void rk_put_le64(unsigned char *p, uint64_t v)
{
	rk_put_le32(p, (uint32_t)v);
	rk_put_le32(p + 4, (uint32_t)(v >> 32));
}

#endif
