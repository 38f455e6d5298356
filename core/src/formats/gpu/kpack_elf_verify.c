/* kpack_elf_verify.c: the verifier of a split host binary (rk_kpack_elf_verify,
 * rk/kpack_elf.h): the marker, the wrappers and the layout rocm-kpack's ElfVerifier
 * checks. */
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
 * Verification. */

/* The marker is one msgpack map with a non-empty "kpack_search_paths" array and a
 * "kernel_name" string (kpack-format.md 3.1). */
static int check_marker(const unsigned char *p, size_t len, struct rk_err *err)
{
	struct rk_mp_cursor c = RK_MP_CURSOR(p, len);
	struct rk_mp_head map, k, v;
	int paths = 0, name = 0;

	if (rk_mp_head(&c, &map) || map.kind != RK_MP_MAP || map.count > len)
		goto bad;
	for (uint64_t i = 0; i < map.count; i++) {
		const unsigned char *key;

		if (rk_mp_head(&c, &k))
			goto bad;
		key = p + c.off;
		/* keys and values: at most 32 container levels below the map */
		if (rk_mp_skip_body(&c, &k, MARKER_DEPTH) || rk_mp_head(&c, &v))
			goto bad;
		if (rk_mp_head_is(&k, key, "kpack_search_paths"))
			paths = v.kind == RK_MP_ARRAY && v.count > 0;
		else if (rk_mp_head_is(&k, key, "kernel_name"))
			name = v.kind == RK_MP_STR;
		if (rk_mp_skip_body(&c, &v, MARKER_DEPTH))
			goto bad;
	}
	if (!paths || !name)
		return rk_err_set(err, -EBADMSG, "'%s' lacks 'kpack_search_paths' or 'kernel_name'",
				  MARKER_NAME);
	return 0;
bad:
	return rk_err_set(err, -EBADMSG, "'%s' is not a msgpack map", MARKER_NAME);
}

static int verify_split(const struct elf_in *in, struct rk_err *err)
{
	const GElf_Shdr *mk = &in->sh[in->marker];
	const GElf_Phdr *p;
	uint64_t off = 0;
	int rc;

	if (mk->sh_type != SHT_PROGBITS || !(mk->sh_flags & SHF_ALLOC))
		return rk_err_set(err, -EBADMSG, "'%s' is not an allocated PROGBITS section",
				  MARKER_NAME);
	if ((rc = check_marker(in->img + mk->sh_offset, mk->sh_size, err)))
		return rc;
	p = kelf_load_at(in->ph, in->phn, mk->sh_addr, mk->sh_size, &off);
	if (!p || off != mk->sh_offset || !(p->p_flags & PF_R))
		return rk_err_set(err, -EBADMSG, "'%s' is not mapped by a readable PT_LOAD",
				  MARKER_NAME);
	if (in->fatbin && in->sh[in->fatbin].sh_type != SHT_NOBITS) {
		/* Allowed only when zero-paging had nothing to cut. */
		uint64_t S = in->sh[in->fatbin].sh_addr, E = S + in->sh[in->fatbin].sh_size;
		uint64_t A = round_up(S), B = round_down(E);

		if (E >= S && A < B && B - A - (E % PAGE == 0 ? PAGE : 0) > 0)
			return rk_err_set(err, -EBADMSG,
					  "'.hip_fatbin' has whole pages but is not NOBITS");
	}
	if (in->segment) {
		const GElf_Shdr *seg = &in->sh[in->segment];
		uint64_t so = 0;

		if (seg->sh_type != SHT_PROGBITS || seg->sh_size % WRAPPER_SIZE ||
		    (seg->sh_size &&
		     !kelf_load_at(in->ph, in->phn, seg->sh_addr, seg->sh_size, &so)) ||
		    !in_file(so, seg->sh_size, in->n))
			return rk_err_set(err, -EBADMSG,
					  "'.hipFatBinSegment' is not a wrapper array");
		for (uint64_t i = 0; i < seg->sh_size / WRAPPER_SIZE; i++) {
			const unsigned char *w = in->img + so + i * WRAPPER_SIZE;

			if (rk_le32(w) != HIPK_MAGIC)
				return rk_err_set(err, -EBADMSG, "wrapper %llu is not HIPK",
						  (unsigned long long)i);
		}
	}
	return 0;
}

int rk_kpack_elf_verify(const void *img, size_t n, struct rk_err *err)
{
	struct elf_in in;
	int rc = kelf_in_parse(img, n, &in, err);

	if (rc == 0)
		rc = rk_err_set(err, -EBADMSG, "not an ELF64 LE file");
	if (rc < 0)
		goto out;
	rc = kelf_check_layout(&in.eh, in.ph, in.phn, in.sh, in.shn, in.shstrndx, n, err);
	if (!rc && in.marker)
		rc = verify_split(&in, err);
out:
	kelf_in_release(&in);
	return rc;
}
