/* kpack_lookup.c: an emulation of the kpack runtime's lookup over real files
 * (rk/kpack_lookup.h; kpack-format.md section 6): resolve a marker's search paths, expand
 * @GFXARCH@, open the archives found (formats/gpu/kpack.c reads their bytes) and pick the
 * code object the runtime would load. The only part of kpack that does file I/O, so it
 * lives above formats/. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rk/buf.h"
#include "rk/kpack.h"
#include "rk/kpack_lookup.h"
#include "rk/target.h"
#include "util/file_read.h"

#define GFXARCH "@GFXARCH@"

struct loaded {
	char *path; /* canonical */
	void *buf;
	struct rk_kpack *k;
};

struct lookup {
	char **paths; /* candidate archive paths, in order */
	size_t npaths, cap;
	struct loaded *a;
	size_t na;
};

static int add_path(struct lookup *l, const char *p, size_t n)
{
	char *s;

	if (l->npaths == l->cap) {
		size_t ncap = l->cap ? 2 * l->cap : 16;
		char **v = realloc(l->paths, ncap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->paths = v;
		l->cap = ncap;
	}
	if (!(s = strndup(p, n)))
		return -ENOMEM;
	l->paths[l->npaths++] = s;
	return 0;
}

/* Split a ':'-separated list, dropping empty items (split_path_list). */
static int add_env_list(struct lookup *l, const char *list)
{
	while (*list) {
		size_t n = strcspn(list, ":");
		int rc = n ? add_path(l, list, n) : 0;

		if (rc)
			return rc;
		list += n + (list[n] == ':');
	}
	return 0;
}

/* Append path, lexically normalized ("." dropped, ".." pops), to b (which holds an
 * absolute directory without trailing '/' or ""). */
static int append_normalized(struct rk_buf *b, const char *path)
{
	while (*path) {
		size_t n = strcspn(path, "/");

		if ((n == 1 && path[0] == '.') || n == 0) {
			/* skip */
		} else if (n == 2 && path[0] == '.' && path[1] == '.') {
			char *slash = strrchr(b->buf, '/');

			if (slash) {
				b->len = (size_t)(slash - b->buf);
				b->buf[b->len] = '\0';
			}
		} else if (rk_buf_add(b, "/", 1) || rk_buf_add(b, path, n)) {
			return -ENOMEM;
		}
		path += n + (path[n] == '/');
	}
	return 0;
}

/* std::filesystem::weakly_canonical: realpath of the longest existing prefix, then the
 * rest normalized lexically. Returns a malloc'd path or NULL. */
static char *weakly_canonical(const char *path)
{
	size_t n = strlen(path);
	char *head = strdup(path), *real = NULL, *r = NULL;
	struct rk_buf b = RK_BUF_INIT;

	if (!head)
		return NULL;
	while (n > 0) {
		head[n] = '\0';
		if ((real = realpath(head, NULL)) != NULL)
			break;
		while (n > 0 && head[n - 1] != '/') /* drop the last component */
			n--;
		while (n > 0 && head[n - 1] == '/')
			n--;
	}
	if (real && strcmp(real, "/") && rk_buf_adds(&b, real))
		goto out;
	if (!real && path[0] != '/' && rk_buf_adds(&b, "."))
		goto out;
	if (append_normalized(&b, path + n) || (!b.len && rk_buf_adds(&b, "/")))
		goto out;
	r = rk_buf_detach(&b, NULL);
out:
	free(head);
	free(real);
	rk_buf_release(&b);
	return r;
}

/* The embedded path p resolved against binary_path's directory (resolve_path). */
static char *resolve(const char *binary_path, const char *p)
{
	struct rk_buf b = RK_BUF_INIT;
	const char *slash = strrchr(binary_path, '/');
	char *r;

	if (p[0] == '/')
		return strdup(p);
	if (slash ? rk_buf_add(&b, binary_path, (size_t)(slash - binary_path + 1))
		  : rk_buf_adds(&b, "./")) {
		rk_buf_release(&b);
		return NULL;
	}
	if (rk_buf_adds(&b, p)) {
		rk_buf_release(&b);
		return NULL;
	}
	r = weakly_canonical(b.buf);
	rk_buf_release(&b);
	return r;
}

static const char *strip_triple(const char *a)
{
	static const char prefix[] = "amdgcn-amd-amdhsa--";

	return strncmp(a, prefix, sizeof(prefix) - 1) == 0 && a[sizeof(prefix) - 1]
		       ? a + sizeof(prefix) - 1
		       : a;
}

#define MAX_CANDIDATES 64

/* Expand the first @GFXARCH@ of p for every (arch, compatible target). */
static int expand(struct lookup *l, const char *p, const char *const *archs, size_t narchs)
{
	const char *at = strstr(p, GFXARCH);
	char cand[MAX_CANDIDATES][RK_TARGET_MAX];

	if (!at)
		return add_path(l, p, strlen(p));
	for (size_t i = 0; i < narchs; i++) {
		int nc;

		if (!archs[i] || (nc = rk_target_candidates(archs[i], cand, MAX_CANDIDATES)) < 0)
			continue;
		for (int c = 0; c < nc; c++) {
			struct rk_buf b = RK_BUF_INIT;
			int rc = rk_buf_add(&b, p, (size_t)(at - p)) || rk_buf_adds(&b, cand[c]) ||
				 rk_buf_adds(&b, at + strlen(GFXARCH));

			rc = rc ? -ENOMEM : add_path(l, b.buf, b.len);
			rk_buf_release(&b);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* Open every candidate that is a regular file and a valid archive, once per canonical
 * path (the runtime's archive cache). */
static int open_archives(struct lookup *l)
{
	if (!(l->a = calloc(l->npaths + 1, sizeof(*l->a))))
		return -ENOMEM;
	for (size_t i = 0; i < l->npaths; i++) {
		struct loaded x = {0};
		char *text = NULL;
		size_t len = 0;
		int dup = 0;

		if (!(x.path = realpath(l->paths[i], NULL)))
			continue;
		for (size_t j = 0; j < l->na && !dup; j++)
			dup = !strcmp(l->a[j].path, x.path);
		if (dup || rk_file_read(x.path, SIZE_MAX / 2, &text, &len)) {
			free(x.path);
			continue;
		}
		x.buf = text;
		if (rk_kpack_open(x.buf, len, &x.k, NULL)) {
			free(x.path);
			free(x.buf);
			continue;
		}
		l->a[l->na++] = x;
	}
	return 0;
}

static void lookup_release(struct lookup *l)
{
	for (size_t i = 0; i < l->npaths; i++)
		free(l->paths[i]);
	free(l->paths);
	for (size_t i = 0; l->a && i < l->na; i++) {
		rk_kpack_close(l->a[i].k);
		free(l->a[i].buf);
		free(l->a[i].path);
	}
	free(l->a);
}

static int has_arch(const struct rk_kpack *k, const char *arch)
{
	for (size_t i = 0, n = rk_kpack_arch_count(k); i < n; i++)
		if (!strcmp(rk_kpack_arch(k, i), arch))
			return 1;
	return 0;
}

static int env_on(const char *name)
{
	const char *v = getenv(name);

	return v && v[0] && v[0] != '0';
}

/* As AMD's loader (rocm-kpack runtime/src/loader.cpp, since e348328): for each arch in
 * order, the first archive holding one of its candidates (most specific first) decides:
 * the code object comes from there, or the lookup fails with that archive's error
 * (another candidate or arch would not help). */
static int search(const struct lookup *l, const char *key, const char *const *archs, size_t narchs,
		  void **data, size_t *size, struct rk_err *err)
{
	char cand[MAX_CANDIDATES][RK_TARGET_MAX];

	for (size_t i = 0; i < narchs; i++) {
		int nc, rc;

		if (!archs[i] || (nc = rk_target_candidates(archs[i], cand, MAX_CANDIDATES)) < 0)
			continue;
		for (int c = 0; c < nc; c++)
			for (size_t j = 0; j < l->na; j++) {
				if (!has_arch(l->a[j].k, cand[c]))
					continue;
				rc = rk_kpack_get(l->a[j].k, key, cand[c], data, size, err);
				if (rc && rc != -ENOMEM)
					rk_err_wrap(err, rc, "'%s'", l->a[j].path);
				return rc;
			}
	}
	return rk_err_set(err, -ENOENT, "'%s': no archive serves '%s'%s", key,
			  narchs && archs[0] ? strip_triple(archs[0]) : "",
			  narchs > 1 ? " or the other archs" : "");
}

int rk_kpack_load(const struct rk_kpack_marker *m, const char *binary_path, unsigned co_index,
		  const char *const *archs, size_t narchs, void **data, size_t *size,
		  struct rk_err *err)
{
	struct lookup l = {0};
	const char *over = getenv("ROCM_KPACK_PATH"), *prefix = getenv("ROCM_KPACK_PATH_PREFIX");
	char *key = NULL;
	struct rk_buf kb = RK_BUF_INIT;
	int rc = 0;

	*data = NULL;
	*size = 0;
	if (env_on("ROCM_KPACK_DISABLE"))
		return rk_err_set(err, -ENOTSUP, "kpack disabled by ROCM_KPACK_DISABLE");
	if (!m->kernel_name || !m->npaths || !narchs)
		return rk_err_set(err, -EINVAL, "no kernel name, search path or arch");
	if (rk_buf_addf(&kb, "%s#%u", m->kernel_name, co_index))
		return rk_err_set(err, -ENOMEM, "out of memory");
	key = kb.buf;
	if (over && over[0]) {
		rc = add_env_list(&l, over);
	} else {
		if (prefix && prefix[0])
			rc = add_env_list(&l, prefix);
		for (size_t i = 0; i < m->npaths && !rc; i++) {
			char *r = resolve(binary_path, m->paths[i]);

			rc = r ? expand(&l, r, archs, narchs) : -ENOMEM;
			free(r);
		}
	}
	if (!rc)
		rc = open_archives(&l);
	if (rc) {
		rc = rk_err_set(err, rc, "%s", strerror(-rc));
		goto out;
	}
	if (!l.na) {
		rc = rk_err_set(err, -ENOENT, "'%s': no archive found (%zu paths tried%s%s)", key,
				l.npaths, l.npaths ? ", first " : "", l.npaths ? l.paths[0] : "");
		goto out;
	}
	rc = search(&l, key, archs, narchs, data, size, err);
out:
	lookup_release(&l);
	rk_buf_release(&kb);
	return rc;
}
