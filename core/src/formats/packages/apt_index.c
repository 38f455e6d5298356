/* apt_index.c: Packages, Release and pool paths of a flat apt repository (apt_index.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>

#include "formats/packages/apt_index.h"
#include "formats/packages/deb_layout.h"
#include "rk/buf.h"

char *rk_apt_pool_path(const struct rk_pkg_meta *m)
{
	struct rk_buf b = RK_BUF_INIT;
	char *version = rk_deb_version(m);
	const char *v = version ? strchr(version, ':') : NULL;
	int prefix = !strncmp(m->name, "lib", 3) && strlen(m->name) > 3 ? 4 : 1;
	int rc;

	if (!version)
		return NULL;
	rc = rk_buf_addf(&b, "pool/main/%.*s/%s/%s_%s_%s.deb", prefix, m->name, m->name, m->name,
			 v ? v + 1 : version, m->arch);
	free(version);
	return rc ? NULL : rk_buf_detach(&b, NULL);
}

int rk_apt_packages(const struct rk_apt_entry *e, size_t n, char **out, size_t *len)
{
	struct rk_buf b = RK_BUF_INIT, extra = RK_BUF_INIT;
	int rc = 0;

	for (size_t i = 0; !rc && i < n; i++) {
		char *stanza;

		rk_buf_release(&extra);
		if (strchr(e[i].filename, '\n')) {
			rc = -EINVAL;
			break;
		}
		if ((rc = rk_buf_addf(
			     &extra, "Filename: %s\nSize: %llu\nMD5sum: %s\nSHA1: %s\nSHA256: %s\n",
			     e[i].filename, (unsigned long long)e[i].size, e[i].md5, e[i].sha1,
			     e[i].sha256)))
			break;
		if (!(stanza = rk_deb_stanza(e[i].meta, extra.buf))) {
			rc = -errno;
			break;
		}
		rc = rk_buf_addf(&b, "%s\n", stanza);
		free(stanza);
	}
	rk_buf_release(&extra);
	if (!rc && (*out = rk_buf_detach(&b, len)))
		return 0;
	rk_buf_release(&b);
	return rc ? rc : -ENOMEM;
}

/* Lowercase hex of p[0..len) under md into hex (2 * digest size + 1 bytes). */
static int digest_hex(const EVP_MD *md, const void *p, size_t len, char *hex)
{
	static const char digits[] = "0123456789abcdef";
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned int dn = 0;

	if (!EVP_Digest(p, len, d, &dn, md, NULL))
		return -ENOMEM;
	for (unsigned int i = 0; i < dn; i++) {
		hex[2 * i] = digits[d[i] >> 4];
		hex[2 * i + 1] = digits[d[i] & 15];
	}
	hex[2 * dn] = '\0';
	return 0;
}

/* RFC 2822 in UTC, as Debian's archive writes it: "Sat, 01 Jan 2022 00:00:00 UTC". Names
 * from tables, not strftime: the locale must not change the bytes. */
static int add_date(struct rk_buf *b, int64_t t)
{
	static const char days[7][4] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
	static const char months[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
					   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
	time_t tt = (time_t)t;
	struct tm tm;

	if ((int64_t)tt != t || !gmtime_r(&tt, &tm) || tm.tm_year + 1900 > 9999 ||
	    tm.tm_year + 1900 < 1970)
		return -EINVAL;
	return rk_buf_addf(b, "Date: %s, %02d %s %04d %02d:%02d:%02d UTC\n", days[tm.tm_wday],
			   tm.tm_mday, months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
			   tm.tm_sec);
}

static int release_field(struct rk_buf *b, const char *name, const char *value)
{
	if (!value || !*value)
		return 0;
	if (strchr(value, '\n'))
		return -EINVAL;
	return rk_buf_addf(b, "%s: %s\n", name, value);
}

int rk_apt_release(const struct rk_apt_release_info *r, const struct rk_apt_file *files, size_t n,
		   char **out, size_t *len)
{
	static const struct {
		const char *field;
		const char *md;
	} sums[] = {{"MD5Sum", "MD5"}, {"SHA1", "SHA1"}, {"SHA256", "SHA256"}};
	struct rk_buf b = RK_BUF_INIT;
	int rc;

	if ((rc = release_field(&b, "Origin", r->origin)) ||
	    (rc = release_field(&b, "Label", r->label)) ||
	    (rc = rk_buf_adds(&b, "Suite: stable\nCodename: stable\n")) ||
	    (rc = rk_buf_adds(&b, "Architectures: amd64\nComponents: main\n")) ||
	    (rc = release_field(&b, "Description", r->description)) ||
	    (rc = add_date(&b, r->date))) /* upload_package_repo.py's order */
		goto out;
	for (size_t s = 0; !rc && s < sizeof(sums) / sizeof(*sums); s++) {
		const EVP_MD *md = EVP_get_digestbyname(sums[s].md);

		if (!md) {
			rc = -ENOSYS;
			break;
		}
		rc = rk_buf_addf(&b, "%s:\n", sums[s].field);
		for (size_t i = 0; !rc && i < n; i++) {
			char hex[2 * EVP_MAX_MD_SIZE + 1];

			if (strchr(files[i].path, '\n')) {
				rc = -EINVAL;
				break;
			}
			if (!(rc = digest_hex(md, files[i].data, files[i].len, hex)))
				rc = rk_buf_addf(&b, " %s %16llu %s\n", hex,
						 (unsigned long long)files[i].len, files[i].path);
		}
	}
out:
	if (!rc && (*out = rk_buf_detach(&b, len)))
		return 0;
	rk_buf_release(&b);
	return rc ? rc : -ENOMEM;
}

int rk_apt_rebase(const char *text, size_t len, const char *prefix, struct rk_buf *out)
{
	static const char key[] = "Filename: ";
	const size_t kl = sizeof(key) - 1;
	int rc = 0;

	for (size_t i = 0; !rc && i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - text) : len, base;

		if (end - i > kl && !memcmp(text + i, key, kl)) {
			for (base = end; base > i + kl && text[base - 1] != '/'; base--)
				;
			rc = rk_buf_addf(out, "%s%s/", key, prefix);
			if (!rc)
				rc = rk_buf_add(out, text + base, end - base);
		} else {
			rc = rk_buf_add(out, text + i, end - i);
		}
		if (!rc)
			rc = rk_buf_adds(out, "\n");
		i = end + 1;
	}
	/* a stanza ends with a blank line, also the last one */
	if (!rc && out->len && (out->len < 2 || memcmp(out->buf + out->len - 2, "\n\n", 2)))
		rc = rk_buf_adds(out, "\n");
	return rc;
}
