/* test_apt_index.c: pool paths, Packages and Release, checked against dpkg-scanpackages,
 * gzip and apt-get over a file: repository in the test directory. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <openssl/evp.h>

#include "formats/packages/apt_index.h"
#include "formats/packages/deb_layout.h"
#include "formats/archive/tar_layout.h"
#include "rk_fixture.h"
#include "rk_test.h"

#define T0 1767225600 /* Thu, 01 Jan 2026 00:00:00 UTC */

static struct rk_pkg_meta meta(const char *name, const char *depends)
{
	struct rk_pkg_meta m = {
		.name = name,
		.version = "7.13.0~dev20261120",
		.release = "5",
		.arch = "amd64",
		.maintainer = "ROCm Dev Support <rocm-dev.support@amd.com>",
		.summary = "ROCm test package",
		.description = "A package of the test repository.",
		.section = "devel",
		.priority = "optional",
		.homepage = "https://github.com/ROCm/TheRock",
		.license = "",
		.vendor = "",
		.group = "",
		.prefix = "/opt/rocm",
		.depends = depends,
		.recommends = "",
		.suggests = "",
		.provides = "",
		.replaces = "",
		.conflicts = "",
		.obsoletes = "",
		.installed_size = 6,
		.mtime = T0,
	};

	return m;
}

RK_TEST(pool_path)
{
	struct rk_pkg_meta m = meta("amdrocm-fft7.13", "");
	char *p = rk_apt_pool_path(&m);

	RK_ASSERT_EQ_STR(
		"pool/main/a/amdrocm-fft7.13/amdrocm-fft7.13_7.13.0~dev20261120-5_amd64.deb", p);
	free(p);
	m.name = "libfoo1";
	m.release = "";
	p = rk_apt_pool_path(&m);
	RK_ASSERT_EQ_STR("pool/main/libf/libfoo1/libfoo1_7.13.0~dev20261120_amd64.deb", p);
	free(p);
	m.name = "lib";
	m.version = "1:2.0"; /* an epoch is not part of the file name */
	p = rk_apt_pool_path(&m);
	RK_ASSERT_EQ_STR("pool/main/l/lib/lib_2.0_amd64.deb", p);
	free(p);
}

RK_TEST(release_text)
{
	const struct rk_apt_release_info r = {"rockfs", "rockfs", "ROCm packages", T0};
	const struct rk_apt_file f[] = {{"main/binary-amd64/Packages", "", 0},
					{"main/binary-amd64/Packages.gz", "abc", 3}};
	char *out;
	size_t len;

	RK_ASSERT_EQ_INT(0, rk_apt_release(&r, f, 2, &out, &len));
	RK_ASSERT_EQ_INT(strlen(out), len);
	RK_ASSERT_EQ_STR(
		"Origin: rockfs\nLabel: rockfs\nSuite: stable\nCodename: stable\n"
		"Architectures: amd64\nComponents: main\nDescription: ROCm packages\n"
		"Date: Thu, 01 Jan 2026 00:00:00 UTC\n"
		"MD5Sum:\n"
		" d41d8cd98f00b204e9800998ecf8427e                0 main/binary-amd64/Packages\n"
		" 900150983cd24fb0d6963f7d28e17f72                3 main/binary-amd64/Packages.gz\n"
		"SHA1:\n"
		" da39a3ee5e6b4b0d3255bfef95601890afd80709                0 "
		"main/binary-amd64/Packages\n"
		" a9993e364706816aba3e25717850c26c9cd0d89d                3 "
		"main/binary-amd64/Packages.gz\n"
		"SHA256:\n"
		" e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855                "
		"0 "
		"main/binary-amd64/Packages\n"
		" ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad                "
		"3 "
		"main/binary-amd64/Packages.gz\n",
		out);
	free(out);
}

static void hex(const EVP_MD *md, const void *p, size_t n, char *out)
{
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned int dn = 0;

	RK_ASSERT(EVP_Digest(p, n, d, &dn, md, NULL));
	for (unsigned int i = 0; i < dn; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

struct pkg {
	struct rk_pkg_meta meta;
	char *path;
	uint64_t size;
	char md5[33], sha1[41], sha256[65];
};

/* The package's .deb in the pool: one file, /opt/rocm/share/<name>.txt. */
static void make_deb(struct pkg *p)
{
	struct rk_composite text = RK_COMPOSITE_INIT, tar = RK_COMPOSITE_INIT;
	struct rk_composite deb = RK_COMPOSITE_INIT;
	char fpath[128];
	unsigned char *bytes;

	snprintf(fpath, sizeof(fpath), "./opt/rocm/share/%s.txt", p->meta.name);
	RK_ASSERT_EQ_INT(0, rk_composite_bytes(&text, "hello\n", 6));
	{
		const struct rk_tar_member tm[] = {
			{.path = "./", .mode = S_IFDIR | 0755},
			{.path = "./opt/", .mode = S_IFDIR | 0755},
			{.path = "./opt/rocm/", .mode = S_IFDIR | 0755},
			{.path = "./opt/rocm/share/", .mode = S_IFDIR | 0755},
			{.path = fpath, .mode = S_IFREG | 0644, .size = 6, .content = &text},
		};
		RK_ASSERT_EQ_INT(0, rk_tar_layout_build(tm, 5, T0, &tar));
	}
	RK_ASSERT_EQ_INT(0, rk_deb_build(&p->meta, &tar, &deb));
	bytes = fx_composite_read(&deb);
	p->path = rk_apt_pool_path(&p->meta);
	RK_ASSERT(p->path != NULL);
	fx_write(fx_path("repo/%s", p->path), bytes, deb.size);
	p->size = deb.size;
	hex(EVP_md5(), bytes, deb.size, p->md5);
	hex(EVP_sha1(), bytes, deb.size, p->sha1);
	hex(EVP_sha256(), bytes, deb.size, p->sha256);
	free(bytes);
	rk_composite_release(&deb);
	rk_composite_release(&tar);
	rk_composite_release(&text);
}

/* repo/: two packages (libamdtest1 depends on amdrocm-core7.13 of its version), the
 * indexes; returns the Packages text. */
static char *make_repo(struct pkg *p)
{
	struct rk_apt_entry e[2];
	const struct rk_apt_release_info r = {"rockfs", "rockfs", "rockfs test repository", T0};
	struct rk_apt_file f[2];
	char *packages, *release;
	void *gz;
	size_t plen, gzlen, rlen;

	p[0].meta = meta("amdrocm-core7.13", "");
	p[1].meta = meta("libamdtest1", "amdrocm-core7.13 (= 7.13.0~dev20261120-5)");
	for (int i = 0; i < 2; i++) {
		make_deb(&p[i]);
		e[i] = (struct rk_apt_entry){&p[i].meta, p[i].path, p[i].size,
					     p[i].md5,	 p[i].sha1, p[i].sha256};
	}
	RK_ASSERT_EQ_INT(0, rk_apt_packages(e, 2, &packages, &plen));
	RK_ASSERT_EQ_INT(strlen(packages), plen);
	RK_ASSERT_EQ_INT(0, rk_deb_gzip(packages, plen, &gz, &gzlen));
	fx_write("repo/dists/stable/main/binary-amd64/Packages", packages, plen);
	fx_write("repo/dists/stable/main/binary-amd64/Packages.gz", gz, gzlen);
	f[0] = (struct rk_apt_file){"main/binary-amd64/Packages", packages, plen};
	f[1] = (struct rk_apt_file){"main/binary-amd64/Packages.gz", gz, gzlen};
	RK_ASSERT_EQ_INT(0, rk_apt_release(&r, f, 2, &release, &rlen));
	fx_write("repo/dists/stable/Release", release, rlen);
	free(release);
	free(gz);
	return packages;
}

static void free_repo(struct pkg *p)
{
	for (int i = 0; i < 2; i++)
		free(p[i].path);
}

static void need(const char *tool)
{
	if (fx_sh("command -v %s >/dev/null", tool))
		RK_SKIP("%s is not installed", tool);
}

/* dpkg-scanpackages reads the .debs and writes the same Packages file; gzip -d gives it
 * back from Packages.gz, which has gzip -n's header. */
RK_TEST(packages_like_dpkg_scanpackages)
{
	struct pkg p[2];
	char *packages, *want;
	unsigned char *gz;
	size_t len;

	need("dpkg-scanpackages");
	packages = make_repo(p);
	RK_ASSERT_EQ_INT(0, fx_sh("cd repo && dpkg-scanpackages pool > ../scan.txt 2>../scan.err "
				  "|| { cat ../scan.err; exit 1; }"));
	want = fx_read("scan.txt", NULL);
	RK_ASSERT_EQ_STR(want, packages);
	free(want);
	RK_ASSERT_EQ_INT(0,
			 fx_sh("gzip -dc repo/dists/stable/main/binary-amd64/Packages.gz | cmp - "
			       "repo/dists/stable/main/binary-amd64/Packages"));
	gz = (unsigned char *)fx_read("repo/dists/stable/main/binary-amd64/Packages.gz", &len);
	RK_ASSERT(len > 10 && gz[0] == 0x1f && gz[1] == 0x8b);
	RK_ASSERT_EQ_MEM("\x08\x00\x00\x00\x00\x00\x02\x03", gz + 2, 8); /* no name, mtime 0 */
	free(gz);
	free(packages);
	free_repo(p);
}

/* apt-get, sandboxed in the test directory, reads the repository: update, a simulated
 * install that resolves the dependency, and a download whose files are the pool's. */
RK_TEST(apt_get_reads_repo)
{
	const char *d = rk_test_dir();
	struct pkg p[2];
	char *s;

	need("apt-get");
	free(make_repo(p));
	fx_mkdirs("apt/etc/apt/apt.conf.d");
	fx_mkdirs("apt/etc/apt/preferences.d");
	fx_mkdirs("apt/var/lib/apt/lists/partial");
	fx_mkdirs("apt/var/cache/apt/archives/partial");
	fx_writes("apt/status", "");
	fx_writes("apt/sources.list", fx_path("deb [trusted=yes] copy:%s/repo stable main\n", d));
	fx_writes(
		"apt.sh",
		fx_path("exec apt-get -o Dir=%s/apt -o Dir::State::status=%s/apt/status "
			"-o Dir::Etc::sourcelist=%s/apt/sources.list -o Dir::Etc::sourceparts=- "
			"-o Dir::Etc::main=/dev/null -o Dir::Etc::parts=%s/apt/etc/apt/apt.conf.d "
			"-o APT::Get::List-Cleanup=0 -o Debug::NoLocking=1 "
			"-o APT::Architecture=amd64 -o APT::Sandbox::User=root "
			"-o Acquire::Languages=none \"$@\"\n",
			d, d, d, d));
	RK_ASSERT_EQ_INT(0, fx_sh("sh apt.sh update > update.txt 2>&1; rc=$?; cat update.txt >&2; "
				  "[ $rc = 0 ] && ! grep -E '^(W|E):' update.txt"));
	RK_ASSERT_EQ_INT(0, fx_sh("sh apt.sh -s install libamdtest1 > sim.txt 2>&1; rc=$?; "
				  "cat sim.txt >&2; exit $rc"));
	s = fx_read("sim.txt", NULL);
	RK_ASSERT(strstr(s, "Inst amdrocm-core7.13 (7.13.0~dev20261120-5 rockfs:stable [amd64])"));
	RK_ASSERT(strstr(s, "Inst libamdtest1 (7.13.0~dev20261120-5 rockfs:stable [amd64])"));
	free(s);
	RK_ASSERT_EQ_INT(0, fx_sh("sh apt.sh -y install --download-only libamdtest1 >&2"));
	for (int i = 0; i < 2; i++) {
		const char *base = strrchr(p[i].path, '/') + 1;
		char file[256];

		/* copy: (not file:) makes apt copy them into its archives; a version's
		 * ":" would be "%3a" in the name (there is none here) */
		snprintf(file, sizeof(file), "apt/var/cache/apt/archives/%s", base);
		RK_ASSERT_EQ_INT(0, fx_sh("cmp %s repo/%s", file, p[i].path));
	}
	free_repo(p);
}
