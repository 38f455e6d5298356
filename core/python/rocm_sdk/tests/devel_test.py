"""The rocm-sdk-devel package: its expanded tree."""

import os
from pathlib import Path
import unittest

from .. import _locate
from . import utils


class ROCmDevelTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        rc, out = utils.rocm_sdk_command("path", "--root")
        if rc != 0:
            raise AssertionError("rocm-sdk path --root failed: " + out)
        cls.root = Path(out.strip().splitlines()[-1])

    def testPaths(self):
        self.assertTrue(self.root.is_dir(), self.root)
        for flag, sub in (("--bin", "bin"), ("--cmake", "lib/cmake")):
            rc, out = utils.rocm_sdk_command("path", flag)
            self.assertEqual(rc, 0, out)
            self.assertEqual(Path(out.strip()), self.root / sub)

    def testNoDanglingLinks(self):
        """Every symlink of the tree resolves (its runtime packages are installed)."""
        dangling = []
        for d, dirs, files in os.walk(self.root):
            for n in dirs + files:
                p = os.path.join(d, n)
                if os.path.islink(p) and not os.path.exists(p):
                    dangling.append(os.path.relpath(p, self.root))
        self.assertEqual(dangling, [], "dangling links in %s" % self.root)

    def testSharedLibrariesLoad(self):
        """The devel tree's libraries load in a fresh process."""
        for so in utils.shared_libraries(self.root):
            with self.subTest(so=str(so)):
                ok, out = utils.load_fresh(so)
                self.assertTrue(ok, out)

    def testLibrariesMirroredIntoDevel(self):
        """Every file of the installed libraries package is in the devel tree,
        as the same inode (hardlinked by the expansion or the device links)."""
        try:
            libs = _locate.platform_dir("libraries")
        except (ModuleNotFoundError, ValueError):
            self.skipTest("no libraries package installed")
        missing, other = [], []
        for f in libs.rglob("*"):
            rel = f.relative_to(libs)
            if (not f.is_file() or rel == Path("__init__.py") or "__pycache__" in rel.parts
                    or rel.parts[0] == ".devel_links"):
                continue
            d = self.root / rel
            if not d.is_file():
                missing.append(str(rel))
            elif not d.samefile(f):
                other.append(str(rel))
        self.assertEqual(missing, [], "libraries files missing from the devel tree")
        self.assertEqual(other, [], "libraries files not hardlinked into the devel tree")
