/* cmd_recombine.c: rockpack recombine SHARDS_DIR --config cfg.json -o DIR [--component C]
 *
 * rocm-kpack's recombine_artifacts (kpack-format.md section 4.3): SHARDS_DIR holds one
 * directory per CI shard, each with split artifacts (<component>_generic,
 * <component>_<arch>). The config names the primary shard and the architecture groups:
 *   {"primary_shard": "...",
 *    "architecture_groups": {"<group>": {"display_name": "...", "architectures": [...]}},
 *    "validation": {"error_on_duplicate_device_code": bool,
 *                   "verify_generic_artifacts_match": bool,
 *                   "error_on_missing_architecture": bool}}
 * For each component, DIR/<component>_generic is the primary shard's generic artifact
 * without .kpack directories, and DIR/<component>_<group> holds, for each architecture
 * of the group found in some shard (the first shard in name order wins), its .kpack
 * archives and every other file whose name contains the architecture (or the
 * architecture with '-' as '_'); its manifest is the union of the prefixes.
 * As upstream, an architecture artifact belongs to a group only if the group lists its
 * exact arch string ("<component>_gfx942:xnack+" needs "gfx942:xnack+"), and the
 * "validation" rules are read but not acted on unless --strict.
 * DIR (and its missing parents) is written whole or not at all: the output goes into a
 * staging sibling (rk/staging.h) moved into place at the end; a failure leaves DIR as it
 * was. Files are created with O_EXCL and never followed: nothing outside DIR is
 * written, nothing there is overwritten. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk/buf.h"
#include "rk/staging.h"
#include "cli_util.h"
#include "rockpack.h"

struct art {
	char *shard, *name, *group, *arch; /* arch NULL for generic */
};

struct recombine {
	const char *in, *out;
	struct art *a;
	size_t n;
	char *buf;
	int dirfd; /* the staging directory of out (rk/staging.h) */
	int strict; /* --strict: enforce the "validation" rules */
};

static int cmp_art(const void *x, const void *y)
{
	const struct art *a = x, *b = y;
	int c = strcmp(a->shard, b->shard);

	return c ? c : strcmp(a->name, b->name);
}

static int list_dirs(const char *path, char ***out, size_t *n)
{
	DIR *d = opendir(path);
	struct dirent *de;

	*out = NULL;
	*n = 0;
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char **nv;

		if (de->d_name[0] == '.' || de->d_type != DT_DIR)
			continue;
		if (!(nv = realloc(*out, (*n + 1) * sizeof(*nv))) ||
		    !(nv[*n] = strdup(de->d_name))) {
			closedir(d);
			return -ENOMEM;
		}
		*out = nv;
		(*n)++;
	}
	closedir(d);
	return 0;
}

static int scan(struct recombine *rc)
{
	char **shards, **arts;
	size_t ns, na;
	int r = list_dirs(rc->in, &shards, &ns);

	if (r)
		return rp_fail("%s: %s", rc->in, strerror(-r));
	for (size_t i = 0; !r && i < ns; i++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/%s", rc->in, shards[i]);
		if (list_dirs(path, &arts, &na))
			continue;
		for (size_t j = 0; j < na; j++) {
			char *u = strrchr(arts[j], '_');
			struct art *nv;

			if (!u || (strcmp(u + 1, "generic") && strncmp(u + 1, "gfx", 3))) {
				free(arts[j]);
				continue; /* not a split artifact */
			}
			if (!(nv = realloc(rc->a, (rc->n + 1) * sizeof(*nv)))) {
				r = rp_fail("out of memory");
				break;
			}
			rc->a = nv;
			nv[rc->n].shard = strdup(shards[i]);
			nv[rc->n].name = arts[j];
			nv[rc->n].group = strndup(arts[j], (size_t)(u - arts[j]));
			nv[rc->n].arch = strcmp(u + 1, "generic") ? strdup(u + 1) : NULL;
			rc->n++;
		}
		free(arts);
	}
	for (size_t i = 0; i < ns; i++)
		free(shards[i]);
	free(shards);
	if (rc->n)
		qsort(rc->a, rc->n, sizeof(*rc->a), cmp_art);
	return r;
}

/* ---- copying ---- */

enum { ALL, KPACK_AND_ARCH };

struct copy {
	struct recombine *rc;
	int what;
	const char *arch;
	char arch_us[64]; /* arch with '-' as '_' */
};

/* Archives are named <component>_<arch>.kpack, so the name rule covers them too. */
static int wanted_file(const struct copy *c, const char *name)
{
	return c->what == ALL || strstr(name, c->arch) || strstr(name, c->arch_us);
}

static int copy_file(struct recombine *rc, const char *from, int dirfd, const char *name,
		     mode_t mode)
{
	int in = open(from, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), out, r = 0;
	ssize_t n;

	if (in < 0)
		return rp_fail("%s: %s", from, strerror(errno));
	out = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		     mode & 0777);
	if (out < 0) {
		close(in);
		if (errno == EEXIST)
			return 0; /* an earlier shard or arch already placed it */
		return rp_fail("%s: %s", name, strerror(errno));
	}
	while (!r && (n = read(in, rc->buf, 1 << 20)) > 0)
		if ((r = rp_write_all(out, rc->buf, (size_t)n)))
			r = rp_fail("%s: write: %s", name, strerror(-r));
	if (!r && n < 0)
		r = rp_fail("%s: %s", from, strerror(errno));
	if (fchmod(out, mode & 07777) && !r)
		r = rp_fail("%s: chmod: %s", name, strerror(errno));
	close(in);
	close(out);
	return r;
}

/* Copy the tree at from into directory dirfd; rel is the path below the prefix root.
 * *copied counts the files. */
static int copy_tree(struct copy *c, const char *from, int dirfd, const char *rel, unsigned *copied)
{
	DIR *d = opendir(from);
	struct dirent *de;
	int r = 0;

	if (!d)
		return rp_fail("%s: %s", from, strerror(errno));
	while (!r && (de = readdir(d))) {
		char path[4096], sub[4096];
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", from, de->d_name);
		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", de->d_name);
		if (lstat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			int fd;

			if (c->what == ALL && !strcmp(de->d_name, ".kpack"))
				continue; /* the generic artifact carries no archives */
			if (mkdirat(dirfd, de->d_name, 0755) && errno != EEXIST) {
				r = rp_fail("%s: %s", sub, strerror(errno));
				break;
			}
			fd = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
			if (fd < 0) {
				r = rp_fail("%s: %s", sub, strerror(errno));
				break;
			}
			r = copy_tree(c, path, fd, sub, copied);
			close(fd);
			if (!r && c->what != ALL)
				unlinkat(dirfd, de->d_name, AT_REMOVEDIR); /* fails unless empty */
		} else if (!wanted_file(c, de->d_name)) {
			continue;
		} else if (S_ISLNK(st.st_mode)) {
			char target[4096];
			ssize_t n = readlink(path, target, sizeof(target) - 1);

			if (n < 0)
				continue;
			target[n] = '\0';
			if (symlinkat(target, dirfd, de->d_name) && errno != EEXIST)
				r = rp_fail("%s: %s", sub, strerror(errno));
			(*copied)++;
		} else if (S_ISREG(st.st_mode)) {
			r = copy_file(c->rc, path, dirfd, de->d_name, st.st_mode);
			(*copied)++;
		}
	}
	closedir(d);
	return r;
}

/* Create <name> in the staging directory of out and return its descriptor. */
static int new_artifact(struct recombine *rc, const char *name)
{
	int fd;

	if (mkdirat(rc->dirfd, name, 0755))
		return -rp_fail("%s/%s: %s", rc->out, name, strerror(errno));
	if ((fd = openat(rc->dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -rp_fail("%s/%s: %s", rc->out, name, strerror(errno));
	return fd;
}

static int read_manifest(const struct recombine *rc, const struct art *a, struct rk_buf *into)
{
	char path[4096], line[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s/artifact_manifest.txt", rc->in, a->shard, a->name);
	if (!(f = fopen(path, "r")))
		return rp_fail("%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (!*line)
			continue;
		/* keep the union in first-seen order */
		char *hit = strstr(into->buf, line);
		size_t n = strlen(line);

		while (hit && !((hit == into->buf || hit[-1] == '\n') && hit[n] == '\n'))
			hit = strstr(hit + 1, line);
		if (!hit && rk_buf_addf(into, "%s\n", line)) {
			fclose(f);
			return rp_fail("out of memory");
		}
	}
	fclose(f);
	return 0;
}

static int write_manifest(int dirfd, const struct rk_buf *m)
{
	int fd = openat(dirfd, "artifact_manifest.txt", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			0644);
	int r;

	if (fd < 0)
		return rp_fail("artifact_manifest.txt: %s", strerror(errno));
	r = rp_write_all(fd, m->buf, m->len);
	close(fd);
	return r ? rp_fail("artifact_manifest.txt: %s", strerror(-r)) : 0;
}

/* Copy the prefixes of artifact a into dirfd with filter c. */
static int copy_artifact(struct recombine *rc, struct copy *c, const struct art *a, int dirfd,
			 unsigned *copied)
{
	struct rk_buf m = RK_BUF_INIT;
	char *save = NULL;
	int r = read_manifest(rc, a, &m);

	for (char *p = strtok_r(m.buf, "\n", &save); !r && p; p = strtok_r(NULL, "\n", &save)) {
		char from[4096], *slash;
		struct stat st;
		int fd = dirfd, own = 0;

		if (*p == '/' || strstr(p, ".."))
			continue;
		snprintf(from, sizeof(from), "%s/%s/%s/%s", rc->in, a->shard, a->name, p);
		if (stat(from, &st) || !S_ISDIR(st.st_mode))
			continue;
		/* create the prefix directories */
		for (char *q = p; !r && q; q = slash ? slash + 1 : NULL) {
			int sub;

			slash = strchr(q, '/');
			if (slash)
				*slash = '\0';
			if (mkdirat(fd, q, 0755) && errno != EEXIST)
				r = rp_fail("%s: %s", q, strerror(errno));
			else if ((sub = openat(fd, q, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)) < 0)
				r = rp_fail("%s: %s", q, strerror(errno));
			else {
				if (own)
					close(fd);
				fd = sub;
				own = 1;
			}
			if (slash)
				*slash = '/';
		}
		if (!r)
			r = copy_tree(c, from, fd, "", copied);
		if (own)
			close(fd);
	}
	rk_buf_release(&m);
	return r;
}

static int same_file(const char *x, const char *y, off_t size)
{
	char a[65536], b[65536];
	int fx = open(x, O_RDONLY | O_CLOEXEC), fy = open(y, O_RDONLY | O_CLOEXEC), same = 1;
	off_t off = 0;

	while (same && fx >= 0 && fy >= 0 && off < size) {
		ssize_t n = pread(fx, a, sizeof(a), off), m = pread(fy, b, sizeof(b), off);

		same = n > 0 && n == m && !memcmp(a, b, (size_t)n);
		off += n > 0 ? n : 0;
	}
	if (fx < 0 || fy < 0)
		same = 0;
	if (fx >= 0)
		close(fx);
	if (fy >= 0)
		close(fy);
	return same;
}

/* The trees at x and y hold the same names, types, modes and contents. */
static int same_tree(const char *x, const char *y)
{
	DIR *d;
	struct dirent *de;
	int same = 1;

	if (!(d = opendir(x)))
		return 0;
	while (same && (de = readdir(d))) {
		char px[4096], py[4096];
		struct stat sx, sy;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(px, sizeof(px), "%s/%s", x, de->d_name);
		snprintf(py, sizeof(py), "%s/%s", y, de->d_name);
		if (lstat(px, &sx) || lstat(py, &sy) || sx.st_mode != sy.st_mode)
			same = 0;
		else if (S_ISDIR(sx.st_mode))
			same = same_tree(px, py);
		else if (S_ISREG(sx.st_mode))
			same = sx.st_size == sy.st_size && same_file(px, py, sx.st_size);
	}
	closedir(d);
	if (same && (d = opendir(y))) { /* nothing extra on y's side */
		while (same && (de = readdir(d))) {
			char px[4096];
			struct stat st;

			snprintf(px, sizeof(px), "%s/%s", x, de->d_name);
			same = !lstat(px, &st);
		}
		closedir(d);
	}
	return same;
}

/* A "validation" rule: recombine_artifacts reads them (defaults: duplicates true, the
 * others false) but acts on none; --strict enforces them. */
static int bool_opt(const struct recombine *rc, json_t *cfg, const char *key)
{
	json_t *v = json_object_get(json_object_get(cfg, "validation"), key);

	if (!rc->strict)
		return 0;
	return v ? json_is_true(v) : !strcmp(key, "error_on_duplicate_device_code");
}

/* Whether arch is listed in the group: exact strings, as recombine_artifacts matches
 * (gfx942:xnack+ belongs to a group only if the group lists gfx942:xnack+). */
static int in_group(json_t *archs, const char *arch)
{
	size_t i;
	json_t *x;

	json_array_foreach(archs, i, x)
	{
		const char *s = json_string_value(x);

		if (s && !strcmp(s, arch))
			return 1;
	}
	return 0;
}

static int recombine_component(struct recombine *rc, json_t *cfg, const char *comp)
{
	const char *primary = json_string_value(json_object_get(cfg, "primary_shard"));
	json_t *groups = json_object_get(cfg, "architecture_groups"), *g;
	const struct art *gen = NULL;
	const char *gname;
	char name[512];
	unsigned copied = 0;
	int r = 0, fd;

	for (size_t i = 0; i < rc->n; i++)
		if (!rc->a[i].arch && !strcmp(rc->a[i].group, comp) &&
		    !strcmp(rc->a[i].shard, primary))
			gen = &rc->a[i];
	if (!gen)
		return rp_fail("'%s': no %s_generic in the primary shard '%s'", comp, comp,
			       primary);
	if (bool_opt(rc, cfg, "verify_generic_artifacts_match"))
		for (size_t i = 0; i < rc->n; i++)
			if (!rc->a[i].arch && !strcmp(rc->a[i].group, comp) &&
			    strcmp(rc->a[i].shard, primary)) {
				char x[4096], y[4096];

				snprintf(x, sizeof(x), "%s/%s/%s", rc->in, primary, gen->name);
				snprintf(y, sizeof(y), "%s/%s/%s", rc->in, rc->a[i].shard,
					 rc->a[i].name);
				if (!same_tree(x, y))
					return rp_fail("'%s': the generic artifacts of shards '%s' "
						       "and '%s' differ",
						       comp, primary, rc->a[i].shard);
			}
	snprintf(name, sizeof(name), "%s_generic", comp);
	if ((fd = new_artifact(rc, name)) < 0)
		return 1;
	{
		struct copy c = {rc, ALL, NULL, ""};
		struct rk_buf m = RK_BUF_INIT;

		r = read_manifest(rc, gen, &m);
		if (!r)
			r = copy_artifact(rc, &c, gen, fd, &copied);
		if (!r)
			r = write_manifest(fd, &m);
		rk_buf_release(&m);
	}
	close(fd);
	json_object_foreach(groups, gname, g)
	{
		json_t *archs = json_object_get(g, "architectures");
		struct rk_buf m = RK_BUF_INIT;
		size_t i;
		json_t *x;
		int any = 0;

		if (r)
			break;
		/* missing architectures */
		json_array_foreach(archs, i, x)
		{
			const char *s = json_string_value(x);
			int found = 0;

			for (size_t j = 0; s && j < rc->n; j++)
				found |= rc->a[j].arch && !strcmp(rc->a[j].group, comp) &&
					 !strcmp(rc->a[j].arch, s);
			if (!found && s && bool_opt(rc, cfg, "error_on_missing_architecture"))
				r = rp_fail("'%s': architecture '%s' of group '%s' is in no shard",
					    comp, s, gname);
		}
		for (size_t j = 0; !r && j < rc->n; j++)
			any |= rc->a[j].arch && !strcmp(rc->a[j].group, comp) &&
			       in_group(archs, rc->a[j].arch);
		if (r || !any)
			continue;
		snprintf(name, sizeof(name), "%s_%s", comp, gname);
		if ((fd = new_artifact(rc, name)) < 0)
			return 1;
		for (size_t j = 0; !r && j < rc->n; j++) {
			const struct art *a = &rc->a[j];
			struct copy c = {rc, KPACK_AND_ARCH, a->arch, ""};
			int dup = 0;

			if (!a->arch || strcmp(a->group, comp) || !in_group(archs, a->arch))
				continue;
			for (size_t k = 0; k < j; k++)
				dup |= rc->a[k].arch && !strcmp(rc->a[k].name, a->name);
			if (dup) {
				if (bool_opt(rc, cfg, "error_on_duplicate_device_code"))
					r = rp_fail("'%s': in more than one shard (and '%s')",
						    a->name, a->shard);
				continue; /* the first shard wins */
			}
			snprintf(c.arch_us, sizeof(c.arch_us), "%s", a->arch);
			for (char *p = c.arch_us; *p; p++)
				if (*p == '-')
					*p = '_';
			r = read_manifest(rc, a, &m);
			if (!r)
				r = copy_artifact(rc, &c, a, fd, &copied);
		}
		if (!r)
			r = write_manifest(fd, &m);
		rk_buf_release(&m);
		close(fd);
	}
	return r;
}

/* Whether an artifact written is in DIR already (upstream would write into it): an error
 * before anything is moved, so that the commit moves all or nothing. */
static int no_clash(const struct rk_staging *st)
{
	struct dirent *de;
	struct stat sb;
	DIR *d = fdopendir(dup(st->fd));
	int dfd = open(st->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), r = 0;

	if (!d || dfd < 0) {
		if (d)
			closedir(d);
		if (dfd >= 0)
			close(dfd);
		return errno == ENOENT ? 0 : rp_fail("%s: %s", st->dir, strerror(errno));
	}
	while (!r && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    !fstatat(dfd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW))
			r = rp_fail("%s/%s: already exists", st->dir, de->d_name);
	closedir(d);
	close(dfd);
	return r;
}

static int cmd_recombine(const struct rp_opts *o, int argc, char **argv)
{
	struct recombine rc = {.dirfd = -1};
	struct rk_staging st = {.fd = -1};
	struct rk_err err = RK_ERR_INIT;
	const char *config = NULL, *only = NULL;
	json_error_t jerr;
	json_t *cfg;
	int r = 0, parents = 0, matched = 0;

	for (int i = 0; i < argc; i++) {
		const char **val = !strcmp(argv[i], "--config")	     ? &config
				   : !strcmp(argv[i], "-o")	     ? &rc.out
				   : !strcmp(argv[i], "--component") ? &only
								     : NULL;

		if (!strcmp(argv[i], "--strict")) {
			rc.strict = 1;
		} else if (val) {
			if (!(*val = rp_value(o, argc, argv, &i)))
				return 2;
		} else if (rp_is_option(argv[i])) {
			return rp_usage(o, "recombine: unknown option '%s'", argv[i]);
		} else if (!rc.in) {
			rc.in = argv[i];
		} else {
			return rp_usage(o, "recombine: one SHARDS_DIR, not '%s' too", argv[i]);
		}
	}
	if (!rc.in || !config || !rc.out)
		return rp_usage(o, "usage: rockpack recombine SHARDS_DIR --config cfg.json -o DIR "
				   "[--component C] [--strict]");
	if (!(cfg = json_load_file(config, 0, &jerr)))
		return rp_fail("%s:%d: %s", config, jerr.line, jerr.text);
	if (!json_is_string(json_object_get(cfg, "primary_shard")) ||
	    !json_is_object(json_object_get(cfg, "architecture_groups"))) {
		json_decref(cfg);
		return rp_fail("%s: needs \"primary_shard\" and \"architecture_groups\"", config);
	}
	{
		const char *gname;
		json_t *g;

		json_object_foreach(json_object_get(cfg, "architecture_groups"), gname, g)
		{
			json_t *archs = json_object_get(g, "architectures"), *x;
			size_t i;

			if (!json_is_array(archs))
				r = rp_fail("%s: group '%s' has no \"architectures\" list", config,
					    gname);
			json_array_foreach(archs, i, x)
			{
				if (!json_is_string(x) || strncmp(json_string_value(x), "gfx", 3))
					r = rp_fail("%s: group '%s': architectures must start "
						    "with 'gfx'",
						    config, gname);
			}
		}
	}
	if (!r && !(rc.buf = malloc(1 << 20)))
		r = rp_fail("out of memory");
	/* DIR and its parents as recombine_artifacts' mkdir(parents=True), but written
	 * whole or not at all: a failure leaves DIR as it was and no parent it made */
	if (!r && (parents = rp_mkdir_parents(rc.out)) < 0)
		r = rp_fail("%s: %s", rc.out, strerror(-parents));
	if (!r && (r = rk_staging_open(rc.out, &st, &err)))
		r = rp_fail("%s", rk_err_str(&err, r));
	rc.dirfd = st.fd;
	if (!r)
		r = scan(&rc);
	for (size_t i = 0; !r && i < rc.n; i++) {
		int seen = 0;

		for (size_t j = 0; j < i; j++)
			seen |= !strcmp(rc.a[j].group, rc.a[i].group);
		if (!seen && (!only || !strcmp(only, rc.a[i].group))) {
			r = recombine_component(&rc, cfg, rc.a[i].group);
			matched++;
		}
	}
	if (!r && !rc.n)
		r = rp_fail("%s: no split artifacts in any shard", rc.in);
	else if (!r && !matched) /* as upstream: "Component '...' not found in artifacts" */
		r = rp_fail("'%s': no such component in the shards", only);
	if (!r)
		r = no_clash(&st);
	if (!r && (r = rk_staging_commit(&st, &err)))
		r = rp_fail("%s: %s", rc.out, rk_err_str(&err, r));
	rk_staging_abort(&st);
	if (r && parents > 0)
		rp_rmdir_parents(rc.out, parents);
	if (!r && !o->quiet)
		fprintf(stderr, "recombine: %zu artifacts from the shards into %s\n", rc.n, rc.out);
	for (size_t i = 0; i < rc.n; i++) {
		free(rc.a[i].shard);
		free(rc.a[i].name);
		free(rc.a[i].group);
		free(rc.a[i].arch);
	}
	free(rc.a);
	free(rc.buf);
	json_decref(cfg);
	return r ? 1 : 0;
}

const struct rp_command rp_cmd_recombine = {
	"recombine",
	cmd_recombine,
	"merge split shards into architecture groups",
	"usage: rockpack recombine SHARDS_DIR --config CFG.json -o DIR [--component C]\n"
	"\n"
	"rocm-kpack's recombine_artifacts: merge the split artifacts of several shards (one\n"
	"subdirectory of SHARDS_DIR each) into <component>_generic (from primary_shard) and\n"
	"one artifact per architecture group of CFG.json.\n"
	"\n"
	"  --config CFG.json   primary_shard and architecture_groups\n"
	"  -o DIR              the output directory (created with its parents); written\n"
	"                      whole or not at all, never over an artifact already there\n"
	"  --component C       only this <name>_<component> group\n"
	"  --strict            enforce the config's \"validation\" rules (rocm-kpack reads\n"
	"                      them but does not act on them)\n",
	" -o --config --component --strict ",
};
