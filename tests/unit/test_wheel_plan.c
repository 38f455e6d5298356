/* test_wheel_plan.c: the python view's pure planning (views/python/wheel_plan.h): which
 * artifacts go into which synthesized package (therock-formats.md 6.2) for kpack-split
 * and legacy runs, which files a runtime wheel leaves out, the rpath entries per package,
 * the console scripts declared from the members a wheel holds, the wheels' names, and the
 * relative paths of stubs and soname links. */
#include <string.h>

#include "rk/buf.h"
#include "views/python/wheel_plan.h"
#include "rk_test.h"

RK_TEST(core_artifacts)
{
	RK_ASSERT(pyplan_wanted("core-hip", "lib", "generic", PKG_CORE, 1, NULL, NULL));
	RK_ASSERT(pyplan_wanted("core-hip", "dev", "generic", PKG_CORE, 1, NULL, NULL));
	RK_ASSERT(!pyplan_wanted("base", "dev", "generic", PKG_CORE, 1, NULL, NULL));
	RK_ASSERT(pyplan_wanted("base", "run", "generic", PKG_CORE, 0, NULL, NULL));
	RK_ASSERT(!pyplan_wanted("rocjitsu-hotswap", "run", "generic", PKG_CORE, 1, NULL, NULL));
	RK_ASSERT(pyplan_wanted("rocjitsu-hotswap", "lib", "generic", PKG_CORE, 1, NULL, NULL));
	RK_ASSERT(!pyplan_wanted("blas", "lib", "generic", PKG_CORE, 1, NULL, NULL));
}

RK_TEST(libraries_and_device_artifacts)
{
	/* kpack-split: the generic libraries; the device code goes into device wheels */
	RK_ASSERT(pyplan_wanted("blas", "lib", "generic", PKG_LIBRARIES, 1, NULL, NULL));
	RK_ASSERT(!pyplan_wanted("blas", "lib", "gfx1100", PKG_LIBRARIES, 1, NULL, NULL));
	RK_ASSERT(!pyplan_wanted("blas", "dev", "generic", PKG_LIBRARIES, 1, NULL, NULL));
	RK_ASSERT(pyplan_wanted("blas", "lib", "gfx1100", PKG_DEVICE, 1, NULL, "gfx1100"));
	RK_ASSERT(!pyplan_wanted("blas", "lib", "gfx1100", PKG_DEVICE, 1, NULL, "gfx942"));
	RK_ASSERT(!pyplan_wanted("blas", "lib", "generic", PKG_DEVICE, 1, NULL, "gfx1100"));
	RK_ASSERT(!pyplan_wanted("rpp", "lib", "gfx1100", PKG_DEVICE, 1, NULL, "gfx1100"));
	/* legacy: one libraries wheel per family, with its family's fat artifacts */
	RK_ASSERT(pyplan_wanted("blas", "lib", "gfx110X-all", PKG_LIBRARIES, 0, "gfx110X-all",
				NULL));
	RK_ASSERT(!pyplan_wanted("blas", "lib", "gfx94X-dcgpu", PKG_LIBRARIES, 0, "gfx110X-all",
				 NULL));
	RK_ASSERT(pyplan_wanted("blas", "lib", "generic", PKG_LIBRARIES, 0, "gfx110X-all", NULL));
}

RK_TEST(devel_and_profiler_artifacts)
{
	RK_ASSERT(pyplan_wanted("core-hip", "dev", "generic", PKG_DEVEL, 1, NULL, NULL));
	RK_ASSERT(pyplan_wanted("prim", "dev", "generic", PKG_DEVEL, 1, NULL, NULL));
	RK_ASSERT(!pyplan_wanted("core-hip", "test", "generic", PKG_DEVEL, 1, NULL, NULL));
	RK_ASSERT(pyplan_wanted("core-hip", "test", "generic", PKG_DEVEL, 0, NULL, NULL));
	/* libhipcxx, rocshmem, hipthreads: split runs only */
	RK_ASSERT(pyplan_wanted("rocshmem", "dev", "generic", PKG_DEVEL, 1, NULL, NULL));
	RK_ASSERT(!pyplan_wanted("rocshmem", "dev", "generic", PKG_DEVEL, 0, "gfx110X-all", NULL));
	RK_ASSERT(pyplan_wanted("blas", "dev", "gfx110X-all", PKG_DEVEL, 0, "gfx110X-all", NULL));
	RK_ASSERT(!pyplan_wanted("blas", "dev", "gfx1100", PKG_DEVEL, 1, NULL, NULL));
	RK_ASSERT(!pyplan_wanted("unknown", "dev", "generic", PKG_DEVEL, 1, NULL, NULL));
	RK_ASSERT(pyplan_wanted("rocprofiler-compute", "run", "generic", PKG_PROFILER, 1, NULL,
				NULL));
	RK_ASSERT(!pyplan_wanted("rocprofiler-compute", "dev", "generic", PKG_PROFILER, 1, NULL,
				 NULL));
	RK_ASSERT(!pyplan_wanted("rocprofiler-sdk", "lib", "generic", PKG_PROFILER, 1, NULL,
				 NULL));
}

RK_TEST(files_left_out)
{
	/* core: cmake directories and the profiler's files */
	RK_ASSERT(pyplan_excluded(PKG_CORE, "lib/cmake", 1));
	RK_ASSERT(!pyplan_excluded(PKG_CORE, "lib/cmake", 0));
	RK_ASSERT(pyplan_excluded(PKG_CORE, "bin/rocprof-sys-run", 0));
	RK_ASSERT(pyplan_excluded(PKG_CORE, "share/doc/rocprofiler-systems/x.md", 0));
	RK_ASSERT(!pyplan_excluded(PKG_CORE, "bin/hipcc", 0));
	RK_ASSERT(!pyplan_excluded(PKG_CORE, "bin", 1));
	/* profiler: its files alone; directories are walked */
	RK_ASSERT(!pyplan_excluded(PKG_PROFILER, "bin/rocprof-compute", 0));
	RK_ASSERT(!pyplan_excluded(PKG_PROFILER, "lib/rocprofiler-compute/a/b.py", 0));
	RK_ASSERT(pyplan_excluded(PKG_PROFILER, "bin/hipcc", 0));
	RK_ASSERT(!pyplan_excluded(PKG_PROFILER, "lib/cmake", 1));
	/* libraries: everything */
	RK_ASSERT(!pyplan_excluded(PKG_LIBRARIES, "lib/cmake", 1));
	RK_ASSERT(!pyplan_excluded(PKG_LIBRARIES, "bin/rocprof-sys-run", 0));
	RK_ASSERT(pyplan_not_a_program("include/hip/hip.h"));
	RK_ASSERT(pyplan_not_a_program("lib/x.hsaco"));
	RK_ASSERT(!pyplan_not_a_program("lib/libamdhip64.so.7"));
}

RK_TEST(rpath_entries)
{
	const char *const *r = pyplan_rpath(PKG_CORE);

	RK_ASSERT(r && !strcmp(r[0], "lib/llvm/lib") && !strcmp(r[1], "lib/rocm_sysdeps/lib") &&
		  !r[2]);
	r = pyplan_rpath(PKG_LIBRARIES);
	RK_ASSERT(r && !strcmp(r[0], "lib") && !strcmp(r[2], "lib/host-math/lib") && r[3] && !r[4]);
	r = pyplan_rpath(PKG_PROFILER);
	RK_ASSERT(r && !strcmp(r[0], "lib") && r[2] && !r[3]);
	r = pyplan_rpath(PKG_DEVICE);
	RK_ASSERT(r && !strcmp(r[1], "lib/rocm_sysdeps/lib") && !r[2]);
	RK_ASSERT(pyplan_rpath(PKG_DEVEL) == NULL);
}

static int has(void *ctx, const char *member)
{
	for (const char *const *m = ctx; *m; m++)
		if (!strcmp(*m, member))
			return 1;
	return 0;
}

RK_TEST(console_scripts)
{
	const char *const core[] = {"_rocm_sdk_core/bin/hipcc", "_rocm_sdk_core/lib/llvm/bin/amdclang++",
				    NULL};
	const char *const prof[] = {"_rocm_profiler/bin/rocprof-sys-run", NULL};
	const char *const none[] = {NULL};
	struct rk_buf b = RK_BUF_INIT;

	RK_ASSERT_EQ_INT(0, pyplan_entry_points(PKG_CORE, "_rocm_sdk_core", has, (void *)core, &b));
	RK_ASSERT_EQ_STR("[console_scripts]\n"
			 "amdclang++ = rocm_sdk_core._cli:amdclangpp\n"
			 "hipcc = rocm_sdk_core._cli:hipcc\n",
			 b.buf);
	b.len = 0;
	RK_ASSERT_EQ_INT(0, pyplan_entry_points(PKG_PROFILER, "_rocm_profiler", has, (void *)prof,
						&b));
	RK_ASSERT_EQ_STR("[console_scripts]\nrocprof-sys-run = rocm_profiler._cli:rocprof_sys_run\n",
			 b.buf);
	b.len = 0;
	b.buf[0] = '\0';
	RK_ASSERT_EQ_INT(0, pyplan_entry_points(PKG_CORE, "_rocm_sdk_core", has, (void *)none, &b));
	RK_ASSERT_EQ_INT(0, (int)b.len);
	rk_buf_release(&b);
}

RK_TEST(names_and_paths)
{
	struct pyplan_names n;
	char out[256];

	pyplan_names(PKG_CORE, NULL, &n);
	RK_ASSERT_EQ_STR("rocm-sdk-core", n.dist);
	RK_ASSERT_EQ_STR("rocm_sdk_core", n.pure);
	RK_ASSERT_EQ_STR("_rocm_sdk_core", n.platform);
	pyplan_names(PKG_LIBRARIES, "gfx110X-all", &n);
	RK_ASSERT_EQ_STR("rocm-sdk-libraries-gfx110X-all", n.dist);
	RK_ASSERT_EQ_STR("rocm_sdk_libraries_gfx110X-all", n.pure);
	RK_ASSERT_EQ_STR("_rocm_sdk_libraries_gfx110X_all", n.platform);
	pyplan_names(PKG_PROFILER, NULL, &n);
	RK_ASSERT_EQ_STR("_rocm_profiler", n.platform);
	pyplan_relpath("bin", "lib/llvm/bin/clang", out, sizeof(out));
	RK_ASSERT_EQ_STR("../lib/llvm/bin/clang", out);
	pyplan_relpath("lib/llvm/bin", "lib/llvm/bin/clang", out, sizeof(out));
	RK_ASSERT_EQ_STR("clang", out);
	pyplan_relpath("", "lib/x", out, sizeof(out));
	RK_ASSERT_EQ_STR("lib/x", out);
	RK_ASSERT(pyplan_plain_word("7.13.0a20260101"));
	RK_ASSERT(!pyplan_plain_word("7.1'3"));
	RK_ASSERT(!pyplan_plain_word(""));
}
