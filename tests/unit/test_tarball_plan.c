/* test_tarball_plan.c: a tree as GNU tar lays it out (services/tree_tar.c, vfs_tree_tar)
 * over small private trees whose files are blobs of a vfs opened on an empty store: member
 * order (--sort=name), the "./" root, hardlinks to their first path, every mtime the
 * newest, GNU long names, sizes; and, where GNU tar is installed, the bytes of
 *   tar --format=gnu --sort=name --owner=0 --group=0 --numeric-owner --mtime=@T -cf - .
 * run over the same tree written to a temporary directory. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk/cache.h"
#include "rk/log.h"
#include "rk/vfs.h"
#include "cache/composite_read.h"
#include "engine/vfs_int.h"
#include "services/tree_tar.h"
#include "rk_fixture.h"
#include "rk_test.h"

#define T0 1767225600

/* A vfs on an empty store: its cache holds the trees' blobs. */
static struct rk_vfs *open_vfs(void)
{
	struct rk_vfs_opts o = {.store = "store", .cache_dir = "cache", .ingest_jobs = 1};

	fx_mkdirs("store");
	return fx_vfs_open(&o);
}

static struct node *dir(struct node *parent, const char *name, unsigned perm, int64_t mtime)
{
	struct node *n = vfs_node_add(parent, name, S_IFDIR | perm, mtime);

	RK_ASSERT(n != NULL);
	return n;
}

static struct node *file(struct rk_vfs *v, struct node *parent, const char *name, unsigned perm,
			 int64_t mtime, const char *text)
{
	struct node *n = vfs_node_add(parent, name, S_IFREG | perm, mtime);
	char id[RK_SHA256_HEX];

	RK_ASSERT(n != NULL);
	if (strlen(text)) {
		RK_ASSERT_EQ_INT(0, rk_blob_put(v->cache, text, strlen(text), id, NULL));
		RK_ASSERT_EQ_INT(0, vfs_file_set_blob(n, id, strlen(text)));
	}
	return n;
}

static struct node *symlink_node(struct node *parent, const char *name, const char *target,
				 int64_t mtime)
{
	struct node *n = vfs_symlink(parent, name, mtime, target);

	RK_ASSERT(n != NULL);
	return n;
}

static void hardlink(struct node *parent, const char *name, struct node *target)
{
	RK_ASSERT_EQ_INT(0, vfs_dent_add(parent, name, target));
	vfs_node_nlink_add(target, 1);
}

static char long_name[160], long_target[200];

/* The test tree (entries added out of order on purpose); its newest mtime is T0 + 30. */
static struct node *make_tree(struct rk_vfs *v)
{
	struct node *root = vfs_tree_new("t", S_IFDIR | 0755, T0 + 99), *d, *z;

	RK_ASSERT(root != NULL);
	memset(long_name, 'n', 120);
	strcpy(long_name + 120, ".txt");
	memset(long_target, 't', 150);
	long_target[150] = '\0';
	file(v, root, "a.txt", 0644, T0 + 5, "A text\n");
	d = dir(root, "lib", 0755, T0 + 1);
	z = file(v, d, "libz.so.1", 0755, T0 + 2, "libz contents\n");
	symlink_node(d, "libz.so", "libz.so.1", T0 + 3);
	hardlink(d, "libz-copy.so.1", z);
	file(v, root, "a-b", 0600, T0 + 4, "dash\n");
	file(v, root, "B.txt", 0644, T0 + 6, "upper\n");
	d = dir(root, "bin", 0750, T0 + 7);
	file(v, d, "tool", 0755, T0 + 30, "#!/bin/sh\necho tool\n");
	file(v, root, "empty", 0644, T0 + 8, "");
	d = dir(root, "long", 0755, T0 + 9);
	file(v, d, long_name, 0644, T0 + 10, "a long name\n");
	symlink_node(d, "ln", long_target, T0 + 11);
	dir(root, "zdir", 0700, T0 + 12);
	return root;
}

/* The whole archive, malloc'd. */
static unsigned char *read_layout(struct rk_vfs *v, const struct rk_composite *l)
{
	unsigned char *buf = malloc(l->size);
	uint64_t off = 0;

	RK_ASSERT(buf != NULL);
	while (off < l->size) {
		/* odd read sizes, across segment boundaries */
		size_t n = (size_t)(l->size - off < 777 ? l->size - off : 777);
		ssize_t r = rk_composite_pread_blobs(v->cache, l, buf + off, n, off, NULL);

		RK_ASSERT(r > 0);
		off += (uint64_t)r;
	}
	RK_ASSERT_EQ_INT(0, rk_composite_pread_blobs(v->cache, l, buf, 1, l->size, NULL));
	return buf;
}

static unsigned long long octal(const unsigned char *p, size_t n)
{
	unsigned long long v = 0;

	for (size_t i = 0; i < n && p[i] >= '0' && p[i] <= '7'; i++)
		v = v * 8 + (p[i] - '0');
	return v;
}

struct member {
	char path[512], link[512];
	char type;
	unsigned mode;
	unsigned long long size, mtime;
	int long_name, long_link;
};

/* Parse a GNU tar: members (at most max) into m; returns their count. */
static size_t parse(const unsigned char *t, size_t len, struct member *m, size_t max)
{
	size_t off = 0, n = 0;
	char pending_name[512] = "", pending_link[512] = "";

	RK_ASSERT_EQ_INT(0, len % RK_TAR_RECORD);
	while (off + 512 <= len) {
		const unsigned char *h = t + off;
		unsigned long long size = octal(h + 124, 12), sum = 0, want = octal(h + 148, 8);
		char type = (char)h[156];
		int zero = 1;

		for (size_t i = 0; i < 512; i++)
			zero &= !h[i];
		if (zero)
			break;
		for (size_t i = 0; i < 512; i++)
			sum += i >= 148 && i < 156 ? ' ' : h[i];
		RK_ASSERT_EQ_INT(want, sum);
		RK_ASSERT_EQ_MEM("ustar  ", h + 257, 8);
		off += 512;
		if (type == 'L' || type == 'K') {
			char *dst = type == 'L' ? pending_name : pending_link;

			RK_ASSERT_EQ_STR("././@LongLink", (const char *)h);
			RK_ASSERT(size < sizeof(pending_name));
			memcpy(dst, t + off, size);
			dst[size] = '\0';
			RK_ASSERT_EQ_INT(size - 1, strlen(dst)); /* NUL-terminated */
			off += (size + 511) / 512 * 512;
			continue;
		}
		RK_ASSERT(n < max);
		memset(&m[n], 0, sizeof(m[n]));
		m[n].type = type;
		m[n].mode = (unsigned)octal(h + 100, 8);
		m[n].size = size;
		m[n].mtime = octal(h + 136, 12);
		RK_ASSERT_EQ_INT(0, octal(h + 108, 8)); /* uid */
		RK_ASSERT_EQ_INT(0, octal(h + 116, 8)); /* gid */
		if (pending_name[0]) {
			snprintf(m[n].path, sizeof(m[n].path), "%s", pending_name);
			RK_ASSERT(
				!strncmp((const char *)h, pending_name, 100)); /* truncated copy */
			m[n].long_name = 1;
		} else {
			snprintf(m[n].path, sizeof(m[n].path), "%.100s", (const char *)h);
		}
		if (pending_link[0]) {
			snprintf(m[n].link, sizeof(m[n].link), "%s", pending_link);
			m[n].long_link = 1;
		} else {
			snprintf(m[n].link, sizeof(m[n].link), "%.100s", (const char *)h + 157);
		}
		pending_name[0] = pending_link[0] = '\0';
		if (type == '0')
			off += (size + 511) / 512 * 512;
		else
			RK_ASSERT_EQ_INT(0, size);
		n++;
	}
	/* two zero blocks, then zeros to the record */
	RK_ASSERT(off + 1024 <= len);
	for (size_t i = off; i < len; i++)
		RK_ASSERT_EQ_INT(0, t[i]);
	return n;
}

static const unsigned char *member_data(const unsigned char *t, size_t len, const char *path)
{
	size_t off = 0;

	while (off + 512 <= len && t[off]) {
		unsigned long long size = octal(t + off + 124, 12);

		if (!strncmp((const char *)t + off, path, 100) && t[off + 156] == '0')
			return t + off + 512;
		off += 512 + (size + 511) / 512 * 512;
	}
	rk_test_fail(__FILE__, __LINE__, "no member '%s'", path);
}

RK_TEST(member_order_and_types)
{
	struct rk_vfs *v = open_vfs();
	struct node *root = make_tree(v);
	struct rk_composite l = RK_COMPOSITE_INIT;
	struct member m[32];
	unsigned char *t;
	int64_t newest = 0;
	size_t n;
	char want[256];
	static const struct {
		const char *path;
		char type;
		unsigned mode;
		unsigned long long size;
		const char *link;
	} exp[] = {
		{"./", '5', 0755, 0, ""},
		{"./B.txt", '0', 0644, 6, ""},
		{"./a-b", '0', 0600, 5, ""},
		{"./a.txt", '0', 0644, 7, ""},
		{"./bin/", '5', 0750, 0, ""},
		{"./bin/tool", '0', 0755, 20, ""},
		{"./empty", '0', 0644, 0, ""},
		{"./lib/", '5', 0755, 0, ""},
		/* '-' sorts before '.': the copy is the inode's first path */
		{"./lib/libz-copy.so.1", '0', 0755, 14, ""},
		{"./lib/libz.so", '2', 0777, 0, "libz.so.1"},
		{"./lib/libz.so.1", '1', 0755, 0, "./lib/libz-copy.so.1"},
		{"./long/", '5', 0755, 0, ""},
		{"./long/ln", '2', 0777, 0, NULL},
		{NULL, '0', 0644, 12, ""}, /* the long name ("ln" < "nnn...") */
		{"./zdir/", '5', 0700, 0, ""},
	};

	RK_ASSERT_EQ_INT(0, vfs_tree_tar(root, &l, &newest));
	RK_ASSERT_EQ_INT(T0 + 30, newest);
	t = read_layout(v, &l);
	n = parse(t, l.size, m, 32);
	RK_ASSERT_EQ_INT(sizeof(exp) / sizeof(exp[0]), n);
	for (size_t i = 0; i < n; i++) {
		if (exp[i].path)
			RK_ASSERT_EQ_STR(exp[i].path, m[i].path);
		RK_ASSERT_EQ_INT(exp[i].type, m[i].type);
		RK_ASSERT_EQ_INT(exp[i].mode, m[i].mode);
		RK_ASSERT_EQ_INT(exp[i].size, m[i].size);
		if (exp[i].link)
			RK_ASSERT_EQ_STR(exp[i].link, m[i].link);
		/* every mtime is the newest */
		RK_ASSERT_EQ_INT(T0 + 30, m[i].mtime);
	}
	snprintf(want, sizeof(want), "./long/%s", long_name);
	RK_ASSERT_EQ_STR(want, m[13].path);
	RK_ASSERT(m[13].long_name && !m[12].long_name && !m[13].long_link);
	RK_ASSERT_EQ_STR(long_target, m[12].link);
	RK_ASSERT(m[12].long_link);
	/* file contents from the blobs */
	RK_ASSERT_EQ_MEM("#!/bin/sh\necho tool\n", member_data(t, l.size, "./bin/tool"), 20);
	RK_ASSERT_EQ_MEM("libz contents\n", member_data(t, l.size, "./lib/libz-copy.so.1"), 14);
	free(t);
	rk_composite_release(&l);
	vfs_tree_free(root);
	rk_vfs_close(v);
}

RK_TEST(sizes)
{
	struct rk_vfs *v = open_vfs();
	struct node *root = vfs_tree_new("t", S_IFDIR | 0755, T0), *d;
	struct rk_composite l = RK_COMPOSITE_INIT;
	char *big = malloc(10001);
	int64_t newest = -1;

	RK_ASSERT(root && big);
	/* only the root: its header, two zero blocks, padded to one record; mtime 0 */
	RK_ASSERT_EQ_INT(0, vfs_tree_tar(root, &l, &newest));
	RK_ASSERT_EQ_INT(RK_TAR_RECORD, l.size);
	RK_ASSERT_EQ_INT(0, newest);
	rk_composite_release(&l);

	/* 512 for "./" + 512 header + 10000 bytes in 20 blocks (10240) + 1024 zeros = 12288
	 * -> two records */
	memset(big, 'x', 10000);
	big[10000] = '\0';
	file(v, root, "big", 0644, T0, big);
	RK_ASSERT_EQ_INT(0, vfs_tree_tar(root, &l, NULL));
	RK_ASSERT_EQ_INT(2 * RK_TAR_RECORD, l.size);
	rk_composite_release(&l);
	/* enough members to need a third record */
	d = dir(root, "d", 0755, T0);
	for (int i = 0; i < 20; i++)
		file(v, d, fx_path("f%02d", i), 0644, T0, "x");
	RK_ASSERT_EQ_INT(0, vfs_tree_tar(root, &l, NULL));
	/* 512 (./) + 10752 (big) + 512 (d/) + 20 * 1024 + 1024 = 33280 -> 4 records */
	RK_ASSERT_EQ_INT(4 * RK_TAR_RECORD, l.size);
	rk_composite_release(&l);
	free(big);
	vfs_tree_free(root);
	rk_vfs_close(v);
}

/* ---- GNU tar as the oracle ---- */

static void materialize(struct rk_vfs *v, const struct node *d, const char *path)
{
	RK_ASSERT(mkdir(path, 0700) == 0 || errno == EEXIST);
	for (size_t i = 0; i < vfs_dir_count(d); i++) {
		const struct node *n = vfs_dir_node(d, i);
		const char *p = fx_path("%s/%s", path, vfs_dir_name(d, i));
		char buf[4096];

		if (S_ISDIR(vfs_node_mode(n))) {
			char sub[4096];

			snprintf(sub, sizeof(sub), "%s", p);
			materialize(v, n, sub);
		} else if (S_ISLNK(vfs_node_mode(n))) {
			RK_ASSERT_EQ_INT(0, symlink(vfs_node_target(n), p));
		} else {
			/* a second name of an inode already written: a hard link */
			int found = 0;

			for (size_t j = 0; j < i; j++)
				if (vfs_dir_node(d, j) == n) {
					RK_ASSERT_EQ_INT(
						0, link(fx_path("%s/%s", path, vfs_dir_name(d, j)),
							p));
					found = 1;
				}
			if (found)
				continue;
			if (vfs_node_size(n)) {
				int fd;

				RK_ASSERT(vfs_node_size(n) <= sizeof(buf));
				RK_ASSERT_EQ_INT(0, rk_blob_open(v->cache, vfs_node_blob(n),
								 vfs_node_size(n), &fd, NULL));
				RK_ASSERT_EQ_INT((long long)vfs_node_size(n),
						 pread(fd, buf, vfs_node_size(n), 0));
				close(fd);
			}
			fx_write(p, buf, vfs_node_size(n));
			RK_ASSERT_EQ_INT(0, chmod(p, vfs_node_mode(n) & 07777));
		}
	}
	RK_ASSERT_EQ_INT(0, chmod(path, vfs_node_mode(d) & 07777));
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

static void compare_with_gnu_tar(struct rk_vfs *v, struct node *root)
{
	struct rk_composite l = RK_COMPOSITE_INIT;
	int64_t newest = 0;
	unsigned char *t;
	char *want, cmd[512];
	size_t wlen;

	if (!have_gnu_tar())
		RK_SKIP("GNU tar is not installed");
	RK_ASSERT_EQ_INT(0, vfs_tree_tar(root, &l, &newest));
	t = read_layout(v, &l);
	materialize(v, root, "m");
	snprintf(cmd, sizeof(cmd),
		 "cd m && tar --format=gnu --sort=name --owner=0 --group=0 --numeric-owner "
		 "--mtime=@%lld -cf ../gnu.tar .",
		 (long long)newest);
	RK_ASSERT_EQ_INT(0, system(cmd));
	want = fx_read("gnu.tar", &wlen);
	RK_ASSERT_EQ_INT(wlen, l.size);
	for (size_t i = 0; i < wlen; i++)
		if (t[i] != (unsigned char)want[i])
			rk_test_fail(__FILE__, __LINE__,
				     "byte %zu (block %zu, +%zu): GNU tar %02x, layout %02x", i,
				     i / 512, i % 512, (unsigned char)want[i], t[i]);
	free(want);
	free(t);
	rk_composite_release(&l);
}

RK_TEST(gnu_tar_bytes)
{
	struct rk_vfs *v = open_vfs();
	struct node *root = make_tree(v);

	compare_with_gnu_tar(v, root);
	vfs_tree_free(root);
	rk_vfs_close(v);
}

RK_TEST(gnu_tar_bytes_deep_and_sorted)
{
	struct rk_vfs *v = open_vfs();
	struct node *root = vfs_tree_new("t", S_IFDIR | 0755, T0), *d = root;
	char name[8];

	/* names that sort differently by byte and by locale, a deep path over 100 bytes in
	 * total (each component short), a file bigger than a record */
	file(v, root, "_under", 0644, T0, "u\n");
	file(v, root, "Zed", 0644, T0, "Z\n");
	file(v, root, "a b", 0644, T0, "space\n");
	file(v, root, "a", 0644, T0, "a\n");
	file(v, root, "a0", 0644, T0 + 1, "a0\n");
	for (int i = 0; i < 12; i++) {
		snprintf(name, sizeof(name), "dir%03d", i);
		d = dir(d, name, 0755, T0 + 2);
	}
	file(v, d, "leaf-in-a-deep-directory", 0644, T0 + 3, "deep\n");
	RK_ASSERT(strlen("./dir000/dir001/dir002/dir003/dir004/dir005/dir006/dir007/dir008/dir009/"
			 "dir010/dir011/leaf-in-a-deep-directory") > 100);
	compare_with_gnu_tar(v, root);
	vfs_tree_free(root);
	rk_vfs_close(v);
}
