#!/usr/bin/env python3
"""What a user runs without rockfs to serve a directory of wheels as a pip index: a
static PEP 503/658 generator (what dumb-pypi, simple503 or piprepo do).

    pyindex.py WHEELDIR OUT

sha256 of every file, METADATA out of every wheel's zip (written as
OUT/files/<wheel>.metadata), OUT/simple/index.html and OUT/simple/<project>/index.html
with the same attributes rockfs serves (#sha256=, data-requires-python,
data-core-metadata, data-dist-info-metadata). The wheels themselves are symlinked into
OUT/files (a generator that copies them would be slower).
"""

import hashlib
import html
import os
import re
import sys
import urllib.parse
import zipfile


def norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb", buffering=0) as f:
        while True:
            b = f.read(1 << 20)
            if not b:
                return h.hexdigest()
            h.update(b)


def head(title):
    return ('<!DOCTYPE html>\n<html>\n<head>\n<meta name="pypi:repository-version" '
            'content="1.0">\n<title>%s</title>\n</head>\n<body>\n' % title)


def main():
    src, out = sys.argv[1], sys.argv[2]
    os.makedirs(os.path.join(out, "files"), exist_ok=True)
    projects = {}
    for fn in sorted(os.listdir(src)):
        if not fn.endswith(".whl"):
            continue
        path = os.path.join(src, fn)
        dist, version = fn.split("-")[:2]
        sha = sha256_file(path)
        attrs = ""
        with zipfile.ZipFile(path) as z:
            meta = z.read("%s-%s.dist-info/METADATA" % (dist, version))
        with open(os.path.join(out, "files", fn + ".metadata"), "wb") as f:
            f.write(meta)
        msha = hashlib.sha256(meta).hexdigest()
        for line in meta.decode("utf-8", "replace").splitlines():
            if not line:
                break
            if line.lower().startswith("requires-python:"):
                attrs += ' data-requires-python="%s"' % html.escape(line.split(":", 1)[1].strip())
        attrs += ' data-core-metadata="sha256=%s" data-dist-info-metadata="sha256=%s"' % (msha, msha)
        link = os.path.join(out, "files", fn)
        if not os.path.lexists(link):
            os.symlink(os.path.abspath(path), link)
        projects.setdefault(norm(dist), []).append(
            '<a href="../../files/%s#sha256=%s"%s>%s</a><br>\n'
            % (urllib.parse.quote(fn), sha, attrs, html.escape(fn)))
    os.makedirs(os.path.join(out, "simple"), exist_ok=True)
    with open(os.path.join(out, "simple", "index.html"), "w") as f:
        f.write(head("Simple index"))
        for p in sorted(projects):
            f.write('<a href="%s/">%s</a><br>\n' % (p, p))
        f.write("</body>\n</html>\n")
    for p, links in projects.items():
        os.makedirs(os.path.join(out, "simple", p), exist_ok=True)
        with open(os.path.join(out, "simple", p, "index.html"), "w") as f:
            f.write(head("Links for " + p) + "<h1>Links for %s</h1>\n" % p)
            f.writelines(links)
            f.write("</body>\n</html>\n")


if __name__ == "__main__":
    main()
