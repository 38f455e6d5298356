#!/usr/bin/env python3
"""Compares the Python packages rockfs serves for a run with those TheRock's own
build_python_packages.py builds from the same artifacts (the oracle).

  wheel_oracle.py UPSTREAM_DIST OUR_PYTHON TEMPLATES

UPSTREAM_DIST is upstream's --dest-dir/dist: wheels at its top, and for a legacy run with
several families a directory per family with that family's rocm sdist and devel wheel.
OUR_PYTHON is the mount's RUN/python: the same wheels in files/ and the family sets in
<family>/. TEMPLATES is upstream's build_tools/packaging/python/templates (its _cli.py
files say which program each console script runs). Every package upstream builds must be served under the same file name, and:

  members     the same set of names and the same modes; the differences we make on purpose
              (docs/python-sdk.md "Compared with upstream's build") are allowed and only
              those: no _cli.py / entry_points.txt in a wheel with no console script, no
              rocm_sdk_devel/_cli.py (upstream's declares none), no
              _rocm_sdk_libraries/__init__.py in a device wheel (uninstalling upstream's
              device wheel removes the libraries wheel's file);
  payload     the same bytes, except ELF files: there the same DT_NEEDED, DT_SONAME and
              DT_RUNPATH/DT_RPATH (patchelf and our splice lay the file out differently),
              and upstream's compiled exec stubs, where ours is an executable ELF too;
  metadata    the same Name, Version and Requires-Dist (as a set, parenthesised or not);
              ours also pins rocm-sdk-core in the libraries and devel wheels;
  console     ours declares exactly upstream's console scripts whose program is in the
              wheel (upstream declares its whole list whatever the artifacts hold);
  dist_info   the values each _dist_info.py sets for its build: version, nonce, target
              families (as a set), default and this family, this package, the libraries
              dist name;
  devel tar   the same members (name, type, mode, link target, bytes), our tar may also
              have its top directory;
  links json  .devel_links/<target>.json: the same version and set of links;
  pages       a --find-links page links the same files, and ours resolve: upstream's
              dist/index.html (third-party/indexer/indexer.py, a single-family run) is
              our python/index.html, dist/<family>/index.html (generate_local_index.py
              --per-family-indexes) our python/<family>/index.html;
  sdist       setup.py egg_info gives the same requires.txt and entry points, for every
              target family (ROCM_SDK_TARGET_FAMILY) and for none; but an extra of
              upstream's that names only packages its build does not make (`device` of a
              legacy family: rocm-sdk-device-gfx110X-all) is one ours leaves out.

Prints one line per difference and exits 1 if there is any; prints what it compared.
"""
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import urllib.parse
import zipfile
from pathlib import Path

upstream, ours, templates = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
problems = []
compared = []


def problem(where, what):
    problems.append("%s: %s" % (where, what))


def ours_for(up):
    rel = up.relative_to(upstream)
    if str(rel) == "index.html":
        return ours / "index.html"
    if len(rel.parts) == 1:
        return ours / "files" / rel.name
    return ours / rel


def elf_dynamic(data):
    with tempfile.NamedTemporaryFile() as f:
        f.write(data)
        f.flush()
        out = subprocess.run(["readelf", "-dW", f.name], stdout=subprocess.PIPE,
                             universal_newlines=True, check=True).stdout
    keep = ("(NEEDED)", "(SONAME)", "(RUNPATH)", "(RPATH)")
    return sorted(line.split(None, 1)[1] for line in out.splitlines()
                  if any(k in line for k in keep))


STUB_TEXT = b"could not determine path of main program"  # upstream's exe_stub_gen.py


def read_zip(path):
    z = zipfile.ZipFile(path)
    return {i.filename: (i.external_attr >> 16, z.read(i)) for i in z.infolist()}


def metadata(data):
    fields = {"Name": None, "Version": None, "Requires-Dist": set()}
    for line in data.decode().split("\n\n", 1)[0].splitlines():
        key, _, value = line.partition(": ")
        if key == "Requires-Dist":
            fields[key].add(re.sub(r"\s*\((.*)\)", r"\1", value).replace(" ", ""))
        elif key in fields:
            fields[key] = value
    return fields


def console_scripts(data):
    if data is None:
        return {}
    eps, section = {}, None
    for line in data.decode().splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line.strip("[]")
        elif "=" in line and section == "console_scripts":
            name, value = (s.strip() for s in line.split("=", 1))
            eps[name] = value
    return eps


# "module:function" -> program (relative to the platform directory), from upstream's
# _cli.py files (the templates' src/<pure package>/_cli.py)
CLI_PROGRAMS = {}
for cli in templates.glob("*/src/*/_cli.py"):
    for func, prog in re.findall(r'def (\w+)\(\)[^:]*:\s*\n\s*_exec\("([^"]+)"', cli.read_text()):
        CLI_PROGRAMS["%s._cli:%s" % (cli.parent.name, func)] = prog


def dist_info_values(data):
    ns = {"__name__": "_dist_info_probe", "__file__": "_dist_info.py"}
    exec(compile(data, "_dist_info.py", "exec"), ns)
    entry = ns.get("THIS_PACKAGE_ENTRY")
    return {
        "__version__": ns["__version__"],
        "PY_PACKAGE_SUFFIX_NONCE": ns["PY_PACKAGE_SUFFIX_NONCE"],
        "AVAILABLE_TARGET_FAMILIES": sorted(ns["AVAILABLE_TARGET_FAMILIES"]),
        "DEFAULT_TARGET_FAMILY": ns["DEFAULT_TARGET_FAMILY"],
        "THIS_TARGET_FAMILY": ns.get("THIS_TARGET_FAMILY"),
        "THIS_PACKAGE_ENTRY": entry.logical_name if entry is not None else None,
        "libraries": ns["ALL_PACKAGES"]["libraries"].dist_package_template,
    }


def tar_members(data, allow_top=None):
    out = {}
    with tarfile.open(fileobj=io.BytesIO(data)) as tf:
        for m in tf.getmembers():
            name = m.name.rstrip("/")
            if name == allow_top and m.isdir():
                continue
            body = tf.extractfile(m).read() if m.isfile() else None
            out[name] = (m.type, m.mode & 0o7777, m.linkname, body)
    return out


def compare_wheel(up_path, our_path):
    U, O = read_zip(up_path), read_zip(our_path)
    where = our_path.name
    eps_up = console_scripts(U.get(next((n for n in U if n.endswith(".dist-info/entry_points.txt")), ""), (0, None))[1])
    eps_ours = console_scripts(O.get(next((n for n in O if n.endswith(".dist-info/entry_points.txt")), ""), (0, None))[1])
    # the pure package's name decides which members are its _cli.py
    for name in sorted(set(U) - set(O)):
        base = name.rsplit("/", 1)[-1]
        if base == "RECORD":
            continue
        if base in ("_cli.py", "entry_points.txt") and not eps_ours:
            continue
        if name.startswith("rocm_sdk_devel/") and base == "_cli.py":
            continue
        if name == "_rocm_sdk_libraries/__init__.py" and \
                where.startswith("rocm_sdk_device_"):
            continue
        problem(where, "upstream's wheel has %s, ours does not" % name)
    for name in sorted(set(O) - set(U)):
        problem(where, "our wheel has %s, upstream's does not" % name)
    for name in sorted(set(U) & set(O)):
        (um, ud), (om, od) = U[name], O[name]
        base = name.rsplit("/", 1)[-1]
        if base in ("RECORD", "WHEEL", "entry_points.txt"):
            continue
        if um != om:
            problem(where, "%s: mode %o, upstream's %o" % (name, om, um))
        if base == "METADATA":
            mu, mo = metadata(ud), metadata(od)
            if where.startswith(("rocm_sdk_libraries", "rocm_sdk_devel-")):
                mu["Requires-Dist"].add("rocm-sdk-core==" + mu["Version"])
            if mu != mo:
                problem(where, "METADATA %s, upstream's %s" % (mo, mu))
        elif base == "_dist_info.py":
            vu, vo = dist_info_values(ud), dist_info_values(od)
            if vu != vo:
                problem(where, "%s sets %s, upstream's %s" % (name, vo, vu))
        elif base in ("__init__.py", "_cli.py") and not name.startswith("_"):
            pass  # the pure packages' code is ours (their values are in _dist_info.py)
        elif base.startswith("_devel.tar"):
            tu, to = tar_members(ud), tar_members(od, allow_top="_rocm_sdk_devel")
            for n in sorted(set(tu) ^ set(to)):
                problem(where, "%s: %s only in %s" % (name, n, "upstream's" if n in tu else "ours"))
            for n in sorted(set(tu) & set(to)):
                if tu[n] != to[n]:
                    problem(where, "%s: member %s differs: %s, upstream's %s"
                            % (name, n, to[n][:3], tu[n][:3]))
        elif "/.devel_links/" in name:
            ju, jo = json.loads(ud), json.loads(od)
            key = lambda j: (j["version"], sorted((l["relpath"], l["target"]) for l in j["links"]))
            if key(ju) != key(jo):
                problem(where, "%s: %s, upstream's %s" % (name, key(jo), key(ju)))
        elif ud[:4] == b"\x7fELF" and od[:4] == b"\x7fELF":
            if STUB_TEXT in ud:
                if not om & 0o111:
                    problem(where, "%s: upstream's is an exec stub, ours is not executable" % name)
            elif ud != od and elf_dynamic(ud) != elf_dynamic(od):
                problem(where, "%s: dynamic section %s, upstream's %s"
                        % (name, elf_dynamic(od), elf_dynamic(ud)))
        elif ud != od:
            problem(where, "%s: %d bytes differ from upstream's %d" % (name, len(od), len(ud)))
    # console scripts: upstream's whose program the wheel holds
    platform = next((n.split("/", 1)[0] for n in U if n.startswith("_") and "/" in n), None)
    want = {}
    for name, value in eps_up.items():
        prog = CLI_PROGRAMS.get(value.replace(" ", ""))
        if prog is not None and platform and "%s/%s" % (platform, prog) in U:
            want[name] = value
    if eps_ours != want:
        problem(where, "console scripts %s, want %s (upstream's with a program in the wheel)"
                % (sorted(eps_ours), sorted(want)))
    compared.append(where)


def egg_info(sdist, family):
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(sdist) as tf:
            tf.extractall(tmp)
        src = next(Path(tmp).iterdir())
        env = dict(os.environ)
        env.pop("ROCM_SDK_TARGET_FAMILY", None)
        if family:
            env["ROCM_SDK_TARGET_FAMILY"] = family
        eb = Path(tmp) / "eb"
        eb.mkdir()
        r = subprocess.run([sys.executable, "setup.py", "-q", "egg_info", "--egg-base", str(eb)],
                           cwd=src, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True)
        if r.returncode != 0:
            return "egg_info failed: " + r.stdout[-500:]
        info = next(eb.iterdir())
        req = (info / "requires.txt").read_text() if (info / "requires.txt").exists() else ""
        sections, cur = {}, ""
        for line in req.splitlines():
            if line.startswith("["):
                cur = line.strip("[]")
            elif line.strip():
                sections.setdefault(cur, set()).add(line.strip())
        return sections, console_scripts((info / "entry_points.txt").read_bytes())


def compare_sdist(up_path, our_path):
    families = [None]
    with tarfile.open(up_path) as tf:
        di = next(m for m in tf.getmembers() if m.name.endswith("rocm_sdk/_dist_info.py"))
        families += dist_info_values(tf.extractfile(di).read())["AVAILABLE_TARGET_FAMILIES"]
    built = {w.name.split("-")[0].lower() for w in upstream.rglob("*.whl")}
    for family in families:
        u, o = egg_info(up_path, family), egg_info(our_path, family)
        if isinstance(u, tuple):  # upstream's extras that name only packages it never builds
            for extra, reqs in list(u[0].items()):
                if extra and not any(re.split("[=;]", r)[0].replace("-", "_").lower() in built
                                     for r in reqs):
                    del u[0][extra]
        if u != o:
            problem(our_path.name, "ROCM_SDK_TARGET_FAMILY=%s: requirements %s, upstream's %s"
                    % (family, o, u))
    compared.append("%s (%d families)" % (our_path.name, len(families) - 1))


def compare_page(up_path, our_path):
    """A --find-links page: the same files linked (by name); each of our links resolves."""
    def links(page):
        hrefs = re.findall(r'<a href="([^"]+)"', page.read_text())
        return {urllib.parse.unquote(h.rsplit("/", 1)[-1]): h for h in hrefs
                if h.endswith((".whl", ".tar.gz"))}
    lu, lo = links(up_path), links(our_path)
    where = str(our_path.relative_to(ours))
    for name in sorted(set(lu) ^ set(lo)):
        problem(where, "%s linked only by %s" % (name, "upstream's" if name in lu else "ours"))
    for name, href in lo.items():
        if not (our_path.parent / urllib.parse.unquote(href)).is_file():
            problem(where, "link %s does not resolve" % href)
    compared.append("%s (%d links)" % (where, len(lo)))


for up in sorted(upstream.rglob("*")):
    if not up.is_file():
        continue
    mine = ours_for(up)
    if not mine.is_file():
        problem(str(up.relative_to(upstream)), "upstream builds it; not served at %s" % mine)
    elif up.name.endswith(".whl"):
        compare_wheel(up, mine)
    elif up.name.endswith(".tar.gz"):
        compare_sdist(up, mine)
    elif up.name == "index.html":
        compare_page(up, mine)

print("compared with upstream: %s" % ", ".join(compared))
for p in problems:
    print("DIFFERS " + p)
sys.exit(1 if problems or not compared else 0)
