#!/usr/bin/env python3
"""Compares a tree rocm-kpack's tools wrote (split_artifacts, recombine_artifacts) with
the one rockpack wrote from the same input, for the kpack tests.

    kpack_tree_cmp.py UPSTREAM OURS

The same entries (type, permission bits, symlink targets, bytes), except in a host binary
the pointer field (+8) of each .hipFatBinSegment wrapper: upstream leaves it 0, rockfs
writes the marker's address (docs/kpack.md, "The host rewrite"). Prints one line per
difference; exits 1 if there is any.
"""
import os, struct, sys
up, ours = sys.argv[1:]

def entries(top):
    out = {}
    for d, dirs, files in os.walk(top):
        for n in dirs + files:
            p = os.path.join(d, n)
            out[os.path.relpath(p, top)] = p
    return out

def wrapper_fields(data):
    """File offsets of the pointer field (+8) of each .hipFatBinSegment wrapper."""
    if data[:4] != b"\x7fELF" or data[4] != 2:
        return []
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    sh = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strs = sh[shstrndx][4]
    for name, typ, flags, addr, off, size, *_ in sh:
        end = data.index(b"\0", strs + name)
        if data[strs + name:end] == b".hipFatBinSegment":
            return [off + i + 8 for i in range(0, size, 24)]
    return []

U, O = entries(up), entries(ours)
bad = 0
for rel in sorted(set(U) ^ set(O)):
    print("only in %s: %s" % ("upstream's" if rel in U else "ours", rel)); bad = 1
for rel in sorted(set(U) & set(O)):
    u, o = U[rel], O[rel]
    su, so = os.lstat(u), os.lstat(o)
    if (su.st_mode & 0o170777) != (so.st_mode & 0o170777):
        print("%s: mode %o, upstream's %o" % (rel, so.st_mode, su.st_mode)); bad = 1
    elif os.path.islink(u):
        if os.readlink(u) != os.readlink(o):
            print("%s: link to %s, upstream's to %s" % (rel, os.readlink(o), os.readlink(u))); bad = 1
    elif os.path.isfile(u):
        du, do = open(u, "rb").read(), bytearray(open(o, "rb").read())
        if du == do:
            continue
        fields = wrapper_fields(do)
        for f in fields:
            do[f:f + 8] = b"\0" * 8
        if not fields or du != bytes(do):
            print("%s: %d bytes differ from upstream's %d" % (rel, len(do), len(du))); bad = 1
sys.exit(bad)
