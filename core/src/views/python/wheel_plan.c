/* wheel_plan.c: which artifacts go into which synthesized Python package, which of
 * their files go into its wheel and how they are named (therock-formats.md 6.2-6.5,
 * build_python_packages.py, py_packaging.py, setup.py): pure decisions over names, used
 * by view_python_synth.c (wheel_plan.h). */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "rk/gpu.h"
#include "views/python/wheel_plan.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* 6.2: artifact names per package */
static const char *const core_names[] = {
	"amd-dbgapi",	    "amd-llvm",		  "aqlprofile",	      "base",
	"core-amdsmi",	    "core-hip",		  "core-kpack",	      "core-ocl",
	"core-hipinfo",	    "core-runtime",	  "hipfile",	      "hipify",
	"host-blas",	    "host-suite-sparse",  "rocdecode",	      "rocgdb",
	"rocjpeg",	    "rocprofiler-sdk",	  "rocr-debug-agent", "sysdeps",
	"sysdeps-amd-mesa", "sysdeps-expat",	  "sysdeps-gmp",      "sysdeps-mpfr",
	"sysdeps-ncurses",  "sysdeps-util-linux", "wsl-rocdxg",	      "rocjitsu-hotswap",
};
static const char *const lib_names[] = {
	"blas",
	"fft",
	"hipdnn",
	"miopen",
	"miopenprovider",
	"hipblasltprovider",
	"hipkernelprovider",
	"rand",
	"rccl",
	"rpp",
};
static const char *const devel_extra[] = {
	"prim",	    "rocwmma",	  "libhipcxx", "flatbuffers", "nlohmann-json",
	"rocshmem", "hipthreads", "rocjitsu",  "mirage",
};

/* build_python_packages.py PROFILER_WHEEL_INCLUDES: the files of the profiler wheel */
static const char *const profiler_includes[] = {
	"bin/rocprof-sys-*",
	"include/rocprofiler-systems/**",
	"lib/librocprof-sys*",
	"lib/libprofiler-hub.so*",
	"lib/python/site-packages/rocprofsys/**",
	"lib/rocprofiler-systems/**",
	"libexec/rocprofiler-systems/**",
	"share/**/rocprofiler-systems/**",
	"bin/rocprof-*",
	"libexec/rocprofiler-compute/**",
	"lib/rocprofiler-compute/**",
	"share/**/rocprofiler-compute/**",
	NULL,
};
/* ... and what the core wheel leaves out (its excludes, cmake directories aside) */
static const char *const core_excludes[] = {
	"bin/rocprof-*",
	"include/rocprofiler-systems/**",
	"lib/librocprof-sys*",
	"lib/python/site-packages/rocprofsys/**",
	"lib/rocprofiler-systems/**",
	"libexec/rocprofiler-systems/**",
	"share/**/rocprofiler-systems/**",
	NULL,
};

/* Whether rel matches one of globs ("*" and "**" cross "/", as these globs are used). */
int pyplan_glob_any(const char *const *globs, const char *rel)
{
	for (size_t i = 0; globs[i]; i++)
		if (!fnmatch(globs[i], rel, 0))
			return 1;
	return 0;
}

static int in_list(const char *const *l, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(l[i], s))
			return 1;
	return 0;
}

static int is_generic(const char *target)
{
	return !strcmp(target, "generic");
}

int pyplan_wanted(const char *name, const char *comp, const char *atarget, int p, int split,
		  const char *family, const char *target)
{
	char base[64];

	switch (p) {
	case PKG_CORE:
		if (!in_list(core_names, ARRAY_LEN(core_names), name))
			return 0;
		if (!strcmp(name, "rocjitsu-hotswap"))
			return !strcmp(comp, "lib");
		return !strcmp(comp, "lib") || !strcmp(comp, "run") ||
		       (!strcmp(comp, "dev") &&
			(!strcmp(name, "core-hip") || !strcmp(name, "core-ocl")));
	case PKG_LIBRARIES:
		return in_list(lib_names, ARRAY_LEN(lib_names), name) && !strcmp(comp, "lib") &&
		       (is_generic(atarget) || (!split && !strcmp(atarget, family)));
	case PKG_DEVICE:
		return in_list(lib_names, ARRAY_LEN(lib_names) - 1, name) /* no rpp */ &&
		       !strcmp(comp, "lib") && !is_generic(atarget) &&
		       rk_gpu_base_arch(atarget, base, sizeof(base)) > 0 &&
		       !strcmp(base, target);
	case PKG_PROFILER: /* profiler_artifact_filter */
		return (!strcmp(name, "rocprofiler-compute") ||
			!strcmp(name, "rocprofiler-systems")) &&
		       (!strcmp(comp, "lib") || !strcmp(comp, "run"));
	default: /* PKG_DEVEL */
		if (!in_list(core_names, ARRAY_LEN(core_names), name) &&
		    !in_list(lib_names, ARRAY_LEN(lib_names), name) &&
		    !(in_list(devel_extra, ARRAY_LEN(devel_extra), name) &&
		      (split || (strcmp(name, "libhipcxx") && strcmp(name, "rocshmem") &&
				 strcmp(name, "hipthreads")))))
			return 0;
		if (split && !strcmp(comp, "test"))
			return 0;
		return is_generic(atarget) || (!split && !strcmp(atarget, family));
	}
}

/* build_python_packages.py: the rpath_dep(core, ...) calls of each package */
static const char *const profiler_rpath[] = {"lib", "lib/llvm/lib", "lib/rocm_sysdeps/lib", NULL};
static const char *const core_rpath[] = {"lib/llvm/lib", "lib/rocm_sysdeps/lib", NULL};
static const char *const lib_rpath[] = {"lib", "lib/rocm_sysdeps/lib", "lib/host-math/lib",
					"lib/llvm/lib", NULL};
static const char *const device_rpath[] = {"lib", "lib/rocm_sysdeps/lib", NULL};

/* The console scripts of TheRock's rocm-sdk-core (setup.py, Linux), each with the program
 * its rocm_sdk_core._cli function runs: declared when the core wheel holds the program. */
static const struct {
	const char *script, *fn, *path;
} core_scripts[] = {
	{"amdclang", "amdclang", "lib/llvm/bin/amdclang"},
	{"amdclang++", "amdclangpp", "lib/llvm/bin/amdclang++"},
	{"amdclang-cpp", "amdclang_cpp", "lib/llvm/bin/amdclang-cpp"},
	{"amdclang-cl", "amdclang_cl", "lib/llvm/bin/amdclang-cl"},
	{"amdflang", "amdflang", "lib/llvm/bin/amdflang"},
	{"amdlld", "amdlld", "lib/llvm/bin/amdlld"},
	{"hipcc", "hipcc", "bin/hipcc"},
	{"hipconfig", "hipconfig", "bin/hipconfig"},
	{"hipify-clang", "hipify_clang", "bin/hipify-clang"},
	{"offload-arch", "offload_arch", "lib/llvm/bin/offload-arch"},
	{"roc-obj", "roc_obj", "bin/roc-obj"},
	{"roc-obj-extract", "roc_obj_extract", "bin/roc-obj-extract"},
	{"roc-obj-ls", "roc_obj_ls", "bin/roc-obj-ls"},
	{"amd-smi", "amd_smi", "bin/amd-smi"},
	{"hipify-perl", "hipify_perl", "bin/hipify-perl"},
	{"rocm_agent_enumerator", "rocm_agent_enumerator", "bin/rocm_agent_enumerator"},
	{"rocminfo", "rocm_info", "bin/rocminfo"},
	{"rocm-smi", "rocm_smi", "bin/rocm-smi"},
	{"roccoremerge", "roccoremerge", "bin/roccoremerge"},
	{"rocgdb", "rocgdb", "bin/rocgdb"},
	{"rocpd", "rocpd", "bin/rocpd"},
	{"rocpd2csv", "rocpd2csv", "bin/rocpd2csv"},
	{"rocpd2otf2", "rocpd2otf2", "bin/rocpd2otf2"},
	{"rocpd2pftrace", "rocpd2pftrace", "bin/rocpd2pftrace"},
	{"rocpd2summary", "rocpd2summary", "bin/rocpd2summary"},
	{"rocprofv3", "rocprofv3", "bin/rocprofv3"},
	{"rocprofv3-attach", "rocprofv3_attach", "bin/rocprofv3-attach"},
	{"rocprofv3-avail", "rocprofv3_avail", "bin/rocprofv3-avail"},
};

/* TheRock's rocm-profiler console scripts (setup.py), each with its program: declared
 * when the wheel holds the program. */
static const char *const profiler_scripts[] = {
	"rocprof-compute",	  "rocprof-sys-attach", "rocprof-sys-avail",  "rocprof-sys-causal",
	"rocprof-sys-instrument", "rocprof-sys-run",	"rocprof-sys-sample", "rocprof-sys-python",
};

const char *const *pyplan_rpath(int kind)
{
	switch (kind) {
	case PKG_CORE:
		return core_rpath;
	case PKG_PROFILER:
		return profiler_rpath;
	case PKG_LIBRARIES:
		return lib_rpath;
	case PKG_DEVICE:
		return device_rpath;
	default:
		return NULL;
	}
}

int pyplan_excluded(int kind, const char *rel, int is_dir)
{
	const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;

	if (kind == PKG_PROFILER)
		return !is_dir && !pyplan_glob_any(profiler_includes, rel);
	if (kind != PKG_CORE)
		return 0;
	if (is_dir && !strcmp(base, "cmake"))
		return 1;
	return !is_dir && pyplan_glob_any(core_excludes, rel);
}

/* Names upstream's get_file_type never takes for a program or a library. */
int pyplan_not_a_program(const char *rel)
{
	static const char *const sfx[] = {".txt", ".h", ".hpp", ".hsaco", ".co", ".lib"};
	size_t n = strlen(rel);

	for (size_t i = 0; i < ARRAY_LEN(sfx); i++)
		if (n >= strlen(sfx[i]) && !strcmp(rel + n - strlen(sfx[i]), sfx[i]))
			return 1;
	return 0;
}

/* The relative path from directory `from` (a path below the root, "" for the root) to
 * `to`, in out[n]: "../" for each component of `from` past their common directories. */
void pyplan_relpath(const char *from, const char *to, char *out, size_t n)
{
	size_t f = 0, t = 0, len = 0;

	/* skip the common leading components */
	for (;;) {
		size_t fl = strcspn(from + f, "/"), tl = strcspn(to + t, "/");

		if (!fl || fl != tl || memcmp(from + f, to + t, fl) || to[t + tl] != '/')
			break;
		f += fl + (from[f + fl] == '/');
		t += tl + 1;
	}
	out[0] = '\0';
	while (from[f] && len + 4 < n) {
		len += (size_t)snprintf(out + len, n - len, "../");
		f += strcspn(from + f, "/");
		f += from[f] == '/';
	}
	snprintf(out + len, n - len, "%s", to + t);
}

/* Only what can sit in a Python string literal and a file name unquoted. */
int pyplan_plain_word(const char *w)
{
	if (!*w)
		return 0;
	for (; *w; w++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.+-_:!",
			    *w))
			return 0;
	return 1;
}

int pyplan_entry_points(int kind, const char *platform,
			int (*has_program)(void *ctx, const char *member), void *ctx,
			struct rk_buf *b)
{
	int rc = 0;

	for (size_t i = 0; !rc && kind == PKG_CORE && i < ARRAY_LEN(core_scripts); i++) {
		char name[300];

		snprintf(name, sizeof(name), "%s/%s", platform, core_scripts[i].path);
		if (has_program(ctx, name))
			rc = rk_buf_addf(b, "%s%s = rocm_sdk_core._cli:%s\n",
					 b->len ? "" : "[console_scripts]\n",
					 core_scripts[i].script, core_scripts[i].fn);
	}
	for (size_t i = 0; !rc && kind == PKG_PROFILER && i < ARRAY_LEN(profiler_scripts); i++) {
		char name[300], fn[64];

		snprintf(name, sizeof(name), "%s/bin/%s", platform, profiler_scripts[i]);
		snprintf(fn, sizeof(fn), "%s", profiler_scripts[i]);
		for (char *q = fn; *q; q++)
			if (*q == '-')
				*q = '_';
		if (has_program(ctx, name))
			rc = rk_buf_addf(b, "%s%s = rocm_profiler._cli:%s\n",
					 b->len ? "" : "[console_scripts]\n", profiler_scripts[i],
					 fn);
	}
	return rc;
}

void pyplan_names(int kind, const char *family, struct pyplan_names *n)
{
	/* a legacy family's pure package is named after the family as it is
	 * ("rocm_sdk_libraries_gfx110X-all"), as upstream's libraries setup.py names it */
	if (kind == PKG_CORE) {
		snprintf(n->dist, sizeof(n->dist), "rocm-sdk-core");
		snprintf(n->pure, sizeof(n->pure), "rocm_sdk_core");
	} else if (kind == PKG_PROFILER) {
		snprintf(n->dist, sizeof(n->dist), "rocm-profiler");
		snprintf(n->pure, sizeof(n->pure), "rocm_profiler");
	} else if (family) {
		snprintf(n->dist, sizeof(n->dist), "rocm-sdk-libraries-%s", family);
		snprintf(n->pure, sizeof(n->pure), "rocm_sdk_libraries_%s", family);
	} else {
		snprintf(n->dist, sizeof(n->dist), "rocm-sdk-libraries");
		snprintf(n->pure, sizeof(n->pure), "rocm_sdk_libraries");
	}
	snprintf(n->platform, sizeof(n->platform), "_%s", n->dist);
	for (char *q = n->platform; *q; q++)
		if (*q == '-')
			*q = '_';
}
