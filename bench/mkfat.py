#!/usr/bin/env python3
"""Generate a large fat host library for the kpack benchmark.

    mkfat.py OUT.so GIB BUNDLES

OUT.so is an x86-64 shared library (built with cc) whose .hip_fatbin holds BUNDLES
plain clang offload bundles (one per translation unit, 4096-aligned, as clang and ld
lay them out), each with a host entry and two code objects, gfx1100 and gfx942, of
about GIB GiB / BUNDLES / 2 bytes; .hipFatBinSegment holds one HIPF wrapper per bundle.
A code object is an AMDGPU ELF header (e_flags naming its target) followed by half
random, half zero bytes, so it compresses about 2:1.
"""
import os
import struct
import subprocess
import sys
import tempfile

ALIGN = 4096
HOST = b"host-x86_64-unknown-linux-gnu-"
TARGETS = [(b"hipv4-amdgcn-amd-amdhsa--gfx1100", 0x41), (b"hipv4-amdgcn-amd-amdhsa--gfx942", 0x54C)]


def code_object(flags, size):
    ident = b"\x7fELF" + bytes([2, 1, 1, 64, 3]) + bytes(7)
    hdr = ident + struct.pack("<HHIQQQIHHHHHH", 3, 224, 1, 0, 0, 0, flags, 64, 0, 0, 64, 0, 0)
    body = size - len(hdr)
    return hdr + os.urandom(body // 2) + bytes(body - body // 2)


def bundle(co_size):
    ids = [HOST] + [t for t, _ in TARGETS]
    head = 32 + sum(24 + len(i) for i in ids)
    off = (head + ALIGN - 1) // ALIGN * ALIGN
    entries, blobs, pos = [], [], off
    entries.append((off, 0, HOST))
    for tid, flags in TARGETS:
        pos = (pos + ALIGN - 1) // ALIGN * ALIGN
        entries.append((pos, co_size, tid))
        blobs.append((pos, code_object(flags, co_size)))
        pos += co_size
    out = bytearray(b"__CLANG_OFFLOAD_BUNDLE__" + struct.pack("<Q", len(ids)))
    for o, s, i in entries:
        out += struct.pack("<QQQ", o, s, len(i)) + i
    for o, b in blobs:
        out += bytes(o - len(out)) + b
    return bytes(out)


def main():
    out, gib, n = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    co_size = int(gib * (1 << 30) / n / 2) // ALIGN * ALIGN
    with tempfile.TemporaryDirectory() as d:
        spans = []
        with open(f"{d}/fatbin.bin", "wb") as f:
            for _ in range(n):
                b = bundle(co_size)
                spans.append((f.tell(), len(b)))
                f.write(b + bytes((-len(b)) % ALIGN))
        asm = ['.section .hip_fatbin,"a",@progbits']
        for i, (o, s) in enumerate(spans):
            asm += [".p2align 12", f"fb{i}:", f'.incbin "{d}/fatbin.bin", {o}, {s}']
        asm += ['.section .hipFatBinSegment,"aw",@progbits', ".p2align 3"]
        for i in range(n):
            asm += [".long 0x48495046, 1", f".quad fb{i}", ".quad 0"]
        asm += ['.section .note.GNU-stack,"",@progbits']
        open(f"{d}/fat.s", "w").write("\n".join(asm) + "\n")
        open(f"{d}/api.c", "w").write("int big_demo_version(void) { return 7; }\n")
        subprocess.run(["cc", "-shared", "-fPIC", "-O1", "-o", out, f"{d}/fat.s", f"{d}/api.c",
                        "-Wl,--build-id=none", "-Wl,-soname,libbig.so.1"], check=True)


if __name__ == "__main__":
    main()
