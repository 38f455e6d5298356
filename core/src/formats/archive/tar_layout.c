/* tar_layout.c: a synthesized GNU-format tar archive as a composite file (tar_layout.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "formats/archive/tar_layout.h"

#define BLOCK 512
#define NAME_FIELD 100

/* A zeroed header block appended to c, for the caller to fill in (NULL: ENOMEM). */
static char *new_block(struct rk_composite *c)
{
	return rk_composite_bytes_room(c, BLOCK);
}

static void octal(char *field, size_t width, uint64_t v)
{
	/* width-1 zero-padded digits and a NUL, as GNU tar writes them */
	snprintf(field, width, "%0*llo", (int)width - 1, (unsigned long long)v);
}

static void checksum(char *h)
{
	unsigned sum = 0;

	memset(h + 148, ' ', 8);
	for (int i = 0; i < BLOCK; i++)
		sum += (unsigned char)h[i];
	snprintf(h + 148, 8, "%06o", sum);
	h[155] = ' ';
}

/* Fill the fields every header shares. */
static void fill(char *h, const char *name, uint32_t mode, uint64_t size, int64_t mtime, char type)
{
	size_t n = strlen(name);

	memcpy(h, name, n < NAME_FIELD ? n : NAME_FIELD);
	octal(h + 100, 8, mode & 07777);
	octal(h + 108, 8, 0);
	octal(h + 116, 8, 0);
	octal(h + 124, 12, size);
	octal(h + 136, 12, (uint64_t)mtime);
	h[156] = type;
	memcpy(h + 257, "ustar  ", 8); /* GNU magic "ustar " and version " \0" */
}

/* A ././@LongLink record of type 'L' (name) or 'K' (link target) for s. */
static int long_record(struct rk_composite *c, char type, const char *s)
{
	size_t len = strlen(s) + 1;
	char *h = new_block(c);

	if (!h)
		return -ENOMEM;
	fill(h, "././@LongLink", 0644, len, 0, type);
	checksum(h);
	for (size_t done = 0; done < len; done += BLOCK) {
		size_t chunk = len - done < BLOCK ? len - done : BLOCK;

		if (!(h = new_block(c)))
			return -ENOMEM;
		memcpy(h, s + done, chunk); /* the last chunk ends with s's NUL */
	}
	return 0;
}

static int add_member(struct rk_composite *c, const struct rk_tar_member *m, int64_t mtime)
{
	char type = S_ISDIR(m->mode) ? '5' : m->hardlink ? '1' : S_ISLNK(m->mode) ? '2' : '0';
	uint64_t size = type == '0' ? m->size : 0;
	uint32_t src;
	char *h;
	int rc;

	if (size >= (1ull << 33)) /* 11 octal digits; GNU tar would switch to base-256 */
		return -EFBIG;
	if (m->link && strlen(m->link) > NAME_FIELD && (rc = long_record(c, 'K', m->link)))
		return rc;
	if (strlen(m->path) > NAME_FIELD && (rc = long_record(c, 'L', m->path)))
		return rc;
	if (!(h = new_block(c)))
		return -ENOMEM;
	fill(h, m->path, m->mode, size, mtime, type);
	if (m->link)
		memcpy(h + 157, m->link,
		       strlen(m->link) < NAME_FIELD ? strlen(m->link) : NAME_FIELD);
	checksum(h);
	if (m->content && (type != '0' || m->content->size != size))
		return -EINVAL;
	if (!size)
		return 0;
	if (m->content)
		rc = rk_composite_append(c, m->content);
	else if (!m->blob)
		return -EINVAL;
	else if (!(rc = rk_composite_add_source(c, m->blob, size, m->origin, &src)))
		rc = rk_composite_source(c, src, 0, size);
	if (rc)
		return rc;
	return rk_composite_zero(c, (BLOCK - size % BLOCK) % BLOCK);
}

int rk_tar_layout_build(const struct rk_tar_member *members, size_t n, int64_t mtime,
			struct rk_composite *out)
{
	struct rk_composite c = RK_COMPOSITE_INIT;
	int rc = 0;

	for (size_t i = 0; !rc && i < n; i++)
		rc = add_member(&c, &members[i], mtime);
	if (!rc)
		rc = rk_composite_zero(&c, 2 * BLOCK);
	if (!rc)
		rc = rk_composite_zero(&c,
				       (RK_TAR_RECORD - c.size % RK_TAR_RECORD) % RK_TAR_RECORD);
	if (rc) {
		rk_composite_release(&c);
		return rc;
	}
	*out = c;
	return 0;
}
