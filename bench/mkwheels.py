#!/usr/bin/env python3
"""Deterministic PEP 427 wheels for bench/python_bench.sh.

    mkwheels.py OUT sdk MIB      5 wheels of about MIB MiB (compressed) in total, a
                                 dependency tree: benchsdk -> core, libraries (-> core),
                                 devel (-> core), device_gfx1100 (-> libraries)
    mkwheels.py OUT many N MIB   N independent wheels, MIB MiB (compressed) in total

Each wheel holds "shared libraries" whose bytes are half pseudo-random (incompressible)
and half text-like (deflate shrinks it about 4x), deflated at level 6 like
`pip wheel` / bdist_wheel, plus a correct dist-info (METADATA, WHEEL, RECORD). Output is
byte-for-byte the same on every run (fixed seeds and zip timestamps).
"""

import base64
import hashlib
import os
import random
import sys
import zipfile

ZIP_TIME = (2026, 1, 1, 0, 0, 0)
TAG = "py3-none-linux_x86_64"
VERSION = "7.13.0.dev0"
WORDS = [b"hipLaunchKernel", b"rocblas_gemm", b"__device_stub", b"amdgcn", b"0x0000",
         b"_ZN7rocblas", b"TensileLibrary", b"gfx1100", b"kernarg", b"sgpr", b"vgpr",
         b"\n", b"\t", b"  ", b"const", b"float", b"half", b"Contraction"]
CHUNK = 1 << 20


def payload(seed, n):
    """n bytes: alternating 64 KiB blocks of random bytes and of word salad; written
    uncompressed size is such that the deflated size is about n."""
    rnd = random.Random(seed)
    out = bytearray()
    while len(out) < n:
        out += rnd.randbytes(65536)
        text = bytearray()
        while len(text) < 65536:
            text += b" ".join(rnd.choices(WORDS, k=64))
        out += text[:65536]
    return bytes(out[:n])


def rec_hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def write_wheel(out, dist, size, requires, seed):
    """A wheel of about size bytes (compressed) at out/<file>; returns its file name."""
    info = "%s-%s.dist-info" % (dist, VERSION)
    name = dist.replace("_", "-")
    # random half stays, text half shrinks ~4x: compressed ~ 0.5 + 0.5/4 of raw
    raw = int(size / 0.62)
    files = []
    left, i = raw, 0
    while left > 0:  # files of at most 64 MiB, like a split libraries wheel
        n = min(left, 64 << 20)
        files.append(("_%s/lib/lib%s_%d.so" % (dist, dist, i), n, seed * 1000 + i))
        left -= n
        i += 1
    files.append(("%s/__init__.py" % dist, 0, None))
    meta = ["Metadata-Version: 2.1", "Name: %s" % name, "Version: %s" % VERSION,
            "Summary: rockfs benchmark package %s" % name, "Requires-Python: >=3.9"]
    meta += ["Requires-Dist: %s" % r for r in requires]
    small = {
        info + "/METADATA": ("\n".join(meta) + "\n").encode(),
        info + "/WHEEL": ("Wheel-Version: 1.0\nGenerator: rockfs-mkwheels\n"
                          "Root-Is-Purelib: false\nTag: %s\n" % TAG).encode(),
        info + "/top_level.txt": ("%s\n_%s\n" % (dist, dist)).encode(),
    }
    fname = "%s-%s-%s.whl" % (dist, VERSION, TAG)
    rec = []

    def zi(n):
        z = zipfile.ZipInfo(n, ZIP_TIME)
        z.compress_type = zipfile.ZIP_DEFLATED
        z.create_system = 3
        z.external_attr = 0o644 << 16
        return z

    with zipfile.ZipFile(os.path.join(out, fname), "w", compresslevel=6) as zf:
        for path, n, s in files:
            data = payload(s, n) if n else b""
            rec.append("%s,%s,%d" % (path, rec_hash(data), len(data)))
            zf.writestr(zi(path), data)
        for path, data in small.items():
            rec.append("%s,%s,%d" % (path, rec_hash(data), len(data)))
            zf.writestr(zi(path), data)
        rec.append(info + "/RECORD,,")
        zf.writestr(zi(info + "/RECORD"), ("\n".join(rec) + "\n").encode())
    return fname


def main():
    out, mode = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    mib = 1 << 20
    if mode == "sdk":
        total = float(sys.argv[3]) * mib
        req = "==" + VERSION
        tree = [  # dist, share of the total, requires
            ("benchsdk_libraries", 0.50, ["benchsdk-core" + req]),
            ("benchsdk_device_gfx1100", 0.25, ["benchsdk-libraries" + req]),
            ("benchsdk_devel", 0.15, ["benchsdk-core" + req]),
            ("benchsdk_core", 0.10, []),
            ("benchsdk", 0.0, ["benchsdk-%s%s" % (d, req)
                               for d in ("core", "libraries", "devel", "device-gfx1100")]),
        ]
        for i, (dist, share, requires) in enumerate(tree):
            print(write_wheel(out, dist, int(total * share), requires, i + 1))
    elif mode == "many":
        n, total = int(sys.argv[3]), float(sys.argv[4]) * mib
        rnd = random.Random(42)
        weights = [rnd.lognormvariate(0, 1) for _ in range(n)]
        for i, w in enumerate(weights):
            write_wheel(out, "benchpkg_%03d" % i, int(total * w / sum(weights)), [], 100 + i)
        print("%d wheels" % n)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
