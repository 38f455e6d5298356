/* deb_layout.c: a .deb as a composite file (deb_layout.h).
 *
 * There is no md5sums control member: dpkg-deb writes one from the files' bytes, and
 * here that would mean reading every blob of the package before its first byte can be
 * served. dpkg does not need it (dpkg --verify then reports nothing for the package). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <zlib.h>

#include "formats/deb_layout.h"
#include "formats/tar_layout.h"
#include "rk/buf.h"

#define AR_HEADER 60
#define AR_MAX_SIZE 9999999999ull /* 10 decimal digits */

/* "Name: value\n" when value is not ""; a newline would end the field early. */
static int field(struct rk_buf *b, const char *name, const char *value)
{
	if (!value || !*value)
		return 0;
	if (strchr(value, '\n'))
		return -EINVAL;
	return rk_buf_addf(b, "%s: %s\n", name, value);
}

/* The long description as continuation lines: " text", an empty line " .". */
static int description(struct rk_buf *b, const char *summary, const char *text)
{
	int rc = summary && *summary ? field(b, "Description", summary) : -EINVAL;

	while (!rc && text && *text) {
		const char *nl = strchr(text, '\n');
		size_t n = nl ? (size_t)(nl - text) : strlen(text);
		size_t blank = strspn(text, " \t");

		if (blank >= n)
			rc = rk_buf_adds(b, " .\n");
		else
			rc = rk_buf_addf(b, " %.*s\n", (int)n, text);
		text = nl ? nl + 1 : text + n;
	}
	return rc;
}

char *rk_deb_version(const struct rk_pkg_meta *m)
{
	struct rk_buf b = RK_BUF_INIT;

	if (rk_buf_addf(&b, "%s%s%s", m->version, *m->release ? "-" : "", m->release))
		return NULL;
	return rk_buf_detach(&b, NULL);
}

char *rk_deb_stanza(const struct rk_pkg_meta *m, const char *extra)
{
	struct rk_buf b = RK_BUF_INIT;
	char *version = NULL, size[24];
	int rc = -EINVAL;

	if (!*m->name || !*m->version || !*m->arch)
		goto out;
	rc = -ENOMEM;
	if (!(version = rk_deb_version(m)))
		goto out;
	/* dpkg-gencontrol counts each file's size rounded up to KiB, and 1 KiB per
	 * directory or symlink; the meta carries the files' sum, so this is the sum's. */
	snprintf(size, sizeof(size), "%llu",
		 (unsigned long long)(m->installed_size / 1024 + !!(m->installed_size % 1024)));
	if ((rc = field(&b, "Package", m->name)) || (rc = field(&b, "Version", version)) ||
	    (rc = field(&b, "Architecture", m->arch)) ||
	    (rc = field(&b, "Maintainer", m->maintainer)) ||
	    (rc = field(&b, "Installed-Size", size)) || (rc = field(&b, "Depends", m->depends)) ||
	    (rc = field(&b, "Recommends", m->recommends)) ||
	    (rc = field(&b, "Suggests", m->suggests)) ||
	    (rc = field(&b, "Conflicts", m->conflicts)) ||
	    (rc = field(&b, "Replaces", m->replaces)) ||
	    (rc = field(&b, "Provides", m->provides)) || (rc = rk_buf_adds(&b, extra)) ||
	    (rc = field(&b, "Section", m->section)) || (rc = field(&b, "Priority", m->priority)) ||
	    (rc = field(&b, "Homepage", m->homepage)) ||
	    (rc = description(&b, m->summary, m->description)))
		goto out;
out:
	free(version);
	if (rc) {
		rk_buf_release(&b);
		errno = -rc;
		return NULL;
	}
	return rk_buf_detach(&b, NULL);
}

char *rk_deb_control(const struct rk_pkg_meta *m)
{
	return rk_deb_stanza(m, "");
}

int rk_deb_gzip(const void *p, size_t len, void **out, size_t *outlen)
{
	z_stream z;
	uLong cap;
	void *o;
	int rc;

	if (len > UINT32_MAX) /* one deflate call; these texts are small */
		return -EFBIG;
	memset(&z, 0, sizeof(z));
	/* windowBits 16 + 15: a gzip wrapper with mtime 0, no name, OS 3 (unix), XFL 2 */
	if (deflateInit2(&z, 9, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	cap = deflateBound(&z, (uLong)len);
	if (!(o = malloc(cap))) {
		deflateEnd(&z);
		return -ENOMEM;
	}
	z.next_in = (Bytef *)(uintptr_t)p;
	z.avail_in = (uInt)len;
	z.next_out = o;
	z.avail_out = (uInt)cap;
	rc = deflate(&z, Z_FINISH);
	*outlen = z.total_out;
	deflateEnd(&z);
	if (rc != Z_STREAM_END) {
		free(o);
		return -EIO;
	}
	*out = o;
	return 0;
}

static const char *const script_names[] = {"config", "postinst", "postrm", "preinst", "prerm"};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct rk_tar_member *)a)->path,
		      ((const struct rk_tar_member *)b)->path);
}

/* A composite with no sources has nothing to read through. */
static ssize_t no_source(void *ctx, uint32_t src, void *buf, size_t n, uint64_t off)
{
	(void)ctx, (void)src, (void)buf, (void)n, (void)off;
	return -EIO;
}

/* control.tar.gz: ./, ./control and the scripts, sorted by name (as tar --sort=name). */
static int control_tar_gz(const struct rk_pkg_meta *m, const char *control, void **gz,
			  size_t *gzlen)
{
	size_t n = 2 + m->nscripts, nfiles = 1 + m->nscripts;
	struct rk_tar_member *tm = calloc(n, sizeof(*tm));
	struct rk_composite *files = calloc(nfiles, sizeof(*files));
	struct rk_composite tar = RK_COMPOSITE_INIT;
	char(*paths)[16] = calloc(nfiles, sizeof(*paths));
	char *flat = NULL;
	int rc = -ENOMEM;

	if (!tm || !files || !paths)
		goto out;
	tm[0] = (struct rk_tar_member){.path = "./", .mode = S_IFDIR | 0755};
	for (size_t i = 0; i < nfiles; i++) {
		const char *name = i ? m->scripts[i - 1].name : "control";
		const char *text = i ? m->scripts[i - 1].text : control;
		int known = !i;

		for (size_t k = 0; i && k < sizeof(script_names) / sizeof(*script_names); k++)
			known |= !strcmp(name, script_names[k]);
		for (size_t k = 1; known && k < i; k++)
			known = !!strcmp(name, m->scripts[k - 1].name);
		if (!known || !text) {
			rc = -EINVAL;
			goto out;
		}
		snprintf(paths[i], sizeof(paths[i]), "./%s", name);
		if (*text && (rc = rk_composite_bytes(&files[i], text, strlen(text))))
			goto out;
		tm[1 + i] = (struct rk_tar_member){.path = paths[i],
						   .mode = S_IFREG | (i ? 0755 : 0644),
						   .size = files[i].size,
						   .content = &files[i]};
	}
	qsort(tm + 1, nfiles, sizeof(*tm), by_name);
	if ((rc = rk_tar_layout_build(tm, n, m->mtime, &tar)))
		goto out;
	rc = -ENOMEM;
	if (!(flat = malloc(tar.size)))
		goto out;
	if (rk_composite_pread(&tar, no_source, NULL, flat, tar.size, 0) != (ssize_t)tar.size) {
		rc = -EIO;
		goto out;
	}
	rc = rk_deb_gzip(flat, tar.size, (void **)gz, gzlen);
out:
	free(flat);
	rk_composite_release(&tar);
	for (size_t i = 0; files && i < nfiles; i++)
		rk_composite_release(&files[i]);
	free(files);
	free(paths);
	free(tm);
	return rc;
}

/* An ar member header as dpkg-deb writes it: the name without GNU ar's '/'. */
static int ar_header(struct rk_composite *c, const char *name, int64_t mtime, uint64_t size)
{
	char h[AR_HEADER + 1];

	if (size > AR_MAX_SIZE)
		return -EFBIG;
	snprintf(h, sizeof(h), "%-16s%-12lld%-6s%-6s%-8s%-10llu`\n", name, (long long)mtime, "0",
		 "0", "100644", (unsigned long long)size);
	return rk_composite_bytes(c, h, AR_HEADER);
}

int rk_deb_build(const struct rk_pkg_meta *m, const struct rk_composite *data_tar,
		 struct rk_composite *out)
{
	struct rk_composite c = RK_COMPOSITE_INIT;
	char *control = rk_deb_control(m);
	void *gz = NULL;
	size_t gzlen = 0;
	int rc;

	if (!control)
		return -errno;
	if (m->mtime < 0) {
		rc = -EINVAL;
		goto out;
	}
	if ((rc = control_tar_gz(m, control, &gz, &gzlen)) ||
	    (rc = rk_composite_bytes(&c, "!<arch>\n", 8)) ||
	    (rc = ar_header(&c, "debian-binary", m->mtime, 4)) ||
	    (rc = rk_composite_bytes(&c, "2.0\n", 4)) ||
	    (rc = ar_header(&c, "control.tar.gz", m->mtime, gzlen)) ||
	    (rc = rk_composite_bytes(&c, gz, gzlen)) ||
	    (gzlen % 2 && (rc = rk_composite_bytes(&c, "\n", 1))) ||
	    (rc = ar_header(&c, "data.tar", m->mtime, data_tar->size)) ||
	    (rc = rk_composite_append(&c, data_tar)) ||
	    (data_tar->size % 2 && (rc = rk_composite_bytes(&c, "\n", 1))))
		goto out;
out:
	free(control);
	free(gz);
	if (rc) {
		rk_composite_release(&c);
		return rc;
	}
	*out = c;
	return 0;
}
