/* test_rpm_layout.c: packages from rk_rpm_build and repodata from rk_rpm_repodata_build,
 * checked with the real tools: rpm (query, -K, install), rpm2cpio + cpio, rpmbuild (the
 * same package built from a spec, compared tag by tag), createrepo_c (the oracle of the
 * repodata) and dnf (installs from a repository with our repodata). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk/hash.h"
#include "rk_fixture.h"
#include "rk_test.h"
#include "formats/packages/rpm_layout.h"
#include "formats/packages/rpm_repodata.h"

#define PREFIX "/opt/rocm/core-7.13"
#define T0 1767225600

static const char *const contents[] = {"#!/bin/sh\necho hi\n", "hello\n", "second part\n"};

/* Test sources are found by content id (sha256 of the bytes). */
static ssize_t read_source(void *ctx, uint32_t src, void *buf, size_t n, uint64_t off)
{
	const struct rk_composite *c = ctx;
	char id[RK_SHA256_HEX];

	RK_ASSERT(src < c->nsources);
	for (size_t i = 0; i < sizeof(contents) / sizeof(contents[0]); i++) {
		size_t len = strlen(contents[i]);

		RK_ASSERT_EQ_INT(0, rk_sha256_buf(contents[i], len, id));
		if (strcmp(id, c->sources[src].id))
			continue;
		if (off >= len)
			return 0;
		if (n > len - off)
			n = len - off;
		memcpy(buf, contents[i] + off, n);
		return (ssize_t)n;
	}
	rk_test_fail(__FILE__, __LINE__, "unknown source %u", src);
}

static char ids[3][RK_SHA256_HEX];
static char ab_digest[RK_SHA256_HEX], empty_digest[RK_SHA256_HEX];
static struct rk_composite ab = RK_COMPOSITE_INIT; /* lib/a.txt: "hello\nsecond part\n" */

static const struct rk_pkg_script scripts[] = {{"postinst", "echo post"}, {"prerm", "echo preun"}};

static struct rk_pkg_meta meta(const char *name, const char *depends, int with_scripts)
{
	struct rk_pkg_meta m = {
		.name = name,
		.version = "7.13.0~dev1",
		.release = "123",
		.arch = "x86_64",
		.maintainer = "ROCm <rocm@amd.com>",
		.summary = "A test package",
		.description = "Long description & <more>.",
		.section = "",
		.priority = "",
		.homepage = "https://example.com",
		.license = "MIT",
		.vendor = "AMD",
		.group = "System Environment/Libraries",
		.prefix = PREFIX,
		.depends = depends,
		.recommends = "rec1",
		.suggests = "sug1",
		.provides = "virt1",
		.replaces = "",
		.conflicts = "bad1",
		.obsoletes = "old1 < 2",
		.mtime = T0,
		.scripts = with_scripts ? scripts : NULL,
		.nscripts = with_scripts ? 2 : 0,
	};
	return m;
}

/* The files of every test package: blobs, a composite, a symlink, an empty file. */
static size_t files(struct rk_rpm_file *f)
{
	uint32_t s;

	for (int i = 0; i < 3; i++)
		RK_ASSERT_EQ_INT(0, rk_sha256_buf(contents[i], strlen(contents[i]), ids[i]));
	rk_composite_release(&ab);
	RK_ASSERT_EQ_INT(0, rk_composite_add_source(&ab, ids[1], 6, NULL, &s));
	RK_ASSERT_EQ_INT(0, rk_composite_source(&ab, s, 0, 6));
	RK_ASSERT_EQ_INT(0, rk_composite_add_source(&ab, ids[2], 12, NULL, &s));
	RK_ASSERT_EQ_INT(0, rk_composite_source(&ab, s, 0, 12));
	RK_ASSERT_EQ_INT(0, rk_sha256_buf("hello\nsecond part\n", 18, ab_digest));
	RK_ASSERT_EQ_INT(0, rk_sha256_buf("", 0, empty_digest));
	f[0] = (struct rk_rpm_file){.path = PREFIX, .mode = S_IFDIR | 0755, .mtime = T0};
	f[1] = (struct rk_rpm_file){.path = PREFIX "/bin", .mode = S_IFDIR | 0755, .mtime = T0};
	f[2] = (struct rk_rpm_file){.path = PREFIX "/bin/tool",
				    .mode = S_IFREG | 0755,
				    .size = strlen(contents[0]),
				    .mtime = T0,
				    .digest = ids[0],
				    .blob = ids[0]};
	f[3] = (struct rk_rpm_file){.path = PREFIX "/lib", .mode = S_IFDIR | 0755, .mtime = T0};
	f[4] = (struct rk_rpm_file){.path = PREFIX "/lib/a.txt",
				    .mode = S_IFREG | 0644,
				    .size = 18,
				    .mtime = T0,
				    .digest = ab_digest,
				    .content = &ab};
	f[5] = (struct rk_rpm_file){
		.path = PREFIX "/lib/b.txt", .mode = S_IFLNK | 0777, .mtime = T0, .link = "a.txt"};
	f[6] = (struct rk_rpm_file){.path = PREFIX "/lib/empty",
				    .mode = S_IFREG | 0644,
				    .mtime = T0,
				    .digest = empty_digest};
	return 7;
}

/* Build the package and write it to path; returns its info. */
static struct rk_rpm_info write_pkg(const struct rk_pkg_meta *m, const char *path)
{
	struct rk_rpm_file f[8];
	size_t n = files(f);
	struct rk_composite c;
	struct rk_rpm_info info;
	char *bytes;

	RK_ASSERT_EQ_INT(0, rk_rpm_build(m, f, n, &c, &info));
	bytes = malloc(c.size);
	RK_ASSERT(bytes != NULL);
	/* read in odd pieces: random access */
	for (uint64_t off = 0; off < c.size; off += 1000)
		RK_ASSERT(rk_composite_pread(&c, read_source, &c, bytes + off,
					     c.size - off < 1000 ? c.size - off : 1000, off) > 0);
	{
		uint64_t start = info.header_end;
		char sha[RK_SHA256_HEX];

		/* the payload digest: the one pass over every byte, the caller's */
		RK_ASSERT_EQ_INT(0, rk_sha256_buf(bytes + start, c.size - start, sha));
		RK_ASSERT_EQ_INT(0, rk_rpm_set_payload_digest(&c, &info, sha));
		RK_ASSERT_EQ_INT(c.size - start, info.payload_size);
		RK_ASSERT(rk_composite_pread(&c, read_source, &c, bytes, c.size, 0) ==
			  (ssize_t)c.size);
	}
	fx_write(path, bytes, c.size);
	free(bytes);
	rk_composite_release(&c);
	return info;
}

static void need(const char *tool)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", tool);
	if (system(cmd))
		RK_SKIP("%s not installed", tool);
}

/* Run a shell command; its stdout (malloc'd), and its exit status must be 0. */
static char *run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *run(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	size_t len;
	char *out;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	fx_writes("cmd.sh", cmd);
	st = system("sh cmd.sh > out.txt");
	out = fx_read("out.txt", &len);
	if (st)
		rk_test_fail(__FILE__, __LINE__, "'%s' failed (%d):\n%s", cmd, st, out);
	return out;
}

static void check_output(const char *expected, const char *cmd)
{
	char *got = run("%s", cmd);

	RK_ASSERT_EQ_STR(expected, got);
	free(got);
}

#define DEPENDS "amdrocm-base, amdrocm-core = 7.13.0-123, foo >= 1"

RK_TEST(query)
{
	struct rk_pkg_meta m = meta("amdrocm-test7.13", DEPENDS, 1);

	need("rpm");
	write_pkg(&m, "t.rpm");
	check_output(PREFIX "\n" PREFIX "/bin\n" PREFIX "/bin/tool\n" PREFIX "/lib\n" PREFIX
			    "/lib/a.txt\n" PREFIX "/lib/b.txt\n" PREFIX "/lib/empty\n",
		     "rpm -qpl t.rpm");
	check_output("/bin/sh\n/bin/sh\namdrocm-base\namdrocm-core = 7.13.0-123\nfoo >= 1\n"
		     "rpmlib(CompressedFileNames) <= 3.0.4-1\nrpmlib(FileDigests) <= 4.6.0-1\n"
		     "rpmlib(PayloadFilesHavePrefix) <= 4.0-1\n"
		     "rpmlib(TildeInVersions) <= 4.10.0-1\n",
		     "rpm -qpR t.rpm");
	check_output("amdrocm-test7.13 = 7.13.0~dev1-123\namdrocm-test7.13(x86-64) = "
		     "7.13.0~dev1-123\nvirt1\n",
		     "rpm -qp --provides t.rpm");
	check_output("rec1\nsug1\nbad1\nold1 < 2\n",
		     "rpm -qp --recommends --suggests --conflicts --obsoletes t.rpm");
	check_output("postinstall scriptlet (using /bin/sh):\necho post\n"
		     "preuninstall scriptlet (using /bin/sh):\necho preun\n",
		     "rpm -qp --scripts t.rpm");
	free(run("rpm -qpi t.rpm | grep -x 'Name        : amdrocm-test7.13'"));
	free(run("rpm -qpi t.rpm | grep -x 'Relocations : " PREFIX " '"));
	free(run("rpm -qpi t.rpm | grep -x 'Long description & <more>.'"));
	free(run("rpm -qp --qf '%%{PAYLOADCOMPRESSOR}|%%{PAYLOADFLAGS}|%%{SIZE}' t.rpm | grep -x "
		 "'(none)||41'"));
}

RK_TEST(verify)
{
	struct rk_pkg_meta m = meta("amdrocm-test7.13", DEPENDS, 1);

	need("rpm");
	struct rk_rpm_info info = write_pkg(&m, "t.rpm");

	check_output("t.rpm: digests OK\n", "rpm -K t.rpm");
	free(run("rpm -Kv t.rpm | grep -x '    Header SHA256 digest: OK'"));
	/* a changed byte in the main header is caught */
	free(run("cp t.rpm bad.rpm && printf X | dd of=bad.rpm bs=1 seek=%llu conv=notrunc "
		 "2>/dev/null",
		 (unsigned long long)(info.header_end - 20)));
	free(run("! rpm -K bad.rpm >/dev/null 2>&1"));
}

static void check_tree(const char *root)
{
	free(run("cmp %s" PREFIX "/bin/tool tool.ref && cmp %s" PREFIX "/lib/a.txt a.ref && "
		 "test \"$(readlink %s" PREFIX "/lib/b.txt)\" = a.txt && "
		 "test ! -s %s" PREFIX "/lib/empty && test -x %s" PREFIX "/bin/tool",
		 root, root, root, root, root));
}

static void write_refs(void)
{
	fx_writes("tool.ref", contents[0]);
	fx_writes("a.ref", "hello\nsecond part\n");
}

RK_TEST(rpm2cpio)
{
	struct rk_pkg_meta m = meta("amdrocm-test7.13", DEPENDS, 1);

	need("rpm2cpio"), need("cpio");
	write_pkg(&m, "t.rpm");
	write_refs();
	free(run("mkdir x && cd x && rpm2cpio ../t.rpm | cpio -idm --quiet"));
	check_tree("x");
	free(run("test $(stat -c %%Y x" PREFIX "/lib/a.txt) = %d", T0));
}

RK_TEST(install)
{
	struct rk_pkg_meta m = meta("amdrocm-test7.13", DEPENDS, 1);

	need("rpm");
	if (geteuid() != 0)
		RK_SKIP("rpm -i --root needs root");
	write_pkg(&m, "t.rpm");
	write_refs();
	free(run("rpm -i --root=%s/root --dbpath=%s/db --nodeps --noscripts t.rpm 2>&1",
		 rk_test_dir(), rk_test_dir()));
	check_tree("root");
	free(run("rpm -V --nodeps --root=%s/root --dbpath=%s/db amdrocm-test7.13", rk_test_dir(),
		 rk_test_dir()));
	free(run("rpm -e --root=%s/root --dbpath=%s/db --nodeps --noscripts amdrocm-test7.13 && "
		 "test ! -e root" PREFIX,
		 rk_test_dir(), rk_test_dir()));
}

/* The same package built by rpmbuild (uncompressed payload) agrees tag by tag. */
RK_TEST(versus_rpmbuild)
{
	struct rk_pkg_meta m = meta("amdrocm-test7.13", DEPENDS, 1);
	static const char spec[] =
		"%define __strip /bin/true\n%define __brp_mangle_shebangs %{nil}\n"
		"%define _build_id_links none\n%global debug_package %{nil}\n"
		"%define __requires_exclude_from .*\n"
		"%define _binary_payload w.ufdio\n%define _buildhost rockfs\n"
		"Name: amdrocm-test7.13\nVersion: 7.13.0~dev1\nRelease: 123\nBuildArch: x86_64\n"
		"Summary: A test package\nGroup: System Environment/Libraries\nLicense: MIT\n"
		"Vendor: AMD\nURL: https://example.com\nPrefix: " PREFIX "\n"
		"Requires: " DEPENDS "\nRecommends: rec1\nSuggests: sug1\nProvides: virt1\n"
		"Obsoletes: old1 < 2\nConflicts: bad1\n"
		"%description\nLong description & <more>.\n"
		"%install\nmkdir -p $RPM_BUILD_ROOT" PREFIX "/lib $RPM_BUILD_ROOT" PREFIX "/bin\n"
		"cp %{_sourcedir}/tool.ref $RPM_BUILD_ROOT" PREFIX "/bin/tool\n"
		"cp %{_sourcedir}/a.ref $RPM_BUILD_ROOT" PREFIX "/lib/a.txt\n"
		"chmod 755 $RPM_BUILD_ROOT" PREFIX "/bin/tool\n"
		"ln -s a.txt $RPM_BUILD_ROOT" PREFIX "/lib/b.txt\n"
		": > $RPM_BUILD_ROOT" PREFIX "/lib/empty\n"
		"%files\n%defattr(-, root, root, -)\n" PREFIX "\n"
		"%post\necho post\n%preun\necho preun\n";
	static const char *const queries[] = {
		"--dump",
		"-R",
		"--provides",
		"--recommends",
		"--suggests",
		"--conflicts",
		"--obsoletes",
		"--scripts",
		"-l",
		"--qf '[%{DIRNAMES}\\n][%{BASENAMES} "
		"%{DIRINDEXES} %{FILEINODES} %{FILEDEVICES} %{FILERDEVS} %{FILEFLAGS} "
		"%{FILEVERIFYFLAGS} %{FILELANGS} %{FILESIZES} %{FILELINKTOS}\\n]'",
		"--qf '%{NAME}|%{VERSION}|%{RELEASE}|%{EPOCH}|%{SUMMARY}|%{DESCRIPTION}|%{GROUP}|"
		"%{LICENSE}|%{VENDOR}|%{URL}|%{OS}|%{ARCH}|%{SIZE}|%{BUILDHOST}|%{SOURCERPM}|"
		"%{RPMVERSION}|%{PAYLOADFORMAT}|%{PAYLOADCOMPRESSOR}|%{PAYLOADFLAGS}|%{PREFIXES}|"
		"%{FILEDIGESTALGO}|%{POSTINPROG}|%{PREUNPROG}|%{HEADERI18NTABLE}|%{ENCODING}|"
		"[%{REQUIREFLAGS} ][%{PROVIDEFLAGS} ]%{CONFLICTFLAGS} %{OBSOLETEFLAGS} "
		"%{RECOMMENDFLAGS} %{SUGGESTFLAGS}\\n'",
	};

	need("rpmbuild");
	write_refs();
	fx_writes("t.spec", spec);
	/* rpmbuild's mtimes are the files'; ours are T0: both set to T0 */
	free(run("mkdir -p top/SOURCES && cp tool.ref a.ref top/SOURCES/ && "
		 "SOURCE_DATE_EPOCH=%d rpmbuild --define '_topdir %s/top' "
		 "--define 'use_source_date_epoch_as_buildtime 1' "
		 "--define 'clamp_mtime_to_source_date_epoch 1' -bb t.spec >build.log 2>&1 && "
		 "cp top/RPMS/x86_64/*.rpm ref.rpm",
		 T0, rk_test_dir()));
	write_pkg(&m, "t.rpm");
	for (size_t i = 0; i < sizeof(queries) / sizeof(queries[0]); i++) {
		char q[1024];
		char *want, *got;

		snprintf(q, sizeof(q), "rpm -qp %s ref.rpm", queries[i]);
		want = run("%s", q);
		snprintf(q, sizeof(q), "rpm -qp %s t.rpm", queries[i]);
		got = run("%s", q);
		if (strcmp(want, got))
			rk_test_fail(__FILE__, __LINE__, "rpm -qp %s:\nrpmbuild:\n%s\nours:\n%s",
				     queries[i], want, got);
		free(want), free(got);
	}
}

/* Two packages (a requires b) and our repodata for them in dir/. */
static void write_repo(const char *dir)
{
	struct rk_pkg_meta m[2] = {meta("amdrocm-a", "amdrocm-b = 7.13.0~dev1-123", 0),
				   meta("amdrocm-b", "", 0)};
	static const char *const loc[2] = {"amdrocm-a-7.13.0~dev1-123.x86_64.rpm",
					   "amdrocm-b-7.13.0~dev1-123.x86_64.rpm"};
	struct rk_rpm_file f[2][8];
	struct rk_rpm_pkg p[2];
	struct rk_rpm_repodata r;
	char sha[2][RK_SHA256_HEX];

	for (int i = 0; i < 2; i++) {
		size_t len;
		char *bytes;

		p[i] = (struct rk_rpm_pkg){.meta = &m[i], .location = loc[i]};
		p[i].info = write_pkg(&m[i], fx_path("%s/%s", dir, loc[i]));
		p[i].nfiles = files(f[i]);
		p[i].files = f[i];
		bytes = fx_read(fx_path("%s/%s", dir, loc[i]), &len);
		RK_ASSERT_EQ_INT(0, rk_sha256_buf(bytes, len, sha[i]));
		p[i].size = len;
		p[i].sha256 = sha[i];
		free(bytes);
	}
	RK_ASSERT_EQ_INT(0, rk_rpm_repodata_build(p, 2, T0, &r));
	for (int i = 0; i < RK_REPODATA_NFILES; i++)
		fx_write(fx_path("%s/%s", dir, r.files[i].name), r.files[i].data, r.files[i].len);
	rk_rpm_repodata_release(&r);
}

/* Parse both repodata/ trees (through repomd.xml, checking its checksums and sizes) and
 * compare them element by element, file times aside. */
static const char compare_py[] =
	"import gzip, hashlib, sys, xml.etree.ElementTree as ET\n"
	"R = '{http://linux.duke.edu/metadata/repo}'\n"
	"def load(d):\n"
	"    md = ET.parse(d + '/repodata/repomd.xml').getroot()\n"
	"    out = {}\n"
	"    for e in md.findall(R + 'data'):\n"
	"        t = e.get('type')\n"
	"        if t.endswith('_db'): continue\n"
	"        z = open(d + '/' + e.find(R + 'location').get('href'), 'rb').read()\n"
	"        x = gzip.decompress(z)\n"
	"        assert hashlib.sha256(z).hexdigest() == e.find(R + 'checksum').text, t\n"
	"        assert hashlib.sha256(x).hexdigest() == e.find(R + 'open-checksum').text, t\n"
	"        assert len(z) == int(e.find(R + 'size').text), t\n"
	"        assert len(x) == int(e.find(R + 'open-size').text), t\n"
	"        out[t] = canon(ET.fromstring(x))\n"
	"    return out\n"
	"def canon(e):\n"
	"    a = dict(e.attrib)\n"
	"    if e.tag.endswith('}time'): a.pop('file', None)\n"
	"    return (e.tag, sorted(a.items()), (e.text or '').strip(), [canon(c) for c in e])\n"
	"a, b = load(sys.argv[1]), load(sys.argv[2])\n"
	"assert sorted(a) == sorted(b) == ['filelists', 'other', 'primary'], (sorted(a), "
	"sorted(b))\n"
	"for t in a:\n"
	"    if a[t] != b[t]:\n"
	"        print(t, '\\nours:', a[t], '\\ncreaterepo_c:', b[t]); sys.exit(1)\n";

RK_TEST(repodata_versus_createrepo)
{
	need("createrepo_c"), need("python3");
	write_repo("ours");
	free(run("mkdir theirs && cp ours/*.rpm theirs/ && createrepo_c -q theirs"));
	fx_writes("compare.py", compare_py);
	free(run("python3 compare.py ours theirs 2>&1"));
}

RK_TEST(dnf_install)
{
	need("dnf");
	if (geteuid() != 0)
		RK_SKIP("dnf --installroot needs root");
	write_repo("repo");
	write_refs();
	free(run("dnf -y -q --installroot=%s/root --releasever=1 --setopt=reposdir=/dev/null "
		 "--setopt=cachedir=%s/cache --setopt=install_weak_deps=False --nogpgcheck "
		 "--disableplugin='*' --repofrompath=r,file://%s/repo --repo=r install amdrocm-a "
		 "2>&1",
		 rk_test_dir(), rk_test_dir(), rk_test_dir()));
	check_tree("root");
	free(run("rpm -q --root=%s/root amdrocm-a amdrocm-b", rk_test_dir()));
}

/* A compressed payload (packages_compress): zstd and xz as rpmbuild's w3.zstdio and
 * w6.xzdio say it (PAYLOADCOMPRESSOR, PAYLOADFLAGS, rpmlib(PayloadIs*)), the digests of
 * the stored and of the cpio bytes; rpm -K, rpm2cpio and rpm -i take it. */
RK_TEST(compressed_payload)
{
	static const char *const kinds[][4] = {{"zstd", "3", "zstd -q -3", "PayloadIsZstd"},
					       {"xz", "6", "xz -6", "PayloadIsXz"}};
	struct rk_pkg_meta m = meta("amdrocm-test7.13", DEPENDS, 0);
	struct rk_rpm_file f[8];
	size_t n = files(f), len;
	struct rk_composite pl, packed = RK_COMPOSITE_INIT, c;
	struct rk_rpm_info info;
	char hex[RK_SHA256_HEX], alt[RK_SHA256_HEX], *s;
	unsigned char *bytes;

	need("rpm"), need("rpm2cpio"), need("cpio"), need("zstd"), need("xz");
	write_refs();
	RK_ASSERT_EQ_INT(0, rk_rpm_payload(&m, f, n, &pl));
	bytes = malloc(pl.size);
	RK_ASSERT(bytes != NULL);
	RK_ASSERT(rk_composite_pread(&pl, read_source, &pl, bytes, pl.size, 0) == (ssize_t)pl.size);
	fx_write("payload.cpio", bytes, pl.size);
	RK_ASSERT_EQ_INT(0, rk_sha256_buf(bytes, pl.size, alt));
	free(bytes);
	for (size_t k = 0; k < 2; k++) {
		struct rk_rpm_compressed cz = {kinds[k][0], kinds[k][1], &packed, pl.size};

		free(run("%s -c payload.cpio > payload.c", kinds[k][2]));
		s = fx_read("payload.c", &len);
		RK_ASSERT_EQ_INT(0, rk_composite_bytes(&packed, s, len));
		RK_ASSERT_EQ_INT(0, rk_sha256_buf(s, len, hex));
		free(s);
		RK_ASSERT_EQ_INT(0, rk_rpm_build_compressed(&m, f, n, &cz, &c, &info));
		RK_ASSERT_EQ_INT(pl.size, info.payload_size);
		RK_ASSERT_EQ_INT(len, c.size - info.header_end);
		RK_ASSERT_EQ_INT(0, rk_rpm_set_payload_digests(&c, &info, hex, alt));
		bytes = malloc(c.size);
		RK_ASSERT(bytes != NULL);
		RK_ASSERT(rk_composite_pread(&c, read_source, &c, bytes, c.size, 0) ==
			  (ssize_t)c.size);
		fx_write("c.rpm", bytes, c.size);
		free(bytes);
		check_output("c.rpm: digests OK\n", "rpm -K c.rpm");
		free(run("rpm -qp --qf '%%{PAYLOADCOMPRESSOR}|%%{PAYLOADFLAGS}' c.rpm | grep -x "
			 "'%s|%s'",
			 kinds[k][0], kinds[k][1]));
		free(run("rpm -qpR c.rpm | grep -x 'rpmlib(%s) <= .*'", kinds[k][3]));
		free(run("rm -rf x && mkdir x && cd x && rpm2cpio ../c.rpm | cpio -idm --quiet"));
		check_tree("x");
		if (geteuid() == 0) {
			free(run("rm -rf root db && rpm -i --root=%s/root --dbpath=%s/db --nodeps "
				 "--noscripts c.rpm 2>&1",
				 rk_test_dir(), rk_test_dir()));
			check_tree("root");
		}
		rk_composite_release(&c);
		rk_composite_release(&packed);
	}
	/* no compressor: refused */
	{
		struct rk_rpm_compressed cz = {"", "3", &packed, pl.size};

		RK_ASSERT_EQ_INT(-EINVAL, rk_rpm_build_compressed(&m, f, n, &cz, &c, &info));
	}
	rk_composite_release(&pl);
}
