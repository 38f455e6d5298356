#!/usr/bin/env python3
"""mount_walk.py: what a mount serves, for tests that compare a hurt mount with a healthy one.

  mount_walk.py walk ROOT OUT [SUB...]
      every listing and file below ROOT (or below ROOT/SUB for each SUB) as lines
      "D path name/name/..." and "F path sha256"; a directory or file that fails with EIO
      is "D path EIO" / "F path EIO" (any other error fails the walk); symlinks skipped
  mount_walk.py cmp WANT GOT WHAT [--eio]
      each line of GOT is EIO or the same as WANT's line for that path (nothing served
      differently, nothing listed that WANT does not list); --eio: at least one EIO
"""
import errno
import hashlib
import os
import sys


def walk(root, out, subs):
    lines = []

    def visit(rel):
        p = os.path.join(root, rel)
        try:
            names = sorted(os.listdir(p))
        except OSError as e:
            if e.errno != errno.EIO:
                raise
            lines.append(f"D {rel} EIO")
            return
        lines.append(f"D {rel} " + "/".join(names))
        for n in names:
            q = os.path.join(rel, n) if rel else n
            full = os.path.join(root, q)
            try:
                if os.path.islink(full):
                    continue
                if os.path.isdir(full):
                    visit(q)
                    continue
                with open(full, "rb") as f:
                    lines.append(f"F {q} " + hashlib.sha256(f.read()).hexdigest())
            except OSError as e:
                if e.errno != errno.EIO:
                    raise
                lines.append(f"F {q} EIO")

    for s in subs or [""]:
        visit(s)
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


def cmp(want, got, what, need_eio):
    def parse(path):
        d = {}
        for line in open(path).read().splitlines():
            kind, rest = line[0], line[2:]
            p, _, v = rest.partition(" ")
            d[(kind, p)] = v
        return d

    w, g = parse(want), parse(got)
    bad = eio = 0
    for key, v in g.items():
        if v == "EIO":
            eio += 1
        elif w.get(key) != v:
            print(f"{what}: {key[0]} {key[1]}: {v[:80]!r}, healthy {str(w.get(key))[:80]!r}")
            bad += 1
    print(f"{what}: {eio} EIO, {bad} different, {len(g) - eio - bad} the same")
    return 1 if bad or (need_eio and not eio) else 0


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "walk":
        walk(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif len(sys.argv) in (5, 6) and sys.argv[1] == "cmp":
        sys.exit(cmp(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:] == ["--eio"]))
    else:
        sys.exit(__doc__)
