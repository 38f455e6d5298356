#!/usr/bin/env python3
"""The per-package checks of packages_contents.sh, in one process for a whole repository
(a shell loop spawned some twenty tools per package: minutes for a few hundred).

    pkg_tree_check.py WHAT TYPE PREFIX GOT EXPECTED NAME...

GOT/NAME is a package as extracted (dpkg-deb --fsys-tarfile | tar -x, rpm2cpio | cpio -idm),
EXPECTED/NAME.list the oracle's "path<TAB>f<TAB>sha256" / "path<TAB>l<TAB>target" lines
for the files below PREFIX (or no such file: the name check reports it). For each NAME:
  - nothing outside PREFIX/ but directories;
  - nothing that is neither a regular file, a symlink nor a directory;
  - the files below PREFIX are the expected ones: the same paths, symlink targets and
    sha256 (a DEB's own share/doc/NAME/changelog.Debian.gz is not an artifact's file and
    is left aside); GOT/NAME.list gets the list as found.
Prints one "FAIL <message>" line per failure (at most 20 differing paths per package, then
a count) and, last, "files N": the number of files compared.
"""
import hashlib, os, stat, sys

what, typ, prefix, got, exp = sys.argv[1:6]
names = sys.argv[6:]
nfiles = 0


def say(msg):
    print("FAIL %s" % msg)


def walk(top):
    """(relative path, lstat) of every entry below top, directories included."""
    for d, dirs, files in os.walk(top):
        for n in dirs + files:
            p = os.path.join(d, n)
            yield os.path.relpath(p, top), os.lstat(p), p


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()


for name in names:
    top = os.path.join(got, name)
    label = "%s %s" % (what, name)
    outside, odd = [], []
    for rel, st, _ in walk(top):
        if stat.S_ISDIR(st.st_mode):
            continue
        if not rel.startswith(prefix + "/"):
            outside.append(rel)
        if not (stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)):
            odd.append(rel)
    if outside:
        say("%s: files outside /%s: %s" % (label, prefix, "\n".join(sorted(outside)[:3])))
    if odd:
        say("%s: entries that are neither files nor symlinks" % label)
    want_path = os.path.join(exp, name + ".list")
    if not os.path.isfile(want_path):
        continue  # reported by the name check
    changelog = "share/doc/%s/changelog.Debian.gz" % name
    lines = []
    root = os.path.join(top, prefix)
    if os.path.isdir(root):
        for rel, st, p in walk(root):
            if typ == "deb" and rel == changelog:
                continue  # its own file, TheRock's changelog (packages_deb checks it)
            if stat.S_ISLNK(st.st_mode):
                lines.append("%s\tl\t%s" % (rel, os.readlink(p)))
            elif stat.S_ISREG(st.st_mode):
                lines.append("%s\tf\t%s" % (rel, sha256(p)))
    lines.sort()
    with open(os.path.join(got, name + ".list"), "w") as f:
        f.writelines(l + "\n" for l in lines)
    nfiles += len(lines)
    with open(want_path) as f:
        want = sorted(l.rstrip("\n") for l in f if l.strip())
    if want == lines:
        continue
    e = {l.split("\t")[0]: l.split("\t", 1)[1] for l in want}
    g = {l.split("\t")[0]: l.split("\t", 1)[1] for l in lines}
    diffs = []
    for p in sorted(set(e) | set(g)):
        if e.get(p) != g.get(p):
            diffs.append("%s: expected %s, got %s" % (
                p, e[p].replace("\t", " ") if p in e else "nothing",
                g[p].replace("\t", " ") if p in g else "nothing"))
    for d in diffs[:20]:
        say("%s: %s" % (label, d))
    if len(diffs) > 20:
        say("%s: ... %d paths differ in all" % (label, len(diffs)))
print("files %d" % nfiles)
