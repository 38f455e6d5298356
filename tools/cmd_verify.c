/* cmd_verify.c: rockpack verify DIR: check split artifacts on disk.
 *
 * DIR holds artifact directories (<name>_<component>_<generic|arch>, each with an
 * artifact_manifest.txt), as rockpack split or rocm-kpack's split_artifacts write them.
 * The checks of rocm-kpack's verify_artifacts, done for <prefix>/.kpack archives:
 *  - every artifact has a manifest (one without is still checked as a whole, so that a
 *    fat binary in it is found);
 *  - in generic artifacts, every host binary with a .hip_fatbin is split: a
 *    .rocm_kpack_ref marker that decodes, HIPK wrappers, NOBITS .hip_fatbin unless it
 *    holds no whole page (a small binary: verify_artifacts flags those, wrongly), a
 *    structurally valid ELF;
 *  - in the artifact of one gfx target, every gfx token in a file name names that
 *    target (an artifact of an architecture group, from recombine, is not checked);
 *  - every .kpack archive parses, and each of its code objects decodes and is an AMDGPU
 *    code object for the arch it is filed under;
 * and the check the loader makes: each split binary's search path, resolved inside the
 * flattened install tree (all prefixes share one root), finds an archive for every arch
 * DIR has, holding "<kernel_name>#<i>" for every wrapper i.
 * Problems are printed one per line on stdout; then, if there were any, one line
 * "rockpack: verify DIR: <counts>: N problems" on stderr (also with -q) and exit 1. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk/buf.h"
#include "rk/gpu.h"
#include "rk/kpack.h"
#include "rk/kpack_elf.h"
#include "rk/target.h"
#include "cli_util.h"
#include "rockpack.h"

struct binary {
	char *file; /* on disk, for messages */
	char *rel; /* below the prefix root */
	char group[256];
	struct rk_kpack_marker m;
	size_t nwrappers;
};

struct archive {
	char *file;
	char *rel; /* below the prefix root: "<...>/.kpack/<group>_<arch>.kpack" */
	char **arches;
	size_t narches;
	char **keys; /* "<binary key>\t<arch>" present */
	size_t nkeys;
};

struct verify {
	unsigned problems, artifacts, binaries, archives, objects;
	struct binary *b;
	size_t nb;
	struct archive *k;
	size_t nk;
	unsigned arch_artifacts;
};

__attribute__((format(printf, 2, 3))) static void problem(struct verify *vf, const char *fmt, ...)
{
	va_list ap;

	vf->problems++;
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	putchar('\n');
}

static int read_file(const char *path, size_t max, char **out, size_t *len)
{
	struct rk_buf b = RK_BUF_INIT;
	char chunk[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		if (b.len + (size_t)n > max || rk_buf_add(&b, chunk, (size_t)n)) {
			close(fd);
			rk_buf_release(&b);
			return -EFBIG;
		}
	close(fd);
	if (n < 0) {
		rk_buf_release(&b);
		return -EIO;
	}
	*out = rk_buf_detach(&b, len);
	return *out ? 0 : -ENOMEM;
}

/* Every "gfx<digits...>" token of name has base arch base. */
static int tokens_match(const char *name, const char *base)
{
	for (const char *p = strstr(name, "gfx"); p; p = strstr(p + 3, "gfx")) {
		size_t n = 3;

		while (p[n] >= '0' && p[n] <= '9')
			n++;
		while (p[n] >= 'a' && p[n] <= 'z' && p[n] != 'x')
			n++; /* gfx90a, gfx90c; not the x of "xnack" */
		if (n == 3)
			continue;
		if (strlen(base) != n || strncmp(p, base, n))
			return 0;
	}
	return 1;
}

static void check_archive(struct verify *vf, const char *file, const char *rel)
{
	struct rk_err err = RK_ERR_INIT;
	struct archive a = {0};
	struct rk_kpack *k;
	struct rp_map m;
	int rc;

	if ((rc = rp_map(file, &m))) {
		problem(vf, "%s: cannot read: %s", file, strerror(-rc));
		return;
	}
	if ((rc = rk_kpack_open(m.p, m.n, &k, &err))) {
		problem(vf, "%s: %s", file, rk_err_str(&err, rc));
		rp_unmap(&m);
		return;
	}
	vf->archives++;
	a.file = strdup(file);
	a.rel = strdup(rel);
	a.narches = rk_kpack_arch_count(k);
	a.arches = calloc(a.narches + 1, sizeof(*a.arches));
	for (size_t i = 0; a.arches && i < a.narches; i++)
		a.arches[i] = strdup(rk_kpack_arch(k, i));
	for (size_t i = 0; i < rk_kpack_binary_count(k); i++)
		for (size_t j = 0; j < a.narches; j++) {
			const char *key = rk_kpack_binary(k, i), *arch = rk_kpack_arch(k, j);
			char got[RK_TARGET_MAX], want[RK_TARGET_MAX];
			void *data;
			size_t size;
			char **nk;

			rc = rk_kpack_get(k, key, arch, &data, &size, &err);
			if (rc == -ENOENT)
				continue;
			if (!rc)
				rc = rk_codeobj_target(data, size, got, &err);
			free(data);
			if (rc) {
				problem(vf, "%s: '%s' for '%s': %s", file, key, arch,
					rk_err_str(&err, rc));
				continue;
			}
			if (rk_target_canon(arch, want) || strcmp(got, want))
				problem(vf, "%s: '%s' is filed under '%s' but is code for '%s'",
					file, key, arch, got);
			vf->objects++;
			if ((nk = realloc(a.keys, (a.nkeys + 1) * sizeof(*nk)))) {
				a.keys = nk;
				if (asprintf(&a.keys[a.nkeys], "%s\t%s", key, arch) >= 0)
					a.nkeys++;
			}
		}
	rk_kpack_close(k);
	rp_unmap(&m);
	struct archive *nv = realloc(vf->k, (vf->nk + 1) * sizeof(*nv));

	if (nv) {
		vf->k = nv;
		vf->k[vf->nk++] = a;
	}
}

static void check_binary(struct verify *vf, const char *file, const char *rel, const char *group,
			 int generic)
{
	struct rk_err err = RK_ERR_INIT;
	struct rk_fat_elf fe;
	struct binary b = {0};
	struct rp_map m;
	unsigned char *p;
	int rc;

	if (rp_map(file, &m))
		return;
	p = m.p;
	if (m.n < 64 || memcmp(p, "\177ELF", 4) ||
	    (rc = rk_kpack_elf_inspect(p, m.n, &fe, &err)) == 0)
		goto out;
	if (rc < 0) {
		problem(vf, "%s: %s", file, rk_err_str(&err, rc));
		goto out;
	}
	if (!generic)
		goto out; /* device-side libraries (e.g. MIOpen CK) are per arch */
	/* split means a marker; .hip_fatbin stays PROGBITS when it holds no whole page to
	 * zero (small binaries, kpack-format.md 3.4), which rk_kpack_elf_verify accepts only
	 * then, with every wrapper HIPK */
	if (!fe.has_marker) {
		problem(vf, "%s: fat binary in a generic artifact (.hip_fatbin %s, no marker)",
			file, fe.fatbin_nobits ? "NOBITS" : "PROGBITS");
		goto out;
	}
	if ((rc = rk_kpack_elf_verify(p, m.n, &err))) {
		problem(vf, "%s: %s", file, rk_err_str(&err, rc));
		goto out;
	}
	if ((rc = rk_kpack_marker_decode(p + fe.marker_off, fe.marker_size, &b.m, &err))) {
		problem(vf, "%s: marker: %s", file, rk_err_str(&err, rc));
		goto out;
	}
	vf->binaries++;
	b.file = strdup(file);
	b.rel = strdup(rel);
	snprintf(b.group, sizeof(b.group), "%s", group);
	b.nwrappers = fe.nwrappers;
	struct binary *nv = realloc(vf->b, (vf->nb + 1) * sizeof(*nv));

	if (nv && b.file && b.rel) {
		vf->b = nv;
		vf->b[vf->nb++] = b;
	} else {
		free(b.file);
		free(b.rel);
		rk_kpack_marker_release(&b.m);
	}
out:
	rp_unmap(&m);
}

struct walk {
	struct verify *vf;
	const char *group, *x; /* x: "generic" or the arch */
	char base[RK_TARGET_MAX];
	int single; /* x is one gfx target (not a group of them) */
};

static void walk(struct walk *w, struct rk_buf *path, size_t root)
{
	DIR *d = opendir(path->buf);
	struct dirent *de;
	size_t len = path->len;

	if (!d) {
		problem(w->vf, "%s: %s", path->buf, strerror(errno));
		return;
	}
	while ((de = readdir(d))) {
		struct stat st;
		const char *rel;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		path->len = len;
		path->buf[len] = '\0';
		if (rk_buf_addf(path, "/%s", de->d_name) || lstat(path->buf, &st))
			continue;
		rel = path->buf + root;
		if (S_ISDIR(st.st_mode)) {
			walk(w, path, root);
			continue;
		}
		if (!S_ISREG(st.st_mode))
			continue;
		if (w->single && !tokens_match(de->d_name, w->base))
			problem(w->vf, "%s: names another arch than '%s'", path->buf, w->base);
		if (strstr(rel, ".kpack/") && strlen(de->d_name) > 6 &&
		    !strcmp(de->d_name + strlen(de->d_name) - 6, ".kpack"))
			check_archive(w->vf, path->buf, rel);
		else
			check_binary(w->vf, path->buf, rel, w->group, !strcmp(w->x, "generic"));
	}
	closedir(d);
	path->len = len;
	path->buf[len] = '\0';
}

static void check_artifact(struct verify *vf, const char *dir, const char *name)
{
	struct rk_buf path = RK_BUF_INIT;
	char *manifest = NULL, *save = NULL, group[256];
	const char *u = strchr(name, '_');
	struct walk w = {vf, group, NULL, "", 0};
	size_t len;

	if (!u || !(u = strchr(u + 1, '_'))) {
		problem(vf, "%s: not an artifact name (<name>_<component>_<target>)", name);
		return;
	}
	snprintf(group, sizeof(group), "%.*s", (int)(u - name), name);
	w.x = u + 1;
	if (strcmp(w.x, "generic")) {
		vf->arch_artifacts++;
		rk_gpu_base_arch(w.x, w.base, sizeof(w.base));
		w.single = rk_gpu_target_find(w.base) != NULL;
	}
	if (rk_buf_addf(&path, "%s/%s/artifact_manifest.txt", dir, name) ||
	    read_file(path.buf, 1 << 20, &manifest, &len)) {
		size_t nb = vf->nb;

		problem(vf, "%s: no artifact_manifest.txt", name);
		vf->artifacts++;
		/* its files are still checked (verify_artifacts globs the whole directory), a
		 * fat binary found; without prefixes no search path can be resolved, so its
		 * split binaries are left out of the loader's check */
		path.len = 0;
		if (!rk_buf_addf(&path, "%s/%s", dir, name))
			walk(&w, &path, path.len + 1);
		while (vf->nb > nb) {
			struct binary *b = &vf->b[--vf->nb];

			free(b->file);
			free(b->rel);
			rk_kpack_marker_release(&b->m);
		}
		rk_buf_release(&path);
		return;
	}
	vf->artifacts++;
	for (char *pfx = strtok_r(manifest, "\n", &save); pfx; pfx = strtok_r(NULL, "\n", &save)) {
		struct stat st;

		if (!*pfx || strstr(pfx, "..") || *pfx == '/')
			continue;
		path.len = 0;
		if (rk_buf_addf(&path, "%s/%s/%s", dir, name, pfx) || stat(path.buf, &st) ||
		    !S_ISDIR(st.st_mode))
			continue; /* declared prefixes may be empty */
		walk(&w, &path, path.len + 1);
	}
	free(manifest);
	rk_buf_release(&path);
}

/* Resolve the relative path p against directory dir (both below the prefix root);
 * NULL when it leaves the root. */
static char *resolve_rel(const char *dir, const char *p)
{
	struct rk_buf b = RK_BUF_INIT;
	char *all, *save = NULL;

	if (*p == '/' || asprintf(&all, "%s/%s", dir, p) < 0)
		return NULL;
	for (char *c = strtok_r(all, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (!strcmp(c, "."))
			continue;
		if (!strcmp(c, "..")) {
			char *slash = strrchr(b.buf, '/');

			if (!b.len) {
				free(all);
				rk_buf_release(&b);
				return NULL;
			}
			b.len = slash ? (size_t)(slash - b.buf) : 0;
			b.buf[b.len] = '\0';
			continue;
		}
		if (rk_buf_addf(&b, "%s%s", b.len ? "/" : "", c))
			break;
	}
	free(all);
	return rk_buf_detach(&b, NULL);
}

static int has_key(const struct archive *a, const char *key, const char *arch)
{
	size_t kn = strlen(key);

	for (size_t i = 0; i < a->nkeys; i++)
		if (!strncmp(a->keys[i], key, kn) && a->keys[i][kn] == '\t' &&
		    !strcmp(a->keys[i] + kn + 1, arch))
			return 1;
	return 0;
}

/* The loader's view: each binary finds every arch DIR has archives for. */
static void check_links(struct verify *vf)
{
	for (size_t i = 0; i < vf->nb; i++) {
		const struct binary *b = &vf->b[i];
		char *dir = strdup(b->rel), *slash = dir ? strrchr(dir, '/') : NULL;
		unsigned found = 0;

		if (!dir)
			return;
		if (slash)
			*slash = '\0';
		else
			*dir = '\0';
		for (size_t j = 0; j < vf->nk; j++)
			for (size_t a = 0; a < vf->k[j].narches; a++)
				for (size_t s = 0; s < b->m.npaths; s++) {
					const char *pat = b->m.paths[s],
						   *at = strstr(pat, "@GFXARCH@");
					char *want, *res;

					if (!at || asprintf(&want, "%.*s%s%s", (int)(at - pat), pat,
							    vf->k[j].arches[a], at + 9) < 0)
						continue;
					res = resolve_rel(dir, want);
					if (res && !strcmp(res, vf->k[j].rel)) {
						found++;
						for (size_t w = 0; w < b->nwrappers; w++) {
							char key[4096];

							snprintf(key, sizeof(key), "%s#%zu",
								 b->m.kernel_name, w);
							if (!has_key(&vf->k[j], key,
								     vf->k[j].arches[a]))
								problem(vf,
									"%s: '%s' has no '%s' for "
									"'%s'",
									b->file, vf->k[j].file, key,
									vf->k[j].arches[a]);
						}
					}
					free(res);
					free(want);
				}
		if (!found && vf->arch_artifacts)
			problem(vf, "%s: its search paths find no .kpack archive in the directory",
				b->file);
		free(dir);
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Whether entry de of directory dir is a directory (d_type, else stat: some file systems
 * leave d_type DT_UNKNOWN). */
static int is_dir(const char *dir, const struct dirent *de)
{
	struct stat st;
	char *p;
	int r;

	if (de->d_type != DT_UNKNOWN)
		return de->d_type == DT_DIR;
	if (asprintf(&p, "%s/%s", dir, de->d_name) < 0)
		return 0;
	r = !stat(p, &st) && S_ISDIR(st.st_mode);
	free(p);
	return r;
}

static int cmd_verify(const struct rp_opts *o, int argc, char **argv)
{
	struct verify vf = {0};
	char **names = NULL;
	size_t n = 0;
	struct dirent *de;
	DIR *d;

	for (int i = 0; i < argc; i++)
		if (rp_is_option(argv[i]))
			return rp_usage(o, "verify: unknown option '%s'", argv[i]);
	if (argc != 1)
		return rp_usage(o, "usage: rockpack verify DIR");
	if (!(d = opendir(argv[0])))
		return rp_fail("%s: %s", argv[0], strerror(errno));
	while ((de = readdir(d))) {
		char **nv;

		if (de->d_name[0] == '.' || !is_dir(argv[0], de))
			continue;
		if (!(nv = realloc(names, (n + 1) * sizeof(*nv))) ||
		    !(nv[n] = strdup(de->d_name))) {
			closedir(d);
			return rp_fail("out of memory");
		}
		names = nv;
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++)
		check_artifact(&vf, argv[0], names[i]);
	check_links(&vf);
	/* problems: exit 1 with the one "rockpack: <what>: <why>" line of rockpack(1) */
	if (n && vf.problems)
		rp_fail("verify %s: %u artifacts, %u split binaries, %u .kpack archives, %u code "
			"objects: %u problems",
			argv[0], vf.artifacts, vf.binaries, vf.archives, vf.objects, vf.problems);
	else if (!o->quiet && n)
		fprintf(stderr,
			"verify: %u artifacts, %u split binaries, %u .kpack archives, %u code "
			"objects: 0 problems\n",
			vf.artifacts, vf.binaries, vf.archives, vf.objects);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	for (size_t i = 0; i < vf.nb; i++) {
		free(vf.b[i].file);
		free(vf.b[i].rel);
		rk_kpack_marker_release(&vf.b[i].m);
	}
	for (size_t i = 0; i < vf.nk; i++) {
		free(vf.k[i].file);
		free(vf.k[i].rel);
		for (size_t j = 0; j < vf.k[i].narches; j++)
			free(vf.k[i].arches[j]);
		free(vf.k[i].arches);
		for (size_t j = 0; j < vf.k[i].nkeys; j++)
			free(vf.k[i].keys[j]);
		free(vf.k[i].keys);
	}
	free(vf.b);
	free(vf.k);
	if (!n)
		return rp_fail("%s: no artifact directories", argv[0]);
	return vf.problems ? 1 : 0;
}

const struct rp_command rp_cmd_verify = {
	"verify",
	cmd_verify,
	"check split artifacts in a directory",
	"usage: rockpack verify DIR\n"
	"\n"
	"Check the split artifacts in DIR (one directory each): manifests, no fat binary\n"
	"left in generic artifacts, split binaries and .kpack archives well formed, code\n"
	"objects filed under the right arch, every split binary's search path finding its\n"
	"code objects. One line per problem; exit 1 if any.\n",
	NULL,
};
