/* fuzz_repo_merge.c: the all-runs repositories' parsers (formats/packages/: rk_apt_rebase,
 * rk_repodata_part, rk_rpm_repodata_merge) from untrusted bytes: the input is the three
 * repodata documents separated by NUL bytes, also read as a Packages file and as a part. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rk/buf.h"
#include "formats/packages/apt_index.h"
#include "formats/packages/rpm_repodata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *xml[3] = {s, s, s};
	size_t len[3] = {size, size, size}, k = 0;
	struct rk_buf b = RK_BUF_INIT, part = RK_BUF_INIT;
	struct rk_rpm_repodata rd;

	if (rk_apt_rebase(s, size, "pool/d", &b) == 0 && b.len && b.buf[b.len - 1] != '\n')
		abort();
	rk_buf_release(&b);
	for (size_t i = 0; i < size && k < 2; i++)
		if (!data[i]) {
			len[k] = (size_t)(s + i - xml[k]);
			xml[++k] = s + i + 1;
			len[k] = size - i - 1;
		}
	if (k == 2 && rk_repodata_part(xml, len, "00000000-1", &part) == 0) {
		const char *parts[2] = {part.buf, s};
		size_t lens[2] = {part.len, size};

		/* a part made here merges; the raw input may not */
		if (rk_rpm_repodata_merge(parts, lens, 1, 0, &rd) != 0)
			abort();
		rk_rpm_repodata_release(&rd);
		if (rk_rpm_repodata_merge(parts, lens, 2, 0, &rd) == 0)
			rk_rpm_repodata_release(&rd);
	}
	rk_buf_release(&part);
	return 0;
}
