/* rpm_layout.c: a binary RPM package as a composite file (rpm_layout.h).
 *
 * The header serializer is written by hand rather than with librpm (headerNew, headerPut*,
 * headerExport): the format is small (a 16-byte intro, 16-byte index entries sorted by
 * tag, a data store aligned per type, a region trailer), and librpm would add a large
 * library with global state (macros, rpmrc) to the daemon for a few hundred lines. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rk/buf.h"
#include "rk/hash.h"
#include "formats/packages/rpm_layout.h"

/* header tag types */
enum { T_INT16 = 3, T_INT32 = 4, T_INT64 = 5, T_STRING = 6, T_BIN = 7, T_ARRAY = 8, T_I18N = 9 };

/* tags (rpmtag.h) */
enum {
	SIG_REGION = 62,
	MAIN_REGION = 63,
	I18NTABLE = 100,
	SIG_LONGSIZE = 270,
	SIG_LONGARCHIVESIZE = 271,
	SIG_SHA256 = 273,
	SIG_SIZE = 1000,
	SIG_PAYLOADSIZE = 1007,
	SIG_RESERVEDSPACE = 1008,
	NAME = 1000,
	VERSION = 1001,
	RELEASE = 1002,
	SUMMARY = 1004,
	DESCRIPTION = 1005,
	BUILDTIME = 1006,
	BUILDHOST = 1007,
	SIZE = 1009,
	VENDOR = 1011,
	LICENSE = 1014,
	GROUP = 1016,
	URL = 1020,
	OS = 1021,
	ARCH = 1022,
	PREIN = 1023,
	FILESIZES = 1028,
	FILEMODES = 1030,
	FILERDEVS = 1033,
	FILEMTIMES = 1034,
	FILEDIGESTS = 1035,
	FILELINKTOS = 1036,
	FILEFLAGS = 1037,
	FILEUSERNAME = 1039,
	FILEGROUPNAME = 1040,
	SOURCERPM = 1044,
	FILEVERIFYFLAGS = 1045,
	RPMVERSION = 1064,
	PREINPROG = 1085,
	FILEDEVICES = 1095,
	FILEINODES = 1096,
	FILELANGS = 1097,
	PREFIXES = 1098,
	DIRINDEXES = 1116,
	BASENAMES = 1117,
	DIRNAMES = 1118,
	PAYLOADFORMAT = 1124,
	PAYLOADCOMPRESSOR = 1125,
	PAYLOADFLAGS = 1126,
	FILECOLORS = 1140,
	FILECLASS = 1141,
	CLASSDICT = 1142,
	FILEDIGESTALGO = 5011,
	PAYLOADDIGEST = 5092,
	PAYLOADDIGESTALGO = 5093,
	PAYLOADDIGESTALT = 5097,
	LONGSIZE = 5009,
	ENCODING = 5062,
};

/* name, flags and version tags of each relation kind (enum rk_rpm_dep_kind) */
static const uint32_t dep_tags[RK_RPM_NKINDS][3] = {
	{1047, 1112, 1113}, /* PROVIDE */
	{1049, 1048, 1050}, /* REQUIRE */
	{1054, 1053, 1055}, /* CONFLICT */
	{1090, 1114, 1115}, /* OBSOLETE */
	{5046, 5048, 5047}, /* RECOMMEND */
	{5049, 5051, 5050}, /* SUGGEST */
};

#define RPM_VERSION "4.18.0"
#define BUILD_HOST "rockfs"
#define DIGESTALGO_SHA256 8
#define CPIO_HDR 110
#define FOUR_GIB (1ull << 32)
#define NO_DIGEST "0000000000000000000000000000000000000000000000000000000000000000"

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* --- header serializer ------------------------------------------------------------ */

struct hent {
	uint32_t tag, type, count;
	size_t at, len; /* raw data in hdr.data */
};

struct hdr {
	struct hent *e;
	size_t n, cap;
	struct rk_buf data;
	int rc; /* sticky: the first error */
};

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8), p[3] = (unsigned char)v;
}

static void buf_put(struct rk_buf *b, const void *p, size_t len, int *rc)
{
	if (!*rc)
		*rc = rk_buf_add(b, p, len);
}

static void buf_be(struct rk_buf *b, uint64_t v, int width, int *rc)
{
	unsigned char x[8];

	for (int i = 0; i < width; i++)
		x[i] = (unsigned char)(v >> (8 * (width - 1 - i)));
	buf_put(b, x, (size_t)width, rc);
}

static void buf_str0(struct rk_buf *b, const char *s, int *rc)
{
	buf_put(b, s, strlen(s) + 1, rc);
}

static void h_add(struct hdr *h, uint32_t tag, uint32_t type, uint32_t count, const void *p,
		  size_t len)
{
	if (h->rc)
		return;
	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 64;
		struct hent *e = realloc(h->e, cap * sizeof(*e));

		if (!e) {
			h->rc = -ENOMEM;
			return;
		}
		h->e = e, h->cap = cap;
	}
	h->e[h->n] = (struct hent){tag, type, count, h->data.len, len};
	if ((h->rc = rk_buf_add(&h->data, p, len)))
		return;
	h->n++;
}

/* An array tag whose data the caller built in b (released here). */
static void h_buf(struct hdr *h, uint32_t tag, uint32_t type, uint32_t count, struct rk_buf *b,
		  int rc)
{
	if (rc && !h->rc)
		h->rc = rc;
	if (count)
		h_add(h, tag, type, count, b->buf, b->len);
	rk_buf_release(b);
}

static void h_str(struct hdr *h, uint32_t tag, uint32_t type, const char *s)
{
	h_add(h, tag, type, 1, s, strlen(s) + 1);
}

static void h_int(struct hdr *h, uint32_t tag, uint32_t type, uint64_t v)
{
	struct rk_buf b = RK_BUF_INIT;
	int rc = 0;

	buf_be(&b, v, type == T_INT64 ? 8 : 4, &rc);
	h_buf(h, tag, type, 1, &b, rc);
}

static int cmp_hent(const void *a, const void *b)
{
	const struct hent *x = a, *y = b;

	return x->tag < y->tag ? -1 : x->tag > y->tag;
}

/* Serialize h as an immutable region `region` into out (as headerExport lays it out:
 * the region entry first, entries by tag, data in that order, trailer last). */
static int h_export(struct hdr *h, uint32_t region, struct rk_buf *out)
{
	struct rk_buf store = RK_BUF_INIT, index = RK_BUF_INIT;
	unsigned char trailer[16];
	int rc = h->rc;

	qsort(h->e, h->n, sizeof(*h->e), cmp_hent);
	for (size_t i = 0; !rc && i < h->n; i++) {
		const struct hent *e = &h->e[i];
		size_t align = e->type == T_INT16   ? 2
			       : e->type == T_INT32 ? 4
			       : e->type == T_INT64 ? 8
						    : 1;
		static const char zeros[8];

		buf_put(&store, zeros, (align - store.len % align) % align, &rc);
		buf_be(&index, e->tag, 4, &rc);
		buf_be(&index, e->type, 4, &rc);
		buf_be(&index, store.len, 4, &rc);
		buf_be(&index, e->count, 4, &rc);
		buf_put(&store, h->data.buf + e->at, e->len, &rc);
	}
	put32(trailer, region);
	put32(trailer + 4, T_BIN);
	put32(trailer + 8, (uint32_t)(-(int64_t)(16 * (h->n + 1))));
	put32(trailer + 12, 16);
	{
		unsigned char intro[16] = {0x8e, 0xad, 0xe8, 0x01};
		unsigned char rent[16];

		put32(intro + 8, (uint32_t)(h->n + 1));
		put32(intro + 12, (uint32_t)(store.len + 16));
		put32(rent, region);
		put32(rent + 4, T_BIN);
		put32(rent + 8, (uint32_t)store.len);
		put32(rent + 12, 16);
		buf_put(out, intro, 16, &rc);
		buf_put(out, rent, 16, &rc);
	}
	buf_put(out, index.buf, index.len, &rc);
	buf_put(out, store.buf, store.len, &rc);
	buf_put(out, trailer, 16, &rc);
	rk_buf_release(&store);
	rk_buf_release(&index);
	return rc;
}

static void h_release(struct hdr *h)
{
	free(h->e);
	rk_buf_release(&h->data);
}

/* --- relations -------------------------------------------------------------------- */

static int add_dep(struct rk_rpm_deps *d, int kind, const char *name, size_t nlen, const char *ver,
		   size_t vlen, uint32_t flags)
{
	struct rk_rpm_dep *v = realloc(d->v[kind], (d->n[kind] + 1) * sizeof(*v));
	char *n, *s;

	if (!v)
		return -ENOMEM;
	d->v[kind] = v;
	n = strndup(name, nlen);
	s = strndup(ver, vlen);
	if (!n || !s) {
		free(n), free(s);
		return -ENOMEM;
	}
	v[d->n[kind]++] = (struct rk_rpm_dep){n, s, flags};
	return 0;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* "a, b = 7.13.0-123, c >= 1" */
static int parse_deps(struct rk_rpm_deps *d, int kind, const char *s)
{
	while (*s) {
		const char *end = strchr(s, ','), *p, *name, *op, *ver;
		size_t nlen, oplen, vlen;
		uint32_t flags = 0;
		int rc;

		if (!end)
			end = s + strlen(s);
		for (p = s; p < end && is_space(*p); p++)
			;
		for (name = p; p < end && !is_space(*p) && !strchr("<>=", *p); p++)
			;
		nlen = (size_t)(p - name);
		for (; p < end && is_space(*p); p++)
			;
		for (op = p; p < end && strchr("<>=", *p); p++)
			;
		oplen = (size_t)(p - op);
		for (; p < end && is_space(*p); p++)
			;
		for (ver = p; p < end && !is_space(*p); p++)
			;
		vlen = (size_t)(p - ver);
		for (; p < end && is_space(*p); p++)
			;
		for (size_t i = 0; i < oplen; i++)
			flags |= op[i] == '<'	? RK_RPMSENSE_LESS
				 : op[i] == '>' ? RK_RPMSENSE_GREATER
						: RK_RPMSENSE_EQUAL;
		/* an empty item is skipped, as rpmbuild does: TheRock renders "a, " when the
		 * dependencies after a were dropped */
		if (p != end || (nlen == 0 && oplen) || (oplen == 0) != (vlen == 0) || oplen > 2)
			return -EINVAL;
		if (nlen && (rc = add_dep(d, kind, name, nlen, ver, vlen, flags)))
			return rc;
		s = *end ? end + 1 : end;
	}
	return 0;
}

static int cmp_dep(const void *a, const void *b)
{
	const struct rk_rpm_dep *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (x->flags != y->flags)
		return x->flags < y->flags ? -1 : 1;
	return strcmp(x->version, y->version);
}

/* The ISA suffix rpmbuild's %{_isa} gives an arch, or NULL (noarch and the unknown). */
static const char *isa(const char *arch)
{
	if (!strcmp(arch, "x86_64"))
		return "(x86-64)";
	if (!strcmp(arch, "aarch64"))
		return "(aarch-64)";
	return NULL;
}

static const char *evr(const struct rk_pkg_meta *m, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", m->version, *m->release ? "-" : "", m->release);
	return buf;
}

/* The script tags (%pre, %post, %preun, %postun) and requires flags of a DEB name. */
static const struct {
	const char *deb;
	uint32_t tag, prog, sense;
} scripts[] = {
	{"preinst", 1023, 1085, RK_RPMSENSE_SCRIPT_PRE},
	{"postinst", 1024, 1086, RK_RPMSENSE_SCRIPT_POST},
	{"prerm", 1025, 1087, RK_RPMSENSE_SCRIPT_PREUN},
	{"postrm", 1026, 1088, RK_RPMSENSE_SCRIPT_POSTUN},
};

/* The interpreter of a script: the "#!" line's first word, else /bin/sh. */
static void interpreter(const char *text, char *buf, size_t len)
{
	size_t n = 0;

	if (strncmp(text, "#!", 2)) {
		snprintf(buf, len, "/bin/sh");
		return;
	}
	text += 2;
	while (*text == ' ')
		text++;
	while (text[n] && !is_space(text[n]))
		n++;
	snprintf(buf, len, "%.*s", (int)n, text);
}

static int has_tilde_or_caret(const struct rk_rpm_deps *d, const char *evr_s, char c)
{
	if (strchr(evr_s, c))
		return 1;
	for (int k = 0; k < RK_RPM_NKINDS; k++)
		for (size_t i = 0; i < d->n[k]; i++)
			if (strchr(d->v[k][i].version, c))
				return 1;
	return 0;
}

int rk_rpm_deps(const struct rk_pkg_meta *m, struct rk_rpm_deps *out)
{
	struct rk_rpm_deps d = {0};
	char e[512], own[512];
	const uint32_t lib = RK_RPMSENSE_RPMLIB | RK_RPMSENSE_EQUAL | RK_RPMSENSE_LESS;
	int rc;

	evr(m, e, sizeof(e));
	if ((rc = add_dep(&d, RK_RPM_PROVIDE, m->name, strlen(m->name), e, strlen(e),
			  RK_RPMSENSE_EQUAL)))
		goto fail;
	if (isa(m->arch)) {
		snprintf(own, sizeof(own), "%s%s", m->name, isa(m->arch));
		if ((rc = add_dep(&d, RK_RPM_PROVIDE, own, strlen(own), e, strlen(e),
				  RK_RPMSENSE_EQUAL)))
			goto fail;
	}
	if ((rc = parse_deps(&d, RK_RPM_PROVIDE, m->provides)) ||
	    (rc = parse_deps(&d, RK_RPM_REQUIRE, m->depends)) ||
	    (rc = parse_deps(&d, RK_RPM_CONFLICT, m->conflicts)) ||
	    (rc = parse_deps(&d, RK_RPM_OBSOLETE, m->obsoletes)) ||
	    (rc = parse_deps(&d, RK_RPM_RECOMMEND, m->recommends)) ||
	    (rc = parse_deps(&d, RK_RPM_SUGGEST, m->suggests)))
		goto fail;
	for (size_t i = 0; i < m->nscripts; i++)
		for (size_t j = 0; j < sizeof(scripts) / sizeof(scripts[0]); j++) {
			if (strcmp(m->scripts[i].name, scripts[j].deb))
				continue;
			interpreter(m->scripts[i].text, own, sizeof(own));
			if ((rc = add_dep(&d, RK_RPM_REQUIRE, own, strlen(own), "", 0,
					  RK_RPMSENSE_INTERP | scripts[j].sense)))
				goto fail;
		}
	/* the rpmlib() features rpmbuild requires of such a package */
	if ((rc = add_dep(&d, RK_RPM_REQUIRE, "rpmlib(CompressedFileNames)", 27, "3.0.4-1", 7,
			  lib)) ||
	    (rc = add_dep(&d, RK_RPM_REQUIRE, "rpmlib(FileDigests)", 19, "4.6.0-1", 7, lib)) ||
	    (rc = add_dep(&d, RK_RPM_REQUIRE, "rpmlib(PayloadFilesHavePrefix)", 30, "4.0-1", 5,
			  lib)))
		goto fail;
	if (has_tilde_or_caret(&d, e, '~') &&
	    (rc = add_dep(&d, RK_RPM_REQUIRE, "rpmlib(TildeInVersions)", 23, "4.10.0-1", 8, lib)))
		goto fail;
	if (has_tilde_or_caret(&d, e, '^') &&
	    (rc = add_dep(&d, RK_RPM_REQUIRE, "rpmlib(CaretInVersions)", 23, "4.15.0-1", 8, lib)))
		goto fail;
	for (int k = 0; k < RK_RPM_NKINDS; k++)
		if (d.n[k])
			qsort(d.v[k], d.n[k], sizeof(*d.v[k]), cmp_dep);
	*out = d;
	return 0;
fail:
	rk_rpm_deps_release(&d);
	return rc;
}

void rk_rpm_deps_release(struct rk_rpm_deps *d)
{
	for (int k = 0; k < RK_RPM_NKINDS; k++) {
		for (size_t i = 0; i < d->n[k]; i++)
			free(d->v[k][i].name), free(d->v[k][i].version);
		free(d->v[k]);
		d->v[k] = NULL, d->n[k] = 0;
	}
}

/* --- the main header -------------------------------------------------------------- */

static void add_deps(struct hdr *h, const struct rk_rpm_deps *d)
{
	for (int k = 0; k < RK_RPM_NKINDS; k++) {
		struct rk_buf names = RK_BUF_INIT, flags = RK_BUF_INIT, vers = RK_BUF_INIT;
		uint32_t n = (uint32_t)d->n[k];
		int rc = 0;

		for (size_t i = 0; i < d->n[k]; i++) {
			buf_str0(&names, d->v[k][i].name, &rc);
			buf_be(&flags, d->v[k][i].flags, 4, &rc);
			buf_str0(&vers, d->v[k][i].version, &rc);
		}
		h_buf(h, dep_tags[k][0], T_ARRAY, n, &names, rc);
		h_buf(h, dep_tags[k][1], T_INT32, n, &flags, 0);
		h_buf(h, dep_tags[k][2], T_ARRAY, n, &vers, 0);
	}
}

/* The directory part of path (with its final '/'), its length. */
static size_t dir_len(const char *path)
{
	return (size_t)(strrchr(path, '/') - path) + 1;
}

static void add_files(struct hdr *h, const struct rk_rpm_file *f, size_t n)
{
	struct rk_buf sizes = RK_BUF_INIT, modes = RK_BUF_INIT, rdevs = RK_BUF_INIT;
	struct rk_buf mtimes = RK_BUF_INIT, digests = RK_BUF_INIT, links = RK_BUF_INIT;
	struct rk_buf fflags = RK_BUF_INIT, users = RK_BUF_INIT, verify = RK_BUF_INIT;
	struct rk_buf devs = RK_BUF_INIT, inodes = RK_BUF_INIT, langs = RK_BUF_INIT;
	struct rk_buf dirindex = RK_BUF_INIT, bases = RK_BUF_INIT, dirs = RK_BUF_INIT;
	struct rk_buf colors = RK_BUF_INIT, fclass = RK_BUF_INIT, classdict = RK_BUF_INIT;
	size_t *dir_at = calloc(n ? n : 1, sizeof(*dir_at)); /* offsets of dirnames in dirs */
	uint32_t ndirs = 0;
	int rc = dir_at ? 0 : -ENOMEM;

	for (size_t i = 0; !rc && i < n; i++) {
		size_t dl = dir_len(f[i].path);
		uint32_t d = ndirs;
		int reg = S_ISREG(f[i].mode), lnk = S_ISLNK(f[i].mode);

		/* dirnames in order of first use; most files share the previous one's */
		for (uint32_t j = ndirs; j-- > 0;)
			if (strlen(dirs.buf + dir_at[j]) == dl &&
			    !memcmp(dirs.buf + dir_at[j], f[i].path, dl)) {
				d = j;
				break;
			}
		if (d == ndirs) {
			dir_at[ndirs++] = dirs.len;
			buf_put(&dirs, f[i].path, dl, &rc);
			buf_put(&dirs, "", 1, &rc);
		}
		buf_be(&dirindex, d, 4, &rc);
		buf_str0(&bases, f[i].path + dl, &rc);
		buf_be(&sizes, reg ? f[i].size : lnk ? strlen(f[i].link) : 0, 4, &rc);
		buf_be(&modes, f[i].mode & 0xffff, 2, &rc);
		buf_be(&rdevs, 0, 2, &rc);
		buf_be(&mtimes, (uint32_t)f[i].mtime, 4, &rc);
		buf_str0(&digests, reg ? f[i].digest : "", &rc);
		buf_str0(&links, lnk ? f[i].link : "", &rc);
		buf_be(&fflags, 0, 4, &rc);
		buf_str0(&users, "root", &rc);
		buf_be(&verify, 0xffffffffu, 4, &rc);
		buf_be(&devs, 1, 4, &rc);
		buf_be(&inodes, i + 1, 4, &rc);
		buf_str0(&langs, "", &rc);
		buf_be(&colors, 0, 4, &rc);
		buf_be(&fclass, S_ISDIR(f[i].mode) ? 0 : 1, 4, &rc);
	}
	buf_str0(&classdict, "directory", &rc);
	buf_str0(&classdict, "", &rc);
	free(dir_at);
	h_buf(h, FILESIZES, T_INT32, (uint32_t)n, &sizes, rc);
	h_buf(h, FILEMODES, T_INT16, (uint32_t)n, &modes, 0);
	h_buf(h, FILERDEVS, T_INT16, (uint32_t)n, &rdevs, 0);
	h_buf(h, FILEMTIMES, T_INT32, (uint32_t)n, &mtimes, 0);
	h_buf(h, FILEDIGESTS, T_ARRAY, (uint32_t)n, &digests, 0);
	h_buf(h, FILELINKTOS, T_ARRAY, (uint32_t)n, &links, 0);
	h_buf(h, FILEFLAGS, T_INT32, (uint32_t)n, &fflags, 0);
	h_add(h, FILEUSERNAME, T_ARRAY, (uint32_t)n, users.buf, users.len);
	h_buf(h, FILEGROUPNAME, T_ARRAY, (uint32_t)n, &users, 0);
	h_buf(h, FILEVERIFYFLAGS, T_INT32, (uint32_t)n, &verify, 0);
	h_buf(h, FILEDEVICES, T_INT32, (uint32_t)n, &devs, 0);
	h_buf(h, FILEINODES, T_INT32, (uint32_t)n, &inodes, 0);
	h_buf(h, FILELANGS, T_ARRAY, (uint32_t)n, &langs, 0);
	h_buf(h, DIRINDEXES, T_INT32, (uint32_t)n, &dirindex, 0);
	h_buf(h, BASENAMES, T_ARRAY, (uint32_t)n, &bases, 0);
	h_buf(h, DIRNAMES, T_ARRAY, ndirs, &dirs, 0);
	h_buf(h, FILECOLORS, T_INT32, (uint32_t)n, &colors, 0);
	h_buf(h, FILECLASS, T_INT32, (uint32_t)n, &fclass, 0);
	h_buf(h, CLASSDICT, T_ARRAY, n ? 2 : 0, &classdict, 0);
	if (n)
		h_int(h, FILEDIGESTALGO, T_INT32, DIGESTALGO_SHA256);
}

/* The rpmlib() feature rpmbuild requires of a payload compressed with compressor. */
static int payload_dep(struct rk_rpm_deps *d, const char *compressor)
{
	const uint32_t lib = RK_RPMSENSE_RPMLIB | RK_RPMSENSE_EQUAL | RK_RPMSENSE_LESS;
	int rc = 0;

	if (!strcmp(compressor, "zstd"))
		rc = add_dep(d, RK_RPM_REQUIRE, "rpmlib(PayloadIsZstd)", 21, "5.4.18-1", 8, lib);
	else if (!strcmp(compressor, "xz"))
		rc = add_dep(d, RK_RPM_REQUIRE, "rpmlib(PayloadIsXz)", 19, "5.2-1", 5, lib);
	if (!rc)
		qsort(d->v[RK_RPM_REQUIRE], d->n[RK_RPM_REQUIRE], sizeof(*d->v[RK_RPM_REQUIRE]),
		      cmp_dep);
	return rc;
}

static int main_header(const struct rk_pkg_meta *m, const struct rk_rpm_file *f, size_t n,
		       uint64_t installed, const struct rk_rpm_compressed *cz, struct rk_buf *out)
{
	struct hdr h = {0};
	struct rk_rpm_deps d;
	char srpm[1024], e[512];
	int rc;

	if ((rc = rk_rpm_deps(m, &d)))
		return rc;
	if (cz && (rc = payload_dep(&d, cz->compressor))) {
		rk_rpm_deps_release(&d);
		return rc;
	}
	h.data = (struct rk_buf)RK_BUF_INIT;
	h_add(&h, I18NTABLE, T_ARRAY, 1, "C", 2);
	h_str(&h, NAME, T_STRING, m->name);
	h_str(&h, VERSION, T_STRING, m->version);
	h_str(&h, RELEASE, T_STRING, m->release);
	h_str(&h, SUMMARY, T_I18N, m->summary);
	h_str(&h, DESCRIPTION, T_I18N, m->description);
	h_int(&h, BUILDTIME, T_INT32, (uint32_t)m->mtime);
	h_str(&h, BUILDHOST, T_STRING, BUILD_HOST);
	if (installed < FOUR_GIB)
		h_int(&h, SIZE, T_INT32, installed);
	else
		h_int(&h, LONGSIZE, T_INT64, installed);
	if (*m->vendor)
		h_str(&h, VENDOR, T_STRING, m->vendor);
	if (*m->license)
		h_str(&h, LICENSE, T_STRING, m->license);
	h_str(&h, GROUP, T_I18N, *m->group ? m->group : "Unspecified");
	if (*m->homepage)
		h_str(&h, URL, T_STRING, m->homepage);
	h_str(&h, OS, T_STRING, "linux");
	h_str(&h, ARCH, T_STRING, m->arch);
	for (size_t i = 0; i < m->nscripts; i++)
		for (size_t j = 0; j < sizeof(scripts) / sizeof(scripts[0]); j++) {
			char prog[256];

			if (strcmp(m->scripts[i].name, scripts[j].deb))
				continue;
			interpreter(m->scripts[i].text, prog, sizeof(prog));
			h_str(&h, scripts[j].tag, T_STRING, m->scripts[i].text);
			h_str(&h, scripts[j].prog, T_STRING, prog);
		}
	add_files(&h, f, n);
	snprintf(srpm, sizeof(srpm), "%s-%s.src.rpm", m->name, evr(m, e, sizeof(e)));
	h_str(&h, SOURCERPM, T_STRING, srpm);
	h_str(&h, RPMVERSION, T_STRING, RPM_VERSION);
	add_deps(&h, &d);
	h_add(&h, PREFIXES, T_ARRAY, 1, m->prefix, strlen(m->prefix) + 1);
	h_str(&h, PAYLOADFORMAT, T_STRING, "cpio");
	if (cz) { /* as rpmbuild's w<level>.<compressor>dio */
		h_str(&h, PAYLOADCOMPRESSOR, T_STRING, cz->compressor);
		h_str(&h, PAYLOADFLAGS, T_STRING, cz->flags);
	} else {
		h_str(&h, PAYLOADFLAGS, T_STRING, ""); /* w.ufdio: no PAYLOADCOMPRESSOR */
	}
	h_str(&h, ENCODING, T_STRING, "utf-8");
	/* placeholders until rk_rpm_set_payload_digest (same length: the header keeps its size) */
	h_add(&h, PAYLOADDIGEST, T_ARRAY, 1, NO_DIGEST, sizeof(NO_DIGEST));
	h_int(&h, PAYLOADDIGESTALGO, T_INT32, DIGESTALGO_SHA256);
	h_add(&h, PAYLOADDIGESTALT, T_ARRAY, 1, NO_DIGEST, sizeof(NO_DIGEST));
	rc = h_export(&h, MAIN_REGION, out);
	h_release(&h);
	rk_rpm_deps_release(&d);
	return rc;
}

/* --- the cpio payload ------------------------------------------------------------- */

static int cpio_entry(struct rk_composite *c, uint32_t ino, uint32_t mode, int64_t mtime,
		      uint64_t size, const char *name)
{
	size_t nlen = strlen(name) + 1, len = (CPIO_HDR + nlen + 3) & ~(size_t)3;
	char *p = rk_composite_bytes_room(c, len);

	if (!p)
		return -ENOMEM;
	/* 111 bytes with snprintf's NUL, which lands on the name's first byte */
	snprintf(p, CPIO_HDR + 1, "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X", ino,
		 mode, 0u, 0u, 1u, (uint32_t)mtime, (uint32_t)size, 0u, 0u, 0u, 0u, (uint32_t)nlen,
		 0u);
	memcpy(p + CPIO_HDR, name, nlen);
	return 0;
}

static int cpio_file(struct rk_composite *c, const struct rk_rpm_file *f, uint32_t ino)
{
	uint64_t size = S_ISREG(f->mode) ? f->size : S_ISLNK(f->mode) ? strlen(f->link) : 0;
	char *name = malloc(strlen(f->path) + 2);
	uint32_t src;
	int rc;

	if (!name)
		return -ENOMEM;
	name[0] = '.';
	memcpy(name + 1, f->path, strlen(f->path) + 1);
	rc = cpio_entry(c, ino, f->mode, f->mtime, size, name);
	free(name);
	if (rc || !size)
		return rc;
	if (S_ISLNK(f->mode))
		rc = rk_composite_bytes(c, f->link, size);
	else if (f->blob && !(rc = rk_composite_add_source(c, f->blob, size, f->origin, &src)))
		rc = rk_composite_source(c, src, 0, size);
	else if (f->content && f->content->size == size)
		rc = rk_composite_append(c, f->content);
	else if (!f->blob)
		rc = -EINVAL;
	return rc ? rc : rk_composite_zero(c, (4 - size % 4) % 4);
}

static int check_files(const struct rk_pkg_meta *m, const struct rk_rpm_file *f, size_t n,
		       uint64_t *installed)
{
	*installed = 0;
	for (size_t i = 0; i < n; i++) {
		if (f[i].path[0] != '/' || (i && strcmp(f[i - 1].path, f[i].path) >= 0))
			return -EINVAL;
		if (S_ISREG(f[i].mode)) {
			if (f[i].size >= FOUR_GIB)
				return -EFBIG;
			if (!f[i].digest || !rk_is_sha256_hex(f[i].digest))
				return -EINVAL;
			*installed += f[i].size;
		} else if (S_ISLNK(f[i].mode)) {
			if (!f[i].link)
				return -EINVAL;
			*installed += strlen(f[i].link);
		} else if (!S_ISDIR(f[i].mode)) {
			return -EINVAL;
		}
	}
	return *m->prefix == '/' ? 0 : -EINVAL;
}

/* --- the package ------------------------------------------------------------------ */

static int lead(struct rk_composite *c, const struct rk_pkg_meta *m)
{
	unsigned char *p = rk_composite_bytes_room(c, 96);
	char e[512];

	if (!p)
		return -ENOMEM;
	memcpy(p, "\xed\xab\xee\xdb\x03\x00", 6); /* magic, format 3.0, type 0 (binary) */
	p[9] = !strcmp(m->arch, "aarch64") ? 19 : 1; /* archnum (rpmrc) */
	snprintf((char *)p + 10, 66, "%s-%s", m->name, evr(m, e, sizeof(e)));
	p[77] = 1; /* osnum: Linux */
	p[79] = 5; /* signature type: a header */
	return 0;
}

/* The signature header over main_hdr (sha its SHA-256, main_len bytes), a payload stored in
 * `stored` bytes and of `payload` bytes as a cpio archive: with an OpenPGP header signature
 * sig (tag, len bytes) when sig, and `reserve` zero bytes (RESERVEDSPACE, as rpmbuild
 * reserves %__gpg_reserved_space for rpmsign) when reserve. */
static int sig_header(const char *sha, uint64_t main_len, uint64_t stored, uint64_t payload,
		      uint32_t tag, const void *sig, size_t len, size_t reserve, struct rk_buf *out)
{
	struct hdr h = {0};
	uint64_t total = main_len + stored;
	int rc;

	h.data = (struct rk_buf)RK_BUF_INIT;
	if (sig)
		h_add(&h, tag, T_BIN, (uint32_t)len, sig, len);
	h_str(&h, SIG_SHA256, T_STRING, sha);
	if (total < FOUR_GIB && payload < FOUR_GIB) {
		h_int(&h, SIG_SIZE, T_INT32, total);
		h_int(&h, SIG_PAYLOADSIZE, T_INT32, payload);
	} else {
		h_int(&h, SIG_LONGSIZE, T_INT64, total);
		h_int(&h, SIG_LONGARCHIVESIZE, T_INT64, payload);
	}
	if (reserve) {
		unsigned char *z = calloc(1, reserve);

		if (!z)
			h.rc = -ENOMEM;
		h_add(&h, SIG_RESERVEDSPACE, T_BIN, (uint32_t)reserve, z, reserve);
		free(z);
	}
	rc = h_export(&h, SIG_REGION, out);
	h_release(&h);
	return rc;
}

/* stored: the payload's bytes in the package; payload: the cpio archive's size */
static int signature(struct rk_composite *c, const struct rk_buf *main_hdr, uint64_t stored,
		     uint64_t payload)
{
	struct rk_buf out = RK_BUF_INIT;
	char sha[RK_SHA256_HEX];
	int rc;

	if ((rc = rk_sha256_buf(main_hdr->buf, main_hdr->len, sha)))
		return rc;
	rc = sig_header(sha, main_hdr->len, stored, payload, 0, NULL, 0, RK_RPM_SIG_ROOM, &out);
	if (!rc)
		rc = rk_composite_bytes(c, out.buf, out.len);
	if (!rc)
		rc = rk_composite_zero(c, (8 - out.len % 8) % 8);
	rk_buf_release(&out);
	return rc;
}

/* The cpio payload of files[0..n) into out (empty). */
static int payload_of(const struct rk_rpm_file *files, size_t n, struct rk_composite *out)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < n; i++)
		rc = cpio_file(out, &files[i], (uint32_t)(i + 1));
	if (!rc)
		rc = cpio_entry(out, 0, 0, 0, 0, "TRAILER!!!");
	if (rc)
		rk_composite_release(out);
	return rc;
}

int rk_rpm_payload(const struct rk_pkg_meta *m, const struct rk_rpm_file *files, size_t n,
		   struct rk_composite *out)
{
	struct rk_composite c = RK_COMPOSITE_INIT;
	uint64_t installed;
	int rc = check_files(m, files, n, &installed);

	if (!rc && !(rc = payload_of(files, n, &c)))
		*out = c;
	return rc;
}

static int build(const struct rk_pkg_meta *m, const struct rk_rpm_file *files, size_t n,
		 const struct rk_rpm_compressed *cz, struct rk_composite *out,
		 struct rk_rpm_info *info)
{
	struct rk_composite c = RK_COMPOSITE_INIT, payload = RK_COMPOSITE_INIT;
	const struct rk_composite *stored = cz ? cz->payload : &payload;
	struct rk_buf hdr = RK_BUF_INIT;
	uint64_t installed, start, end, payload_size;
	int rc;

	if ((rc = check_files(m, files, n, &installed)))
		return rc;
	if (!cz && (rc = payload_of(files, n, &payload)))
		return rc;
	payload_size = cz ? cz->archive_size : payload.size;
	if (!rc)
		rc = main_header(m, files, n, installed, cz, &hdr);
	if (!rc)
		rc = lead(&c, m);
	if (!rc)
		rc = signature(&c, &hdr, stored->size, payload_size);
	start = c.size;
	end = start + hdr.len;
	if (!rc)
		rc = rk_composite_bytes(&c, hdr.buf, hdr.len);
	if (!rc)
		rc = rk_composite_append(&c, stored);
	rk_buf_release(&hdr);
	rk_composite_release(&payload);
	if (rc) {
		rk_composite_release(&c);
		return rc;
	}
	if (info)
		*info = (struct rk_rpm_info){start, end, payload_size, installed};
	*out = c;
	return 0;
}

int rk_rpm_build(const struct rk_pkg_meta *m, const struct rk_rpm_file *files, size_t n,
		 struct rk_composite *out, struct rk_rpm_info *info)
{
	return build(m, files, n, NULL, out, info);
}

int rk_rpm_build_compressed(const struct rk_pkg_meta *m, const struct rk_rpm_file *files, size_t n,
			    const struct rk_rpm_compressed *cz, struct rk_composite *out,
			    struct rk_rpm_info *info)
{
	if (!cz || !cz->payload || !cz->compressor || !*cz->compressor || !cz->flags)
		return -EINVAL;
	return build(m, files, n, cz, out, info);
}

/* The offset in hdr (an exported header) of tag's data, or 0 when absent. */
static uint64_t data_offset(const unsigned char *hdr, uint32_t tag)
{
	uint32_t n = be32(hdr + 8);

	for (uint32_t i = 0; i < n; i++) {
		const unsigned char *e = hdr + 16 + 16 * i;

		if (be32(e) == tag)
			return 16 + 16 * (uint64_t)n + be32(e + 8);
	}
	return 0;
}

int rk_rpm_set_payload_digest(struct rk_composite *pkg, const struct rk_rpm_info *info,
			      const char hex[RK_SHA256_HEX])
{
	return rk_rpm_set_payload_digests(pkg, info, hex, hex);
}

int rk_rpm_set_payload_digests(struct rk_composite *pkg, const struct rk_rpm_info *info,
			       const char hex[RK_SHA256_HEX], const char alt[RK_SHA256_HEX])
{
	uint64_t len = info->header_end - info->header_start, sig_len = info->header_start - 96;
	unsigned char *hdr;
	char sha[RK_SHA256_HEX];
	ssize_t got;
	int rc = -EINVAL;

	if (!rk_is_sha256_hex(hex) || !rk_is_sha256_hex(alt))
		return -EINVAL;
	if (!(hdr = malloc(len > sig_len ? len : sig_len)))
		return -ENOMEM;
	/* the headers are literal bytes: no source is read */
	if ((got = rk_composite_pread(pkg, NULL, NULL, hdr, len, info->header_start)) !=
	    (ssize_t)len)
		goto out;
	memcpy(hdr + data_offset(hdr, PAYLOADDIGEST), hex, 64);
	memcpy(hdr + data_offset(hdr, PAYLOADDIGESTALT), alt, 64);
	if ((rc = rk_sha256_buf(hdr, len, sha)) ||
	    (rc = rk_composite_write(pkg, info->header_start, hdr, len)))
		goto out;
	rc = -EINVAL;
	if ((got = rk_composite_pread(pkg, NULL, NULL, hdr, sig_len, 96)) != (ssize_t)sig_len)
		goto out;
	rc = rk_composite_write(pkg, 96 + data_offset(hdr, SIG_SHA256), sha, 64);
out:
	free(hdr);
	return rc;
}

int rk_rpm_sign_header(const struct rk_composite *pkg, const struct rk_rpm_info *info,
		       unsigned char **out, size_t *len)
{
	uint64_t n = info->header_end - info->header_start;
	unsigned char *hdr = malloc(n ? n : 1);

	if (!hdr)
		return -ENOMEM;
	if (rk_composite_pread(pkg, NULL, NULL, hdr, n, info->header_start) != (ssize_t)n) {
		free(hdr);
		return -EINVAL;
	}
	*out = hdr;
	*len = n;
	return 0;
}

int rk_rpm_set_signature(struct rk_composite *pkg, const struct rk_rpm_info *info,
			 uint32_t tag, const void *sig, size_t len)
{
	unsigned char intro[16], *hdr = NULL;
	struct rk_buf first = RK_BUF_INIT, out = RK_BUF_INIT;
	char sha[RK_SHA256_HEX];
	size_t hlen, have;
	uint64_t stored;
	int rc;

	if ((tag != RK_RPM_SIG_RSA && tag != RK_RPM_SIG_DSA) || !len ||
	    len >= RK_RPM_SIG_ROOM - 64)
		return -EINVAL;
	if (rk_composite_pread(pkg, NULL, NULL, intro, 16, 96) != 16)
		return -EINVAL;
	have = 16 + 16 * (size_t)be32(intro + 8) + be32(intro + 12); /* as written, unpadded */
	if ((rc = rk_rpm_sign_header(pkg, info, &hdr, &hlen)) ||
	    (rc = rk_sha256_buf(hdr, hlen, sha)))
		goto out;
	/* the same length as before: the reserved space gives what the signature takes */
	stored = pkg->size - info->header_end;
	rc = sig_header(sha, hlen, stored, info->payload_size, tag, sig, len, 0, &first);
	if (!rc && first.len + 16 >= have)
		rc = -EINVAL;
	if (!rc)
		rc = sig_header(sha, hlen, stored, info->payload_size, tag, sig, len,
				have - first.len - 16, &out);
	if (!rc && out.len != have)
		rc = -EINVAL;
	if (!rc)
		rc = rk_composite_write(pkg, 96, out.buf, out.len);
out:
	free(hdr);
	rk_buf_release(&first);
	rk_buf_release(&out);
	return rc;
}
