#!/usr/bin/env python3
"""Tests of the rocm_sdk package and the rocm sdist files (core/python/).

Each test lays out, in a temporary directory, a site-packages as pip leaves it
after installing the wheels rockfs synthesizes (docs/therock-formats.md 6.1,
6.3, 6.4): pure packages with _dist_info.py, platform directories, dist-info
directories with METADATA and RECORD, a real rocm_sdk_devel/_devel.tar. Then it
runs `python3 -m rocm_sdk` (and the console entry point) with PYTHONPATH on
it. The last test installs a hand-made `rocm` sdist and wheels into a real venv
with pip, offline (skipped, exit 77, only when no venv can be made).

Run: python3 tests/python/test_rocm_sdk.py [-v] [TestClass ...]
"""

import base64
import contextlib
import csv
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
PYSRC = Path(os.environ.get("RK_PYSRC_DIR", HERE.parent.parent / "core" / "python"))
TEMPLATE = (PYSRC / "rocm_sdk" / "_dist_info.py").read_text()
V = "7.13.0.dev0+abc1234"
KPACK_FAMILIES = ["gfx1100", "gfx942:xnack+", "gfx942"]
LEGACY_FAMILIES = ["gfx110X-all", "gfx94X-dcgpu"]
DEBIAN_WHEELS = Path("/usr/share/python-wheels")


def dist_info_lines(kpack, families, default, this_entry, this_family=None,
                    version=V):
    """The lines the C side appends to _dist_info.py (therock-formats.md 6.5)."""
    lines = ["__version__ = %r" % version, "PY_PACKAGE_SUFFIX_NONCE = ''"]
    if kpack:
        lines.append('ALL_PACKAGES["libraries"].dist_package_template = "rocm-sdk-libraries"')
    lines.append("DEFAULT_TARGET_FAMILY = %r" % default)
    lines += ["AVAILABLE_TARGET_FAMILIES.append(%r)" % f for f in families]
    lines += ["LINUX_TARGET_FAMILIES.append(%r)" % f for f in families]
    lines.append("THIS_TARGET_FAMILY = %r" % this_family)
    lines.append("THIS_PACKAGE_ENTRY = %s" % this_entry)
    return TEMPLATE + "\n".join(lines) + "\n"


class _Env:
    """os.environ with ROCM_SDK_TARGET_FAMILY unset, no offload-arch on PATH,
    plus env, for the duration of a with block."""

    def __init__(self, env):
        self.env = env

    def __enter__(self):
        self.saved = dict(os.environ)
        os.environ.pop("ROCM_SDK_TARGET_FAMILY", None)
        os.environ["PATH"] = "/nonexistent"
        os.environ.update(self.env or {})

    def __exit__(self, *exc):
        os.environ.clear()
        os.environ.update(self.saved)


def load_dist_info(text, env=None):
    """Runs a _dist_info.py text as setup.py does (a fresh module); its
    functions run with the environment env (see _Env)."""
    ns = {"__name__": "rocm_sdk_dist_info"}
    with _Env(env):
        exec(compile(text, "_dist_info.py", "exec"), ns)

    def wrap(f):
        def call(*a, **kw):
            with _Env(env):
                return f(*a, **kw)
        return call

    return {k: wrap(v) if callable(v) and not isinstance(v, type) else v
            for k, v in ns.items()}


def tar_member(tf, name, data=None, link=None, kind=None, mode=0o644):
    ti = tarfile.TarInfo(name)
    ti.mtime = 1700000000
    ti.mode = mode
    if link is not None:
        ti.type = kind or tarfile.SYMTYPE
        ti.linkname = link
        tf.addfile(ti)
    elif kind == tarfile.DIRTYPE:
        ti.type = tarfile.DIRTYPE
        ti.mode = 0o755
        tf.addfile(ti)
    else:
        ti.size = len(data)
        tf.addfile(ti, io.BytesIO(data))


def good_devel_tar(path, dangling=True):
    """A devel tarball as rockfs writes it: files of runtime wheels are relative
    symlinks into them, a soname alias, a directory symlink, plain files."""
    with tarfile.open(path, "w", format=tarfile.PAX_FORMAT) as tf:
        tar_member(tf, "_rocm_sdk_devel/lib/libamdhip64.so.7",
                   link="../../_rocm_sdk_core/lib/libamdhip64.so.7")
        tar_member(tf, "_rocm_sdk_devel/lib/libamdhip64.so", link="libamdhip64.so.7")
        tar_member(tf, "_rocm_sdk_devel/lib/llvm", link="../../_rocm_sdk_core/lib/llvm")
        tar_member(tf, "_rocm_sdk_devel/bin/hipcc", link="../../_rocm_sdk_core/bin/hipcc")
        tar_member(tf, "_rocm_sdk_devel/bin/hipconfig", b"#!/bin/sh\necho 7\n", mode=0o755)
        tar_member(tf, "_rocm_sdk_devel/lib/cmake/hip/hip-config.cmake", b"# hip\n")
        tar_member(tf, "_rocm_sdk_devel/include/hip/hip_runtime.h", b"#pragma once\n")
        if dangling:
            tar_member(tf, "_rocm_sdk_devel/share/dangling", link="../nothing/here")


class FakeSite:
    """A site-packages with the rocm packages, as pip installs them."""

    def __init__(self, root, *, kpack=True, libraries=True, devel=True,
                 devices=("gfx1100",), families=None, default=None, devel_tar=None,
                 legacy_libraries=("gfx110X-all",), devel_name="_devel.tar"):
        self.site = Path(root) / "site-packages"
        self.site.mkdir(parents=True)
        self.kpack = kpack
        self.families = families or (KPACK_FAMILIES if kpack else LEGACY_FAMILIES)
        self.default = default or self.families[0]
        self.files = {}  # dist name -> [relpath]
        shutil.copytree(str(PYSRC / "rocm_sdk"), str(self.site / "rocm_sdk"),
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        (self.site / "rocm_sdk" / "_dist_info.py").write_text(self.dist_info("None"))
        self.files["rocm"] = [p.relative_to(self.site).as_posix()
                              for p in (self.site / "rocm_sdk").rglob("*") if p.is_file()]

        self.wheel("rocm-sdk-core", "rocm_sdk_core", "core")
        self.add("rocm-sdk-core", "_rocm_sdk_core/lib/libamdhip64.so.7", b"\x7fELF hip")
        self.add("rocm-sdk-core", "_rocm_sdk_core/lib/llvm/bin/clang", b"clang", 0o755)
        self.add("rocm-sdk-core", "_rocm_sdk_core/bin/hipcc", b"#!/bin/sh\n", 0o755)
        libz = self.system_libz()
        if libz:
            self.add("rocm-sdk-core", "_rocm_sdk_core/lib/libz.so.1", libz.read_bytes())
        if libraries and kpack:
            self.wheel("rocm-sdk-libraries", "rocm_sdk_libraries", "libraries")
            self.add("rocm-sdk-libraries", "_rocm_sdk_libraries/lib/libhipblas.so.3", b"blas")
            self.add("rocm-sdk-libraries", "_rocm_sdk_libraries/lib/libMIOpen.so.1", b"miopen")
        if libraries and not kpack:
            for fam in legacy_libraries:
                dist = "rocm-sdk-libraries-" + fam
                self.wheel(dist, "rocm_sdk_libraries", "libraries", fam)
                plat = "_" + dist.replace("-", "_")
                self.add(dist, plat + "/lib/libhipblas.so.3", fam.encode())
        for target in devices if kpack else ():
            dist = "rocm-sdk-device-" + target
            rel = "lib/hipblaslt/library/kernels_%s.co" % target
            self.add(dist, "_rocm_sdk_libraries/" + rel, target.encode())
            manifest = {"version": V, "links": [
                {"relpath": rel, "target": "../../../../_rocm_sdk_libraries/" + rel}]}
            self.add(dist, "_rocm_sdk_libraries/.devel_links/%s.json" % target,
                     json.dumps(manifest).encode())
        if devel:
            self.wheel("rocm-sdk-devel", "rocm_sdk_devel", "devel")
            tar = self.site / "rocm_sdk_devel" / devel_name
            (devel_tar or good_devel_tar)(tar)
            self.files["rocm-sdk-devel"].append("rocm_sdk_devel/" + devel_name)
        for dist in self.files:
            self.write_dist_info(dist)

    @staticmethod
    def system_libz():
        for d in ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64",
                  "/usr/lib64", "/lib", "/usr/lib", "/lib/aarch64-linux-gnu"):
            p = Path(d) / "libz.so.1"
            if p.is_file():
                return p.resolve()
        return None

    def dist_info(self, entry, family=None):
        return dist_info_lines(self.kpack, self.families, self.default, entry, family)

    def wheel(self, dist, pure, logical, family=None):
        d = self.site / pure
        d.mkdir(exist_ok=True)
        shutil.copy(str(PYSRC / "pure" / "__init__.py"), str(d / "__init__.py"))
        (d / "_dist_info.py").write_text(
            self.dist_info("ALL_PACKAGES[%r]" % logical, family))
        self.files.setdefault(dist, []).extend(
            [pure + "/__init__.py", pure + "/_dist_info.py"])

    def add(self, dist, rel, data, mode=0o644):
        p = self.site / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
        p.chmod(mode)
        self.files.setdefault(dist, []).append(rel)

    def dist_info_dir(self, dist):
        return self.site / ("%s-%s.dist-info" % (dist.replace("-", "_"), V))

    def write_dist_info(self, dist):
        d = self.dist_info_dir(dist)
        d.mkdir()
        (d / "METADATA").write_text(
            "Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (dist, V))
        (d / "INSTALLER").write_text("pip\n")
        rows = []
        for rel in self.files[dist] + [d.name + "/METADATA", d.name + "/INSTALLER"]:
            data = (self.site / rel).read_bytes()
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            rows.append("%s,sha256=%s,%d" % (rel, digest.decode(), len(data)))
        rows.append(d.name + "/RECORD,,")
        (d / "RECORD").write_text("\n".join(rows) + "\n")

    def record(self, dist):
        return (self.dist_info_dir(dist) / "RECORD").read_text()

    def run(self, *args, env=None, code=None):
        """Runs python3 with this site first on sys.path; returns the result."""
        e = dict(os.environ)
        e.pop("ROCM_SDK_TARGET_FAMILY", None)
        e.pop("ROCM_SDK_PRELOAD_LIBRARIES", None)
        e["PYTHONPATH"] = str(self.site)
        e["PATH"] = "/usr/bin:/bin"  # no offload-arch
        e["PYTHONDONTWRITEBYTECODE"] = "1"
        e.update(env or {})
        cmd = [sys.executable, "-c", code] if code else [sys.executable, "-m", "rocm_sdk"]
        return subprocess.run(cmd + list(args), env=e, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True, timeout=120,
                              cwd=str(self.site.parent))

    def cli(self, *args, env=None):
        return self.run(*args, env=env)

    def entry_point(self, *args, env=None):
        # What pip's generated `rocm-sdk` script does.
        return self.run(*args, env=env, code=(
            "import sys; sys.argv[0] = 'rocm-sdk'; from rocm_sdk.__main__ import main; "
            "sys.exit(main())"))


class SiteTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="rocm_sdk_test.")
        self.tmp = Path(self._tmp.name)

    def tearDown(self):
        self._tmp.cleanup()

    def ok(self, result):
        self.assertEqual(result.returncode, 0, "stdout=%s\nstderr=%s"
                         % (result.stdout, result.stderr))
        return result.stdout


class CommandTest(SiteTest):
    def test_version(self):
        s = FakeSite(self.tmp)
        self.assertEqual(self.ok(s.cli("version")), V + "\n")
        self.assertEqual(self.ok(s.entry_point("version")), V + "\n")
        self.assertEqual(self.ok(s.run(code="import rocm_sdk; print(rocm_sdk.__version__)")),
                         V + "\n")

    def test_usage_errors(self):
        s = FakeSite(self.tmp)
        self.assertNotEqual(s.cli().returncode, 0)
        self.assertNotEqual(s.cli("path").returncode, 0)
        self.assertNotEqual(s.cli("path", "--root", "--bin").returncode, 0)

    def test_targets_as_upstream(self):
        # upstream prints the core's share/therock/dist_info.json dist_amdgpu_targets
        s = FakeSite(self.tmp, devices=("gfx1100",))
        s.add("rocm-sdk-core", "_rocm_sdk_core/__init__.py", b"")  # as the core wheel has
        s.add("rocm-sdk-core", "_rocm_sdk_core/share/therock/dist_info.json",
              b'{"dist_amdgpu_targets": "gfx1100;gfx942"}')
        self.assertEqual(self.ok(s.entry_point("targets")), "gfx1100;gfx942\n")
        self.assertEqual(self.ok(s.cli("targets")), "gfx1100;gfx942\n")

    def test_targets_without_dist_info(self):
        s = FakeSite(self.tmp, devices=("gfx1100",))
        r = s.cli("targets")
        self.assertEqual(r.returncode, 1)
        self.assertIn("dist_info.json", r.stderr)

    def test_targets_kpack(self):
        s = FakeSite(self.tmp, devices=("gfx1100",))
        self.assertEqual(self.ok(s.entry_point("targets", "--installed")), "gfx1100\n")
        self.assertEqual(self.ok(s.cli("targets", "--available")),
                         "gfx1100\ngfx942:xnack+\ngfx942\n")

    def test_targets_without_devices(self):
        s = FakeSite(self.tmp, devices=())
        self.assertEqual(self.ok(s.cli("targets", "--installed")), "")

    def test_targets_uninstalled_device(self):
        # pip uninstall of a device package whose .devel_links file stayed (a file pip
        # did not install, or an interrupted uninstall): its metadata decides
        s = FakeSite(self.tmp, devices=("gfx1100", "gfx942"))
        shutil.rmtree(str(s.dist_info_dir("rocm-sdk-device-gfx942")))
        self.assertEqual(self.ok(s.cli("targets", "--installed")), "gfx1100\n")

    def test_targets_legacy_uninstalled(self):
        s = FakeSite(self.tmp, kpack=False, legacy_libraries=("gfx110X-all", "gfx94X-dcgpu"))
        shutil.rmtree(str(s.dist_info_dir("rocm-sdk-libraries-gfx110X-all")))
        self.assertEqual(self.ok(s.cli("targets", "--installed")), "gfx94X-dcgpu\n")

    def test_targets_legacy(self):
        s = FakeSite(self.tmp, kpack=False, legacy_libraries=("gfx94X-dcgpu",))
        self.assertEqual(self.ok(s.cli("targets", "--installed")), "gfx94X-dcgpu\n")
        self.assertEqual(self.ok(s.cli("targets", "--available")),
                         "gfx110X-all\ngfx94X-dcgpu\n")


class DevelTest(SiteTest):
    def test_path_expands(self):
        s = FakeSite(self.tmp)
        site = s.site
        record_before = s.record("rocm-sdk-devel")
        root = site / "_rocm_sdk_devel"
        self.assertFalse(root.exists())
        self.assertEqual(self.ok(s.cli("path", "--root")), "%s\n" % root)
        self.assertEqual(self.ok(s.entry_point("path", "--bin")), "%s\n" % (root / "bin"))
        self.assertEqual(self.ok(s.cli("path", "--cmake")), "%s\n" % (root / "lib" / "cmake"))

        # file symlinks became hardlinks to the runtime wheel's files
        core_hip = site / "_rocm_sdk_core/lib/libamdhip64.so.7"
        for name in ("lib/libamdhip64.so.7", "lib/libamdhip64.so"):
            p = root / name
            self.assertFalse(p.is_symlink(), name)
            self.assertEqual(p.stat().st_ino, core_hip.stat().st_ino, name)
        self.assertEqual((root / "bin/hipcc").stat().st_ino,
                         (site / "_rocm_sdk_core/bin/hipcc").stat().st_ino)
        # directory symlinks stay symlinks; dangling ones too
        llvm = root / "lib/llvm"
        self.assertTrue(llvm.is_symlink())
        self.assertEqual(os.readlink(str(llvm)), "../../_rocm_sdk_core/lib/llvm")
        self.assertEqual((llvm / "bin/clang").read_bytes(), b"clang")
        self.assertTrue((root / "share/dangling").is_symlink())
        # plain files, with their modes
        self.assertEqual((root / "lib/cmake/hip/hip-config.cmake").read_bytes(), b"# hip\n")
        self.assertTrue(os.access(str(root / "bin/hipconfig"), os.X_OK))
        # the tarball is gone, RECORD lists the new files once
        self.assertFalse((site / "rocm_sdk_devel/_devel.tar").exists())
        record = s.record("rocm-sdk-devel")
        self.assertTrue(record.startswith(record_before))
        added = record[len(record_before):].splitlines()
        self.assertIn("_rocm_sdk_devel/lib/libamdhip64.so.7,,", added)
        self.assertIn("_rocm_sdk_devel/lib/llvm,,", added)
        self.assertIn("_rocm_sdk_devel/include/hip/hip_runtime.h,,", added)
        self.assertIn("_rocm_sdk_devel/__init__.py,,", added)
        # the device wheel's files were linked into the tree and recorded in its RECORD
        # and in rocm-sdk-devel's (pip then removes the tree whole, in any order)
        rel = "lib/hipblaslt/library/kernels_gfx1100.co"
        self.assertEqual((root / rel).stat().st_ino,
                         (site / "_rocm_sdk_libraries" / rel).stat().st_ino)
        self.assertIn("_rocm_sdk_devel/%s,," % rel, s.record("rocm-sdk-device-gfx1100"))
        self.assertIn("_rocm_sdk_devel/%s,," % rel, added)
        self.assertEqual(len(added), 10)

    def test_xz_tarball(self):
        def make(path):
            plain = self.tmp / "plain.tar"
            good_devel_tar(plain)
            import lzma
            path.write_bytes(lzma.compress(plain.read_bytes()))

        s = FakeSite(self.tmp, devel_tar=make, devel_name="_devel.tar.xz")
        self.assertEqual(self.ok(s.cli("path", "--root")), "%s\n" % (s.site / "_rocm_sdk_devel"))
        self.assertTrue((s.site / "_rocm_sdk_devel/include/hip/hip_runtime.h").is_file())
        self.assertFalse((s.site / "rocm_sdk_devel/_devel.tar.xz").exists())

    def test_init_idempotent(self):
        s = FakeSite(self.tmp)
        out = self.ok(s.cli("init"))
        self.assertIn(str(s.site / "_rocm_sdk_devel"), out)
        records = (s.record("rocm-sdk-devel"), s.record("rocm-sdk-device-gfx1100"))
        self.assertEqual(self.ok(s.cli("init", "--quiet")), "")
        self.ok(s.cli("path", "--root"))
        self.assertEqual(records, (s.record("rocm-sdk-devel"),
                                   s.record("rocm-sdk-device-gfx1100")))

    def test_interrupted_expansion_is_redone(self):
        s = FakeSite(self.tmp)
        (s.site / "_rocm_sdk_devel/lib").mkdir(parents=True)
        (s.site / "_rocm_sdk_devel/lib/partial").write_text("x")
        self.ok(s.cli("init"))
        self.assertFalse((s.site / "_rocm_sdk_devel/lib/partial").exists())
        self.assertTrue((s.site / "_rocm_sdk_devel/include/hip/hip_runtime.h").is_file())

    def test_concurrent_expansion(self):
        s = FakeSite(self.tmp)
        e = dict(os.environ, PYTHONPATH=str(s.site))
        procs = [subprocess.Popen([sys.executable, "-m", "rocm_sdk", "path", "--root"],
                                  env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                 for _ in range(4)]
        for p in procs:
            out, err = p.communicate(timeout=120)
            self.assertEqual(p.returncode, 0, err)
        record = s.record("rocm-sdk-devel")
        self.assertEqual(record.count("_rocm_sdk_devel/lib/libamdhip64.so.7,,"), 1)

    def test_device_links_checked(self):
        s = FakeSite(self.tmp, devices=("gfx1100", "gfx942"))
        links = s.site / "_rocm_sdk_libraries/.devel_links"
        good = "lib/hipblaslt/library/kernels_gfx1100.co"
        (links / "gfx1100.json").write_text(json.dumps({"version": V, "links": [
            {"relpath": "lib/llvm/evil.co", "target": "../../../_rocm_sdk_libraries/" + good},
            {"relpath": "../evil.co", "target": "../_rocm_sdk_libraries/" + good},
            {"relpath": "lib/passwd", "target": "../../../../../../../../etc/passwd"},
            {"relpath": good, "target": "../../../../_rocm_sdk_libraries/" + good},
        ]}))
        manifest = json.loads((links / "gfx942.json").read_text())
        manifest["version"] = "7.12.0"
        (links / "gfx942.json").write_text(json.dumps(manifest))
        r = s.cli("init")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("lib/llvm/evil.co", r.stderr)
        self.assertIn("7.12.0", r.stderr)
        root = s.site / "_rocm_sdk_devel"
        self.assertFalse((s.site / "_rocm_sdk_core/lib/llvm/evil.co").exists())
        self.assertFalse((s.site / "evil.co").exists())
        self.assertFalse((root / "lib/passwd").exists())
        self.assertTrue((root / good).is_file())
        self.assertFalse((root / "lib/hipblaslt/library/kernels_gfx942.co").exists())
        # a device wheel installed later is linked by the next init
        manifest["version"] = V
        (links / "gfx942.json").write_text(json.dumps(manifest))
        self.ok(s.cli("init", "--quiet"))
        self.assertTrue((root / "lib/hipblaslt/library/kernels_gfx942.co").is_file())
        self.assertIn("_rocm_sdk_devel/lib/hipblaslt/library/kernels_gfx942.co,,",
                      s.record("rocm-sdk-device-gfx942"))

    def test_devel_not_installed(self):
        s = FakeSite(self.tmp, devel=False)
        for args in (("path", "--root"), ("init",)):
            r = s.cli(*args)
            self.assertEqual(r.returncode, 1)
            self.assertEqual(r.stdout, "")
            self.assertIn("rocm[devel]", r.stderr)
            self.assertNotIn("Traceback", r.stderr)

    def hostile(self, members, *, name):
        def make(path):
            with tarfile.open(path, "w", format=tarfile.GNU_FORMAT) as tf:
                tar_member(tf, "_rocm_sdk_devel/include/ok.h", b"ok")
                for m in members:
                    tar_member(tf, *m[:2], **m[2] if len(m) > 2 else {})

        root = self.tmp / name
        root.mkdir()
        s = FakeSite(root, devel_tar=make)
        before = sorted(str(p) for p in root.rglob("*"))
        record = s.record("rocm-sdk-devel")
        r = s.cli("path", "--root")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("refusing", r.stderr)
        self.assertNotIn("Traceback", r.stderr)
        self.assertEqual(r.stdout, "")
        # nothing written anywhere, the tarball kept, RECORD unchanged
        self.assertEqual(before, sorted(str(p) for p in root.rglob("*")))
        self.assertEqual(record, s.record("rocm-sdk-devel"))
        self.assertTrue((s.site / "rocm_sdk_devel/_devel.tar").is_file())
        self.assertFalse((root / "evil").exists())
        self.assertEqual(sorted(os.listdir(str(self.tmp))), sorted(self.seen + [name]))
        self.seen.append(name)

    def test_hostile_tarballs(self):
        self.seen = []
        self.hostile([("../evil", b"x")], name="dotdot")
        self.hostile([("/tmp/rocm_sdk_test_evil", b"x")], name="absolute")
        self.hostile([("_rocm_sdk_devel/../../evil", b"x")], name="inner_dotdot")
        self.hostile([("_rocm_sdk_core/lib/evil", b"x")], name="other_package")
        self.hostile([("_rocm_sdk_devel/out", None, {"link": "../../evil"})],
                     name="symlink_out")
        self.hostile([("_rocm_sdk_devel/abs", None, {"link": "/etc/passwd"})],
                     name="symlink_abs")
        # lexically inside, but "b" is site-packages itself, so "c" is its parent
        self.hostile([("_rocm_sdk_devel/c", None, {"link": "b/../.."}),
                      ("_rocm_sdk_devel/b", None, {"link": ".."})], name="symlink_chain")
        self.hostile([("_rocm_sdk_devel/b", None, {"link": ".."}),
                      ("_rocm_sdk_devel/c", None, {"link": "b/.."})], name="symlink_chain2")
        # a file written through a directory symlink of the tarball
        self.hostile([("_rocm_sdk_devel/d", None, {"link": "../_rocm_sdk_core/lib"}),
                      ("_rocm_sdk_devel/d/evil", b"x")], name="through_symlink")
        self.hostile([("_rocm_sdk_devel/h", None,
                       {"link": "_rocm_sdk_core/lib/libamdhip64.so.7", "kind": tarfile.LNKTYPE})],
                     name="hardlink_out")
        self.hostile([("_rocm_sdk_devel/fifo", None, {"link": "", "kind": tarfile.FIFOTYPE})],
                     name="fifo")
        self.assertFalse(os.path.exists("/tmp/rocm_sdk_test_evil"))


class LibraryTest(SiteTest):
    FIND = ("import sys, rocm_sdk\n"
            "try:\n"
            "    print('\\n'.join(str(p) for p in rocm_sdk.find_libraries(*sys.argv[1:])))\n"
            "except (ModuleNotFoundError, FileNotFoundError, ValueError) as e:\n"
            "    print(type(e).__name__, e)\n")

    def find(self, site, *names, env=None):
        return self.ok(site.run(*names, code=self.FIND, env=env)).strip()

    def test_find_libraries(self):
        s = FakeSite(self.tmp)
        self.assertEqual(self.find(s, "amdhip64", "hipblas", "miopen").splitlines(), [
            str(s.site / "_rocm_sdk_core/lib/libamdhip64.so.7"),
            str(s.site / "_rocm_sdk_libraries/lib/libhipblas.so.3"),
            str(s.site / "_rocm_sdk_libraries/lib/libMIOpen.so.1")])
        out = self.find(s, "amdhip64", "nosuchlib")
        self.assertTrue(out.startswith("FileNotFoundError"), out)
        self.assertIn("nosuchlib", out)

    def test_find_libraries_missing_extra(self):
        s = FakeSite(self.tmp, libraries=False, devices=())
        self.assertEqual(self.find(s, "amdhip64"),
                         str(s.site / "_rocm_sdk_core/lib/libamdhip64.so.7"))
        out = self.find(s, "hipblas")
        self.assertTrue(out.startswith("ModuleNotFoundError"), out)
        self.assertIn("rocm[libraries]", out)

    def test_target_family_selection(self):
        s = FakeSite(self.tmp, kpack=False, legacy_libraries=LEGACY_FAMILIES)
        lib = "lib/libhipblas.so.3"
        self.assertEqual(self.find(s, "hipblas"),
                         str(s.site / "_rocm_sdk_libraries_gfx110X_all" / lib))
        self.assertEqual(
            self.find(s, "hipblas", env={"ROCM_SDK_TARGET_FAMILY": "gfx94X-dcgpu"}),
            str(s.site / "_rocm_sdk_libraries_gfx94X_dcgpu" / lib))
        out = self.find(s, "hipblas", env={"ROCM_SDK_TARGET_FAMILY": "gfx1201"})
        self.assertTrue(out.startswith("ValueError"), out)
        self.assertIn("gfx1201", out)
        self.assertIn("available: gfx110X-all, gfx94X-dcgpu", out)

    def test_initialize_process_preloads(self):
        s = FakeSite(self.tmp)
        lib = s.site / "_rocm_sdk_core/lib/libz.so.1"
        if not lib.exists():
            self.skipTest("no system libz.so.1 to copy")
        code = ("import warnings, rocm_sdk\n"
                "warnings.simplefilter('error')\n"
                "rocm_sdk.initialize_process(preload_shortnames=['z'], "
                "library_shortnames=['amdhip64'])\n"
                "print(open('/proc/self/maps').read())\n")
        self.assertIn(str(lib), self.ok(s.run(code=code)))
        # ROCM_SDK_PRELOAD_LIBRARIES, as upstream
        out = self.ok(s.run(code="import rocm_sdk\nrocm_sdk.initialize_process()\n"
                            "print(open('/proc/self/maps').read())\n",
                            env={"ROCM_SDK_PRELOAD_LIBRARIES": " z ; "}))
        self.assertIn(str(lib), out)
        r = s.run(code="import rocm_sdk\nrocm_sdk.initialize_process(['nosuch'])")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("FileNotFoundError", r.stderr)

    def test_check_version(self):
        s = FakeSite(self.tmp)
        code = ("import warnings, rocm_sdk\n"
                "with warnings.catch_warnings(record=True) as w:\n"
                "    warnings.simplefilter('always')\n"
                "    rocm_sdk.initialize_process(%s)\n"
                "print(len(w), *[str(x.message) for x in w])\n")
        self.assertEqual(self.ok(s.run(code=code % "")).strip(), "0")
        self.assertEqual(self.ok(s.run(code=code % "check_version='7.13.*'")).strip(), "0")
        out = self.ok(s.run(code=code % "check_version='7.12.*'"))
        self.assertTrue(out.startswith("1 "), out)
        # an installed package of another version
        meta = s.dist_info_dir("rocm-sdk-libraries") / "METADATA"
        meta.write_text(meta.read_text().replace(V, "7.12.0"))
        out = self.ok(s.run(code=code % ""))
        self.assertTrue(out.startswith("1 "), out)
        self.assertIn("rocm-sdk-libraries 7.12.0", out)
        r = s.run(code="import rocm_sdk\n"
                  "rocm_sdk.initialize_process(fail_on_version_mismatch=True)")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("RuntimeError", r.stderr)
        self.assertEqual(self.ok(s.run(code=code % "check_version=False")).strip(), "0")


class MetadataTest(unittest.TestCase):
    def test_kpack(self):
        di = load_dist_info(dist_info_lines(True, KPACK_FAMILIES, "gfx1100", "None"))
        pin = "==" + V
        self.assertEqual(di["build_install_requires"](), ["rocm-sdk-core" + pin])
        self.assertEqual(di["build_extras_require"](), {
            "libraries": ["rocm-sdk-libraries" + pin],
            "device": ["rocm-sdk-device-gfx1100" + pin],
            "devel": ["rocm-sdk-devel" + pin],
            "profiler": ["rocm-profiler" + pin],
            "device-gfx1100": ["rocm-sdk-device-gfx1100" + pin],
            "device-gfx942": ["rocm-sdk-device-gfx942" + pin],
            "device-all": ["rocm-sdk-device-gfx1100" + pin, "rocm-sdk-device-gfx942" + pin],
        })
        self.assertEqual(di["get_py_package_name"]("rocm-sdk-core"), "_rocm_sdk_core")
        # the family's base target decides the device package
        di = load_dist_info(dist_info_lines(True, KPACK_FAMILIES, "gfx1100", "None"),
                            env={"ROCM_SDK_TARGET_FAMILY": "gfx942:xnack+"})
        self.assertEqual(di["build_extras_require"]()["device"],
                         ["rocm-sdk-device-gfx942" + pin])
        # an unknown family drops the device extra, nothing else
        di = load_dist_info(dist_info_lines(True, KPACK_FAMILIES, "gfx1100", "None"),
                            env={"ROCM_SDK_TARGET_FAMILY": "gfx9999"})
        extras = di["build_extras_require"]()
        self.assertNotIn("device", extras)
        self.assertIn("device-all", extras)
        self.assertIn("libraries", extras)
        with self.assertRaises(ValueError) as cm:
            di["determine_target_family"]()
        self.assertIn("gfx1100, gfx942:xnack+, gfx942", str(cm.exception))

    def test_kpack_single_target_and_markers(self):
        text = dist_info_lines(True, ["gfx1151"], "gfx1151", "None")
        di = load_dist_info(text)
        self.assertEqual(sorted(di["build_extras_require"]()),
                         ["devel", "device", "libraries", "profiler"])
        text = TEMPLATE + (
            "__version__ = '1.0'\nPY_PACKAGE_SUFFIX_NONCE = ''\n"
            'ALL_PACKAGES["libraries"].dist_package_template = "rocm-sdk-libraries"\n'
            "DEFAULT_TARGET_FAMILY = 'gfx1100'\n"
            "AVAILABLE_TARGET_FAMILIES.append('gfx1100')\n"
            "AVAILABLE_TARGET_FAMILIES.append('gfx942')\n"
            "LINUX_TARGET_FAMILIES.append('gfx1100')\nLINUX_TARGET_FAMILIES.append('gfx942')\n"
            "WINDOWS_TARGET_FAMILIES.append('gfx1100')\n")
        extras = load_dist_info(text)["build_extras_require"]()
        self.assertEqual(extras["device-gfx942"],
                         ['rocm-sdk-device-gfx942==1.0; sys_platform == "linux"'])
        self.assertEqual(extras["device-gfx1100"], ["rocm-sdk-device-gfx1100==1.0"])

    def test_legacy(self):
        di = load_dist_info(dist_info_lines(False, LEGACY_FAMILIES, "gfx110X-all", "None"))
        pin = "==" + V
        self.assertEqual(di["build_install_requires"](), ["rocm-sdk-core" + pin])
        self.assertEqual(di["build_extras_require"](), {
            "libraries": ["rocm-sdk-libraries-gfx110X-all" + pin],
            "devel": ["rocm-sdk-devel" + pin],
            "profiler": ["rocm-profiler" + pin],
            "libraries-gfx110X-all": ["rocm-sdk-libraries-gfx110X-all" + pin],
            "libraries-gfx94X-dcgpu": ["rocm-sdk-libraries-gfx94X-dcgpu" + pin],
            "libraries-all": ["rocm-sdk-libraries-gfx110X-all" + pin,
                              "rocm-sdk-libraries-gfx94X-dcgpu" + pin],
        })
        self.assertEqual(di["get_py_package_name"]("rocm-sdk-libraries-gfx110X-all"),
                         "_rocm_sdk_libraries_gfx110X_all")
        di = load_dist_info(dist_info_lines(False, LEGACY_FAMILIES, "gfx110X-all", "None"),
                            env={"ROCM_SDK_TARGET_FAMILY": "gfx94X-dcgpu"})
        self.assertEqual(di["build_extras_require"]()["libraries"],
                         ["rocm-sdk-libraries-gfx94X-dcgpu" + pin])
        # simple/'s sdist of a multi-family run: the devel extra for DEVEL_FAMILY; for
        # another family a requirement no index serves, naming the family's page
        text = (dist_info_lines(False, LEGACY_FAMILIES, "gfx110X-all", "None")
                + "DEVEL_FAMILY = 'gfx110X-all'\n")
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(load_dist_info(text)["build_extras_require"]()["devel"],
                             ["rocm-sdk-devel" + pin])
            extras = load_dist_info(text, env={"ROCM_SDK_TARGET_FAMILY": "gfx94X-dcgpu"})[
                "build_extras_require"]()
        self.assertEqual(extras["devel"],
                         ["rocm-sdk-devel-gfx94X-dcgpu-is-on-find-links.python.gfx94X-dcgpu.index.html"])
        self.assertEqual(extras["libraries"], ["rocm-sdk-libraries-gfx94X-dcgpu" + pin])

    def test_setup_py(self):
        """setup.py, with a stand-in setuptools that records its arguments."""
        with tempfile.TemporaryDirectory() as tmp:
            top = Path(tmp) / ("rocm-" + V)
            make_sdist_tree(top, dist_info_lines(True, KPACK_FAMILIES, "gfx1100", "None"))
            stub = Path(tmp) / "stub"
            (stub / "setuptools" / "command").mkdir(parents=True)
            (stub / "setuptools" / "command" / "__init__.py").write_text("")
            (stub / "setuptools" / "command" / "install.py").write_text(
                "class install:\n    pass\n")
            (stub / "setuptools" / "__init__.py").write_text(
                "import json\n"
                "def find_packages(where='.'):\n"
                "    import os\n"
                "    return sorted(d for d in os.listdir(where)\n"
                "                  if os.path.isfile(os.path.join(where, d, '__init__.py')))\n"
                "def setup(**kw):\n"
                "    kw['cmdclass'] = sorted(kw['cmdclass'])\n"
                "    print('SETUP ' + json.dumps(kw, sort_keys=True))\n")
            env = dict(os.environ, PYTHONPATH=str(stub), PATH="/usr/bin:/bin")
            env.pop("ROCM_SDK_TARGET_FAMILY", None)
            out = subprocess.run([sys.executable, "setup.py"], cwd=str(top), env=env,
                                 stdout=subprocess.PIPE, universal_newlines=True,
                                 check=True).stdout
            kw = json.loads(out.split("SETUP ", 1)[1])
            self.assertEqual(kw["name"], "rocm")
            self.assertEqual(kw["version"], V)
            self.assertEqual(kw["package_dir"], {"": "src"})
            self.assertEqual(kw["packages"], ["rocm_sdk"])
            self.assertEqual(kw["entry_points"],
                             {"console_scripts": ["rocm-sdk = rocm_sdk.__main__:main"]})
            self.assertEqual(kw["install_requires"], ["rocm-sdk-core==" + V])
            self.assertEqual(kw["extras_require"]["device"], ["rocm-sdk-device-gfx1100==" + V])


def make_sdist_tree(top, dist_info_text, version=V):
    """The rocm sdist's files, as the C side writes them."""
    (top / "src" / "rocm_sdk").mkdir(parents=True)
    shutil.copy(str(PYSRC / "sdist" / "setup.py"), str(top / "setup.py"))
    shutil.copy(str(PYSRC / "sdist" / "pyproject.toml"), str(top / "pyproject.toml"))
    for p in (PYSRC / "rocm_sdk").glob("*.py"):
        shutil.copy(str(p), str(top / "src" / "rocm_sdk" / p.name))
    (top / "src" / "rocm_sdk" / "_dist_info.py").write_text(dist_info_text)
    (top / "PKG-INFO").write_text(
        "Metadata-Version: 2.1\nName: rocm\nVersion: %s\n" % version)


def make_wheel(out_dir, dist, files):
    """A minimal wheel (PEP 427) with files {archive path: (bytes, mode)}."""
    norm = dist.replace("-", "_")
    path = Path(out_dir) / ("%s-%s-py3-none-any.whl" % (norm, V))
    info = "%s-%s.dist-info" % (norm, V)
    files = dict(files)
    files[info + "/METADATA"] = ("Metadata-Version: 2.1\nName: %s\nVersion: %s\n"
                                 % (dist, V)).encode(), 0o644
    files[info + "/WHEEL"] = (b"Wheel-Version: 1.0\nGenerator: rockfs-test\n"
                              b"Root-Is-Purelib: false\nTag: py3-none-any\n", 0o644)
    rows = io.StringIO()
    w = csv.writer(rows, lineterminator="\n")
    with zipfile.ZipFile(str(path), "w") as z:
        for name, (data, mode) in sorted(files.items()):
            zi = zipfile.ZipInfo(name, (2024, 1, 1, 0, 0, 0))
            zi.external_attr = (0o100000 | mode) << 16
            z.writestr(zi, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            w.writerow([name, "sha256=" + digest.decode(), len(data)])
        w.writerow([info + "/RECORD", "", ""])
        z.writestr(info + "/RECORD", rows.getvalue())
    return path


class EndToEndTest(unittest.TestCase):
    """pip install rocm[devel] from a hand-made sdist and wheels, offline."""

    def test_pip_install(self):
        needed = [DEBIAN_WHEELS / n for n in os.listdir(str(DEBIAN_WHEELS))] \
            if DEBIAN_WHEELS.is_dir() else []
        if not any(p.name.startswith("setuptools-") for p in needed) or \
                not any(p.name.startswith("wheel-") for p in needed):
            raise unittest.SkipTest("no setuptools/wheel wheels in %s" % DEBIAN_WHEELS)
        with tempfile.TemporaryDirectory(prefix="rocm_sdk_e2e.") as tmp:
            tmp = Path(tmp)
            venv = tmp / "venv"
            r = subprocess.run([sys.executable, "-m", "venv", str(venv)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               universal_newlines=True)
            if r.returncode != 0:
                raise unittest.SkipTest("python3 -m venv failed: %s" % r.stdout[-500:])
            dist = tmp / "dist"
            dist.mkdir()
            text = dist_info_lines(True, KPACK_FAMILIES, "gfx1100", "None")
            top = tmp / "build" / ("rocm-" + V)
            make_sdist_tree(top, text)
            with tarfile.open(str(dist / ("rocm-%s.tar.gz" % V)), "w:gz",
                              format=tarfile.PAX_FORMAT) as tf:
                tf.add(str(top), arcname=top.name)
            pure = (PYSRC / "pure" / "__init__.py").read_bytes()

            def entry(logical):
                return dist_info_lines(True, KPACK_FAMILIES, "gfx1100",
                                       "ALL_PACKAGES[%r]" % logical).encode()

            make_wheel(dist, "rocm-sdk-core", {
                "rocm_sdk_core/__init__.py": (pure, 0o644),
                "rocm_sdk_core/_dist_info.py": (entry("core"), 0o644),
                "_rocm_sdk_core/lib/libamdhip64.so.7": (b"hip", 0o755),
                "_rocm_sdk_core/lib/llvm/bin/clang": (b"clang", 0o755),
                "_rocm_sdk_core/bin/hipcc": (b"#!/bin/sh\n", 0o755),
            })
            tarpath = tmp / "_devel.tar"
            good_devel_tar(tarpath, dangling=False)  # pip cannot remove dangling links
            make_wheel(dist, "rocm-sdk-devel", {
                "rocm_sdk_devel/__init__.py": (pure, 0o644),
                "rocm_sdk_devel/_dist_info.py": (entry("devel"), 0o644),
                "rocm_sdk_devel/_devel.tar": (tarpath.read_bytes(), 0o644),
            })
            pip = [str(venv / "bin" / "python"), "-m", "pip"]
            env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1", PATH="/usr/bin:/bin")
            env.pop("PYTHONPATH", None)
            env.pop("ROCM_SDK_TARGET_FAMILY", None)

            def run(cmd):
                r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, universal_newlines=True,
                                   timeout=600)
                self.assertEqual(r.returncode, 0, "%s:\n%s" % (" ".join(cmd), r.stdout))
                return r.stdout

            run(pip + ["install", "--no-index", "--find-links", str(DEBIAN_WHEELS),
                       "--find-links", str(dist), "rocm[devel]==" + V])
            # the metadata setup.py computed on this machine (no GPU: the default family)
            reqs = run([str(venv / "bin" / "python"), "-c",
                        "import importlib.metadata as md\n"
                        "print('\\n'.join(md.requires('rocm')))"])
            # setuptools 66 writes "name (==V) ; extra == 'x'"
            reqs = set(r.replace(" ", "").replace("(", "").replace(")", "").replace('"', "'")
                       for r in reqs.splitlines())
            self.assertIn("rocm-sdk-core==" + V, reqs)
            self.assertIn("rocm-sdk-device-gfx1100==%s;extra=='device'" % V, reqs)
            self.assertIn("rocm-sdk-device-gfx942==%s;extra=='device-all'" % V, reqs)
            self.assertIn("rocm-sdk-libraries==%s;extra=='libraries'" % V, reqs)
            rocm_sdk = str(venv / "bin" / "rocm-sdk")
            self.assertEqual(run([rocm_sdk, "version"]), V + "\n")
            root = Path(run([rocm_sdk, "path", "--root"]).strip())
            self.assertEqual(root.name, "_rocm_sdk_devel")
            self.assertTrue((root / "include/hip/hip_runtime.h").is_file())
            self.assertEqual((root / "lib/libamdhip64.so.7").stat().st_ino,
                             (root.parent / "_rocm_sdk_core/lib/libamdhip64.so.7").stat().st_ino)
            # pip's own metadata now lists the expanded files, and uninstall removes them
            show = run(pip + ["show", "-f", "rocm-sdk-devel"])
            self.assertIn("_rocm_sdk_devel/include/hip/hip_runtime.h", show)
            run(pip + ["uninstall", "-y", "rocm-sdk-devel"])
            self.assertFalse(root.exists())
            self.assertTrue((root.parent / "_rocm_sdk_core/lib/libamdhip64.so.7").is_file())


def main():
    """unittest's main, but exits 77 (ctest's SKIP_RETURN_CODE) when every test
    that ran was skipped, e.g. `test_rocm_sdk.py EndToEndTest` without a venv."""
    prog = unittest.main(exit=False)
    result = prog.result
    if not result.wasSuccessful():
        sys.exit(1)
    if result.testsRun and len(result.skipped) == result.testsRun:
        sys.exit(77)
    sys.exit(0)


if __name__ == "__main__":
    main()
