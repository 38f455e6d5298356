/* test_kpack_elf.c: fat host binaries split as rocm-kpack's kpack_offload_binary does.
 *
 * Fixtures are built at test time with cc, the way tests/demo/mkdemo.py builds its fat
 * libraries: per TU a 4096-aligned __hip_fatbin in .hip_fatbin and a HIPF wrapper in
 * .hipFatBinSegment pointing at it. The transform's composite is written to a file and
 * checked with libelf, readelf, dlopen and by running executables. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk/kpack_elf.h"
#include "rk/composite.h"
#include "rk_fixture.h"
#include "rk_test.h"

#define PAGE 4096u
#define HIPF 0x48495046u
#define HIPK 0x4B504948u

enum kind { LIB, EXE, EXE_NOPIE };

/* Builds out from ntu fat TUs whose fatbins have fatbin bytes each (rk_fixture.c). */
static void build(const char *out, enum kind k, int ntu, size_t fatbin)
{
	unsigned char *bytes[8];
	size_t sizes[8];

	RK_ASSERT(ntu <= 8);
	for (int t = 0; t < ntu; t++) {
		bytes[t] = malloc(fatbin ? fatbin : 1);
		RK_ASSERT(bytes[t]);
		for (size_t i = 0; i < fatbin; i++)
			bytes[t][i] = (unsigned char)((i * 7 + (size_t)t * 13 + 1) & 0xff);
		sizes[t] = fatbin;
	}
	fx_fat_elf(out,
		   k == LIB   ? FX_ELF_LIB
		   : k == EXE ? FX_ELF_EXE
			      : FX_ELF_EXE_NOPIE,
		   ntu, (const unsigned char *const *)bytes, sizes);
	for (int t = 0; t < ntu; t++)
		free(bytes[t]);
}

struct image {
	unsigned char *p; /* read-only mapping: libelf must never write to it */
	size_t n;
};

static struct image map_file(const char *path)
{
	struct image im;
	struct stat st;
	int fd = open(path, O_RDONLY);

	RK_ASSERT(fd >= 0);
	RK_ASSERT_EQ_INT(0, fstat(fd, &st));
	im.n = (size_t)st.st_size;
	im.p = mmap(NULL, im.n, PROT_READ, MAP_PRIVATE, fd, 0);
	RK_ASSERT(im.p != MAP_FAILED);
	close(fd);
	return im;
}

static void unmap(struct image *im)
{
	munmap(im->p, im->n);
}

static ssize_t read_img(void *ctx, uint32_t src, void *buf, size_t n, uint64_t off)
{
	const struct image *im = ctx;

	if (src != 0 || off > im->n || n > im->n - off)
		return -EIO;
	memcpy(buf, im->p + off, n);
	return (ssize_t)n;
}

static void materialize(const struct rk_composite *s, struct image *src, const char *path)
{
	unsigned char *buf = malloc(s->size ? s->size : 1);

	RK_ASSERT(buf);
	RK_ASSERT_EQ_INT((long long)s->size, rk_composite_pread(s, read_img, src, buf, s->size, 0));
	fx_write(path, buf, s->size);
	RK_ASSERT_EQ_INT(0, chmod(path, 0755));
	free(buf);
}

/* A marker as the splitter writes it (kpack-format.md 3.1). */
static size_t marker(unsigned char *m)
{
	static const char path[] = "../.kpack/test_lib_@GFXARCH@.kpack";
	static const char kname[] = "test/lib/libfat.so";
	size_t n = 0;

	m[n++] = 0x82;
	m[n++] = 0xB2;
	memcpy(m + n, "kpack_search_paths", 18);
	n += 18;
	m[n++] = 0x91;
	m[n++] = 0xD9;
	m[n++] = (unsigned char)(sizeof(path) - 1);
	memcpy(m + n, path, sizeof(path) - 1);
	n += sizeof(path) - 1;
	m[n++] = 0xAB;
	memcpy(m + n, "kernel_name", 11);
	n += 11;
	m[n++] = (unsigned char)(0xA0 | (sizeof(kname) - 1));
	memcpy(m + n, kname, sizeof(kname) - 1);
	n += sizeof(kname) - 1;
	return n;
}

/* ---- reading the result with libelf ---- */

struct parsed {
	Elf *elf;
	GElf_Ehdr eh;
	size_t shstrndx;
};

static struct parsed parse(const struct image *im)
{
	struct parsed p;

	RK_ASSERT(elf_version(EV_CURRENT) != EV_NONE);
	p.elf = elf_memory((char *)im->p, im->n);
	RK_ASSERT(p.elf);
	RK_ASSERT(gelf_getehdr(p.elf, &p.eh));
	RK_ASSERT_EQ_INT(0, elf_getshdrstrndx(p.elf, &p.shstrndx));
	return p;
}

static int section(struct parsed *p, const char *name, GElf_Shdr *out)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(p->elf, scn))) {
		const char *s;

		RK_ASSERT(gelf_getshdr(scn, out));
		s = elf_strptr(p->elf, p->shstrndx, out->sh_name);
		if (s && !strcmp(s, name))
			return 1;
	}
	return 0;
}

/* File offset of vaddr through the PT_LOADs; the segment in *ph. */
static uint64_t v2off(struct parsed *p, uint64_t vaddr, GElf_Phdr *ph)
{
	for (size_t i = 0; i < p->eh.e_phnum; i++) {
		RK_ASSERT(gelf_getphdr(p->elf, (int)i, ph));
		if (ph->p_type == PT_LOAD && vaddr >= ph->p_vaddr &&
		    vaddr < ph->p_vaddr + ph->p_filesz)
			return ph->p_offset + (vaddr - ph->p_vaddr);
	}
	rk_test_fail(__FILE__, __LINE__, "address %#llx is not in a PT_LOAD",
		     (unsigned long long)vaddr);
}

static uint32_t ld32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t ld64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static void readelf_clean(const char *path)
{
	char cmd[512], line[4096];
	FILE *f;
	int bad = 0;

	snprintf(cmd, sizeof(cmd), "readelf -a -W %s 2>&1", path);
	f = popen(cmd, "r");
	if (!f)
		RK_SKIP("cannot run readelf");
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "Warning") || strstr(line, "Error")) {
			fprintf(stderr, "readelf: %s", line);
			bad = 1;
		}
	pclose(f);
	RK_ASSERT(!bad);
}

static int has_interp(struct parsed *p)
{
	GElf_Phdr ph;

	for (size_t i = 0; i < p->eh.e_phnum; i++)
		if (gelf_getphdr(p->elf, (int)i, &ph) && ph.p_type == PT_INTERP)
			return 1;
	return 0;
}

struct split {
	struct image in, out;
	unsigned char m[256];
	size_t mlen;
	uint64_t ao, l; /* the cut range of the original, l = 0 when none */
};

/* Transform path into path.split and check everything the brief lists. */
static void split_and_check(const char *path, struct split *r)
{
	struct rk_composite s = RK_COMPOSITE_INIT;
	struct rk_err err = RK_ERR_INIT;
	struct rk_fat_elf fe;
	struct parsed pi, po;
	GElf_Shdr fi, fo, seg, mk, rs;
	GElf_Phdr ph;
	const char *outp = fx_path("%s.split", path);
	uint64_t S, Z, E, A, B, segoff, mvaddr;
	unsigned char *edited;
	Elf_Scn *scn = NULL;
	int rc;

	r->in = map_file(path);
	r->mlen = marker(r->m);
	RK_ASSERT_EQ_INT(1, rk_kpack_elf_inspect(r->in.p, r->in.n, &fe, &err));
	RK_ASSERT(!fe.fatbin_nobits && !fe.has_marker && fe.nwrappers > 0);
	rc = rk_kpack_elf_transform(r->in.p, r->in.n, r->m, r->mlen, &s, &err);
	if (rc)
		rk_test_fail(__FILE__, __LINE__, "transform: %s", rk_err_str(&err, rc));
	materialize(&s, &r->in, outp);
	rk_composite_release(&s);
	r->out = map_file(outp);
	readelf_clean(outp);
	rc = rk_kpack_elf_verify(r->out.p, r->out.n, &err);
	if (rc)
		rk_test_fail(__FILE__, __LINE__, "verify: %s", rk_err_str(&err, rc));

	pi = parse(&r->in);
	po = parse(&r->out);
	RK_ASSERT(section(&pi, ".hip_fatbin", &fi));
	RK_ASSERT(section(&po, ".hip_fatbin", &fo));
	S = fi.sh_addr;
	Z = fi.sh_size;
	E = S + Z;
	A = (S + PAGE - 1) / PAGE * PAGE;
	B = E / PAGE * PAGE;
	r->l = A < B ? B - A - (E % PAGE ? 0 : PAGE) : 0;
	r->ao = fi.sh_offset + (A - S);
	RK_ASSERT_EQ_INT(r->l ? SHT_NOBITS : SHT_PROGBITS, fo.sh_type);
	RK_ASSERT_EQ_INT(fi.sh_addr, fo.sh_addr);
	RK_ASSERT_EQ_INT(fi.sh_size, fo.sh_size);
	RK_ASSERT_EQ_INT(r->l % PAGE, 0);

	/* The marker: allocated, its bytes, in a PF_R PT_LOAD. */
	RK_ASSERT(section(&po, ".rocm_kpack_ref", &mk));
	RK_ASSERT(mk.sh_flags & SHF_ALLOC);
	RK_ASSERT_EQ_INT(r->mlen, mk.sh_size);
	RK_ASSERT_EQ_MEM(r->m, r->out.p + mk.sh_offset, r->mlen);
	mvaddr = mk.sh_addr;
	RK_ASSERT_EQ_INT(mk.sh_offset, v2off(&po, mvaddr, &ph));
	RK_ASSERT_EQ_INT(PF_R, ph.p_flags);

	/* Wrappers HIPK with their index, pointing at the marker; RELA entries RELATIVE. */
	RK_ASSERT(section(&po, ".hipFatBinSegment", &seg));
	segoff = v2off(&po, seg.sh_addr, &ph);
	for (uint64_t i = 0; i < seg.sh_size / 24; i++) {
		const unsigned char *w = r->out.p + segoff + i * 24;

		RK_ASSERT_EQ_INT(HIPK, ld32(w));
		RK_ASSERT_EQ_INT(1, ld32(w + 4));
		RK_ASSERT_EQ_INT(mvaddr, ld64(w + 8));
		RK_ASSERT_EQ_INT(i, ld64(w + 16));
	}
	edited = calloc(r->in.n, 1);
	RK_ASSERT(edited);
	memset(edited, 1, 64);
	if (po.eh.e_phoff + po.eh.e_phnum * 56ull <= r->in.n)
		memset(edited + po.eh.e_phoff, 1, po.eh.e_phnum * 56ull);
	{
		GElf_Phdr iph;
		uint64_t o = v2off(&pi, seg.sh_addr, &iph);

		memset(edited + o, 1, seg.sh_size);
	}
	while ((scn = elf_nextscn(po.elf, scn))) {
		RK_ASSERT(gelf_getshdr(scn, &rs));
		if (rs.sh_type != SHT_RELA)
			continue;
		for (uint64_t k = 0; k < rs.sh_size / 24; k++) {
			const unsigned char *e = r->out.p + rs.sh_offset + k * 24;
			uint64_t ro = ld64(e);

			if (ro < seg.sh_addr || ro >= seg.sh_addr + seg.sh_size)
				continue;
			if (po.eh.e_type == ET_DYN && (ro - seg.sh_addr) % 24 == 8) {
				RK_ASSERT_EQ_INT(8, ld64(e + 8)); /* R_X86_64_RELATIVE, symbol 0 */
				RK_ASSERT_EQ_INT(mvaddr, ld64(e + 16));
				RK_ASSERT(rs.sh_offset + k * 24 < r->ao);
				memset(edited + rs.sh_offset + k * 24, 1, 24);
			}
		}
	}
	/* Smaller, and every other original byte unchanged at its shifted position. */
	/* Smaller when more than the appended headers and marker copies is cut, except for
	 * executables, where normalize_phdr_vaddr may pad the file up to the table's
	 * address (kpack-format.md 3.6). */
	if (r->l >= 8 * PAGE && !has_interp(&po))
		RK_ASSERT(r->out.n < r->in.n);
	for (uint64_t o = 0; o < r->in.n; o++) {
		uint64_t d;

		if (edited[o] || (o >= r->ao && o < r->ao + r->l))
			continue;
		d = o >= r->ao + r->l ? o - r->l : o;
		if (r->in.p[o] != r->out.p[d])
			rk_test_fail(__FILE__, __LINE__, "byte %#llx changed",
				     (unsigned long long)o);
	}
	free(edited);
	elf_end(pi.elf);
	elf_end(po.elf);
}

static void split_release(struct split *r)
{
	unmap(&r->in);
	unmap(&r->out);
}

static void check_dlopen(const char *path)
{
	char abs[4096];
	void *h;
	int (*value)(void), (*launch)(int);

	snprintf(abs, sizeof(abs), "%s/%s", rk_test_dir(), path);
	h = dlopen(abs, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		rk_test_fail(__FILE__, __LINE__, "dlopen: %s", dlerror());
	*(void **)&value = dlsym(h, "kp_value");
	*(void **)&launch = dlsym(h, "kp_tu0_launch");
	RK_ASSERT(value && launch);
	RK_ASSERT_EQ_INT(42, value());
	RK_ASSERT_EQ_INT(7, launch(2));
	dlclose(h);
}

RK_TEST(dso_multi_tu)
{
	struct split r;

	build("libfat.so", LIB, 3, 8 * PAGE + 100);
	split_and_check("libfat.so", &r);
	RK_ASSERT(r.l >= 6 * PAGE);
	check_dlopen("libfat.so.split");
	split_release(&r);
}

RK_TEST(dso_page_aligned_end)
{
	struct split r;

	/* One TU whose fatbin ends on a page boundary: one page stays in the file. */
	build("libend.so", LIB, 3, 2 * PAGE);
	split_and_check("libend.so", &r);
	RK_ASSERT(r.l > 0);
	check_dlopen("libend.so.split");
	split_release(&r);
}

RK_TEST(tiny_fatbin_stays_progbits)
{
	struct split r;

	build("libtiny.so", LIB, 1, 100);
	split_and_check("libtiny.so", &r);
	RK_ASSERT_EQ_INT(0, r.l);
	check_dlopen("libtiny.so.split");
	split_release(&r);
}

RK_TEST(phdr_table_moved)
{
	struct split r;
	struct parsed pi, po;
	GElf_Phdr ph;
	int phdr_seen = 0, covered = 0;

	build("libmv.so", LIB, 3, 2 * PAGE + 8);
	split_and_check("libmv.so", &r);
	pi = parse(&r.in);
	po = parse(&r.out);
	/* cc puts the first section right after the table: it has to move. */
	RK_ASSERT(po.eh.e_phoff != pi.eh.e_phoff);
	RK_ASSERT(po.eh.e_phnum > pi.eh.e_phnum);
	for (size_t i = 0; i < po.eh.e_phnum; i++) {
		RK_ASSERT(gelf_getphdr(po.elf, (int)i, &ph));
		if (ph.p_type == PT_PHDR) {
			phdr_seen = 1;
			RK_ASSERT_EQ_INT(po.eh.e_phoff, ph.p_offset);
		}
		if (ph.p_type == PT_LOAD && ph.p_offset == po.eh.e_phoff && ph.p_flags == PF_R &&
		    ph.p_filesz >= po.eh.e_phnum * 56ull && ph.p_filesz % (16 * 56) == 0)
			covered = 1;
	}
	RK_ASSERT(covered);
	(void)phdr_seen; /* shared objects from cc have no PT_PHDR */
	elf_end(pi.elf);
	elf_end(po.elf);
	split_release(&r);
}

/* A table with room to grow is rewritten where it is: a split tiny binary (its
 * .hip_fatbin stays PROGBITS) whose marker is renamed looks unsplit, and its relocated
 * table has spare slots. */
RK_TEST(phdr_table_in_place)
{
	struct split r;
	struct parsed po;
	GElf_Shdr ss;
	unsigned char *c;
	unsigned char *name;

	build("libre.so", LIB, 1, 100);
	split_and_check("libre.so", &r);
	po = parse(&r.out);
	RK_ASSERT(section(&po, ".shstrtab", &ss));
	c = malloc(r.out.n);
	RK_ASSERT(c);
	memcpy(c, r.out.p, r.out.n);
	name = memmem(c + ss.sh_offset, ss.sh_size, ".rocm_kpack_ref", 16);
	RK_ASSERT(name);
	name[14] = 'X';
	fx_write("libre2.so", c, r.out.n);
	free(c);
	elf_end(po.elf);
	split_release(&r);

	split_and_check("libre2.so", &r);
	{
		struct parsed pi = parse(&r.in);

		po = parse(&r.out);
		RK_ASSERT_EQ_INT(pi.eh.e_phoff, po.eh.e_phoff);
		RK_ASSERT_EQ_INT(pi.eh.e_phnum + 1, po.eh.e_phnum);
		elf_end(pi.elf);
		elf_end(po.elf);
	}
	check_dlopen("libre2.so.split");
	split_release(&r);
}

static void run_exe(enum kind k, const char *name)
{
	struct split r;
	char cmd[4096];

	build(name, k, 3, 8 * PAGE + 40);
	RK_ASSERT_EQ_INT(0, system(fx_path("./%s", name)));
	split_and_check(name, &r);
	snprintf(cmd, sizeof(cmd), "./%s.split", name);
	RK_ASSERT_EQ_INT(0, system(cmd));
	split_release(&r);
}

RK_TEST(exe_pie_runs)
{
	struct split r;
	struct parsed po;
	GElf_Phdr ph;

	run_exe(EXE, "fatexe");
	/* normalize_phdr_vaddr: the table's PT_LOAD has p_vaddr == p_offset. */
	r.out = map_file("fatexe.split");
	po = parse(&r.out);
	for (size_t i = 0; i < po.eh.e_phnum; i++) {
		RK_ASSERT(gelf_getphdr(po.elf, (int)i, &ph));
		if (ph.p_type == PT_PHDR)
			RK_ASSERT_EQ_INT(ph.p_offset, ph.p_vaddr);
	}
	elf_end(po.elf);
	unmap(&r.out);
}

RK_TEST(exe_nopie_runs)
{
	run_exe(EXE_NOPIE, "fatexe-nopie");
}

RK_TEST(already_split_and_not_fat)
{
	struct split r;
	struct rk_composite s = RK_COMPOSITE_INIT;
	struct rk_err err = RK_ERR_INIT;
	struct rk_fat_elf fe;
	struct image plain;
	FILE *f;

	build("libtwice.so", LIB, 2, 2 * PAGE + 1);
	split_and_check("libtwice.so", &r);
	RK_ASSERT_EQ_INT(1, rk_kpack_elf_inspect(r.out.p, r.out.n, &fe, &err));
	RK_ASSERT(fe.fatbin_nobits && fe.has_marker);
	RK_ASSERT_EQ_INT(2, fe.nwrappers);
	RK_ASSERT_EQ_INT(r.mlen, fe.marker_size);
	RK_ASSERT_EQ_MEM(r.m, r.out.p + fe.marker_off, r.mlen);
	RK_ASSERT_EQ_INT(-EALREADY,
			 rk_kpack_elf_transform(r.out.p, r.out.n, r.m, r.mlen, &s, &err));
	RK_ASSERT(err.msg[0]);
	split_release(&r);

	f = fopen("plain.c", "w");
	RK_ASSERT(f);
	fprintf(f, "int plain(void) { return 1; }\n");
	fclose(f);
	RK_ASSERT_EQ_INT(0, system("cc -shared -fPIC -o libplain.so plain.c"));
	plain = map_file("libplain.so");
	RK_ASSERT_EQ_INT(0, rk_kpack_elf_inspect(plain.p, plain.n, &fe, &err));
	RK_ASSERT_EQ_INT(-EINVAL, rk_kpack_elf_transform(plain.p, plain.n, r.m, r.mlen, &s, &err));
	RK_ASSERT_EQ_INT(0, rk_kpack_elf_verify(plain.p, plain.n, &err));
	unmap(&plain);
}

RK_TEST(verify_rejects_corrupt)
{
	struct split r;
	struct rk_err err = RK_ERR_INIT;
	struct parsed po;
	GElf_Shdr mk;
	GElf_Phdr ph;
	unsigned char *c;

	build("libcor.so", LIB, 2, 2 * PAGE + 1);
	split_and_check("libcor.so", &r);
	po = parse(&r.out);
	RK_ASSERT(section(&po, ".rocm_kpack_ref", &mk));
	c = malloc(r.out.n);
	RK_ASSERT(c);

	/* A marker that is not a msgpack map. */
	memcpy(c, r.out.p, r.out.n);
	c[mk.sh_offset] = 0xc1;
	RK_ASSERT_EQ_INT(-EBADMSG, rk_kpack_elf_verify(c, r.out.n, &err));
	RK_ASSERT(strstr(err.msg, "msgpack"));

	/* A PT_LOAD whose offset is no longer congruent to its address. */
	memcpy(c, r.out.p, r.out.n);
	for (size_t i = 0; i < po.eh.e_phnum; i++) {
		RK_ASSERT(gelf_getphdr(po.elf, (int)i, &ph));
		if (ph.p_type == PT_LOAD && ph.p_offset) {
			uint64_t o = ph.p_offset + 8;

			memcpy(c + po.eh.e_phoff + i * 56 + 8, &o, 8);
			break;
		}
	}
	RK_ASSERT_EQ_INT(-EBADMSG, rk_kpack_elf_verify(c, r.out.n, &err));

	/* A wrapper back to HIPF. */
	{
		GElf_Shdr seg;
		uint64_t o;

		memcpy(c, r.out.p, r.out.n);
		RK_ASSERT(section(&po, ".hipFatBinSegment", &seg));
		o = v2off(&po, seg.sh_addr, &ph);
		c[o] = 0x46;
		c[o + 1] = 0x50;
		c[o + 2] = 0x49;
		c[o + 3] = 0x48;
		RK_ASSERT_EQ_INT(-EBADMSG, rk_kpack_elf_verify(c, r.out.n, &err));
	}
	free(c);
	elf_end(po.elf);
	split_release(&r);
}

/* Step 5: a second pointer into .hip_fatbin (not a wrapper) makes the split unsafe. */
RK_TEST(stray_fatbin_pointer_rejected)
{
	struct rk_composite s = RK_COMPOSITE_INIT;
	struct rk_err err = RK_ERR_INIT;
	unsigned char m[256];
	size_t mlen = marker(m);
	struct image im;

	fx_need_cc();
	fx_writes("stray.c",
		  "static const unsigned char __hip_fatbin[8192]\n"
		  "    __attribute__((section(\".hip_fatbin\"), aligned(4096), used)) = {1};\n"
		  "static struct { unsigned magic, version; const void *binary; void *dummy1; }\n"
		  "    w __attribute__((section(\".hipFatBinSegment\"), aligned(8), used))\n"
		  "    = {0x48495046u, 1u, __hip_fatbin, 0};\n"
		  "const void *kp_stray = __hip_fatbin + 16;\n");
	RK_ASSERT_EQ_INT(0, system("cc -shared -fPIC -o libstray.so stray.c"));
	im = map_file("libstray.so");
	RK_ASSERT_EQ_INT(-EBADMSG, rk_kpack_elf_transform(im.p, im.n, m, mlen, &s, &err));
	RK_ASSERT(strstr(err.msg, "still points into '.hip_fatbin'"));
	RK_ASSERT_EQ_INT(0, s.npieces);
	unmap(&im);
}

/* Hostile inputs: every case gives a clean error with a message, or 0 for "not fat". */
#define expect(p, n, i, t) expect_at(__LINE__, p, n, i, t)
static void expect_at(int line, const unsigned char *p, size_t n, int inspect_rc, int transform_rc)
{
	struct rk_composite s = RK_COMPOSITE_INIT;
	struct rk_err err = RK_ERR_INIT;
	struct rk_fat_elf fe;
	unsigned char m[256];
	size_t mlen = marker(m);
	/* A private copy of exactly n bytes, so ASan sees any read past the end. */
	unsigned char *c = malloc(n ? n : 1);
	int rc;

	RK_ASSERT(c);
	memcpy(c, p, n);
	rc = rk_kpack_elf_inspect(c, n, &fe, &err);
	if (rc != inspect_rc)
		rk_test_fail(__FILE__, __LINE__, "line %d: inspect %d, expected %d (%s)", line, rc,
			     inspect_rc, err.msg);
	if (rc < 0)
		RK_ASSERT(err.msg[0]);
	rk_err_clear(&err);
	rc = rk_kpack_elf_transform(c, n, m, mlen, &s, &err);
	if (rc != transform_rc)
		rk_test_fail(__FILE__, __LINE__, "transform %d, expected %d (%s)", rc, transform_rc,
			     err.msg);
	RK_ASSERT(err.msg[0]);
	RK_ASSERT_EQ_INT(0, s.npieces);
	rk_err_clear(&err);
	RK_ASSERT(rk_kpack_elf_verify(c, n, &err) <= 0);
	free(c);
}

static void set64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

RK_TEST(hostile_inputs)
{
	struct image im;
	struct parsed p;
	GElf_Shdr seg, fb;
	GElf_Phdr ph;
	unsigned char *c;
	uint64_t segoff, segsh = 0;
	size_t shnum;
	Elf_Scn *scn = NULL;

	build("libhost.so", LIB, 2, 2 * PAGE + 16);
	im = map_file("libhost.so");
	p = parse(&im);
	RK_ASSERT(section(&p, ".hip_fatbin", &fb));
	RK_ASSERT(section(&p, ".hipFatBinSegment", &seg));
	segoff = v2off(&p, seg.sh_addr, &ph);
	RK_ASSERT_EQ_INT(0, elf_getshdrnum(p.elf, &shnum));
	while ((scn = elf_nextscn(p.elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		RK_ASSERT(gelf_getshdr(scn, &sh));
		name = elf_strptr(p.elf, p.shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".hipFatBinSegment"))
			segsh = p.eh.e_shoff + elf_ndxscn(scn) * 64;
	}
	RK_ASSERT(segsh);
	c = malloc(im.n);
	RK_ASSERT(c);

	/* Not ELF64 LE: not fat. */
	expect((const unsigned char *)"hello", 5, 0, -EINVAL);
	expect(im.p, 10, 0, -EINVAL);
	memcpy(c, im.p, im.n);
	c[EI_CLASS] = ELFCLASS32;
	expect(c, im.n, 0, -EINVAL);

	/* Truncated at various points. */
	expect(im.p, 40, -EBADMSG, -EBADMSG);
	expect(im.p, 64, -EBADMSG, -EBADMSG);
	expect(im.p, p.eh.e_phoff + 30, -EBADMSG, -EBADMSG);
	expect(im.p, im.n / 2, -EBADMSG, -EBADMSG);
	expect(im.p, im.n - 1, -EBADMSG, -EBADMSG);

	/* e_shoff past EOF. */
	memcpy(c, im.p, im.n);
	set64(c + 40, im.n + 4096);
	expect(c, im.n, -EBADMSG, -EBADMSG);
	memcpy(c, im.p, im.n);
	set64(c + 40, UINT64_MAX - 8);
	expect(c, im.n, -EBADMSG, -EBADMSG);

	/* e_shstrndx out of range. */
	memcpy(c, im.p, im.n);
	c[62] = (unsigned char)(shnum + 3);
	c[63] = 0;
	expect(c, im.n, -EBADMSG, -EBADMSG);

	/* Huge program header count. */
	memcpy(c, im.p, im.n);
	c[56] = 0xf0;
	c[57] = 0xff;
	expect(c, im.n, -EBADMSG, -EBADMSG);

	/* Huge section count. */
	memcpy(c, im.p, im.n);
	c[60] = 0xf0;
	c[61] = 0xfe;
	expect(c, im.n, -EBADMSG, -EBADMSG);

	/* No sections at all: not fat. */
	memcpy(c, im.p, im.n);
	set64(c + 40, 0);
	memset(c + 60, 0, 4);
	expect(c, im.n, 0, -EINVAL);

	/* A wrapper whose magic is neither HIPF nor HIPK. */
	memcpy(c, im.p, im.n);
	memcpy(c + segoff + 24, "XXXX", 4);
	expect(c, im.n, 1, -EBADMSG);

	/* .hipFatBinSegment size not a multiple of 24. */
	memcpy(c, im.p, im.n);
	set64(c + segsh + 32, seg.sh_size - 4);
	expect(c, im.n, 1, -EBADMSG);

	/* .hipFatBinSegment outside every PT_LOAD. */
	memcpy(c, im.p, im.n);
	set64(c + segsh + 16, 0x7fff00000000ull);
	expect(c, im.n, 1, -EBADMSG);

	/* Section data beyond EOF. */
	memcpy(c, im.p, im.n);
	set64(c + segsh + 24, im.n - 8);
	expect(c, im.n, -EBADMSG, -EBADMSG);

	free(c);
	elf_end(p.elf);
	unmap(&im);
}
