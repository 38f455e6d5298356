#!/usr/bin/env python3
"""Independent readers for the kpack tests, written from kpack-format.md (sections 1,
3 and 5) and the msgpack spec with Python's standard library and the zstd CLI. They
share no code with rockfs.

    kpack_oracle.py kpack FILE            one line per code object:
                                          "<key> <arch> <size> <sha256>", then a line
                                          "scheme <name>"
    kpack_oracle.py bundles FAT OUT       cut the .hip_fatbin of ELF file FAT into its
                                          bundles, decompressing CCOBs: OUT/<i>.bundle
                                          (plain), prints the count
    kpack_oracle.py split-elf FAT SPLIT   check host binary SPLIT against its fat
                                          original FAT: .hip_fatbin NOBITS at the same
                                          address and size, the marker, each wrapper HIPK
                                          with its index and a RELATIVE relocation (addend =
                                          marker address), the fatbin's pages cut out,
                                          and the bytes before .hip_fatbin unchanged except
                                          for the ELF header, program headers and wrappers
"""
import hashlib
import struct
import subprocess
import sys
import zlib


def unpack(data, pos=0):
    """One msgpack object at pos: (value, next position)."""
    t = data[pos]
    pos += 1

    def take(n):
        return data[pos:pos + n], pos + n

    if t <= 0x7F:
        return t, pos
    if t >= 0xE0:
        return t - 0x100, pos
    if 0x80 <= t <= 0x8F or t in (0xDE, 0xDF):
        if t <= 0x8F:
            n = t & 0x0F
        else:
            w = 2 if t == 0xDE else 4
            n = int.from_bytes(data[pos:pos + w], "big")
            pos += w
        out = {}
        for _ in range(n):
            k, pos = unpack(data, pos)
            v, pos = unpack(data, pos)
            out[k] = v
        return out, pos
    if 0x90 <= t <= 0x9F or t in (0xDC, 0xDD):
        if t <= 0x9F:
            n = t & 0x0F
        else:
            w = 2 if t == 0xDC else 4
            n = int.from_bytes(data[pos:pos + w], "big")
            pos += w
        out = []
        for _ in range(n):
            v, pos = unpack(data, pos)
            out.append(v)
        return out, pos
    if 0xA0 <= t <= 0xBF or t in (0xD9, 0xDA, 0xDB, 0xC4, 0xC5, 0xC6):
        if t <= 0xBF:
            n = t & 0x1F
        else:
            w = {0xD9: 1, 0xDA: 2, 0xDB: 4, 0xC4: 1, 0xC5: 2, 0xC6: 4}[t]
            n = int.from_bytes(data[pos:pos + w], "big")
            pos += w
        raw = data[pos:pos + n]
        return (bytes(raw) if t in (0xC4, 0xC5, 0xC6) else raw.decode()), pos + n
    if t in (0xCC, 0xCD, 0xCE, 0xCF, 0xD0, 0xD1, 0xD2, 0xD3):
        w = {0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8, 0xD0: 1, 0xD1: 2, 0xD2: 4, 0xD3: 8}[t]
        return int.from_bytes(data[pos:pos + w], "big", signed=t >= 0xD0), pos + w
    if t in (0xC0, 0xC2, 0xC3):
        return {0xC0: None, 0xC2: False, 0xC3: True}[t], pos
    raise ValueError(f"msgpack type {t:#x} at {pos - 1}")


def sections(data):
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    raw = []
    for i in range(shnum):
        raw.append(struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize))
    stroff = raw[shstrndx][4]
    out = {}
    for name, typ, flags, addr, off, size, link, info, align, entsize in raw:
        end = data.index(b"\0", stroff + name)
        out[data[stroff + name:end].decode()] = dict(type=typ, flags=flags, addr=addr, off=off, size=size)
    return out


def read_kpack(path):
    data = open(path, "rb").read()
    assert data[:4] == b"KPAK", "magic"
    version, toc_off = struct.unpack_from("<IQ", data, 4)
    assert version == 1, "version"
    toc, end = unpack(data, toc_off)
    assert end == len(data), "bytes after the TOC"
    scheme = toc.get("compression_scheme", "none")
    frames = []
    if scheme == "zstd-per-kernel":
        pos = toc["zstd_offset"]
        (count,) = struct.unpack_from("<I", data, pos)
        pos += 4
        for _ in range(count):
            (n,) = struct.unpack_from("<I", data, pos)
            frames.append(data[pos + 4:pos + 4 + n])
            pos += 4 + n
        assert pos == toc["zstd_offset"] + toc["zstd_size"], "zstd region size"
    lines = []
    for key in sorted(toc["toc"]):
        for arch, e in sorted(toc["toc"][key].items()):
            assert e["type"] == "hsaco"
            if scheme == "none":
                b = toc["blobs"][e["ordinal"]]
                obj = data[b["offset"]:b["offset"] + b["size"]]
            else:
                obj = subprocess.run(["zstd", "-q", "-dc"], input=frames[e["ordinal"]],
                                     check=True, capture_output=True).stdout
            assert len(obj) == e["original_size"], "original_size"
            lines.append(f"{key} {arch} {len(obj)} {hashlib.sha256(obj).hexdigest()}")
    return lines, scheme


PLAIN = b"__CLANG_OFFLOAD_BUNDLE__"


def bundles(fat, out):
    data = open(fat, "rb").read()
    s = sections(data)[".hip_fatbin"]
    sec = data[s["off"]:s["off"] + s["size"]]
    pos, n = 0, 0
    while pos < len(sec):
        if sec[pos:pos + 4] == b"CCOB":
            version, method = struct.unpack_from("<HH", sec, pos + 4)
            if version == 2:
                total, usize = struct.unpack_from("<II", sec, pos + 8)
                hdr = 24
            elif version == 3:
                total, usize = struct.unpack_from("<QQ", sec, pos + 8)
                hdr = 32
            else:
                raise SystemExit(f"CCOB version {version}")
            body = sec[pos + hdr:pos + total]
            if method == 0:
                plain = zlib.decompress(body)
            else:
                plain = subprocess.run(["zstd", "-q", "-dc"], input=body, check=True,
                                       capture_output=True).stdout
            assert len(plain) == usize
            assert hashlib.md5(plain).digest()[:8] == sec[pos + hdr - 8:pos + hdr], "CCOB hash"
            open(f"{out}/{n}.bundle", "wb").write(plain)
            pos += total
            n += 1
        elif sec[pos:pos + 24] == PLAIN:
            (count,) = struct.unpack_from("<Q", sec, pos + 24)
            p, end = pos + 32, pos
            for _ in range(count):
                off, size, idlen = struct.unpack_from("<QQQ", sec, p)
                p += 24 + idlen
                end = max(end, pos + off + size)
            open(f"{out}/{n}.bundle", "wb").write(sec[pos:end])
            pos = end
            n += 1
        else:
            pos += 1
    print(n)


def split_elf(fat, split):
    a, b = open(fat, "rb").read(), open(split, "rb").read()
    sa, sb = sections(a), sections(b)
    fa, fb = sa[".hip_fatbin"], sb[".hip_fatbin"]
    assert fb["type"] == 8, ".hip_fatbin is not NOBITS"
    assert (fa["addr"], fa["size"]) == (fb["addr"], fb["size"]), ".hip_fatbin moved"
    m = sb[".rocm_kpack_ref"]
    marker, end = unpack(b[m["off"]:m["off"] + m["size"]])
    assert end == m["size"], "marker size"
    assert set(marker) == {"kpack_search_paths", "kernel_name"}, marker
    assert m["flags"] & 2, "marker not SHF_ALLOC"
    # the whole pages of .hip_fatbin are gone; what grows is the appended tail (two
    # marker copies, the section header table and names, perhaps a new phdr table)
    tail = 4 * 4096 + 64 * (len(sb) + 1) + 2 * m["size"] + 56 * 32
    assert len(b) <= len(a) - fa["size"] + tail, f"{len(a)} -> {len(b)}: .hip_fatbin not cut"
    seg = sb[".hipFatBinSegment"]
    relas = {}
    rd = sb[".rela.dyn"]
    for i in range(rd["size"] // 24):
        off, info, addend = struct.unpack_from("<QQq", b, rd["off"] + 24 * i)
        relas[off] = (info, addend)
    for i in range(seg["size"] // 24):
        magic, version, ptr, dummy = struct.unpack_from("<IIQQ", b, seg["off"] + 24 * i)
        assert magic == 0x4B504948, f"wrapper {i} not HIPK"
        assert version == 1
        assert dummy & 0xFFFFFFFF == i, f"wrapper {i} index {dummy}"
        info, addend = relas[seg["addr"] + 24 * i + 8]
        assert info & 0xFFFFFFFF == 8 and addend == m["addr"], f"wrapper {i} relocation"
    # Bytes before .hip_fatbin: only the headers, the wrappers and their relocations
    # may differ.
    (phoff,) = struct.unpack_from("<Q", a, 0x20)
    phnum = struct.unpack_from("<H", a, 0x38)[0]
    fixed = set(range(0, 64)) | set(range(phoff, phoff + 56 * (phnum + 16)))
    ptrs = {seg["addr"] + 24 * i + 8 for i in range(seg["size"] // 24)}
    ra = sections(a)[".rela.dyn"]
    for i in range(ra["size"] // 24):
        if struct.unpack_from("<Q", a, ra["off"] + 24 * i)[0] in ptrs:
            fixed |= set(range(ra["off"] + 24 * i, ra["off"] + 24 * i + 24))
    for i in range(fa["off"]):
        if a[i] != b[i] and i not in fixed:
            raise AssertionError(f"byte {i:#x} changed")
    print(f"{marker['kernel_name']} {seg['size'] // 24} wrappers")


def main():
    cmd = sys.argv[1]
    if cmd == "kpack":
        lines, scheme = read_kpack(sys.argv[2])
        print("\n".join(lines))
        print("scheme", scheme)
    elif cmd == "bundles":
        bundles(sys.argv[2], sys.argv[3])
    elif cmd == "split-elf":
        split_elf(sys.argv[2], sys.argv[3])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
