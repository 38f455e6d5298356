/* test_pkg_version.c: the DEB and RPM versions of TheRock's release types
 * (formats/packages/pkg_version.h).
 *
 * One table in PEP 440 order (ascending): a wheel version, the build's day, and the DEB
 * and RPM versions we make of it. table: the strings; order_*: every pair (i < j) ordered
 * the same way by the real tools when installed (skip otherwise): dpkg --compare-versions,
 * rpm's own rpm.vercmp, and packaging.version (PEP 440 itself, checking the table). Two
 * dev builds of one base differ only in their local label (the commit), which PEP 440
 * compares as text: the table picks hashes that sort as their days do, since ours order
 * dev builds by day (docs/packages.md, "Versions"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "formats/packages/pkg_version.h"
#include "rk_test.h"

static const struct {
	const char *wheel, *date, *deb, *rpm;
} table[] = {
	{"7.12.0", "20250101", "7.12.0", "7.12.0"},
	{"7.13.0.dev0+1111f689a8ea40232f3f6be1ec958354b1083490", "20251120", "7.13.0~~dev20251120",
	 "7.13.0~~20251120g1111f689"},
	/* a dev build dated after the nightlies below still sorts under them */
	{"7.13.0.dev0+efed3c3b10a5cce8578f58f8eb288582c26d18c4", "20251129", "7.13.0~~dev20251129",
	 "7.13.0~~20251129gefed3c3b"},
	{"7.13.0a20251121", "20251121", "7.13.0~20251121", "7.13.0~a20251121"},
	{"7.13.0a20251121+bkc.20251125", "20251125", "7.13.0~20251121.bkc.20251125",
	 "7.13.0~a20251121.bkc.20251125"},
	{"7.13.0a20251128", "20251128", "7.13.0~20251128", "7.13.0~a20251128"},
	{"7.13.0rc1", "20251201", "7.13.0~pre1", "7.13.0~rc1"},
	{"7.13.0rc2", "20251202", "7.13.0~pre2", "7.13.0~rc2"},
	{"7.13.0rc10", "20251210", "7.13.0~pre10", "7.13.0~rc10"},
	{"7.13.0", "20251215", "7.13.0", "7.13.0"},
	{"7.13.1.dev0+0000aaaa", "20251101", "7.13.1~~dev20251101", "7.13.1~~20251101g0000aaaa"},
	{"7.14.0a20251001", "20251001", "7.14.0~20251001", "7.14.0~a20251001"},
	{"10.1.0a20260811", "20260811", "10.1.0~20260811", "10.1.0~a20260811"},
	{"10.1.0a20260811+bkc.20260814", "20260814", "10.1.0~20260811.bkc.20260814",
	 "10.1.0~a20260811.bkc.20260814"},
	{"10.1.0a20260812", "20260812", "10.1.0~20260812", "10.1.0~a20260812"},
};
#define N (sizeof(table) / sizeof(table[0]))

static char *ver(size_t i, enum pkg_type type)
{
	char *v = pkg_version_from_wheel(table[i].wheel, table[i].date, NULL, type);

	RK_ASSERT(v);
	return v;
}

RK_TEST(table)
{
	for (size_t i = 0; i < N; i++) {
		char *d = ver(i, PKG_DEB), *r = ver(i, PKG_RPM);

		RK_ASSERT_EQ_STR(table[i].deb, d);
		RK_ASSERT_EQ_STR(table[i].rpm, r);
		free(d);
		free(r);
	}
}

RK_TEST(kinds)
{
	static const struct {
		const char *wheel;
		enum pkg_vkind kind;
	} k[] = {
		{"7.13.0", PKG_V_FINAL},
		{"7.13.0rc2", PKG_V_RC},
		{"7.13.0a20251121", PKG_V_NIGHTLY},
		{"7.13.0a20251121+bkc.20251125", PKG_V_BKC},
		{"7.13.0.dev0+abc", PKG_V_DEV},
		{"7.13.0.dev0", PKG_V_DEV},
		{"7.13.0rc", PKG_V_OTHER},
		{"7.13.0a", PKG_V_OTHER},
		{"7.13.0.post1", PKG_V_OTHER},
		{"", PKG_V_OTHER},
	};
	size_t n;
	const char *rest;

	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		RK_ASSERT_EQ_INT(k[i].kind, pkg_version_kind(k[i].wheel, &n, &rest));
}

RK_TEST(dev_commit)
{
	static const struct {
		const char *wheel, *commit, *deb, *rpm;
	} c[] = {
		/* no hash in the wheel version (--custom-version-suffix=.dev0): the manifest's */
		{"7.13.0.dev0", "f689a8ea40232f3f6be1ec958354b108349023ff", "7.13.0~~dev20251203",
		 "7.13.0~~20251203gf689a8ea"},
		{"7.13.0.dev0", NULL, "7.13.0~~dev20251203", "7.13.0~~20251203"},
		{"7.13.0.dev0+abc1234", "f689a8ea", "7.13.0~~dev20251203",
		 "7.13.0~~20251203gabc1234"},
		{"7.13.0.dev0+local.x", "", "7.13.0~~dev20251203", "7.13.0~~20251203"},
		/* what none of upstream's release types makes keeps its X.Y.Z */
		{"7.10.0rc", NULL, "7.10.0", "7.10.0"},
		{"7.10.0.post1", NULL, "7.10.0", "7.10.0"},
		{"", NULL, "", ""},
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char *d = pkg_version_from_wheel(c[i].wheel, "20251203", c[i].commit, PKG_DEB);
		char *r = pkg_version_from_wheel(c[i].wheel, "20251203", c[i].commit, PKG_RPM);

		RK_ASSERT_EQ_STR(c[i].deb, d);
		RK_ASSERT_EQ_STR(c[i].rpm, r);
		free(d);
		free(r);
	}
}

static int have(const char *tool)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", tool);
	return system(cmd) == 0;
}

/* the shell's status of a command (the versions hold only [0-9a-z.~+]: no quoting needed) */
#define RUN(...)                                           \
	({                                                 \
		char cmd_[512];                            \
		int st_;                                   \
		snprintf(cmd_, sizeof(cmd_), __VA_ARGS__); \
		st_ = system(cmd_);                        \
		RK_ASSERT(st_ != -1 && WIFEXITED(st_));    \
		WEXITSTATUS(st_);                          \
	})

/* every pair i < j, with the revision / release upstream gives (the run id) */
RK_TEST(order_dpkg)
{
	if (!have("dpkg"))
		RK_SKIP("dpkg is not installed");
	for (size_t i = 0; i < N; i++)
		for (size_t j = i + 1; j < N; j++) {
			char *a = ver(i, PKG_DEB), *b = ver(j, PKG_DEB);

			if (RUN("dpkg --compare-versions '%s-24205988455' lt '%s-24205988454'", a,
				b)) {
				fprintf(stderr, "dpkg: %s is not lower than %s\n", a, b);
				RK_ASSERT(0);
			}
			free(a);
			free(b);
		}
}

RK_TEST(order_rpm)
{
	if (!have("rpm"))
		RK_SKIP("rpm is not installed");
	for (size_t i = 0; i < N; i++)
		for (size_t j = i + 1; j < N; j++) {
			char *a = ver(i, PKG_RPM), *b = ver(j, PKG_RPM);

			/* rpm.vercmp: -1, 0, 1 (rpm's own rpmvercmp, what dnf orders by) */
			if (RUN("test \"$(rpm --eval '%%{lua: print(rpm.vercmp(\"%s-24205988455\", "
				"\"%s-24205988454\"))}')\" = -1",
				a, b)) {
				fprintf(stderr, "rpm: %s is not lower than %s\n", a, b);
				RK_ASSERT(0);
			}
			free(a);
			free(b);
		}
}

/* the table itself is in PEP 440 order (packaging.version, python3-packaging) */
RK_TEST(order_pep440)
{
	if (system("/usr/bin/python3 -c 'import packaging.version' >/dev/null 2>&1"))
		RK_SKIP("python3-packaging is not installed");
	for (size_t i = 0; i + 1 < N; i++)
		if (RUN("/usr/bin/python3 -c 'import sys; from packaging.version import Version as "
			"V; "
			"sys.exit(not V(\"%s\") < V(\"%s\"))'",
			table[i].wheel, table[i + 1].wheel)) {
			fprintf(stderr, "PEP 440: %s is not lower than %s\n", table[i].wheel,
				table[i + 1].wheel);
			RK_ASSERT(0);
		}
}
