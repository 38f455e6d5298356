/* pkg_content.c: the files of a native package (pkg_content.h), a service of the
 * packages view: TheRock's build_package.py copies the stage directories a package's
 * definition selects into the install prefix, after runpath_to_rpath.py has rewritten
 * the artifacts (patchelf --force-rpath --set-rpath with the same path: the DT_RUNPATH
 * entry's tag becomes DT_RPATH, nothing else moves; rocm.cfg: enable-new-dtags ->
 * disable-new-dtags). Here the copy is a private tree of the artifacts' blobs and the
 * rewrite a splice over them. */
#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk/cache.h"
#include "rk/elf_info.h"
#include "rk/log.h"
#include "cache/composite_read.h"
#include "cache/memo.h"
#include "engine/vfs_int.h"
#include "formats/gpu/elf_runpath.h"
#include "services/confine.h"
#include "services/pkg_content.h"

#define CFG_MAX (1 << 20)

struct fixup {
	struct rk_vfs *v;
	struct rk_blob_cursor cur;
	uint64_t installed;
};

static void become_composite(struct node *n, struct rk_composite *c)
{
	(void)vfs_file_set_composite(n, c); /* n is private: it cannot fail */
}

/* DT_RUNPATH -> DT_RPATH: one tag rewritten in place (formats/gpu/elf_runpath.h). */
static int fix_runpath(struct node *n, const struct rk_elf_info *e)
{
	struct rk_composite *c;
	int rc = rk_elf_runpath_to_rpath(e, vfs_node_blob(n), vfs_node_size(n),
					 vfs_node_blob_origin(n), &c);

	if (!rc && c)
		become_composite(n, c);
	return rc;
}

/* rocm.cfg: the compiler's default flags, told to write DT_RPATH. */
static int fix_cfg(struct fixup *f, struct node *n, struct rk_err *err)
{
	static const char from[] = "enable-new-dtags", to[] = "disable-new-dtags";
	struct rk_composite *c;
	char *text, *p, *out;
	size_t len = vfs_node_size(n), olen = 0;
	int rc;

	if (vfs_node_size(n) > CFG_MAX)
		return 0;
	if (!(text = malloc(len + 1)))
		return -ENOMEM;
	if (pread(f->cur.fd, text, len, 0) != (ssize_t)len) {
		free(text);
		return rk_err_set(err, -EIO, "'%s': short read", vfs_node_name(n));
	}
	text[len] = '\0';
	if (!strstr(text, from)) {
		free(text);
		return 0;
	}
	if (!(out = malloc(2 * len + 1))) {
		free(text);
		return -ENOMEM;
	}
	for (p = text; p < text + len;) {
		char *hit = memmem(p, (size_t)(text + len - p), from, sizeof(from) - 1);
		size_t keep = hit ? (size_t)(hit - p) : (size_t)(text + len - p);

		memcpy(out + olen, p, keep);
		olen += keep;
		p += keep;
		if (hit) {
			memcpy(out + olen, to, sizeof(to) - 1);
			olen += sizeof(to) - 1;
			p += sizeof(from) - 1;
		}
	}
	free(text);
	rc = (c = calloc(1, sizeof(*c))) ? rk_composite_bytes(c, out, olen) : -ENOMEM;
	free(out);
	if (rc) {
		rk_composite_free(c);
		return rc;
	}
	become_composite(n, c);
	return 0;
}

static int fix_file(struct fixup *f, struct node *n, struct rk_err *err)
{
	struct rk_source s = {.size = vfs_node_size(n), .origin = vfs_node_blob_origin(n)};
	unsigned char magic[4];
	struct rk_elf_info e;
	int rc, cfg = !strcmp(vfs_node_name(n), "rocm.cfg");

	if (!vfs_node_blob(n) || (vfs_node_size(n) < 64 && !cfg))
		return 0;
	memcpy(s.id, vfs_node_blob(n), RK_SHA256_HEX);
	if ((rc = rk_blob_cursor_open(&f->cur, f->v->cache, &s, err)))
		return rc;
	if (cfg)
		return fix_cfg(f, n, err);
	if (pread(f->cur.fd, magic, 4, 0) != 4 || memcmp(magic, "\177ELF", 4))
		return 0;
	rk_elf_info_fd(f->cur.fd, &e);
	return e.runpath_tag_off ? fix_runpath(n, &e) : 0;
}

/* Every file below dir (a hardlink's second entry finds it fixed; its size counts again,
 * as upstream's copy makes two files of it). */
static int fix_tree(struct fixup *f, struct node *dir, struct rk_err *err)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < vfs_dir_count(dir); i++) {
		struct node *n = vfs_dir_node(dir, i);

		if (S_ISDIR(vfs_node_mode(n)))
			rc = fix_tree(f, n, err);
		else if (S_ISREG(vfs_node_mode(n))) {
			rc = fix_file(f, n, err);
			f->installed += vfs_node_size(n);
		}
	}
	return rc;
}

/* The directory of install prefix in private root, made as needed. */
static int prefix_dir(struct node *root, const char *prefix, struct node **out,
		      struct rk_err *err)
{
	char *path = NULL;
	const char *base;
	int rc = 0;

	while (*prefix == '/')
		prefix++;
	*out = root;
	if (*prefix) {
		rc = asprintf(&path, "%s/-", prefix) < 0 ? -ENOMEM : 0;
		if (!rc && !(*out = vfs_mkdirs(root, path, &base, 0)))
			rc = rk_err_set(err, -EINVAL, "install prefix '%s': not a path", prefix);
		free(path);
	}
	return rc;
}

int vfs_pkg_set_add(struct rk_vfs *v, const struct vfs_stage *st, size_t n, const char *prefix,
		    struct node *set, struct rk_err *err)
{
	struct node *pdir;
	int rc = prefix_dir(set, prefix, &pdir, err);

	return rc ? rc : vfs_flatten_stages(v, st, n, pdir, err);
}

int vfs_pkg_tree(struct rk_vfs *v, const struct vfs_stage *st, size_t n, const char *prefix,
		 const struct node *set, const char *what, struct node **out, uint64_t *installed,
		 struct rk_err *err)
{
	struct fixup f = {.v = v, .cur = RK_BLOB_CURSOR_INIT};
	struct node *root = vfs_tree_new("", S_IFDIR | 0755, 0), *pdir = root;
	int rc = root ? prefix_dir(root, prefix, &pdir, err) : -ENOMEM;

	if (!rc)
		rc = vfs_flatten_stages(v, st, n, pdir, err);
	/* confined below the prefix, then cut from the set as dist/ resolves it, before
	 * anything is counted */
	if (!rc && (rc = vfs_confine(pdir, NULL, what)) > 0)
		rc = 0;
	if (!rc && set && (rc = vfs_confine(root, set, what)) > 0)
		rc = 0;
	if (!rc)
		rc = fix_tree(&f, root, err);
	rk_blob_cursor_close(&f.cur);
	if (rc) {
		vfs_tree_free(root);
		return rc;
	}
	*out = root;
	*installed = f.installed;
	return 0;
}

/* Hash c's bytes from offset from on with every md (one pass). */
static int hash_composite(struct rk_vfs *v, const struct rk_composite *c, uint64_t from,
			  const EVP_MD *const *md, size_t nmd, char (*hex)[65], struct rk_err *err)
{
	EVP_MD_CTX *ctx[3] = {0};
	size_t bufsize = 1 << 20;
	char *buf = malloc(bufsize);
	int rc = buf ? 0 : -ENOMEM;

	for (size_t i = 0; !rc && i < nmd; i++)
		if (!(ctx[i] = EVP_MD_CTX_new()) || EVP_DigestInit_ex(ctx[i], md[i], NULL) != 1)
			rc = -ENOMEM;
	for (uint64_t off = from; !rc && off < c->size;) {
		ssize_t r = rk_composite_pread_blobs(v->cache, c, buf, bufsize, off, err);

		if (r <= 0) {
			rc = r < 0 ? (int)r : rk_err_set(err, -EIO, "short read at %llu",
							 (unsigned long long)off);
			break;
		}
		for (size_t i = 0; i < nmd; i++)
			EVP_DigestUpdate(ctx[i], buf, (size_t)r);
		off += (uint64_t)r;
	}
	for (size_t i = 0; i < nmd; i++) {
		unsigned char d[EVP_MAX_MD_SIZE];
		unsigned dl = 0;

		if (!rc && EVP_DigestFinal_ex(ctx[i], d, &dl) == 1)
			for (unsigned k = 0; k < dl; k++)
				snprintf(hex[i] + 2 * k, 3, "%02x", d[k]);
		EVP_MD_CTX_free(ctx[i]);
	}
	free(buf);
	return rc;
}

struct sums_memo {
	struct rk_vfs *v;
	const struct rk_composite *c;
	uint64_t from;
	const EVP_MD *const *md;
	size_t nmd;
	char (*hex)[65];
};

static int sums_load(void *ctx, char *data, size_t len)
{
	struct sums_memo *m = ctx;
	size_t pos = 0;

	for (size_t i = 0; i < m->nmd; i++) {
		size_t w = (size_t)EVP_MD_get_size(m->md[i]) * 2;

		if (!(pos + w < len && strspn(data + pos, "0123456789abcdef") == w))
			return -EINVAL;
		memcpy(m->hex[i], data + pos, w);
		m->hex[i][w] = '\0';
		pos += w + 1;
	}
	return 0;
}

static int sums_compute(void *ctx, struct rk_buf *rec, struct rk_err *err)
{
	struct sums_memo *m = ctx;
	int rc = hash_composite(m->v, m->c, m->from, m->md, m->nmd, m->hex, err);

	for (size_t i = 0; !rc && i < m->nmd; i++)
		rc = rk_buf_addf(rec, "%s%s", m->hex[i], i + 1 < m->nmd ? " " : "\n");
	return rc;
}

/* A pkghash record: "<kind><key of c, from>" -> the hex strings, space-separated. */
static int memo(struct rk_vfs *v, const char *kind, const struct rk_composite *c, uint64_t from,
		const EVP_MD *const *md, size_t nmd, char (*hex)[65], struct rk_err *err)
{
	struct sums_memo sm = {v, c, from, md, nmd, hex};
	const struct rk_memo m = {sums_load, sums_compute, &sm, 256};
	char key[RK_SHA256_HEX], at[24], rel[RK_MEMO_NAME];
	const char *parts[] = {key, at};
	int keep = v->cache && !rk_composite_key(c, key) &&
		   snprintf(at, sizeof(at), "%llu", (unsigned long long)from) > 0 &&
		   !rk_memo_name("pkghash", kind, parts, 2, rel);

	/* only a memo: one that cannot be kept is computed again next time */
	return rk_memo_load_or_compute(keep ? v->cache : NULL, "pkghash", rel, &m, NULL, err);
}

int vfs_pkg_file_digest(struct rk_vfs *v, const struct node *n, char hex[65], struct rk_err *err)
{
	const EVP_MD *md[] = {EVP_sha256()};

	if (vfs_node_blob(n)) {
		memcpy(hex, vfs_node_blob(n), RK_SHA256_HEX);
		return 0;
	}
	if (!vfs_node_composite(n))
		return rk_err_set(err, -EINVAL, "'%s': no content to hash", vfs_node_name(n));
	return memo(v, "f", vfs_node_composite(n), 0, md, 1, (char(*)[65])hex, err);
}

int vfs_pkg_sums(struct rk_vfs *v, const struct rk_composite *c, struct vfs_pkg_sums *out,
		 struct rk_err *err)
{
	const EVP_MD *md[] = {EVP_md5(), EVP_sha1(), EVP_sha256()};
	char hex[3][65];
	int rc = memo(v, "s", c, 0, md, 3, hex, err);

	if (!rc) {
		memcpy(out->md5, hex[0], sizeof(out->md5));
		memcpy(out->sha1, hex[1], sizeof(out->sha1));
		memcpy(out->sha256, hex[2], sizeof(out->sha256));
	}
	return rc;
}

int vfs_pkg_tail_sha256(struct rk_vfs *v, const struct rk_composite *c, uint64_t from, char hex[65],
			struct rk_err *err)
{
	const EVP_MD *md[] = {EVP_sha256()};

	return memo(v, "t", c, from, md, 1, (char(*)[65])hex, err);
}
