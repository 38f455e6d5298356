/* test_elf_runpath.c: DT_RUNPATH -> DT_RPATH (formats/gpu/elf_runpath.h), the one splice the
 * packages view (runpath_to_rpath.py) and the devel wheel (_normalize_rpath) use, on
 * minimal ELF files written here for each class and byte order (ELF32/ELF64, little- and
 * big-endian): an ELF header, a .dynamic section (DT_NEEDED, DT_RUNPATH or DT_RPATH,
 * DT_NULL), a .dynstr and a section header table. The spliced file must read back (libelf,
 * rk/elf_info.h) with a DT_RPATH entry and no DT_RUNPATH, every other byte unchanged. */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "rk/composite.h"
#include "rk/elf_info.h"
#include "formats/gpu/elf_runpath.h"
#include "rk_fixture.h"
#include "rk_test.h"

struct img {
	unsigned char b[1024];
	size_t len;
	int is64, be;
};

static void put(struct img *m, size_t off, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		m->b[off + (size_t)(m->be ? n - 1 - i : i)] = (unsigned char)(v >> (8 * i));
}

/* A minimal ET_DYN file of this class and byte order whose dynamic section holds
 * DT_NEEDED and `tag` (DT_RUNPATH or DT_RPATH) naming "$ORIGIN"; *tag_off: where that
 * entry's d_tag is. */
static void make_elf(struct img *m, int is64, int be, int64_t tag, size_t *tag_off)
{
	static const char dynstr[] = "\0libc.so.6\0$ORIGIN\0";
	static const char shstr[] = "\0.dynamic\0.dynstr\0.shstrtab\0";
	size_t ehsz = is64 ? 64 : 52, shsz = is64 ? 64 : 40, dsz = is64 ? 16 : 8, w = is64 ? 8 : 4;
	size_t dyn = ehsz, str = dyn + 3 * dsz, shs = str + sizeof(dynstr), sh = (shs + sizeof(shstr) + 7) & ~(size_t)7;
	uint64_t dynv[3][2] = {{DT_NEEDED, 1}, {(uint64_t)tag, 11}, {DT_NULL, 0}};

	memset(m, 0, sizeof(*m));
	m->is64 = is64;
	m->be = be;
	memcpy(m->b, ELFMAG, SELFMAG);
	m->b[EI_CLASS] = is64 ? ELFCLASS64 : ELFCLASS32;
	m->b[EI_DATA] = be ? ELFDATA2MSB : ELFDATA2LSB;
	m->b[EI_VERSION] = EV_CURRENT;
	put(m, 16, ET_DYN, 2);
	put(m, 18, is64 ? EM_PPC64 : EM_PPC, 2);
	put(m, 20, EV_CURRENT, 4);
	/* e_shoff, e_ehsize, e_shentsize, e_shnum, e_shstrndx */
	put(m, is64 ? 40 : 32, sh, (int)w);
	put(m, is64 ? 52 : 40, ehsz, 2);
	put(m, is64 ? 58 : 46, shsz, 2);
	put(m, is64 ? 60 : 48, 4, 2);
	put(m, is64 ? 62 : 50, 3, 2);
	for (int i = 0; i < 3; i++) {
		put(m, dyn + (size_t)i * dsz, dynv[i][0], (int)w);
		put(m, dyn + (size_t)i * dsz + w, dynv[i][1], (int)w);
	}
	memcpy(m->b + str, dynstr, sizeof(dynstr));
	memcpy(m->b + shs, shstr, sizeof(shstr));
	/* sections: 0 null, 1 .dynamic (link 2), 2 .dynstr, 3 .shstrtab */
	struct {
		uint32_t name, type;
		uint64_t off, size, link, entsize;
	} s[4] = {{0},
		  {1, SHT_DYNAMIC, dyn, 3 * dsz, 2, dsz},
		  {10, SHT_STRTAB, str, sizeof(dynstr), 0, 0},
		  {18, SHT_STRTAB, shs, sizeof(shstr), 0, 0}};
	for (size_t i = 1; i < 4; i++) {
		size_t o = sh + i * shsz;

		put(m, o, s[i].name, 4);
		put(m, o + 4, s[i].type, 4);
		if (is64) { /* flags 8, addr 16, offset 24, size 32, link 40, info 44, align 48, entsize 56 */
			put(m, o + 24, s[i].off, 8);
			put(m, o + 32, s[i].size, 8);
			put(m, o + 40, s[i].link, 4);
			put(m, o + 48, 1, 8);
			put(m, o + 56, s[i].entsize, 8);
		} else { /* flags 8, addr 12, offset 16, size 20, link 24, info 28, align 32, entsize 36 */
			put(m, o + 16, s[i].off, 4);
			put(m, o + 20, s[i].size, 4);
			put(m, o + 24, s[i].link, 4);
			put(m, o + 32, 1, 4);
			put(m, o + 36, s[i].entsize, 4);
		}
	}
	m->len = sh + 4 * shsz;
	*tag_off = dyn + dsz;
}

/* The splice of m through a composite over it as a blob; the result re-read. */
static void splice_and_check(int is64, int be)
{
	struct img m, want;
	struct rk_elf_info e, after;
	struct rk_composite *c = NULL;
	unsigned char tag[8], *got;
	char id[65];
	size_t off;

	make_elf(&m, is64, be, DT_RUNPATH, &off);
	rk_elf_info_mem(m.b, m.len, &e);
	RK_ASSERT_EQ_INT((int)off, (int)e.runpath_tag_off);
	RK_ASSERT_EQ_INT(is64 ? 8 : 4, e.tag_size);
	RK_ASSERT_EQ_INT(be, e.big_endian);
	RK_ASSERT_EQ_INT(0, rk_elf_rpath_tag(&e, m.len, tag));
	/* what patchelf writes: the same file with DT_RPATH in that entry */
	make_elf(&want, is64, be, DT_RPATH, &off);
	RK_ASSERT_EQ_MEM(want.b + off, tag, e.tag_size);
	fx_blob(m.b, m.len, id);
	RK_ASSERT_EQ_INT(0, rk_elf_runpath_to_rpath(&e, id, m.len, NULL, &c));
	RK_ASSERT(c != NULL);
	RK_ASSERT_EQ_INT((int)m.len, (int)c->size);
	got = fx_composite_read(c);
	RK_ASSERT_EQ_MEM(want.b, got, m.len);
	rk_elf_info_mem(got, m.len, &after);
	RK_ASSERT_EQ_INT(0, (int)after.runpath_tag_off); /* DT_RPATH now: nothing to do */
	RK_ASSERT_EQ_INT(1, rk_elf_rpath_tag(&after, m.len, tag));
	free(got);
	rk_composite_free(c);
}

RK_TEST(elf64_little_endian)
{
	splice_and_check(1, 0);
}

RK_TEST(elf64_big_endian)
{
	splice_and_check(1, 1);
}

RK_TEST(elf32_little_endian)
{
	splice_and_check(0, 0);
}

RK_TEST(elf32_big_endian)
{
	splice_and_check(0, 1);
}

RK_TEST(nothing_to_change)
{
	struct img m;
	struct rk_elf_info e;
	struct rk_composite *c = (struct rk_composite *)1;
	unsigned char tag[8];
	char id[65];
	size_t off;

	make_elf(&m, 1, 0, DT_RPATH, &off); /* already DT_RPATH */
	rk_elf_info_mem(m.b, m.len, &e);
	RK_ASSERT_EQ_INT(0, (int)e.runpath_tag_off);
	fx_blob(m.b, m.len, id);
	RK_ASSERT_EQ_INT(0, rk_elf_runpath_to_rpath(&e, id, m.len, NULL, &c));
	RK_ASSERT(c == NULL);
	/* an entry past the end of the file (a damaged one): left as it is */
	make_elf(&m, 0, 1, DT_RUNPATH, &off);
	rk_elf_info_mem(m.b, m.len, &e);
	RK_ASSERT_EQ_INT(1, rk_elf_rpath_tag(&e, off + 2, tag));
	RK_ASSERT_EQ_INT(0, rk_elf_runpath_to_rpath(&e, id, off + 2, NULL, &c));
	RK_ASSERT(c == NULL);
	RK_ASSERT_EQ_INT(0, rk_elf_rpath_tag(&e, off + 4, tag));
}
