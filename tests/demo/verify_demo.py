#!/usr/bin/env python3
"""Independent checks of a store written by mkdemo.py.

    verify_demo.py STORE [--bundler PATH] [--no-large]

Re-parses every run found in STORE with its own readers (tar, ELF, offload
bundle, CCOB, msgpack, .kpack) and checks what docs/demo-store.md promises:
archive layout, sidecars, fat binaries, relocations, split binaries, that every
.kpack code object is byte-identical to the one in the legacy fat binary,
round trips through clang-offload-bundler (if installed), that the host
libraries load with ctypes, and the hostile run's EXPECT.json.
Prints one line per failed check plus a summary; exit status 1 on failure.
Standard library only; needs the zstd CLI.
"""

import argparse
import ctypes
import hashlib
import io
import json
import lzma
import os
import re
import struct
import subprocess
import sys
import tarfile
import tempfile
import zipfile
import zlib

MTIME = 1767225600
ARCHIVE_RE = re.compile(r"^([^_]+)_([^_]+)_([^_]+)\.tar\.(zst|xz)$")
FAMILIES = {"gfx110X-all": ["gfx1100", "gfx1101", "gfx1102", "gfx1103"],
            "gfx94X-dcgpu": ["gfx942"]}
DEFAULT_BUNDLER = "/usr/lib/llvm-15/bin/clang-offload-bundler"
MACH = {"gfx1100": 0x41, "gfx1101": 0x46, "gfx1102": 0x47, "gfx1103": 0x44, "gfx942": 0x4C}


class Checker:
    def __init__(self):
        self.failures = 0
        self.passed = 0
        self.notes = []

    def check(self, cond, what):
        if cond:
            self.passed += 1
        else:
            self.failures += 1
            print("FAIL: " + what)
        return cond

    def note(self, text):
        self.notes.append(text)


C = Checker()

# --------------------------------------------------------------------------
# Readers
# --------------------------------------------------------------------------


def zstd_decompress(data):
    res = subprocess.run(["zstd", "-dc", "-q"], input=data, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    if res.returncode != 0:
        raise ValueError("zstd: " + res.stderr.decode(errors="replace").strip())
    return res.stdout


def decompress(path):
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".zst"):
        return zstd_decompress(data)
    if path.endswith(".xz"):
        return lzma.decompress(data)
    raise ValueError(path)


def read_tar(raw):
    """[(TarInfo, bytes|None)] in archive order."""
    out = []
    with tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as tf:
        for ti in tf:
            data = tf.extractfile(ti).read() if ti.isreg() else None
            out.append((ti, data))
    return out


class Elf:
    """Just enough ELF64 LE: sections by name, RELA entries."""

    def __init__(self, data):
        self.data = data
        if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
            raise ValueError("not ELF64 LE")
        (self.e_type, self.e_machine, _, _, _, shoff, self.e_flags, _, _, _,
         shentsize, shnum, shstrndx) = struct.unpack_from("<HHIQQQIHHHHHH", data, 16)
        self.osabi, self.abiversion = data[7], data[8]
        self.sections = []
        for i in range(shnum):
            off = shoff + i * shentsize
            self.sections.append(list(struct.unpack_from("<IIQQQQIIQQ", data, off)))
        stroff = self.sections[shstrndx][4]
        self.by_name = {}
        for s in self.sections:
            end = data.index(b"\0", stroff + s[0])
            name = data[stroff + s[0]:end].decode()
            self.by_name[name] = s

    def section(self, name):
        return self.by_name.get(name)

    def contents(self, name):
        s = self.by_name[name]
        return self.data[s[4]:s[4] + s[5]]

    def relas(self):
        out = []
        for s in self.sections:
            if s[1] == 4:  # SHT_RELA
                for o in range(s[4], s[4] + s[5], 24):
                    out.append(struct.unpack_from("<QQq", self.data, o))
        return out

    def vaddr_bytes(self, addr, n):
        for s in self.sections:
            if s[1] != 8 and s[2] & 2 and s[3] <= addr < s[3] + s[5]:
                o = s[4] + addr - s[3]
                return self.data[o:o + n]
        raise ValueError("vaddr %#x not in a PROGBITS section" % addr)


def parse_plain_bundle(b):
    if b[:24] != b"__CLANG_OFFLOAD_BUNDLE__":
        raise ValueError("bad bundle magic")
    n, = struct.unpack_from("<Q", b, 24)
    pos, entries = 32, []
    for _ in range(n):
        off, size, idlen = struct.unpack_from("<QQQ", b, pos)
        bid = b[pos + 24:pos + 24 + idlen].decode()
        pos += 24 + idlen
        entries.append((bid, off, size))
    return entries


def decode_ccob(b):
    ver, method = struct.unpack_from("<HH", b, 4)
    if ver == 2:
        total, usize, h = struct.unpack_from("<II8s", b, 8)
        hs = 24
    elif ver == 3:
        total, usize, h = struct.unpack_from("<QQ8s", b, 8)
        hs = 32
    else:
        raise ValueError("CCOB version %d" % ver)
    payload = b[hs:total]
    raw = zstd_decompress(payload) if method == 1 else zlib.decompress(payload)
    C.check(len(raw) == usize, "CCOB uncompressed size")
    C.check(hashlib.md5(raw).digest()[:8] == h, "CCOB hash = MD5[0:8]")
    return ver, method, total, raw


def split_fatbin(fb):
    """[(offset, kind, plain_bundle_bytes)] for each bundle in .hip_fatbin."""
    out, i = [], 0
    while i < len(fb):
        if fb[i:i + 4] == b"CCOB":
            ver, method, total, raw = decode_ccob(fb[i:])
            out.append((i, "ccob-v%d-%s" % (ver, "zstd" if method == 1 else "zlib"), raw,
                        fb[i:i + total]))
            i = (i + total + 4095) // 4096 * 4096
        elif fb[i:i + 24] == b"__CLANG_OFFLOAD_BUNDLE__":
            entries = parse_plain_bundle(fb[i:])
            end = i + max(off + size for _, off, size in entries)
            out.append((i, "plain", fb[i:end], fb[i:end]))
            i = (end + 4095) // 4096 * 4096
        else:
            C.check(fb[i] == 0, "non-zero gap byte in .hip_fatbin at %d" % i)
            i += 1
    return out


class MsgUnpacker:
    def __init__(self, data, pos=0):
        self.d, self.p = data, pos

    def _take(self, n):
        v = self.d[self.p:self.p + n]
        if len(v) != n:
            raise ValueError("msgpack truncated")
        self.p += n
        return v

    def _u(self, fmt):
        n = struct.calcsize(fmt)
        return struct.unpack(fmt, self._take(n))[0]

    def unpack(self):
        t = self._take(1)[0]
        if t < 0x80:
            return t
        if t >= 0xE0:
            return t - 0x100
        if 0x80 <= t <= 0x8F:
            return self._map(t & 0xF)
        if 0x90 <= t <= 0x9F:
            return [self.unpack() for _ in range(t & 0xF)]
        if 0xA0 <= t <= 0xBF:
            return self._take(t & 0x1F).decode()
        simple = {0xC0: None, 0xC2: False, 0xC3: True}
        if t in simple:
            return simple[t]
        ints = {0xCC: ">B", 0xCD: ">H", 0xCE: ">I", 0xCF: ">Q",
                0xD0: ">b", 0xD1: ">h", 0xD2: ">i", 0xD3: ">q"}
        if t in ints:
            return self._u(ints[t])
        strs = {0xD9: ">B", 0xDA: ">H", 0xDB: ">I"}
        if t in strs:
            return self._take(self._u(strs[t])).decode()
        bins = {0xC4: ">B", 0xC5: ">H", 0xC6: ">I"}
        if t in bins:
            return self._take(self._u(bins[t]))
        if t in (0xDC, 0xDD):
            return [self.unpack() for _ in range(self._u(">H" if t == 0xDC else ">I"))]
        if t in (0xDE, 0xDF):
            return self._map(self._u(">H" if t == 0xDE else ">I"))
        raise ValueError("msgpack type %#x unsupported" % t)

    def _map(self, n):
        out = {}
        for _ in range(n):
            k = self.unpack()
            out[k] = self.unpack()
        return out


def read_kpack(data):
    magic, ver, toc_off = struct.unpack_from("<4sIQ", data, 0)
    C.check(magic == b"KPAK" and ver == 1, "kpack header")
    C.check(data[16:64] == bytes(48), "kpack padding zero")
    up = MsgUnpacker(data, toc_off)
    toc = up.unpack()
    C.check(up.p == len(data), "kpack: nothing after the TOC")
    C.check(toc.get("compression_scheme") == "zstd-per-kernel", "kpack scheme")
    zo, zs = toc["zstd_offset"], toc["zstd_size"]
    C.check(zo == 64 and zo + zs == toc_off, "kpack zstd region placement")
    count, = struct.unpack_from("<I", data, zo)
    frames, p = [], zo + 4
    for _ in range(count):
        n, = struct.unpack_from("<I", data, p)
        frames.append(data[p + 4:p + 4 + n])
        p += 4 + n
    C.check(p == zo + zs, "kpack frames fill the zstd region")
    kernels = {}
    for key, per_arch in toc["toc"].items():
        for arch, e in per_arch.items():
            frame = frames[e["ordinal"]]
            fhd = frame[4]  # frame header descriptor: FCS flag or single-segment
            C.check(frame[:4] == b"\x28\xb5\x2f\xfd" and (fhd >> 6 != 0 or fhd & 0x20),
                    "kpack frame %s has a content size" % key)
            co = zstd_decompress(frame)
            C.check(len(co) == e["original_size"], "kpack original_size %s" % key)
            kernels[(key, arch)] = (co, e)
    return toc, kernels


def check_code_object(co, target, what):
    try:
        e = Elf(co)
    except ValueError as ex:
        return C.check(False, "%s: %s" % (what, ex))
    proc, *feats = target.split(":")
    flags = MACH[proc]
    if proc == "gfx942":
        flags |= 0x300 if "xnack+" in feats else 0x100
        flags |= 0x400
    C.check(e.osabi == 64 and e.abiversion == 3 and e.e_type == 3 and e.e_machine == 224,
            "%s: AMDGPU HSA V5 ET_DYN header" % what)
    C.check(e.e_flags == flags, "%s: e_flags %#x != %#x for %s" % (what, e.e_flags, flags, target))
    C.check(e.section(".text") is not None and e.section(".symtab") is not None,
            "%s: .text/.symtab present" % what)


# --------------------------------------------------------------------------
# Archive-level checks (all runs)
# --------------------------------------------------------------------------


def check_archive(path):
    """Returns (prefixes, members) of a well-formed artifact archive."""
    name = os.path.basename(path)
    with open(path, "rb") as f:
        blob = f.read()
    with open(path + ".sha256sum") as f:
        side = f.read()
    C.check(side == hashlib.sha256(blob).hexdigest() + "\n", name + ": sidecar")
    members = read_tar(decompress(path))
    first = members[0][0]
    C.check(first.name == "artifact_manifest.txt" and first.isreg(), name + ": manifest first")
    man = members[0][1].decode()
    C.check(man.endswith("\n"), name + ": manifest ends with newline")
    prefixes = [l for l in man.split("\n") if l]
    seen = set()
    for ti, _ in members:
        C.check(ti.mtime == MTIME and ti.uid == 0 and ti.gid == 0
                and ti.uname == "root" and ti.gname == "root", name + ": owner/mtime " + ti.name)
        if ti.name == "artifact_manifest.txt":
            continue
        C.check(any(ti.name.startswith(p + "/") for p in prefixes),
                "%s: %s under a prefix" % (name, ti.name))
        C.check(ti.name not in prefixes, "%s: prefix dir itself is a member" % name)
        parent = ti.name.rsplit("/", 1)[0]
        C.check(parent in prefixes or parent in seen, "%s: parent dir before %s" % (name, ti.name))
        if ti.isdir():
            C.check(ti.mode == 0o755, name + ": dir mode")
        elif ti.isreg():
            C.check(ti.mode in (0o644, 0o755), name + ": file mode")
        elif ti.islnk():
            C.check(ti.linkname in seen, name + ": hardlink to an earlier member")
        seen.add(ti.name)
    return prefixes, members


def iter_archives(run_dir):
    for f in sorted(os.listdir(run_dir)):
        if ARCHIVE_RE.match(f):
            yield f, os.path.join(run_dir, f)


def check_standard_run(run_dir, split):
    arts = {}
    for f, path in iter_archives(run_dir):
        stem = f.split(".tar.")[0]
        prefixes, members = check_archive(path)
        if stem in arts:  # the .tar.zst / .tar.xz twin
            a = arts[stem]
            C.check([(t.name, d) for t, d in a[1]] == [(t.name, d) for t, d in members],
                    stem + ": zst and xz twins hold the same members")
        else:
            arts[stem] = (prefixes, members)
    C.check(any(f.endswith(".tar.xz") for f in os.listdir(run_dir)), "some .tar.xz artifacts")
    with open(os.path.join(run_dir, "manifests/therock_manifest.json"), "rb") as f:
        top = f.read()
    base = dict((t.name, d) for t, d in arts["base_lib_generic"][1])
    C.check(base["base/aux-overlay/stage/share/therock/therock_manifest.json"] == top,
            "manifests/therock_manifest.json == the one in base_lib_generic")
    C.check(json.loads(top)["flags"]["KPACK_SPLIT_ARTIFACTS"] is split,
            "KPACK_SPLIT_ARTIFACTS flag")
    arts_files = {stem: {t.name: (t, d) for t, d in m} for stem, (_, m) in arts.items()}
    check_python(run_dir, split)
    return arts, arts_files


def check_python(run_dir, split):
    """python/ (docs/demo-store.md section 2): valid wheels, RECORD, dependencies inside
    the set, the flat index.html listing exactly the package files."""
    import base64
    top = os.path.join(run_dir, "python")
    if split:  # a local build's layout: no stored packages (rockfs synthesizes them)
        C.check(not os.path.exists(top), "%s: stores no python/" % run_dir)
        return
    d = os.path.join(top, "gfx110X-all")
    if not C.check(os.path.isdir(d), "%s: python packages in %s" % (run_dir, d)):
        return
    files = sorted(f for f in os.listdir(d) if f.endswith((".whl", ".tar.gz")))
    names = set()
    requires = []
    for f in files:
        path = os.path.join(d, f)
        if f.endswith(".tar.gz"):
            with tarfile.open(path) as tf:
                base = f[:-len(".tar.gz")]
                C.check("%s/PKG-INFO" % base in tf.getnames(), f + ": sdist has PKG-INFO")
            names.add(base.rsplit("-", 1)[0])
            continue
        with zipfile.ZipFile(path) as z:
            C.check(z.testzip() is None, f + ": zip CRCs")
            dist, ver = f.split("-")[:2]
            info = "%s-%s.dist-info" % (dist, ver)
            for line in z.read(info + "/RECORD").decode().splitlines():
                member, h, size = line.rsplit(",", 2)
                if member == info + "/RECORD":
                    continue
                data = z.read(member)
                want = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
                C.check(h == "sha256=" + want.decode() and int(size) == len(data),
                        "%s: RECORD of %s" % (f, member))
            meta = z.read(info + "/METADATA").decode()
            C.check(re.search(r"^Name: %s$" % re.escape(dist.replace("_", "-")), meta, re.M)
                    is not None, f + ": METADATA Name")
            C.check("Requires-Python: " in meta, f + ": METADATA Requires-Python")
            requires += re.findall(r"^Requires-Dist: ([a-z0-9-]+)==", meta, re.M)
            names.add(dist.replace("_", "-"))
    norm = {re.sub(r"[-_.]+", "-", n).lower() for n in names}
    for r in requires:
        C.check(r in norm, "%s: dependency %s is in the set" % (run_dir, r))
    with open(os.path.join(d, "index.html")) as f:
        hrefs = re.findall(r'href="([^"]+)"', f.read())
    C.check(hrefs == files, "%s: index.html lists exactly the package files" % d)


def load_libs(arts_files, tmp):
    """ctypes-load every regular .so file (written to a fresh dir: never
    overwrite a file that is already mapped)."""
    tmp = tempfile.mkdtemp(dir=tmp)
    n = 0
    for stem, files in arts_files.items():
        for name, (ti, data) in files.items():
            if ti.isreg() and re.search(r"\.so(\.|$)", name) and data[:4] == b"\x7fELF":
                p = os.path.join(tmp, stem + "__" + name.replace("/", "_"))
                with open(p, "wb") as f:
                    f.write(data)
                try:
                    ctypes.CDLL(p)
                    n += 1
                except OSError as ex:
                    C.check(False, "ctypes load %s/%s: %s" % (stem, name, ex))
    return n


# --------------------------------------------------------------------------
# Legacy (fat) and split checks
# --------------------------------------------------------------------------


def check_fat_lib(what, data, targets, bundler, tmp):
    """Returns {(tu_index, target): code_object} of a fat host library."""
    e = Elf(data)
    fb_s, seg_s = e.section(".hip_fatbin"), e.section(".hipFatBinSegment")
    if not C.check(fb_s is not None and seg_s is not None, what + ": fat sections"):
        return {}
    C.check(fb_s[1] == 1 and fb_s[8] == 4096, what + ": .hip_fatbin PROGBITS align 4096")
    fb = e.contents(".hip_fatbin")
    seg = e.contents(".hipFatBinSegment")
    C.check(len(seg) % 24 == 0, what + ": wrapper size multiple of 24")
    bundles = split_fatbin(fb)
    C.check(len(seg) // 24 == len(bundles), what + ": one wrapper per bundle")
    relas = {r[0]: r for r in e.relas()}
    out = {}
    for i, (off, kind, raw, stored) in enumerate(bundles):
        magic, ver = struct.unpack_from("<II", seg, 24 * i)
        C.check(magic == 0x48495046 and ver == 1, "%s: wrapper %d HIPF v1" % (what, i))
        r = relas.get(seg_s[3] + 24 * i + 8)
        C.check(r is not None and r[1] == 8 and r[2] == fb_s[3] + off,
                "%s: wrapper %d R_X86_64_RELATIVE -> bundle %d" % (what, i, i))
        C.check(off % 4096 == 0, "%s: bundle %d 4096-aligned" % (what, i))
        entries = parse_plain_bundle(raw)
        C.check(entries[0][0] == "host-x86_64-unknown-linux-gnu-" and entries[0][2] == 0,
                "%s: host entry first, size 0" % what)
        ids = [bid for bid, _, _ in entries[1:]]
        C.check(ids == ["hipv4-amdgcn-amd-amdhsa--" + t for t in targets],
                "%s: bundle %d targets %s" % (what, i, ids))
        for bid, o, size in entries[1:]:
            C.check(o % 4096 == 0, "%s: code object 4096-aligned" % what)
            t = bid.split("--", 1)[1]
            co = raw[o:o + size]
            check_code_object(co, t, "%s#%d %s" % (what, i, t))
            out[(i, t)] = co
        if bundler:
            bundler_roundtrip(bundler, tmp, what, i, kind, stored, out, targets)
    return out


def bundler_roundtrip(bundler, tmp, what, i, kind, stored, cos, targets):
    inp = os.path.join(tmp, "bundle.bin")
    with open(inp, "wb") as f:
        f.write(stored)
    res = subprocess.run([bundler, "-list", "-type=o", "-input=" + inp],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    listed = sorted(res.stdout.decode().split())
    if kind != "plain":
        C.note("clang-offload-bundler -list on %s: rc=%d, %d ids listed (%s)"
               % (kind, res.returncode, len(listed), " ".join(listed) or "nothing"))
        return
    expect = sorted(["host-x86_64-unknown-linux-gnu-"] +
                    ["hipv4-amdgcn-amd-amdhsa--" + t for t in targets])
    C.check(res.returncode == 0 and listed == expect, "%s#%d: bundler -list" % (what, i))
    for t in targets:
        out = os.path.join(tmp, "co.o")
        res = subprocess.run([bundler, "-unbundle", "-type=o", "-input=" + inp,
                              "-targets=hipv4-amdgcn-amd-amdhsa--" + t, "-output=" + out],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        ok = res.returncode == 0
        if ok:
            with open(out, "rb") as f:
                ok = f.read() == cos[(i, t)]
        C.check(ok, "%s#%d: bundler -unbundle %s gives the exact code object" % (what, i, t))
    # and bundling the code objects ourselves gives the stored bytes back
    ins = ["-input=/dev/null"]
    for t in targets:
        p = os.path.join(tmp, "in_%s.o" % t.replace(":", "_"))
        with open(p, "wb") as f:
            f.write(cos[(i, t)])
        ins.append("-input=" + p)
    out = os.path.join(tmp, "rebundled.bin")
    tlist = ",".join(["host-x86_64-unknown-linux-gnu-"] +
                     ["hipv4-amdgcn-amd-amdhsa--" + t for t in targets])
    res = subprocess.run([bundler, "-type=o", "-bundle-align=4096", "-targets=" + tlist]
                         + ins + ["-output=" + out], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    ok = res.returncode == 0
    if ok:
        with open(out, "rb") as f:
            ok = f.read() == stored
    C.check(ok, "%s#%d: clang-offload-bundler re-bundles to identical bytes" % (what, i))


FAT_LIBS = {"blas": ["math-libs/BLAS/rocBLAS/stage/lib/librocblas.so.5.0.70130",
                     "math-libs/BLAS/hipBLASLt/stage/lib/libhipblaslt.so.1.0"],
            "rand": ["math-libs/rocRAND/stage/lib/librocrand.so.1.1"]}


def prefix_of(path):
    parts = path.split("/")
    return "/".join(parts[:parts.index("stage") + 1])


def rand_targets(family):
    return FAMILIES[family] + (["gfx942:xnack+"] if family == "gfx94X-dcgpu" else [])


def check_legacy(run_dir, bundler, tmp):
    arts, files = check_standard_run(run_dir, split=False)
    cos, dbs = {}, {}
    for family, targets in FAMILIES.items():
        for group, libs in FAT_LIBS.items():
            stem = "%s_lib_%s" % (group, family)
            tg = rand_targets(family) if group == "rand" else targets
            for lib in libs:
                ti, data = files[stem][lib]
                for (i, t), co in check_fat_lib(stem + ":" + lib, data, tg, bundler, tmp).items():
                    cos[(lib, i, t)] = co
        blas = arts["blas_lib_" + family][0]
        C.check(blas[0] == "math-libs/BLAS/hipBLAS-common/stage"
                and not any(n.startswith(blas[0] + "/") for n in files["blas_lib_" + family]),
                "blas_lib_%s: declared-but-empty hipBLAS-common prefix" % family)
        for name, (ti, data) in files["blas_lib_" + family].items():
            if re.search(r"/library/.*gfx", name):
                dbs[name] = data
    n = load_libs(files, tmp)
    C.check(n >= 10, "legacy: ctypes loaded %d libraries" % n)
    hl = files["amd-llvm_run_generic"]
    lld = hl["compiler/amd-llvm/stage/lib/llvm/bin/lld"][0]
    C.check(lld.islnk() and lld.linkname == "compiler/amd-llvm/stage/lib/llvm/bin/ld.lld",
            "lld is a hardlink to ld.lld")
    return cos, dbs


def check_split(run_dir, legacy_cos, legacy_dbs, bundler, tmp):
    arts, files = check_standard_run(run_dir, split=True)
    all_targets = [t for ts in FAMILIES.values() for t in ts]
    for group, libs in FAT_LIBS.items():
        gen = files["%s_lib_generic" % group]
        targets = all_targets + (["gfx942:xnack+"] if group == "rand" else [])
        for lib in libs:
            what = "%s_lib_generic:%s" % (group, lib)
            e = Elf(gen[lib][1])
            fb, seg_s, ref = (e.section(n) for n in (".hip_fatbin", ".hipFatBinSegment",
                                                      ".rocm_kpack_ref"))
            C.check(fb is not None and fb[1] == 8, what + ": .hip_fatbin is NOBITS")
            if not C.check(ref is not None and ref[2] & 2, what + ": .rocm_kpack_ref allocated"):
                continue
            marker = MsgUnpacker(e.contents(".rocm_kpack_ref")).unpack()
            prefix = prefix_of(lib)
            rel = lib[len(prefix) + 1:]
            search = "../" * rel.count("/") + ".kpack/%s_lib_@GFXARCH@.kpack" % group
            C.check(marker == {"kpack_search_paths": [search], "kernel_name": lib},
                    what + ": marker %r" % marker)
            seg = e.contents(".hipFatBinSegment")
            relas = {r[0]: r for r in e.relas()}
            for i in range(len(seg) // 24):
                magic, ver, _, dummy = struct.unpack_from("<IIQQ", seg, 24 * i)
                C.check(magic == 0x4B504948 and ver == 1 and dummy == i,
                        "%s: wrapper %d HIPK" % (what, i))
                r = relas.get(seg_s[3] + 24 * i + 8)
                C.check(r is not None and r[1] == 8 and r[2] == ref[3],
                        "%s: wrapper %d relocated to .rocm_kpack_ref" % (what, i))
        # per-target artifacts: one .kpack each, code objects identical to legacy
        for t in targets:
            stem = "%s_lib_%s" % (group, t)
            if not C.check(stem in files, stem + " exists"):
                continue
            prefixes = arts[stem][0]
            C.check(prefixes == sorted(prefixes), stem + ": sorted manifest")
            kfirst = sorted(prefix_of(l) for l in libs)[0]
            kname = "%s/.kpack/%s_lib_%s.kpack" % (kfirst, group, t)
            if not C.check(kname in files[stem], "%s: %s" % (stem, kname)):
                continue
            toc, kernels = read_kpack(files[stem][kname][1])
            C.check(toc["gfx_arches"] == [t] and toc["gfx_arch_family"] == t
                    and toc["group_name"] == group + "_lib", stem + ": TOC header fields")
            for (key, arch), (co, entry) in kernels.items():
                lib, idx = key.rsplit("#", 1)
                ref = legacy_cos.get((lib, int(idx), arch))
                C.check(ref is not None and co == ref,
                        "%s: %s %s identical to the legacy fat binary's" % (stem, key, arch))
                C.check(entry["metadata"]["target"] == "hipv4-amdgcn-amd-amdhsa--" + arch,
                        stem + ": metadata.target")
            expected = sum(1 for (l, i, a) in legacy_cos if a == t and l in libs)
            C.check(len(kernels) == expected,
                    "%s: %d kernels (expected %d)" % (stem, len(kernels), expected))
            for name, (ti, data) in files[stem].items():
                if "/library/" in name and ti.isreg():
                    C.check(legacy_dbs.get(name) == data,
                            "%s: %s identical to legacy" % (stem, name))
    n = load_libs(files, tmp)
    C.check(n >= 8, "split: ctypes loaded %d libraries" % n)
    C.check(os.path.exists(os.path.join(run_dir, "rand_lib_gfx942:xnack+.tar.zst")),
            "rand_lib_gfx942:xnack+.tar.zst exists")


# --------------------------------------------------------------------------
# Hostile and large runs
# --------------------------------------------------------------------------


def check_hostile(run_dir):
    with open(os.path.join(run_dir, "EXPECT.json")) as f:
        expect = json.load(f)["archives"]
    on_disk = {f for f in os.listdir(run_dir)
               if not f.endswith(".sha256sum") and f != "EXPECT.json"}
    C.check(on_disk == set(expect), "hostile: EXPECT.json covers every archive")
    for fname, e in sorted(expect.items()):
        path = os.path.join(run_dir, fname)
        matches = bool(ARCHIVE_RE.match(fname))
        if e["expect"] == "ignored":
            C.check(not matches, fname + ": must not match the artifact regex")
            continue
        C.check(matches, fname + ": matches the artifact regex")
        with open(path, "rb") as f:
            blob = f.read()
        with open(path + ".sha256sum") as f:
            sum_ok = f.read().split()[0] == hashlib.sha256(blob).hexdigest()
        try:
            members = read_tar(decompress(path))
            err = None
        except Exception as ex:  # decompression or tar error
            members, err = [], ex
        if e["expect"] == "ok":
            C.check(sum_ok and err is None, fname + ": reads cleanly")
            got = {t.name: (t, d) for t, d in members}
            for name, m in e["members"].items():
                t, d = got.get(name, (None, None))
                ok = t is not None and (
                    (m["type"] == "file" and t.isreg()
                     and hashlib.sha256(d).hexdigest() == m["sha256"])
                    or (m["type"] == "dir" and t.isdir())
                    or (m["type"] == "symlink" and t.issym() and t.linkname == m["target"]))
                C.check(ok, "%s: member %s as listed" % (fname, name))
            for name in e.get("absent_or_neutralized", []):
                C.check(name in got,
                        "%s: hostile member %s really is in the archive" % (fname, name))
        else:
            broken = (not sum_ok or err is not None or not members
                      or members[0][0].name != "artifact_manifest.txt"
                      or len(members) < 3)  # python tarfile stops quietly at a bad header
            C.check(broken, "%s: is really broken (%s)" % (fname, err or "sum/first/short"))


def check_large(run_dir):
    path = os.path.join(run_dir, "bigdata_lib_generic.tar.zst")
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 22), b""):
            h.update(block)
    with open(path + ".sha256sum") as f:
        C.check(f.read() == h.hexdigest() + "\n", "bigdata sidecar")
    proc = subprocess.Popen(["zstd", "-dc", "-q", path], stdout=subprocess.PIPE)
    n = total = 0
    sizes = []
    with tarfile.open(fileobj=proc.stdout, mode="r|") as tf:
        for i, ti in enumerate(tf):
            if i == 0:
                C.check(ti.name == "artifact_manifest.txt", "bigdata: manifest first")
            elif ti.isreg():
                n += 1
                total += ti.size
                sizes.append(ti.size)
    proc.wait()
    C.check(min(sizes) >= 64 << 10 and max(sizes) <= 64 << 20, "bigdata: sizes in 64 KiB..64 MiB")
    ratio = total / os.path.getsize(path)
    C.note("bigdata: %d files, %d bytes (%.3f GiB), zstd ratio %.2f"
           % (n, total, total / 2**30, ratio))


# --------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("store")
    ap.add_argument("--bundler", default=DEFAULT_BUNDLER)
    ap.add_argument("--no-large", action="store_true", help="skip the (slow) large run")
    args = ap.parse_args()
    bundler = args.bundler if os.access(args.bundler, os.X_OK) else None
    if bundler is None:
        C.note("clang-offload-bundler not found at %s: round trips skipped" % args.bundler)
    runs = set(os.listdir(args.store))
    with tempfile.TemporaryDirectory(prefix="rockfs-verify-") as tmp:
        if "24205988454-linux" in runs:
            cos, dbs = check_legacy(os.path.join(args.store, "24205988454-linux"), bundler, tmp)
            if "24205988455-linux" in runs:
                check_split(os.path.join(args.store, "24205988455-linux"), cos, dbs, bundler, tmp)
        elif "24205988455-linux" in runs:
            C.note("split run not cross-checked: legacy run missing")
            check_standard_run(os.path.join(args.store, "24205988455-linux"), split=True)
        if "66600000000-linux" in runs:
            check_hostile(os.path.join(args.store, "66600000000-linux"))
        if "90000000001-linux" in runs and not args.no_large:
            check_large(os.path.join(args.store, "90000000001-linux"))
    for n in sorted(set(C.notes)):
        print("note: " + n)
    print("verify_demo: %d checks passed, %d failed" % (C.passed, C.failures))
    return 1 if C.failures else 0


if __name__ == "__main__":
    sys.exit(main())
