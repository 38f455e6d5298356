#!/usr/bin/env python3
"""Refresh packaging/packages.json, the packages view's default definitions, from TheRock.

The default definitions are TheRock's native package set: the facts of its
build_tools/packaging/linux/package.json (names, relations, descriptions, which artifact
directories and components each package takes, flags) at one recorded commit. This script
writes those facts as our data file, in a fixed layout (one-space indent, upstream's package
and key order, free-text "Comments" left out), and the commit they come from to
packaging/packages.therock, which the build embeds beside them.

  refresh-package-defs.py THEROCK_CHECKOUT          # read HEAD's file of a git checkout
  refresh-package-defs.py --file F --commit SHA     # read a file you name
  refresh-package-defs.py --check --file F --commit SHA   # exit 1 when ours differ

--check is what ctest runs (unit.pkg_defs.upstream_facts) against the copy of upstream's
file vendored in tests/integration/upstream_therock/.
"""
import argparse
import json
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UPSTREAM_PATH = "build_tools/packaging/linux/package.json"
DROPPED = {"Comments"}  # prose for upstream's maintainers, not a fact of any package


def facts(upstream_text):
    defs = json.loads(upstream_text)
    if not isinstance(defs, list) or not all(isinstance(p, dict) for p in defs):
        raise ValueError("package.json: not a list of package objects")
    return [{k: v for k, v in p.items() if k not in DROPPED} for p in defs]


def render(defs):
    return json.dumps(defs, indent=1, ensure_ascii=False) + "\n"


def commit_line(commit, source):
    return f"{commit} {source}\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checkout", nargs="?", help="a git checkout of ROCm/TheRock")
    ap.add_argument("--file", help="upstream's package.json")
    ap.add_argument("--commit", help="the TheRock commit --file is from (40 hex digits)")
    ap.add_argument("--check", action="store_true",
                    help="compare instead of writing; exit 1 when they differ")
    ap.add_argument("--out", default=os.path.join(TOP, "packaging"),
                    help="where packages.json and packages.therock are (default: packaging/)")
    a = ap.parse_args()

    if a.checkout:
        if a.file or a.commit:
            ap.error("a checkout, or --file with --commit, not both")
        commit = subprocess.check_output(["git", "-C", a.checkout, "rev-parse", "HEAD"],
                                         text=True).strip()
        text = subprocess.check_output(
            ["git", "-C", a.checkout, "show", f"HEAD:{UPSTREAM_PATH}"], text=True)
    elif a.file and a.commit:
        commit = a.commit
        with open(a.file, encoding="utf-8") as f:
            text = f.read()
    else:
        ap.error("name a TheRock checkout, or --file and --commit")
    if not re.fullmatch(r"[0-9a-f]{40}", commit):
        ap.error(f"commit '{commit}' is not 40 hex digits")

    want = {
        "packages.json": render(facts(text)),
        "packages.therock": commit_line(commit, UPSTREAM_PATH),
    }
    bad = 0
    for name, body in want.items():
        path = os.path.join(a.out, name)
        if a.check:
            try:
                with open(path, encoding="utf-8") as f:
                    have = f.read()
            except OSError as e:
                have = None
                print(f"refresh-package-defs: {path}: {e.strerror}", file=sys.stderr)
            if have != body:
                print(f"refresh-package-defs: {path} is not TheRock {commit[:12]}'s "
                      f"{UPSTREAM_PATH} (run tools/refresh-package-defs.py)", file=sys.stderr)
                bad = 1
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(body)
    if not a.check:
        n = len(json.loads(want["packages.json"]))
        print(f"packaging/packages.json: {n} packages of TheRock {commit[:12]}")
    return bad


if __name__ == "__main__":
    sys.exit(main())
