#!/usr/bin/env python3
"""Check a RUN/python/ tree of a rockfs mount (python_index.sh).

    pyindex_check.py PYDIR PROJECT... [--corrupt FILE]

PYDIR/simple/index.html must list exactly the PROJECTs (PEP 503-normalized); every
project page must be HTML5 whose links resolve into PYDIR/files, with #sha256= equal to
the file's sha256, data-requires-python equal to the wheel's Requires-Python, and
data-core-metadata / data-dist-info-metadata equal to the sha256 of FILE.metadata, which
must equal the METADATA inside the wheel. Every wheel passes zipfile's CRC test and its
RECORD hashes. find-links/ holds the same files. A --corrupt FILE is listed with its
sha256 but without metadata attributes and without FILE.metadata. Prints one line per
problem and exits 1 if there was any."""

import base64
import hashlib
import html.parser
import os
import re
import sys
import urllib.parse
import zipfile

problems = []


def bad(msg):
    problems.append(msg)
    print("pyindex_check: " + msg, file=sys.stderr)


def norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.links = []
        self.doctype = None

    def handle_decl(self, decl):
        self.doctype = decl

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self.links.append(dict(attrs))


def parse(path):
    p = Links()
    with open(path, encoding="utf-8") as f:
        text = f.read()
    p.feed(text)
    p.close()
    if not text.startswith("<!DOCTYPE html>") or (p.doctype or "").lower() != "doctype html":
        bad("%s: not HTML5 (no <!DOCTYPE html>)" % path)
    return p.links


def wheel_metadata(path):
    with zipfile.ZipFile(path) as z:
        if z.testzip() is not None:
            bad("%s: zip CRC test failed" % path)
        name = os.path.basename(path).split("-")
        info = "%s-%s.dist-info" % (name[0], name[1])
        rec = z.read(info + "/RECORD").decode().splitlines()
        for line in rec:
            member, h, size = line.rsplit(",", 2)
            if member == info + "/RECORD":
                continue
            data = z.read(member)
            want = "sha256=" + base64.urlsafe_b64encode(
                hashlib.sha256(data).digest()).rstrip(b"=").decode()
            if h != want or int(size) != len(data):
                bad("%s: RECORD wrong for %s" % (path, member))
        return z.read(info + "/METADATA")


def main(argv):
    corrupt = None
    if "--corrupt" in argv:
        i = argv.index("--corrupt")
        corrupt = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    pydir, projects = argv[0], argv[1:]
    simple = os.path.join(pydir, "simple")
    files = os.path.join(pydir, "files")
    root = parse(os.path.join(simple, "index.html"))
    got = [a.get("href", "") for a in root]
    want = [p + "/" for p in sorted(projects)]
    if got != want:
        bad("root index lists %s, want %s" % (got, want))
    served = set()
    for a in root:
        proj = a["href"].rstrip("/")
        if norm(proj) != proj:
            bad("project %r is not PEP 503-normalized" % proj)
        page = os.path.join(simple, proj, "index.html")
        for link in parse(page):
            url = urllib.parse.urlsplit(link["href"])
            rel = urllib.parse.unquote(url.path)
            target = os.path.normpath(os.path.join(simple, proj, rel))
            fname = os.path.basename(target)
            if os.path.dirname(target) != os.path.normpath(files) or not os.path.isfile(target):
                bad("%s: href %s does not resolve into files/" % (page, link["href"]))
                continue
            served.add(fname)
            kind_name = fname[:-4].split("-")[0] if fname.endswith(".whl") else \
                fname[:-len(".tar.gz")].rsplit("-", 1)[0]
            if norm(kind_name) != proj:
                bad("%s listed under %s" % (fname, proj))
            if url.fragment != "sha256=" + sha256(target):
                bad("%s: fragment %s is not its sha256" % (fname, url.fragment))
            meta_attr = link.get("data-core-metadata")
            if link.get("data-dist-info-metadata") != meta_attr:
                bad("%s: data-dist-info-metadata differs from data-core-metadata" % fname)
            mfile = target + ".metadata"
            if fname == corrupt:
                if meta_attr is not None or os.path.exists(mfile):
                    bad("%s (corrupt) has metadata" % fname)
                continue
            if not fname.endswith(".whl"):
                continue
            meta = wheel_metadata(target)
            with open(mfile, "rb") as f:
                served_meta = f.read()
            if served_meta != meta:
                bad("%s.metadata differs from the wheel's METADATA" % fname)
            if meta_attr != "sha256=" + hashlib.sha256(meta).hexdigest():
                bad("%s: data-core-metadata %s is not the .metadata sha256" % (fname, meta_attr))
            rp = re.search(r"^Requires-Python: *(.*)$", meta.decode(), re.M)
            if (rp.group(1).strip() if rp else None) != link.get("data-requires-python"):
                bad("%s: data-requires-python %r" % (fname, link.get("data-requires-python")))
    on_disk = {f for f in os.listdir(files) if not f.endswith(".metadata")}
    if on_disk != served:
        bad("files/ holds %s, the index links %s" % (sorted(on_disk), sorted(served)))
    links = os.path.join(pydir, "find-links")
    if sorted(os.listdir(links)) != sorted(served):
        bad("find-links/ holds %s" % sorted(os.listdir(links)))
    for f in os.listdir(links):
        if os.readlink(os.path.join(links, f)) != "../files/" + f or \
                sha256(os.path.join(links, f)) != sha256(os.path.join(files, f)):
            bad("find-links/%s is not ../files/%s" % (f, f))
    with open(os.path.join(pydir, "PROVENANCE")) as f:
        prov = f.read()
    for f in served:
        if not re.search(r"^%s\t(stored python/(\S+/)?%s|synthesized from \S.*|"
                         r"kpack-split from stored python/\S+\.whl)$"
                         % (re.escape(f), re.escape(f)), prov, re.M):
            bad("PROVENANCE does not say where %s comes from" % f)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
