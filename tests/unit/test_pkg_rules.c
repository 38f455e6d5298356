/* test_pkg_rules.c: TheRock's package.json and packaging rules (formats/packages/pkg_rules.h).
 *
 * The facts come from build_tools/packaging/linux/: tests/build_package_test.py (names of
 * every kind, "amdrocm-core-dev" in a gfx metapackage's DEB Depends, "amdrocm-core-devel"
 * in its RPM Requires, a simple metapackage depending on a buildable debugger), and
 * packaging_utils.py's rules worked by hand for the small definitions below. JSON is
 * written with ' for " to stay readable. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/packages/pkg_rules.h"
#include "rk_test.h"

static char *dq(const char *s)
{
	char *t = strdup(s);

	RK_ASSERT(t);
	for (char *p = t; *p; p++)
		if (*p == '\'')
			*p = '"';
	return t;
}

static int parse(const char *json, struct pkg_defs *d, struct rk_err *err)
{
	char *t = dq(json);
	int rc = pkg_defs_parse(t, strlen(t), d, err);

	free(t);
	return rc;
}

/* Upstream's test names (amdrocm-fft, -core-sdk as -core-devel here, -developer-tools,
 * -debugger, -ck, -runtime) with small Artifactory lists. amdrocm-missing has no
 * artifacts in any run. */
static const char defs_json[] =
	"[{'Package':'amdrocm-runtime','DEBDepends':['libc6'],'RPMRequires':[],"
	"  'Artifactory':[{'Artifact':'core-runtime','Artifact_Subdir':"
	"    [{'Name':'ROCR-Runtime','Components':['lib']}]}]},"
	" {'Package':'amdrocm-fft','Gfxarch':'True','DEBDepends':['libc6','amdrocm-runtime'],"
	"  'RPMRequires':['amdrocm-runtime'],'DEBRecommends':['gcc','amdrocm-runtime'],"
	"  "
	"'Artifactory':[{'Artifact':'fft','Artifact_Subdir':[{'Name':'rocFFT','Components':['lib']}"
	"]},"
	"   {'Artifact':'fftw3','Artifact_Gfxarch':'False','Artifact_Subdir':"
	"    [{'Name':'fftw3','Components':['lib']}]},"
	"   {'Artifact':'fftkern','Artifact_Gfxarch':'True','Artifact_Subdir':"
	"    [{'Name':'kern','Components':['lib']}]}]},"
	" {'Package':'amdrocm-fft-devel','gfxARCH':' yes ','DEBDepends':['amdrocm-fft'],"
	"  'RPMRequires':['amdrocm-fft'],'Provides':['rocfft-devel'],'Replaces':['rocfft-devel'],"
	"  'Conflicts':['rocfft-devel'],'Obsoletes':['rocfft-devel'],"
	"  "
	"'Artifactory':[{'Artifact':'fft','Artifact_Subdir':[{'Name':'rocfft','Components':['dev']}"
	"]}]},"
	" {'Package':'amdrocm-ck','Gfxarch':'True','DEBDepends':['amdrocm-runtime','amdrocm-fft'],"
	"  'RPMRequires':['amdrocm-runtime','amdrocm-fft'],"
	"  "
	"'Artifactory':[{'Artifact':'ck','Artifact_Subdir':[{'Name':'ck','Components':['lib']}]}]},"
	" {'Package':'amdrocm-debugger','Artifactory':[{'Artifact':'debugger','Artifact_Subdir':"
	"    [{'Name':'rocgdb','Components':['run']}]}]},"
	" {'Package':'amdrocm-developer-tools','Metapackage':'TRUE','Gfxarch':'False',"
	"  'DEBDepends':['amdrocm-debugger','amdrocm-fft','gdb'],"
	"  'RPMRequires':['amdrocm-debugger','amdrocm-fft','gdb']},"
	" {'Package':'amdrocm-core','Metapackage':'True','Postinstall':'True','Gfxarch':'True',"
	"  'DEBDepends':['amdrocm-runtime','amdrocm-fft','amdrocm-fft-devel','amdrocm-ck',"
	"   'amdrocm-missing','libfoo'],"
	"  'RPMRequires':['amdrocm-runtime','amdrocm-fft','amdrocm-fft-devel','amdrocm-ck',"
	"   'amdrocm-missing','libfoo']},"
	" {'Package':'amdrocm-core-devel','Metapackage':'True','Postinstall':'True','Gfxarch':'"
	"True',"
	"  'DEBDepends':['amdrocm-core','amdrocm-fft-devel'],"
	"  'RPMRequires':['amdrocm-core','amdrocm-fft-devel']},"
	" {'Package':'amdrocm-missing','Artifactory':[{'Artifact':'nothere','Artifact_Subdir':"
	"    [{'Name':'x','Components':['lib']}]}]},"
	" {'Package':'amdrocm-off','DisablePackaging':'on','Artifactory':[{'Artifact':'fft',"
	"  'Artifact_Subdir':[{'Name':'rocFFT','Components':['lib']}]}]}]";

static const char *const l_fft[] = {"math-libs/rocFFT/stage"};
static const char *const l_fftw[] = {"third-party/fftw3/stage"};
static const char *const l_kern[] = {"math-libs/kern/stage"};
static const char *const l_rt[] = {"core/ROCR-Runtime/stage"};
static const char *const l_ck[] = {"math-libs/ck/stage"};
static const char *const l_gdb[] = {"debug-tools/rocgdb/stage"};

#define DIR(n, c, t, l)                              \
	{                                            \
		n, c, t, l, sizeof(l) / sizeof(l[0]) \
	}

/* a kpack-split run for gfx1100 and gfx942 (gfx942 also as :xnack+); ck only for gfx1100 */
static const struct pkg_artdir kdirs[] = {
	DIR("core-runtime", "lib", "generic", l_rt), DIR("fft", "lib", "generic", l_fft),
	DIR("fft", "lib", "gfx1100", l_fft),	     DIR("fft", "lib", "gfx942", l_fft),
	DIR("fft", "lib", "gfx942:xnack+", l_fft),   DIR("fftw3", "lib", "generic", l_fftw),
	DIR("fftkern", "lib", "gfx1100", l_kern),    DIR("fft", "dev", "generic", l_fft),
	DIR("ck", "lib", "generic", l_ck),	     DIR("ck", "lib", "gfx1100", l_ck),
	DIR("debugger", "run", "generic", l_gdb),
};
static const char *const karchs[] = {"gfx1100", "gfx942"};

/* a legacy run of one family */
static const struct pkg_artdir sdirs[] = {
	DIR("core-runtime", "lib", "generic", l_rt), DIR("fft", "lib", "gfx94X-dcgpu", l_fft),
	DIR("fftw3", "lib", "generic", l_fftw),	     DIR("fft", "dev", "gfx94X-dcgpu", l_fft),
	DIR("ck", "lib", "gfx94X-dcgpu", l_ck),
};
static const char *const sarchs[] = {"gfx94X-dcgpu"};

static struct pkg_defs defs;
static struct pkg_plan plan;

static void make(int kpack, enum pkg_type type, int asan)
{
	struct pkg_run run = {0};
	struct rk_err err = RK_ERR_INIT;
	int rc;

	if (!defs.n)
		RK_ASSERT_EQ_INT(0, parse(defs_json, &defs, &err));
	run.dirs = kpack ? kdirs : sdirs;
	run.ndirs = kpack ? sizeof(kdirs) / sizeof(kdirs[0]) : sizeof(sdirs) / sizeof(sdirs[0]);
	run.kpack = kpack;
	run.archs = kpack ? karchs : sarchs;
	run.narchs = kpack ? 2 : 1;
	run.rocm_version = "7.1.0";
	run.version_suffix = "daily";
	run.type = type;
	run.asan = asan;
	rc = pkg_plan_make(&defs, &run, &plan, &err);
	if (rc)
		rk_test_fail(__FILE__, __LINE__, "pkg_plan_make: %s", err.msg);
}

static const struct pkg_out *get(const char *name)
{
	for (size_t i = 0; i < plan.n; i++)
		if (!strcmp(plan.pkgs[i].name, name))
			return &plan.pkgs[i];
	return NULL;
}

static const struct pkg_out *must(const char *name)
{
	const struct pkg_out *o = get(name);

	if (!o)
		rk_test_fail(__FILE__, __LINE__, "no package '%s' in the plan", name);
	return o;
}

static void done(void)
{
	pkg_plan_release(&plan);
	pkg_defs_release(&defs);
}

/* the names, in build order, joined with spaces */
static void expect_names(const char *want)
{
	char got[4096] = "";
	size_t n = 0;

	for (size_t i = 0; i < plan.n; i++)
		n += (size_t)snprintf(got + n, sizeof(got) - n, "%s%s", i ? " " : "",
				      plan.pkgs[i].name);
	RK_ASSERT_EQ_STR(want, got);
}

#define PIN "( = 7.1.0-daily)"
#define RPIN " = 7.1.0-daily"

RK_TEST(kpack_deb_names)
{
	make(1, PKG_DEB, 0);
	/* runtime, fft-devel, debugger: simple; fft, ck: host + devices + meta +
	 * non-versioned (ck has nothing for gfx942: that DEB is skipped); core and
	 * core-devel: per-arch metas + meta + non-versioned, no host; amdrocm-missing
	 * skipped, amdrocm-off disabled */
	expect_names("amdrocm-runtime7.1 amdrocm-runtime "
		     "amdrocm-fft-host7.1 amdrocm-fft7.1-gfx1100 amdrocm-fft7.1-gfx942 "
		     "amdrocm-fft7.1 amdrocm-fft amdrocm-fft-dev7.1 amdrocm-fft-dev "
		     "amdrocm-ck-host7.1 amdrocm-ck7.1-gfx1100 amdrocm-ck7.1 amdrocm-ck "
		     "amdrocm-debugger7.1 amdrocm-debugger amdrocm-developer-tools7.1 "
		     "amdrocm-developer-tools amdrocm-core7.1-gfx1100 amdrocm-core7.1-gfx942 "
		     "amdrocm-core7.1 amdrocm-core amdrocm-core-dev7.1-gfx1100 "
		     "amdrocm-core-dev7.1-gfx942 amdrocm-core-dev7.1 amdrocm-core-dev");
	RK_ASSERT_EQ_INT(1, plan.nskipped);
	RK_ASSERT_EQ_STR("amdrocm-missing", plan.skipped[0]);
	RK_ASSERT_EQ_STR("/opt/rocm/core-7.1", plan.prefix);
	RK_ASSERT_EQ_INT(PKG_HOST, must("amdrocm-fft-host7.1")->kind);
	RK_ASSERT_EQ_INT(PKG_DEVICE, must("amdrocm-fft7.1-gfx942")->kind);
	RK_ASSERT_EQ_STR("gfx942", must("amdrocm-fft7.1-gfx942")->arch);
	RK_ASSERT(!must("amdrocm-fft-host7.1")->arch);
	RK_ASSERT_EQ_INT(PKG_GFXMETA, must("amdrocm-fft7.1")->kind);
	RK_ASSERT_EQ_INT(PKG_NONVERSIONED, must("amdrocm-fft")->kind);
	RK_ASSERT_EQ_INT(PKG_VERSIONED, must("amdrocm-fft-dev7.1")->kind);
	RK_ASSERT_EQ_STR("7.1.0", must("amdrocm-fft")->version);
	RK_ASSERT_EQ_STR("daily", must("amdrocm-fft")->release);
	done();
}

RK_TEST(kpack_deb_depends)
{
	make(1, PKG_DEB, 0);
	/* host: the non-gfx deps, versioned, unpinned */
	RK_ASSERT_EQ_STR("libc6, amdrocm-runtime7.1", must("amdrocm-fft-host7.1")->depends);
	/* secondary deps: resolved as the package's main ones */
	RK_ASSERT_EQ_STR("gcc, amdrocm-runtime7.1", must("amdrocm-fft-host7.1")->recommends);
	RK_ASSERT_EQ_STR("gcc, amdrocm-runtime7.1", must("amdrocm-fft7.1-gfx1100")->recommends);
	/* device: its host, unpinned */
	RK_ASSERT_EQ_STR("amdrocm-fft-host7.1", must("amdrocm-fft7.1-gfx1100")->depends);
	/* device with a gfx dep: the dep's device for the same target */
	RK_ASSERT_EQ_STR("amdrocm-ck-host7.1, amdrocm-fft7.1-gfx1100",
			 must("amdrocm-ck7.1-gfx1100")->depends);
	/* host drops gfx deps */
	RK_ASSERT_EQ_STR("amdrocm-runtime7.1", must("amdrocm-ck-host7.1")->depends);
	/* versioned meta: host + the targets with artifacts, pinned */
	RK_ASSERT_EQ_STR("amdrocm-fft-host7.1" PIN ", amdrocm-fft7.1-gfx1100" PIN
			 ", amdrocm-fft7.1-gfx942" PIN,
			 must("amdrocm-fft7.1")->depends);
	RK_ASSERT_EQ_STR("amdrocm-ck-host7.1" PIN ", amdrocm-ck7.1-gfx1100" PIN,
			 must("amdrocm-ck7.1")->depends);
	/* non-versioned: the versioned meta, unpinned (not a metapackage) */
	RK_ASSERT_EQ_STR("amdrocm-fft7.1", must("amdrocm-fft")->depends);
	RK_ASSERT_EQ_STR("amdrocm-runtime7.1", must("amdrocm-runtime")->depends);
	RK_ASSERT_EQ_STR("libc6", must("amdrocm-runtime7.1")->depends);
	/* a kpack -devel is never gfx, and its gfx dep has no "_" target dir: dropped */
	RK_ASSERT_EQ_STR("", must("amdrocm-fft-dev7.1")->depends);
	RK_ASSERT_EQ_STR("amdrocm-fft-dev7.1", must("amdrocm-fft-dev")->depends);
	/* simple metapackage: gfx deps dropped (no artifacts for target ""), the rest
	 * versioned and pinned, system names as they are */
	RK_ASSERT_EQ_STR("amdrocm-debugger7.1" PIN ", gdb",
			 must("amdrocm-developer-tools7.1")->depends);
	RK_ASSERT_EQ_STR("amdrocm-developer-tools7.1" PIN,
			 must("amdrocm-developer-tools")->depends);
	/* gfx metapackage per target: gfx deps keep the target, -devel becomes -dev, a dep
	 * without artifacts for the target (ck on gfx942) and one without artifacts at all
	 * (amdrocm-missing) are dropped, system names unpinned */
	RK_ASSERT_EQ_STR("amdrocm-runtime7.1" PIN ", amdrocm-fft7.1-gfx1100" PIN
			 ", amdrocm-fft-dev7.1" PIN ", amdrocm-ck7.1-gfx1100" PIN ", libfoo",
			 must("amdrocm-core7.1-gfx1100")->depends);
	RK_ASSERT_EQ_STR("amdrocm-runtime7.1" PIN ", amdrocm-fft7.1-gfx942" PIN
			 ", amdrocm-fft-dev7.1" PIN ", libfoo",
			 must("amdrocm-core7.1-gfx942")->depends);
	RK_ASSERT_EQ_STR("amdrocm-core7.1-gfx1100" PIN ", amdrocm-fft-dev7.1" PIN,
			 must("amdrocm-core-dev7.1-gfx1100")->depends);
	/* gfx metapackage: every target's meta, pinned; non-versioned pinned */
	RK_ASSERT_EQ_STR("amdrocm-core7.1-gfx1100" PIN ", amdrocm-core7.1-gfx942" PIN,
			 must("amdrocm-core7.1")->depends);
	RK_ASSERT_EQ_STR("amdrocm-core7.1" PIN, must("amdrocm-core")->depends);
	RK_ASSERT_EQ_STR("amdrocm-core-dev7.1" PIN, must("amdrocm-core-dev")->depends);
	done();
}

RK_TEST(kpack_rpm)
{
	make(1, PKG_RPM, 0);
	/* RPM keeps -devel; pins as " = V-S"; a device with no content is still built */
	RK_ASSERT_EQ_STR("amdrocm-fft-host7.1" RPIN ", amdrocm-fft7.1-gfx1100" RPIN
			 ", amdrocm-fft7.1-gfx942" RPIN,
			 must("amdrocm-fft7.1")->depends);
	RK_ASSERT_EQ_STR("amdrocm-runtime7.1" RPIN ", amdrocm-fft7.1-gfx1100" RPIN
			 ", amdrocm-fft-devel7.1" RPIN ", amdrocm-ck7.1-gfx1100" RPIN ", libfoo",
			 must("amdrocm-core7.1-gfx1100")->depends);
	RK_ASSERT_EQ_STR("amdrocm-core7.1-gfx1100" RPIN ", amdrocm-fft-devel7.1" RPIN,
			 must("amdrocm-core-devel7.1-gfx1100")->depends);
	RK_ASSERT_EQ_STR("amdrocm-runtime7.1", must("amdrocm-fft-host7.1")->depends);
	{
		const struct pkg_out *o = must("amdrocm-ck7.1-gfx942");

		RK_ASSERT_EQ_INT(0, o->nsources);
		RK_ASSERT_EQ_INT(0, o->empty);
		RK_ASSERT_EQ_STR("amdrocm-ck-host7.1, amdrocm-fft7.1-gfx942", o->depends);
	}
	/* non-versioned relations: Provides, Obsoletes, Conflicts as written, no Replaces */
	{
		const struct pkg_out *o = must("amdrocm-fft-devel");

		RK_ASSERT_EQ_STR("rocfft-devel", o->provides);
		RK_ASSERT_EQ_STR("rocfft-devel", o->obsoletes);
		RK_ASSERT_EQ_STR("rocfft-devel", o->conflicts);
		RK_ASSERT_EQ_STR("", o->replaces);
		RK_ASSERT_EQ_STR("", must("amdrocm-fft-devel7.1")->provides);
	}
	done();
}

RK_TEST(nonversioned_relations_deb)
{
	make(1, PKG_DEB, 0);
	const struct pkg_out *o = must("amdrocm-fft-dev");

	RK_ASSERT_EQ_STR("rocfft-dev", o->provides);
	RK_ASSERT_EQ_STR("rocfft-dev", o->replaces);
	RK_ASSERT_EQ_STR("rocfft-dev", o->conflicts);
	RK_ASSERT_EQ_STR("", o->obsoletes);
	RK_ASSERT_EQ_STR("", o->recommends);
	RK_ASSERT_EQ_INT(1, o->empty);
	RK_ASSERT_EQ_INT(0, o->nsources);
	done();
}

static const char *src_line(const struct pkg_out *o, size_t i, int kpack)
{
	const struct pkg_artdir *dirs = kpack ? kdirs : sdirs;

	return dirs[o->sources[i].dir].lines[o->sources[i].line];
}

static const char *src_dir(const struct pkg_out *o, size_t i, int kpack)
{
	const struct pkg_artdir *dirs = kpack ? kdirs : sdirs;

	return dirs[o->sources[i].dir].target;
}

RK_TEST(kpack_sources)
{
	const struct pkg_out *o;

	make(1, PKG_DEB, 0);
	/* host: generic dirs; the Artifact_Gfxarch False item (fftw3) goes to the host
	 * only; the Artifact_Gfxarch True item looks for "fftkern_lib_gfx_host": nothing */
	o = must("amdrocm-fft-host7.1");
	RK_ASSERT_EQ_INT(2, o->nsources);
	RK_ASSERT_EQ_STR("math-libs/rocFFT/stage", src_line(o, 0, 1));
	RK_ASSERT_EQ_STR("generic", src_dir(o, 0, 1));
	RK_ASSERT_EQ_STR("third-party/fftw3/stage", src_line(o, 1, 1));
	/* device gfx1100: its fft dir and the Artifact_Gfxarch True item's dir */
	o = must("amdrocm-fft7.1-gfx1100");
	RK_ASSERT_EQ_INT(2, o->nsources);
	RK_ASSERT_EQ_STR("gfx1100", src_dir(o, 0, 1));
	RK_ASSERT_EQ_STR("math-libs/kern/stage", src_line(o, 1, 1));
	/* device gfx942: the dir and its xnack variant (blas_lib_gfx942:xnack+ style) */
	o = must("amdrocm-fft7.1-gfx942");
	RK_ASSERT_EQ_INT(2, o->nsources);
	RK_ASSERT_EQ_STR("gfx942", src_dir(o, 0, 1));
	RK_ASSERT_EQ_STR("gfx942:xnack+", src_dir(o, 1, 1));
	/* the subdir Name matches case-insensitively ("rocfft" selects rocFFT/stage) */
	o = must("amdrocm-fft-dev7.1");
	RK_ASSERT_EQ_INT(1, o->nsources);
	RK_ASSERT_EQ_STR("math-libs/rocFFT/stage", src_line(o, 0, 1));
	RK_ASSERT_EQ_INT(0, o->strip);
	/* empty by definition */
	RK_ASSERT_EQ_INT(1, must("amdrocm-fft7.1")->empty);
	RK_ASSERT_EQ_INT(0, must("amdrocm-fft7.1")->nsources);
	RK_ASSERT_EQ_INT(1, must("amdrocm-core7.1-gfx1100")->empty);
	/* Postinstall: the versioned variants of amdrocm-core and -core-devel */
	RK_ASSERT_EQ_INT(1, must("amdrocm-core7.1-gfx1100")->scripts);
	RK_ASSERT_EQ_INT(1, must("amdrocm-core7.1")->scripts);
	RK_ASSERT_EQ_INT(0, must("amdrocm-core")->scripts);
	RK_ASSERT_EQ_INT(0, must("amdrocm-fft7.1")->scripts);
	done();
}

RK_TEST(single_arch_deb)
{
	const struct pkg_out *o;

	make(0, PKG_DEB, 0);
	/* Gfxarch as written: fft-devel is gfx here; the target is the family's first
	 * "-" field, lowercased; ck and developer-tools have no gfx artifacts in kpack
	 * terms but Gfxarch decides */
	expect_names("amdrocm-runtime7.1 amdrocm-runtime amdrocm-fft7.1-gfx94x amdrocm-fft-gfx94x "
		     "amdrocm-fft-dev7.1-gfx94x amdrocm-fft-dev-gfx94x amdrocm-ck7.1-gfx94x "
		     "amdrocm-ck-gfx94x amdrocm-developer-tools7.1 amdrocm-developer-tools "
		     "amdrocm-core7.1-gfx94x amdrocm-core-gfx94x amdrocm-core-dev7.1-gfx94x "
		     "amdrocm-core-dev-gfx94x");
	/* amdrocm-debugger: no artifacts in this run */
	RK_ASSERT_EQ_INT(2, plan.nskipped);
	o = must("amdrocm-fft7.1-gfx94x");
	RK_ASSERT_EQ_STR("gfx94x", o->arch);
	RK_ASSERT_EQ_STR("libc6, amdrocm-runtime7.1", o->depends);
	RK_ASSERT_EQ_INT(2, o->nsources); /* its family dir and the generic fftw3 */
	RK_ASSERT_EQ_STR("gfx94X-dcgpu", src_dir(o, 0, 0));
	RK_ASSERT_EQ_STR("third-party/fftw3/stage", src_line(o, 1, 0));
	RK_ASSERT_EQ_INT(1, o->strip);
	RK_ASSERT_EQ_STR("gfx94x", must("amdrocm-fft-gfx94x")->arch);
	RK_ASSERT_EQ_STR("amdrocm-fft7.1-gfx94x", must("amdrocm-fft-gfx94x")->depends);
	RK_ASSERT_EQ_STR("amdrocm-runtime7.1, amdrocm-fft7.1-gfx94x",
			 must("amdrocm-ck7.1-gfx94x")->depends);
	/* metapackages pin; a dep without artifacts is dropped */
	RK_ASSERT_EQ_STR("amdrocm-runtime7.1" PIN ", amdrocm-fft7.1-gfx94x" PIN
			 ", amdrocm-fft-dev7.1-gfx94x" PIN ", amdrocm-ck7.1-gfx94x" PIN ", libfoo",
			 must("amdrocm-core7.1-gfx94x")->depends);
	RK_ASSERT_EQ_STR("amdrocm-core7.1-gfx94x" PIN, must("amdrocm-core-gfx94x")->depends);
	RK_ASSERT_EQ_STR("amdrocm-developer-tools7.1" PIN,
			 must("amdrocm-developer-tools")->depends);
	/* developer-tools: debugger has no artifacts here, fft is gfx */
	RK_ASSERT_EQ_STR("amdrocm-fft7.1-gfx94x" PIN ", gdb",
			 must("amdrocm-developer-tools7.1")->depends);
	done();
}

RK_TEST(single_arch_rpm_asan)
{
	make(0, PKG_RPM, 1);
	RK_ASSERT_EQ_STR("/opt/rocm/core-asan-7.1", plan.prefix);
	RK_ASSERT(get("amdrocm-fft-asan7.1-gfx94x"));
	/* quirk: the non-versioned name keeps "-asan" without a version */
	RK_ASSERT_EQ_STR("amdrocm-fft-asan7.1-gfx94x", must("amdrocm-fft-asan-gfx94x")->depends);
	RK_ASSERT_EQ_STR("amdrocm-core-devel-asan7.1-gfx94x" RPIN,
			 must("amdrocm-core-devel-asan-gfx94x")->depends);
	/* RPM never strips */
	RK_ASSERT_EQ_INT(0, must("amdrocm-fft-asan7.1-gfx94x")->strip);
	done();
}

RK_TEST(kpack_asan_names)
{
	make(1, PKG_DEB, 1);
	RK_ASSERT(get("amdrocm-fft-host-asan7.1"));
	RK_ASSERT(get("amdrocm-fft-asan7.1-gfx1100"));
	RK_ASSERT(get("amdrocm-fft-asan7.1"));
	RK_ASSERT(get("amdrocm-fft-asan"));
	RK_ASSERT(get("amdrocm-core-dev-asan7.1-gfx942"));
	done();
}

/* the rules that need definitions of their own */
static void plan_of(const char *json, const struct pkg_artdir *dirs, size_t ndirs, int kpack,
		    const char *const *archs, size_t narchs, enum pkg_type type, const char *ver)
{
	struct pkg_run run = {dirs, ndirs, kpack, archs, narchs, ver, "", type, 0};
	struct rk_err err = RK_ERR_INIT;

	RK_ASSERT_EQ_INT(0, parse(json, &defs, &err));
	if (pkg_plan_make(&defs, &run, &plan, &err))
		rk_test_fail(__FILE__, __LINE__, "pkg_plan_make: %s", err.msg);
}

RK_TEST(pin_is_a_prefix_match)
{
	static const char *const l_c[] = {"libc/stage"};
	static const struct pkg_artdir d[] = {DIR("libc", "lib", "generic", l_c)};

	/* a buildable package named "libc" pins the system dep "libc6" of a metapackage;
	 * no version suffix: no "-" */
	plan_of("[{'Package':'libc','Artifactory':[{'Artifact':'libc','Artifact_Subdir':"
		"[{'Name':'libc','Components':['lib']}]}]},"
		"{'Package':'amdrocm-meta','Metapackage':'1','DEBDepends':['libc6','zlib1g']}]",
		d, 1, 0, NULL, 0, PKG_DEB, "7.2.1");
	RK_ASSERT_EQ_STR("libc6( = 7.2.1), zlib1g", must("amdrocm-meta7.2")->depends);
	done();
}

RK_TEST(nongfx_package_with_gfx_dep)
{
	static const char *const l_a[] = {"a/stage"};
	static const struct pkg_artdir d[] = {
		DIR("g", "lib", "generic", l_a), DIR("g", "lib", "gfx1100", l_a),
		DIR("h", "lib", "generic", l_a), DIR("n", "lib", "generic", l_a)};
	static const char *const a[] = {"gfx1100"};

	/* docs 7.3: a non-gfx package's deps go through the device branch of
	 * resolve_versioned_dependencies (the first one generic, the others keeping the
	 * target ""), but before that filter_dependencies_by_artifacts drops every gfx dep,
	 * having no "{a}_{c}_" directory: the malformed "{dep}{MV}-" the doc warns of
	 * cannot appear; the system name passes */
	plan_of("[{'Package':'amdrocm-g','Artifactory':[{'Artifact':'g','Artifact_Subdir':"
		"[{'Name':'a','Components':['lib']}]}]},"
		"{'Package':'amdrocm-h','Artifactory':[{'Artifact':'h','Artifact_Subdir':"
		"[{'Name':'a','Components':['lib']}]}]},"
		"{'Package':'amdrocm-n','DEBDepends':['amdrocm-h','amdrocm-g','libz'],"
		"'DEBRecommends':['amdrocm-h','amdrocm-g'],"
		"'Artifactory':[{'Artifact':'n','Artifact_Subdir':[{'Name':'a','Components':['lib']"
		"}]}]}]",
		d, 4, 1, a, 1, PKG_DEB, "7.1.0");
	RK_ASSERT_EQ_STR("amdrocm-h7.1, libz", must("amdrocm-n7.1")->depends);
	/* Recommends are not filtered: there it appears */
	RK_ASSERT_EQ_STR("amdrocm-h7.1, amdrocm-g7.1-", must("amdrocm-n7.1")->recommends);
	done();
}

RK_TEST(filter_archs_with_artifacts)
{
	static const char *const l_a[] = {"x/a/stage", "", "  "};
	static const char *const l_b[] = {"x/b/stage"};
	static const struct pkg_artdir d[] = {
		DIR("p", "lib", "generic", l_a), DIR("p", "lib", "gfx1100", l_a),
		DIR("p", "lib", "gfx1101", l_b), DIR("p", "lib", "gfx942:xnack-", l_a)};
	static const char *const a[] = {"gfx1100", "gfx1101", "gfx942"};

	/* gfx1101's manifest has no line for subdir "a"; gfx942 only as an xnack variant,
	 * which has_artifact_for_arch does not look at (quirk) although the device takes it */
	plan_of("[{'Package':'amdrocm-p','Artifactory':[{'Artifact':'p','Artifact_Subdir':"
		"[{'Name':'A','Components':['lib']}]}]}]",
		d, 4, 1, a, 3, PKG_RPM, "7.1.0");
	RK_ASSERT_EQ_STR("amdrocm-p-host7.1 = 7.1.0, amdrocm-p7.1-gfx1100 = 7.1.0",
			 must("amdrocm-p7.1")->depends);
	RK_ASSERT_EQ_INT(1, must("amdrocm-p7.1-gfx942")->nsources);
	RK_ASSERT_EQ_INT(0, must("amdrocm-p7.1-gfx1101")->nsources); /* RPM: built empty */
	RK_ASSERT_EQ_INT(1, must("amdrocm-p-host7.1")->nsources); /* blank lines skipped */
	done();
}

RK_TEST(postinstall_needs_patch_version)
{
	/* the maintainer scripts read major.minor.patch; without it the variant fails */
	plan_of("[{'Package':'amdrocm-core','Metapackage':'True','Postinstall':'True'}]", NULL, 0,
		0, NULL, 0, PKG_DEB, "7.1");
	expect_names("amdrocm-core");
	done();
}

RK_TEST(bad_version)
{
	struct pkg_run run = {0};
	struct rk_err err = RK_ERR_INIT;

	RK_ASSERT_EQ_INT(0, parse("[]", &defs, &err));
	run.rocm_version = "7";
	RK_ASSERT_EQ_INT(-EINVAL, pkg_plan_make(&defs, &run, &plan, &err));
	RK_ASSERT(strstr(err.msg, "'7'"));
	run.rocm_version = "x.1.0";
	RK_ASSERT_EQ_INT(-EINVAL, pkg_plan_make(&defs, &run, &plan, &err));
	pkg_defs_release(&defs);
}

RK_TEST(parse_fields)
{
	struct rk_err err = RK_ERR_INIT;
	const struct pkg_def *p;

	RK_ASSERT_EQ_INT(0, parse(defs_json, &defs, &err));
	RK_ASSERT_EQ_INT(10, defs.n);
	p = &defs.defs[2];
	RK_ASSERT_EQ_STR("amdrocm-fft-devel", p->package);
	RK_ASSERT_EQ_INT(1, p->gfxarch); /* key case ignored, value stripped */
	RK_ASSERT_EQ_STR("amd64", p->architecture);
	RK_ASSERT_EQ_STR("x86_64", p->build_arch);
	RK_ASSERT_EQ_STR("", p->maintainer);
	RK_ASSERT_EQ_INT(1, p->provides.n);
	RK_ASSERT_EQ_INT(-1, p->items[0].gfxarch);
	RK_ASSERT_EQ_INT(0, defs.defs[1].items[1].gfxarch);
	RK_ASSERT_EQ_INT(1, defs.defs[1].items[2].gfxarch);
	RK_ASSERT_EQ_INT(1, defs.defs[9].disabled);
	RK_ASSERT_EQ_INT(1, defs.defs[5].meta);
	pkg_defs_release(&defs);
	/* every truthy spelling, and a few that are not */
	static const char *const yes[] = {"1",	"true",	  "T",	     "Yes",   "y",
					  "ON", "enable", "Enabled", "found", " true\\t"};
	static const char *const no[] = {"0", "false", "", "no", "2", "truee", "off"};
	for (size_t i = 0; i < 10 + 7; i++) {
		char j[128];

		snprintf(j, sizeof(j), "[{'Package':'x','Metapackage':'%s'}]",
			 i < 10 ? yes[i] : no[i - 10]);
		RK_ASSERT_EQ_INT(0, parse(j, &defs, &err));
		RK_ASSERT_EQ_INT(i < 10, defs.defs[0].meta);
		pkg_defs_release(&defs);
	}
	/* the last of two keys equal but for case decides (is_key_defined's loop) */
	RK_ASSERT_EQ_INT(
		0, parse("[{'Package':'x','metapackage':'yes','METAPACKAGE':'no'}]", &defs, &err));
	RK_ASSERT_EQ_INT(0, defs.defs[0].meta);
	pkg_defs_release(&defs);
	/* Artifact_Gfxarch: only "true" in any case, or a JSON bool */
	RK_ASSERT_EQ_INT(0, parse("[{'Package':'x','Artifactory':[{'Artifact':'a',"
				  "'Artifact_Gfxarch':'yes','Artifact_Subdir':[]},{'Artifact':'b',"
				  "'Artifact_Gfxarch':true,'Artifact_Subdir':[]}]}]",
				  &defs, &err));
	RK_ASSERT_EQ_INT(0, defs.defs[0].items[0].gfxarch);
	RK_ASSERT_EQ_INT(1, defs.defs[0].items[1].gfxarch);
	pkg_defs_release(&defs);
}

RK_TEST(parse_errors_name_the_entry)
{
	static const struct {
		const char *json, *msg;
	} cases[] = {
		{"{}", "package.json: top level is not a list"},
		{"[1]", "package.json: entry 0: not an object"},
		{"[{'Package':'a'},{'Gfxarch':'True'}]",
		 "package.json: entry 1: 'Package' is missing or not a string"},
		{"[{'Package':'a'},{'Package':'amdrocm-fft','Artifactory':{}}]",
		 "package.json: entry 1 (amdrocm-fft): 'Artifactory' is not a list"},
		{"[{'Package':'a','Gfxarch':true}]",
		 "package.json: entry 0 (a): 'Gfxarch' is not a string"},
		{"[{'Package':'a','DEBDepends':['x',1]}]",
		 "package.json: entry 0 (a): 'DEBDepends' is not a list of strings"},
		{"[{'Package':'a','Summary':1,'Maintainer':2}]",
		 "package.json: entry 0 (a): 'Maintainer' is not a string"},
		{"[{'Package':'a','Artifactory':[{'Artifact_Subdir':[]}]}]",
		 "package.json: entry 0 (a): 'Artifactory' item 0: 'Artifact' is not a string"},
		{"[{'Package':'a','Artifactory':[{'Artifact':'b'}]}]",
		 "package.json: entry 0 (a): 'b': 'Artifact_Subdir' is not a list"},
		{"[{'Package':'a','Artifactory':[{'Artifact':'b','Artifact_Subdir':[{'Name':'c'}]}]"
		 "}]",
		 "package.json: entry 0 (a): 'b': subdir 'c': 'Components' is not a list"},
		{"[{'Package':'a','Artifactory':[{'Artifact':'b','Artifact_Subdir':[{'Components':["
		 "]}]}]}]",
		 "package.json: entry 0 (a): 'b': subdir 0 has no string 'Name'"},
		{"[{'Package':'a'},{'Package':'a'}]",
		 "package.json: entry 1 (a): duplicate 'Package'"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rk_err err = RK_ERR_INIT;

		RK_ASSERT_EQ_INT(-EPROTO, parse(cases[i].json, &defs, &err));
		RK_ASSERT_EQ_STR(cases[i].msg, err.msg);
	}
	{
		struct rk_err err = RK_ERR_INIT;

		RK_ASSERT_EQ_INT(-EPROTO, pkg_defs_parse("[", 1, &defs, &err));
		RK_ASSERT(!strncmp(err.msg, "package.json: line 1: ", 22));
	}
}

/* ---- the built-in definitions over the demo store's two runs ---- */

/* 24205988454-linux: legacy, families gfx110X-all and gfx94X-dcgpu (the artifact names
 * and artifact_manifest.txt lines as stored) */
static const char *const m_llvm_dl[] = {"compiler/amd-llvm/stage", "compiler/amd-comgr/stage",
					"compiler/hipcc/stage"};
static const char *const m_llvm_run[] = {"compiler/amd-llvm/stage", "compiler/hipcc/stage"};
static const char *const m_base_lib[] = {"base/aux-overlay/stage"};
static const char *const m_base_run[] = {"base/aux-overlay/stage", "base/rocm-core/stage"};
static const char *const m_blas[] = {"math-libs/BLAS/hipBLAS-common/stage",
				     "math-libs/BLAS/rocBLAS/stage",
				     "math-libs/BLAS/hipBLASLt/stage"};
static const char *const m_blas_k[] = {"math-libs/BLAS/hipBLASLt/stage",
				       "math-libs/BLAS/rocBLAS/stage"};
static const char *const m_clr[] = {"core/clr/stage"};
static const char *const m_fftw[] = {"third-party/fftw3/stage"};
static const char *const m_rand[] = {"math-libs/rocRAND/stage", "math-libs/hipRAND/stage"};
static const char *const m_rand_k[] = {"math-libs/rocRAND/stage"};
static const char *const m_none[] = {""};

#define GENERIC_DIRS                                                                             \
	DIR("amd-llvm", "dev", "generic", m_llvm_dl), DIR("amd-llvm", "doc", "generic", m_none), \
		DIR("amd-llvm", "lib", "generic", m_llvm_dl),                                    \
		DIR("amd-llvm", "run", "generic", m_llvm_run),                                   \
		DIR("base", "lib", "generic", m_base_lib),                                       \
		DIR("base", "run", "generic", m_base_run),                                       \
		DIR("core-hip", "dev", "generic", m_clr),                                        \
		DIR("core-hip", "doc", "generic", m_none),                                       \
		DIR("core-hip", "lib", "generic", m_clr), DIR("fftw3", "lib", "generic", m_fftw)

static const struct pkg_artdir legacy[] = {
	GENERIC_DIRS,
	DIR("blas", "dev", "gfx110X-all", m_blas),
	DIR("blas", "dev", "gfx94X-dcgpu", m_blas),
	DIR("blas", "lib", "gfx110X-all", m_blas),
	DIR("blas", "lib", "gfx94X-dcgpu", m_blas),
	DIR("blas", "test", "gfx110X-all", m_blas),
	DIR("blas", "test", "gfx94X-dcgpu", m_blas),
	DIR("rand", "dev", "gfx110X-all", m_rand),
	DIR("rand", "dev", "gfx94X-dcgpu", m_rand),
	DIR("rand", "lib", "gfx110X-all", m_rand),
	DIR("rand", "lib", "gfx94X-dcgpu", m_rand),
};

/* 24205988455-linux: kpack-split, gfx1100..gfx1103 and gfx942 (+ rand's gfx942:xnack+) */
static const struct pkg_artdir kpacked[] = {
	GENERIC_DIRS,
	DIR("blas", "dev", "generic", m_blas),
	DIR("blas", "lib", "generic", m_blas),
	DIR("blas", "lib", "gfx1100", m_blas_k),
	DIR("blas", "lib", "gfx1101", m_blas_k),
	DIR("blas", "lib", "gfx1102", m_blas_k),
	DIR("blas", "lib", "gfx1103", m_blas_k),
	DIR("blas", "lib", "gfx942", m_blas_k),
	DIR("blas", "test", "generic", m_blas),
	DIR("rand", "dev", "generic", m_rand),
	DIR("rand", "lib", "generic", m_rand),
	DIR("rand", "lib", "gfx1100", m_rand_k),
	DIR("rand", "lib", "gfx1101", m_rand_k),
	DIR("rand", "lib", "gfx1102", m_rand_k),
	DIR("rand", "lib", "gfx1103", m_rand_k),
	DIR("rand", "lib", "gfx942", m_rand_k),
	DIR("rand", "lib", "gfx942:xnack+", m_rand_k),
};
static const char *const kp_archs[] = {"gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx942"};
static const char *const fam[] = {"gfx110X-all", "gfx94X-dcgpu"};

static void demo(int kpack, enum pkg_type type, size_t family)
{
	struct pkg_run run = {0};
	struct rk_err err = RK_ERR_INIT;

	RK_ASSERT_EQ_INT(0, pkg_defs_parse(pkg_defs_default, pkg_defs_default_len, &defs, &err));
	run.dirs = kpack ? kpacked : legacy;
	run.ndirs =
		kpack ? sizeof(kpacked) / sizeof(kpacked[0]) : sizeof(legacy) / sizeof(legacy[0]);
	run.kpack = kpack;
	run.archs = kpack ? kp_archs : &fam[family];
	run.narchs = kpack ? 5 : 1;
	run.rocm_version = "7.13.0";
	run.version_suffix = "24205988455";
	run.type = type;
	if (pkg_plan_make(&defs, &run, &plan, &err))
		rk_test_fail(__FILE__, __LINE__, "pkg_plan_make: %s", err.msg);
}

RK_TEST(default_defs_parse)
{
	struct rk_err err = RK_ERR_INIT;

	RK_ASSERT_EQ_INT(strlen(pkg_defs_default), pkg_defs_default_len);
	RK_ASSERT_EQ_INT(0, pkg_defs_parse(pkg_defs_default, pkg_defs_default_len, &defs, &err));
	RK_ASSERT(defs.n >= 10);
	pkg_defs_release(&defs);
}

RK_TEST(demo_kpack_run)
{
	const struct pkg_out *o;

	demo(1, PKG_DEB, 0);
	RK_ASSERT(get("amdrocm-base7.13"));
	RK_ASSERT(get("amdrocm-llvm7.13"));
	RK_ASSERT(get("amdrocm-llvm-dev7.13"));
	/* TheRock's set: HIP (the core-hip artifact) is in amdrocm-runtime */
	RK_ASSERT(get("amdrocm-runtime7.13"));
	RK_ASSERT(get("amdrocm-runtime-dev7.13"));
	RK_ASSERT(get("amdrocm-blas-host7.13"));
	RK_ASSERT(get("amdrocm-blas7.13-gfx1103"));
	RK_ASSERT(get("amdrocm-rand7.13-gfx1101"));
	RK_ASSERT(get("amdrocm-core7.13-gfx942"));
	RK_ASSERT(get("amdrocm-core-dev7.13-gfx1100"));
	RK_ASSERT(!get("amdrocm-amdsmi7.13")); /* no core-amdsmi artifact */
	/* no fft artifact: only the test package's fftw3 item, not gfx in kpack terms */
	RK_ASSERT(!get("amdrocm-fft7.13"));
	RK_ASSERT(get("amdrocm-fft-test7.13"));
	RK_ASSERT(!get("amdrocm-fft-test-host7.13"));
	o = must("amdrocm-rand7.13-gfx942");
	RK_ASSERT_EQ_INT(2, o->nsources); /* gfx942 and gfx942:xnack+ */
	RK_ASSERT_EQ_STR("gfx942:xnack+", kpacked[o->sources[1].dir].target);
	RK_ASSERT_EQ_STR("amdrocm-rand-host7.13( = 7.13.0-24205988455), "
			 "amdrocm-rand7.13-gfx1100( = 7.13.0-24205988455), "
			 "amdrocm-rand7.13-gfx1101( = 7.13.0-24205988455), "
			 "amdrocm-rand7.13-gfx1102( = 7.13.0-24205988455), "
			 "amdrocm-rand7.13-gfx1103( = 7.13.0-24205988455), "
			 "amdrocm-rand7.13-gfx942( = 7.13.0-24205988455)",
			 must("amdrocm-rand7.13")->depends);
	/* blas: the generic stage dirs go to the host, the per-target ones to devices */
	RK_ASSERT_EQ_INT(2, must("amdrocm-blas-host7.13")->nsources);
	RK_ASSERT_EQ_INT(2, must("amdrocm-blas7.13-gfx1100")->nsources);
	/* amdrocm-sparse: the blas artifact exists, but no rocSPARSE dir: no content */
	RK_ASSERT(!get("amdrocm-sparse-host7.13"));
	RK_ASSERT_EQ_STR("/opt/rocm/core-7.13", plan.prefix);
	done();
}

RK_TEST(demo_legacy_run)
{
	for (size_t f = 0; f < 2; f++) {
		const char *a = f ? "gfx94x" : "gfx110x";
		char n[64];
		const struct pkg_out *o;

		demo(0, PKG_RPM, f);
		snprintf(n, sizeof(n), "amdrocm-blas7.13-%s", a);
		o = must(n);
		RK_ASSERT_EQ_INT(2, o->nsources); /* blas: lib and run */
		RK_ASSERT_EQ_STR(fam[f], legacy[o->sources[0].dir].target);
		snprintf(n, sizeof(n), "amdrocm-rand-devel7.13-%s", a);
		RK_ASSERT_EQ_INT(2, must(n)->nsources);
		snprintf(n, sizeof(n), "amdrocm-core-%s", a);
		RK_ASSERT(get(n));
		RK_ASSERT(get("amdrocm-llvm7.13"));
		RK_ASSERT_EQ_INT(0, must("amdrocm-llvm7.13")->strip);
		done();
	}
}
