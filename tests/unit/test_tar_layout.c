/* test_tar_layout.c: members whose bytes are a composite (rk_tar_member.content), checked
 * byte for byte against GNU tar over the same tree. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "formats/archive/tar_layout.h"
#include "rk_fixture.h"
#include "rk_test.h"

#define T0 1767225600
#define ID_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define ID_E "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"

static char blob_a[700], blob_e[1500];

/* The sources, by content id: the test's buffers. */
static ssize_t read_blob(void *ctx, uint32_t src, void *buf, size_t n, uint64_t off)
{
	const struct rk_composite *c = ctx;
	const char *id = c->sources[src].id;
	const char *b = !strcmp(id, ID_A) ? blob_a : !strcmp(id, ID_E) ? blob_e : NULL;
	size_t size = b == blob_a ? sizeof(blob_a) : sizeof(blob_e);

	if (!b)
		return -ENOENT;
	if (off >= size)
		return 0;
	if (n > size - off)
		n = size - off;
	memcpy(buf, b + off, n);
	return (ssize_t)n;
}

static int have_gnu_tar(void)
{
	FILE *f = popen("tar --version 2>/dev/null", "r");
	char line[256] = "";
	int ok;

	if (!f)
		return 0;
	ok = fgets(line, sizeof(line), f) && strstr(line, "GNU tar");
	pclose(f);
	return ok;
}

RK_TEST(content_members)
{
	struct rk_composite elf = RK_COMPOSITE_INIT, text = RK_COMPOSITE_INIT;
	struct rk_composite tar = RK_COMPOSITE_INIT;
	char patched[sizeof(blob_e)], cmd[256], *got, *want;
	size_t wlen;

	if (!have_gnu_tar())
		RK_SKIP("GNU tar is not installed");
	for (size_t i = 0; i < sizeof(blob_a); i++)
		blob_a[i] = (char)('a' + i % 26);
	for (size_t i = 0; i < sizeof(blob_e); i++)
		blob_e[i] = (char)(i * 7);
	/* an ELF-like file: a blob with 8 bytes patched at 1000 */
	RK_ASSERT_EQ_INT(0, rk_composite_add_source(&elf, ID_E, sizeof(blob_e), NULL, NULL));
	RK_ASSERT_EQ_INT(0, rk_composite_source(&elf, 0, 0, sizeof(blob_e)));
	RK_ASSERT_EQ_INT(0, rk_composite_write(&elf, 1000, "PATCHED!", 8));
	memcpy(patched, blob_e, sizeof(blob_e));
	memcpy(patched + 1000, "PATCHED!", 8);
	/* a file of literal bytes only */
	RK_ASSERT_EQ_INT(0, rk_composite_bytes(&text, "#!/bin/sh\nexit 0\n", 17));
	{
		const struct rk_tar_member m[] = {
			{.path = "./", .mode = S_IFDIR | 0755},
			{.path = "./a",
			 .mode = S_IFREG | 0644,
			 .size = sizeof(blob_a),
			 .blob = ID_A},
			{.path = "./bin/", .mode = S_IFDIR | 0755},
			{.path = "./bin/elf",
			 .mode = S_IFREG | 0755,
			 .size = elf.size,
			 .content = &elf},
			{.path = "./bin/sh", .mode = S_IFREG | 0755, .size = 17, .content = &text},
		};
		struct rk_tar_member bad = m[4];

		RK_ASSERT_EQ_INT(0, rk_tar_layout_build(m, 5, T0, &tar));
		bad.size = 16;
		RK_ASSERT_EQ_INT(-EINVAL, rk_tar_layout_build(&bad, 1, T0, &tar));
	}
	/* the blob member's source first, then the content member's, renumbered */
	RK_ASSERT_EQ_INT(2, tar.nsources);
	RK_ASSERT_EQ_STR(ID_A, tar.sources[0].id);
	RK_ASSERT_EQ_STR(ID_E, tar.sources[1].id);
	got = malloc(tar.size);
	RK_ASSERT(got != NULL);
	RK_ASSERT_EQ_INT((ssize_t)tar.size,
			 rk_composite_pread(&tar, read_blob, &tar, got, tar.size, 0));

	fx_write("t/a", blob_a, sizeof(blob_a));
	fx_write("t/bin/elf", patched, sizeof(patched));
	fx_write("t/bin/sh", "#!/bin/sh\nexit 0\n", 17);
	RK_ASSERT_EQ_INT(0, system("chmod 755 t t/bin t/bin/elf t/bin/sh && chmod 644 t/a"));
	snprintf(cmd, sizeof(cmd),
		 "cd t && tar --format=gnu --sort=name --owner=0 --group=0 --numeric-owner "
		 "--mtime=@%d -cf ../gnu.tar .",
		 T0);
	RK_ASSERT_EQ_INT(0, system(cmd));
	want = fx_read("gnu.tar", &wlen);
	RK_ASSERT_EQ_INT(wlen, tar.size);
	RK_ASSERT_EQ_MEM(want, got, wlen);
	free(want);
	free(got);
	rk_composite_release(&tar);
	rk_composite_release(&elf);
	rk_composite_release(&text);
}
