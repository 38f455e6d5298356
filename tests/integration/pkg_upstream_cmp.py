#!/usr/bin/env python3
"""Compares the native packages TheRock's build_package.py builds (the oracle) with those
a rockfs mount serves for the same artifacts and package.json.

    pkg_upstream_cmp.py deb UPSTREAM_DIR OUR_POOL
    pkg_upstream_cmp.py rpm UPSTREAM_DIR OUR_DIR

Every package upstream builds must be served under the same file name, and the same
file under a name upstream does not build is a difference too. For each:

  deb  the control fields (dpkg-deb -f), the data members (type, permission bits, link
       target, bytes: dpkg-deb -x), the maintainer scripts;
  rpm  the tags (rpm -qp --qf), the dependencies, the files (mode, link target, digest,
       user, group: rpm -qp --qf over the file arrays, and the bytes: rpm2cpio | cpio),
       the scriptlets.

What differs on purpose or is not reproduced yet (docs/packages.md, "Deliberate
differences" and "Compared with upstream's build") is allowed, and only that:
  - a DEB's changelog.Debian.gz is dated with the run's time (upstream's: the build's
    "now"), its Installed-Size is ours, and it has no shlibs / triggers members
    (dh_makeshlibs);
  - an RPM has none of rpmbuild's automatic dependencies (rpmlib(...), sonames,
    interpreters) and no build host or build time;
  - the maintainer scripts are ours ("same effect"): a package has one where upstream's
    has one, the text may differ;
  - a package upstream builds although it depends on one upstream left out (its
    definition selected no file), transitively, is not served: our repository never names
    a package it does not hold (docs/packages.md, "Left out").
Prints one line per difference; exits 1 if there is any.
"""
import glob
import gzip
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

kind, upstream, ours = sys.argv[1:4]
problems = []


def problem(where, what):
    problems.append("%s: %s" % (where, what))


def run(*cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, check=True, **kw).stdout


def tree(top):
    """path -> (type, mode, link target or sha256) of every entry below top."""
    out = {}
    for d, dirs, files in os.walk(top):
        for n in dirs + files:
            p = os.path.join(d, n)
            r = os.path.relpath(p, top)
            st = os.lstat(p)
            if os.path.islink(p):
                out[r] = ("l", os.readlink(p))
            elif os.path.isdir(p):
                out[r] = ("d", oct(st.st_mode & 0o7777))
            elif re.fullmatch(r".*/share/doc/[^/]+/changelog\.Debian\.gz", r):
                # its date is the build's "now" upstream, the run's time here; the gzip
                # header has upstream's file name and time: the text without the date
                with gzip.open(p, "rb") as f:
                    text = re.sub(rb"(\n -- .*>  ).*$", rb"\1DATE", f.read())
                out[r] = ("changelog", oct(st.st_mode & 0o7777), text)
            else:
                with open(p, "rb") as f:
                    out[r] = ("f", oct(st.st_mode & 0o7777), hashlib.sha256(f.read()).hexdigest())
    return out


def compare_trees(where, tu, to, allowed_only_upstream=lambda path: False):
    for path in sorted(set(tu) | set(to)):
        if tu.get(path) == to.get(path):
            continue
        if path not in to and allowed_only_upstream(path):
            continue
        problem(where, "%s: ours %s, upstream's %s" % (path, to.get(path), tu.get(path)))


def packages(top, suffix):
    return {os.path.basename(p): p for p in glob.glob(os.path.join(top, "**", "*" + suffix),
                                                      recursive=True)}


def relations(path):
    """The package's name and its Depends / Requires, each a list of alternatives."""
    if kind == "deb":
        name = run("dpkg-deb", "-f", path, "Package").decode().strip()
        deps = run("dpkg-deb", "-f", path, "Depends").decode().strip()
        items = [i for i in deps.split(",") if i.strip()]
        return name, [[a.strip().split(" ")[0].split("(")[0] for a in i.split("|")]
                      for i in items]
    name = run("rpm", "-qp", "--qf", "%{NAME}", path).decode().strip()
    reqs = run("rpm", "-qp", "--qf", "[%{REQUIRENAME}\\n]", path).decode().split("\n")
    return name, [[r] for r in reqs if r and not AUTO_DEP.match(r)]


def uninstallable(up):
    """Upstream's packages that need an amdrocm package upstream did not build, to the
    fixed point (file names)."""
    rel = {n: relations(p) for n, p in up.items()}
    served = {name for name, _ in rel.values()}
    gone = set()
    for _ in range(len(rel) + 1):
        changed = False
        for n, (name, items) in rel.items():
            if n in gone:
                continue
            if any(all(a.startswith("amdrocm") and a not in served for a in i) for i in items):
                gone.add(n)
                served.discard(name)
                changed = True
        if not changed:
            break
    return gone


def compare_sets(up, mine):
    gone = uninstallable(up)
    for n in sorted(set(up) - set(mine)):
        if n not in gone:
            problem(n, "upstream builds it, we do not serve it")
    for n in sorted(gone & set(mine)):
        problem(n, "upstream builds it needing a package it did not build; we serve it")
    for n in sorted(set(mine) - set(up)):
        problem(n, "we serve it, upstream does not build it")
    return sorted(set(up) & set(mine))


# ---- deb ----
def deb_control(path):
    fields = {}
    for line in run("dpkg-deb", "-f", path).decode().splitlines():
        if line.startswith(" ") and fields:
            fields[key] += "\n" + line
        else:
            key, _, value = line.partition(": ")
            fields[key] = value
    fields.pop("Installed-Size", None)  # ours: the files' total (docs/packages.md)
    return fields


def deb_tree(path, tmp):
    d = tempfile.mkdtemp(dir=tmp)
    run("dpkg-deb", "-x", path, d)
    c = tempfile.mkdtemp(dir=tmp)
    run("dpkg-deb", "-e", path, c)
    return tree(d), {n: v for n, v in tree(c).items() if n not in ("control", "md5sums")}


def compare_deb(name, up, mine, tmp):
    cu, co = deb_control(up), deb_control(mine)
    for k in sorted(set(cu) | set(co)):
        if cu.get(k) != co.get(k):
            problem(name, "control %s: ours %r, upstream's %r" % (k, co.get(k), cu.get(k)))
    (du, su), (do, so) = deb_tree(up, tmp), deb_tree(mine, tmp)
    compare_trees(name, du, do)
    for script in ("preinst", "postinst", "prerm", "postrm"):
        if (script in su) != (script in so):
            problem(name, "%s: ours %s, upstream's %s" % (script, script in so, script in su))
        su.pop(script, None)
        so.pop(script, None)
    compare_trees(name + " (control members)", su, so,
                  lambda member: member in ("shlibs", "triggers"))


# ---- rpm ----
# rpmbuild's automatic dependencies: Requires rpmlib(...), interpreters, sonames; Provides
# sonames
AUTO_DEP = re.compile(r"^(rpmlib\(|/|lib[^ ]*\.so|ld-linux|rtld\(|config\()")
TAGS = ["NAME", "VERSION", "RELEASE", "EPOCH", "ARCH", "SUMMARY", "DESCRIPTION", "LICENSE",
        "URL", "VENDOR", "GROUP", "PACKAGER", "PREFIXES", "PREIN", "POSTIN", "PREUN",
        "POSTUN", "PREINPROG", "POSTINPROG", "PREUNPROG", "POSTUNPROG"]
SCRIPTS = ["PREIN", "POSTIN", "PREUN", "POSTUN"]
DEPS = ["REQUIRES", "PROVIDES", "CONFLICTS", "OBSOLETES", "RECOMMENDS", "SUGGESTS",
        "SUPPLEMENTS", "ENHANCES"]


def rpm_query(path):
    q = {}
    for t in TAGS:
        q[t] = run("rpm", "-qp", "--qf", "%%{%s}" % t, path).decode()
    for t in DEPS:
        lines = run("rpm", "-qp", "--qf", "[%%{%sNEVRS}\\n]" % t[:-1], path).decode().split("\n")
        q[t] = sorted(x for x in lines
                      if x and not (t in ("REQUIRES", "PROVIDES") and AUTO_DEP.match(x)))
    files = run("rpm", "-qp", "--qf",
                "[%{FILENAMES}\\t%{FILEMODES:octal}\\t%{FILELINKTOS}\\t%{FILEUSERNAME}\\t"
                "%{FILEGROUPNAME}\\t%{FILEDIGESTS}\\n]", path).decode().splitlines()
    q["FILES"] = sorted(files)
    return q


def rpm_tree(path, tmp):
    d = tempfile.mkdtemp(dir=tmp)
    cpio = run("rpm2cpio", path)
    subprocess.run(["cpio", "-idm", "--quiet", "--no-absolute-filenames"], input=cpio,
                   cwd=d, check=True)
    return tree(d)


def compare_rpm(name, up, mine, tmp):
    qu, qo = rpm_query(up), rpm_query(mine)
    for k in SCRIPTS:
        if (qu[k] == "(none)") != (qo[k] == "(none)"):
            problem(name, "%s: ours %s, upstream's %s" % (k, qo[k] != "(none)", qu[k] != "(none)"))
        qu[k] = qo[k] = None
    for k in TAGS + DEPS + ["FILES"]:
        if qu[k] != qo[k]:
            problem(name, "%s: ours %r, upstream's %r" % (k, qo[k], qu[k]))
    compare_trees(name, rpm_tree(up, tmp), rpm_tree(mine, tmp))


tmp = tempfile.mkdtemp()
try:
    suffix = ".deb" if kind == "deb" else ".rpm"
    up, mine = packages(upstream, suffix), packages(ours, suffix)
    names = compare_sets(up, mine)
    for n in names:
        (compare_deb if kind == "deb" else compare_rpm)(n, up[n], mine[n], tmp)
finally:
    shutil.rmtree(tmp)
print("compared %d %s packages with upstream's (%d built by upstream)" % (len(names), kind, len(up)))
for p in problems:
    print("DIFFERS " + p)
sys.exit(1 if problems or not names else 0)
