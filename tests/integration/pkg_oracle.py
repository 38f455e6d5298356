#!/usr/bin/env python3
"""Independent oracle of the files of TheRock's native packages, for the packages tests.

    pkg_oracle.py DEFS.json ARTIFACT_DIR kpack|single --version X.Y.Z [--type deb|rpm]
                  [--family F]

ARTIFACT_DIR holds each artifact extracted into a directory named by its stem
({name}_{component}_{target}, artifact_manifest.txt at its top), as TheRock's fetch lays
them out. With --family (single mode) only the generic and that family's directories are
seen, as in a one-family packaging job. Prints, for every package variant that
build_tools/packaging/linux/build_package.py would consider,

    package NAME STATUS         files | empty (meta or non-versioned) | emptybuilt (RPM,
                                kpack: built with no files) | skipped (DEB, kpack: not
                                built) | abort (single-arch, no content: upstream exits
                                before either variant exists) | error (no patch version)
    PATH<TAB>f<TAB>SHA256       regular files below the install prefix, sorted
    PATH<TAB>l<TAB>TARGET       symlinks

Written from upstream's packaging_utils.py (get_package_list, is_gfxarch_package,
update_package_name, filter_components_fromartifactory), build_package.py (variant
builders), {deb,rpm}_package.py (emptiness, copy) and runpath_to_rpath.py (the DT_RUNPATH
tag becomes DT_RPATH, rocm.cfg gets disable-new-dtags), not from rockfs's code.
Dependencies are not modelled. Simplified: the copy is "last writer wins" (upstream's
copytree fails on a symlink over an existing path; noted on stderr), xnack variant
directories are taken in sorted order (upstream: glob order).
"""
import argparse, hashlib, json, os, re, struct, sys

HOST, META = "gfx_host", "gfx_meta"
MARKERS = ["_dbg_", "_dev_", "_doc_", "_lib_", "_run_", "_test_"]
TRUE = ("1", "true", "t", "yes", "y", "on", "enable", "enabled", "found")


def key(info, k):  # is_key_defined: any-case key, truthy word
    v = next((str(info[x]) for x in info if x.lower() == k.lower()), "")
    return v.strip().lower() in TRUE


def rpath_patch(data):  # runpath_to_rpath.py on an ELF64 LE file: DT_RUNPATH (29) -> DT_RPATH (15)
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1 or len(data) < 64:
        return data, False
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    for i in range(phnum):
        p = phoff + i * phentsize
        if p + 56 > len(data) or struct.unpack_from("<I", data, p)[0] != 2:  # PT_DYNAMIC
            continue
        off, = struct.unpack_from("<Q", data, p + 8)
        size, = struct.unpack_from("<Q", data, p + 32)
        for e in range(off, min(off + size, len(data)) - 15, 16):
            tag, = struct.unpack_from("<q", data, e)
            if tag == 0:
                break
            if tag == 29:
                return data[:e] + struct.pack("<q", 15) + data[e + 8:], True
    return data, False


class Oracle:
    def __init__(s, a):
        s.a, s.kpack, s.deb = a, a.mode == "kpack", a.type == "deb"
        s.dir = a.artifact_dir
        fam = a.family
        s.dirs = sorted(d for d in os.listdir(s.dir) if os.path.isdir(os.path.join(s.dir, d))
                        and (not fam or d.endswith("_generic") or d.split("_")[-1].split(":")[0] == fam))
        s.defs = json.load(open(a.defs))
        targets = sorted({d.split("_")[-1].split(":")[0] for d in s.dirs
                          if re.match(r"^[^_]+_[^_]+_[^_]+$", d) and not d.endswith("_generic")})
        s.archs = targets if s.kpack else []
        s.arch = "" if s.kpack else (fam or (targets[0] if targets else ""))
        parts = a.version.split(".")
        s.mv = "%s.%s" % (re.match(r"\d+", parts[0]).group(), re.match(r"\d+", parts[1]).group())
        s.patch = len(parts) >= 3
        s.stats = {"rpath": 0, "conflicts": 0}

    def gfx(s, d):  # is_gfxarch_package
        if s.kpack:
            if d["Package"].endswith("-devel") and not key(d, "Metapackage"):
                return False
            if key(d, "Metapackage"):
                return key(d, "Gfxarch")
            return any(x.startswith("%s_%s_gfx" % (art["Artifact"], c)) for art in d.get("Artifactory") or []
                       for sub in art.get("Artifact_Subdir", []) for c in sub["Components"] for x in s.dirs)
        return key(d, "Gfxarch")

    def name(s, d, arch, versioned):  # update_package_name
        n = d["Package"]
        if s.deb and n.endswith("-devel"):
            n = n[:-len("-devel")] + "-dev"
        g = s.gfx(d)
        if s.kpack and g and arch == HOST:
            n += "-host"
        n += s.mv if versioned else ""
        if g and not (s.kpack and arch in (HOST, META)):
            n += "-" + arch.lower().split("-", 1)[0]
        return n

    def sources(s, d, arch):  # filter_components_fromartifactory
        if s.kpack and arch == META:
            return []
        suffix = arch if (not s.kpack or arch != HOST) and s.gfx(d) else "generic"
        out = []
        for art in d.get("Artifactory") or []:
            suf = suffix
            if "Artifact_Gfxarch" in art:
                isg = str(art["Artifact_Gfxarch"]).lower() == "true"
                if s.kpack and arch and arch not in (HOST, META) and not isg:
                    continue
                suf = arch if isg else "generic"
            for sub in art["Artifact_Subdir"]:
                for c in sub["Components"]:
                    base = "%s_%s_%s" % (art["Artifact"], c, suf)
                    for ad in [base] + [x for x in s.dirs if x.startswith(base + ":")]:
                        mf = os.path.join(s.dir, ad, "artifact_manifest.txt")
                        if ad not in s.dirs or not os.path.isfile(mf):
                            continue
                        for line in open(mf, encoding="utf-8"):
                            if sub["Name"].lower() + "/" in line.lower() and line.strip():
                                out.append(os.path.join(s.dir, ad, line.strip()))
        return out

    def copy(s, srcs):  # copy_package_contents / cp -R src/* prefix/, later ones overwrite
        tree = {}
        for src in srcs:
            for root, dirs, files in os.walk(src):
                dirs.sort()
                for f in sorted(files) + [x for x in dirs if os.path.islink(os.path.join(root, x))]:
                    p = os.path.join(root, f)
                    rel = os.path.relpath(p, src)
                    if os.path.islink(p):
                        if rel in tree:
                            s.stats["conflicts"] += 1
                            print("note: symlink %s over an existing path (upstream fails)" % rel, file=sys.stderr)
                        tree[rel] = ("l", os.readlink(p))
                    else:
                        data = open(p, "rb").read()
                        data, patched = rpath_patch(data)
                        s.stats["rpath"] += patched
                        if os.path.basename(p) == "rocm.cfg":
                            data = data.replace(b"enable-new-dtags", b"disable-new-dtags")
                        tree[rel] = ("f", hashlib.sha256(data).hexdigest())
        return tree

    def variant(s, d, arch, versioned):
        n = s.name(d, arch, versioned)
        if not versioned:
            return n, "empty", {}
        if key(d, "Postinstall") and not s.patch:
            return n, "error", {}
        srcs = s.sources(d, arch)
        if not s.deb:
            srcs = [x for x in srcs if os.path.isdir(x)]
        if key(d, "Metapackage") or (s.kpack and arch == META):
            return n, "empty", {}
        if not srcs:
            return n, ("abort" if not s.kpack else "skipped" if s.deb else "emptybuilt"), {}
        tree = s.copy(srcs)
        return n, "files" if tree else "empty", tree

    def run(s):
        prefixes = set()
        for x in s.dirs:
            m = next((m for m in MARKERS if m in x), None)
            if m:
                prefixes.add(x.split(m, 1)[0])
        out = []
        for d in s.defs:
            if key(d, "Disablepackaging"):
                continue
            if not key(d, "Metapackage") and not any(a.get("Artifact") in prefixes for a in d.get("Artifactory") or []):
                continue
            if not s.kpack:
                vs = [(s.arch, True), (s.arch, False)]
            elif s.gfx(d):
                vs = ([] if key(d, "Metapackage") else [(HOST, True)]) + [(a, True) for a in s.archs] \
                    + [(META, True), (META, False)]
            else:
                vs = [("", True), ("", False)]
            got = [s.variant(d, a, v) for a, v in vs]
            if not s.kpack and got[0][1] == "abort":  # sys.exit: the non-versioned one is never built
                got[1] = (got[1][0], "abort", {})
            out += got
        return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("defs")
    ap.add_argument("artifact_dir")
    ap.add_argument("mode", choices=["kpack", "single"])
    ap.add_argument("--version", required=True)
    ap.add_argument("--type", choices=["deb", "rpm"], default="deb")
    ap.add_argument("--family")
    o = Oracle(ap.parse_args())
    for n, status, tree in o.run():
        print("package %s %s" % (n, status))
        for rel in sorted(tree):
            print("%s\t%s\t%s" % (rel, *tree[rel]))
    print("pkg_oracle: %d RUNPATH tags patched, %d symlink conflicts" % (o.stats["rpath"], o.stats["conflicts"]),
          file=sys.stderr)


if __name__ == "__main__":
    main()
