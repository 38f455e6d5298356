/* rk/kpack_binary.h: rocm-kpack's split of one fat host binary, the parts every caller
 * shares (the kpack split service, `rockpack kpack split`): checking its device code and
 * rewriting the host binary (kpack-format.md sections 4 and 5). Bytes in, facts out: where
 * the code objects go and how they are stored is the caller's. */
#ifndef RK_KPACK_BINARY_H
#define RK_KPACK_BINARY_H

#include <stddef.h>

#include "rk/bundle.h"
#include "rk/err.h"
#include "rk/kpack_elf.h"
#include "rk/composite.h"

/* Check that every entry of fb (parsed from the .hip_fatbin of img, located by fe) holds
 * a code object for its own target, and give each its index among the entries of its
 * arch (the "#<i>" of its kernel key) in index[0..fb->nentries). 0, or -EBADMSG with err
 * naming the entry. */
int rk_kpack_check_entries(const unsigned char *img, const struct rk_fat_elf *fe,
			   const struct rk_fatbin *fb, unsigned *index, struct rk_err *err);

/* The host binary img[0..n) as a split leaves it: the marker (search pattern of relpath
 * in group; kernel name kname) and kpack_offload_binary's ELF changes, as a composite over
 * img (source 0). */
int rk_kpack_host_rewrite(const unsigned char *img, size_t n, const char *relpath,
			  const char *group, const char *kname, struct rk_composite *out,
			  struct rk_err *err);

#endif
