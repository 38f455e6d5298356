/* cmd_status.c: rockpack status MOUNTPOINT: what a running rockfs is doing, from the
 * hidden file .rockfs-status at its root (fs/status.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rk/buf.h"
#include "cli_util.h"
#include "rockpack.h"

/* "key: value" lines as one JSON object: values of digits only are numbers. */
static int to_json(const char *text, struct rk_buf *b)
{
	const char *line = text;
	int first = 1;

	if (rk_buf_adds(b, "{"))
		return -ENOMEM;
	while (*line) {
		const char *nl = strchr(line, '\n'), *colon = strstr(line, ": ");
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char key[64], val[4096];

		if (colon && colon < line + len && (size_t)(colon - line) < sizeof(key) &&
		    len - (size_t)(colon - line) - 2 < sizeof(val)) {
			size_t vlen = len - (size_t)(colon - line) - 2;

			snprintf(key, sizeof(key), "%.*s", (int)(colon - line), line);
			snprintf(val, sizeof(val), "%.*s", (int)vlen, colon + 2);
			if (rk_buf_adds(b, first ? "\"" : ", \"") || rk_buf_adds(b, key) ||
			    rk_buf_adds(b, "\": ") ||
			    (vlen && strspn(val, "0123456789") == vlen
				     ? rk_buf_adds(b, val)
				     : rk_buf_add_json_str(b, val)))
				return -ENOMEM;
			first = 0;
		}
		line += len + (nl ? 1 : 0);
	}
	return rk_buf_adds(b, "}\n") ? -ENOMEM : 0;
}

static int cmd_status(const struct rp_opts *o, int argc, char **argv)
{
	struct rk_buf b = RK_BUF_INIT, path = RK_BUF_INIT;
	char text[4096];
	ssize_t n = -1;
	int ret = 1, fd = -1;

	for (int i = 0; i < argc; i++)
		if (rp_is_option(argv[i]))
			return rp_usage(o, "status: unknown option '%s'", argv[i]);
	if (argc != 1)
		return rp_usage(o, "usage: rockpack status MOUNTPOINT [--json]");
	if (rk_buf_addf(&path, "%s/.rockfs-status", argv[0]))
		return rp_fail("out of memory");
	fd = open(path.buf, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		n = read(fd, text, sizeof(text) - 1); /* the daemon answers in one read */
	if (fd < 0 || n < 0) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		rk_buf_release(&path);
		if (e == ENOENT || e == ENOTDIR)
			return rp_fail("%s: not the root of a rockfs mount (it has no "
				       ".rockfs-status)",
				       argv[0]);
		return rp_fail("%s: %s", argv[0], strerror(e));
	}
	close(fd);
	rk_buf_release(&path);
	text[n] = 0;
	if (!o->json) {
		fputs(text, stdout);
		ret = 0;
	} else if (to_json(text, &b)) {
		rp_fail("out of memory");
	} else {
		fputs(b.buf, stdout);
		ret = 0;
	}
	rk_buf_release(&b);
	return ret;
}

const struct rp_command rp_cmd_status = {
	"status",
	cmd_status,
	"what a running rockfs mount is doing",
	"usage: rockpack status MOUNTPOINT [--json]\n"
	"\n"
	"Print what the rockfs daemon serving MOUNTPOINT is doing: its version, store and\n"
	"cache, runs listed, archives being decompressed and waiting for a slot, archives\n"
	"decompressed and loaded from the cache, errors by kind (archive, transient, cache),\n"
	"network requests and bytes fetched, cache use. The daemon answers through the\n"
	"hidden file MOUNTPOINT/.rockfs-status (cat(1) reads it too); nothing is started\n"
	"or changed. With --json, one object.\n",
	NULL,
};
