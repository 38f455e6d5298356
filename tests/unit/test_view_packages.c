/* test_view_packages.c: RUN/packages/ of the demo store through the public API, with the
 * packages view's options unset and set (packages_multiarch, packages=FILE, sign_key),
 * and the options refused at rk_vfs_open (at the door: a package.json that does not
 * parse, a key that cannot sign). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk/vfs.h"
#include "fx_views.h"
#include "rk_fixture.h"
#include "rk_test.h"

#define PK "/" FX_LEGACY "/packages/"
#define POOL PK "deb/pool/main/"
#define RPMS PK "rpm/x86_64/"
/* the demo runs' package versions: dev builds of 2026-01-01 (mkdemo.py's MTIME) */
#define V "7.13.0~~dev-"
#define VR "7.13.0~~dev-"

static int exists(struct rk_vfs *v, const char *path)
{
	struct rk_attr a;

	return !rk_vfs_resolve(v, path, &a, NULL);
}

/* The source tree's packaging/packages.json (the built-in definitions). */
static const char *builtin_defs(void)
{
	static char path[4096];
	const char *slash = strrchr(__FILE__, '/');

	snprintf(path, sizeof(path), "%.*s/../../packaging/packages.json", (int)(slash - __FILE__),
		 __FILE__);
	return path;
}

RK_TEST(legacy_run_single_arch)
{
	struct rk_vfs *v = fx_demo_open("cache", NULL, 0);
	char *ls = fx_ls(v, PK), *buf;
	size_t len;

	RK_ASSERT_EQ_STR("README deb/ rpm/", ls);
	free(ls);
	/* one package set per family, named by it */
	ls = fx_ls(v, POOL);
	RK_ASSERT(fx_has(ls, "amdrocm-base7.13_" V "24205988454_amd64.deb"));
	RK_ASSERT(fx_has(ls, "amdrocm-blas7.13-gfx110x_" V "24205988454_amd64.deb"));
	RK_ASSERT(fx_has(ls, "amdrocm-rand-dev-gfx94x_" V "24205988454_amd64.deb"));
	RK_ASSERT(!fx_has(ls, "amdrocm-blas-host7.13_" V "24205988454_amd64.deb"));
	RK_ASSERT(!fx_has(ls, "amdrocm-blas7.13-gfx1100_" V "24205988454_amd64.deb"));
	free(ls);
	buf = fx_cat(v, POOL "amdrocm-base7.13_" V "24205988454_amd64.deb", &len);
	RK_ASSERT(len > 1000);
	RK_ASSERT_EQ_MEM("!<arch>\ndebian-binary   ", buf, 24);
	free(buf);
	ls = fx_ls(v, RPMS);
	RK_ASSERT(fx_has(ls, "amdrocm-blas-devel7.13-gfx94x-" VR "24205988454.x86_64.rpm"));
	RK_ASSERT(fx_has(ls, "repodata/"));
	free(ls);
	buf = fx_cat(v, RPMS "amdrocm-base7.13-" VR "24205988454.x86_64.rpm", &len);
	RK_ASSERT_EQ_MEM("\xed\xab\xee\xdb", buf, 4); /* the RPM lead */
	free(buf);
	/* unsigned without sign_key */
	ls = fx_ls(v, PK "deb/dists/stable/");
	RK_ASSERT_EQ_STR("main/ Release", ls);
	free(ls);
	RK_ASSERT(!exists(v, PK "deb/dists/stable/InRelease"));
	RK_ASSERT(!exists(v, RPMS "repodata/repomd.xml.asc"));
	ls = fx_ls(v, RPMS "repodata/");
	RK_ASSERT_EQ_STR("primary.xml.gz filelists.xml.gz other.xml.gz repomd.xml", ls);
	free(ls);
	buf = fx_cat(v, PK "deb/dists/stable/Release", &len);
	RK_ASSERT(strstr(buf, "\nSuite: stable\n"));
	RK_ASSERT(strstr(buf, " main/binary-amd64/Packages\n"));
	free(buf);
	fx_vfs_close(v);
}

RK_TEST(multiarch)
{
	static const struct rk_vfs_opt m[] = {{.name = "packages_multiarch"}};
	struct rk_vfs *v = fx_demo_open("cache", m, 1);
	char *ls = fx_ls(v, POOL);

	/* the legacy run as the multi-arch set, from its kpack split */
	RK_ASSERT(fx_has(ls, "amdrocm-blas-host7.13_" V "24205988454_amd64.deb"));
	RK_ASSERT(fx_has(ls, "amdrocm-blas7.13-gfx1100_" V "24205988454_amd64.deb"));
	RK_ASSERT(fx_has(ls, "amdrocm-rand7.13-gfx942_" V "24205988454_amd64.deb"));
	RK_ASSERT(!fx_has(ls, "amdrocm-blas7.13-gfx110x_" V "24205988454_amd64.deb"));
	free(ls);
	/* a kpack-split run is the multi-arch set either way */
	ls = fx_ls(v, "/" FX_KPACKED "/packages/deb/pool/main/");
	RK_ASSERT(fx_has(ls, "amdrocm-blas-host7.13_" V "24205988455_amd64.deb"));
	free(ls);
	fx_vfs_close(v);
	v = fx_demo_open("cache", NULL, 0);
	ls = fx_ls(v, "/" FX_KPACKED "/packages/deb/pool/main/");
	RK_ASSERT(fx_has(ls, "amdrocm-blas-host7.13_" V "24205988455_amd64.deb"));
	free(ls);
	fx_vfs_close(v);
}

RK_TEST(definitions_file)
{
	struct rk_vfs_opt d[] = {{.name = "packages", .value = "defs.json"}};
	struct rk_vfs *v;
	char *ls, *buf;
	size_t len;

	/* the built-in definitions but amdrocm-base */
	RK_ASSERT_EQ_INT(0, fx_sh("python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); "
				  "json.dump([p for p in d if p[\"Package\"]==\"amdrocm-base\"], "
				  "open(\"defs.json\",\"w\"))' '%s'",
				  builtin_defs()));
	v = fx_demo_open("cache", d, 1);
	ls = fx_ls(v, POOL);
	RK_ASSERT_EQ_STR("amdrocm-base7.13_" V "24205988454_amd64.deb amdrocm-base_" V
			 "24205988454_amd64.deb",
			 ls);
	free(ls);
	buf = fx_cat(v, POOL "amdrocm-base7.13_" V "24205988454_amd64.deb", &len);
	RK_ASSERT_EQ_MEM("!<arch>\n", buf, 8);
	free(buf);
	fx_vfs_close(v);
	/* the built-in file given is the default */
	d[0].value = builtin_defs();
	v = fx_demo_open("cache", d, 1);
	ls = fx_ls(v, POOL);
	RK_ASSERT(fx_has(ls, "amdrocm-blas7.13-gfx110x_" V "24205988454_amd64.deb"));
	free(ls);
	fx_vfs_close(v);
}

RK_TEST(options_refused)
{
	struct rk_vfs_opt o = {.name = "packages", .value = "bad.json"};
	char msg[512];

	/* at the door, with the check's own message naming the file */
	fx_writes("bad.json", "[{\"Package\": 3}]\n");
	RK_ASSERT(fx_demo_refused(&o, 1, msg, sizeof(msg)) < 0);
	RK_ASSERT(strstr(msg, "bad.json"));
	o.value = "missing.json";
	RK_ASSERT(fx_demo_refused(&o, 1, msg, sizeof(msg)) < 0);
	RK_ASSERT(strstr(msg, "missing.json"));
	/* a key that cannot sign: "<label>: why" */
	o = (struct rk_vfs_opt){.name = "sign_key", .value = "nobody@rockfs.invalid"};
	RK_ASSERT(fx_demo_refused(&o, 1, msg, sizeof(msg)) < 0);
	RK_ASSERT(!strncmp(msg, "sign_key: ", 10));
	o.label = "packages: --sign-key";
	RK_ASSERT(fx_demo_refused(&o, 1, msg, sizeof(msg)) < 0);
	RK_ASSERT(!strncmp(msg, "packages: --sign-key: ", 22));
	o = (struct rk_vfs_opt){.name = "sign_key", .value = ""};
	RK_ASSERT_EQ_INT(-EINVAL, fx_demo_refused(&o, 1, msg, sizeof(msg)));
	RK_ASSERT_EQ_STR("sign_key: needs a value", msg);
}
