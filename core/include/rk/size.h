/* rk/size.h: human byte sizes for options and output ("20G", "512M", "1.5 GiB"). Pure. */
#ifndef RK_SIZE_H
#define RK_SIZE_H

#include <stddef.h>
#include <stdint.h>

/* Parse "123", "64K", "20G", "1T" (binary multiples, optional "iB"/"B"). 0 or -EINVAL. */
int rk_size_parse(const char *s, uint64_t *out);
/* Format like "1.5 GiB" into out. */
void rk_size_format(uint64_t v, char *out, size_t n);

#endif
