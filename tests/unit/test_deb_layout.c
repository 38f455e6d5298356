/* test_deb_layout.c: control stanzas and .deb packages, read back by dpkg-gencontrol,
 * dpkg-deb, dpkg, tar and lintian. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/packages/deb_layout.h"
#include "formats/packages/pkg_doc.h"
#include "formats/archive/tar_layout.h"
#include "rk_fixture.h"
#include "rk_test.h"

#define T0 1767225600
#define NAME "amdrocm-test7.13-gfx1100"
#define POSTINST "#!/bin/sh\nset -e\ntouch \"$DPKG_ROOT/postinst-ran\"\n"
#define PRERM "#!/bin/sh\nset -e\nrm -f \"$DPKG_ROOT/postinst-ran\"\n"

static const struct rk_pkg_script scripts[] = {{"prerm", PRERM}, {"postinst", POSTINST}};

static struct rk_pkg_meta meta(void)
{
	struct rk_pkg_meta m = {
		.name = NAME,
		.version = "7.13.0~dev20261120",
		.release = "123",
		.arch = "amd64",
		.maintainer = "ROCm Dev Support <rocm-dev.support@amd.com>",
		.summary = "ROCm test library for gfx1100",
		.description =
			"A library used to test the package writer.\n\nIt has two paragraphs.",
		.section = "devel",
		.priority = "optional",
		.homepage = "https://github.com/ROCm/TheRock",
		.license = "",
		.vendor = "",
		.group = "",
		.prefix = "/opt/rocm/core-7.13",
		.depends = "amdrocm-core7.13 (= 7.13.0~dev20261120-123), libc6 | libc6-dev",
		.recommends = "amdrocm-doc",
		.suggests = "",
		.provides = "amdrocm-test",
		.replaces = "amdrocm-test-old",
		.conflicts = "amdrocm-test-old",
		.obsoletes = "",
		.installed_size = 2049, /* 3 KiB */
		.mtime = T0,
		.scripts = scripts,
		.nscripts = 2,
	};

	return m;
}

static const char control_want[] =
	"Package: " NAME "\n"
	"Version: 7.13.0~dev20261120-123\n"
	"Architecture: amd64\n"
	"Maintainer: ROCm Dev Support <rocm-dev.support@amd.com>\n"
	"Installed-Size: 3\n"
	"Depends: amdrocm-core7.13 (= 7.13.0~dev20261120-123), libc6 | libc6-dev\n"
	"Recommends: amdrocm-doc\n"
	"Conflicts: amdrocm-test-old\n"
	"Replaces: amdrocm-test-old\n"
	"Provides: amdrocm-test\n"
	"Section: devel\n"
	"Priority: optional\n"
	"Homepage: https://github.com/ROCm/TheRock\n"
	"Description: ROCm test library for gfx1100\n"
	" A library used to test the package writer.\n"
	" .\n"
	" It has two paragraphs.\n";

RK_TEST(control_text)
{
	struct rk_pkg_meta m = meta();
	char *c = rk_deb_control(&m);

	RK_ASSERT(c != NULL);
	RK_ASSERT_EQ_STR(control_want, c);
	free(c);
	/* no release, no relations, no section: those lines go */
	m.release = m.depends = m.recommends = m.provides = m.replaces = m.conflicts = "";
	m.section = m.homepage = m.description = "";
	m.installed_size = 0;
	c = rk_deb_control(&m);
	RK_ASSERT_EQ_STR("Package: " NAME "\nVersion: 7.13.0~dev20261120\nArchitecture: amd64\n"
			 "Maintainer: ROCm Dev Support <rocm-dev.support@amd.com>\n"
			 "Installed-Size: 0\nPriority: optional\n"
			 "Description: ROCm test library for gfx1100\n",
			 c);
	free(c);
	m.summary = "two\nlines";
	RK_ASSERT(rk_deb_control(&m) == NULL && errno == EINVAL);
	m.summary = "";
	RK_ASSERT(rk_deb_control(&m) == NULL && errno == EINVAL);
}

/* dpkg-gencontrol -p NAME over debian/control with these relation fields (and the
 * changelog) prints *want; rk_deb_control must print the same bytes. */
static void like_gencontrol(const struct rk_pkg_meta *m)
{
	char *c = rk_deb_control(m), *got;

	if (fx_sh("command -v dpkg-gencontrol >/dev/null"))
		RK_SKIP("dpkg-gencontrol is not installed (dpkg-dev)");
	fx_writes("debian/control",
		  "Source: " NAME "\nSection: devel\nPriority: optional\n"
		  "Maintainer: ROCm Dev Support <rocm-dev.support@amd.com>\n"
		  "Build-Depends: debhelper-compat (= 13)\nStandards-Version: 7.13.0\n"
		  "Homepage: https://github.com/ROCm/TheRock\n\n"
		  "Package: " NAME "\nArchitecture: amd64\n");
	fx_sh("for f in Depends:'%s' Recommends:'%s' Suggests:'%s' Provides:'%s' "
	      "Replaces:'%s' Conflicts:'%s'; do case $f in *:) ;; *) echo \"${f%%%%:*}: ${f#*:}\" "
	      ">>debian/control;; esac; done",
	      m->depends, m->recommends, m->suggests, m->provides, m->replaces, m->conflicts);
	fx_sh("printf 'Description: ROCm test library for gfx1100\\n A library used to test the "
	      "package writer.\\n .\\n It has two paragraphs.\\n' >>debian/control");
	fx_writes("debian/changelog",
		  NAME " (7.13.0~dev20261120-123) UNRELEASED; urgency=medium\n\n"
		       "  * Initial release\n\n"
		       " -- ROCm Dev Support <rocm-dev.support@amd.com>  Thu, 01 Jan 2026 "
		       "00:00:00 +0000\n");
	RK_ASSERT_EQ_INT(
		0, fx_sh("dpkg-gencontrol -p%s -Pdebian/pkg -O -VInstalled-Size=3 "
			 ">gencontrol.txt 2>gencontrol.err || { cat gencontrol.err; exit 1; }",
			 NAME));
	got = fx_read("gencontrol.txt", NULL);
	RK_ASSERT_EQ_STR(got, c);
	free(got);
	free(c);
}

/* TheRock builds the stanza with dpkg-buildpackage from debian/control (its template) and
 * debian/changelog: dpkg-gencontrol must print the same bytes. */
RK_TEST(control_like_dpkg_gencontrol)
{
	struct rk_pkg_meta m = meta();

	like_gencontrol(&m);
}

/* The relation strings TheRock's Python writes into debian/control, as pkg_rules.c makes
 * them: "name( = V)", a dropped item's trailing ", ", repeats, unsorted union fields, a
 * dependency on the package itself; dpkg-gencontrol rewrites them all. */
RK_TEST(relations_like_dpkg_gencontrol)
{
	struct rk_pkg_meta m = meta();

	m.depends = "amdrocm-core7.13( = 7.13.0~dev20261120-123), libc6 |libc6-dev, , "
		    "amdrocm-core7.13, " NAME ", zlib1g, zlib1g( >= 1.2) , ";
	m.recommends = "amdrocm-doc, libc6 | libc6-dev, amdrocm-core7.13, amdrocm-extra";
	m.suggests = "amdrocm-extra, amdrocm-more(<< 8)";
	m.provides =
		"amdrocm-test-b, amdrocm-test-a( = 7.13.0-123), amdrocm-test-a, amdrocm-test-b";
	m.replaces = "amdrocm-z, amdrocm-a (>> 1), amdrocm-a";
	m.conflicts = "amdrocm-test-old, , ";
	like_gencontrol(&m);
}

/* A data.tar over two blobs: a plain file and an "ELF" with 8 bytes patched. */
static char readme[3000], lib[5000];

static void data_tar(struct rk_composite *tar, struct rk_composite *elf, char *patched)
{
	char rid[65], lid[65];

	for (size_t i = 0; i < sizeof(readme); i++)
		readme[i] = (char)('A' + i % 23);
	for (size_t i = 0; i < sizeof(lib); i++)
		lib[i] = (char)(i * 13 + 1);
	fx_blob(readme, sizeof(readme), rid);
	fx_blob(lib, sizeof(lib), lid);
	RK_ASSERT_EQ_INT(0, rk_composite_add_source(elf, lid, sizeof(lib), NULL, NULL));
	RK_ASSERT_EQ_INT(0, rk_composite_source(elf, 0, 0, sizeof(lib)));
	RK_ASSERT_EQ_INT(0, rk_composite_write(elf, 4000, "rockfs!!", 8));
	memcpy(patched, lib, sizeof(lib));
	memcpy(patched + 4000, "rockfs!!", 8);
	{
		const struct rk_tar_member tm[] = {
			{.path = "./", .mode = S_IFDIR | 0755},
			{.path = "./opt/", .mode = S_IFDIR | 0755},
			{.path = "./opt/rocm/", .mode = S_IFDIR | 0755},
			{.path = "./opt/rocm/README",
			 .mode = S_IFREG | 0644,
			 .size = sizeof(readme),
			 .blob = rid},
			{.path = "./opt/rocm/lib/", .mode = S_IFDIR | 0755},
			{.path = "./opt/rocm/lib/libtest.so.1",
			 .mode = S_IFREG | 0755,
			 .size = elf->size,
			 .content = elf},
			{.path = "./opt/rocm/lib/libtest.so",
			 .mode = S_IFLNK | 0777,
			 .link = "libtest.so.1"},
		};
		RK_ASSERT_EQ_INT(0, rk_tar_layout_build(tm, sizeof(tm) / sizeof(*tm), T0, tar));
	}
}

/* x.deb (and data.tar) in the test directory; returns the package's composite. */
static void write_deb(const struct rk_pkg_meta *m, struct rk_composite *deb, char *patched)
{
	struct rk_composite tar = RK_COMPOSITE_INIT, elf = RK_COMPOSITE_INIT;
	unsigned char *bytes;

	data_tar(&tar, &elf, patched);
	RK_ASSERT_EQ_INT(0, rk_deb_build(m, &tar, deb));
	RK_ASSERT_EQ_INT(tar.nsources, deb->nsources);
	bytes = fx_composite_read(&tar);
	fx_write("data.tar", bytes, tar.size);
	free(bytes);
	bytes = fx_composite_read(deb);
	fx_write("x.deb", bytes, deb->size);
	free(bytes);
	rk_composite_release(&tar);
	rk_composite_release(&elf);
}

static void need(const char *tool)
{
	if (fx_sh("command -v %s >/dev/null", tool))
		RK_SKIP("%s is not installed", tool);
}

RK_TEST(dpkg_deb_reads_it)
{
	struct rk_pkg_meta m = meta();
	struct rk_composite deb = RK_COMPOSITE_INIT, again = RK_COMPOSITE_INIT;
	char patched[sizeof(lib)], *s, *control = rk_deb_control(&m);
	unsigned char *a, *b;
	struct stat st;
	size_t len;

	need("dpkg-deb");
	write_deb(&m, &deb, patched);
	/* the same input gives the same bytes */
	{
		struct rk_composite tar = RK_COMPOSITE_INIT, elf = RK_COMPOSITE_INIT;
		char p2[sizeof(lib)];

		data_tar(&tar, &elf, p2);
		RK_ASSERT_EQ_INT(0, rk_deb_build(&m, &tar, &again));
		a = fx_composite_read(&deb);
		b = fx_composite_read(&again);
		RK_ASSERT_EQ_INT(deb.size, again.size);
		RK_ASSERT_EQ_MEM(a, b, deb.size);
		free(a), free(b);
		rk_composite_release(&again);
		rk_composite_release(&tar);
		rk_composite_release(&elf);
	}
	/* the ar members dpkg-deb writes, in its order */
	RK_ASSERT_EQ_INT(0, fx_sh("ar t x.deb > members.txt"));
	s = fx_read("members.txt", NULL);
	RK_ASSERT_EQ_STR("debian-binary\ncontrol.tar.gz\ndata.tar\n", s);
	free(s);
	RK_ASSERT_EQ_INT(0, fx_sh("dpkg-deb --info x.deb >&2"));
	RK_ASSERT_EQ_INT(0, fx_sh("dpkg-deb --info x.deb control > control.txt"));
	s = fx_read("control.txt", NULL);
	RK_ASSERT_EQ_STR(control, s);
	free(s);
	RK_ASSERT_EQ_INT(0, fx_sh("dpkg-deb --field x.deb Version > v.txt"));
	s = fx_read("v.txt", NULL);
	RK_ASSERT_EQ_STR("7.13.0~dev20261120-123\n", s);
	free(s);
	RK_ASSERT_EQ_INT(0, fx_sh("dpkg-deb --contents x.deb > contents.txt && cat contents.txt "
				  ">&2 && grep -q ' ./opt/rocm/lib/libtest.so -> libtest.so.1$' "
				  "contents.txt && grep -q '^-rwxr-xr-x 0/0 *5000 .* "
				  "./opt/rocm/lib/libtest.so.1$' contents.txt"));
	/* the filesystem tarball is data.tar, byte for byte; GNU tar lists it */
	RK_ASSERT_EQ_INT(0, fx_sh("dpkg-deb --fsys-tarfile x.deb > fsys.tar && cmp fsys.tar "
				  "data.tar && tar tf fsys.tar > list.txt"));
	s = fx_read("list.txt", NULL);
	RK_ASSERT_EQ_STR("./\n./opt/\n./opt/rocm/\n./opt/rocm/README\n./opt/rocm/lib/\n"
			 "./opt/rocm/lib/libtest.so.1\n./opt/rocm/lib/libtest.so\n",
			 s);
	free(s);
	/* extract: the files' bytes, the patch included */
	RK_ASSERT_EQ_INT(0, fx_sh("dpkg-deb -x x.deb out && dpkg-deb -e x.deb ctl"));
	s = fx_read("out/opt/rocm/README", &len);
	RK_ASSERT_EQ_INT(sizeof(readme), len);
	RK_ASSERT_EQ_MEM(readme, s, len);
	free(s);
	s = fx_read("out/opt/rocm/lib/libtest.so.1", &len);
	RK_ASSERT_EQ_INT(sizeof(lib), len);
	RK_ASSERT_EQ_MEM(patched, s, len);
	free(s);
	s = fx_read("ctl/postinst", NULL);
	RK_ASSERT_EQ_STR(POSTINST, s);
	free(s);
	RK_ASSERT_EQ_INT(0, stat("ctl/postinst", &st));
	RK_ASSERT_EQ_INT(0755, st.st_mode & 07777);
	RK_ASSERT_EQ_INT(0, stat("ctl/control", &st));
	RK_ASSERT_EQ_INT(0644, st.st_mode & 07777);
	/* the control tarball: ./ first, sorted, owned by root, mtime T0, no md5sums */
	RK_ASSERT_EQ_INT(0, fx_sh("ar p x.deb control.tar.gz | tar tvz --full-time "
				  "--numeric-owner > ctl.txt && cat ctl.txt >&2"));
	s = fx_read("ctl.txt", NULL);
	RK_ASSERT(strstr(s, "0/0") && strstr(s, "2026-01-01 00:00:00"));
	RK_ASSERT(strstr(s, " ./\n") < strstr(s, " ./control\n"));
	RK_ASSERT(strstr(s, " ./control\n") < strstr(s, " ./postinst\n"));
	RK_ASSERT(strstr(s, " ./postinst\n") < strstr(s, " ./prerm\n"));
	RK_ASSERT(!strstr(s, "md5sums"));
	free(s);
	free(control);
	rk_composite_release(&deb);
}

RK_TEST(bad_scripts)
{
	struct rk_pkg_meta m = meta();
	struct rk_composite tar = RK_COMPOSITE_INIT, out = RK_COMPOSITE_INIT;
	const struct rk_pkg_script twice[] = {{"postinst", "a"}, {"postinst", "b"}};
	const struct rk_pkg_script odd[] = {{"../control", "a"}};

	RK_ASSERT_EQ_INT(0, rk_composite_zero(&tar, 10240));
	m.scripts = twice;
	RK_ASSERT_EQ_INT(-EINVAL, rk_deb_build(&m, &tar, &out));
	m.scripts = odd;
	m.nscripts = 1;
	RK_ASSERT_EQ_INT(-EINVAL, rk_deb_build(&m, &tar, &out));
	m.nscripts = 0;
	RK_ASSERT_EQ_INT(0, rk_deb_build(&m, &tar, &out));
	/* magic, 3 headers, debian-binary, control.tar.gz (padded even), data.tar */
	RK_ASSERT(out.size > 8 + 3 * 60 + 4 + 10240 && out.size % 2 == 0);
	RK_ASSERT(!memcmp(out.arena, "!<arch>\ndebian-binary   ", 24));
	rk_composite_release(&out);
	rk_composite_release(&tar);
}

/* dpkg installs it into an empty root (scripts run outside a chroot, with DPKG_ROOT),
 * then removes it. */
RK_TEST(dpkg_installs_it)
{
	struct rk_pkg_meta m = meta();
	struct rk_composite deb = RK_COMPOSITE_INIT;
	char patched[sizeof(lib)], *s;
	size_t len;

	need("dpkg");
	write_deb(&m, &deb, patched);
	fx_mkdirs("root/var/lib/dpkg/info");
	fx_mkdirs("root/var/lib/dpkg/updates");
	fx_writes("root/var/lib/dpkg/status", "");
	RK_ASSERT_EQ_INT(0, fx_sh("dpkg --root=%s/root --force-not-root --force-script-chrootless "
				  "--force-depends --log=/dev/null -i x.deb >&2",
				  rk_test_dir()));
	s = fx_read("root/opt/rocm/lib/libtest.so.1", &len);
	RK_ASSERT_EQ_INT(sizeof(lib), len);
	RK_ASSERT_EQ_MEM(patched, s, len);
	free(s);
	RK_ASSERT_EQ_INT(0, access("root/postinst-ran", F_OK));
	RK_ASSERT_EQ_INT(0, fx_sh("dpkg --root=%s/root -s %s | grep -qx 'Status: install ok "
				  "installed'",
				  rk_test_dir(), NAME));
	RK_ASSERT_EQ_INT(0, fx_sh("dpkg --root=%s/root --force-not-root --force-script-chrootless "
				  "--log=/dev/null -r %s >&2",
				  rk_test_dir(), NAME));
	RK_ASSERT(access("root/postinst-ran", F_OK) != 0);
	RK_ASSERT(access("root/opt/rocm/lib/libtest.so.1", F_OK) != 0);
	rk_composite_release(&deb);
}

/* lintian, offline: reported, not enforced (the package is not a Debian one: /opt, no
 * changelog, no copyright). It must run and parse the package. */
RK_TEST(lintian_runs)
{
	struct rk_pkg_meta m = meta();
	struct rk_composite deb = RK_COMPOSITE_INIT;
	char patched[sizeof(lib)];
	int rc;

	need("lintian");
	write_deb(&m, &deb, patched);
	rc = fx_sh("lintian --no-cfg --allow-root --fail-on none x.deb > lintian.txt 2>&1; rc=$?; "
		   "cat lintian.txt >&2; exit $rc");
	/* --fail-on none: not 0 only when lintian itself failed */
	RK_ASSERT_EQ_INT(0, rc);
	RK_ASSERT_EQ_INT(0, fx_sh("! grep -E 'E: .*(malformed|unpack|corrupt|bad-ar|"
				  "tar-errors|control-file-is-empty)' lintian.txt"));
	rk_composite_release(&deb);
}

/* The changelog every DEB owns: TheRock's template/debian_changelog.j2 as Jinja renders it
 * (deb_package.py's context; the date email.utils.format_datetime of the time), no newline
 * at the end; gzip'd without name or time, the same bytes each time. */
RK_TEST(changelog_like_therock)
{
	struct rk_pkg_meta m = meta();
	char *text = rk_deb_changelog(&m, T0), *path = rk_deb_changelog_path(&m);
	void *gz = NULL, *gz2 = NULL;
	size_t n = 0, n2 = 0;

	RK_ASSERT_EQ_STR(NAME " (7.13.0~dev20261120-123) UNRELEASED; urgency=medium\n"
			      "  * Initial release\n"
			      "\n"
			      " -- ROCm Dev Support <rocm-dev.support@amd.com>  "
			      "Thu, 01 Jan 2026 00:00:00 +0000",
			 text);
	RK_ASSERT_EQ_STR("share/doc/" NAME "/changelog.Debian.gz", path);
	RK_ASSERT_EQ_INT(0, rk_deb_changelog_gz(&m, T0, &gz, &n));
	RK_ASSERT_EQ_INT(0, rk_deb_changelog_gz(&m, T0, &gz2, &n2));
	RK_ASSERT_EQ_INT((int)n, (int)n2);
	RK_ASSERT_EQ_MEM(gz, gz2, n);
	fx_write("changelog.gz", gz, n);
	RK_ASSERT_EQ_INT(0, fx_sh("gzip -dc changelog.gz > changelog.txt"));
	free(gz2);
	gz2 = fx_read("changelog.txt", &n2);
	RK_ASSERT_EQ_INT((int)strlen(text), (int)n2);
	RK_ASSERT_EQ_MEM(text, gz2, n2);
	/* upstream's split of the maintainer: blanks around the name and the mail dropped */
	m.maintainer = "  A B  < a@b > ";
	free(text);
	text = rk_deb_changelog(&m, 0);
	RK_ASSERT(strstr(text, "\n -- A B <a@b>  Thu, 01 Jan 1970 00:00:00 +0000"));
	m.version = "";
	RK_ASSERT(!rk_deb_changelog(&m, 0) && errno == EINVAL);
	free(text);
	free(path);
	free(gz);
	free(gz2);
}
