/* rpm_repodata.c: repodata/ for RPM packages, as createrepo_c writes it (rpm_repodata.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libdeflate.h>

#include "rk/buf.h"
#include "rk/compiler.h"
#include "rk/hash.h"
#include "formats/packages/rpm_repodata.h"

/* A sticky-error writer: the first failure is kept, later calls do nothing. */
struct out {
	struct rk_buf b;
	int rc;
};

static void put(struct out *o, const char *s)
{
	if (!o->rc)
		o->rc = rk_buf_adds(&o->b, s);
}

/* s escaped as XML text or attribute value; what XML cannot carry becomes U+FFFD. */
static void esc(struct out *o, const char *s)
{
	if (!o->rc)
		o->rc = rk_buf_add_xml(&o->b, s);
}

/* <tag>text</tag> on its own line, indented */
static void elem(struct out *o, const char *indent, const char *tag, const char *text)
{
	put(o, indent), put(o, "<"), put(o, tag), put(o, ">");
	esc(o, text);
	put(o, "</"), put(o, tag), put(o, ">\n");
}

static void putf(struct out *o, const char *fmt, ...) RK_PRINTF(2, 3);
static void putf(struct out *o, const char *fmt, ...)
{
	char s[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s, sizeof(s), fmt, ap);
	va_end(ap);
	put(o, s);
}

/* epoch="E" ver="V" rel="R" of "[E:]V[-R]" (epoch 0 when absent). */
static void evr_attrs(struct out *o, const char *evr)
{
	const char *colon = strchr(evr, ':'), *v = colon ? colon + 1 : evr;
	const char *dash = strrchr(v, '-');
	char *ver = strndup(v, dash ? (size_t)(dash - v) : strlen(v));

	if (!ver) {
		o->rc = o->rc ? o->rc : -ENOMEM;
		return;
	}
	put(o, " epoch=\"");
	if (colon) {
		char *e = strndup(evr, (size_t)(colon - evr));

		if (!e)
			o->rc = o->rc ? o->rc : -ENOMEM;
		else
			esc(o, e);
		free(e);
	} else {
		put(o, "0");
	}
	put(o, "\" ver=\"");
	esc(o, ver);
	put(o, "\"");
	if (dash) {
		put(o, " rel=\"");
		esc(o, dash + 1);
		put(o, "\"");
	}
	free(ver);
}

static void version_line(struct out *o, const struct rk_pkg_meta *m)
{
	put(o, "  <version epoch=\"0\" ver=\"");
	esc(o, m->version);
	put(o, "\" rel=\"");
	esc(o, m->release);
	put(o, "\"/>\n");
}

static const char *flag_name(uint32_t f)
{
	switch (f & (RK_RPMSENSE_LESS | RK_RPMSENSE_GREATER | RK_RPMSENSE_EQUAL)) {
	case RK_RPMSENSE_EQUAL:
		return "EQ";
	case RK_RPMSENSE_LESS:
		return "LT";
	case RK_RPMSENSE_GREATER:
		return "GT";
	case RK_RPMSENSE_LESS | RK_RPMSENSE_EQUAL:
		return "LE";
	case RK_RPMSENSE_GREATER | RK_RPMSENSE_EQUAL:
		return "GE";
	}
	return NULL;
}

static int is_pre(uint32_t f)
{
	return (f & (0x40u | RK_RPMSENSE_SCRIPT_PRE | RK_RPMSENSE_SCRIPT_POST)) != 0;
}

/* Two requires createrepo_c writes as the same entry (it drops the second). */
static int same_entry(const struct rk_rpm_dep *a, const struct rk_rpm_dep *b)
{
	return !strcmp(a->name, b->name) && !strcmp(a->version, b->version) &&
	       flag_name(a->flags) == flag_name(b->flags) && is_pre(a->flags) == is_pre(b->flags);
}

static void deps(struct out *o, const struct rk_rpm_deps *d, int kind, const char *tag)
{
	int requires = kind == RK_RPM_REQUIRE, any = 0;

	for (size_t i = 0; i < d->n[kind]; i++) {
		const struct rk_rpm_dep *e = &d->v[kind][i];
		const char *fl = flag_name(e->flags);
		int dup = 0;

		if (requires && !strncmp(e->name, "rpmlib(", 7))
			continue;
		for (size_t j = 0; requires && j < i && !dup; j++)
			dup = same_entry(&d->v[kind][j], e);
		if (dup)
			continue;
		if (!any++)
			putf(o, "    <rpm:%s>\n", tag);
		put(o, "      <rpm:entry name=\"");
		esc(o, e->name);
		put(o, "\"");
		if (fl && *e->version) {
			putf(o, " flags=\"%s\"", fl);
			evr_attrs(o, e->version);
		}
		if (requires && is_pre(e->flags))
			put(o, " pre=\"1\"");
		put(o, "/>\n");
	}
	if (any)
		putf(o, "    </rpm:%s>\n", tag);
}

/* The files createrepo_c lists in primary.xml too. */
static int primary_file(const char *path)
{
	return strstr(path, "bin/") || !strncmp(path, "/etc/", 5) ||
	       !strcmp(path, "/usr/lib/sendmail");
}

static void file_line(struct out *o, const struct rk_rpm_file *f, const char *indent)
{
	put(o, indent);
	put(o, S_ISDIR(f->mode) ? "<file type=\"dir\">" : "<file>");
	esc(o, f->path);
	put(o, "</file>\n");
}

static void primary(struct out *o, const struct rk_rpm_pkg *p, int64_t time)
{
	const struct rk_pkg_meta *m = p->meta;
	struct rk_rpm_deps d;
	char srpm[1024];
	int rc = rk_rpm_deps(m, &d);

	if (rc) {
		o->rc = o->rc ? o->rc : rc;
		return;
	}
	put(o, "<package type=\"rpm\">\n");
	elem(o, "  ", "name", m->name);
	elem(o, "  ", "arch", m->arch);
	version_line(o, m);
	putf(o, "  <checksum type=\"sha256\" pkgid=\"YES\">%s</checksum>\n", p->sha256);
	elem(o, "  ", "summary", m->summary);
	elem(o, "  ", "description", m->description);
	elem(o, "  ", "packager", "");
	elem(o, "  ", "url", m->homepage);
	putf(o, "  <time file=\"%" PRId64 "\" build=\"%" PRIu32 "\"/>\n", time, (uint32_t)m->mtime);
	putf(o,
	     "  <size package=\"%" PRIu64 "\" installed=\"%" PRIu64 "\" archive=\"%" PRIu64
	     "\"/>\n",
	     p->size, p->info.installed_size, p->info.payload_size);
	put(o, "  <location href=\"");
	esc(o, p->location);
	put(o, "\"/>\n  <format>\n");
	elem(o, "    ", "rpm:license", m->license);
	elem(o, "    ", "rpm:vendor", m->vendor);
	elem(o, "    ", "rpm:group", *m->group ? m->group : "Unspecified");
	elem(o, "    ", "rpm:buildhost", "rockfs");
	snprintf(srpm, sizeof(srpm), "%s-%s%s%s.src.rpm", m->name, m->version,
		 *m->release ? "-" : "", m->release);
	elem(o, "    ", "rpm:sourcerpm", srpm);
	putf(o, "    <rpm:header-range start=\"%" PRIu64 "\" end=\"%" PRIu64 "\"/>\n",
	     p->info.header_start, p->info.header_end);
	deps(o, &d, RK_RPM_PROVIDE, "provides");
	deps(o, &d, RK_RPM_REQUIRE, "requires");
	deps(o, &d, RK_RPM_CONFLICT, "conflicts");
	deps(o, &d, RK_RPM_OBSOLETE, "obsoletes");
	deps(o, &d, RK_RPM_SUGGEST, "suggests");
	deps(o, &d, RK_RPM_RECOMMEND, "recommends");
	for (size_t i = 0; i < p->nfiles; i++)
		if (primary_file(p->files[i].path))
			file_line(o, &p->files[i], "    ");
	put(o, "  </format>\n</package>\n");
	rk_rpm_deps_release(&d);
}

static void pkg_open(struct out *o, const struct rk_rpm_pkg *p)
{
	putf(o, "<package pkgid=\"%s\" name=\"", p->sha256);
	esc(o, p->meta->name);
	put(o, "\" arch=\"");
	esc(o, p->meta->arch);
	put(o, "\">\n");
	version_line(o, p->meta);
}

static const char *const type_name[] = {"primary", "filelists", "other"};

/* Gzip x into file f, named by the sha256 of the compressed bytes; *open_sha gets x's. */
static int finish(struct out *x, struct rk_repodata_file *f, char open_sha[RK_SHA256_HEX],
		  const char *type)
{
	struct libdeflate_compressor *c;
	char sha[RK_SHA256_HEX];
	size_t bound, len;
	char *z;
	int rc;

	if (x->rc)
		return x->rc;
	if (!(c = libdeflate_alloc_compressor(6)))
		return -ENOMEM;
	bound = libdeflate_gzip_compress_bound(c, x->b.len);
	z = malloc(bound);
	len = z ? libdeflate_gzip_compress(c, x->b.buf, x->b.len, z, bound) : 0;
	libdeflate_free_compressor(c);
	if (!len) {
		free(z);
		return z ? -EIO : -ENOMEM;
	}
	if ((rc = rk_sha256_buf(x->b.buf, x->b.len, open_sha)) ||
	    (rc = rk_sha256_buf(z, len, sha))) {
		free(z);
		return rc;
	}
	snprintf(f->name, sizeof(f->name), "repodata/%s.xml.gz", type);
	memcpy(f->sha256, sha, sizeof(f->sha256));
	f->data = z, f->len = len;
	return 0;
}

/* The three documents' heads, for n packages. */
static void heads(struct out x[3], size_t n)
{
	put(&x[0], "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<metadata "
		   "xmlns=\"http://linux.duke.edu/metadata/common\" "
		   "xmlns:rpm=\"http://linux.duke.edu/metadata/rpm\"");
	putf(&x[0], " packages=\"%zu\">\n", n);
	putf(&x[1],
	     "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<filelists "
	     "xmlns=\"http://linux.duke.edu/metadata/filelists\" packages=\"%zu\">\n",
	     n);
	putf(&x[2],
	     "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<otherdata "
	     "xmlns=\"http://linux.duke.edu/metadata/other\" packages=\"%zu\">\n",
	     n);
}

/* The repodata of the three documents' bodies x[] (their <package> elements, headers
 * and counts written already): closed, compressed, and repomd.xml over them. x's buffers
 * are released. */
static int assemble(struct out x[3], int64_t time, struct rk_rpm_repodata *out)
{
	struct rk_rpm_repodata r;
	struct out md = {RK_BUF_INIT, 0};
	char open_sha[3][RK_SHA256_HEX];
	int rc = 0;

	memset(&r, 0, sizeof(r));
	put(&x[0], "</metadata>\n");
	put(&x[1], "</filelists>\n");
	put(&x[2], "</otherdata>\n");
	put(&md, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<repomd "
		 "xmlns=\"http://linux.duke.edu/metadata/repo\" "
		 "xmlns:rpm=\"http://linux.duke.edu/metadata/rpm\">\n");
	putf(&md, "  <revision>%" PRId64 "</revision>\n", time);
	for (int t = 0; !rc && t < 3; t++) {
		struct rk_repodata_file *f = &r.files[t];

		if ((rc = finish(&x[t], f, open_sha[t], type_name[t])))
			break;
		putf(&md, "  <data type=\"%s\">\n", type_name[t]);
		putf(&md, "    <checksum type=\"sha256\">%s</checksum>\n", f->sha256);
		putf(&md, "    <open-checksum type=\"sha256\">%s</open-checksum>\n", open_sha[t]);
		putf(&md, "    <location href=\"%s\"/>\n", f->name);
		putf(&md, "    <timestamp>%" PRId64 "</timestamp>\n", time);
		putf(&md, "    <size>%zu</size>\n", f->len);
		putf(&md, "    <open-size>%zu</open-size>\n", x[t].b.len);
		put(&md, "  </data>\n");
	}
	put(&md, "</repomd>\n");
	for (int t = 0; t < 3; t++)
		rk_buf_release(&x[t].b);
	if (!rc && !(rc = md.rc)) {
		struct rk_repodata_file *f = &r.files[RK_REPODATA_REPOMD];

		snprintf(f->name, sizeof(f->name), "repodata/repomd.xml");
		if (!(f->data = rk_buf_detach(&md.b, &f->len)))
			rc = -ENOMEM;
	}
	rk_buf_release(&md.b);
	if (rc) {
		rk_rpm_repodata_release(&r);
		return rc;
	}
	*out = r;
	return 0;
}


int rk_rpm_repodata_build(const struct rk_rpm_pkg *pkgs, size_t n, int64_t time,
			  struct rk_rpm_repodata *out)
{
	struct out x[3] = {{RK_BUF_INIT, 0}, {RK_BUF_INIT, 0}, {RK_BUF_INIT, 0}};
	int rc = 0;

	heads(x, n);
	for (size_t i = 0; i < n; i++) {
		const struct rk_rpm_pkg *p = &pkgs[i];

		if (!p->sha256 || !rk_is_sha256_hex(p->sha256)) {
			rc = -EINVAL;
			break;
		}
		primary(&x[0], p, time);
		pkg_open(&x[1], p);
		for (size_t j = 0; j < p->nfiles; j++)
			file_line(&x[1], &p->files[j], "  ");
		put(&x[1], "</package>\n");
		pkg_open(&x[2], p);
		put(&x[2], "</package>\n");
	}
	if (rc) {
		for (int t = 0; t < 3; t++)
			rk_buf_release(&x[t].b);
		return rc;
	}
	return assemble(x, time, out);
}

void rk_rpm_repodata_release(struct rk_rpm_repodata *r)
{
	for (int i = 0; i < RK_REPODATA_NFILES; i++) {
		free(r->files[i].data);
		r->files[i].data = NULL, r->files[i].len = 0;
	}
}

/* The body of document xml (len bytes, no NUL needed) whose root element is root: what
 * lies between the end of the root's start tag and its end tag. 0 or -EINVAL. */
static int body_of(const char *xml, size_t len, const char *root, const char **b, size_t *blen)
{
	size_t rl = strlen(root), i = 0, end;

	/* the start tag: "<root" followed by a space or '>' */
	for (;; i++) {
		if (i + rl + 2 > len)
			return -EINVAL;
		if (xml[i] == '<' && !memcmp(xml + i + 1, root, rl) &&
		    (xml[i + 1 + rl] == ' ' || xml[i + 1 + rl] == '>'))
			break;
	}
	while (i < len && xml[i] != '>')
		i++;
	if (i >= len || xml[i - 1] == '/')
		return -EINVAL;
	i++;
	if (i < len && xml[i] == '\n')
		i++;
	/* the end tag: the last "</root>" */
	for (end = len; end >= i + rl + 3; end--) {
		size_t at = end - rl - 3;

		if (xml[at] == '<' && xml[at + 1] == '/' && !memcmp(xml + at + 2, root, rl) &&
		    xml[end - 1] == '>') {
			*b = xml + i;
			*blen = at - i;
			return 0;
		}
	}
	return -EINVAL;
}

int rk_repodata_part(const char *const xml[3], const size_t len[3], const char *prefix,
		     struct rk_buf *out)
{
	static const char *const roots[] = {"metadata", "filelists", "otherdata"};
	static const char loc[] = "<location href=\"";
	const char *b[3];
	size_t bl[3], n = 0;
	int rc = 0;

	for (int t = 0; t < 3; t++)
		if (body_of(xml[t], len[t], roots[t], &b[t], &bl[t]))
			return -EINVAL;
	for (size_t i = 0; i + 9 <= bl[0]; i++)
		if ((i == 0 || b[0][i - 1] == '\n') && !memcmp(b[0] + i, "<package ", 9))
			n++;
	if ((rc = rk_buf_addf(out, "%zu\f", n)))
		return rc;
	/* primary: every location's href below prefix */
	for (size_t i = 0; !rc && i < bl[0];) {
		const char *at = memmem(b[0] + i, bl[0] - i, loc, sizeof(loc) - 1);
		size_t upto = at ? (size_t)(at - b[0]) + sizeof(loc) - 1 : bl[0];

		rc = rk_buf_add(out, b[0] + i, upto - i);
		if (!rc && at && !(rc = rk_buf_add_xml(out, prefix)))
			rc = rk_buf_adds(out, "/");
		i = upto;
	}
	for (int t = 1; !rc && t < 3; t++)
		if (!(rc = rk_buf_adds(out, "\f")))
			rc = rk_buf_add(out, b[t], bl[t]);
	return rc;
}

int rk_rpm_repodata_merge(const char *const *parts, const size_t *lens, size_t n, int64_t time,
			  struct rk_rpm_repodata *out)
{
	struct out x[3] = {{RK_BUF_INIT, 0}, {RK_BUF_INIT, 0}, {RK_BUF_INIT, 0}};
	size_t total = 0;

	for (int pass = 0; pass < 2; pass++) {
		if (pass)
			heads(x, total);
		for (size_t i = 0; i < n; i++) {
			const char *p = parts[i], *end = p + lens[i], *f[4];
			size_t k = 0;

			f[k++] = p;
			for (const char *q = p; q < end && k < 4; q++)
				if (*q == '\f')
					f[k++] = q + 1;
			if (k != 4 || memchr(f[3], '\f', (size_t)(end - f[3]))) {
				for (int t = 0; t < 3; t++)
					rk_buf_release(&x[t].b);
				return -EINVAL;
			}
			if (!pass) {
				total += strtoul(f[0], NULL, 10);
				continue;
			}
			for (int t = 0; t < 3; t++)
				if (!x[t].rc)
					x[t].rc = rk_buf_add(&x[t].b, f[t + 1],
							     (size_t)((t < 2 ? f[t + 2] - 1 : end) -
								      f[t + 1]));
		}
	}
	return assemble(x, time, out);
}
