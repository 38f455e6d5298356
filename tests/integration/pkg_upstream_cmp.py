#!/usr/bin/env python3
"""Compares the native packages TheRock's build_package.py builds (the oracle) with those
a rockfs mount serves for the same artifacts and package.json.

    pkg_upstream_cmp.py deb|rpm UPSTREAM OURS
    pkg_upstream_cmp.py facts deb|rpm DIR KEY OUT.json.gz
    pkg_upstream_cmp.py key deb|rpm ARTIFACTS_DIR VERSION SUFFIX

UPSTREAM is the directory upstream's build wrote, or a record of what it holds (facts:
every package's relations, control fields or tags, and data entries, written by `facts`
with the KEY of the inputs it was built from; tests/integration/upstream_oracle/). `key`
prints the SHA-256 of everything upstream's build reads: the artifacts (paths, modes,
bytes), the vendored upstream files the builder reads (package.json, its templates and
the modules build_package.py imports), this script, the arguments, and the versions of
the Debian tools it runs.

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
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

problems = []
kind = None


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
                out[r] = ["l", os.readlink(p)]
            elif os.path.isdir(p):
                out[r] = ["d", oct(st.st_mode & 0o7777)]
            elif re.fullmatch(r".*/share/doc/[^/]+/changelog\.Debian\.gz", r):
                # its date is the build's "now" upstream, the run's time here; the gzip
                # header has upstream's file name and time: the text without the date
                with gzip.open(p, "rb") as f:
                    text = re.sub(rb"(\n -- .*>  ).*$", rb"\1DATE", f.read())
                out[r] = ["changelog", oct(st.st_mode & 0o7777), hashlib.sha256(text).hexdigest()]
            else:
                out[r] = ["f", oct(st.st_mode & 0o7777), file_sha256(p)]
    return out


def file_sha256(p):
    h = hashlib.sha256()
    with open(p, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


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


def relations(facts):
    """The package's name and its Depends / Requires, each a list of alternatives."""
    if kind == "deb":
        c = facts["control"]
        items = [i for i in c.get("Depends", "").split(",") if i.strip()]
        return c["Package"], [[a.strip().split(" ")[0].split("(")[0] for a in i.split("|")]
                              for i in items]
    q = facts["query"]
    return q["NAME"], [[r.split(" ")[0]] for r in q["REQUIRES"]]


def uninstallable(up):
    """Upstream's packages that need an amdrocm package upstream did not build, to the
    fixed point (file names)."""
    rel = {n: relations(f) for n, f in up.items()}
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


def deb_facts(path, tmp):
    d = tempfile.mkdtemp(dir=tmp)
    run("dpkg-deb", "-x", path, d)
    c = tempfile.mkdtemp(dir=tmp)
    run("dpkg-deb", "-e", path, c)
    facts = {"control": deb_control(path), "data": tree(d),
             "members": {n: v for n, v in tree(c).items() if n not in ("control", "md5sums")}}
    shutil.rmtree(d)
    shutil.rmtree(c)
    return facts


def compare_deb(name, fu, fo):
    cu, co = fu["control"], fo["control"]
    for k in sorted(set(cu) | set(co)):
        if cu.get(k) != co.get(k):
            problem(name, "control %s: ours %r, upstream's %r" % (k, co.get(k), cu.get(k)))
    compare_trees(name, fu["data"], fo["data"])
    su, so = dict(fu["members"]), dict(fo["members"])
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
    """The tags, the dependencies (rpmbuild's automatic ones left out) and the files, read
    by one `rpm -qp`."""
    sep = "\x1e"
    qf = "".join("%%{%s}%s" % (t, sep) for t in TAGS)
    qf += "".join("[%%{%sNEVRS}\\n]%s" % (t[:-1], sep) for t in DEPS)
    qf += ("[%{FILENAMES}\\t%{FILEMODES:octal}\\t%{FILELINKTOS}\\t%{FILEUSERNAME}\\t"
           "%{FILEGROUPNAME}\\t%{FILEDIGESTS}\\n]")
    parts = run("rpm", "-qp", "--qf", qf, path).decode().split(sep)
    q = dict(zip(TAGS, parts))
    for t, text in zip(DEPS, parts[len(TAGS):]):
        q[t] = sorted(x for x in text.split("\n")
                      if x and not (t in ("REQUIRES", "PROVIDES") and AUTO_DEP.match(x)))
    q["FILES"] = sorted(parts[-1].splitlines())
    return q


def rpm_facts(path, tmp):
    d = tempfile.mkdtemp(dir=tmp)
    cpio = run("rpm2cpio", path)
    subprocess.run(["cpio", "-idm", "--quiet", "--no-absolute-filenames"], input=cpio,
                   cwd=d, check=True)
    facts = {"query": rpm_query(path), "data": tree(d)}
    shutil.rmtree(d)
    return facts


def compare_rpm(name, fu, fo):
    qu, qo = dict(fu["query"]), dict(fo["query"])
    for k in SCRIPTS:
        if (qu[k] == "(none)") != (qo[k] == "(none)"):
            problem(name, "%s: ours %s, upstream's %s" % (k, qo[k] != "(none)", qu[k] != "(none)"))
        qu[k] = qo[k] = None
    for k in TAGS + DEPS + ["FILES"]:
        if qu[k] != qo[k]:
            problem(name, "%s: ours %r, upstream's %r" % (k, qo[k], qu[k]))
    compare_trees(name, fu["data"], fo["data"])


def all_facts(top, tmp):
    """file name -> facts of every package below top."""
    of = deb_facts if kind == "deb" else rpm_facts
    suffix = "." + kind
    return {os.path.basename(p): of(p, tmp)
            for p in glob.glob(os.path.join(top, "**", "*" + suffix), recursive=True)}


def builder_modules(linux):
    """The vendored files build_package.py imports, as the test runs it (sorted)."""
    up = os.path.dirname(os.path.dirname(linux))
    compat = os.path.join(os.path.dirname(os.path.abspath(__file__)), "py312_compat")
    code = ("import sys; sys.path[:0] = %r; import build_package\n"
            "for m in list(sys.modules.values()):\n"
            "    f = getattr(m, '__file__', None)\n"
            "    if f and f.startswith(%r): print(f)\n" % ([linux, up, compat], up + os.sep))
    out = subprocess.run([sys.executable, "-B", "-c", code], cwd=linux, check=True,
                         stdout=subprocess.PIPE).stdout.decode()
    return sorted(set(out.split()))


def inputs_key(artifacts, version, suffix):
    """SHA-256 of everything upstream's build of these artifacts reads or depends on."""
    h = hashlib.sha256()
    here = os.path.dirname(os.path.abspath(__file__))
    linux = os.path.join(here, "upstream_therock", "build_tools", "packaging", "linux")
    tops = [("artifacts", artifacts), ("templates", os.path.join(linux, "template")),
            ("compat", os.path.join(here, "py312_compat"))]
    for label, top in tops:
        for r, entry in sorted(tree(top).items()):
            if "__pycache__" not in r:
                h.update(("%s/%s %s\n" % (label, r, " ".join(entry))).encode())
    # of the vendored upstream files, only those the builder reads: package.json and the
    # modules build_package.py imports (other vendored files leave the key alone)
    for r in [os.path.join(linux, "package.json")] + builder_modules(linux):
        h.update(("upstream/%s %s\n" % (os.path.relpath(r, here), file_sha256(r))).encode())
    h.update(("cmp %s\n" % file_sha256(os.path.abspath(__file__))).encode())
    h.update(("args %s %s %s\n" % (kind, version, suffix)).encode())
    tools = ["debhelper", "dpkg-dev", "dpkg", "rpm", "patchelf", "python3", "python3-jinja2",
             "cpio", "binutils", "file", "dh-strip-nondeterminism"]
    h.update(run("dpkg-query", "-W", "-f", "${Package} ${Version}\\n", *tools))
    return h.hexdigest()


def load_record(path):
    with gzip.open(path, "rt") as f:
        return json.load(f)


def main():
    global kind
    tmp = tempfile.mkdtemp()
    try:
        if sys.argv[1] == "key":
            kind = sys.argv[2]
            print(inputs_key(*sys.argv[3:6]))
            return 0
        if sys.argv[1] == "facts":
            kind, top, key, out = sys.argv[2:6]
            record = {"kind": kind, "key": key, "packages": all_facts(top, tmp)}
            with gzip.GzipFile(out, "wb", mtime=0) as f:
                f.write(json.dumps(record, sort_keys=True, indent=0).encode())
            return 0
        kind, upstream, ours = sys.argv[1:4]
        if os.path.isdir(upstream):
            up = all_facts(upstream, tmp)
        else:
            up = load_record(upstream)["packages"]
        mine = all_facts(ours, tmp)
    finally:
        shutil.rmtree(tmp)
    names = compare_sets(up, mine)
    for n in names:
        (compare_deb if kind == "deb" else compare_rpm)(n, up[n], mine[n])
    print("compared %d %s packages with upstream's (%d built by upstream)"
          % (len(names), kind, len(up)))
    for p in problems:
        print("DIFFERS " + p)
    return 1 if problems or not names else 0


sys.exit(main())
