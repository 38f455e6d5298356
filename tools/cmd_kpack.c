/* cmd_kpack.c: rockpack kpack show|extract|resolve: look inside kpack files.
 *
 *   kpack show FILE.kpack                 group, arches, scheme and every code object
 *   kpack extract FILE.kpack KEY ARCH -o OUT
 *   kpack resolve BINARY --arch A[,A...]  what the HIP runtime would load for each
 *                                         wrapper of a split host binary: index,
 *                                         sha256, size and target of the code object
 *   kpack split FAT -o DIR [--group G] [--path REL] [--compression zstd|none]
 *                                         split one fat binary file: DIR/REL (default
 *                                         its name) is the host binary in split form,
 *                                         DIR/.kpack/<G>_<arch>.kpack its device code
 *                                         (kernel name REL, group G, default "kpack")
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk/bundle.h"
#include "rk/composite.h"
#include "rk/hash.h"
#include "rk/kpack.h"
#include "rk/kpack_binary.h"
#include "rk/kpack_elf.h"
#include "rk/kpack_lookup.h"
#include "rk/target.h"
#include "cli_util.h"
#include "rockpack.h"

/* Map path, or print why not (1). */
static int map_file(const char *path, struct rp_map *m)
{
	int rc = rp_map(path, m);

	if (rc == -EINVAL)
		return rp_fail("%s: not a regular, non-empty file", path);
	return rc ? rp_fail("%s: %s", path, strerror(-rc)) : 0;
}

static int show(const char *file)
{
	struct rk_err err = RK_ERR_INIT;
	struct rk_kpack *k;
	struct rp_map m;
	int rc, ret = 0;

	if (map_file(file, &m))
		return 1;
	if ((rc = rk_kpack_open(m.p, m.n, &k, &err))) {
		rp_unmap(&m);
		return rp_fail("%s: %s", file, rk_err_str(&err, rc));
	}
	printf("group\t%s\nscheme\t%s\narches\t", rk_kpack_group(k),
	       rk_kpack_scheme(k) == RK_KPACK_ZSTD ? "zstd-per-kernel" : "none");
	for (size_t i = 0; i < rk_kpack_arch_count(k); i++)
		printf("%s%s", i ? " " : "", rk_kpack_arch(k, i));
	putchar('\n');
	for (size_t i = 0; !ret && i < rk_kpack_binary_count(k); i++)
		for (size_t j = 0; !ret && j < rk_kpack_arch_count(k); j++) {
			const char *key = rk_kpack_binary(k, i), *arch = rk_kpack_arch(k, j);
			char target[RK_TARGET_MAX], sha[RK_SHA256_HEX];
			void *data;
			size_t size;

			rc = rk_kpack_get(k, key, arch, &data, &size, &err);
			if (rc == -ENOENT)
				continue;
			if (!rc)
				rc = rk_codeobj_target(data, size, target, &err);
			if (!rc)
				rc = rk_sha256_buf(data, size, sha);
			if (rc)
				ret = rp_fail("%s: '%s' for '%s': %s", file, key, arch,
					      rk_err_str(&err, rc));
			else
				printf("%s\t%s\t%zu\t%s\t%s\n", key, arch, size, target, sha);
			free(data);
		}
	rk_kpack_close(k);
	rp_unmap(&m);
	return ret;
}

static int extract(const char *file, const char *key, const char *arch, const char *out)
{
	struct rk_err err = RK_ERR_INIT;
	struct rk_kpack *k;
	struct rp_map m;
	void *data = NULL;
	size_t size;
	int rc, fd, ret = 0;

	if (map_file(file, &m))
		return 1;
	rc = rk_kpack_open(m.p, m.n, &k, &err);
	if (!rc) {
		rc = rk_kpack_get(k, key, arch, &data, &size, &err);
		rk_kpack_close(k);
	}
	rp_unmap(&m);
	if (rc)
		return rp_fail("%s: %s", file, rk_err_str(&err, rc));
	fd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 || (rc = rp_write_all(fd, data, size)))
		ret = rp_fail("%s: %s", out, strerror(fd < 0 ? errno : -rc));
	if (fd >= 0 && close(fd) && !ret)
		ret = rp_fail("%s: %s", out, strerror(errno));
	free(data);
	return ret;
}

static int resolve(const char *binary, const char *arch_list)
{
	struct rk_err err = RK_ERR_INIT;
	struct rk_kpack_marker mk = {0};
	struct rk_fat_elf fe;
	struct rp_map m;
	const char *archs[16];
	char *list = strdup(arch_list), *save = NULL, real[PATH_MAX];
	size_t narchs = 0;
	int rc, ret = 0;

	if (!list)
		return rp_fail("out of memory");
	for (char *t = strtok_r(list, ",", &save); t && narchs < 16; t = strtok_r(NULL, ",", &save))
		archs[narchs++] = t;
	if (!narchs || !realpath(binary, real) || map_file(real, &m)) {
		free(list);
		return narchs ? rp_fail("%s: %s", binary, strerror(errno)) : rp_fail("no --arch");
	}
	rc = rk_kpack_elf_inspect(m.p, m.n, &fe, &err);
	if (rc == 0 || (rc == 1 && !fe.has_marker))
		ret = rp_fail("%s: not a split host binary (no .rocm_kpack_ref)", binary);
	else if (rc < 0)
		ret = rp_fail("%s: %s", binary, rk_err_str(&err, rc));
	else if ((rc = rk_kpack_marker_decode((const char *)m.p + fe.marker_off, fe.marker_size,
					      &mk, &err)))
		ret = rp_fail("%s: marker: %s", binary, rk_err_str(&err, rc));
	rp_unmap(&m);
	for (unsigned i = 0; !ret && i < fe.nwrappers; i++) {
		char target[RK_TARGET_MAX], sha[RK_SHA256_HEX];
		void *data = NULL;
		size_t size = 0;

		rc = rk_kpack_load(&mk, real, i, archs, narchs, &data, &size, &err);
		if (!rc)
			rc = rk_codeobj_target(data, size, target, &err);
		if (!rc)
			rc = rk_sha256_buf(data, size, sha);
		if (rc)
			ret = rp_fail("%s: wrapper %u: %s", binary, i, rk_err_str(&err, rc));
		else
			printf("%u\t%s\t%zu\t%s\n", i, sha, size, target);
		free(data);
	}
	rk_kpack_marker_release(&mk);
	free(list);
	return ret;
}

/* ---- split one file ---- */

struct fat {
	int fd; /* source 0 */
	const struct rk_fatbin *fb; /* source 1 + i: the payload of bundle i */
};

static ssize_t fat_read(void *ctx, uint32_t src, void *buf, size_t n, uint64_t off)
{
	const struct fat *f = ctx;
	const struct rk_bundle *b;
	ssize_t r;

	if (src == 0)
		return (r = pread(f->fd, buf, n, (off_t)off)) < 0 ? -errno : r;
	b = &f->fb->bundles[src - 1];
	if (off >= b->usize)
		return 0;
	if (n > b->usize - off)
		n = (size_t)(b->usize - off);
	memcpy(buf, b->payload + off, n);
	return (ssize_t)n;
}

/* Write composite c (sources: fat_read's) to a new file path: ranges of the fat binary
 * (source 0) with copy_file_range, kernel-side (most of a rewritten host binary), literal
 * bytes straight from the arena (the compressed code objects of a zstd .kpack), the rest
 * through the one composite reader, a MiB at a time. */
static int write_composite(const struct rk_composite *c, struct fat *f, const char *path,
			   mode_t mode)
{
	enum { CHUNK = 1 << 20 };
	char *buf = malloc(CHUNK);
	int out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode), rc = 0, cfr = 1;

	if (out < 0 || !buf) {
		rc = rp_fail("%s: %s", path, out < 0 ? strerror(errno) : "out of memory");
		if (out >= 0)
			close(out);
		free(buf);
		return rc;
	}
	for (size_t i = 0; !rc && i < c->npieces; i++) {
		const struct rk_piece *p = &c->pieces[i];

		for (uint64_t done = 0; !rc && done < p->len;) {
			size_t n = p->len - done < CHUNK ? (size_t)(p->len - done) : CHUNK;
			ssize_t r;
			int w = 0;

			r = -EXDEV;
			if (p->kind == RK_PIECE_SOURCE && p->src == 0 && cfr) {
				loff_t in = (loff_t)(p->at + done);

				if ((r = copy_file_range(f->fd, &in, out, NULL, n, 0)) < 0)
					r = -errno;
				/* across file systems (a mounted fat binary), or not offered */
				if (r == -EXDEV || r == -EOPNOTSUPP || r == -EINVAL || r == -ENOSYS)
					cfr = 0;
			}
			if (p->kind == RK_PIECE_BYTES) { /* straight from the arena, no copy */
				w = rp_write_all(out, c->arena + p->at + done, n);
				r = (ssize_t)n;
			} else if (r == -EXDEV || (!cfr && r < 0)) {
				if ((r = rk_composite_pread(c, fat_read, f, buf, n,
							    p->off + done)) > 0)
					w = rp_write_all(out, buf, (size_t)r);
			}
			if (r <= 0)
				rc = rp_fail("%s: writing: %s", path,
					     r < 0 ? strerror((int)-r) : "no progress");
			else if (w)
				rc = rp_fail("%s: write: %s", path, strerror(-w));
			else
				done += (uint64_t)r;
		}
	}
	free(buf);
	if (close(out) && !rc)
		rc = rp_fail("%s: %s", path, strerror(errno));
	return rc;
}

static int split_file(const char *fat, const char *dir, const char *group, const char *rel,
		      int scheme)
{
	struct rk_err err = RK_ERR_INIT;
	struct rk_fat_elf fe;
	struct rk_fatbin fb = {0};
	struct rk_composite host = RK_COMPOSITE_INIT;
	struct rk_kpack_kernel *k = NULL;
	char **keys = NULL, path[4096];
	unsigned *index = NULL;
	size_t nk = 0;
	struct rp_map m;
	struct stat st;
	struct fat f = {-1, &fb};
	int rc, ret = 1;

	if (map_file(fat, &m))
		return 1;
	if ((f.fd = open(fat, O_RDONLY | O_CLOEXEC)) < 0 || fstat(f.fd, &st)) {
		rp_fail("%s: %s", fat, strerror(errno));
		goto out;
	}
	rc = rk_kpack_elf_inspect(m.p, m.n, &fe, &err);
	if (rc <= 0 || fe.fatbin_nobits) {
		rp_fail("%s: %s", fat,
			rc < 0	  ? rk_err_str(&err, rc)
			: rc == 0 ? "not a fat binary (no .hip_fatbin)"
				  : "already split");
		goto out;
	}
	if ((rc = rk_fatbin_parse((const char *)m.p + fe.fatbin_off, fe.fatbin_size, 0, &fb,
				  &err))) {
		rp_fail("%s: .hip_fatbin: %s", fat, rk_err_str(&err, rc));
		goto out;
	}
	k = calloc(fb.nentries + 1, sizeof(*k));
	keys = calloc(fb.nentries + 1, sizeof(*keys));
	index = calloc(fb.nentries + 1, sizeof(*index));
	if (!k || !keys || !index) {
		rp_fail("out of memory");
		goto out;
	}
	if ((rc = rk_kpack_check_entries(m.p, &fe, &fb, index, &err))) {
		rp_fail("%s: %s", fat, rk_err_str(&err, rc));
		goto out;
	}
	for (size_t i = 0; i < fb.nentries; i++) {
		const struct rk_bundle_entry *e = &fb.entries[i];
		const struct rk_bundle *b = &fb.bundles[e->bundle];

		if (asprintf(&keys[nk], "%s#%u", rel, index[i]) < 0) {
			rp_fail("out of memory");
			goto out;
		}
		k[nk] = (struct rk_kpack_kernel){
			.key = keys[nk],
			.arch = e->arch,
			.target = e->id,
			.src = b->payload ? (uint32_t)(e->bundle + 1) : 0,
			.off = b->payload ? e->off : fe.fatbin_off + e->off,
			.size = e->size,
		};
		nk++;
	}
	if ((rc = rk_kpack_host_rewrite(m.p, m.n, rel, group, rel, &host, &err))) {
		rp_fail("%s: %s", fat, rk_err_str(&err, rc));
		goto out;
	}
	snprintf(path, sizeof(path), "%s/.kpack", dir);
	if ((mkdir(dir, 0755) && errno != EEXIST) || (mkdir(path, 0755) && errno != EEXIST)) {
		rp_fail("%s: %s", path, strerror(errno));
		goto out;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	if (strchr(rel, '/') || write_composite(&host, &f, path, st.st_mode & 07777)) {
		if (strchr(rel, '/'))
			rp_fail("--path '%s': directories are not created here", rel);
		goto out;
	}
	ret = 0;
	for (size_t i = 0; !ret && i < nk; i++) {
		struct rk_kpack_kernel *sel = calloc(nk, sizeof(*sel));
		struct rk_composite sp = RK_COMPOSITE_INIT;
		const char *arches[1] = {k[i].arch};
		size_t n = 0;
		int first = 1;

		for (size_t j = 0; j < i; j++)
			first &= strcmp(k[j].arch, k[i].arch) != 0;
		if (!first) {
			free(sel);
			continue; /* that arch is written */
		}
		if (!sel) {
			ret = rp_fail("out of memory");
			break;
		}
		for (size_t j = i; j < nk; j++)
			if (!strcmp(k[j].arch, k[i].arch))
				sel[n++] = k[j];
		rc = rk_kpack_build(group, arches, 1, sel, n, scheme, fat_read, &f, &sp, &err);
		snprintf(path, sizeof(path), "%s/.kpack/%s_%s.kpack", dir, group, k[i].arch);
		if (rc)
			ret = rp_fail("%s: %s", path, rk_err_str(&err, rc));
		else
			ret = write_composite(&sp, &f, path, 0644);
		rk_composite_release(&sp);
		free(sel);
	}
out:
	for (size_t i = 0; keys && i < nk; i++)
		free(keys[i]);
	free(keys);
	free(k);
	free(index);
	rk_composite_release(&host);
	rk_fatbin_release(&fb);
	if (f.fd >= 0)
		close(f.fd);
	rp_unmap(&m);
	return ret;
}

static int split_cmd(const struct rp_opts *o, int argc, char **argv)
{
	const char *fat = NULL, *dir = NULL, *group = "kpack", *rel = NULL, *comp = "zstd";

	for (int i = 0; i < argc; i++) {
		const char **val = !strcmp(argv[i], "-o")	       ? &dir
				   : !strcmp(argv[i], "--group")       ? &group
				   : !strcmp(argv[i], "--path")	       ? &rel
				   : !strcmp(argv[i], "--compression") ? &comp
								       : NULL;

		if (val) {
			if (!(*val = rp_value(o, argc, argv, &i)))
				return 2;
		} else if (rp_is_option(argv[i])) {
			return rp_usage(o, "kpack split: unknown option '%s'", argv[i]);
		} else if (!fat) {
			fat = argv[i];
		} else {
			return rp_usage(o, "kpack split: one FAT file, not '%s' too", argv[i]);
		}
	}
	if (!fat || !dir)
		return rp_usage(o, "usage: rockpack kpack split FAT -o DIR [--group G] "
				   "[--path NAME] [--compression zstd|none]");
	if (strcmp(comp, "zstd") && strcmp(comp, "none"))
		return rp_usage(o, "kpack split: --compression '%s': want zstd or none", comp);
	if (rel && strchr(rel, '/'))
		return rp_usage(o, "kpack split: --path '%s': directories are not created here",
				rel);
	if (!rel)
		rel = strrchr(fat, '/') ? strrchr(fat, '/') + 1 : fat;
	return split_file(fat, dir, group, rel,
			  strcmp(comp, "zstd") ? RK_KPACK_NONE : RK_KPACK_ZSTD);
}

static int cmd_kpack(const struct rp_opts *o, int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[0], "show"))
		return show(argv[1]);
	if (argc == 6 && !strcmp(argv[0], "extract") && !strcmp(argv[4], "-o"))
		return extract(argv[1], argv[2], argv[3], argv[5]);
	if (argc == 4 && !strcmp(argv[0], "resolve") && !strcmp(argv[2], "--arch"))
		return resolve(argv[1], argv[3]);
	if (argc >= 1 && !strcmp(argv[0], "split"))
		return split_cmd(o, argc - 1, argv + 1);
	return rp_usage(o, "usage: rockpack kpack show FILE | extract FILE KEY ARCH -o OUT | "
			   "resolve BINARY --arch A[,A...] | split FAT -o DIR [...]");
}

const struct rp_command rp_cmd_kpack = {
	"kpack",
	cmd_kpack,
	"look inside .kpack archives and split binaries; split one file",
	"usage: rockpack kpack show FILE\n"
	"       rockpack kpack extract FILE KEY ARCH -o OUT\n"
	"       rockpack kpack resolve BINARY --arch A[,A...]\n"
	"       rockpack kpack split FAT -o DIR [--group G] [--path NAME]\n"
	"                            [--compression zstd|none]\n"
	"\n"
	"show      every code object of a .kpack archive with its target and sha256\n"
	"extract   one code object (KEY, ARCH) into the file OUT\n"
	"resolve   what the HIP runtime would load for each wrapper of a split binary on\n"
	"          the given device archs\n"
	"split     split one fat binary into DIR/NAME and DIR/.kpack/<G>_<arch>.kpack\n",
	" -o --arch --group --path --compression ",
};
