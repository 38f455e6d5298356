#!/usr/bin/env python3
"""Deterministic demo artifact store generator for rockfs.

Writes TheRock-style CI runs (``{run_id}-linux/`` directories full of
``{name}_{component}_{target}.tar.{zst,xz}`` archives and ``.sha256sum``
sidecars) that look like the real thing down to the bytes that matter:

* archives are Python ``tarfile`` PAX streams whose first member is
  ``artifact_manifest.txt`` (therock-formats.md section 1.3-1.4);
* host libraries are real x86-64 ELF shared objects compiled with ``cc``;
* "fat" libraries carry clang offload bundles in ``.hip_fatbin`` and HIPF
  wrappers in ``.hipFatBinSegment`` (kpack-format.md sections 3.2, 5);
* the kpack-split run carries HIPK wrappers, ``.rocm_kpack_ref`` markers,
  NOBITS ``.hip_fatbin`` and ``.kpack`` archives (kpack-format.md 1, 3.1);
* every AMDGPU code object is a synthetic but well-formed ELF whose
  ``e_flags`` name its gfx target (kpack-format.md section 7).

Usage::

    mkdemo.py OUT [--runs legacy,split] [--large-gib N] [--hostile]

Without options it writes the legacy and the split run. ``--large-gib`` and
``--hostile`` write only their own run unless ``--runs`` is also given.
docs/demo-store.md describes every file this script writes.

Output is byte-for-byte deterministic for a given toolchain (cc/ld, zstd,
liblzma, zlib): all timestamps, owners, orders and pseudo-random bytes are
fixed. Only the Python standard library is used; zstd is the ``zstd`` CLI.
"""

import argparse
import hashlib
import io
import json
import lzma
import os
import shutil
import struct
import subprocess
import sys
import tarfile
import tempfile
import zipfile
import zlib

# --------------------------------------------------------------------------
# Constants shared by every run
# --------------------------------------------------------------------------

MTIME = 1767225600  # 2026-01-01T00:00:00Z, on every tar member
ROCM_PACKAGE_VERSION = "7.13.0.dev0+abc1234"
ROCM_VERSION = "7.13.0"
THEROCK_COMMIT = "abc1234" + hashlib.sha1(b"rockfs-demo/therock").hexdigest()[:33]

LEGACY_RUN = "24205988454-linux"
SPLIT_RUN = "24205988455-linux"
LARGE_RUN = "90000000001-linux"
HOSTILE_RUN = "66600000000-linux"

# family -> targets, in TheRock declaration order (therock-formats.md section 4)
FAMILIES = {
    "gfx110X-all": ["gfx1100", "gfx1101", "gfx1102", "gfx1103"],
    "gfx94X-dcgpu": ["gfx942"],
}
ALL_TARGETS = [t for ts in FAMILIES.values() for t in ts]
# rocRAND is also built for these feature variants (bundle ids with features)
RAND_EXTRA_TARGETS = {"gfx94X-dcgpu": ["gfx942:xnack+"]}

HOST_BUNDLE_ID = "host-x86_64-unknown-linux-gnu-"
DEVICE_BUNDLE_PREFIX = "hipv4-amdgcn-amd-amdhsa--"
BUNDLE_ALIGN = 4096

HIPF_MAGIC = 0x48495046
HIPK_MAGIC = 0x4B504948

BLAS_PREFIXES = [
    "math-libs/BLAS/hipBLAS-common/stage",  # declared, always empty in lib
    "math-libs/BLAS/rocBLAS/stage",
    "math-libs/BLAS/hipBLASLt/stage",
    "math-libs/BLAS/rocSPARSE/stage",  # host-only here: what upstream's sparse packages read
    "math-libs/BLAS/rocSOLVER/stage",  # host-only here: what upstream's solver packages read
]
# the demo has no rocSPARSE or rocSOLVER tests: its blas_test declares neither
BLAS_TEST_PREFIXES = BLAS_PREFIXES[:3]
ROCBLAS = "math-libs/BLAS/rocBLAS/stage"
HIPBLASLT = "math-libs/BLAS/hipBLASLt/stage"
ROCSPARSE = "math-libs/BLAS/rocSPARSE/stage"
ROCSOLVER = "math-libs/BLAS/rocSOLVER/stage"
ROCRAND = "math-libs/rocRAND/stage"
HIPRAND = "math-libs/hipRAND/stage"
RAND_PREFIXES = [ROCRAND, HIPRAND]
LLVM = "compiler/amd-llvm/stage"
COMGR = "compiler/amd-comgr/stage"
HIPCC = "compiler/hipcc/stage"
CLR = "core/clr/stage"
AUX = "base/aux-overlay/stage"
ROCM_CORE = "base/rocm-core/stage"
FFTW = "third-party/fftw3/stage"

TENSILE_CO = "TensileLibrary_Type_HH_Contraction_l_Ailk_Bljk_Cijk_Dijk_{t}.co"

# --------------------------------------------------------------------------
# Small helpers: deterministic bytes, alignment, msgpack, zstd
# --------------------------------------------------------------------------


def det_bytes(label, n):
    """n pseudo-random bytes that depend only on label (SHAKE-256)."""
    return hashlib.shake_256(label.encode()).digest(n)


def det_int(label, modulo):
    return int.from_bytes(det_bytes(label, 8), "little") % modulo


def align_up(x, a):
    return (x + a - 1) // a * a


def sha256_hex(data):
    return hashlib.sha256(data).hexdigest()


def msgpack(obj):
    """Minimal MessagePack encoder (what msgpack-python emits with
    use_bin_type=True): nil, bool, int, str, bytes, list, dict."""
    if obj is None:
        return b"\xc0"
    if obj is True:
        return b"\xc3"
    if obj is False:
        return b"\xc2"
    if isinstance(obj, int):
        if 0 <= obj < 0x80:
            return bytes([obj])
        if -32 <= obj < 0:
            return struct.pack("b", obj)
        if obj >= 0:
            for tag, fmt, lim in ((0xCC, ">B", 1 << 8), (0xCD, ">H", 1 << 16),
                                  (0xCE, ">I", 1 << 32), (0xCF, ">Q", 1 << 64)):
                if obj < lim:
                    return bytes([tag]) + struct.pack(fmt, obj)
        for tag, fmt, lim in ((0xD0, ">b", 1 << 7), (0xD1, ">h", 1 << 15),
                              (0xD2, ">i", 1 << 31), (0xD3, ">q", 1 << 63)):
            if -lim <= obj:
                return bytes([tag]) + struct.pack(fmt, obj)
        raise ValueError("integer out of msgpack range")
    if isinstance(obj, str):
        raw = obj.encode("utf-8")
        n = len(raw)
        if n < 32:
            return bytes([0xA0 | n]) + raw
        if n < 1 << 8:
            return b"\xd9" + struct.pack(">B", n) + raw
        if n < 1 << 16:
            return b"\xda" + struct.pack(">H", n) + raw
        return b"\xdb" + struct.pack(">I", n) + raw
    if isinstance(obj, (bytes, bytearray)):
        n = len(obj)
        if n < 1 << 8:
            return b"\xc4" + struct.pack(">B", n) + bytes(obj)
        if n < 1 << 16:
            return b"\xc5" + struct.pack(">H", n) + bytes(obj)
        return b"\xc6" + struct.pack(">I", n) + bytes(obj)
    if isinstance(obj, (list, tuple)):
        n = len(obj)
        if n < 16:
            head = bytes([0x90 | n])
        elif n < 1 << 16:
            head = b"\xdc" + struct.pack(">H", n)
        else:
            head = b"\xdd" + struct.pack(">I", n)
        return head + b"".join(msgpack(x) for x in obj)
    if isinstance(obj, dict):
        n = len(obj)
        if n < 16:
            head = bytes([0x80 | n])
        elif n < 1 << 16:
            head = b"\xde" + struct.pack(">H", n)
        else:
            head = b"\xdf" + struct.pack(">I", n)
        return head + b"".join(msgpack(k) + msgpack(v) for k, v in obj.items())
    raise TypeError("cannot msgpack %r" % type(obj))


def _tool_env():
    env = dict(os.environ)
    for var in ("ZSTD_CLEVEL", "ZSTD_NBTHREADS"):
        env.pop(var, None)
    env["LC_ALL"] = "C"
    return env


TOOL_ENV = _tool_env()


def zstd_compress(data, frame_checksum=True, content_size=False):
    """Compress with the zstd CLI at level 3, one frame.

    content_size=True pledges the size so the frame header carries it
    (what library one-shot compressors do; used for CCOB and .kpack frames).
    frame_checksum=False omits the XXH64 trailer (python-zstandard / LLVM
    defaults); the CLI default keeps it (used for .tar.zst archives).
    """
    cmd = ["zstd", "-3", "-q", "-c"]
    if not frame_checksum:
        cmd.append("--no-check")
    if content_size:
        cmd.append("--stream-size=%d" % len(data))
    res = subprocess.run(cmd, input=data, stdout=subprocess.PIPE, check=True, env=TOOL_ENV)
    return res.stdout


# --------------------------------------------------------------------------
# AMDGPU code objects (kpack-format.md section 7)
# --------------------------------------------------------------------------

GFX_MACH = {
    "gfx900": 0x2C, "gfx906": 0x2F, "gfx908": 0x30, "gfx90a": 0x3F, "gfx942": 0x4C,
    "gfx950": 0x4F, "gfx1030": 0x36, "gfx1100": 0x41, "gfx1101": 0x46,
    "gfx1102": 0x47, "gfx1103": 0x44, "gfx1150": 0x43, "gfx1151": 0x4A,
    "gfx1200": 0x48, "gfx1201": 0x4E,
}
XNACK_CAPABLE = {"gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx950"}
SRAMECC_CAPABLE = {"gfx906", "gfx908", "gfx90a", "gfx942", "gfx950"}

EF_XNACK = {"any": 0x100, "-": 0x200, "+": 0x300}
EF_SRAMECC = {"any": 0x400, "-": 0x800, "+": 0xC00}


def amdgpu_eflags(target):
    """e_flags for a code-object-V4+ target id such as 'gfx942:xnack+'.

    A feature the processor supports but the id does not mention is "any"."""
    proc, *feats = target.split(":")
    flags = GFX_MACH[proc]
    given = {f[:-1]: f[-1] for f in feats}
    if proc in XNACK_CAPABLE:
        flags |= EF_XNACK[given.get("xnack", "any")]
    if proc in SRAMECC_CAPABLE:
        flags |= EF_SRAMECC[given.get("sramecc", "any")]
    unknown = set(given) - {"xnack", "sramecc"}
    if unknown:
        raise ValueError("unknown target feature in %s" % target)
    return flags


def _isa_words(label, nbytes):
    """Instruction-like filler: 4-byte words from a small per-target vocabulary,
    so code objects compress about 2x like real ones."""
    vocab = det_bytes(label + "/vocab", 64 * 4)
    picks = det_bytes(label + "/picks", nbytes // 4)
    return b"".join(vocab[(p & 63) * 4:(p & 63) * 4 + 4] for p in picks)


def code_object(target, kernel):
    """A small, valid AMDGPU HSA code object (ELF64, V5) for target.

    Sections: .text (kernel body), .rodata (64-byte kernel descriptor),
    .symtab/.strtab (kernel FUNC + kernel.kd OBJECT), .shstrtab.
    The bytes depend only on (target, kernel)."""
    label = "co/%s/%s" % (target, kernel)
    text = _isa_words(label, 2048 + 256 * det_int(label + "/size", 17))
    kd = det_bytes(label + "/kd", 64)
    strtab = b"\0" + kernel.encode() + b"\0" + kernel.encode() + b".kd\0"
    shstrtab = b"\0.text\0.rodata\0.symtab\0.strtab\0.shstrtab\0"
    sh_name = {n: shstrtab.index(b"\0" + n.encode() + b"\0") + 1
               for n in (".text", ".rodata", ".symtab", ".strtab", ".shstrtab")}

    rodata_off = 0x100
    text_off = align_up(rodata_off + len(kd), 256)
    sym = struct.Struct("<IBBHQQ")
    symtab = (sym.pack(0, 0, 0, 0, 0, 0)
              + sym.pack(1, 0x12, 3, 1, text_off, len(text))  # GLOBAL FUNC, PROTECTED
              + sym.pack(2 + len(kernel), 0x11, 3, 2, rodata_off, len(kd)))  # GLOBAL OBJECT
    symtab_off = align_up(text_off + len(text), 8)
    strtab_off = symtab_off + len(symtab)
    shstrtab_off = strtab_off + len(strtab)
    shoff = align_up(shstrtab_off + len(shstrtab), 8)

    shdr = struct.Struct("<IIQQQQIIQQ")
    shdrs = [
        shdr.pack(0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
        shdr.pack(sh_name[".text"], 1, 0x6, text_off, text_off, len(text), 0, 0, 256, 0),
        shdr.pack(sh_name[".rodata"], 1, 0x2, rodata_off, rodata_off, len(kd), 0, 0, 64, 0),
        shdr.pack(sh_name[".symtab"], 2, 0, 0, symtab_off, len(symtab), 4, 1, 8, sym.size),
        shdr.pack(sh_name[".strtab"], 3, 0, 0, strtab_off, len(strtab), 0, 0, 1, 0),
        shdr.pack(sh_name[".shstrtab"], 3, 0, 0, shstrtab_off, len(shstrtab), 0, 0, 1, 0),
    ]
    e_ident = b"\x7fELF" + bytes([2, 1, 1, 64, 3]) + bytes(7)  # OSABI AMDGPU_HSA, ABI V5
    ehdr = struct.pack("<16sHHIQQQIHHHHHH", e_ident, 3, 224, 1, 0, 0, shoff,
                       amdgpu_eflags(target), 64, 56, 0, 64, len(shdrs), 5)

    out = bytearray(ehdr)
    for off, blob in ((rodata_off, kd), (text_off, text), (symtab_off, symtab),
                      (strtab_off, strtab), (shstrtab_off, shstrtab), (shoff, b"".join(shdrs))):
        out += bytes(off - len(out))
        out += blob
    return bytes(out)


# --------------------------------------------------------------------------
# Clang offload bundles (kpack-format.md section 5)
# --------------------------------------------------------------------------

MAGIC_BUNDLE = b"__CLANG_OFFLOAD_BUNDLE__"


def plain_bundle(entries, align=BUNDLE_ALIGN):
    """Uncompressed bundle from [(bundle_id, bytes)], entries in given order,
    each payload at an offset aligned to `align`, zero-filled gaps."""
    header_size = len(MAGIC_BUNDLE) + 8 + sum(24 + len(i) for i, _ in entries)
    offsets, pos = [], header_size
    for _, data in entries:
        pos = align_up(pos, align)
        offsets.append(pos)
        pos += len(data)
    out = bytearray(MAGIC_BUNDLE + struct.pack("<Q", len(entries)))
    for (bid, data), off in zip(entries, offsets):
        out += struct.pack("<QQQ", off, len(data), len(bid)) + bid.encode()
    for (_, data), off in zip(entries, offsets):
        out += bytes(off - len(out))
        out += data
    return bytes(out)


def device_bundle(targets, kernel):
    """The bundle clang emits for one TU: host entry (size 0) first, then one
    code object per target."""
    entries = [(HOST_BUNDLE_ID, b"")]
    entries += [(DEVICE_BUNDLE_PREFIX + t, code_object(t, kernel)) for t in targets]
    return plain_bundle(entries)


def ccob(bundle, version, method):
    """Compressed offload bundle "CCOB" v2 (u32 sizes) or v3 (u64 sizes);
    method 'zstd' (1) or 'zlib' (0). Hash = first 8 bytes of MD5."""
    if method == "zstd":
        payload, m = zstd_compress(bundle, frame_checksum=False, content_size=True), 1
    elif method == "zlib":
        payload, m = zlib.compress(bundle, 6), 0
    else:
        raise ValueError(method)
    digest = hashlib.md5(bundle).digest()[:8]
    if version == 2:
        head = struct.pack("<4sHHII8s", b"CCOB", 2, m, 24 + len(payload), len(bundle), digest)
    elif version == 3:
        head = struct.pack("<4sHHQQ8s", b"CCOB", 3, m, 32 + len(payload), len(bundle), digest)
    else:
        raise ValueError(version)
    return head + payload


def tu_fatbin(tu, targets):
    """The .hip_fatbin payload of one TU: a plain bundle, or a CCOB."""
    bundle = device_bundle(targets, tu.kernel)
    if tu.ccob is None:
        return bundle
    return ccob(bundle, *tu.ccob)


# --------------------------------------------------------------------------
# Host ELF objects built with cc
# --------------------------------------------------------------------------

CFLAGS = ["-O1", "-g0", "-fno-ident", "-fPIC"]
# TheRock links with a DT_RUNPATH of $ORIGIN-relative paths (new dtags): so do we, so
# that native packages have something for runpath_to_rpath.py's change to act on
LDFLAGS = ["-Wl,--build-id=none", "-Wl,-rpath,$ORIGIN", "-Wl,--enable-new-dtags"]


class HostCompiler:
    """Compiles C sources into shared objects / executables, deterministically
    (fixed file names, relative paths, no build id, no .comment from the TU),
    and memoizes results by their inputs."""

    def __init__(self, tmpdir):
        self.tmpdir = tmpdir
        self.cache = {}

    def build(self, kind, out_name, sources, soname=None):
        """kind 'shared' or 'exe'; sources: [(file_name, text)]. Returns bytes."""
        key = hashlib.sha256(repr((kind, out_name, soname, sources)).encode()).hexdigest()
        if key in self.cache:
            return self.cache[key]
        work = os.path.join(self.tmpdir, "%s-%s" % (out_name, key[:12]))
        os.makedirs(work)
        objs = []
        for fname, text in sources:
            with open(os.path.join(work, fname), "w") as f:
                f.write(text)
            obj = fname[:-2] + ".o"
            self._cc(work, CFLAGS + ["-ffile-prefix-map=%s=." % work, "-c", fname, "-o", obj])
            objs.append(obj)
        link = ["-fPIC"] + CFLAGS[:3] + LDFLAGS
        if kind == "shared":
            link += ["-shared", "-Wl,-soname," + soname]
        self._cc(work, link + ["-o", out_name] + objs)
        with open(os.path.join(work, out_name), "rb") as f:
            data = f.read()
        self.cache[key] = data
        return data

    @staticmethod
    def _cc(cwd, args):
        res = subprocess.run(["cc"] + args, cwd=cwd, env=TOOL_ENV,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if res.returncode != 0:
            sys.stderr.write(res.stderr.decode(errors="replace"))
            raise SystemExit("mkdemo: cc %s failed" % " ".join(args))


def c_array(data, per_line=24):
    lines = []
    for i in range(0, len(data), per_line):
        lines.append("    " + ",".join(str(b) for b in data[i:i + per_line]) + ",")
    return "\n".join(lines)


WRAPPER_DECL = ("static struct { unsigned magic, version; const void *binary; void *dummy1; }\n"
                "    __hip_fatbin_wrapper\n"
                "    __attribute__((section(\".hipFatBinSegment\"), aligned(8), used))")


def fat_tu_source(lib, index, payload):
    """One TU of a fat host library: its bundle in .hip_fatbin (4096-aligned)
    and a HIPF wrapper in .hipFatBinSegment pointing at it."""
    return ("/* %s, translation unit %d: fat binary (HIPF) */\n"
            "static const unsigned char __hip_fatbin[%d]\n"
            "    __attribute__((section(\".hip_fatbin\"), aligned(4096), used)) = {\n%s\n};\n"
            "%s = {0x%08Xu, 1u, __hip_fatbin, 0};\n"
            "int %s_tu%d_launch(int x) { return x * %d + 1; }\n"
            % (lib.soname, index, len(payload), c_array(payload), WRAPPER_DECL,
               HIPF_MAGIC, lib.api, index, index + 3))


def split_tu_source(lib, index, fatbin_size):
    """One TU of a kpack-split host library: HIPK wrapper (dummy1 = index)
    pointing at the shared .rocm_kpack_ref marker, and a NOBITS .hip_fatbin
    chunk of the size the TU's bundle had before the split."""
    return ("/* %s, translation unit %d: kpack split (HIPK) */\n"
            "extern const unsigned char rocm_kpack_ref[] __attribute__((visibility(\"hidden\")));\n"
            "__asm__(\".section .hip_fatbin,\\\"a\\\",@nobits\\n\\t.p2align 12\\n\\t\"\n"
            "        \".zero %d\\n\\t.previous\");\n"
            "%s = {0x%08Xu, 1u, rocm_kpack_ref, (void *)%dul};\n"
            "int %s_tu%d_launch(int x) { return x * %d + 1; }\n"
            % (lib.soname, index, fatbin_size, WRAPPER_DECL, HIPK_MAGIC, index,
               lib.api, index, index + 3))


def kpack_ref_source(marker):
    return ("/* .rocm_kpack_ref marker (msgpack) */\n"
            "__attribute__((visibility(\"hidden\"))) const unsigned char rocm_kpack_ref[%d]\n"
            "    __attribute__((section(\".rocm_kpack_ref\"), used)) = {\n%s\n};\n"
            % (len(marker), c_array(marker)))


def api_source(lib):
    """The exported host API: <api>_demo_version() and a build-info string."""
    return ("/* %s: exported host API */\n"
            "const char %s_build_info[] = \"%s %s\";\n"
            "int %s_demo_version(void) { return %d; }\n"
            % (lib.soname, lib.api, lib.soname, ROCM_PACKAGE_VERSION, lib.api,
               lib.version_number))


def kpack_marker(group, prefix, relpath):
    """.rocm_kpack_ref content for a binary at <prefix>/<relpath> of artifact
    group <group> (kpack-format.md section 3.1)."""
    depth = relpath.count("/")
    search = "../" * depth + ".kpack/%s_@GFXARCH@.kpack" % group
    return msgpack({"kpack_search_paths": [search], "kernel_name": prefix + "/" + relpath})


# --------------------------------------------------------------------------
# Library descriptions: which host libs exist and what device code they hold
# --------------------------------------------------------------------------


class TU:
    """A translation unit with device code. ccob None = plain bundle,
    else (version, method) of the compressed bundle."""

    def __init__(self, kernel, ccob_kind=None):
        self.kernel = kernel
        self.ccob = ccob_kind


class HostLib:
    def __init__(self, prefix, relpath, soname, api, version_number, links, tus=()):
        self.prefix = prefix
        self.relpath = relpath  # the real file; links are symlinks to it
        self.soname = soname
        self.api = api
        self.version_number = version_number
        self.links = links  # [(relpath, target)]
        self.tus = list(tus)

    @property
    def filename(self):
        return self.relpath.rsplit("/", 1)[-1]


def _links(dirpath, chain):
    """chain = [real, a, b]: a -> real, b -> a (all in dirpath)."""
    return [(dirpath + "/" + chain[i], chain[i - 1]) for i in range(1, len(chain))]


LIB_ROCBLAS = HostLib(ROCBLAS, "lib/librocblas.so.5.0.70130", "librocblas.so.5", "rocblas", 50130,
                      _links("lib",
                             ["librocblas.so.5.0.70130", "librocblas.so.5", "librocblas.so"]),
                      [TU("rocblas_gemm_tensile_kernel")])
LIB_HIPBLASLT = HostLib(HIPBLASLT, "lib/libhipblaslt.so.1.0", "libhipblaslt.so.1", "hipblaslt",
                        10000, _links("lib", ["libhipblaslt.so.1.0", "libhipblaslt.so.1",
                                              "libhipblaslt.so"]),
                        [TU("hipblaslt_matmul_kernel"), TU("hipblaslt_ext_softmax_kernel")])
LIB_ROCRAND = HostLib(ROCRAND, "lib/librocrand.so.1.1", "librocrand.so.1", "rocrand", 10100,
                      _links("lib", ["librocrand.so.1.1", "librocrand.so.1", "librocrand.so"]),
                      [TU("rocrand_xorwow_init_kernel", (2, "zstd")),
                       TU("rocrand_philox_generate_kernel", (3, "zstd")),
                       TU("rocrand_mtgp32_generate_kernel", (2, "zlib"))])
LIB_HIPRAND = HostLib(HIPRAND, "lib/libhiprand.so.1.1", "libhiprand.so.1", "hiprand", 10100,
                      _links("lib", ["libhiprand.so.1.1", "libhiprand.so.1", "libhiprand.so"]))
# rocSPARSE and rocSOLVER carry no device code in the demo: they are there so that
# upstream's package set (amdrocm-sparse, amdrocm-solver, which amdrocm-blas and
# amdrocm-core depend on) has files to take (docs/demo-store.md)
LIB_ROCSPARSE = HostLib(ROCSPARSE, "lib/librocsparse.so.1.0", "librocsparse.so.1", "rocsparse",
                        10000, _links("lib", ["librocsparse.so.1.0", "librocsparse.so.1",
                                              "librocsparse.so"]))
LIB_ROCSOLVER = HostLib(ROCSOLVER, "lib/librocsolver.so.0.7", "librocsolver.so.0", "rocsolver",
                        700, _links("lib", ["librocsolver.so.0.7", "librocsolver.so.0",
                                            "librocsolver.so"]))
PLAIN_BLAS_LIBS = [LIB_ROCSPARSE, LIB_ROCSOLVER]
LIB_AMDHIP = HostLib(CLR, "lib/libamdhip64.so.7.13.0", "libamdhip64.so.7", "amdhip64", 71300,
                     _links("lib", ["libamdhip64.so.7.13.0", "libamdhip64.so.7", "libamdhip64.so"]))
LIB_LLVM = HostLib(LLVM, "lib/llvm/lib/libLLVM.so.19.0git", "libLLVM.so.19.0git", "llvm", 190000,
                   [("lib/llvm/lib/libLLVM-19.so", "libLLVM.so.19.0git"),
                    ("lib/llvm/lib/libLLVM.so", "libLLVM.so.19.0git")])
LIB_COMGR = HostLib(COMGR, "lib/libamd_comgr.so.3.0", "libamd_comgr.so.3", "amd_comgr", 30000,
                    _links("lib", ["libamd_comgr.so.3.0", "libamd_comgr.so.3", "libamd_comgr.so"]))
LIB_FFTW = HostLib(FFTW, "lib/host-math/lib/libfftw3f.so.3.6.10", "libfftw3f.so.3", "fftw3f", 30610,
                   _links("lib/host-math/lib",
                          ["libfftw3f.so.3.6.10", "libfftw3f.so.3", "libfftw3f.so"]))

# artifact group -> the fat host libraries it holds (the kpack group name)
FAT_GROUPS = {"blas_lib": [LIB_ROCBLAS, LIB_HIPBLASLT], "rand_lib": [LIB_ROCRAND]}


def rand_targets(family_targets, families):
    extra = [t for f in families for t in RAND_EXTRA_TARGETS.get(f, [])]
    return family_targets + extra


class Builder:
    """Holds the compiler and builds host binaries in their three forms."""

    def __init__(self, tmpdir):
        self.cc = HostCompiler(tmpdir)

    def plain_lib(self, lib):
        return self.cc.build("shared", lib.filename, [("api.c", api_source(lib))], lib.soname)

    def fat_lib(self, lib, targets):
        """Legacy form: every TU carries its device bundle for `targets`."""
        sources = [("api.c", api_source(lib))]
        for i, tu in enumerate(lib.tus):
            sources.append(("tu%d.c" % i, fat_tu_source(lib, i, tu_fatbin(tu, targets))))
        return self.cc.build("shared", lib.filename, sources, lib.soname)

    def split_lib(self, lib, group, targets):
        """kpack-split form of the fat library built for `targets`."""
        sources = [("api.c", api_source(lib)),
                   ("kpack_ref.c", kpack_ref_source(kpack_marker(group, lib.prefix, lib.relpath)))]
        for i, tu in enumerate(lib.tus):
            sources.append(("tu%d.c" % i, split_tu_source(lib, i, len(tu_fatbin(tu, targets)))))
        return self.cc.build("shared", lib.filename, sources, lib.soname)

    def exe(self, name, text):
        return self.cc.build("exe", name, [("main.c", text)])


# --------------------------------------------------------------------------
# .kpack archives (kpack-format.md section 1)
# --------------------------------------------------------------------------


def kpack_archive(group, arch, kernels):
    """kernels: [(binary_key_without_#, co_index, prefix, code_object)] in
    ordinal order. zstd-per-kernel scheme, TOC last."""
    toc, frames = {}, []
    for ordinal, (name, co_index, prefix, co) in enumerate(kernels):
        toc.setdefault("%s#%d" % (name, co_index), {})[arch] = {
            "type": "hsaco",
            "ordinal": ordinal,
            "original_size": len(co),
            "metadata": {"target": DEVICE_BUNDLE_PREFIX + arch, "source_prefix": prefix},
        }
        frames.append(zstd_compress(co, frame_checksum=False, content_size=True))
    blob = struct.pack("<I", len(frames))
    blob += b"".join(struct.pack("<I", len(fr)) + fr for fr in frames)
    toc_offset = 64 + len(blob)
    toc_map = {
        "format_version": 1,
        "group_name": group,
        "gfx_arch_family": arch,
        "gfx_arches": [arch],
        "toc": toc,
        "compression_scheme": "zstd-per-kernel",
        "zstd_offset": 64,
        "zstd_size": len(blob),
    }
    header = struct.pack("<4sIQ", b"KPAK", 1, toc_offset) + bytes(48)
    return header + blob + msgpack(toc_map)


# --------------------------------------------------------------------------
# Artifact trees and tar writing (therock-formats.md sections 1.3-1.4)
# --------------------------------------------------------------------------


class File:
    def __init__(self, data, mode=0o644, inode=None):
        self.data = data
        self.mode = mode
        self.inode = inode  # files sharing an inode key are hardlinks


class Symlink:
    def __init__(self, target):
        self.target = target


class Artifact:
    """One artifact: {name}_{component}_{target}, declared prefixes (in
    manifest order) and a tree per prefix {relpath: File|Symlink}."""

    def __init__(self, name, component, target, prefixes, exts=("zst",)):
        self.name, self.component, self.target = name, component, target
        self.prefixes = list(prefixes)
        self.exts = exts
        self.trees = {p: {} for p in self.prefixes}

    @property
    def stem(self):
        return "%s_%s_%s" % (self.name, self.component, self.target)

    def file(self, prefix, relpath, data, exe=False, inode=None):
        if isinstance(data, str):
            data = data.encode()
        self.trees[prefix][relpath] = File(data, 0o755 if exe else 0o644, inode)

    def symlink(self, prefix, relpath, target):
        self.trees[prefix][relpath] = Symlink(target)

    def host_lib(self, lib, data):
        self.file(lib.prefix, lib.relpath, data, exe=True)
        for rel, target in lib.links:
            self.symlink(lib.prefix, rel, target)

    def manifest(self):
        return "".join(p + "\n" for p in self.prefixes).encode()


def walk_sorted(tree):
    """Pre-order walk of {relpath: node}: each directory (implied by the
    paths, the root excluded) before its contents, names sorted."""
    root = {}
    for rel, node in tree.items():
        parts = rel.split("/")
        d = root
        for p in parts[:-1]:
            d = d.setdefault(p, {})
        d[parts[-1]] = node

    def rec(d, base):
        for name in sorted(d):
            v, rel = d[name], base + name
            if isinstance(v, dict):
                yield rel, None
                yield from rec(v, rel + "/")
            else:
                yield rel, v

    return rec(root, "")


def tarinfo(name, kind, mode, size=0, linkname=""):
    ti = tarfile.TarInfo(name)
    ti.type = kind
    ti.mode = mode
    ti.size = size
    ti.linkname = linkname
    ti.mtime = MTIME
    ti.uid = ti.gid = 0
    ti.uname = ti.gname = "root"
    return ti


def artifact_members(art):
    """(TarInfo, data-or-None) in TheRock order: manifest first, then every
    present prefix in manifest order, walked sorted."""
    man = art.manifest()
    yield tarinfo("artifact_manifest.txt", tarfile.REGTYPE, 0o644, len(man)), man
    for prefix in art.prefixes:
        tree = art.trees.get(prefix)
        if not tree:
            continue  # declared but empty: no directory, no members
        first_copy = {}
        for rel, node in walk_sorted(tree):
            name = prefix + "/" + rel
            if node is None:
                yield tarinfo(name, tarfile.DIRTYPE, 0o755), None
            elif isinstance(node, Symlink):
                yield tarinfo(name, tarfile.SYMTYPE, 0o777, linkname=node.target), None
            elif node.inode is not None and node.inode in first_copy:
                yield tarinfo(name, tarfile.LNKTYPE, node.mode,
                              linkname=first_copy[node.inode]), None
            else:
                if node.inode is not None:
                    first_copy[node.inode] = name
                yield tarinfo(name, tarfile.REGTYPE, node.mode, len(node.data)), node.data


def tar_bytes(members):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tf:
        for ti, data in members:
            tf.addfile(ti, io.BytesIO(data) if data is not None else None)
    return buf.getvalue()


def compress(tar, ext):
    if ext == "zst":
        return zstd_compress(tar)  # streaming zstd -3, one frame, CLI defaults
    if ext == "xz":
        return lzma.compress(tar, format=lzma.FORMAT_XZ, preset=6)
    raise ValueError(ext)


class RunWriter:
    """Writes one run directory atomically (temp dir, then rename)."""

    def __init__(self, out, run_id):
        self.final = os.path.join(out, run_id)
        self.dir = os.path.join(out, ".%s.tmp" % run_id)
        if os.path.exists(self.dir):
            shutil.rmtree(self.dir)
        os.makedirs(self.dir)
        self.artifacts = set()
        self.archives = 0

    def put(self, relpath, data):
        path = os.path.join(self.dir, relpath)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def archive(self, filename, data, sidecar=None):
        """An archive plus its .sha256sum (the real hash unless given)."""
        self.put(filename, data)
        if sidecar is None:
            sidecar = sha256_hex(data) + "\n"
        self.put(filename + ".sha256sum", sidecar.encode())
        self.archives += 1

    def artifact(self, art):
        tar = tar_bytes(artifact_members(art))
        for ext in art.exts:
            self.archive("%s.tar.%s" % (art.stem, ext), compress(tar, ext))
        self.artifacts.add(art.stem)

    def finish(self):
        total = 0
        for dirpath, _, files in os.walk(self.dir):
            for f in files:
                total += os.path.getsize(os.path.join(dirpath, f))
                # every file dated MTIME: what the store lists (sizes, times) is the
                # same whenever the demo is made
                os.utime(os.path.join(dirpath, f), (MTIME, MTIME))
        if os.path.exists(self.final):
            shutil.rmtree(self.final)
        os.rename(self.dir, self.final)
        print("%s: %d artifacts, %d archives, %d bytes"
              % (self.final, len(self.artifacts), self.archives, total))


# --------------------------------------------------------------------------
# File contents (text) shared by the runs
# --------------------------------------------------------------------------


def therock_manifest(run_id, split):
    flags = {
        "ROCM_BUILD_FLAGS_CANARY_BOOL_FALSE": False,
        "ROCM_BUILD_FLAGS_CANARY_BOOL_TRUE": True,
        "ROCM_BUILD_FLAGS_CANARY_INTEGER_NEGATIVE": -17,
        "KPACK_SPLIT_ARTIFACTS": split,
    }
    for name in ("HIPDNN_ENABLE_SDPA", "HIPBLASLTPROVIDER_ENABLE_MX_GEMM",
                 "HIPKERNELPROVIDER_ENABLE_ROCKE", "HIPDNN_ENABLE_KERNEL_INGESTOR",
                 "MIOPEN_ENABLE_HIPDNN_WRAPPER", "HIPDNN_ENABLE_CUDNN_COMPATIBILITY",
                 "STAMP_LIBRARY_GIT_VERSIONS", "INCLUDE_HRX", "HSA_WINDOWS_SHARED_RUNTIME",
                 "LLVM_ENABLE_ASSERTIONS", "WINDOWS_DRIVER_BUILD"):
        flags[name] = False

    def sub(name, path, patches=()):
        return {"submodule_name": name, "submodule_path": path,
                "submodule_url": "https://github.com/ROCm/%s.git" % name,
                "pin_sha": hashlib.sha1(("rockfs-demo/" + name).encode()).hexdigest(),
                "patches": list(patches)}

    manifest = {
        "the_rock_commit": THEROCK_COMMIT,
        "github_job": "build_artifacts",
        "github_run_id": run_id.split("-")[0],
        "rocm_package_version": ROCM_PACKAGE_VERSION,
        "rocm_version": ROCM_VERSION,
        "submodules": [
            sub("llvm-project", "compiler/amd-llvm",
                ["patches/amd-mainline/llvm-project/0001-demo-fix.patch"]),
            sub("rocm-libraries", "rocm-libraries"),
            sub("rocm-systems", "rocm-systems"),
        ],
        "flags": flags,
    }
    return json.dumps(manifest, indent=2) + "\n"


def sh_script(body):
    return "#!/bin/sh\n# generated by rockfs mkdemo.py\nset -e\n" + body


def header(guard, body):
    return ("/* generated by rockfs mkdemo.py */\n#ifndef %s\n#define %s\n%s\n#endif\n"
            % (guard, guard, body))


def cmake_config(pkg, targets):
    return ("# generated by rockfs mkdemo.py\nset(%s_VERSION \"%s\")\n"
            "set(%s_AMDGPU_TARGETS \"%s\")\nset(%s_FOUND TRUE)\n"
            % (pkg, ROCM_VERSION, pkg, ";".join(targets), pkg))


def c_main(name, message):
    return ('#include <stdio.h>\n/* %s */\nint main(void) { puts("%s"); return 0; }\n'
            % (name, message))


# --------------------------------------------------------------------------
# Run layouts
# --------------------------------------------------------------------------


def generic_artifacts(b, run_id, split, targets):
    """Target-neutral artifacts every run has."""
    manifest = therock_manifest(run_id, split)
    arts = []

    a = Artifact("base", "lib", "generic", [AUX])
    a.file(AUX, "share/therock/therock_manifest.json", manifest)
    a.file(AUX, "share/therock/dist_info.json",
           json.dumps({"dist_amdgpu_targets": ";".join(targets)}) + "\n")
    arts.append(a)

    a = Artifact("base", "run", "generic", [AUX, ROCM_CORE])
    a.file(AUX, "bin/therock-env.sh", sh_script(
        'ROCM_PATH="$(cd "$(dirname "$0")/.." && pwd)"\necho "ROCM_PATH=$ROCM_PATH"\n'), exe=True)
    a.file(ROCM_CORE, "bin/rocm-version", sh_script('echo "%s"\n' % ROCM_PACKAGE_VERSION), exe=True)
    a.file(ROCM_CORE, ".info/version", ROCM_PACKAGE_VERSION + "\n")
    arts.append(a)

    a = Artifact("amd-llvm", "lib", "generic", [LLVM, COMGR, HIPCC])  # hipcc: empty
    a.host_lib(LIB_LLVM, b.plain_lib(LIB_LLVM))
    a.host_lib(LIB_COMGR, b.plain_lib(LIB_COMGR))
    arts.append(a)

    a = Artifact("amd-llvm", "run", "generic", [LLVM, HIPCC])
    clang = b.exe("clang-19", c_main("clang-19", "AMD clang version 19.0.0git (rockfs demo)"))
    a.file(LLVM, "lib/llvm/bin/clang-19", clang, exe=True)
    a.symlink(LLVM, "lib/llvm/bin/clang", "clang-19")
    a.symlink(LLVM, "lib/llvm/bin/clang++", "clang")
    lld = b.exe("lld", c_main("lld", "AMD LLD 19.0.0git (rockfs demo)"))
    a.file(LLVM, "lib/llvm/bin/lld", lld, exe=True, inode="lld")
    a.file(LLVM, "lib/llvm/bin/ld.lld", lld, exe=True, inode="lld")
    a.symlink(LLVM, "bin/amdclang", "../lib/llvm/bin/clang")
    a.symlink(LLVM, "bin/amdclang++", "../lib/llvm/bin/clang++")
    a.file(HIPCC, "bin/hipcc", sh_script(
        'exec "$(dirname "$0")/../lib/llvm/bin/clang++" -x hip "$@"\n'), exe=True)
    a.file(HIPCC, "bin/hipconfig", sh_script('echo "%s"\n' % ROCM_PACKAGE_VERSION), exe=True)
    arts.append(a)

    a = Artifact("amd-llvm", "dev", "generic", [LLVM, COMGR, HIPCC])
    a.file(LLVM, "lib/llvm/include/llvm/Config/llvm-config.h", header(
        "LLVM_CONFIG_H",
        "#define LLVM_VERSION_MAJOR 19\n#define LLVM_VERSION_STRING \"19.0.0git\""))
    a.file(LLVM, "lib/llvm/include/clang/Basic/Version.inc",
           "#define CLANG_VERSION 19.0.0git\n#define CLANG_VERSION_MAJOR 19\n")
    a.file(LLVM, "lib/llvm/lib/cmake/llvm/LLVMConfig.cmake", cmake_config("LLVM", targets))
    a.file(LLVM, "lib/llvm/lib/cmake/clang/ClangConfig.cmake", cmake_config("Clang", targets))
    a.file(COMGR, "include/amd_comgr/amd_comgr.h", header(
        "AMD_COMGR_H", "#define AMD_COMGR_INTERFACE_VERSION_MAJOR 3"))
    a.file(COMGR, "lib/cmake/amd_comgr/amd_comgr-config.cmake", cmake_config("amd_comgr", targets))
    arts.append(a)

    a = Artifact("amd-llvm", "doc", "generic", [LLVM, COMGR, HIPCC], exts=("xz",))
    a.file(LLVM, "share/doc/llvm/LICENSE.TXT",
           "Apache License v2.0 with LLVM Exceptions (demo placeholder)\n" * 40)
    a.file(LLVM, "share/doc/llvm/README.txt", "AMD LLVM 19.0.0git for ROCm %s\n" % ROCM_VERSION)
    a.file(HIPCC, "share/doc/hipcc/README.md", "# hipcc\n\nCompiler driver for HIP (demo).\n")
    arts.append(a)

    a = Artifact("core-hip", "lib", "generic", [CLR])
    a.host_lib(LIB_AMDHIP, b.plain_lib(LIB_AMDHIP))
    arts.append(a)

    a = Artifact("core-hip", "dev", "generic", [CLR], exts=("zst", "xz"))
    a.file(CLR, "include/hip/hip_version.h", header(
        "HIP_VERSION_H", "#define HIP_VERSION_MAJOR 7\n#define HIP_VERSION_MINOR 13\n"
        "#define HIP_VERSION_PATCH 0\n#define HIP_VERSION_GITHASH \"abc1234\""))
    a.file(CLR, "include/hip/hip_runtime_api.h", header(
        "HIP_RUNTIME_API_H", "#include <hip/hip_version.h>\ntypedef int hipError_t;\n"
        "hipError_t hipRuntimeGetVersion(int *runtimeVersion);"))
    a.file(CLR, "include/hip/hip_runtime.h", header(
        "HIP_RUNTIME_H", "#include <hip/hip_runtime_api.h>"))
    a.file(CLR, "lib/cmake/hip/hip-config.cmake", cmake_config("hip", targets))
    a.file(CLR, "lib/cmake/hip/hip-targets.cmake",
           "# generated by rockfs mkdemo.py\nadd_library(hip::amdhip64 SHARED IMPORTED)\n")
    arts.append(a)

    a = Artifact("core-hip", "doc", "generic", [CLR], exts=("xz",))
    a.file(CLR, "share/doc/hip/LICENSE.md", "MIT License (demo placeholder)\n" * 20)
    a.file(CLR, "share/doc/hip/README.md", "# HIP runtime %s\n" % ROCM_PACKAGE_VERSION)
    arts.append(a)

    a = Artifact("fftw3", "lib", "generic", [FFTW])
    a.host_lib(LIB_FFTW, b.plain_lib(LIB_FFTW))
    arts.append(a)
    return arts


def tensile_files(t):
    """rocBLAS/hipBLASLt database files of one target: (prefix, relpath, bytes)."""
    dat = msgpack({"library": "rocblas", "arch": t,
                   "solutions": [{"index": i, "name": "Cijk_Ailk_Bljk_HH_MT%dx%d" % (64 << i, 64),
                                  "kernel": "TensileLibrary_Type_HH_%d" % i} for i in range(6)]})
    return [
        (ROCBLAS, "lib/rocblas/library/TensileLibrary_lazy_%s.dat" % t, dat),
        (ROCBLAS, "lib/rocblas/library/" + TENSILE_CO.format(t=t),
         code_object(t, "Cijk_Ailk_Bljk_HH_MT64x64")),
        (HIPBLASLT, "lib/hipblaslt/library/extop_%s.co" % t,
         code_object(t, "hipblaslt_ext_op_layernorm")),
    ]


def tensile_manifest(targets):
    lines = ["# TensileManifest (rockfs demo)"]
    for t in targets:
        lines.append("TensileLibrary_lazy_%s.dat" % t)
        lines.append(TENSILE_CO.format(t=t))
    return "\n".join(lines) + "\n"


def blas_dev(label, targets):
    a = Artifact("blas", "dev", label, BLAS_PREFIXES)
    a.file(BLAS_PREFIXES[0], "include/hipblas-common/hipblas-common.h", header(
        "HIPBLAS_COMMON_H",
        "typedef enum { HIPBLAS_OP_N = 111, HIPBLAS_OP_T = 112 } hipblasOperation_t;"))
    a.file(ROCBLAS, "include/rocblas/rocblas.h", header(
        "ROCBLAS_H", "#include <rocblas/rocblas-types.h>\nint rocblas_demo_version(void);"))
    a.file(ROCBLAS, "include/rocblas/rocblas-types.h", header(
        "ROCBLAS_TYPES_H", "typedef struct _rocblas_handle *rocblas_handle;"))
    a.file(ROCBLAS, "lib/cmake/rocblas/rocblas-config.cmake", cmake_config("rocblas", targets))
    a.file(ROCBLAS, "lib/cmake/rocblas/rocblas-targets.cmake",
           "# generated by rockfs mkdemo.py\nadd_library(roc::rocblas SHARED IMPORTED)\n")
    a.file(HIPBLASLT, "include/hipblaslt/hipblaslt.h", header(
        "HIPBLASLT_H", "int hipblaslt_demo_version(void);"))
    a.file(HIPBLASLT, "lib/cmake/hipblaslt/hipblaslt-config.cmake",
           cmake_config("hipblaslt", targets))
    a.file(ROCSPARSE, "include/rocsparse/rocsparse.h", header(
        "ROCSPARSE_H", "int rocsparse_demo_version(void);"))
    a.file(ROCSOLVER, "include/rocsolver/rocsolver.h", header(
        "ROCSOLVER_H", "#include <rocblas/rocblas.h>\nint rocsolver_demo_version(void);"))
    return a


def blas_test(b, label, targets):
    """rocblas-test is a host-only executable: no device code, so it stays
    in blas_test_generic when split."""
    a = Artifact("blas", "test", label, BLAS_TEST_PREFIXES)
    text = c_main("rocblas-test", "rocblas-test (rockfs demo) built for %s" % " ".join(targets))
    a.file(ROCBLAS, "bin/rocblas-test", b.exe("rocblas-test", text), exe=True)
    a.file(ROCBLAS, "share/rocblas/test/data.yaml",
           "# rocblas-test data (rockfs demo)\n" + "".join(
               "- {function: gemm, precision: f16_r, M: %d, N: %d, K: %d, arch: [%s]}\n"
               % (64 << i, 64 << i, 128, ", ".join(targets)) for i in range(8)))
    return a


def rand_dev(label, targets):
    a = Artifact("rand", "dev", label, RAND_PREFIXES)
    a.file(ROCRAND, "include/rocrand/rocrand.h", header(
        "ROCRAND_H", "typedef struct rocrand_generator_base_type *rocrand_generator;\n"
        "int rocrand_demo_version(void);"))
    a.file(ROCRAND, "include/rocrand/rocrand_kernel.h", header(
        "ROCRAND_KERNEL_H", "#include <rocrand/rocrand.h>"))
    a.file(ROCRAND, "lib/cmake/rocrand/rocrand-config.cmake", cmake_config("rocrand", targets))
    a.file(HIPRAND, "include/hiprand/hiprand.h",
           header("HIPRAND_H", "int hiprand_demo_version(void);"))
    a.file(HIPRAND, "lib/cmake/hiprand/hiprand-config.cmake", cmake_config("hiprand", targets))
    return a


def legacy_family_artifacts(b, family, targets):
    blas = Artifact("blas", "lib", family, BLAS_PREFIXES)
    for lib in FAT_GROUPS["blas_lib"]:
        blas.host_lib(lib, b.fat_lib(lib, targets))
    for lib in PLAIN_BLAS_LIBS:
        blas.host_lib(lib, b.plain_lib(lib))
    blas.file(ROCBLAS, "lib/rocblas/library/TensileManifest.txt", tensile_manifest(targets))
    for t in targets:
        for prefix, rel, data in tensile_files(t):
            blas.file(prefix, rel, data)

    rtargets = rand_targets(targets, [family])
    rand = Artifact("rand", "lib", family, RAND_PREFIXES)
    rand.host_lib(LIB_ROCRAND, b.fat_lib(LIB_ROCRAND, rtargets))
    rand.host_lib(LIB_HIPRAND, b.plain_lib(LIB_HIPRAND))

    return [blas, blas_dev(family, targets), blas_test(b, family, targets),
            rand, rand_dev(family, targets)]


def split_group(b, group, generic, libs, targets):
    """kpack-split the fat libs of `group` (already in artifact `generic`
    with their manifest prefixes). Returns {arch: [(key, idx, prefix, co)]}
    and the sorted prefixes that had kernels."""
    kernels = {t: [] for t in targets}
    prefixes_with_kernels = set()
    for lib in sorted(libs, key=lambda l: generic.prefixes.index(l.prefix)):
        generic.host_lib(lib, b.split_lib(lib, group, targets))
        name = lib.prefix + "/" + lib.relpath
        for i, tu in enumerate(lib.tus):
            for t in targets:
                kernels[t].append((name, i, lib.prefix, code_object(t, tu.kernel)))
        prefixes_with_kernels.add(lib.prefix)
    return kernels, sorted(prefixes_with_kernels)


def split_run_artifacts(b):
    targets = ALL_TARGETS
    rtargets = rand_targets(targets, list(FAMILIES))
    arts = []

    blas = Artifact("blas", "lib", "generic", BLAS_PREFIXES)
    blas.file(ROCBLAS, "lib/rocblas/library/TensileManifest.txt", tensile_manifest(targets))
    for lib in PLAIN_BLAS_LIBS:
        blas.host_lib(lib, b.plain_lib(lib))
    kernels, kprefixes = split_group(b, "blas_lib", blas, FAT_GROUPS["blas_lib"], targets)
    arts.append(blas)
    for t in targets:
        files = tensile_files(t)
        prefixes = sorted(set(kprefixes) | {p for p, _, _ in files})
        a = Artifact("blas", "lib", t, prefixes)
        a.file(kprefixes[0], ".kpack/blas_lib_%s.kpack" % t,
               kpack_archive("blas_lib", t, kernels[t]))
        for prefix, rel, data in files:
            a.file(prefix, rel, data)
        arts.append(a)

    rand = Artifact("rand", "lib", "generic", RAND_PREFIXES)
    rand.host_lib(LIB_HIPRAND, b.plain_lib(LIB_HIPRAND))
    kernels, kprefixes = split_group(b, "rand_lib", rand, FAT_GROUPS["rand_lib"], rtargets)
    arts.append(rand)
    for t in rtargets:
        a = Artifact("rand", "lib", t, kprefixes)
        a.file(kprefixes[0], ".kpack/rand_lib_%s.kpack" % t,
               kpack_archive("rand_lib", t, kernels[t]))
        arts.append(a)

    arts += [blas_dev("generic", targets), blas_test(b, "generic", targets),
             rand_dev("generic", targets)]
    return arts


# --------------------------------------------------------------------------
# Python packages (therock-formats.md section 6): small valid wheels and an sdist
# --------------------------------------------------------------------------

ZIP_TIME = (2026, 1, 1, 0, 0, 0)
WHEEL_TAG = "py3-none-linux_x86_64"


def record_hash(data):
    import base64
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def wheel_bytes(dist, version, files, requires=(), requires_python=">=3.9", modes=None):
    """A deterministic PEP 427 wheel: files {relpath: bytes} plus dist-info; modes
    {relpath: permission bits} (0o644 when absent)."""
    info = "%s-%s.dist-info" % (dist, version)
    name = dist.replace("_", "-")
    meta = ["Metadata-Version: 2.1", "Name: %s" % name, "Version: %s" % version,
            "Summary: rockfs demo package %s" % name, "Requires-Python: %s" % requires_python]
    meta += ["Requires-Dist: %s" % r for r in requires]
    entries = dict(files)
    entries[info + "/METADATA"] = ("\n".join(meta) + "\n").encode()
    entries[info + "/WHEEL"] = ("Wheel-Version: 1.0\nGenerator: rockfs-mkdemo\n"
                                "Root-Is-Purelib: false\nTag: %s\n" % WHEEL_TAG).encode()
    entries[info + "/top_level.txt"] = ("\n".join(sorted({f.split("/")[0] for f in files}))
                                        + "\n").encode()
    rec = ["%s,%s,%d" % (n, record_hash(d), len(d)) for n, d in sorted(entries.items())]
    rec.append(info + "/RECORD,,")
    entries[info + "/RECORD"] = ("\n".join(rec) + "\n").encode()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        order = sorted(n for n in entries if not n.startswith(info))
        order += [info + "/" + n for n in ("METADATA", "WHEEL", "top_level.txt", "RECORD")]
        for n in order:
            zi = zipfile.ZipInfo(n, ZIP_TIME)
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.create_system = 3
            zi.external_attr = (modes or {}).get(n, 0o644) << 16
            zf.writestr(zi, entries[n], compresslevel=6)
    return "%s-%s-%s.whl" % (dist, version, WHEEL_TAG), buf.getvalue()


def sdist_bytes(name, version, requires=()):
    base = "%s-%s" % (name, version)
    pkg = ["Metadata-Version: 2.1", "Name: %s" % name, "Version: %s" % version,
           "Summary: rockfs demo meta package"] + ["Requires-Dist: %s" % r for r in requires]
    files = {
        base + "/PKG-INFO": ("\n".join(pkg) + "\n").encode(),
        base + "/setup.py": ("from setuptools import setup\nsetup(name=%r, version=%r, "
                             "install_requires=%r, packages=[])\n"
                             % (name, version, list(requires))).encode(),
    }
    members = [(tarinfo(base, tarfile.DIRTYPE, 0o755), None)]
    members += [(tarinfo(n, tarfile.REGTYPE, 0o644, len(d)), d) for n, d in sorted(files.items())]
    return "%s.tar.gz" % base, gzip_bytes(tar_bytes(members))


def flat_index(files):
    rows = "".join('<a href="%s">%s</a><br>\n' % (f, f) for f in sorted(files))
    return ("<!DOCTYPE html>\n<html><body>\n%s</body></html>\n" % rows).encode()


def fat_libraries_wheel(arts, family, version, core):
    """The legacy (fat) libraries wheel of one family as TheRock builds it
    (therock-formats.md 6.2, 6.3): the lib component of the library artifacts of that
    family, flattened under _rocm_sdk_libraries_<family>/, symlinks dropped and shared
    libraries kept under their soname; the pure package rocm_sdk_libraries."""
    sonames = {(l.prefix, l.relpath): l.soname
               for l in FAT_GROUPS["blas_lib"] + FAT_GROUPS["rand_lib"] + [LIB_HIPRAND]
               + PLAIN_BLAS_LIBS}
    dist = "rocm_sdk_libraries_" + family.replace("-", "_")
    files, modes = {}, {}
    for a in sorted(arts, key=lambda a: a.stem):
        if a.component != "lib" or a.target != family or a.name not in ("blas", "rand"):
            continue
        for prefix in a.prefixes:
            for rel, node in sorted(a.trees[prefix].items()):
                if not isinstance(node, File):
                    continue  # no symlinks in runtime wheels
                if (prefix, rel) in sonames:
                    rel = rel.rsplit("/", 1)[0] + "/" + sonames[(prefix, rel)]
                name = "_%s/%s" % (dist, rel)
                if name not in files:  # the first copy wins
                    files[name] = node.data
                    modes[name] = 0o755 if node.mode & 0o111 else 0o644
    files["rocm_sdk_libraries/__init__.py"] = b""
    return wheel_bytes(dist, version, files, requires=[core], modes=modes)


def python_packages(split, arts=()):
    """{relpath below python/: bytes}. The split run is flat (multiarch); the legacy
    run has one family directory (therock-formats.md 6.6) with a real fat libraries
    wheel made from the family's library artifacts."""
    v = ROCM_PACKAGE_VERSION
    core = "rocm-sdk-core==" + v
    out = []
    out.append(wheel_bytes("rocm_sdk_core", v, {
        "rocm_sdk_core/__init__.py": b"__version__ = %r\n" % v.encode(),
        "_rocm_sdk_core/lib/README.txt": b"rockfs demo: core platform files\n"}))
    if split:
        out.append(wheel_bytes("rocm_sdk_libraries", v, {
            "rocm_sdk_libraries/__init__.py": b"",
            "_rocm_sdk_libraries/lib/README.txt": b"rockfs demo: host libraries\n"},
            requires=[core]))
        out.append(wheel_bytes("rocm_sdk_device_gfx1100", v, {
            "_rocm_sdk_libraries/lib/gfx1100.txt": b"rockfs demo: gfx1100 device files\n"},
            requires=["rocm-sdk-libraries==" + v]))
        out.append(wheel_bytes("rocm_sdk_devel", v, {
            "rocm_sdk_devel/__init__.py": b""}, requires=[core], requires_python=">=3.9, <4"))
        out.append(sdist_bytes("rocm", v, requires=[core]))
        group = ""
    else:
        out.append(fat_libraries_wheel(arts, "gfx110X-all", v, core))
        group = "gfx110X-all/"
    files = {group + n: d for n, d in out}
    files[group + "index.html"] = flat_index(n for n, _ in out)
    return files


def write_standard_run(b, out, run_id, split):
    w = RunWriter(out, run_id)
    arts = generic_artifacts(b, run_id, split, ALL_TARGETS)
    if split:
        arts += split_run_artifacts(b)
    else:
        for family, targets in FAMILIES.items():
            arts += legacy_family_artifacts(b, family, targets)
    for a in arts:
        w.artifact(a)
    w.put("manifests/therock_manifest.json", therock_manifest(run_id, split).encode())
    # The split run stores no Python packages (like a local build): RUN/python/ of it is
    # all synthesized from the artifacts. The legacy run stores two, winning over the
    # synthesized files of the same name: a placeholder core wheel and a real fat
    # libraries wheel (which RUN/python/ also serves kpack-split).
    for rel, data in sorted(python_packages(split, arts).items()) if not split else ():
        w.put("python/" + rel, data)
    w.finish()


# --------------------------------------------------------------------------
# Large run: one multi-GiB artifact streamed through zstd
# --------------------------------------------------------------------------

BIG_PREFIX = "bigdata/stage"
# size classes: [2^(16+k), 2^(17+k)) bytes, weights per mille
BIG_WEIGHTS = [500, 250, 130, 60, 30, 15, 8, 4, 2, 1]
BIG_MAX = 64 << 20
BIG_UNIT = 4096
BIG_RANDOM = 1152  # incompressible bytes per 4 KiB unit; the rest is a repeated 8-byte pattern


def big_file_plan(total):
    """[(relpath, size, seed)] summing to >= total bytes, sorted by relpath.
    File 0 is exactly 64 MiB, file 1 exactly 64 KiB."""
    plan, acc, i = [], 0, 0
    while acc < total:
        if i == 0:
            size = BIG_MAX
        elif i == 1:
            size = 64 << 10
        else:
            r = det_int("big/%d/class" % i, 1000)
            k = 0
            while r >= BIG_WEIGHTS[k]:
                r -= BIG_WEIGHTS[k]
                k += 1
            low = 1 << (16 + k)
            size = min(BIG_MAX, low + det_int("big/%d/size" % i, low))
        ext = (".so", ".co", ".dat", ".bin")[i % 4]
        plan.append(("lib/bigdata/d%02d/blob_%05d%s" % (i % 16, i, ext), size, i))
        acc += size
        i += 1
    plan.sort()
    return plan


class BigFileReader:
    """File-like object producing a big file's bytes on demand."""

    def __init__(self, seed, size):
        self.seed, self.left, self.chunk_no = seed, size, 0
        self.buf = b""

    def _chunk(self):
        units = 16
        seed = b"big/%d/%d" % (self.seed, self.chunk_no)
        rnd = hashlib.shake_128(seed).digest(units * (BIG_RANDOM + 8))
        self.chunk_no += 1
        step = BIG_RANDOM + 8
        reps = (BIG_UNIT - BIG_RANDOM) // 8
        parts = []
        for u in range(units):
            o = u * step
            parts.append(rnd[o:o + BIG_RANDOM])
            parts.append(rnd[o + BIG_RANDOM:o + step] * reps)
        return b"".join(parts)

    def read(self, n=-1):
        if n is None or n < 0:
            n = self.left
        n = min(n, self.left)
        while len(self.buf) < n:
            self.buf += self._chunk()
        out, self.buf = self.buf[:n], self.buf[n:]
        self.left -= n
        return out


def big_members(plan):
    art = Artifact("bigdata", "lib", "generic", [BIG_PREFIX])
    man = art.manifest()
    yield tarinfo("artifact_manifest.txt", tarfile.REGTYPE, 0o644, len(man)), io.BytesIO(man)
    tree = {rel: (size, seed) for rel, size, seed in plan}
    for rel, node in walk_sorted(tree):
        name = BIG_PREFIX + "/" + rel
        if node is None:
            yield tarinfo(name, tarfile.DIRTYPE, 0o755), None
        else:
            size, seed = node
            mode = 0o755 if rel.endswith(".so") else 0o644
            yield tarinfo(name, tarfile.REGTYPE, mode, size), BigFileReader(seed, size)


def write_large_run(b, out, gib):
    w = RunWriter(out, LARGE_RUN)
    base = generic_artifacts(b, LARGE_RUN, True, ALL_TARGETS)[0]  # base_lib_generic
    w.artifact(base)
    w.put("manifests/therock_manifest.json", therock_manifest(LARGE_RUN, True).encode())

    filename = "bigdata_lib_generic.tar.zst"
    path = os.path.join(w.dir, filename)
    plan = big_file_plan(int(gib * (1 << 30)))
    with open(path, "wb") as outf:
        proc = subprocess.Popen(["zstd", "-3", "-q", "-c"], stdin=subprocess.PIPE, stdout=outf,
                                env=TOOL_ENV, bufsize=1 << 20)
        with tarfile.open(fileobj=proc.stdin, mode="w|", format=tarfile.PAX_FORMAT) as tf:
            tf.copybufsize = 1 << 20
            for ti, src in big_members(plan):
                tf.addfile(ti, src)
        proc.stdin.close()
        if proc.wait() != 0:
            raise SystemExit("mkdemo: zstd failed")
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 22), b""):
            h.update(block)
    w.put(filename + ".sha256sum", (h.hexdigest() + "\n").encode())
    w.archives += 1
    w.artifacts.add("bigdata_lib_generic")
    w.finish()


# --------------------------------------------------------------------------
# Hostile run: broken and malicious archives
# --------------------------------------------------------------------------


def simple_artifact(name, extra_kb=0):
    """A small valid artifact {name}_lib_generic with prefix {name}/stage."""
    prefix = name + "/stage"
    a = Artifact(name, "lib", "generic", [prefix])
    a.file(prefix, "lib/lib%s.so.1" % name, det_bytes("hostile/" + name, 2048), exe=True)
    a.symlink(prefix, "lib/lib%s.so" % name, "lib%s.so.1" % name)
    a.file(prefix, "share/doc/%s/README.txt" % name, "%s: rockfs hostile demo\n" % name)
    for i in range(extra_kb // 64):
        # 64 KiB files of mildly compressible data: several zstd blocks
        a.file(prefix, "share/%s/data%02d.bin" % (name, i),
               BigFileReader(det_int("hostile/%s/%d" % (name, i), 1 << 30), 64 << 10).read())
    return a


def member_list(art):
    out = {}
    for ti, data in artifact_members(art):
        if ti.name == "artifact_manifest.txt":
            continue
        if ti.isdir():
            out[ti.name] = {"type": "dir"}
        elif ti.issym():
            out[ti.name] = {"type": "symlink", "target": ti.linkname}
        elif ti.islnk():
            out[ti.name] = {"type": "hardlink", "target": ti.linkname}
        else:
            out[ti.name] = {"type": "file", "size": len(data), "sha256": sha256_hex(data)}
    return out


def write_hostile_run(out):
    w = RunWriter(out, HOSTILE_RUN)
    expect = {}

    def ok(filename, art, note, **extra):
        entry = {"expect": "ok", "artifact": art.stem, "note": note, "members": member_list(art)}
        entry.update(extra)
        expect[filename] = entry

    def eio(filename, note, **extra):
        entry = {"expect": "eio", "note": note}
        entry.update(extra)
        expect[filename] = entry

    def ignored(filename, note):
        expect[filename] = {"expect": "ignored", "note": note}

    # 1. a good artifact next to all the bad ones
    good = simple_artifact("good")
    w.artifact(good)
    ok("good_lib_generic.tar.zst", good, "valid; must keep serving whatever else is broken")

    # 2. corrupt zstd: valid header, bytes flipped mid-stream; consistent sidecar
    tar = tar_bytes(artifact_members(simple_artifact("corrupt", extra_kb=512)))
    z = bytearray(compress(tar, "zst"))
    mid = len(z) // 2
    for i in range(mid, mid + 16):
        z[i] ^= 0xFF
    if subprocess.run(["zstd", "-t", "-q"], input=bytes(z), stderr=subprocess.DEVNULL,
                      env=TOOL_ENV).returncode == 0:
        raise SystemExit("mkdemo: corrupted stream still decodes")
    w.archive("corrupt_lib_generic.tar.zst", bytes(z))
    eio("corrupt_lib_generic.tar.zst",
        "zstd frame damaged at byte %d of %d (16 bytes inverted); sidecar matches the damaged "
        "file, so only decompression can catch it; members before the damage may read fine"
        % (mid, len(z)), damaged_at=mid)

    # 3. truncated zstd and truncated xz; consistent sidecars
    tar = tar_bytes(artifact_members(simple_artifact("truncated", extra_kb=512)))
    z = compress(tar, "zst")
    cut = len(z) * 55 // 100
    w.archive("truncated_lib_generic.tar.zst", z[:cut])
    eio("truncated_lib_generic.tar.zst",
        "zstd stream cut at %d of %d bytes; sidecar matches the cut file" % (cut, len(z)),
        truncated_at=cut)
    tar = tar_bytes(artifact_members(simple_artifact("truncxz", extra_kb=512)))
    x = compress(tar, "xz")
    cut = len(x) * 55 // 100
    w.archive("truncxz_lib_generic.tar.xz", x[:cut])
    eio("truncxz_lib_generic.tar.xz",
        "xz stream cut at %d of %d bytes; sidecar matches the cut file" % (cut, len(x)),
        truncated_at=cut)

    # 4. manifest not first (it comes last)
    art = simple_artifact("notfirst")
    members = list(artifact_members(art))
    members = members[1:] + members[:1]
    w.archive("notfirst_lib_generic.tar.zst", compress(tar_bytes(members), "zst"))
    eio("notfirst_lib_generic.tar.zst",
        "first member is %r, not artifact_manifest.txt (TheRock readers reject the archive)"
        % members[0][0].name)

    # 5. path traversal and escaping links next to legit files
    art = simple_artifact("escape")
    prefix = "escape/stage"
    members = list(artifact_members(art))
    hostile = [
        (tarinfo("../../escape.txt", tarfile.REGTYPE, 0o644, 7), b"escape\n"),
        (tarinfo("/abs/etc/passwd", tarfile.REGTYPE, 0o644, 9), b"root:x:0\n"),
        (tarinfo("a/../../up.txt", tarfile.REGTYPE, 0o644, 3), b"up\n"),
        (tarinfo(prefix + "/../../../../outside.txt", tarfile.REGTYPE, 0o644, 8), b"outside\n"),
        (tarinfo(prefix + "/evil", tarfile.SYMTYPE, 0o777, linkname="/etc/passwd"), None),
        (tarinfo(prefix + "/up", tarfile.SYMTYPE, 0o777, linkname="../../../../.."), None),
        (tarinfo(prefix + "/lib/hardabs", tarfile.LNKTYPE, 0o644, linkname="/etc/passwd"), None),
        (tarinfo(prefix + "/lib/hardup", tarfile.LNKTYPE, 0o644,
                 linkname="../../../../etc/passwd"), None),
    ]
    members = members[:1] + hostile[:3] + members[1:] + hostile[3:]
    w.archive("escape_lib_generic.tar.zst", compress(tar_bytes(members), "zst"))
    ok("escape_lib_generic.tar.zst", art,
       "legit members must be served; the hostile ones must be absent or neutralized "
       "(no path, link or hardlink may resolve outside the artifact)",
       absent_or_neutralized=[ti.name for ti, _ in hostile])

    # 6. good archive, wrong sidecar
    art = simple_artifact("badsum")
    data = compress(tar_bytes(artifact_members(art)), "zst")
    wrong = sha256_hex(b"not the archive")
    w.archive("badsum_lib_generic.tar.zst", data, sidecar=wrong + "\n")
    eio("badsum_lib_generic.tar.zst",
        "archive is valid but its .sha256sum says %s (real %s)" % (wrong, sha256_hex(data)),
        real_sha256=sha256_hex(data), sidecar_sha256=wrong)

    # 7. zero-byte archive
    w.archive("empty_lib_generic.tar.zst", b"")
    eio("empty_lib_generic.tar.zst", "zero-byte file (sidecar is the sha256 of nothing)")

    # 8. valid zstd, broken tar header checksum in a later member
    art = simple_artifact("badtar")
    tar = bytearray(tar_bytes(artifact_members(art)))
    second = 512 + align_up(len(art.manifest()), 512)  # header of the 2nd member
    tar[second + 148:second + 156] = b"0000000\0"  # wrong chksum field
    w.archive("badtar_lib_generic.tar.zst", compress(bytes(tar), "zst"))
    eio("badtar_lib_generic.tar.zst",
        "zstd is fine, the tar header at offset %d has a wrong checksum" % second,
        bad_header_at=second)

    # 9. names outside TheRock's archive regex (valid content, must be ignored)
    for fname, name in (("foo_bar.tar.zst", "foo"),
                        ("too_many_under_scores.tar.zst", "many"),
                        ("noext_lib_generic.tar", "noext"),
                        ("nocomp_lib_generic.tar.gz", "nocomp")):
        data = tar_bytes(artifact_members(simple_artifact(name)))
        if fname.endswith(".zst"):
            data = compress(data, "zst")
        elif fname.endswith(".gz"):
            data = gzip_bytes(data)
        w.archive(fname, data)
        ignored(fname, "name does not match ^([^_]+)_([^_]+)_([^_]+)\\.tar\\.(zst|xz)$")

    # 10. looks wrong but DOES match the regex: name 'not', component 'an', target 'artifact'
    art = Artifact("not", "an", "artifact", ["not/stage"])
    art.file("not/stage", "share/not.txt", "matches the archive regex after all\n")
    w.artifact(art)
    ok("not_an_artifact.tar.zst", art,
       "matches TheRock's regex (name=not, component=an, target=artifact); "
       "a reader following artifacts.py lists it like any other artifact")

    # 11. file/directory name clashes: browse/ must be what `tar -x` makes of them (GNU tar
    # 1.34 and bsdtar agree): a later member replaces an earlier non-directory or an
    # empty directory; it is refused in place of a directory with something in it, and
    # below a non-directory
    d = "clash/stage/"
    R, D, L, H = tarfile.REGTYPE, tarfile.DIRTYPE, tarfile.SYMTYPE, tarfile.LNKTYPE

    def m(name, kind, data=None, link=""):
        mode = 0o755 if kind == D else 0o777 if kind == L else 0o644
        return (tarinfo(d + name, kind, mode, len(data) if data else 0, linkname=link),
                data if kind == R else None)
    man = b"clash/stage\n"
    members = [(tarinfo("artifact_manifest.txt", R, 0o644, len(man)), man),
               m("keep.txt", R, b"keep\n"),
               m("a", R, b"a file\n"), m("a", D), m("a/y", R, b"a/y\n"),
               m("b", D), m("b/y", R, b"b/y\n"), m("b", R, b"b file\n"),
               m("c", D), m("c", R, b"c file\n"),
               m("d", R, b"d file\n"), m("d/y", R, b"d/y\n"),
               m("e/y", R, b"e/y\n"), m("e", R, b"e file\n"),
               m("f", L, link="keep.txt"), m("f", D), m("f/y", R, b"f/y\n"),
               m("g", D), m("g", L, link="keep.txt"),
               m("h", L, link="keep.txt"), m("h", R, b"h file\n"),
               m("i", R, b"i first\n"), m("i", R, b"i second\n"),
               m("j", D), m("j/k", D), m("j", R, b"j file\n"),
               m("l", R, b"l file\n"), m("l", D), m("l", R, b"l again\n"),
               m("n", R, b"n file\n"), m("n", H, link=d + "keep.txt"), m("n", D),
               m("o", H, link=d + "keep.txt"), m("o/p", R, b"o/p\n")]
    w.archive("clash_lib_generic.tar.zst", compress(tar_bytes(members), "zst"))
    expect["clash_lib_generic.tar.zst"] = {
        "expect": "tar", "note": "file/directory name clashes: browse/ equals `tar -x`"}

    w.put("EXPECT.json", (json.dumps({"run": HOSTILE_RUN, "format": 1, "archives": expect},
                                     indent=2, sort_keys=True) + "\n").encode())
    w.artifacts = {f for f, e in expect.items() if e["expect"] != "ignored"}
    w.finish()


def gzip_bytes(data):
    """gzip member with a fixed header (mtime 0, OS 255): gzip.compress()
    writes different headers across Python versions."""
    co = zlib.compressobj(6, zlib.DEFLATED, -15)
    body = co.compress(data) + co.flush()
    return (b"\x1f\x8b\x08\x00" + bytes(4) + b"\x00\xff" + body
            + struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF))


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out", help="output directory (the store root)")
    p.add_argument("--runs", help="comma list of standard runs: legacy,split "
                   "(default: both, unless --large-gib/--hostile is given)")
    p.add_argument("--large-gib", type=float, metavar="N",
                   help="write %s with a >= N GiB artifact" % LARGE_RUN)
    p.add_argument("--hostile", action="store_true", help="write %s" % HOSTILE_RUN)
    args = p.parse_args(argv)
    if args.runs is None:
        args.runs = [] if (args.large_gib or args.hostile) else ["legacy", "split"]
    else:
        args.runs = [r for r in args.runs.split(",") if r]
        bad = set(args.runs) - {"legacy", "split"}
        if bad:
            p.error("unknown run(s): %s" % ", ".join(sorted(bad)))
    if args.large_gib is not None and args.large_gib <= 0:
        p.error("--large-gib must be > 0")
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    for tool in ("zstd", "cc"):
        if shutil.which(tool) is None:
            raise SystemExit("mkdemo: `%s` not found in PATH" % tool)
    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="rockfs-mkdemo-") as tmp:
        b = Builder(tmp)
        if "legacy" in args.runs:
            write_standard_run(b, args.out, LEGACY_RUN, split=False)
        if "split" in args.runs:
            write_standard_run(b, args.out, SPLIT_RUN, split=True)
        if args.large_gib:
            write_large_run(b, args.out, args.large_gib)
        if args.hostile:
            write_hostile_run(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
