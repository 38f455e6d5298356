#!/usr/bin/env python3
"""check_layers.py: the core's dependency rule, checked (ctest: layers.*).

core/src/ is layered (core/src/README.md); a file may include headers of its own layer
and of the layers below it, never above:

    util < formats < cache < store < catalog < engine < services < views

formats/ is split by subject into sub-folders, ranked the same way (a sub-folder may use
its own files and the sub-folders before it, never a later one; no file sits in formats/
itself):

    formats/archive < formats/gpu < formats/therock < formats/packages

Private headers are named by their folder ("engine/vfs_int.h"); public headers
(core/include/rk/*.h) belong to the layer of the file that implements them (the
table below). Also checked:
  views:     never include another view's private headers, never touch the engine's
             locks (v->tree, wait_lock, wait_cond) or pthread_rwlock_*;
  services:  the same locks rule; no view header;
  engine:    names no view (no view_* symbol, no views/ or services/ header);
  io:        formats/ does no I/O: none of its files calls a libc file or directory
             function (IO_CALLS); formats is bytes in, facts out.
  sealed:    node fields are invisible outside engine/: struct node (and the engine's
             other private types) is defined only in engine/engine.h, which no file
             outside engine/ includes, nor a header of engine/ that others include;
             no file outside engine/ names a source kind (SRC_*).
Usage: check_layers.py CORE_SRC_DIR CORE_INCLUDE_DIR [rule...]; exits 1 listing every
violation as "file:line: what".
"""
import os
import re
import sys

LAYERS = ["util", "formats", "cache", "store", "catalog", "engine", "services", "views"]
RANK = {name: i for i, name in enumerate(LAYERS)}
FORMATS = ["archive", "gpu", "therock", "packages"]
FRANK = {name: i for i, name in enumerate(FORMATS)}

# Public headers -> layer (the layer of the .c that implements them).
PUBLIC = {
    "buf.h": "util", "err.h": "util", "log.h": "util", "hash.h": "util", "path.h": "util",
    "size.h": "util", "nearest.h": "util", "url.h": "util", "staging.h": "util", "frontier.h": "util", "compiler.h": "util", "splice.h": "util", "composite.h": "util",
    "artifact.h": "formats/therock", "bundle.h": "formats/gpu", "elf_info.h": "formats/gpu",
    "elf_rpath.h": "formats/gpu",
    "gpu.h": "formats/gpu", "target.h": "formats/gpu", "index.h": "formats/archive", "kpack.h": "formats/gpu",
    "kpack_db.h": "formats/gpu", "topology.h": "formats/therock", "kpack_elf.h": "formats/gpu",
    "kpack_binary.h": "formats/gpu",
    "manifest.h": "formats/therock", "pkgdefs.h": "formats/packages",
    "wheel.h": "formats/archive", "msgpack.h": "formats/archive",
    "cache.h": "cache", "ingest.h": "store",
    "store.h": "store", "remote.h": "store",
    "catalog.h": "catalog",
    "vfs.h": "engine",
    "kpack_view.h": "services", "kpack_lookup.h": "services",
    "install.h": "services",
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
ENGINE_LOCKS = re.compile(r"pthread_rwlock_\w+|->tree\b|\bwait_lock\b|\bwait_cond\b")
VIEW_NAME = re.compile(r"\bvfs_view_(?!state\b)\w+|\bview_\w+\.h\b")
ENGINE_PRIVATE = "engine/engine.h"
NODE_BODY = re.compile(r"\b(struct\s+(node|dent|rk_file)|enum\s+src_kind)\s*\{")
SRC_KIND = re.compile(r"\bSRC_[A-Z]+\b")


# formats/ does no I/O: a call to any of these (libc file and directory access) is a
# violation. Memory, strings and libelf/msgpack/zstd over a buffer are fine.
IO_CALLS = re.compile(
    r"(?<![\w.>])(open|openat|open64|creat|fopen|fdopen|freopen|opendir|fdopendir|readdir|"
    r"scandir|closedir|read|pread|pread64|readv|preadv|write|pwrite|pwrite64|writev|"
    r"pwritev|fread|fwrite|fgets|fputs|fprintf|getline|stat|lstat|fstat|fstatat|statx|"
    r"access|faccessat|realpath|readlink|mmap|close|fclose|unlink|unlinkat|rename|"
    r"renameat|mkdir|mkdirat|rmdir|ftw|nftw|glob|popen|dlopen|fsync|ftruncate|truncate|"
    r"sendfile|copy_file_range|splice)\s*\(")

# The one file of formats/ allowed a libc I/O call, and why. Keep it short.
IO_EXCEPTIONS = {
    "formats/gpu/elf_info.c": "rk_elf_info_fd peeks at the ELF magic of a descriptor its "
                              "caller opened before handing it to libelf",
}


def layer_of(path):
    """The unit a path belongs to: a layer, or formats/<sub-folder> for formats."""
    parts = path.split("/")
    if parts[0] not in RANK:
        return None
    if parts[0] == "formats":
        return f"formats/{parts[1]}" if len(parts) > 2 and parts[1] in FRANK else "formats/"
    return parts[0]


def above(theirs, mine):
    """Why theirs may not be used from mine, or None."""
    lt, lm = theirs.split("/")[0], mine.split("/")[0]
    if RANK[lt] != RANK[lm]:
        return f"{lt}, above it" if RANK[lt] > RANK[lm] else None
    if lt == "formats" and theirs != mine:
        st, sm = theirs.split("/")[1], mine.split("/")[1]
        if FRANK.get(st, -1) > FRANK.get(sm, -1):
            return f"{theirs}, after {mine} in the formats order"
    return None


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def main():
    src, inc = sys.argv[1], sys.argv[2]
    rules = set(sys.argv[3:]) or {"includes", "locks", "engine", "public", "io", "sealed"}
    bad = []
    for root, _, names in os.walk(src):
        for name in sorted(names):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, src)
            mine = layer_of(rel)
            if mine is None:
                bad.append(f"{rel}:1: not in a layer folder ({', '.join(LAYERS)})")
                continue
            if mine == "formats/":
                bad.append(f"{rel}:1: not in a formats sub-folder ({', '.join(FORMATS)})")
                continue
            with open(path, encoding="utf-8") as f:
                raw = f.read()
            code = strip_comments(raw)
            for no, line in enumerate(raw.splitlines(), 1):
                m = INCLUDE.match(line)
                if m and "sealed" in rules and m.group(1) == ENGINE_PRIVATE and (
                        mine != "engine" or rel.endswith(".h")):
                    what = "a header of engine/ others include" if mine == "engine" else mine
                    bad.append(f"{rel}:{no}: {what} can see node fields (includes {ENGINE_PRIVATE})")
                if not m or "includes" not in rules:
                    continue
                hdr = m.group(1)
                if hdr.startswith("rk/"):
                    theirs = PUBLIC.get(hdr[3:])
                    if theirs is None:
                        bad.append(f"{rel}:{no}: {hdr} has no layer (add it to the table)")
                        continue
                else:
                    theirs = layer_of(hdr)
                    if theirs is None:
                        bad.append(f"{rel}:{no}: \"{hdr}\": name private headers by folder")
                        continue
                if theirs == "formats/":
                    bad.append(f"{rel}:{no}: \"{hdr}\": not in a formats sub-folder")
                    continue
                why = above(theirs, mine)
                if why:
                    bad.append(f"{rel}:{no}: {mine} includes {hdr} ({why})")
                if mine == "views" and theirs == "views":
                    own = os.path.dirname(rel)
                    if os.path.dirname(hdr) != own or own == "views":
                        bad.append(f"{rel}:{no}: a view includes another view's {hdr}")
            for no, line in enumerate(code.splitlines(), 1):
                if "locks" in rules and mine in ("views", "services") and ENGINE_LOCKS.search(line):
                    bad.append(f"{rel}:{no}: {mine} touch the engine's locks: {line.strip()}")
                if "engine" in rules and mine == "engine" and VIEW_NAME.search(line):
                    bad.append(f"{rel}:{no}: the engine names a view: {line.strip()}")
                if ("io" in rules and mine.startswith("formats/") and rel not in IO_EXCEPTIONS
                        and IO_CALLS.search(line)):
                    call = IO_CALLS.search(line).group(1)
                    bad.append(f"{rel}:{no}: formats does I/O ({call}): {line.strip()}")
                if ("sealed" in rules and (mine != "engine" or rel.endswith(".h")) and
                        rel != ENGINE_PRIVATE and NODE_BODY.search(line)):
                    bad.append(f"{rel}:{no}: the engine's private types defined outside "
                               f"{ENGINE_PRIVATE}: {line.strip()}")
                if "sealed" in rules and mine != "engine" and SRC_KIND.search(line):
                    bad.append(f"{rel}:{no}: {mine} names a source kind: {line.strip()}")
    # public headers follow the rule too (a header's includes reach every file using it)
    if "includes" in rules:
        for name in sorted(os.listdir(os.path.join(inc, "rk"))):
            mine = PUBLIC.get(name)
            if not name.endswith(".h") or mine is None:
                continue
            with open(os.path.join(inc, "rk", name), encoding="utf-8") as f:
                for no, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    theirs = PUBLIC.get(m.group(1)[3:]) if m and m.group(1).startswith("rk/") else None
                    why = above(theirs, mine) if theirs else None
                    if why:
                        bad.append(f"include/rk/{name}:{no}: {mine} includes {m.group(1)} ({why})")
    # every public header is in the table
    if "public" in rules:
        for name in sorted(os.listdir(os.path.join(inc, "rk"))):
            if name.endswith(".h") and name not in PUBLIC:
                bad.append(f"include/rk/{name}:1: public header without a layer in check_layers.py")
    for b in bad:
        print(b)
    if bad:
        print(f"check_layers: {len(bad)} violation(s) of the dependency rule (core/src/README.md)")
        return 1
    print("check_layers: the dependency rule holds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
