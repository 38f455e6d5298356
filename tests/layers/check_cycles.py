#!/usr/bin/env python3
"""check_cycles.py: no call circle between files of the core (ctest: layers.cycles).

A file of core/src may call functions of another, and that one of a third, but the calls
never lead back to where they started: each file can be read (and tested) with what it
calls below it. The graph is built from the compiled objects: `nm` says which object
defines each function (T, W) and which objects use it (U); file A calls file B when A uses
a function B defines. Data (tables of operations, the view registry) is not a call and is
left out. Every strongly connected set of two or more files is a circle.

Usage: check_cycles.py OBJECT_OR_DIR...; objects are named by their source path after
"/src/" (CMake's core/CMakeFiles/rkcore.dir/src/engine/vfs.c.o is engine/vfs.c). Exits 1
printing every circle (its files and one call of each edge), and every entry of
CYCLE_EXCEPTIONS that no longer matches a circle (remove it).
"""
import os
import subprocess
import sys

# Circles allowed (each exactly as found: its set of files), with why and who removes
# them: none since issue 27, and it should stay so.
CYCLE_EXCEPTIONS = []

DEFINES = set("TWVi")


def name_of(obj):
    cut = obj.rsplit("/src/", 1)
    rel = cut[1] if len(cut) == 2 else os.path.basename(obj)
    return rel[:-2] if rel.endswith(".o") else rel


def objects(args):
    for a in (x for arg in args for x in arg.split(";") if x):  # a CMake list comes whole
        if os.path.isdir(a):
            for root, _, names in os.walk(a):
                for n in sorted(names):
                    if n.endswith(".o"):
                        yield os.path.join(root, n)
        else:
            yield a


def graph(objs):
    defs, uses = {}, {}
    for obj in objs:
        uses.setdefault(name_of(obj), set())
    # one nm for every object: "-A -P" prints "OBJECT: SYMBOL TYPE [VALUE SIZE]"
    out = subprocess.run(["nm", "-A", "-P", *objs], check=True, capture_output=True,
                         text=True).stdout
    for line in out.splitlines():
        obj, _, rest = line.partition(": ")
        f = rest.split()
        if len(f) < 2:
            continue
        me, sym, kind = name_of(obj), f[0], f[1]
        if kind == "U":
            uses[me].add(sym)
        elif kind in DEFINES:
            defs[sym] = me
    edges = {}
    for me, syms in uses.items():
        for sym in sorted(syms):
            them = defs.get(sym)
            if them and them != me:
                edges.setdefault(me, {}).setdefault(them, sym)
    return sorted(uses), edges


def circles(nodes, edges):
    """Tarjan's strongly connected components of two or more nodes."""
    index, low, stack, on, out = {}, {}, [], set(), []
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, {})):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in nodes:
        if v not in index:
            visit(v)
    return out


def main():
    objs = list(objects(sys.argv[1:]))
    if not objs:
        print("check_cycles: no object files given")
        return 1
    nodes, edges = graph(objs)
    bad, known, matched = [], [], set()
    for comp in circles(nodes, edges):
        lines = [f"    {a} -> {b} ({edges[a][b]})" for a in comp for b in sorted(edges.get(a, {}))
                 if b in comp]
        why = next((w for i, (s, w) in enumerate(CYCLE_EXCEPTIONS)
                    if s == set(comp) and not matched.add(i)), None)
        text = f"call circle between {len(comp)} files: {' '.join(comp)}\n" + "\n".join(lines)
        (known if why else bad).append(text + (f"\n    (allowed for now: {why})" if why else ""))
    for i, (s, _) in enumerate(CYCLE_EXCEPTIONS):
        if i not in matched:
            bad.append(f"no circle {' '.join(sorted(s))} any more: remove it from "
                       "CYCLE_EXCEPTIONS in check_cycles.py")
    for k in known:
        print(k)
    for b in bad:
        print(b)
    if bad:
        print(f"check_cycles: {len(bad)} problem(s) in the call graph of {len(nodes)} files")
        return 1
    print(f"check_cycles: no call circle between {len(nodes)} files "
          f"({len(known)} known exception(s))")
    return 0


if __name__ == "__main__":
    sys.exit(main())
