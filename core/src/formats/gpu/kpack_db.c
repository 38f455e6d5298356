/* kpack_db.c: rocm-kpack's database handlers (see rk/kpack_db.h; kpack-format.md 4.2).
 *
 * The rules are those of rocm-systems shared/kpack/python/rocm_kpack/database_handlers.py
 * at 0d72d1c (the copy TheRock builds with; its registry AVAILABLE_HANDLERS, in its order:
 * rocblas, hipblaslt, hipsparselt, aotriton, miopen, composablekernel, hipkernelprovider,
 * hotswap_cache), with the key collapsed as artifact_splitter.py's base_arch() does
 * ("-xnack"/"-sramecc" become ":xnack"/":sramecc", then everything from the first ':'
 * goes). Only the handlers of the caller's set run, in its order (upstream instantiates
 * the --split-databases names in the order given; the first match wins). Each regex is
 * written out by hand below; the comment above each function quotes the pattern it
 * follows.
 *
 * Where we differ from upstream, or could not confirm:
 *  - MIOpen's handler also requires path.is_file(); the caller only classifies files.
 *  - Python's \w is Unicode; here it is [A-Za-z0-9_] plus every byte >= 0x80.
 *  - pathlib drops "." components and repeated '/'; the caller's member paths have none
 *    (ingest normalizes them), and comp_next() skips repeated '/'.
 *  - The aotriton keys are rocm-bootstrap bundle keys (gfx11, gfx110x, gfx12_0), not
 *    processors; they are returned as upstream returns them. */
#include <string.h>

#include "rk/kpack_db.h"

struct comp {
	const char *s;
	size_t n;
};

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int is_lower(int c)
{
	return c >= 'a' && c <= 'z';
}

static int is_word(int c)
{
	return is_digit(c) || is_lower(c) || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (unsigned char)c >= 0x80;
}

static int starts(const char *s, size_t n, const char *pre)
{
	size_t k = strlen(pre);

	return n >= k && !memcmp(s, pre, k);
}

static int ends(const char *s, size_t n, const char *suf)
{
	size_t k = strlen(suf);

	return n >= k && !memcmp(s + n - k, suf, k);
}

static int comp_eq(const struct comp *c, const char *s)
{
	return c->n == strlen(s) && !memcmp(c->s, s, c->n);
}

/* The next non-empty '/'-separated component at *p; 0 at the end. */
static int comp_next(const char **p, struct comp *c)
{
	const char *s = *p;

	while (*s == '/')
		s++;
	if (!*s)
		return 0;
	c->s = s;
	while (*s && *s != '/')
		s++;
	c->n = (size_t)(s - c->s);
	*p = s;
	return 1;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The length of "gfx\d+[a-z]*(?:-strict)?(?:-xnack[+-])?" at s[0..n), or 0. Nothing
 * this greedy match leaves out could be followed by '/', '.' or the end, so it is also
 * the only candidate where the pattern is anchored. */
static size_t gfx_len(const char *s, size_t n)
{
	size_t i = 3;

	if (!starts(s, n, "gfx") || n < 4 || !is_digit(s[3]))
		return 0;
	while (i < n && is_digit(s[i]))
		i++;
	while (i < n && is_lower(s[i]))
		i++;
	if (starts(s + i, n - i, "-strict"))
		i += 7;
	if (starts(s + i, n - i, "-xnack") && n - i > 6 && (s[i + 6] == '+' || s[i + 6] == '-'))
		i += 7;
	return i;
}

/* re.search of the gfx pattern in s[0..n): the leftmost match. */
static int gfx_search(const char *s, size_t n, struct comp *m)
{
	for (size_t i = 0; i + 4 <= n; i++) {
		size_t k = gfx_len(s + i, n - i);

		if (k) {
			m->s = s + i;
			m->n = k;
			return 1;
		}
	}
	return 0;
}

/* Copy key to arch as base_arch() leaves it; 0 when it does not fit or is empty. */
static int put_arch(const char *key, size_t n, char arch[RK_TARGET_MAX])
{
	size_t k = n;

	for (size_t i = 0; i < n; i++) {
		if (key[i] == ':' || starts(key + i, n - i, "-xnack") ||
		    starts(key + i, n - i, "-sramecc")) {
			k = i;
			break;
		}
	}
	if (!k || k >= RK_TARGET_MAX)
		return 0;
	memcpy(arch, key, k);
	arch[k] = '\0';
	return 1;
}

/* _TensileHandler: "<lib>/library" in the path; a .co/.hsaco/.dat file named with an
 * arch (flat layout), or anything under "/library/<arch>/" (per-arch layout). */
static int tensile(const char *path, const char *libdir, struct comp *key)
{
	const char *name = base_name(path), *dot = strrchr(name, '.'), *p;
	size_t nl = strlen(name);

	if (!strstr(path, libdir))
		return 0;
	/* pathlib's suffix: from the last '.', unless it is the first or last character. */
	if (dot && dot > name && dot < name + nl - 1 &&
	    (!strcmp(dot, ".co") || !strcmp(dot, ".hsaco") || !strcmp(dot, ".dat")) &&
	    gfx_search(name, nl, key))
		return 1;
	for (p = strstr(path, "/library/"); p; p = strstr(p + 1, "/library/")) {
		const char *a = p + 9, *slash = strchr(a, '/');

		if (slash && gfx_len(a, (size_t)(slash - a)) == (size_t)(slash - a)) {
			key->s = a;
			key->n = (size_t)(slash - a);
			return 1;
		}
	}
	return 0;
}

/* AotritonHandler: the component after the first "aotriton.images" (not the file name
 * itself) if it starts "amd-gfx", without "amd-", with gfx11xx -> gfx11 and gfx120x ->
 * gfx12_0. */
static int aotriton(const char *path, struct comp *key)
{
	const char *p = path;
	struct comp c, next;
	int have;

	have = comp_next(&p, &c);
	while (have && comp_next(&p, &next)) {
		if (comp_eq(&c, "aotriton.images")) {
			if (!starts(next.s, next.n, "amd-gfx"))
				return 0;
			key->s = next.s + 4;
			key->n = next.n - 4;
			if (comp_eq(key, "gfx11xx"))
				key->n = 5;
			else if (comp_eq(key, "gfx120x"))
				key->s = "gfx12_0";
			return 1;
		}
		c = next;
	}
	return 0;
}

/* The MIOpen arch list, "gfx(?:90a|900|906|908|940|941|942|950|1010|1030|1100|1101|1102|
 * 1150|1151|1200|1201|1250(?:-strict)?)": file names glue the CU count to the arch
 * (gfx90878 is gfx908 with 78 CUs). */
static int miopen_search(const char *s, size_t n, struct comp *m)
{
	static const char *const ids[] = {"90a",  "900",  "906",  "908",  "940",  "941",
					  "942",  "950",  "1010", "1030", "1100", "1101",
					  "1102", "1150", "1151", "1200", "1201", "1250"};

	for (size_t i = 0; i + 3 <= n; i++) {
		if (memcmp(s + i, "gfx", 3))
			continue;
		for (size_t j = 0; j < sizeof(ids) / sizeof(ids[0]); j++) {
			if (!starts(s + i + 3, n - i - 3, ids[j]))
				continue;
			m->s = s + i;
			m->n = 3 + strlen(ids[j]);
			if (!strcmp(ids[j], "1250") && starts(s + i + 7, n - i - 7, "-strict"))
				m->n += 7;
			return 1;
		}
	}
	return 0;
}

/* MIOpenHandler: a file named "^(?:lib)?MIOpenCK\w+_(<gfx pattern>)\.(?:so|dll)"
 * anywhere; or, in "miopen/db", a .kdb/.model/.db.txt/.fdb.txt file whose name holds
 * an arch of the list. */
static int miopen(const char *path, struct comp *key)
{
	const char *name = base_name(path);
	size_t nl = strlen(name), i = 0, k, u = 0;

	if (starts(name, nl, "lib"))
		i = 3;
	if (starts(name + i, nl - i, "MIOpenCK")) {
		i += 8;
		/* \w+_ then the arch: the arch has no '_', so the '_' is the last one of the
		 * word run, and \w+ needs a character before it. */
		for (k = i; k < nl && is_word(name[k]); k++)
			if (name[k] == '_')
				u = k;
		if (u > i) {
			size_t a = gfx_len(name + u + 1, nl - u - 1);

			if (a >= k - u - 1 && a &&
			    (starts(name + u + 1 + a, nl - u - 1 - a, ".so") ||
			     starts(name + u + 1 + a, nl - u - 1 - a, ".dll"))) {
				key->s = name + u + 1;
				key->n = a;
				return 1;
			}
		}
	}
	if (!strstr(path, "miopen/db"))
		return 0;
	if (!ends(name, nl, ".kdb") && !ends(name, nl, ".model") && !ends(name, nl, ".db.txt") &&
	    !ends(name, nl, ".fdb.txt"))
		return 0;
	return miopen_search(name, nl, key);
}

/* ComposableKernelHandler: "^(?:lib)?device_conv_operations_(gfx\d+[a-z]*(?:_strict)?)
 * (?:_(?:xnack|sramecc)[p_])*\.(?:a|lib)$", with "_strict" given back as "-strict". */
static int composablekernel(const char *path, struct comp *key, char *buf, size_t bufsz)
{
	const char *name = base_name(path), *s;
	size_t nl = strlen(name), i = 0, a;

	if (starts(name, nl, "lib"))
		i = 3;
	if (!starts(name + i, nl - i, "device_conv_operations_"))
		return 0;
	i += 23;
	s = name + i;
	if (!starts(s, nl - i, "gfx") || nl - i < 4 || !is_digit(s[3]))
		return 0;
	a = 3;
	while (i + a < nl && is_digit(s[a]))
		a++;
	while (i + a < nl && is_lower(s[a]))
		a++;
	key->s = s;
	key->n = a;
	if (starts(s + a, nl - i - a, "_strict")) {
		if (a + 7 >= bufsz)
			return 0;
		memcpy(buf, s, a);
		memcpy(buf + a, "-strict", 7);
		key->s = buf;
		key->n = a + 7;
		a += 7;
	}
	for (;;) {
		size_t f = starts(s + a, nl - i - a, "_xnack")	   ? 6
			   : starts(s + a, nl - i - a, "_sramecc") ? 8
								   : 0;

		if (!f || i + a + f >= nl || (s[a + f] != 'p' && s[a + f] != '_'))
			break;
		a += f + 1;
	}
	return !strcmp(s + a, ".a") || !strcmp(s + a, ".lib");
}

/* HipKernelProviderArchContentHandler: the first "arch_content" or "test_arch_content"
 * component right after an "engines" one (not the first component); then the first
 * directory below it that is a whole gfx arch. */
static int hipkernelprovider(const char *path, struct comp *key)
{
	const char *p = path;
	struct comp prev, c;
	int found = 0;

	if (!comp_next(&p, &prev))
		return 0;
	while (!found && comp_next(&p, &c)) {
		found = comp_eq(&prev, "engines") &&
			(comp_eq(&c, "arch_content") || comp_eq(&c, "test_arch_content"));
		prev = c;
	}
	if (!found || !comp_next(&p, &c))
		return 0;
	for (;;) {
		struct comp next;

		if (!comp_next(&p, &next))
			return 0; /* c is the file name */
		if (gfx_len(c.s, c.n) == c.n) {
			*key = c;
			return 1;
		}
		c = next;
	}
}

/* HotswapCacheHandler: exactly "share/rocjitsu/translations/<domain>/v1/<64 hex>.(man|obj)"
 * below the prefix root, with only the domain gfx1250-b0-a0 known (bundle gfx1250). */
static int hotswap_cache(const char *path, struct comp *key)
{
	static const char *const want[] = {"share", "rocjitsu", "translations", NULL, "v1"};
	struct comp c[6], extra;
	const char *p = path;
	int i;

	for (i = 0; i < 6; i++)
		if (!comp_next(&p, &c[i]))
			return 0;
	if (comp_next(&p, &extra))
		return 0;
	for (i = 0; i < 5; i++)
		if (want[i] && !comp_eq(&c[i], want[i]))
			return 0;
	if (c[5].n != 68 || (!ends(c[5].s, c[5].n, ".man") && !ends(c[5].s, c[5].n, ".obj")))
		return 0;
	for (i = 0; i < 64; i++)
		if (!is_digit(c[5].s[i]) && !(c[5].s[i] >= 'a' && c[5].s[i] <= 'f'))
			return 0;
	if (!comp_eq(&c[3], "gfx1250-b0-a0"))
		return 0;
	key->s = "gfx1250";
	key->n = 7;
	return 1;
}

static const char *const names[RK_KPACK_DB_NHANDLERS] = {
	[RK_KPACK_DB_ROCBLAS] = "rocblas",
	[RK_KPACK_DB_HIPBLASLT] = "hipblaslt",
	[RK_KPACK_DB_HIPSPARSELT] = "hipsparselt",
	[RK_KPACK_DB_AOTRITON] = "aotriton",
	[RK_KPACK_DB_MIOPEN] = "miopen",
	[RK_KPACK_DB_COMPOSABLEKERNEL] = "composablekernel",
	[RK_KPACK_DB_HIPKERNELPROVIDER] = "hipkernelprovider",
	[RK_KPACK_DB_HOTSWAP_CACHE] = "hotswap_cache",
};

const struct rk_kpack_db_set rk_kpack_db_all = {{0, 1, 2, 3, 4, 5, 6, 7}, RK_KPACK_DB_NHANDLERS};

int rk_kpack_db_handler(const char *name)
{
	for (int h = 0; h < RK_KPACK_DB_NHANDLERS; h++)
		if (!strcmp(name, names[h]))
			return h;
	return -1;
}

const char *rk_kpack_db_name(int h)
{
	return h >= 0 && h < RK_KPACK_DB_NHANDLERS ? names[h] : NULL;
}

void rk_kpack_db_set_add(struct rk_kpack_db_set *set, int h)
{
	if (h < 0 || h >= RK_KPACK_DB_NHANDLERS)
		return;
	for (unsigned i = 0; i < set->n; i++)
		if (set->h[i] == h)
			return;
	set->h[set->n++] = (unsigned char)h;
}

static int detect(int h, const char *path, struct comp *key, char *buf, size_t bufsz)
{
	switch (h) {
	case RK_KPACK_DB_ROCBLAS:
		return tensile(path, "rocblas/library", key);
	case RK_KPACK_DB_HIPBLASLT:
		return tensile(path, "hipblaslt/library", key);
	case RK_KPACK_DB_HIPSPARSELT:
		return tensile(path, "hipsparselt/library", key);
	case RK_KPACK_DB_AOTRITON:
		return aotriton(path, key);
	case RK_KPACK_DB_MIOPEN:
		return miopen(path, key);
	case RK_KPACK_DB_COMPOSABLEKERNEL:
		return composablekernel(path, key, buf, bufsz);
	case RK_KPACK_DB_HIPKERNELPROVIDER:
		return hipkernelprovider(path, key);
	case RK_KPACK_DB_HOTSWAP_CACHE:
		return hotswap_cache(path, key);
	}
	return 0;
}

const char *rk_kpack_db_classify(const char *path, const struct rk_kpack_db_set *set,
				 char arch[RK_TARGET_MAX])
{
	char buf[RK_TARGET_MAX];
	struct comp key;

	/* upstream returns from the first handler that detects the file, even when the
	 * key then collapses to nothing usable (never for these patterns) */
	for (unsigned i = 0; set && i < set->n && i < RK_KPACK_DB_NHANDLERS; i++)
		if (detect(set->h[i], path, &key, buf, sizeof(buf)))
			return put_arch(key.s, key.n, arch) ? names[set->h[i]] : NULL;
	return NULL;
}
