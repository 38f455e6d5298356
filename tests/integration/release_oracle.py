#!/usr/bin/env python3
"""release_oracle.py MNT OUT [RELEASE]: what TheRock's release pipeline would publish for the runs
of a mounted store, as the tree rockfs's release/ should be (integration.release_layout).

For each run RUN of MNT, a staging directory gets the artifacts bucket's layout
({run_id}-linux/tarballs/, python/, packages/{deb,rpm}/) with one small file for each file
the run's views serve (its text: "RUN/<view path>", so that a copy says where it came
from). Then upstream's own code, vendored unchanged in upstream_therock/, runs offline on
it through its LocalStorageBackend:
  publish_rocm_to_release_buckets.py: publish_tarballs, publish_python_packages
  (structured, whl-next) and publish_native_linux_packages, the run's release type "nightly"
  when its version carries a day (X.Y.ZaYYYYMMDD), else "dev";
  manage_structured.py: the whl-next pages (build_index_pages, write_root);
  generate_package_indexes.py: the pages of every packages/<kind>/<day>-<run id>/ and of
  packages/<kind>/ (generate_index_from_s3, generate_top_index_from_s3, over a local
  stand-in of the S3 client).
publish_native_linux_packages names the directory after datetime.date.today(), the day
it runs in the run's own workflow: the oracle gives it the day the run's version
carries, "00000000" for a version with none (rockfs's rule, docs/views.md "release/").
The release buckets' v5/rocm/core/ trees (dev and nightly are different buckets; the
LocalStorageBackend lays every bucket into one directory) are merged into OUT, every file as the run view path it was copied from ("RUN/..."), the
index pages as written, less manage_structured's last line (<!--TIMESTAMP now-->).
Then it compares OUT with RELEASE (default MNT/release): the same paths (RELEASE has its
README more), each page the same bytes, each other file a symlink that resolves, inside
the mount, to the run view file it names. Exit 1 on a difference, saying which.
"""

import datetime
import json
import os
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
UP = HERE / "upstream_therock" / "build_tools"
sys.path[:0] = [str(UP), str(UP / "github_actions"), str(UP / "packaging" / "python"),
                str(UP / "packaging" / "linux")]
sys.modules.setdefault("boto3", type(sys)("boto3"))  # imported, never used offline
bc = type(sys)("botocore")
for sub in ("client", "exceptions", "config"):
    setattr(bc, sub, type(sys)("botocore." + sub))
    sys.modules["botocore." + sub] = getattr(bc, sub)
bc.client.BaseClient = object
sys.modules.setdefault("botocore", bc)

import publish_rocm_to_release_buckets as publish  # noqa: E402
import manage_structured  # noqa: E402
import generate_package_indexes as pkgidx  # noqa: E402
from _therock_utils.storage_backend import LocalStorageBackend  # noqa: E402
from _therock_utils.workflow_outputs import WorkflowOutputRoot  # noqa: E402


class LocalS3:
    """The part of boto3's S3 client generate_package_indexes.py uses, over a local
    directory laid out as LocalStorageBackend lays buckets out (keys below the directory,
    whatever the bucket)."""

    def __init__(self, root):
        self.root = Path(root)

    def get_paginator(self, name):
        assert name == "list_objects_v2"
        return self

    def paginate(self, Bucket, Prefix, Delimiter=None):
        base = self.root
        keys = sorted(p.relative_to(base).as_posix() for p in base.rglob("*") if p.is_file())
        keys = [k for k in keys if k.startswith(Prefix)]
        if not Delimiter:
            yield {"Contents": [{"Key": k} for k in keys]} if keys else {}
            return
        cps, contents = set(), []
        for k in keys:
            rest = k[len(Prefix):]
            if Delimiter in rest:
                cps.add(Prefix + rest.split(Delimiter)[0] + Delimiter)
            else:
                contents.append({"Key": k})
        yield {"CommonPrefixes": [{"Prefix": p} for p in sorted(cps)], "Contents": contents}

    def put_object(self, Bucket, Key, Body, ContentType=None):
        p = self.root / Key
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(Body)


def run_day(version):
    m = re.search(r"a(\d{8})", version or "")
    return m.group(1) if m else None


class FixedDay:
    def __init__(self, day):
        self.day = day

    def strftime(self, fmt):
        assert fmt == "%Y%m%d"
        return self.day


def stage(mnt, run, root, staging):
    """Lay the run's served files out as the artifacts bucket holds them."""
    places = [("tarballs", root.tarballs()), ("python/files", root.python_packages()),
              ("packages/deb", root.native_linux_packages("deb")),
              ("packages/rpm", root.native_linux_packages("rpm"))]
    for view, loc in places:
        src = Path(mnt) / run / view
        if not src.is_dir():
            continue
        dst = loc.local_path(staging)
        for p in src.rglob("*"):
            if p.is_dir() and not p.is_symlink():
                continue
            rel = p.relative_to(src).as_posix()
            if view == "python/files" and not rel.endswith((".whl", ".tar.gz", ".zip")):
                continue
            if view.startswith("packages/") and rel.endswith("index.html"):
                continue  # pages are written again from what is copied
            out = dst / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(f"{run}/{view}/{rel}")


def main(mnt, out):
    staging = Path(out + ".staging")
    staging.mkdir(parents=True)
    backend = LocalStorageBackend(staging)
    runs = sorted(d for d in os.listdir(mnt) if re.fullmatch(r"\d+-(linux|windows)", d))
    for run in runs:
        run_id, platform = run.rsplit("-", 1)
        try:
            with open(Path(mnt) / run / "manifests" / "therock_manifest.json") as f:
                version = json.load(f).get("rocm_package_version")
        except FileNotFoundError:
            version = None
        day = run_day(version)
        rtype = "nightly" if day else "dev"
        root = WorkflowOutputRoot.from_workflow_run(run_id=run_id, platform=platform,
                                                    release_type=rtype)
        stage(mnt, run, root, staging)
        publish.datetime = type(sys)("datetime_stub")
        publish.datetime.date = type("date", (), {"today": staticmethod(
            lambda: FixedDay(day or "00000000"))})
        if (Path(mnt) / run / "tarballs").is_dir():
            publish.publish_tarballs(root, rtype, backend)
        if (Path(mnt) / run / "python" / "files").is_dir():
            publish.publish_python_packages(root, rtype, backend, kpack_split=True,
                                            structured=True, index="whl-next")
        if platform == "linux" and (Path(mnt) / run / "packages").is_dir():
            publish.publish_native_linux_packages(root, rtype, backend)
            pkgs = publish.get_product_release_bucket_config(rtype, "core").name
            s3 = LocalS3(staging)
            for kind in ("deb", "rpm"):
                pkgidx.generate_index_from_s3(
                    s3, pkgs, f"v5/rocm/core/packages/{kind}/{day or '00000000'}-{run_id}")
    merged = Path(out)
    merged.mkdir(parents=True)
    core = staging / "v5" / "rocm" / "core"  # every bucket's: local_path has no bucket
    for p in sorted(core.rglob("*")) if core.is_dir() else []:
        if p.is_file():
            q = merged / p.relative_to(core)
            q.parent.mkdir(parents=True, exist_ok=True)
            q.write_bytes(p.read_bytes())
    # the pages over the merged tree: whl-next/ (all runs' projects) and packages/<kind>/
    whl = merged / "whl-next"
    if whl.is_dir():
        keys = [f"whl-next/{p.relative_to(whl).as_posix()}" for p in whl.rglob("*")
                if p.is_file()]
        for page in manage_structured.build_index_pages(
                manage_structured.discover_packages(keys, "whl-next"), "whl-next",
                write_root=True):
            text = page.html.rsplit("\n", 1)
            assert text[1].startswith("<!--TIMESTAMP ")
            (merged / page.key).write_text(text[0])
    for kind in ("deb", "rpm"):
        if (merged / "packages" / kind).is_dir():
            pkgidx.generate_top_index_from_s3(LocalS3(merged), "-", f"packages/{kind}")


def compare(mnt, out, release):
    mnt, out, release = Path(mnt).resolve(), Path(out), Path(release)
    want = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    got = {p.relative_to(release).as_posix() for p in release.rglob("*")
           if p.is_symlink() or p.is_file()} - {"README"}
    # beyond upstream (integration.release_all_repos checks them): the all-runs repositories
    got = {x for x in got if not re.match(r"packages/(deb|rpm)/(all/|latest$)", x)}
    bad = [f"only in the oracle: {x}" for x in sorted(want - got)]
    bad += [f"only in release/: {x}" for x in sorted(got - want)]
    for x in sorted(want & got):
        o, r = out / x, release / x
        if x.endswith("index.html"):
            if r.is_symlink() or o.read_bytes() != r.read_bytes():
                bad.append(f"{x}: the page differs from upstream's")
            continue
        if not r.is_symlink():
            bad.append(f"{x}: not a symlink")
            continue
        target = os.path.normpath(os.path.join(os.path.dirname(r), os.readlink(r)))
        if os.path.relpath(target, mnt) != o.read_text():
            bad.append(f"{x}: -> {os.path.relpath(target, mnt)}, upstream copies "
                       f"{o.read_text()}")
    for b in bad:
        print(b)
    print(f"{len(want)} files, {len(bad)} differences")
    return 1 if bad else 0


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
    sys.exit(compare(sys.argv[1], sys.argv[2],
                     sys.argv[3] if len(sys.argv) > 3 else sys.argv[1] + "/release"))
