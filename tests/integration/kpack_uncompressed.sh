#!/usr/bin/env bash
# kpack_uncompressed: the mount's default .kpack archives (scheme "none", docs/kpack.md
# "Compression") are byte for byte what rocm-kpack writes uncompressed
# (PackedKernelArchive with its default NoOpCompressor, pack_tree.py --compression none)
# for the same code objects:
#  - for every archive of RUN/kpack/ of the legacy demo run, the uncompressed archive is
#    rebuilt, as upstream's PackedKernelArchive.write lays it out (16-byte header, zeros
#    to 64, the code objects back to back in ordinal order, then the msgpack TOC with
#    format_version, group_name, gfx_arch_family, gfx_arches, toc, compression_scheme
#    "none" and blobs [{offset, size}] at absolute offsets), from the archive of the
#    demo's kpack-split run (the zstd-per-kernel archive split_artifacts writes): same
#    bytes;
#  - rockpack split --compression none writes the same bytes; its default is zstd.
. "$(dirname "$0")/lib.sh"
it_init "$@"
HERE=$(dirname "$(realpath "$0")")
L=24205988454-linux S=24205988455-linux

it_mount m "$STORE" "$T/mnt" "$T/cache"
"$ROCKPACK" --cache "$T/c" -q split "$STORE" "$L" -o "$T/none" --compression none ||
	fail "rockpack split --compression none"
"$ROCKPACK" --cache "$T/c" -q split "$STORE" "$L" -o "$T/zstd" || fail "rockpack split"

python3 - "$HERE" "$T/mnt/$L/kpack" "$T/mnt/$S/browse" "$T/none" "$T/zstd" <<'PY' || fail "see above"
import glob, os, struct, subprocess, sys
here, ours, split_run, none_dir, zstd_dir = sys.argv[1:6]
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "demo"))
from kpack_oracle import unpack
from mkdemo import msgpack

def toc_of(data):
    version, toc_off = struct.unpack_from("<IQ", data, 4)
    toc, end = unpack(data, toc_off)
    assert data[:4] == b"KPAK" and version == 1 and end == len(data)
    return toc

def upstream_none(zdata):
    """What PackedKernelArchive(compressor=NoOpCompressor()) writes for the kernels of a
    zstd-per-kernel archive, in the same order."""
    toc = toc_of(zdata)
    assert toc["compression_scheme"] == "zstd-per-kernel"
    pos = toc["zstd_offset"]
    (count,) = struct.unpack_from("<I", zdata, pos)
    pos += 4
    objs = []
    for _ in range(count):
        (n,) = struct.unpack_from("<I", zdata, pos)
        objs.append(subprocess.run(["zstd", "-q", "-dc"], input=zdata[pos + 4:pos + 4 + n],
                                   check=True, capture_output=True).stdout)
        pos += 4 + n
    blobs, off = [], 64
    for o in objs:
        blobs.append({"offset": off, "size": len(o)})
        off += len(o)
    out = {k: toc[k] for k in ("format_version", "group_name", "gfx_arch_family",
                               "gfx_arches", "toc")}
    out["compression_scheme"] = "none"
    out["blobs"] = blobs
    return struct.pack("<4sIQ", b"KPAK", 1, off) + bytes(48) + b"".join(objs) + msgpack(out)

bad = n = 0
for path in sorted(glob.glob(os.path.join(ours, "*", "**", ".kpack", "*.kpack"), recursive=True)):
    rel = os.path.relpath(path, ours)
    n += 1
    theirs = os.path.join(split_run, rel)
    if not os.path.exists(theirs):
        print("FAIL: %s: the split run has no such archive" % rel)
        bad += 1
        continue
    with open(path, "rb") as f:
        got = f.read()
    with open(theirs, "rb") as f:
        zdata = f.read()
    want = upstream_none(zdata)
    if toc_of(got).get("compression_scheme") != "none":
        print("FAIL: %s: the mount's default archive is not scheme none" % rel)
        bad += 1
    if got != want:
        print("FAIL: %s: %d bytes, upstream's uncompressed archive %d bytes, differ" %
              (rel, len(got), len(want)))
        bad += 1
    for d, w, what in ((none_dir, want, "--compression none"), (zstd_dir, zdata, "default")):
        try:
            with open(os.path.join(d, rel), "rb") as f:
                if f.read() != w:
                    print("FAIL: %s: rockpack split %s differs" % (rel, what))
                    bad += 1
        except OSError as e:
            print("FAIL: rockpack split %s: %s" % (what, e))
            bad += 1
if n < 8:
    print("FAIL: only %d archives in RUN/kpack/" % n)
    bad += 1
sys.exit(1 if bad else 0)
PY
it_umount m
it_finish
