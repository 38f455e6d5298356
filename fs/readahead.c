/* readahead.c: the mount's read-ahead on a passthrough mount. The kernel reads a FUSE
 * file ahead at most the mount's read_ahead_kb (128 KiB for every FUSE mount; the INIT
 * reply's max_readahead can only lower it), so a sequential reader sends one READ per
 * 128 KiB. On a mount that passes plain files through (passthrough.c) only composites
 * (tarballs' .tar files, rewritten ELF files, bytes in memory) reach the daemon, and each
 * costs per request, not per byte: there the daemon raises the mount's read-ahead to
 * RKFS_READAHEAD_KB (libfuse's largest request: max_pages 256 from its 1 MiB max_write),
 * by writing /sys/class/bdi/MAJ:MIN/read_ahead_kb once, at the first request after INIT
 * (the kernel sets the mount's read-ahead when it reads the INIT reply). Elsewhere it is
 * left alone: through libfuse's splice pipe a plain file read in 1 MiB requests is slower
 * (docs/performance.md, "Larger requests"). Writing the file needs root; when it
 * cannot be done, the log says why once and the mount goes on as it was. */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rk/log.h"
#include "rkfs.h"

/* mountinfo's escapes (\040 for a space, \011, \012, \134) undone in place */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = 0;
}

/* The device (MAJ:MIN) of the last rockfs mount on mnt in /proc/self/mountinfo (the one
 * on top). 0, or -errno. */
static int mount_dev(const char *mnt, char *dev, size_t size)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL, *tok, *save;
	size_t cap = 0;
	int rc = -ENOENT;

	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		/* id parent MAJ:MIN root mountpoint options [optional...] - fstype source ... */
		char *fields[5], *type = NULL;
		int i = 0;

		for (tok = strtok_r(line, " \n", &save); tok && i < 5;
		     tok = strtok_r(NULL, " \n", &save))
			fields[i++] = tok;
		while (tok && strcmp(tok, "-"))
			tok = strtok_r(NULL, " \n", &save);
		if (tok)
			type = strtok_r(NULL, " \n", &save);
		if (i < 5 || !type || strcmp(type, "fuse.rockfs"))
			continue;
		unescape(fields[4]);
		if (!strcmp(fields[4], mnt))
			rc = snprintf(dev, size, "%s", fields[2]) < (int)size ? 0 : -ENAMETOOLONG;
	}
	free(line);
	fclose(f);
	return rc;
}

void rkfs_readahead_first_request(struct rkfs *fs)
{
	char dev[32], path[96], val[16];
	int fd, rc = 0;
	ssize_t n;

	if (atomic_load_explicit(&fs->ra.done, memory_order_relaxed) ||
	    atomic_exchange(&fs->ra.done, 1))
		return;
	if (!fs->passthrough || !fs->mountpoint)
		return; /* (status says: the kernel's) */
	if ((rc = mount_dev(fs->mountpoint, dev, sizeof(dev)))) {
		rk_info("read-ahead: left at the kernel's: the mount's device: %s", strerror(-rc));
		return;
	}
	snprintf(path, sizeof(path), "/sys/class/bdi/%s/read_ahead_kb", dev);
	n = snprintf(val, sizeof(val), "%d\n", RKFS_READAHEAD_KB);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0 || write(fd, val, (size_t)n) != n) {
		rk_info("read-ahead: left at the kernel's: %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	atomic_store(&fs->ra.kb, RKFS_READAHEAD_KB);
	rk_info("read-ahead: %d KiB (%s)", RKFS_READAHEAD_KB, path);
}
