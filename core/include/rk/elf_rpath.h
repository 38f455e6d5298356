/* rk/elf_rpath.h: the RPATH change TheRock's Python packaging makes to every executable
 * and shared object of its runtime wheels (py_packaging.py: _extend_rpath, then
 * _normalize_rpath), as a composite over the original file (rk/composite.h), which is
 * never copied:
 *
 *   patchelf --add-rpath A1 F; patchelf --add-rpath A2 F; ...    (one per rpath_dep)
 *   patchelf --force-rpath --set-rpath "$(patchelf --print-rpath F)" F
 *
 * The result: one DT_RPATH string, the old DT_RUNPATH (or else DT_RPATH) string, ':' and
 * the added entries (just the added ones when there was none); a DT_RUNPATH entry becomes
 * DT_RPATH. The new string never fits in .dynstr, so, as patchelf does for shared
 * libraries, a copy of the dynamic string table with the new string at its end goes into
 * a new PT_LOAD at the end of the file (DT_STRTAB, DT_STRSZ and the .dynstr section
 * header point there), and the program header table, which needs one more entry, moves
 * into that segment too. An executable (PT_INTERP, or DF_1_PIE) gets the new segment at
 * an address equal to its file offset plus the load bias (a zero gap pads the file when
 * needed), so that kernels which compute AT_PHDR as load address + e_phoff find the
 * table (rocm-kpack's normalize_phdr_vaddr does the same). A file without an RPATH or
 * RUNPATH entry gets one in a spare DT_NULL slot of its dynamic section, or else a copy
 * of the dynamic section with the entry first moves into the new segment (PT_DYNAMIC
 * and the .dynamic section header follow it). Every other byte is the original's.
 *
 * Only ELF64 little-endian files of type ET_EXEC or ET_DYN with a PT_DYNAMIC are
 * changed; every offset, size and address is checked against the file before use. */
#ifndef RK_ELF_RPATH_H
#define RK_ELF_RPATH_H

#include <stddef.h>

#include "rk/composite.h"
#include "rk/err.h"

/* The longest added string accepted (the whole new RPATH is bounded by it and .dynstr). */
#define RK_ELF_RPATH_ADD_MAX 65536

/* Rewrite img[0..n) with `add` (one or more ':'-separated entries) appended to its rpath
 * as described above. Returns 0 with *out the rewritten file (source 0 is img; release
 * with rk_composite_release), 1 when the file is not one this applies to (not ELF64 LE,
 * not ET_EXEC/ET_DYN, no PT_DYNAMIC: *out empty, keep the file as it is), -EBADMSG with
 * a message when it claims to be such a file but is damaged, -EINVAL when add is empty
 * or too long, -ENOMEM. Thread-safe (no state). */
int rk_elf_rpath_add(const void *img, size_t n, const char *add, struct rk_composite *out,
		     struct rk_err *err);

/* The effective rpath of img (DT_RUNPATH's string, else DT_RPATH's), and whether the entry
 * is DT_RPATH, into buf[len] (NUL-terminated). 0, 1 (none: buf ""), -EBADMSG, -ENOSPC,
 * or -EINVAL when img is not a dynamic ELF64 LE file. For tests and the fuzzer. */
int rk_elf_rpath_get(const void *img, size_t n, char *buf, size_t len, int *is_rpath,
		     struct rk_err *err);

#endif
