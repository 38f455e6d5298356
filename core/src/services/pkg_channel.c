/* pkg_channel.c: release/packages/{deb,rpm}/all/ and latest (pkg_channel.h).
 *
 *   deb/all/dists/stable/{Release,InRelease,Release.gpg}, main/binary-amd64/Packages{,.gz}
 *   deb/all/pool/<YYYYMMDD>-<run id>/<file>.deb  -> ../../../../../../RUN/packages/deb/pool/main/<file>
 *   rpm/all/repodata/{repomd.xml,repomd.xml.asc,primary,filelists,other .xml.gz}
 *   rpm/all/<YYYYMMDD>-<run id>/<file>.rpm      -> ../../../../../RUN/packages/rpm/x86_64/<file>
 *   rpm/all/RPM-GPG-KEY                          (with -o sign_key)
 *   {deb,rpm}/latest -> <YYYYMMDD>-<run id>      the highest run id
 *
 * The runs are the channel's: the run directories its parent lists (the release view
 * chose them), oldest run id first, as upstream's aggregate scripts concatenate their
 * sources in order. Each run's part of the index (its Packages stanzas, its repodata's
 * package entries, paths rewritten) is read from the run's own repository once and
 * remembered in the cache (area "release", keyed like the release view's names: the
 * run's name and tree digest, the kind, the views' options as given), so all/ after a
 * remount reads no archive and makes no package. A run whose repository cannot be made,
 * or is CI's stored one (its index is not in memory), is left out with a log line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libdeflate.h>

#include "rk/buf.h"
#include "rk/hash.h"
#include "rk/log.h"
#include "cache/memo.h"
#include "engine/vfs_int.h"
#include "formats/packages/apt_index.h"
#include "formats/packages/deb_layout.h"
#include "formats/packages/pkg_rules.h"
#include "formats/packages/rpm_repodata.h"
#include "services/pkg_channel.h"

/* A channel's run directory: "<8 digits>-<digits>". */
static int is_run_dir(const char *name)
{
	size_t d = strspn(name, "0123456789");

	return d == 8 && name[8] == '-' && name[9] && strspn(name + 9, "0123456789") == strlen(name + 9);
}

static int by_run_id(const void *a, const void *b)
{
	const char *x = *(const char *const *)a + 9, *y = *(const char *const *)b + 9;
	size_t lx = strlen(x), ly = strlen(y);

	return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x, y);
}

/* The run directories of dir, sorted by run id (malloc'd array of borrowed names). */
static const char **run_dirs(const struct node *dir, size_t *n)
{
	const char **out = calloc(vfs_dir_count(dir) + 1, sizeof(*out));

	*n = 0;
	for (size_t i = 0; out && i < vfs_dir_count(dir); i++)
		if (vfs_node_is_dir(vfs_dir_node(dir, i)) && is_run_dir(vfs_dir_name(dir, i)))
			out[(*n)++] = vfs_dir_name(dir, i);
	if (out)
		qsort(out, *n, sizeof(*out), by_run_id);
	return out;
}

/* The bytes of file name in dir, made in memory (a CI-stored index is not). */
static const char *bytes_of(struct node *dir, const char *name, size_t *len, struct rk_err *err)
{
	struct node *f = vfs_find(dir, name);
	const char *b = f ? vfs_node_bytes(f) : NULL;

	if (!b)
		rk_err_set(err, -ENOTSUP, "%s: %s", name, f ? "not made by rockfs" : "missing");
	*len = b ? vfs_node_size(f) : 0;
	return b;
}

static int gunzip(const char *z, size_t zlen, char **out, size_t *len)
{
	struct libdeflate_decompressor *d;
	size_t want;
	int rc;

	if (zlen < 18)
		return -EINVAL;
	want = (size_t)(unsigned char)z[zlen - 4] | (size_t)(unsigned char)z[zlen - 3] << 8 |
	       (size_t)(unsigned char)z[zlen - 2] << 16 | (size_t)(unsigned char)z[zlen - 1] << 24;
	if (!(*out = malloc(want + 1)) || !(d = libdeflate_alloc_decompressor())) {
		free(*out);
		return -ENOMEM;
	}
	rc = libdeflate_gzip_decompress(d, z, zlen, *out, want, len) == LIBDEFLATE_SUCCESS
		     ? 0
		     : -EINVAL;
	libdeflate_free_decompressor(d);
	if (rc)
		free(*out);
	else
		(*out)[*len] = '\0';
	return rc;
}

/* One run's part of the index, remembered (see the top) as "<time>\n<text>": time is
 * its newest package's (the same from every copy of the store, unlike the objects'
 * times), the date of all/'s indexes. */
struct part {
	struct rk_vfs *v;
	struct node *at;
	const char *run, *dir; /* "<id>-linux", "<YYYYMMDD>-<id>" */
	int rpm;
	char *text;
	size_t len;
	int64_t time;
};

/* The newest mtime of the packages (files named *.ext) of dir; not its README, dated
 * with the directory. */
static int64_t newest_file(const struct node *dir, const char *ext)
{
	size_t el = strlen(ext);
	int64_t t = 0;

	for (size_t i = 0; dir && i < vfs_dir_count(dir); i++) {
		const char *name = vfs_dir_name(dir, i);
		size_t nl = strlen(name);

		if (!vfs_node_is_dir(vfs_dir_node(dir, i)) && nl > el &&
		    !strcmp(name + nl - el, ext) && vfs_node_mtime(vfs_dir_node(dir, i)) > t)
			t = vfs_node_mtime(vfs_dir_node(dir, i));
	}
	return t;
}

static int part_set(struct part *p, const char *data, size_t len)
{
	const char *nl = memchr(data, '\n', len);
	char *end;

	if (!nl)
		return -1;
	p->time = strtoll(data, &end, 10);
	if (end != nl)
		return -1;
	len -= (size_t)(nl + 1 - data);
	data = nl + 1;
	if (!(p->text = malloc(len + 1)))
		return -1;
	memcpy(p->text, data, len);
	p->text[len] = '\0';
	p->len = len;
	return 0;
}

static int part_load(void *ctx, char *data, size_t len)
{
	struct part *p = ctx;

	return part_set(p, data, len);
}

static int part_compute(void *ctx, struct rk_buf *rec, struct rk_err *err)
{
	struct part *p = ctx;
	size_t start = rec->len;
	int rc;

	if (!p->rpm) {
		struct node *d = vfs_store_run_dir(
			p->v, p->at, p->run, "packages/deb/dists/stable/main/binary-amd64", err);
		size_t len;
		const char *b = d ? bytes_of(d, "Packages", &len, err) : NULL;
		char prefix[300];

		struct node *pool =
			b ? vfs_store_run_dir(p->v, p->at, p->run, "packages/deb/pool/main", err)
			  : NULL;

		if (!pool)
			return -EIO;
		snprintf(prefix, sizeof(prefix), "pool/%s", p->dir);
		rc = rk_buf_addf(rec, "%lld\n", (long long)newest_file(pool, ".deb"));
		if (!rc)
			rc = rk_apt_rebase(b, len, prefix, rec);
	} else {
		static const char *const names[] = {"primary.xml.gz", "filelists.xml.gz",
						    "other.xml.gz"};
		struct node *d =
			vfs_store_run_dir(p->v, p->at, p->run, "packages/rpm/x86_64/repodata", err);
		char *xml[3] = {NULL, NULL, NULL};
		size_t len[3];

		struct node *arch =
			d ? vfs_store_run_dir(p->v, p->at, p->run, "packages/rpm/x86_64", err)
			  : NULL;

		rc = arch ? rk_buf_addf(rec, "%lld\n", (long long)newest_file(arch, ".rpm")) : -EIO;
		for (int t = 0; !rc && t < 3; t++) {
			size_t zlen;
			const char *z = bytes_of(d, names[t], &zlen, err);

			rc = !z ? -EIO : gunzip(z, zlen, &xml[t], &len[t]);
			if (rc == -EINVAL)
				rk_err_set(err, rc, "%s: not gzip", names[t]);
		}
		if (!rc && (rc = rk_repodata_part((const char *const *)xml, len, p->dir, rec)) ==
				   -EINVAL)
			rk_err_set(err, rc, "repodata: not createrepo's XML");
		for (int t = 0; t < 3; t++)
			free(xml[t]);
	}
	if (!rc)
		rc = part_set(p, rec->buf ? rec->buf + start : "", rec->len - start) ? -ENOMEM : 0;
	return rc;
}

/* Run's part (p->text, p->len), from the cache or computed. 0 or -errno (err set). */
static int part_of(struct part *p, struct rk_err *err)
{
	const struct rk_memo m = {part_load, part_compute, p, 64 << 20};
	struct run *r;
	uint64_t sig = 0;
	struct rk_sha256 h;
	char key[RK_SHA256_HEX], rel[RK_SHA256_HEX + 16], s[32];
	int keep, rc;

	if ((rc = vfs_store_run(p->v, p->at, p->run, &r, err)))
		return rc;
	keep = !rk_run_tree_sig(p->v->store, r->cat, &sig, NULL) && !rk_sha256_init(&h);
	if (keep) {
		snprintf(s, sizeof(s), "%016llx", (unsigned long long)sig);
		rk_sha256_update(&h, "release-channel 3", 18);
		rk_sha256_update(&h, p->rpm ? "rpm" : "deb", 4);
		rk_sha256_update(&h, p->run, strlen(p->run) + 1);
		rk_sha256_update(&h, p->dir, strlen(p->dir) + 1);
		rk_sha256_update(&h, s, strlen(s) + 1);
		rk_sha256_update(&h, p->v->opts_sig, strlen(p->v->opts_sig) + 1);
		rk_sha256_final(&h, key);
		snprintf(rel, sizeof(rel), "channel-%s", key);
	}
	return rk_memo_load_or_compute(keep ? p->v->cache : NULL, "release", keep ? rel : "", &m,
				       NULL, err);
}

/* A symlink path in private root: ups "../" then target. */
static int add_link(struct node *root, const char *path, int64_t mtime, int ups,
		    const char *run, const char *kind, const char *file)
{
	struct rk_buf t = RK_BUF_INIT;
	const char *base;
	struct node *d = vfs_mkdirs(root, path, &base, mtime);
	int rc = d ? 0 : -ENOMEM;

	for (int k = 0; !rc && k < ups; k++)
		rc = rk_buf_adds(&t, "../");
	if (!rc)
		rc = rk_buf_addf(&t, "%s/packages/%s/%s", run, kind, file);
	if (!rc && !vfs_find(d, base) && !vfs_symlink(d, base, mtime, t.buf))
		rc = -ENOMEM;
	rk_buf_release(&t);
	return rc;
}

/* With -o sign_key (the packages view's option): text signed into dir as name. */
static int sign(struct rk_vfs *v, struct node *dir, const char *name, const char *text, size_t len,
		int clear, int64_t mtime, struct rk_err *err)
{
	char *sig;
	size_t n;
	int rc = pkg_sign(vfs_opt_given(v, "sign_key"), text, len, clear, &sig, &n, err);

	if (rc) {
		rk_err_log("release: %s", rk_err_str(err, rc));
		return -EIO;
	}
	return vfs_bytes_at(dir, name, mtime, sig, n);
}

/* The links of one run's deb part: every "Filename: pool/<dir>/<file>". */
static int deb_links(struct node *out, const struct part *p, int64_t mt)
{
	int rc = 0;

	for (const char *l = p->text; !rc && l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t ll = nl ? (size_t)(nl - l) : strlen(l);

		if (ll > 10 && !strncmp(l, "Filename: ", 10)) {
			char path[1024], *file;

			snprintf(path, sizeof(path), "%.*s", (int)(ll - 10), l + 10);
			file = strrchr(path, '/');
			if (file && !strchr(++file, '\n') && file[0] != '.') {
				char target[600];

				snprintf(target, sizeof(target), "pool/main/%s", file);
				rc = add_link(out, path, mt, 6, p->run, "deb", target);
			}
		}
		l = nl ? nl + 1 : NULL;
	}
	return rc;
}

/* The links of one run's rpm part: every primary location "<dir>/<file>". */
static int rpm_links(struct node *out, const struct part *p, int64_t mt)
{
	static const char loc[] = "<location href=\"";
	const char *end = memchr(p->text, '\f', p->len), *l = p->text;
	const char *primary_end = end ? memchr(end + 1, '\f', p->len - (size_t)(end + 1 - p->text))
				      : NULL;
	int rc = 0;

	while (!rc && primary_end && (l = strstr(l, loc)) && l < primary_end) {
		const char *q = strchr(l += sizeof(loc) - 1, '"'), *file;
		char path[1024], target[600];

		if (!q || q - l >= (long)sizeof(path))
			break;
		snprintf(path, sizeof(path), "%.*s", (int)(q - l), l);
		file = strrchr(path, '/');
		if (!file || strchr(path, '&') || file[1] == '.')
			continue; /* (TheRock's names need no XML escape) */
		snprintf(target, sizeof(target), "x86_64/%s", file + 1);
		rc = add_link(out, path, mt, 5, p->run, "rpm", target);
	}
	return rc;
}

static int deb_indexes(struct rk_vfs *v, struct node *out, struct rk_buf *all, int64_t mt,
		       struct rk_err *err)
{
	/* aggregate_deb_metadata.py's Release fields, upload_package_repo.py's order */
	struct rk_apt_release_info ri = {"AMD ROCm Aggregate", "AMD ROCm",
					 "ROCm APT Repository: every run", mt};
	char *packages = NULL, *release = NULL;
	void *gz = NULL;
	size_t plen = 0, gzlen = 0, rlen = 0;
	int rc = (packages = rk_buf_detach(all, &plen)) || !plen ? 0 : -ENOMEM;

	if (!rc && !packages && !(packages = strdup("")))
		rc = -ENOMEM;
	if (!rc)
		rc = rk_deb_gzip(packages, plen, &gz, &gzlen);
	if (!rc) {
		struct rk_apt_file files[] = {{"main/binary-amd64/Packages", packages, plen},
					      {"main/binary-amd64/Packages.gz", gz, gzlen}};

		rc = rk_apt_release(&ri, files, 2, &release, &rlen);
	}
	if (!rc) {
		rc = vfs_bytes_at(out, "dists/stable/main/binary-amd64/Packages", mt, packages,
				  plen);
		packages = NULL;
	}
	if (!rc) {
		rc = vfs_bytes_at(out, "dists/stable/main/binary-amd64/Packages.gz", mt, gz, gzlen);
		gz = NULL;
	}
	if (!rc && vfs_opt_given(v, "sign_key"))
		if (!(rc = sign(v, out, "dists/stable/InRelease", release, rlen, 1, mt, err)))
			rc = sign(v, out, "dists/stable/Release.gpg", release, rlen, 0, mt, err);
	if (!rc) {
		rc = vfs_bytes_at(out, "dists/stable/Release", mt, release, rlen);
		release = NULL;
	}
	free(packages);
	free(gz);
	free(release);
	return rc;
}

static int rpm_indexes(struct rk_vfs *v, struct node *out, struct part *parts, size_t n,
		       int64_t mt, struct rk_err *err)
{
	const char **texts = calloc(n + 1, sizeof(*texts));
	size_t *lens = calloc(n + 1, sizeof(*lens)), k = 0;
	struct rk_rpm_repodata rd;
	int rc = texts && lens ? 0 : -ENOMEM;

	for (size_t i = 0; !rc && i < n; i++)
		if (parts[i].text) {
			texts[k] = parts[i].text;
			lens[k++] = parts[i].len;
		}
	if (!rc && !(rc = rk_rpm_repodata_merge(texts, lens, k, mt, &rd))) {
		for (int i = 0; !rc && i < RK_REPODATA_NFILES; i++) {
			struct rk_repodata_file *f = &rd.files[i];

			if (i == RK_REPODATA_REPOMD && vfs_opt_given(v, "sign_key"))
				rc = sign(v, out, "repodata/repomd.xml.asc", f->data, f->len, 0, mt,
					  err);
			if (!rc)
				rc = vfs_bytes_at(out, f->name, mt, f->data, f->len);
			f->data = NULL;
		}
		rk_rpm_repodata_release(&rd);
	}
	if (!rc && vfs_opt_given(v, "sign_key")) { /* the key dnf checks the packages with */
		char *key;
		size_t klen;

		if ((rc = pkg_sign_pubkey(vfs_opt_given(v, "sign_key"), &key, &klen, err))) {
			rk_err_log("release: %s", rk_err_str(err, rc));
			rc = -EIO;
		} else {
			rc = vfs_bytes_at(out, "RPM-GPG-KEY", mt, key, klen);
		}
	}
	free(texts);
	free(lens);
	return rc;
}

/* all/: every run's part, then the links and the indexes. */
static int pop_all(struct rk_vfs *v, struct node *dir, struct rk_err *err)
{
	struct node *kind = vfs_node_parent(dir);
	int rpm = !strcmp(vfs_node_name(kind), "rpm");
	int64_t mt = vfs_node_mtime(dir), newest = 0;
	struct node *out = vfs_tree_new(vfs_node_name(dir), vfs_node_mode(dir), mt);
	size_t n = 0;
	const char **dirs = run_dirs(kind, &n);
	struct part *parts = calloc(n + 1, sizeof(*parts));
	struct rk_buf all = RK_BUF_INIT;
	int rc = out && dirs && parts ? 0 : -ENOMEM;

	for (size_t i = 0; !rc && i < n; i++) {
		struct part *p = &parts[i];
		struct rk_err local = RK_ERR_INIT;
		char run[300];
		int prc;

		snprintf(run, sizeof(run), "%s-linux", dirs[i] + 9);
		*p = (struct part){v, dir, NULL, dirs[i], rpm, NULL, 0, 0};
		if (!(p->run = strdup(run))) {
			rc = -ENOMEM;
			break;
		}
		prc = part_of(p, &local);
		if (prc == -ENOMEM || rk_err_transient(prc)) {
			rc = rk_err_set(err, prc, "release: %s: %s", run, rk_err_str(&local, prc));
			break;
		}
		if (prc) {
			rk_warn("release: packages/%s/all/: run '%s' left out: %s", rpm ? "rpm" : "deb",
				run, rk_err_str(&local, prc));
			free(p->text);
			p->text = NULL;
			continue;
		}
		if (p->time > newest)
			newest = p->time;
		rc = rpm ? rpm_links(out, p, mt) : deb_links(out, p, mt);
		if (!rc && !rpm)
			rc = rk_buf_add(&all, p->text, p->len);
	}
	if (!rc)
		rc = rpm ? rpm_indexes(v, out, parts, n, newest ? newest : mt, err)
			 : deb_indexes(v, out, &all, newest ? newest : mt, err);
	for (size_t i = 0; parts && i < n; i++) {
		free((char *)parts[i].run);
		free(parts[i].text);
	}
	free(parts);
	free(dirs);
	rk_buf_release(&all);
	if (rc) {
		vfs_tree_free(out);
		return rc;
	}
	return vfs_graft(v, dir, out);
}

int vfs_channel_add(struct node *out, int64_t mtime)
{
	size_t n = 0;
	const char **dirs = run_dirs(out, &n);
	int rc = dirs ? 0 : -ENOMEM;

	/* no run, no repository (a run added later: release/ is served anew) */
	if (!rc && n && !vfs_symlink(out, "latest", mtime, dirs[n - 1]))
		rc = -ENOMEM;
	if (!rc && n && !vfs_lazy_dir(out, "all", pop_all, mtime))
		rc = -ENOMEM;
	free(dirs);
	return rc;
}
