/* install_select.c: TheRock's install selection (rk/install.h), as
 * build_tools/install_rocm_from_artifacts.py (retrieve_artifacts_by_run_id) builds the
 * include patterns from its flags and fetch_artifacts.py (list_artifacts_for_group,
 * filter_artifacts) applies them, at TheRock 89553ce (docs/install.md). The table below is
 * that function's if-chain as data; keep its order when upstream adds a flag. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk/buf.h"
#include "rk/gpu.h"
#include "rk/install.h"

/* One component flag: the artifacts it adds (their _lib, and _test with --tests), the
 * patterns it appends as such, and those it appends only with another flag. */
struct flag_rule {
	const char *flag;
	const char *extra; /* space-separated artifact names */
	const char *direct; /* space-separated patterns */
	const char *if_flag; /* with this flag ("tests" or a component flag) ... */
	const char *then; /* ... these patterns too */
};

/* In the order of the script's any([...]) list, which is its if-chain's order but for
 * mpi, hiptensor and the providers (the order changes nothing: patterns are a set). */
static const struct flag_rule rules[] = {
	{"aqlprofile", "aqlprofile", NULL, NULL, NULL},
	{"blas", "blas", NULL, NULL, NULL},
	{"debug-tools",
	 "amd-dbgapi rocgdb rocr-debug-agent rocr-debug-agent-tests gmp mpfr expat ncurses",
	 "rocgdb_run amd-llvm_dev", NULL, NULL},
	{"fft", "fft fftw3", NULL, NULL, NULL},
	{"hipdnn", "hipdnn", NULL, NULL, NULL},
	{"hipdnn-integration-tests", "hipdnn-integration-tests",
	 "hipdnn-integration-tests_run rand_lib", NULL, NULL},
	{"hipdnn-samples", "hipdnn-samples", NULL, NULL, NULL},
	{"hipfile", "hipfile sysdeps-util-linux", NULL, NULL, NULL},
	{"miopen", "miopen", "miopen_run rand_dev", NULL, NULL},
	{"miopenprovider", "miopenprovider", NULL, NULL, NULL},
	{"hiptensor", "hiptensor", NULL, NULL, NULL},
	{"hipblasltprovider", "hipblasltprovider", NULL, NULL, NULL},
	{"hipkernelprovider", "hipkernelprovider", NULL, NULL, NULL},
	{"prim", "prim", NULL, NULL, NULL},
	{"mpi", "openmpi", "openmpi_run openmpi_dev", NULL, NULL},
	{"rand", "rand", NULL, NULL, NULL},
	{"rccl", "rccl", NULL, NULL, NULL},
	{"rocshmem", "rocshmem openmpi", "rocshmem_run openmpi_run", NULL, NULL},
	{"rocdecode", "sysdeps-amd-mesa rocdecode",
	 "rocdecode_dev rocdecode_test base_dev amd-llvm_dev", NULL, NULL},
	{"rocjpeg", "sysdeps-amd-mesa rocjpeg", "rocjpeg_dev rocjpeg_test base_dev amd-llvm_dev",
	 NULL, NULL},
	{"rocjitsu", "rocjitsu", "rocjitsu_run", NULL, NULL},
	{"mirage", "mirage", "mirage_run", NULL, NULL},
	{"rocprofiler-compute", "rocprofiler-compute", "rocprofiler-compute_run", NULL, NULL},
	{"rocprofiler-sdk", "rocprofiler-sdk aqlprofile", "rocprofiler-sdk_run", NULL, NULL},
	{"rocprofiler-systems", "rocprofiler-systems", "rocprofiler-systems_run", "tests",
	 "rocprofiler-sdk_dev"},
	{"rocprofiler-systems-examples", NULL, "rocprofiler-systems-examples_test", NULL, NULL},
	{"rocrtst", "rocrtst sysdeps-hwloc sysdeps-libpciaccess", NULL, NULL, NULL},
	{"rocalution", "rocalution", "rocalution_dev", NULL, NULL},
	{"kfdtest", "kfdtest", "amd-llvm_dev amd-llvm_lib", NULL, NULL},
	{"rocwmma", "rocwmma", "rocwmma_dev", NULL, NULL},
	{"rpp", "rpp", "rpp_dev base_dev amd-llvm_dev", NULL, NULL},
	{"libhipcxx", "libhipcxx", "amd-llvm_dev amd-llvm_lib base_dev_generic", NULL, NULL},
	{"hipthreads", "hipthreads libhipcxx",
	 "hipthreads_dev core-hip_run libhipcxx_dev amd-llvm_dev amd-llvm_lib base_dev_generic",
	 NULL, NULL},
};
#define NRULES (sizeof(rules) / sizeof(rules[0]))

/* hipthreads' two conditional patterns (the table has room for one per flag) */
static const struct flag_rule more[] = {
	{"hipthreads", NULL, NULL, "prim", "prim_dev"},
	{"hipthreads", NULL, NULL, "rand", "rand_dev"},
};

/* The script's base_artifact_patterns. */
static const char base_patterns[] =
	"core-hipinfo_run core-runtime_run core-runtime_lib rocjitsu-hotswap_lib sysdeps_lib "
	"base_run base_lib amd-llvm_run amd-llvm_lib core-amdsmi_run core-amdsmi_lib core-hip_lib "
	"core-hip_dev core-kpack_lib core-ocl_lib core-ocl_dev rocprofiler-sdk_lib "
	"host-suite-sparse_lib";

/* The flags' names, as rk_install_flags gives them (checked against rules[] by
 * unit.install.flags_table). */
static const char *const flag_names[] = {"aqlprofile",
					 "blas",
					 "debug-tools",
					 "fft",
					 "hipdnn",
					 "hipdnn-integration-tests",
					 "hipdnn-samples",
					 "hipfile",
					 "miopen",
					 "miopenprovider",
					 "hiptensor",
					 "hipblasltprovider",
					 "hipkernelprovider",
					 "prim",
					 "mpi",
					 "rand",
					 "rccl",
					 "rocshmem",
					 "rocdecode",
					 "rocjpeg",
					 "rocjitsu",
					 "mirage",
					 "rocprofiler-compute",
					 "rocprofiler-sdk",
					 "rocprofiler-systems",
					 "rocprofiler-systems-examples",
					 "rocrtst",
					 "rocalution",
					 "kfdtest",
					 "rocwmma",
					 "rpp",
					 "libhipcxx",
					 "hipthreads",
					 NULL};

const char *const *rk_install_flags(void)
{
	return flag_names;
}

static int flag_index(const char *name, size_t len)
{
	for (size_t i = 0; i < NRULES; i++)
		if (strlen(rules[i].flag) == len && !memcmp(rules[i].flag, name, len))
			return (int)i;
	return -1;
}

static int set_flag(struct rk_install_spec *s, const char *name, size_t len, int on)
{
	int i = flag_index(name, len);

	if (i >= 0) {
		if (on)
			s->flags |= 1ULL << i;
		else
			s->flags &= ~(1ULL << i);
	} else if (len == 5 && !memcmp(name, "tests", 5)) {
		s->tests = on;
	} else if (len == 9 && !memcmp(name, "base-only", 9)) {
		s->base_only = on;
	} else {
		return -ENOENT;
	}
	return 0;
}

int rk_install_spec_set(struct rk_install_spec *s, const char *flag, int on)
{
	return set_flag(s, flag, strlen(flag), on);
}

/* A family or target: what a TheRock artifact name's target field may hold, and no ',',
 * '@' or '+' (the spec's separators). */
static int name_ok(const char *p, size_t len)
{
	if (!len)
		return 0;
	for (size_t i = 0; i < len; i++) {
		char c = p[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '-' || c == ':' || c == '.'))
			return 0;
	}
	return 1;
}

int rk_install_spec_parse(const char *name, struct rk_install_spec *out, struct rk_err *err)
{
	struct rk_install_spec s;
	const char *p = name, *end = name + strlen(name), *plus, *at;
	size_t len;

	memset(&s, 0, sizeof(s));
	plus = strchr(p, '+');
	if (!plus)
		plus = end;
	at = memchr(p, '@', (size_t)(plus - p));
	len = (size_t)((at ? at : plus) - p);
	if (!name_ok(p, len) || len >= sizeof(s.family))
		return rk_err_set(err, -ENOENT, "'%s': not a GPU family", name);
	memcpy(s.family, p, len);
	if (at) {
		for (p = at + 1; p <= plus;) {
			const char *c = memchr(p, ',', (size_t)(plus - p));

			len = (size_t)((c ? c : plus) - p);
			if (!name_ok(p, len) || len >= sizeof(s.targets[0]) ||
			    s.ntargets == RK_INSTALL_MAX_TARGETS)
				return rk_err_set(err, -ENOENT, "'%s': bad target list", name);
			memcpy(s.targets[s.ntargets++], p, len);
			p += len + 1;
		}
	}
	for (p = plus; p < end;) {
		const char *n = strchr(p + 1, '+');

		if (!n)
			n = end;
		len = (size_t)(n - p - 1);
		if (set_flag(&s, p + 1, len, 1))
			return rk_err_set(err, -ENOENT, "'%s': unknown flag '%.*s'", name, (int)len,
					  p + 1);
		p = n;
	}
	*out = s;
	return 0;
}

int rk_install_spec_name(const struct rk_install_spec *s, char *out, size_t n)
{
	struct rk_buf b = RK_BUF_INIT;
	int rc = rk_buf_addf(&b, "%s", s->family);

	for (size_t i = 0; !rc && i < s->ntargets; i++)
		rc = rk_buf_addf(&b, "%c%s", i ? ',' : '@', s->targets[i]);
	for (size_t i = 0; !rc && i < NRULES; i++)
		if (s->flags & (1ULL << i))
			rc = rk_buf_addf(&b, "+%s", rules[i].flag);
	if (!rc && s->tests)
		rc = rk_buf_addf(&b, "+tests");
	if (!rc && s->base_only)
		rc = rk_buf_addf(&b, "+base-only");
	if (!rc && b.len >= n)
		rc = -ENAMETOOLONG;
	if (!rc) {
		memcpy(out, b.buf, b.len + 1);
		rc = (int)b.len;
	}
	rk_buf_release(&b);
	return rc;
}

struct plist {
	char **v;
	size_t n, cap;
};

static int add(struct plist *l, const char *p, size_t len, const char *suffix)
{
	size_t sl = suffix ? strlen(suffix) : 0;
	char *s;

	for (size_t i = 0; i < l->n; i++)
		if (strlen(l->v[i]) == len + sl && !memcmp(l->v[i], p, len) &&
		    (!sl || !memcmp(l->v[i] + len, suffix, sl)))
			return 0; /* a set: a pattern twice matches the same names */
	if (l->n + 2 > l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		char **v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	if (!(s = malloc(len + sl + 1)))
		return -ENOMEM;
	memcpy(s, p, len);
	if (sl)
		memcpy(s + len, suffix, sl);
	s[len + sl] = 0;
	l->v[l->n++] = s;
	l->v[l->n] = NULL;
	return 0;
}

/* Add each word of list (space-separated), with suffix (NULL: none). */
static int add_words(struct plist *l, const char *list, const char *suffix)
{
	int rc = 0;

	while (!rc && list && *list) {
		size_t len = strcspn(list, " ");

		rc = add(l, list, len, suffix);
		list += len;
		list += strspn(list, " ");
	}
	return rc;
}

static int has(const struct rk_install_spec *s, const char *flag)
{
	int i;

	if (!strcmp(flag, "tests"))
		return s->tests;
	i = flag_index(flag, strlen(flag));
	return i >= 0 && (s->flags & (1ULL << i));
}

int rk_install_patterns(const struct rk_install_spec *s, char ***out, size_t *n)
{
	struct plist l = {0};
	struct plist extra = {0};
	int rc = 0;

	if (s->base_only) {
		rc = add_words(&l, base_patterns, NULL);
	} else if (s->flags) {
		rc = add_words(&l, base_patterns, NULL);
		for (size_t i = 0; !rc && i < NRULES; i++) {
			if (!(s->flags & (1ULL << i)))
				continue;
			rc = add_words(&extra, rules[i].extra, NULL);
			if (!rc)
				rc = add_words(&l, rules[i].direct, NULL);
			if (!rc && rules[i].if_flag && has(s, rules[i].if_flag))
				rc = add_words(&l, rules[i].then, NULL);
			for (size_t j = 0; !rc && j < sizeof(more) / sizeof(more[0]); j++)
				if (!strcmp(more[j].flag, rules[i].flag) && has(s, more[j].if_flag))
					rc = add_words(&l, more[j].then, NULL);
		}
		/* _lib for each extra artifact, _test too with --tests */
		for (size_t i = 0; !rc && i < extra.n; i++) {
			rc = add(&l, extra.v[i], strlen(extra.v[i]), "_lib");
			if (!rc && s->tests)
				rc = add(&l, extra.v[i], strlen(extra.v[i]), "_test");
		}
	}
	rk_install_patterns_free(extra.v, extra.n);
	if (rc) {
		rk_install_patterns_free(l.v, l.n);
		return rc;
	}
	*out = l.v;
	*n = l.n;
	return 0;
}

void rk_install_patterns_free(char **p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(p[i]);
	free(p);
}

/* fetch_artifacts.py _matches_target over {"generic", family, targets}: base archs equal. */
static int target_wanted(const struct rk_install_spec *s, const char *t)
{
	char base[64], other[64];

	if (rk_gpu_base_arch(t, base, sizeof(base)) < 0)
		return 0;
	if (!strcmp(base, "generic"))
		return 1;
	if (!s->ntargets) /* targets derived from the family (expand_families) */
		return rk_gpu_family_has(s->family, t);
	if (rk_gpu_base_arch(s->family, other, sizeof(other)) >= 0 && !strcmp(base, other))
		return 1;
	for (size_t i = 0; i < s->ntargets; i++)
		if (rk_gpu_base_arch(s->targets[i], other, sizeof(other)) >= 0 &&
		    !strcmp(base, other))
			return 1;
	return 0;
}

int rk_install_wants(const struct rk_install_spec *s, char *const *patterns, size_t npatterns,
		     const struct rk_artifact *a)
{
	if (!target_wanted(s, a->an.target))
		return 0;
	if (!npatterns)
		return 1;
	for (size_t i = 0; i < npatterns; i++)
		if (strstr(a->file, patterns[i]))
			return 1;
	return 0;
}

int rk_install_select(const struct rk_install_spec *s, const struct rk_run *r, size_t **idx,
		      size_t *n)
{
	char **pat = NULL;
	size_t npat = 0, k = 0, *v = NULL;
	int rc = rk_install_patterns(s, &pat, &npat);

	if (rc)
		return rc;
	if (r->narts && !(v = malloc(r->narts * sizeof(*v))))
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < r->narts; i++)
		if (rk_install_wants(s, pat, npat, &r->arts[i]))
			v[k++] = i;
	rk_install_patterns_free(pat, npat);
	if (rc)
		return rc;
	if (!k) {
		free(v);
		v = NULL;
	}
	*idx = v;
	*n = k;
	return 0;
}
