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

#include "formats/packages/deb_layout.h"
#include "formats/archive/tar_layout.h"
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

/* ---- relation fields as dpkg-gencontrol writes them (Dpkg::Deps) ----
 * TheRock's debian/control carries its Python's strings ("amdrocm-core7.13( = 7.13.0-1)",
 * a dropped dependency's trailing ", "); dpkg-gencontrol parses each relation field and
 * writes it back: "name (op version)" joined by ", " and " | ", empty items gone. In
 * Depends, Recommends and Suggests an item implied by one before it (in the field or a
 * stronger one; one implied by a later item takes that one's place) or satisfied by the
 * package itself is dropped; in the union fields (Conflicts, Replaces, Provides) two items
 * on one name merge into the weaker, and the items are sorted. Implication is the subset
 * rockfs can produce: the same name with no version, or with the same relation and
 * version (dpkg also compares versions). */

#define REL_ALTS 16

struct rel {
	const char *name, *ver; /* not NUL-terminated: nl, vl */
	size_t nl, vl;
	int op; /* index into rel_ops, -1: no version */
};

struct relitem {
	struct rel alt[REL_ALTS];
	size_t n;
};

/* dpkg's spellings, in Dpkg::Deps' sort order of relations (none first); "<" and ">"
 * are the deprecated spellings of "<=" and ">=". */
static const char *const rel_ops[] = {">=", ">>", "=", "<<", "<="};

static int rel_parse_one(const char *s, size_t n, struct rel *r)
{
	size_t i = 0, j;

	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	while (n > i && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	r->name = s + i;
	for (j = i; j < n && s[j] != ' ' && s[j] != '\t' && s[j] != '('; j++)
		;
	r->nl = j - i;
	r->op = -1;
	r->ver = "";
	r->vl = 0;
	if (!r->nl)
		return -EINVAL;
	while (j < n && (s[j] == ' ' || s[j] == '\t'))
		j++;
	if (j == n)
		return 0;
	if (s[j] != '(' || s[n - 1] != ')')
		return -EINVAL;
	for (j++, n--; j < n && (s[j] == ' ' || s[j] == '\t');)
		j++;
	if (j + 1 < n && (!strncmp(s + j, ">=", 2) || !strncmp(s + j, "<=", 2) ||
			  !strncmp(s + j, ">>", 2) || !strncmp(s + j, "<<", 2))) {
		for (size_t k = 0; k < sizeof(rel_ops) / sizeof(*rel_ops); k++)
			if (!strncmp(s + j, rel_ops[k], 2))
				r->op = (int)k;
		j += 2;
	} else if (j < n && (s[j] == '=' || s[j] == '<' || s[j] == '>')) {
		r->op = s[j] == '=' ? 2 : s[j] == '<' ? 4 : 0;
		j++;
	} else {
		return -EINVAL;
	}
	while (j < n && (s[j] == ' ' || s[j] == '\t'))
		j++;
	while (n > j && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	r->ver = s + j;
	r->vl = n - j;
	return r->vl ? 0 : -EINVAL;
}

/* The items of value, empty ones skipped. -EINVAL: not a relation field dpkg reads. */
static int rel_parse(const char *value, struct relitem **out, size_t *nout)
{
	size_t cap = 1, n = 0;
	struct relitem *v;

	for (const char *p = value; *p; p++)
		cap += *p == ',';
	if (!(v = calloc(cap, sizeof(*v))))
		return -ENOMEM;
	for (const char *p = value; *p;) {
		const char *end = strchr(p, ','), *q = end ? end : p + strlen(p);

		if (strspn(p, " \t") < (size_t)(q - p)) {
			struct relitem *it = &v[n++];

			for (const char *a = p; a <= q;) {
				const char *bar = memchr(a, '|', (size_t)(q - a));
				const char *ae = bar ? bar : q;

				if (it->n == REL_ALTS ||
				    rel_parse_one(a, (size_t)(ae - a), &it->alt[it->n++])) {
					free(v);
					return -EINVAL;
				}
				a = ae + 1;
			}
		}
		p = end ? end + 1 : q;
	}
	*out = v;
	*nout = n;
	return 0;
}

static int rel_same_name(const struct rel *a, const struct rel *b)
{
	return a->nl == b->nl && !memcmp(a->name, b->name, a->nl);
}

/* Whether a makes b true: the same name, and b has no version or a has the same one. */
static int rel_alt_implies(const struct rel *a, const struct rel *b)
{
	return rel_same_name(a, b) &&
	       (b->op < 0 || (a->op == b->op && a->vl == b->vl && !memcmp(a->ver, b->ver, a->vl)));
}

/* Whether item x makes item y true (Dpkg::Deps Simple and OR implies): every
 * alternative of x makes one of y's true; an OR item never implies a single one. */
static int rel_implies(const struct relitem *x, const struct relitem *y)
{
	if (x->n > 1 && y->n == 1)
		return 0;
	for (size_t i = 0; i < x->n; i++) {
		int found = 0;

		for (size_t k = 0; !found && k < y->n; k++)
			found = rel_alt_implies(&x->alt[i], &y->alt[k]);
		if (!found)
			return 0;
	}
	return 1;
}

/* Dpkg::Deps::Simple merge_union of o into kept item x (union fields): the weaker of two
 * relations on one name is kept. 1: o merged (dropped). */
static int rel_merge_union(struct relitem *x, const struct relitem *o)
{
	if (x->n != 1 || o->n != 1 || !rel_same_name(&x->alt[0], &o->alt[0]))
		return 0;
	if (o->alt[0].op < 0 && x->alt[0].op >= 0) {
		x->alt[0] = o->alt[0];
		return 1;
	}
	return rel_implies(x, o) || rel_implies(o, x);
}

static int rel_cmp(const void *x, const void *y)
{
	const struct relitem *p = x, *q = y;

	for (size_t i = 0;; i++) {
		const struct rel *a = i < p->n ? &p->alt[i] : NULL,
				 *b = i < q->n ? &q->alt[i] : NULL;
		size_t l;
		int c;

		if (!a || !b)
			return !a && !b ? 0 : !a ? -1 : 1;
		l = a->nl < b->nl ? a->nl : b->nl;
		if ((c = memcmp(a->name, b->name, l)) || (c = (a->nl > b->nl) - (a->nl < b->nl)))
			return c;
		if (a->op != b->op)
			return a->op < b->op ? -1 : 1;
		l = a->vl < b->vl ? a->vl : b->vl;
		if ((c = memcmp(a->ver, b->ver, l)) || (c = (a->vl > b->vl) - (a->vl < b->vl)))
			return c;
	}
}

/* Field name of package self at version, value as dpkg-gencontrol writes it. seen: the
 * stronger normal fields' items so far, grown by this one's; NULL for a union field. */
static int relations(struct rk_buf *b, const char *name, const char *value, const char *self,
		     const char *version, struct relitem **seen, size_t *nseen)
{
	struct relitem *v = NULL, *keep;
	size_t n = 0, nk = 0, start = b->len;
	int is_union = !seen, rc;

	if (!value || !*value)
		return 0;
	if ((rc = rel_parse(value, &v, &n)))
		return rc == -EINVAL ? field(b, name, value) : rc; /* as it is: dpkg would fail */
	keep = v; /* kept items are compacted to the front */
	for (size_t i = 0; i < n; i++) {
		struct relitem it = v[i];
		int drop = 0;

		if (is_union) {
			for (size_t k = 0; !drop && k < nk; k++)
				drop = rel_merge_union(&keep[k], &it);
			if (!drop)
				keep[nk++] = it;
			continue;
		}
		/* true on the package alone (Dpkg::Deps::KnownFacts) */
		for (size_t a = 0; !drop && a < it.n; a++) {
			const struct rel *r = &it.alt[a];

			drop = r->nl == strlen(self) && !memcmp(r->name, self, r->nl) &&
			       (r->op < 0 || (r->op == 2 && r->vl == strlen(version) &&
					      !memcmp(r->ver, version, r->vl)));
		}
		for (size_t k = 0; !drop && k < *nseen; k++)
			drop = rel_implies(&(*seen)[k], &it);
		for (size_t k = 0; !drop && k < nk; k++)
			drop = rel_implies(&keep[k], &it);
		if (drop)
			continue;
		/* implied by a later item: that one takes this place */
		for (size_t k = i + 1; k < n; k++)
			if (v[k].n && rel_implies(&v[k], &it)) {
				it = v[k];
				v[k].n = 0;
				break;
			}
		if (it.n)
			keep[nk++] = it;
	}
	if (is_union)
		qsort(keep, nk, sizeof(*keep), rel_cmp);
	for (size_t i = 0; !rc && i < nk; i++)
		for (size_t a = 0; !rc && a < keep[i].n; a++) {
			const struct rel *r = &keep[i].alt[a];

			rc = rk_buf_addf(b, "%s%.*s",
					 a   ? " | "
					 : i ? ", "
					     : "",
					 (int)r->nl, r->name);
			if (!rc && r->op >= 0)
				rc = rk_buf_addf(b, " (%s %.*s)", rel_ops[r->op], (int)r->vl,
						 r->ver);
		}
	if (!rc && nk) {
		char *text = strndup(b->buf + start, b->len - start);

		b->len = start;
		b->buf[start] = '\0';
		rc = text ? field(b, name, text) : -ENOMEM;
		free(text);
	}
	if (!rc && !is_union && nk) {
		struct relitem *ns = realloc(*seen, (*nseen + nk) * sizeof(**seen));

		if (!ns)
			rc = -ENOMEM;
		else {
			memcpy(ns + *nseen, keep, nk * sizeof(*keep));
			*seen = ns;
			*nseen += nk;
		}
	}
	free(v);
	return rc;
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
	struct relitem *seen = NULL;
	size_t nseen = 0;
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
	    (rc = field(&b, "Installed-Size", size)) ||
	    (rc = relations(&b, "Depends", m->depends, m->name, version, &seen, &nseen)) ||
	    (rc = relations(&b, "Recommends", m->recommends, m->name, version, &seen, &nseen)) ||
	    (rc = relations(&b, "Suggests", m->suggests, m->name, version, &seen, &nseen)) ||
	    (rc = relations(&b, "Conflicts", m->conflicts, m->name, version, NULL, NULL)) ||
	    (rc = relations(&b, "Replaces", m->replaces, m->name, version, NULL, NULL)) ||
	    (rc = relations(&b, "Provides", m->provides, m->name, version, NULL, NULL)) ||
	    (rc = rk_buf_adds(&b, extra)) || (rc = field(&b, "Section", m->section)) ||
	    (rc = field(&b, "Priority", m->priority)) ||
	    (rc = field(&b, "Homepage", m->homepage)) ||
	    (rc = description(&b, m->summary, m->description)))
		goto out;
out:
	free(version);
	free(seen);
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
	return rk_deb_build_data(m, data_tar, "data.tar", out);
}

int rk_deb_build_data(const struct rk_pkg_meta *m, const struct rk_composite *data,
		      const char *data_name, struct rk_composite *out)
{
	const struct rk_composite *data_tar = data;
	struct rk_composite c = RK_COMPOSITE_INIT;
	char *control = rk_deb_control(m);
	void *gz = NULL;
	size_t gzlen = 0;
	int rc;

	if (!control)
		return -errno;
	if (m->mtime < 0 || strncmp(data_name, "data.tar", 8) || strlen(data_name) > 16) {
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
	    (rc = ar_header(&c, data_name, m->mtime, data_tar->size)) ||
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
