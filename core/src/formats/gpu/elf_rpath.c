/* elf_rpath.c: see rk/elf_rpath.h.
 *
 * A small reader of its own (the ELF header, program headers, the dynamic section, the
 * dynamic string table and the section headers, each checked against the file) rather
 * than libelf: the edit touches only those, and a reader that does nothing else is easy
 * to check and to fuzz. The output is planned as a list of patches over the original
 * (written into the composite last) and one tail appended after a zero gap. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rk/elf_rpath.h"
#include "util/le.h"

#define EHDR_SIZE 64u
#define PHDR_SIZE 56u
#define SHDR_SIZE 64u
#define DYN_SIZE 16u
#define PAGE 0x1000u
#define MAX_ALIGN 0x10000u /* larger p_align values are taken as this for the new segment */
#define PN_XNUM_ 0xffffu
/* Addresses a rewritten file may end below (the reader takes up to twice that, so that
 * it reads back what the rewrite makes) */
#define ADDR_MAX ((uint64_t)1 << 61)

#define ET_EXEC_ 2u
#define ET_DYN_ 3u
#define PT_LOAD_ 1u
#define PT_DYNAMIC_ 2u
#define PT_INTERP_ 3u
#define PT_PHDR_ 6u
#define PF_W_ 2u
#define PF_R_ 4u
#define SHT_STRTAB_ 3u
#define SHT_DYNAMIC_ 6u
#define DT_NULL_ 0u
#define DT_STRTAB_ 5u
#define DT_STRSZ_ 10u
#define DT_RPATH_ 15u
#define DT_RUNPATH_ 29u
#define DT_FLAGS_1_ 0x6ffffffbu
#define DF_1_PIE_ 0x08000000u

struct ph {
	uint32_t type, flags;
	uint64_t off, vaddr, paddr, filesz, memsz, align;
};

struct elf {
	const unsigned char *p;
	uint64_t n;
	unsigned type, phnum, shnum;
	uint64_t phoff, shoff;
	struct ph *ph;
	size_t dyn; /* index of PT_DYNAMIC */
	uint64_t ndyn; /* entries up to and including the first DT_NULL */
	uint64_t dyn_slots; /* entries p_filesz holds */
	int64_t i_strtab, i_strsz, i_rpath, i_runpath; /* entry indices, -1 if absent */
	uint64_t strtab, strsz, stroff; /* DT_STRTAB, DT_STRSZ, its file offset */
	const char *old; /* the effective rpath string, or NULL */
	int exec_like; /* PT_INTERP or DF_1_PIE */
};

static int in_file(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

static uint64_t round_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

static void ph_read(const unsigned char *b, struct ph *h)
{
	h->type = rk_le32(b);
	h->flags = rk_le32(b + 4);
	h->off = rk_le64(b + 8);
	h->vaddr = rk_le64(b + 16);
	h->paddr = rk_le64(b + 24);
	h->filesz = rk_le64(b + 32);
	h->memsz = rk_le64(b + 40);
	h->align = rk_le64(b + 48);
}

static void ph_write(const struct ph *h, unsigned char *b)
{
	rk_put_le32(b, h->type);
	rk_put_le32(b + 4, h->flags);
	rk_put_le64(b + 8, h->off);
	rk_put_le64(b + 16, h->vaddr);
	rk_put_le64(b + 24, h->paddr);
	rk_put_le64(b + 32, h->filesz);
	rk_put_le64(b + 40, h->memsz);
	rk_put_le64(b + 48, h->align);
}

/* The file offset of [vaddr, vaddr+len) when one PT_LOAD holds it in its file bytes. */
static int vaddr_off(const struct elf *e, uint64_t vaddr, uint64_t len, uint64_t *off)
{
	for (unsigned i = 0; i < e->phnum; i++) {
		const struct ph *h = &e->ph[i];

		if (h->type != PT_LOAD_ || vaddr < h->vaddr || vaddr - h->vaddr >= h->filesz ||
		    len > h->filesz - (vaddr - h->vaddr))
			continue;
		*off = h->off + (vaddr - h->vaddr);
		return 0;
	}
	return -1;
}

static uint64_t dyn_tag(const struct elf *e, uint64_t i)
{
	return rk_le64(e->p + e->ph[e->dyn].off + i * DYN_SIZE);
}

static uint64_t dyn_val(const struct elf *e, uint64_t i)
{
	return rk_le64(e->p + e->ph[e->dyn].off + i * DYN_SIZE + 8);
}

/* 1 when p is not a dynamic ELF64 LE ET_EXEC/ET_DYN file, 0 with *e filled, -EBADMSG. */
static int parse(const void *img, size_t n, struct elf *e, struct rk_err *err)
{
	const unsigned char *p = img;
	const struct ph *d;
	int ndyn = 0;

	memset(e, 0, sizeof(*e));
	e->p = p;
	e->n = n;
	e->i_strtab = e->i_strsz = e->i_rpath = e->i_runpath = -1;
	if (n < 16 || memcmp(p, "\177ELF", 4) || p[4] != 2 || p[5] != 1)
		return 1;
	if (n < EHDR_SIZE)
		return rk_err_set(err, -EBADMSG, "truncated ELF header (%zu bytes)", n);
	e->type = rk_le16(p + 16);
	if (e->type != ET_EXEC_ && e->type != ET_DYN_)
		return 1;
	e->phoff = rk_le64(p + 32);
	e->shoff = rk_le64(p + 40);
	e->phnum = rk_le16(p + 56);
	e->shnum = rk_le16(p + 60);
	if (!e->phnum)
		return 1;
	if (e->phnum == PN_XNUM_ || rk_le16(p + 54) != PHDR_SIZE)
		return rk_err_set(err, -EBADMSG,
				  "unsupported program header table (%u entries of %u)", e->phnum,
				  rk_le16(p + 54));
	if (!in_file(e->phoff, (uint64_t)e->phnum * PHDR_SIZE, n))
		return rk_err_set(err, -EBADMSG,
				  "program header table is beyond the end of the file");
	if (e->shoff && e->shnum &&
	    (rk_le16(p + 58) != SHDR_SIZE || !in_file(e->shoff, (uint64_t)e->shnum * SHDR_SIZE, n)))
		return rk_err_set(err, -EBADMSG,
				  "section header table is beyond the end of the file");
	if (!(e->ph = calloc(e->phnum, sizeof(*e->ph))))
		return rk_err_set(err, -ENOMEM, "out of memory");
	for (unsigned i = 0; i < e->phnum; i++) {
		struct ph *h = &e->ph[i];

		ph_read(p + e->phoff + (uint64_t)i * PHDR_SIZE, h);
		if (h->type == PT_INTERP_)
			e->exec_like = 1;
		if (h->type == PT_DYNAMIC_) {
			e->dyn = i;
			ndyn++;
		}
		if (h->type == PT_LOAD_ &&
		    (h->filesz > h->memsz || !in_file(h->off, h->filesz, n) ||
		     h->vaddr > ADDR_MAX * 2 || h->memsz > ADDR_MAX * 2))
			return rk_err_set(err, -EBADMSG,
					  "PT_LOAD %u is beyond the end of the file or the address "
					  "space",
					  i);
	}
	if (!ndyn)
		return 1;
	if (ndyn > 1)
		return rk_err_set(err, -EBADMSG, "%d PT_DYNAMIC segments", ndyn);
	d = &e->ph[e->dyn];
	if (!in_file(d->off, d->filesz, n) || d->filesz < DYN_SIZE)
		return rk_err_set(err, -EBADMSG, "PT_DYNAMIC is beyond the end of the file");
	e->dyn_slots = d->filesz / DYN_SIZE;
	for (uint64_t i = 0;; i++) {
		uint64_t tag;

		if (i == e->dyn_slots)
			return rk_err_set(err, -EBADMSG, "the dynamic section has no DT_NULL");
		tag = dyn_tag(e, i);
		if (tag == DT_NULL_) {
			e->ndyn = i + 1;
			break;
		}
		if (tag == DT_STRTAB_ || tag == DT_STRSZ_) {
			int64_t *slot = tag == DT_STRTAB_ ? &e->i_strtab : &e->i_strsz;

			if (*slot >= 0)
				return rk_err_set(err, -EBADMSG,
						  "two DT_STRTAB or DT_STRSZ entries");
			*slot = (int64_t)i;
		}
		/* the last of each, as patchelf takes them */
		if (tag == DT_RPATH_)
			e->i_rpath = (int64_t)i;
		if (tag == DT_RUNPATH_)
			e->i_runpath = (int64_t)i;
		if (tag == DT_FLAGS_1_ && (dyn_val(e, i) & DF_1_PIE_))
			e->exec_like = 1;
	}
	if (e->i_strtab < 0 || e->i_strsz < 0)
		return rk_err_set(err, -EBADMSG, "no DT_STRTAB or DT_STRSZ");
	e->strtab = dyn_val(e, (uint64_t)e->i_strtab);
	e->strsz = dyn_val(e, (uint64_t)e->i_strsz);
	if (!e->strsz || e->strsz > UINT32_MAX || vaddr_off(e, e->strtab, e->strsz, &e->stroff))
		return rk_err_set(err, -EBADMSG,
				  "the dynamic string table (%#llx, %llu bytes) is not in the "
				  "file data of a PT_LOAD",
				  (unsigned long long)e->strtab, (unsigned long long)e->strsz);
	if (e->i_runpath >= 0 || e->i_rpath >= 0) {
		uint64_t o = dyn_val(e, (uint64_t)(e->i_runpath >= 0 ? e->i_runpath : e->i_rpath));
		const char *s = (const char *)p + e->stroff;

		if (o >= e->strsz || !memchr(s + o, '\0', e->strsz - o))
			return rk_err_set(err, -EBADMSG,
					  "the rpath string at %llu is outside the string table",
					  (unsigned long long)o);
		e->old = s + o;
	}
	return 0;
}

int rk_elf_rpath_get(const void *img, size_t n, char *buf, size_t len, int *is_rpath,
		     struct rk_err *err)
{
	struct elf e;
	int rc = parse(img, n, &e, err);

	if (rc == 1)
		rc = rk_err_set(err, -EINVAL, "not a dynamic ELF64 LE file");
	if (!rc) {
		const char *s = e.old ? e.old : "";

		*is_rpath = e.i_runpath < 0 && e.i_rpath >= 0;
		if (strlen(s) >= len)
			rc = rk_err_set(err, -ENOSPC, "rpath longer than %zu bytes", len);
		else
			memcpy(buf, s, strlen(s) + 1);
		if (!rc && !e.old)
			rc = 1;
	}
	free(e.ph);
	return rc;
}

/* A patch of the original: len bytes at off. */
struct patch {
	uint64_t off;
	unsigned char b[EHDR_SIZE];
	size_t len;
};

struct plan {
	struct patch v[16];
	size_t n;
	struct rk_err *err;
};

static int patch(struct plan *pl, uint64_t off, const void *b, size_t len)
{
	if (pl->n == sizeof(pl->v) / sizeof(pl->v[0]) || len > sizeof(pl->v[0].b))
		return rk_err_set(pl->err, -EBADMSG, "too many edits");
	pl->v[pl->n].off = off;
	memcpy(pl->v[pl->n].b, b, len);
	pl->v[pl->n++].len = len;
	return 0;
}

static int patch_dyn(struct plan *pl, const struct elf *e, uint64_t i, uint64_t tag, uint64_t val)
{
	unsigned char b[DYN_SIZE];

	rk_put_le64(b, tag);
	rk_put_le64(b + 8, val);
	return patch(pl, e->ph[e->dyn].off + i * DYN_SIZE, b, DYN_SIZE);
}

int rk_elf_rpath_add(const void *img, size_t n, const char *add, struct rk_composite *out,
		     struct rk_err *err)
{
	struct elf e;
	struct plan pl = {.err = err};
	size_t addlen = add ? strlen(add) : 0, oldlen, newlen;
	uint64_t max_end = 0, align = PAGE, bias = 0, F, V, tlen, o_ph, o_str, o_dyn = 0;
	unsigned char *tail = NULL, eh[EHDR_SIZE];
	int first = 1, move_dyn, rc;
	struct ph load;

	memset(out, 0, sizeof(*out));
	if (!addlen || addlen > RK_ELF_RPATH_ADD_MAX)
		return rk_err_set(err, -EINVAL, "the added rpath is empty or too long");
	if ((rc = parse(img, n, &e, err)))
		goto out;
	oldlen = e.old ? strlen(e.old) : 0;
	newlen = oldlen + (oldlen ? 1 : 0) + addlen;

	/* the address space and alignment of the new segment */
	for (unsigned i = 0; i < e.phnum; i++) {
		const struct ph *h = &e.ph[i];

		if (h->type != PT_LOAD_)
			continue;
		if (first) {
			bias = h->vaddr >= h->off ? h->vaddr - h->off : 1; /* 1: no usable bias */
			first = 0;
		}
		if (h->vaddr + h->memsz > max_end)
			max_end = h->vaddr + h->memsz;
		if (h->align > align && !(h->align & (h->align - 1)))
			align = h->align > MAX_ALIGN ? MAX_ALIGN : h->align;
	}
	if (first || max_end > ADDR_MAX || n > ADDR_MAX) {
		rc = rk_err_set(err, -EBADMSG, "no PT_LOAD segment, or addresses out of range");
		goto out;
	}
	/* an entry to add: in a spare DT_NULL slot, or the dynamic section moves */
	move_dyn = e.i_rpath < 0 && e.i_runpath < 0 && e.ndyn + 1 > e.dyn_slots;
	F = round_up(n, PAGE);
	if (e.exec_like && bias % align == 0 && max_end >= bias) {
		/* p_vaddr = p_offset + bias: above every segment */
		if (max_end - bias > F)
			F = round_up(max_end - bias, PAGE);
		V = F + bias;
	} else {
		V = round_up(max_end, align) + F % align;
	}
	if (F > UINT64_MAX / 2 || V > UINT64_MAX / 2) {
		rc = rk_err_set(err, -EBADMSG, "addresses out of range");
		goto out;
	}
	o_ph = 0;
	o_str = (uint64_t)(e.phnum + 1) * PHDR_SIZE;
	tlen = o_str + e.strsz + newlen + 1;
	if (move_dyn) {
		o_dyn = round_up(tlen, 8);
		tlen = o_dyn + (e.ndyn + 1) * DYN_SIZE;
	}
	if (!(tail = calloc(1, tlen))) {
		rc = rk_err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	/* the string table copy and the new string */
	memcpy(tail + o_str, e.p + e.stroff, e.strsz);
	{
		char *s = (char *)tail + o_str + e.strsz;

		if (oldlen) {
			memcpy(s, e.old, oldlen);
			s[oldlen] = ':';
			s += oldlen + 1;
		}
		memcpy(s, add, addlen);
	}
	/* the dynamic entries: DT_STRTAB, DT_STRSZ, every RPATH/RUNPATH as DT_RPATH */
	{
		uint64_t strtab = V + o_str, strsz = e.strsz + newlen + 1, rp = e.strsz;

		if (move_dyn) {
			unsigned char *d = tail + o_dyn;

			rk_put_le64(d, DT_RPATH_);
			rk_put_le64(d + 8, rp);
			memcpy(d + DYN_SIZE, e.p + e.ph[e.dyn].off, e.ndyn * DYN_SIZE);
			rk_put_le64(d + DYN_SIZE * (uint64_t)(e.i_strtab + 1) + 8, strtab);
			rk_put_le64(d + DYN_SIZE * (uint64_t)(e.i_strsz + 1) + 8, strsz);
		} else {
			rc = patch_dyn(&pl, &e, (uint64_t)e.i_strtab, DT_STRTAB_, strtab);
			if (!rc)
				rc = patch_dyn(&pl, &e, (uint64_t)e.i_strsz, DT_STRSZ_, strsz);
			if (!rc && e.i_rpath < 0 && e.i_runpath < 0) {
				/* the first DT_NULL becomes the entry, the next slot the end */
				rc = patch_dyn(&pl, &e, e.ndyn - 1, DT_RPATH_, rp);
				if (!rc)
					rc = patch_dyn(&pl, &e, e.ndyn, DT_NULL_, 0);
			}
			for (uint64_t i = 0; !rc && i < e.ndyn; i++) {
				uint64_t tag = dyn_tag(&e, i);

				if (tag == DT_RPATH_ || tag == DT_RUNPATH_)
					rc = patch_dyn(&pl, &e, i, DT_RPATH_, rp);
			}
			if (rc)
				goto out;
		}
	}
	/* the program headers: PT_PHDR and PT_DYNAMIC follow their data, one PT_LOAD more */
	load = (struct ph){.type = PT_LOAD_,
			   .flags = PF_R_ | PF_W_,
			   .off = F,
			   .vaddr = V,
			   .paddr = V,
			   .filesz = tlen,
			   .memsz = tlen,
			   .align = align};
	for (unsigned i = 0; i < e.phnum; i++) {
		struct ph h = e.ph[i];

		if (h.type == PT_PHDR_) {
			h.off = F + o_ph;
			h.vaddr = h.paddr = V + o_ph;
			h.filesz = h.memsz = (uint64_t)(e.phnum + 1) * PHDR_SIZE;
		}
		if (h.type == PT_DYNAMIC_ && move_dyn) {
			h.off = F + o_dyn;
			h.vaddr = h.paddr = V + o_dyn;
			h.filesz = h.memsz = (e.ndyn + 1) * DYN_SIZE;
		}
		ph_write(&h, tail + o_ph + (uint64_t)i * PHDR_SIZE);
	}
	ph_write(&load, tail + o_ph + (uint64_t)e.phnum * PHDR_SIZE);
	/* the ELF header */
	memcpy(eh, e.p, EHDR_SIZE);
	rk_put_le64(eh + 32, F + o_ph);
	rk_put_le16(eh + 56, (uint16_t)(e.phnum + 1));
	if ((rc = patch(&pl, 0, eh, EHDR_SIZE)))
		goto out;
	/* the section headers of .dynstr and .dynamic, when there are section headers */
	for (unsigned i = 1; e.shoff && i < e.shnum; i++) {
		const unsigned char *s = e.p + e.shoff + (uint64_t)i * SHDR_SIZE;
		unsigned char b[SHDR_SIZE];
		uint32_t type = rk_le32(s + 4);

		memcpy(b, s, SHDR_SIZE);
		if (type == SHT_STRTAB_ && rk_le64(s + 16) == e.strtab && e.strtab) {
			rk_put_le64(b + 16, V + o_str);
			rk_put_le64(b + 24, F + o_str);
			rk_put_le64(b + 32, e.strsz + newlen + 1);
		} else if (type == SHT_DYNAMIC_ && move_dyn && rk_le64(s + 24) == e.ph[e.dyn].off) {
			rk_put_le64(b + 16, V + o_dyn);
			rk_put_le64(b + 24, F + o_dyn);
			rk_put_le64(b + 32, (e.ndyn + 1) * DYN_SIZE);
		} else {
			continue;
		}
		if ((rc = patch(&pl, e.shoff + (uint64_t)i * SHDR_SIZE, b, SHDR_SIZE)))
			goto out;
	}
	/* the composite: the original, a zero gap, the tail, then the patches */
	if ((rc = rk_composite_source(out, 0, 0, n)) ||
	    (F > n && (rc = rk_composite_zero(out, F - n))) ||
	    (rc = rk_composite_bytes(out, tail, tlen)))
		goto fail;
	for (size_t i = 0; i < pl.n; i++)
		if ((rc = rk_composite_write(out, pl.v[i].off, pl.v[i].b, pl.v[i].len)))
			goto fail;
	goto out;
fail:
	rk_err_set(err, rc, "cannot build the composite: %s", strerror(-rc));
	rk_composite_release(out);
	memset(out, 0, sizeof(*out));
out:
	if (rc && rc != 1) {
		rk_composite_release(out);
		memset(out, 0, sizeof(*out));
	}
	free(tail);
	free(e.ph);
	return rc;
}
