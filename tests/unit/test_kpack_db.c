/* test_kpack_db.c: rocm-kpack's database handler rules (kpack-format.md 4.2). The paths
 * are the examples in upstream's handler docstrings (rocm-systems shared/kpack 0d72d1c),
 * relative to the prefix root as upstream's handlers see them; most run with every handler
 * in registry order, the last tests with the sets a split asks for. */
#include <stdio.h>
#include <string.h>

#include "rk/kpack_db.h"
#include "rk_test.h"

#define HASH64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static void want(const char *path, const char *handler, const char *arch)
{
	char got[RK_TARGET_MAX] = "unset";
	const char *h = rk_kpack_db_classify(path, &rk_kpack_db_all, got);

	if (!handler) {
		if (h)
			rk_test_fail(__FILE__, __LINE__, "'%s': expected generic, got %s %s", path,
				     h, got);
		return;
	}
	if (!h)
		rk_test_fail(__FILE__, __LINE__, "'%s': expected %s %s, got generic", path, handler,
			     arch);
	if (strcmp(h, handler) || strcmp(got, arch))
		rk_test_fail(__FILE__, __LINE__, "'%s': expected %s %s, got %s %s", path, handler,
			     arch, h, got);
}

RK_TEST(tensile_flat)
{
	want("lib/rocblas/library/TensileLibrary_lazy_gfx1100.dat", "rocblas", "gfx1100");
	want("lib/rocblas/library/Kernels.so-000-gfx90a-xnack+.hsaco", "rocblas", "gfx90a");
	want("lib/rocblas/library/TensileLibrary_Type_HH_gfx942-xnack-.co", "rocblas", "gfx942");
	want("lib/hipblaslt/library/extop_gfx950.co", "hipblaslt", "gfx950");
	want("lib/hipsparselt/library/TensileLibrary_gfx1201.dat", "hipsparselt", "gfx1201");
	want("lib/rocblas/library/TensileLibrary_gfx1250-strict.co", "rocblas", "gfx1250-strict");
	/* No arch in the name, or not a Tensile suffix: generic. */
	want("lib/rocblas/library/TensileLibrary_fallback.dat", NULL, NULL);
	want("lib/rocblas/library/TensileManifest_gfx942.txt", NULL, NULL);
	want("lib/rocblas/library/.co", NULL, NULL);
	want("lib/rocblas/TensileLibrary_gfx942.co", NULL, NULL);
	want("lib/librocblas.so.5", NULL, NULL);
	/* The leftmost gfx token wins. */
	want("lib/rocblas/library/gfxx_gfx908_gfx90a.co", "rocblas", "gfx908");
}

RK_TEST(tensile_arch_dirs)
{
	want("lib/rocblas/library/gfx942/TensileManifest.txt", "rocblas", "gfx942");
	want("lib/hipblaslt/library/gfx90a-xnack+/TensileLibrary_fallback.dat", "hipblaslt",
	     "gfx90a");
	want("p/stage/lib/hipsparselt/library/gfx1100/sub/x.bin", "hipsparselt", "gfx1100");
	/* The file name is not a directory. */
	want("lib/rocblas/library/gfx942", NULL, NULL);
	want("lib/rocblas/library/gfx942x-y/a.txt", NULL, NULL);
	want("lib/rocblas/library/notgfx/a.txt", NULL, NULL);
	/* Flat name first: the file's arch wins over the directory's. */
	want("lib/rocblas/library/gfx942/TensileLibrary_gfx950.co", "rocblas", "gfx950");
}

RK_TEST(aotriton)
{
	want("lib/aotriton.images/amd-gfx942/flash/attn_fwd/kernel.aks2", "aotriton", "gfx942");
	want("lib/aotriton.images/amd-gfx11xx/flash/bwd_kernel_dk_dv/kernel.aks2", "aotriton",
	     "gfx11");
	want("lib/aotriton.images/amd-gfx110x/flash/x.aks2", "aotriton", "gfx110x");
	want("lib/aotriton.images/amd-gfx120x/flash/x.aks2", "aotriton", "gfx12_0");
	want("stage/lib/aotriton.images/amd-gfx950/x", "aotriton", "gfx950");
	want("lib/aotriton.images/gfx942/x.aks2", NULL, NULL);
	want("lib/aotriton.images", NULL, NULL);
	/* The older rocm-kpack layout is no longer a database (the handler TheRock runs has
	 * only aotriton.images). */
	want("lib/aotriton/kernels/gfx90a/attn.hsaco", NULL, NULL);
	want("lib/aotriton/kernels/common/attn.hsaco", NULL, NULL);
}

RK_TEST(miopen)
{
	want("share/miopen/db/gfx942130.db.txt", "miopen", "gfx942");
	want("share/miopen/db/gfx90878.HIP.fdb.txt", "miopen", "gfx908");
	want("share/miopen/db/gfx1030_36.db.txt", "miopen", "gfx1030");
	want("share/miopen/db/gfx908_ConvAsm1x1U_decoder.ktn.model", "miopen", "gfx908");
	want("share/miopen/db/gfx90a.tn.model", "miopen", "gfx90a");
	want("share/miopen/db/gfx1250-strict68.kdb", "miopen", "gfx1250-strict");
	want("share/miopen/db/gfx1234.kdb", NULL, NULL);
	want("share/miopen/db/gfx942.txt", NULL, NULL);
	want("share/miopen/gfx942130.db.txt", NULL, NULL);
	/* CK per-arch libraries, anywhere. */
	want("lib/libMIOpenCKGroupConv_gfx942.so", "miopen", "gfx942");
	want("bin/MIOpenCKConv_fwd_gfx90a-xnack+.dll", "miopen", "gfx90a");
	want("lib/libMIOpenCKGroupConv_gfx942.so.1.0", "miopen", "gfx942");
	want("lib/libMIOpenCK_gfx942.so", NULL, NULL);
	want("lib/libMIOpenCKConv_gfx942x_y.so", NULL, NULL);
	want("lib/libMIOpen.so", NULL, NULL);
}

RK_TEST(composablekernel)
{
	want("lib/libdevice_conv_operations_gfx942.a", "composablekernel", "gfx942");
	want("lib/libdevice_conv_operations_gfx950_xnackp.a", "composablekernel", "gfx950");
	want("lib/device_conv_operations_gfx90a_sramecc__xnack_.lib", "composablekernel", "gfx90a");
	want("lib/libdevice_conv_operations_gfx1250_strict.a", "composablekernel",
	     "gfx1250-strict");
	want("lib/libdevice_conv_operations.a", NULL, NULL);
	want("lib/libdevice_conv_operations_gfx942.a.bak", NULL, NULL);
	want("lib/libdevice_conv_operations_gfx942_xnackq.a", NULL, NULL);
}

RK_TEST(hipkernelprovider)
{
	want("lib/hipdnn_plugins/engines/arch_content/hip-kernel-provider/gfx942/k.co",
	     "hipkernelprovider", "gfx942");
	want("lib/hipdnn_plugins/engines/arch_content/rocke/gfx950/a/b.bin", "hipkernelprovider",
	     "gfx950");
	want("x/engines/test_arch_content/hip-kernel-provider/unit/shared/gfx1100/t.co",
	     "hipkernelprovider", "gfx1100");
	want("lib/engines/arch_content/gfx90a-xnack+/k.co", "hipkernelprovider", "gfx90a");
	want("lib/engines/arch_content/gfx942", NULL, NULL);
	want("lib/engines/arch_content/common/k.co", NULL, NULL);
	want("lib/plugins/arch_content/gfx942/k.co", NULL, NULL);
}

RK_TEST(hotswap_cache)
{
	want("share/rocjitsu/translations/gfx1250-b0-a0/v1/" HASH64 ".man", "hotswap_cache",
	     "gfx1250");
	want("share/rocjitsu/translations/gfx1250-b0-a0/v1/" HASH64 ".obj", "hotswap_cache",
	     "gfx1250");
	/* exactly six components below the prefix root, as upstream */
	want("core/runtime/stage/share/rocjitsu/translations/gfx1250-b0-a0/v1/" HASH64 ".obj", NULL,
	     NULL);
	want("share/rocjitsu/translations/gfx1250-b0-a0/v1/" HASH64 ".obj/x", NULL, NULL);
	want("share/rocjitsu/translations/gfx942/v1/" HASH64 ".man", NULL, NULL);
	want("share/rocjitsu/translations/gfx1250-b0-a0/v2/" HASH64 ".man", NULL, NULL);
	want("share/rocjitsu/translations/gfx1250-b0-a0/v1/" HASH64 ".txt", NULL, NULL);
	want("share/rocjitsu/translations/gfx1250-b0-a0/v1/X" HASH64 ".man", NULL, NULL);
	want("rocjitsu/translations/gfx1250-b0-a0/v1/" HASH64 ".man", NULL, NULL);
}

RK_TEST(first_match_wins)
{
	/* A MIOpen CK library under a rocBLAS library dir is rocBLAS's only by name. */
	want("lib/rocblas/library/gfx942/libMIOpenCKx_gfx90a.so", "rocblas", "gfx942");
	/* aotriton comes before miopen. */
	want("share/miopen/db/aotriton.images/amd-gfx950/gfx942130.db.txt", "aotriton", "gfx950");
}

RK_TEST(long_and_odd_paths)
{
	char path[512], arch[RK_TARGET_MAX];

	snprintf(path, sizeof(path), "lib/rocblas/library/TensileLibrary_gfx%0100d.co", 1);
	RK_ASSERT(!rk_kpack_db_classify(path, &rk_kpack_db_all, arch));
	RK_ASSERT(!rk_kpack_db_classify("", &rk_kpack_db_all, arch));
	RK_ASSERT(!rk_kpack_db_classify("/", &rk_kpack_db_all, arch));
	RK_ASSERT(!rk_kpack_db_classify("gfx942", &rk_kpack_db_all, arch));
	RK_ASSERT(!rk_kpack_db_classify("////", &rk_kpack_db_all, arch));
}

static void want_set(const char *names, const char *path, const char *handler, const char *arch)
{
	struct rk_kpack_db_set set = {{0}, 0};
	char buf[200], got[RK_TARGET_MAX] = "unset", *save = NULL;
	const char *h;

	snprintf(buf, sizeof(buf), "%s", names);
	for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		RK_ASSERT(rk_kpack_db_handler(w) >= 0);
		rk_kpack_db_set_add(&set, rk_kpack_db_handler(w));
	}
	h = rk_kpack_db_classify(path, &set, got);
	if (!handler ? h != NULL : !h || strcmp(h, handler) || strcmp(got, arch))
		rk_test_fail(__FILE__, __LINE__, "[%s] '%s': expected %s %s, got %s %s", names,
			     path, handler ? handler : "generic", arch ? arch : "",
			     h ? h : "generic", h ? got : "");
}

/* Only the handlers asked for run (split_artifacts --split-databases; TheRock's
 * split_databases per artifact): a file the others would take stays generic. */
RK_TEST(only_asked_handlers)
{
	want_set("", "lib/rocblas/library/TensileLibrary_gfx942.co", NULL, NULL);
	want_set("hipblaslt", "lib/rocblas/library/TensileLibrary_gfx942.co", NULL, NULL);
	want_set("rocblas hipblaslt hipsparselt", "lib/rocblas/library/TensileLibrary_gfx942.co",
		 "rocblas", "gfx942");
	want_set("rocblas hipblaslt hipsparselt", "lib/aotriton.images/amd-gfx11xx/k.aks2", NULL,
		 NULL);
	want_set("miopen", "lib/libdevice_conv_operations_gfx950_strict.a", NULL, NULL);
	want_set("composablekernel", "lib/libdevice_conv_operations_gfx950_strict.a",
		 "composablekernel", "gfx950-strict");
	want_set("miopen", "share/miopen/db/gfx942130.db.txt", "miopen", "gfx942");
	want_set("hotswap_cache", "share/rocjitsu/translations/gfx1250-b0-a0/v1/" HASH64 ".man",
		 "hotswap_cache", "gfx1250");
}

/* The first handler in the order asked wins (upstream builds its list in CLI order). */
RK_TEST(asked_order_wins)
{
	const char *p = "share/miopen/db/aotriton.images/amd-gfx950/gfx942130.db.txt";

	want_set("aotriton miopen", p, "aotriton", "gfx950");
	want_set("miopen aotriton", p, "miopen", "gfx942");
	p = "lib/rocblas/library/gfx942/libMIOpenCKx_gfx90a.so";
	want_set("rocblas miopen", p, "rocblas", "gfx942");
	want_set("miopen rocblas", p, "miopen", "gfx90a");
}

RK_TEST(handler_names)
{
	static const char *const names[] = {"rocblas",		 "hipblaslt",	 "hipsparselt",
					    "aotriton",		 "miopen",	 "composablekernel",
					    "hipkernelprovider", "hotswap_cache"};
	struct rk_kpack_db_set set = {{0}, 0};

	for (int i = 0; i < RK_KPACK_DB_NHANDLERS; i++) {
		RK_ASSERT_EQ_INT(i, rk_kpack_db_handler(names[i]));
		RK_ASSERT_EQ_STR(names[i], rk_kpack_db_name(i));
		RK_ASSERT_EQ_INT(i, rk_kpack_db_all.h[i]);
	}
	RK_ASSERT_EQ_INT(-1, rk_kpack_db_handler("hip-kernel-provider-asm"));
	RK_ASSERT_EQ_INT(-1, rk_kpack_db_handler("ROCBLAS"));
	RK_ASSERT(!rk_kpack_db_name(RK_KPACK_DB_NHANDLERS));
	rk_kpack_db_set_add(&set, 4);
	rk_kpack_db_set_add(&set, 0);
	rk_kpack_db_set_add(&set, 4);
	rk_kpack_db_set_add(&set, 99);
	RK_ASSERT_EQ_INT(2, set.n);
	RK_ASSERT_EQ_INT(4, set.h[0]);
	RK_ASSERT_EQ_INT(0, set.h[1]);
}
