#!/usr/bin/env python3
"""kpack_db_oracle.py: what rocm-kpack's split_artifacts makes of the database files of
a legacy run, restated from upstream (rocm-systems shared/kpack 0d72d1c:
database_handlers.py, artifact_splitter.py; TheRock 89553ce cmake/therock_artifacts.cmake
passing each artifact's BUILD_TOPOLOGY.toml split_databases as --split-databases), to
check rockfs's split against. The rules are written here from reading upstream, with
Python's re as upstream uses it, independently of rockfs's C.

  kpack_db_oracle.py make RUN_DIR SRC_DIR
      write the test's legacy run: SRC_DIR/<artifact>/ trees and RUN_DIR/<artifact>.tar.zst
  kpack_db_oracle.py check SRC_DIR GOT_DIR (table FILE.toml | every NAME...)
      compare GOT_DIR (RUN/kpack/ or rockpack split -o) with what upstream writes for the
      artifacts in SRC_DIR: each artifact splits with the handlers FILE's split_databases
      gives its name (none when it has no list), or with NAME... for every artifact
      ("every" alone: no handler); with ONLY=<name>_<component> in the environment, the
      outputs of that group only. Prints each difference; exit 1 if any.
"""
import os
import re
import subprocess
import sys
import tomllib
from pathlib import PurePosixPath

HASH = "0123456789abcdef" * 4

# artifact -> {prefix: [relpath, ...]}; every file holds its own path as content
ARTIFACTS = {
    "blas_lib_gfx110X-all": {
        "math-libs/BLAS/rocBLAS/stage": [
            "lib/librocblas.so.5",
            "lib/rocblas/library/TensileLibrary_lazy_gfx1100.dat",
            "lib/rocblas/library/TensileLibrary_Type_HH_gfx1101-xnack+.co",
            "lib/rocblas/library/TensileLibrary_fallback.dat",
            "lib/rocblas/library/TensileManifest.txt",
            # not Tensile databases: no handler blas asks for takes them
            "lib/libdevice_conv_operations_gfx950_strict.a",
            "lib/aotriton.images/amd-gfx11xx/flash/attn_fwd/kernel.aks2",
            "share/miopen/db/gfx1100_40.db.txt",
        ],
        "math-libs/BLAS/hipBLASLt/stage": [
            "lib/hipblaslt/library/gfx1100/TensileManifest.txt",
            "lib/hipblaslt/library/extop_gfx1102.co",
        ],
        "math-libs/BLAS/hipSPARSELt/stage": [
            "lib/hipsparselt/library/TensileLibrary_gfx1101.dat",
        ],
    },
    "miopen_lib_gfx110X-all": {
        "ml-libs/MIOpen/stage": [
            "share/miopen/db/gfx1100_48.kdb",
            "share/miopen/db/gfx110148.HIP.fdb.txt",
            "share/miopen/db/gfx1102.tn.model",
            "share/miopen/db/readme.txt",
            "lib/rocblas/library/TensileLibrary_gfx1101.co",
            # rocblas says gfx1100, miopen gfx1101: the first handler asked wins
            "lib/rocblas/library/gfx1100/libMIOpenCKConv_gfx1101.so",
        ],
    },
    "rand_lib_gfx110X-all": {
        "math-libs/rocRAND/stage": [
            "lib/librocrand.so.1",
            "lib/rocblas/library/TensileLibrary_gfx1100.co",
            "lib/aotriton.images/amd-gfx120x/k.aks2",
            "lib/aotriton/kernels/gfx1100/old.hsaco",
        ],
    },
    "rccl_lib_gfx110X-all": {
        "comm-libs/rccl/stage": [
            "share/rocjitsu/translations/gfx1250-b0-a0/v1/%s.obj" % HASH,
            "share/rocjitsu/translations/gfx1250-b0-a0/v1/%s.man" % HASH,
            # not exactly six components below the prefix root: generic upstream
            "lib/share/rocjitsu/translations/gfx1250-b0-a0/v1/%s.obj" % HASH,
            "lib/librccl.so.1",
        ],
    },
    "hipkernelprovider_lib_gfx110X-all": {
        "ml-libs/hipKernelProvider/stage": [
            "lib/hipdnn_plugins/engines/arch_content/rocke/gfx1100/k.co",
            "lib/hipdnn_plugins/engines/test_arch_content/hip-kernel-provider/unit/gfx1101/t.co",
            "lib/hipdnn_plugins/engines/arch_content/common/k.co",
        ],
    },
}

GFX = r"gfx\d+[a-z]*(?:-strict)?(?:-xnack[+-])?"
MIOPEN_ARCH = (r"gfx(?:90a|900|906|908|940|941|942|950|1010|1030|1100|1101|1102|1150|1151"
               r"|1200|1201|1250(?:-strict)?)")


def tensile(libdir):
    def detect(rel):
        if libdir not in rel:
            return None
        p = PurePosixPath(rel)
        if p.suffix in (".co", ".hsaco", ".dat"):
            m = re.search(GFX, p.name)
            if m:
                return m.group(0)
        m = re.search(r"/library/(" + GFX + r")/", rel)
        return m.group(1) if m else None
    return detect


def aotriton(rel):
    parts = PurePosixPath(rel).parts
    for i, part in enumerate(parts[:-1]):
        if part == "aotriton.images":
            if parts[i + 1].startswith("amd-gfx"):
                raw = parts[i + 1][4:]
                return {"gfx11xx": "gfx11", "gfx120x": "gfx12_0"}.get(raw, raw)
            break
    return None


def miopen(rel):
    name = PurePosixPath(rel).name
    m = re.match(r"^(?:lib)?MIOpenCK\w+_(" + GFX + r")\.(?:so|dll)", name)
    if m:
        return m.group(1)
    if "miopen/db" not in rel:
        return None
    if not name.endswith((".kdb", ".model", ".db.txt", ".fdb.txt")):
        return None
    m = re.search(MIOPEN_ARCH, name)
    return m.group(0) if m else None


def composablekernel(rel):
    m = re.match(r"^(?:lib)?device_conv_operations_(gfx\d+[a-z]*(?:_strict)?)"
                 r"(?:_(?:xnack|sramecc)[p_])*\.(?:a|lib)$", PurePosixPath(rel).name)
    return m.group(1).replace("_strict", "-strict") if m else None


def hipkernelprovider(rel):
    parts = PurePosixPath(rel).parts
    root = next((i for i in range(1, len(parts)) if parts[i] in ("arch_content", "test_arch_content")
                 and parts[i - 1] == "engines"), None)
    if root is None:
        return None
    for i in range(root + 1, len(parts) - 1):
        if re.fullmatch(GFX, parts[i]):
            return parts[i]
    return None


def hotswap_cache(rel):
    parts = PurePosixPath(rel).parts
    if len(parts) != 6 or parts[:3] != ("share", "rocjitsu", "translations"):
        return None
    if parts[4] != "v1" or not re.fullmatch(r"[0-9a-f]{64}\.(?:man|obj)", parts[5]):
        return None
    return {"gfx1250-b0-a0": "gfx1250"}.get(parts[3])


HANDLERS = {
    "rocblas": tensile("rocblas/library"), "hipblaslt": tensile("hipblaslt/library"),
    "hipsparselt": tensile("hipsparselt/library"), "aotriton": aotriton, "miopen": miopen,
    "composablekernel": composablekernel, "hipkernelprovider": hipkernelprovider,
    "hotswap_cache": hotswap_cache,
}


def base_arch(a):
    return re.sub(r"-(xnack|sramecc)", r":\1", a).split(":")[0]


def make(run_dir, src_dir):
    os.makedirs(run_dir, exist_ok=True)
    for art, prefixes in ARTIFACTS.items():
        top = os.path.join(src_dir, art)
        for prefix, rels in prefixes.items():
            for rel in rels:
                path = os.path.join(top, prefix, rel)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    f.write("%s %s\n" % (prefix, rel))
        with open(os.path.join(top, "artifact_manifest.txt"), "w") as f:
            f.write("".join(p + "\n" for p in prefixes))
        tops = sorted({p.split("/")[0] for p in prefixes})
        tar = subprocess.run(["tar", "-C", top, "-cf", "-", "--sort=name",
                              "artifact_manifest.txt"] + tops,
                             check=True, stdout=subprocess.PIPE).stdout
        subprocess.run(["zstd", "-q", "-o", os.path.join(run_dir, art + ".tar.zst")],
                       input=tar, check=True)


def expected(src_dir, handlers_of):
    """{output: {relpath: content}} as split_artifacts writes it (files only)."""
    out = {}
    for art, prefixes in ARTIFACTS.items():
        name, comp = art.split("_")[:2]
        group = name + "_" + comp
        handlers = [HANDLERS[h] for h in handlers_of(name)]
        gen = out.setdefault(group + "_generic", {})
        gen["artifact_manifest.txt"] = "".join(p + "\n" for p in prefixes)
        for prefix, rels in prefixes.items():
            for rel in rels:
                with open(os.path.join(src_dir, art, prefix, rel)) as f:
                    data = f.read()
                key = next((k for k in (h(rel) for h in handlers) if k), None)
                if key is None:
                    gen[prefix + "/" + rel] = data
                    continue
                o = out.setdefault(group + "_" + base_arch(key), {})
                o[prefix + "/" + rel] = data
                man = o.get("artifact_manifest.txt", "")
                if prefix + "\n" not in man:
                    o["artifact_manifest.txt"] = man + prefix + "\n"
    return out


def got(dir_):
    out = {}
    for o in sorted(os.listdir(dir_)):
        files = out.setdefault(o, {})
        top = os.path.join(dir_, o)
        for root, _, names in os.walk(top):
            for n in names:
                p = os.path.join(root, n)
                with open(p) as f:
                    files[os.path.relpath(p, top)] = f.read()
    return out


def check(src_dir, got_dir, mode, args):
    if mode == "table":
        with open(args[0], "rb") as f:
            arts = tomllib.load(f).get("artifacts", {})
        handlers_of = lambda n: arts.get(n, {}).get("split_databases", [])
    else:
        handlers_of = lambda n: [a for a in args if a != "none"]
    want, have = expected(src_dir, handlers_of), got(got_dir)
    only = os.environ.get("ONLY")  # the outputs of this <name>_<component> only
    if only:
        want = {o: f for o, f in want.items() if o.startswith(only + "_")}
    bad = 0
    for o in sorted(set(want) | set(have)):
        if o not in have:
            print("missing output %s" % o)
            bad += 1
            continue
        if o not in want:
            print("output %s that upstream does not make: %s" % (o, sorted(have[o])))
            bad += 1
            continue
        for rel in sorted(set(want[o]) | set(have[o])):
            if rel not in have[o]:
                print("%s: missing %s" % (o, rel))
            elif rel not in want[o]:
                print("%s: has %s, which upstream does not put there" % (o, rel))
            elif want[o][rel] != have[o][rel]:
                print("%s/%s: %r, want %r" % (o, rel, have[o][rel], want[o][rel]))
            else:
                continue
            bad += 1
    return 1 if bad else 0


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "make":
        make(sys.argv[2], sys.argv[3])
        return 0
    if len(sys.argv) >= 5 and sys.argv[1] == "check" and sys.argv[4] in ("table", "every"):
        return check(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
