/* kpack_elf.c: the transform of rk/kpack_elf.h (kpack_elf_read.c reads the input,
 * kpack_elf_verify.c verifies the result).
 *
 * The transform replays rocm-kpack's kpack_offload_binary (kpack-format.md 3.3) on a model
 * of the output file: the headers as GElf structs, the bytes appended at EOF in memory
 * (the "tail"), edits of the original bytes as a list of patches and the one range the
 * zero-paging deletes. Offsets in the model are those of the file at the current step,
 * as in the reference tool; the tail starts at the original size n, and after the cut
 * an offset o >= AO of the current file is o + L in the uncut one. Only at the end is
 * the model turned into a composite over the original, so the input (which may be a large
 * read-only mapping) is never copied. */
#include <endian.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "formats/archive/msgpack_read.h"
#include "formats/gpu/kpack_elf_int.h"
#include "rk/kpack_elf.h"
#include "util/le.h"

/* ---------------------------------------------------------------------------------------
 * The model of the output. */

struct tail_seg {
	uint64_t off, len; /* in the tail */
	int zero;
	size_t at; /* in tx.tb when not zero */
};

struct patch {
	uint64_t off; /* in the uncut output, < n */
	size_t at, len; /* in tx.pb */
};

struct tx {
	const struct elf_in *in;
	uint64_t n;
	GElf_Ehdr eh;
	GElf_Phdr *ph;
	size_t phn, phcap;
	GElf_Shdr *sh;
	size_t shn;
	unsigned char *tb; /* tail bytes */
	size_t tblen, tbcap;
	struct tail_seg *ts;
	size_t tsn, tscap;
	uint64_t tlen; /* tail length */
	struct patch *pv;
	size_t pn, pcap;
	unsigned char *pb;
	size_t pblen, pbcap;
	int cut;
	uint64_t ao, l; /* the cut range [ao, ao+l) in the uncut output */
	int relocated; /* the phdr table was moved to EOF */
	struct rk_err *err;
};

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return 0;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / elem)
			return -ENOMEM;
		ncap *= 2;
	}
	q = realloc(*p, ncap * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = ncap;
	return 0;
}

static uint64_t cur_size(const struct tx *t)
{
	return t->n + t->tlen - (t->cut ? t->l : 0);
}

/* Append len bytes (p, or zeros when p is NULL) at EOF; *at = their offset now. A gap
 * of zeros that is never edited again may become a zero piece instead of bytes. */
static int append_x(struct tx *t, const void *p, uint64_t len, uint64_t *at, int gap)
{
	struct tail_seg *last = t->tsn ? &t->ts[t->tsn - 1] : NULL;
	int zero = gap && !p && len >= ZERO_RUN;

	if (at)
		*at = cur_size(t);
	if (!len)
		return 0;
	if (!zero) {
		if (len > SIZE_MAX - t->tblen ||
		    grow((void **)&t->tb, &t->tbcap, t->tblen + (size_t)len, 1))
			return rk_err_set(t->err, -ENOMEM, "out of memory");
		if (p)
			memcpy(t->tb + t->tblen, p, (size_t)len);
		else
			memset(t->tb + t->tblen, 0, (size_t)len);
	}
	if (last && !zero && !last->zero) {
		last->len += len;
	} else {
		if (grow((void **)&t->ts, &t->tscap, t->tsn + 1, sizeof(*t->ts)))
			return rk_err_set(t->err, -ENOMEM, "out of memory");
		t->ts[t->tsn++] = (struct tail_seg){t->tlen, len, zero, t->tblen};
	}
	if (!zero)
		t->tblen += (size_t)len;
	t->tlen += len;
	return 0;
}

static int append(struct tx *t, const void *p, uint64_t len, uint64_t *at)
{
	return append_x(t, p, len, at, 0);
}

static int pad_to_page(struct tx *t)
{
	uint64_t s = cur_size(t);

	return append(t, NULL, round_up(s) - s, NULL);
}

/* Overwrite [off, off+len) of the current file. */
static int put(struct tx *t, uint64_t off, const void *p, size_t len)
{
	uint64_t pre = off;

	if (t->cut && off >= t->ao) {
		pre = off + t->l;
	} else if (t->cut && len > t->ao - off) {
		return rk_err_set(t->err, -EBADMSG, "edit at %#llx crosses the cut range",
				  (unsigned long long)off);
	}
	if (pre >= t->n) {
		uint64_t o = pre - t->n;

		for (size_t i = 0; i < t->tsn; i++) {
			const struct tail_seg *s = &t->ts[i];

			if (o >= s->off && o - s->off < s->len) {
				if (s->zero || len > s->len - (o - s->off))
					break;
				memcpy(t->tb + s->at + (o - s->off), p, len);
				return 0;
			}
		}
		return rk_err_set(t->err, -EBADMSG, "edit at %#llx is outside the appended data",
				  (unsigned long long)off);
	}
	if (len > t->n - pre)
		return rk_err_set(t->err, -EBADMSG, "edit at %#llx crosses the end of the input",
				  (unsigned long long)off);
	if (grow((void **)&t->pv, &t->pcap, t->pn + 1, sizeof(*t->pv)) ||
	    grow((void **)&t->pb, &t->pbcap, t->pblen + len, 1))
		return rk_err_set(t->err, -ENOMEM, "out of memory");
	memcpy(t->pb + t->pblen, p, len);
	t->pv[t->pn++] = (struct patch){pre, t->pblen, len};
	t->pblen += len;
	return 0;
}

static void phdr_bytes(const GElf_Phdr *p, unsigned char *b)
{
	rk_put_le32(b, p->p_type);
	rk_put_le32(b + 4, p->p_flags);
	rk_put_le64(b + 8, p->p_offset);
	rk_put_le64(b + 16, p->p_vaddr);
	rk_put_le64(b + 24, p->p_paddr);
	rk_put_le64(b + 32, p->p_filesz);
	rk_put_le64(b + 40, p->p_memsz);
	rk_put_le64(b + 48, p->p_align);
}

static void shdr_bytes(const GElf_Shdr *s, unsigned char *b)
{
	rk_put_le32(b, s->sh_name);
	rk_put_le32(b + 4, s->sh_type);
	rk_put_le64(b + 8, s->sh_flags);
	rk_put_le64(b + 16, s->sh_addr);
	rk_put_le64(b + 24, s->sh_offset);
	rk_put_le64(b + 32, s->sh_size);
	rk_put_le32(b + 40, s->sh_link);
	rk_put_le32(b + 44, s->sh_info);
	rk_put_le64(b + 48, s->sh_addralign);
	rk_put_le64(b + 56, s->sh_entsize);
}

/* The program header table entries as bytes, padded with zeros to slots entries. */
static unsigned char *phdr_table(const struct tx *t, size_t slots)
{
	unsigned char *b = calloc(slots ? slots : 1, PHDR_SIZE);

	if (b)
		for (size_t i = 0; i < t->phn; i++)
			phdr_bytes(&t->ph[i], b + i * PHDR_SIZE);
	return b;
}

static int add_phdr(struct tx *t, const GElf_Phdr *p)
{
	if (t->phn + 1 >= PN_XNUM)
		return rk_err_set(t->err, -EINVAL, "too many program headers");
	if (grow((void **)&t->ph, &t->phcap, t->phn + 1, sizeof(*t->ph)))
		return rk_err_set(t->err, -ENOMEM, "out of memory");
	t->ph[t->phn++] = *p;
	return 0;
}

static uint64_t max_load_end(const GElf_Phdr *ph, size_t phn)
{
	uint64_t m = 0;

	for (size_t i = 0; i < phn; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_vaddr + ph[i].p_memsz > m)
			m = ph[i].p_vaddr + ph[i].p_memsz;
	return m;
}

/* ProgramHeaderManager.get_min_content_offset: the first section or file-backed PT_LOAD
 * after e_phoff. Like the reference tool it looks at the section headers as they are
 * when the table is written (during zero-paging they are still the uncut ones) and at
 * the first nph program headers (the ones the file had before this write). */
static uint64_t min_content(const struct tx *t, size_t nph)
{
	uint64_t m = cur_size(t), phoff = t->eh.e_phoff;

	for (size_t i = 0; i < t->shn; i++)
		if (t->sh[i].sh_type != SHT_NULL && t->sh[i].sh_offset > phoff &&
		    t->sh[i].sh_offset < m)
			m = t->sh[i].sh_offset;
	for (size_t i = 0; i < nph; i++)
		if (t->ph[i].p_type == PT_LOAD && t->ph[i].p_filesz && t->ph[i].p_offset > phoff &&
		    t->ph[i].p_offset < m)
			m = t->ph[i].p_offset;
	return m;
}

/* ProgramHeaderManager.apply (kpack-format.md 3.5). */
static int phdr_apply(struct tx *t, size_t nph_for_min)
{
	uint64_t m = min_content(t, nph_for_min), avail = m > t->eh.e_phoff ? m - t->eh.e_phoff : 0;
	unsigned char *b;
	size_t slots;
	uint64_t vaddr, off;
	GElf_Phdr load;
	int rc;

	if ((uint64_t)t->phn * PHDR_SIZE <= avail) {
		if (!(b = phdr_table(t, t->phn)))
			return rk_err_set(t->err, -ENOMEM, "out of memory");
		rc = put(t, t->eh.e_phoff, b, t->phn * PHDR_SIZE);
		free(b);
		t->eh.e_phnum = (GElf_Half)t->phn;
		return rc;
	}
	vaddr = max_load_end(t->ph, t->phn);
	if (vaddr > UINT64_MAX - 2 * PAGE)
		return rk_err_set(t->err, -EBADMSG,
				  "PT_LOAD segments reach the end of the address space");
	vaddr = round_up(vaddr);
	if ((rc = pad_to_page(t)))
		return rc;
	off = cur_size(t);
	slots = (t->phn + 1 + PHDR_SPARE - 1) / PHDR_SPARE * PHDR_SPARE;
	for (size_t i = 0; i < t->phn; i++) {
		if (t->ph[i].p_type != PT_PHDR)
			continue;
		t->ph[i].p_offset = off;
		t->ph[i].p_vaddr = t->ph[i].p_paddr = vaddr;
		t->ph[i].p_filesz = t->ph[i].p_memsz = slots * PHDR_SIZE;
		break;
	}
	load = (GElf_Phdr){.p_type = PT_LOAD,
			   .p_flags = PF_R,
			   .p_offset = off,
			   .p_vaddr = vaddr,
			   .p_paddr = vaddr,
			   .p_filesz = slots * PHDR_SIZE,
			   .p_memsz = slots * PHDR_SIZE,
			   .p_align = PAGE};
	if ((rc = add_phdr(t, &load)))
		return rc;
	if (!(b = phdr_table(t, slots)))
		return rk_err_set(t->err, -ENOMEM, "out of memory");
	rc = append(t, b, slots * PHDR_SIZE, NULL);
	free(b);
	t->eh.e_phoff = off;
	t->eh.e_phnum = (GElf_Half)t->phn;
	t->relocated = 1;
	return rc;
}

static void tx_release(struct tx *t)
{
	free(t->ph);
	free(t->sh);
	free(t->tb);
	free(t->ts);
	free(t->pv);
	free(t->pb);
}

/* Steps 1 and 2: the marker as a new section, then mapped by a new PF_R PT_LOAD. */
static int add_marker(struct tx *t, const void *m, size_t mlen, uint64_t *mvaddr)
{
	const struct elf_in *in = t->in;
	const GElf_Shdr *old = &in->sh[in->shstrndx];
	GElf_Shdr *ss, ns = {0};
	uint64_t moff, soff, shoff, vaddr, off;
	GElf_Phdr load;
	size_t nph;
	int rc;

	/* 1a-c: marker bytes, then .shstrtab + the new name, then the new header. */
	if ((rc = append(t, m, mlen, &moff)) ||
	    (rc = append(t, in->img + old->sh_offset, old->sh_size, &soff)) ||
	    (rc = append(t, MARKER_NAME, sizeof(MARKER_NAME), NULL)))
		return rc;
	if (old->sh_size > UINT32_MAX - sizeof(MARKER_NAME))
		return rk_err_set(t->err, -EBADMSG, "'.shstrtab' is too large");
	ns.sh_name = (GElf_Word)old->sh_size;
	ns.sh_type = SHT_PROGBITS;
	ns.sh_offset = moff;
	ns.sh_size = mlen;
	ns.sh_addralign = 1;
	ss = &t->sh[in->shstrndx];
	ss->sh_offset = soff;
	ss->sh_size += sizeof(MARKER_NAME);
	t->sh[t->shn++] = ns;
	/* 1d: the whole section header table at EOF (written at the end, in place). */
	if ((rc = append(t, NULL, (uint64_t)t->shn * SHDR_SIZE, &shoff)))
		return rc;
	t->eh.e_shoff = shoff;
	t->eh.e_shnum = (GElf_Half)t->shn;

	/* 2a-b: an address above every PT_LOAD; a page-congruent second copy if needed. */
	vaddr = max_load_end(t->ph, t->phn);
	if (vaddr > UINT64_MAX - 4 * PAGE - MARKER_MAX)
		return rk_err_set(t->err, -EBADMSG,
				  "PT_LOAD segments reach the end of the address space");
	vaddr = round_up(vaddr);
	off = moff;
	if (off % PAGE != vaddr % PAGE) {
		if ((rc = pad_to_page(t)) || (rc = append(t, m, mlen, &off)))
			return rc;
	}
	/* 2c-d: the new PT_LOAD, then the table written in place or moved. */
	load = (GElf_Phdr){.p_type = PT_LOAD,
			   .p_flags = PF_R,
			   .p_offset = off,
			   .p_vaddr = vaddr,
			   .p_paddr = vaddr,
			   .p_filesz = mlen,
			   .p_memsz = mlen,
			   .p_align = PAGE};
	nph = t->phn;
	if ((rc = add_phdr(t, &load)) || (rc = phdr_apply(t, nph)))
		return rc;
	/* 2e */
	t->sh[t->shn - 1].sh_flags |= SHF_ALLOC;
	t->sh[t->shn - 1].sh_addr = vaddr;
	t->sh[t->shn - 1].sh_offset = off;
	*mvaddr = vaddr;
	return 0;
}

/* Steps 3 to 5: wrappers HIPF -> HIPK pointing at the marker, their RELA relocations
 * made RELATIVE to it, and no RELATIVE relocation left pointing into .hip_fatbin. */
static int redirect(struct tx *t, uint64_t mvaddr)
{
	const struct elf_in *in = t->in;
	const GElf_Shdr *seg = &in->sh[in->segment], *fb = &in->sh[in->fatbin];
	uint64_t segoff = 0, nw = seg->sh_size / WRAPPER_SIZE;
	unsigned char *w = NULL, *done = NULL;
	int rc = 0;

	if (seg->sh_type != SHT_PROGBITS)
		return rk_err_set(t->err, -EBADMSG, "'.hipFatBinSegment' has no file data");
	if (seg->sh_size % WRAPPER_SIZE)
		return rk_err_set(t->err, -EBADMSG,
				  "'.hipFatBinSegment' size %llu is not a multiple of %u",
				  (unsigned long long)seg->sh_size, WRAPPER_SIZE);
	if (!nw)
		goto relocs;
	if (!kelf_load_at(t->ph, t->phn, seg->sh_addr, seg->sh_size, &segoff) ||
	    !in_file(segoff, seg->sh_size, t->n))
		return rk_err_set(
			t->err, -EBADMSG,
			"'.hipFatBinSegment' at %#llx is not in the file data of a PT_LOAD",
			(unsigned long long)seg->sh_addr);
	w = malloc(seg->sh_size);
	done = calloc(nw, 1);
	if (!w || !done) {
		rc = rk_err_set(t->err, -ENOMEM, "out of memory");
		goto out;
	}
	memcpy(w, in->img + segoff, seg->sh_size);
	for (uint64_t i = 0; i < nw; i++) {
		unsigned char *p = w + i * WRAPPER_SIZE;
		uint32_t magic = rk_le32(p);

		/* Step 3 writes the marker address at +8 (through the PT_LOAD holding it). Step
		 * 4 of the reference tool then writes 0 there, leaving the target only in the
		 * RELA addend; we keep the real address instead, which is also right for ET_EXEC
		 * and for binaries whose relocations are RELR or missing (kpack-format.md 3.3
		 * step 4, 8.3; the COFF path of the reference tool does the same). */
		rk_put_le64(p + 8, mvaddr);
		if (magic == HIPK_MAGIC)
			continue; /* already converted: the reference tool skips it */
		if (magic != HIPF_MAGIC) {
			rc = rk_err_set(t->err, -EBADMSG,
					"wrapper %llu at offset %#llx: magic %#x is not HIPF",
					(unsigned long long)i,
					(unsigned long long)(segoff + i * WRAPPER_SIZE), magic);
			goto out;
		}
		rk_put_le32(p, HIPK_MAGIC);
		if (i > UINT32_MAX) {
			rc = rk_err_set(t->err, -EBADMSG, "too many wrappers");
			goto out;
		}
		rk_put_le32(p + 16, (uint32_t)i);
	}
	if ((rc = put(t, segoff, w, seg->sh_size)))
		goto out;
relocs:
	for (size_t s = 1; s < in->shn; s++) {
		const GElf_Shdr *r = &in->sh[s];
		uint64_t cnt;

		if (r->sh_type != SHT_RELA)
			continue;
		if ((r->sh_entsize && r->sh_entsize != RELA_SIZE) || r->sh_size % RELA_SIZE) {
			rc = rk_err_set(t->err, -EBADMSG,
					"RELA section %zu: entry size %llu or size %llu is not a "
					"multiple of %u",
					s, (unsigned long long)r->sh_entsize,
					(unsigned long long)r->sh_size, RELA_SIZE);
			goto out;
		}
		cnt = r->sh_size / RELA_SIZE;
		for (uint64_t k = 0; k < cnt; k++) {
			const unsigned char *e = in->img + r->sh_offset + k * RELA_SIZE;
			uint64_t ro = rk_le64(e), info = rk_le64(e + 8), add = rk_le64(e + 16), i;

			/* Step 3 (ET_DYN): the first RELA entry at each wrapper pointer. */
			if (in->eh.e_type == ET_DYN && nw && ro >= seg->sh_addr &&
			    ro - seg->sh_addr < seg->sh_size &&
			    (ro - seg->sh_addr) % WRAPPER_SIZE == 8 &&
			    !done[i = (ro - seg->sh_addr) / WRAPPER_SIZE]) {
				unsigned char ne[RELA_SIZE];

				done[i] = 1;
				rk_put_le64(ne, ro);
				rk_put_le64(ne + 8, R_RELATIVE);
				rk_put_le64(ne + 16, mvaddr);
				if ((rc = put(t, r->sh_offset + k * RELA_SIZE, ne, RELA_SIZE)))
					goto out;
				continue;
			}
			/* Step 5 (verify_no_fatbin_relocations). */
			if (ELF64_R_TYPE(info) == R_RELATIVE && add >= fb->sh_addr &&
			    add - fb->sh_addr < fb->sh_size) {
				rc = rk_err_set(
					t->err, -EBADMSG,
					"relocation at %#llx still points into '.hip_fatbin' "
					"(%#llx)",
					(unsigned long long)ro, (unsigned long long)add);
				goto out;
			}
		}
	}
out:
	free(w);
	free(done);
	return rc;
}

/* Step 6: kpack-format.md 3.4. */
static int zero_page(struct tx *t)
{
	const struct elf_in *in = t->in;
	const GElf_Shdr *fs = &in->sh[in->fatbin];
	uint64_t S = fs->sh_addr, Z = fs->sh_size, O = fs->sh_offset, E, A, B, L, AO;
	uint64_t post_fsz;
	GElf_Phdr T, pieces[4];
	size_t ti = SIZE_MAX, np = 0, oldn;
	int rc;

	if (S > UINT64_MAX - 2 * PAGE || Z > UINT64_MAX - 2 * PAGE - S)
		return rk_err_set(t->err, -EBADMSG, "'.hip_fatbin' wraps around the address space");
	E = S + Z;
	A = round_up(S);
	B = round_down(E);
	if (A >= B)
		return 0;
	L = B - A;
	if (E % PAGE == 0)
		L -= PAGE; /* keep one page: no NOBITS collision with what follows (58fa82b) */
	if (!L)
		return 0;
	AO = O + (A - S);
	/* The first program header holding S (any type, as the reference tool looks). */
	for (size_t i = 0; i < t->phn && ti == SIZE_MAX; i++)
		if (S >= t->ph[i].p_vaddr && S - t->ph[i].p_vaddr < t->ph[i].p_memsz)
			ti = i;
	if (ti == SIZE_MAX || t->ph[ti].p_type != PT_LOAD)
		return rk_err_set(t->err, -EBADMSG, "'.hip_fatbin' at %#llx is not in a PT_LOAD",
				  (unsigned long long)S);
	T = t->ph[ti];
	if (O < T.p_offset || O - T.p_offset != S - T.p_vaddr || Z > T.p_filesz ||
	    O - T.p_offset > T.p_filesz - Z || E - T.p_vaddr > T.p_memsz)
		return rk_err_set(t->err, -EBADMSG,
				  "'.hip_fatbin' [%#llx, +%#llx) does not match its PT_LOAD",
				  (unsigned long long)O, (unsigned long long)Z);
	/* The edits made so far must all survive the cut. */
	for (size_t i = 0; i < t->pn; i++)
		if (t->pv[i].off < AO + L && AO < t->pv[i].off + t->pv[i].len)
			return rk_err_set(
				t->err, -EBADMSG,
				"an edited header or wrapper at %#llx lies inside '.hip_fatbin'",
				(unsigned long long)t->pv[i].off);
	t->cut = 1;
	t->ao = AO;
	t->l = L;
	if (t->eh.e_phoff > AO)
		t->eh.e_phoff -= L;
	if (t->eh.e_shoff > AO)
		t->eh.e_shoff -= L;

	if (T.p_vaddr < S)
		pieces[np++] = (GElf_Phdr){.p_vaddr = T.p_vaddr,
					   .p_memsz = S - T.p_vaddr,
					   .p_offset = T.p_offset,
					   .p_filesz = S - T.p_vaddr < T.p_filesz ? S - T.p_vaddr
										  : T.p_filesz};
	if (S < A)
		pieces[np++] = (GElf_Phdr){
			.p_vaddr = S, .p_memsz = A - S, .p_offset = O, .p_filesz = A - S};
	pieces[np++] = (GElf_Phdr){.p_vaddr = A, .p_memsz = E - A, .p_offset = AO, .p_filesz = 0};
	post_fsz = (T.p_offset + T.p_filesz) - (O + Z);
	if (E < T.p_vaddr + T.p_memsz && post_fsz > 0)
		pieces[np++] = (GElf_Phdr){.p_vaddr = E,
					   .p_memsz = T.p_vaddr + T.p_memsz - E,
					   .p_offset = O + Z - L,
					   .p_filesz = post_fsz};
	for (size_t i = 0; i < np; i++) {
		pieces[i].p_type = PT_LOAD;
		pieces[i].p_flags = T.p_flags;
		pieces[i].p_align = T.p_align;
		pieces[i].p_paddr = pieces[i].p_vaddr;
	}
	for (size_t i = 0; i < t->phn; i++)
		if (i != ti && t->ph[i].p_offset > AO)
			t->ph[i].p_offset -= L;
	/* Replace T by the pieces, in place. */
	oldn = t->phn;
	if (oldn - 1 + np >= PN_XNUM)
		return rk_err_set(t->err, -EINVAL, "too many program headers");
	if (grow((void **)&t->ph, &t->phcap, oldn - 1 + np, sizeof(*t->ph)))
		return rk_err_set(t->err, -ENOMEM, "out of memory");
	memmove(&t->ph[ti + np], &t->ph[ti + 1], (oldn - ti - 1) * sizeof(*t->ph));
	memcpy(&t->ph[ti], pieces, np * sizeof(*pieces));
	t->phn = oldn - 1 + np;
	if ((rc = phdr_apply(t, t->phn)))
		return rc;
	for (size_t i = 0; i < t->shn; i++) {
		if (i == in->fatbin)
			t->sh[i].sh_type = SHT_NOBITS; /* sh_offset O kept, as the reference tool */
		else if (t->sh[i].sh_offset > AO)
			t->sh[i].sh_offset -= L;
	}
	return 0;
}

/* Step 7: normalize_phdr_vaddr (kpack-format.md 3.6), for executables whose table we
 * moved into its own PT_LOAD. Old kernels compute AT_PHDR as load address + e_phoff,
 * where the load address is p_vaddr - p_offset of the first PT_LOAD; the reference tool
 * pins p_vaddr = p_offset, which is that rule for PIE (first PT_LOAD at 0). We use
 * p_vaddr = p_offset + bias with bias taken from the first PT_LOAD, which is the same
 * for PIE and keeps ET_EXEC (bias 0x400000) working instead of mapping the table at a
 * low address. When the table must be copied we copy the covering PT_LOAD's whole
 * p_filesz (the reference copies e_phnum entries only, leaving that PT_LOAD extending
 * past EOF). */
static int normalize_phdr(struct tx *t)
{
	size_t ci = SIZE_MAX, pi = SIZE_MAX, first = SIZE_MAX;
	uint64_t ceiling = 0, bias, pc, phoff = t->eh.e_phoff;
	int interp = 0, rc;

	for (size_t i = 0; i < t->phn; i++) {
		const GElf_Phdr *p = &t->ph[i];

		interp |= p->p_type == PT_INTERP;
		if (p->p_type == PT_PHDR)
			pi = i;
		if (p->p_type == PT_LOAD && first == SIZE_MAX)
			first = i;
		if (p->p_type == PT_LOAD && p->p_offset <= phoff &&
		    phoff - p->p_offset < p->p_filesz)
			ci = i;
	}
	if (!interp || !t->relocated || ci == SIZE_MAX || t->ph[ci].p_offset != phoff)
		return 0;
	bias = t->ph[first].p_vaddr - t->ph[first].p_offset;
	if (t->ph[ci].p_vaddr == phoff + bias)
		return 0;
	for (size_t i = 0; i < t->phn; i++)
		if (i != ci && t->ph[i].p_type == PT_LOAD &&
		    t->ph[i].p_vaddr + t->ph[i].p_memsz > ceiling)
			ceiling = t->ph[i].p_vaddr + t->ph[i].p_memsz;
	pc = round_up(ceiling);
	if (phoff + bias < pc) {
		uint64_t need = pc - bias > pc ? 0 : pc - bias, s = cur_size(t), off;
		uint64_t fsz = t->ph[ci].p_filesz;
		unsigned char *b;

		if (need > s && (rc = append_x(t, NULL, need - s, NULL, 1)))
			return rc;
		if ((rc = pad_to_page(t)))
			return rc;
		if (fsz > (uint64_t)PN_XNUM * PHDR_SIZE || fsz < (uint64_t)t->phn * PHDR_SIZE)
			return rk_err_set(t->err, -EBADMSG,
					  "unexpected program header segment size");
		if (!(b = phdr_table(t, (size_t)(fsz / PHDR_SIZE) + 1)))
			return rk_err_set(t->err, -ENOMEM, "out of memory");
		rc = append(t, b, fsz, &off);
		free(b);
		if (rc)
			return rc;
		phoff = t->eh.e_phoff = off;
		t->ph[ci].p_offset = off;
		if (pi != SIZE_MAX)
			t->ph[pi].p_offset = off;
	}
	t->ph[ci].p_vaddr = t->ph[ci].p_paddr = phoff + bias;
	if (pi != SIZE_MAX)
		t->ph[pi].p_vaddr = t->ph[pi].p_paddr = t->ph[pi].p_offset + bias;
	return 0;
}

/* Writes the final headers into the model and turns it into a composite. */
static int emit(struct tx *t, struct rk_composite *out)
{
	unsigned char eh[EHDR_SIZE], *b;
	int rc;

	b = malloc(t->shn * SHDR_SIZE);
	if (!b)
		return rk_err_set(t->err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < t->shn; i++)
		shdr_bytes(&t->sh[i], b + i * SHDR_SIZE);
	rc = put(t, t->eh.e_shoff, b, t->shn * SHDR_SIZE);
	free(b);
	if (rc)
		return rc;
	if (!(b = phdr_table(t, t->phn)))
		return rk_err_set(t->err, -ENOMEM, "out of memory");
	rc = put(t, t->eh.e_phoff, b, t->phn * PHDR_SIZE);
	free(b);
	if (rc)
		return rc;
	memcpy(eh, t->in->img, EHDR_SIZE);
	rk_put_le64(eh + 32, t->eh.e_phoff);
	rk_put_le64(eh + 40, t->eh.e_shoff);
	rk_put_le16(eh + 56, t->eh.e_phnum);
	rk_put_le16(eh + 60, t->eh.e_shnum);
	if ((rc = put(t, 0, eh, EHDR_SIZE)))
		return rc;

	if ((rc = rk_composite_source(out, 0, 0, t->n)))
		goto fail;
	for (size_t i = 0; i < t->tsn; i++) {
		const struct tail_seg *s = &t->ts[i];

		rc = s->zero ? rk_composite_zero(out, s->len)
			     : rk_composite_bytes(out, t->tb + s->at, (size_t)s->len);
		if (rc)
			goto fail;
	}
	for (size_t i = 0; i < t->pn; i++)
		if ((rc = rk_composite_write(out, t->pv[i].off, t->pb + t->pv[i].at, t->pv[i].len)))
			goto fail;
	if (t->cut && (rc = rk_composite_cut(out, t->ao, t->l)))
		goto fail;
	if (out->size != cur_size(t)) {
		rc = rk_err_set(t->err, -EIO, "composite size %llu is not the planned %llu",
				(unsigned long long)out->size, (unsigned long long)cur_size(t));
		goto fail_set;
	}
	return 0;
fail:
	rk_err_set(t->err, rc, "cannot build the composite: %s", strerror(-rc));
fail_set:
	rk_composite_release(out);
	return rc;
}

int rk_kpack_elf_transform(const void *img, size_t n, const void *m, size_t mlen,
			   struct rk_composite *out, struct rk_err *err)
{
	struct elf_in in;
	struct tx t = {0};
	uint64_t mvaddr = 0;
	int rc = kelf_in_parse(img, n, &in, err);

	memset(out, 0, sizeof(*out));
	if (rc <= 0) {
		if (!rc)
			rc = rk_err_set(err, -EINVAL, "not an ELF64 LE file");
		goto out;
	}
	if (!in.fatbin) {
		rc = rk_err_set(err, -EINVAL, "not a fat binary: no '.hip_fatbin' section");
		goto out;
	}
	if (in.marker) {
		rc = rk_err_set(err, -EALREADY, "already split: '%s' exists", MARKER_NAME);
		goto out;
	}
	if (in.sh[in.fatbin].sh_type == SHT_NOBITS) {
		rc = rk_err_set(err, -EINVAL, "'.hip_fatbin' is NOBITS but there is no '%s'",
				MARKER_NAME);
		goto out;
	}
	if (in.eh.e_machine != EM_X86_64) {
		rc = rk_err_set(err, -EINVAL, "unsupported machine %u (only x86-64)",
				in.eh.e_machine);
		goto out;
	}
	if (!mlen || mlen > MARKER_MAX) {
		rc = rk_err_set(err, -EINVAL, "marker size %zu is not in [1, %u]", mlen,
				MARKER_MAX);
		goto out;
	}
	if (!in.phn || in.eh.e_phnum == PN_XNUM || in.eh.e_shnum == 0 ||
	    in.shn + 1 >= SHN_LORESERVE || in.eh.e_shstrndx >= SHN_LORESERVE) {
		rc = rk_err_set(err, -EINVAL,
				"no program headers, or extended section or segment numbering");
		goto out;
	}
	for (size_t i = 0; i < in.phn; i++) {
		const GElf_Phdr *p = &in.ph[i];

		if (p->p_type == PT_LOAD &&
		    (p->p_memsz > UINT64_MAX - p->p_vaddr || p->p_filesz > p->p_memsz ||
		     !in_file(p->p_offset, p->p_filesz, n))) {
			rc = rk_err_set(
				err, -EBADMSG,
				"PT_LOAD %zu [%#llx, +%#llx) is beyond the end of the file or "
				"the address space",
				i, (unsigned long long)p->p_offset,
				(unsigned long long)p->p_filesz);
			goto out;
		}
	}
	if (!in.segment) {
		rc = rk_err_set(err, -EBADMSG, "no '.hipFatBinSegment' section");
		goto out;
	}
	t.in = &in;
	t.n = n;
	t.eh = in.eh;
	t.err = err;
	t.phn = t.phcap = in.phn;
	t.shn = in.shn;
	t.ph = malloc(in.phn * sizeof(*t.ph));
	t.sh = malloc((in.shn + 1) * sizeof(*t.sh));
	if (!t.ph || !t.sh) {
		rc = rk_err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	memcpy(t.ph, in.ph, in.phn * sizeof(*t.ph));
	memcpy(t.sh, in.sh, in.shn * sizeof(*t.sh));
	if ((rc = add_marker(&t, m, mlen, &mvaddr)) || (rc = redirect(&t, mvaddr)) ||
	    (rc = zero_page(&t)) || (rc = normalize_phdr(&t)))
		goto out;
	/* Step 8: ElfVerifier on the result. */
	if ((rc = kelf_check_layout(&t.eh, t.ph, t.phn, t.sh, t.shn, in.shstrndx, cur_size(&t),
				    err))) {
		rk_err_wrap(err, rc, "the split binary would be invalid");
		goto out;
	}
	rc = emit(&t, out);
out:
	tx_release(&t);
	kelf_in_release(&in);
	return rc;
}
