#!/usr/bin/env python3
"""check_sizes.py: no file of the core is too long to read (ctest: layers.sizes).

Every .c and .h under core/src/ has at most CORE_MAX lines, and at most ENGINE_MAX under
core/src/engine/ (the engine is read most and changed with most care). A file over its
limit is split into files of one job each (core/src/README.md).

Usage: check_sizes.py CORE_SRC_DIR; exits 1 listing every file over its limit, and every
entry of SIZE_EXCEPTIONS that is no longer needed (remove it).
"""
import os
import sys

CORE_MAX = 1200
ENGINE_MAX = 800

# Files allowed over their limit, each with why and who removes the exception: none
# since issue 27, and it should stay so.
SIZE_EXCEPTIONS = {}


def limit_of(rel):
    return ENGINE_MAX if rel.split("/", 1)[0] == "engine" else CORE_MAX


def main():
    src = sys.argv[1]
    bad, known = [], []
    for root, _, names in os.walk(src):
        for name in sorted(names):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, src)
            with open(path, encoding="utf-8") as f:
                lines = sum(1 for _ in f)
            limit = limit_of(rel)
            if lines <= limit:
                if rel in SIZE_EXCEPTIONS:
                    bad.append(f"{rel}:1: {lines} lines, within {limit}: remove it from "
                               "SIZE_EXCEPTIONS in check_sizes.py")
                continue
            where = "engine/" if limit == ENGINE_MAX else "core/src"
            what = f"{rel}:1: {lines} lines, over the limit of {where} ({limit})"
            if rel in SIZE_EXCEPTIONS:
                known.append(f"{what} (allowed for now: {SIZE_EXCEPTIONS[rel]})")
            else:
                bad.append(what)
    for name in sorted(set(SIZE_EXCEPTIONS)):
        if not os.path.exists(os.path.join(src, name)):
            bad.append(f"{name}:1: gone: remove it from SIZE_EXCEPTIONS in check_sizes.py")
    for k in known:
        print(k)
    for b in bad:
        print(b)
    if bad:
        print(f"check_sizes: {len(bad)} problem(s): files over their limit "
              f"(engine/ {ENGINE_MAX} lines, core/src {CORE_MAX})")
        return 1
    print(f"check_sizes: every file within its limit ({len(known)} known exception(s))")
    return 0


if __name__ == "__main__":
    sys.exit(main())
