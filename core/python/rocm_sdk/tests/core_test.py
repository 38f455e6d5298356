"""The rocm-sdk-core package: layout, libraries, console scripts."""

import importlib
import importlib.metadata as md
import os
from pathlib import Path
import unittest

import rocm_sdk
from .. import _dist_info as di
from .. import _locate
from . import utils

CORE = di.ALL_PACKAGES["core"]


class ROCmCoreTest(unittest.TestCase):
    def testInstallationLayout(self):
        """rocm_sdk, rocm_sdk_core and _rocm_sdk_core are siblings, the first
        two regular packages (upstream's rocm-sdk targets imports the third)."""
        self.assertTrue(utils.is_physical_package(rocm_sdk))
        pure = importlib.import_module(CORE.pure_py_package_name)
        self.assertTrue(utils.is_physical_package(pure))
        platform = _locate.platform_dir("core")
        self.assertEqual(Path(rocm_sdk.__file__).parent.parent, platform.parent)
        self.assertEqual(Path(pure.__file__).parent.parent, platform.parent)

    def testSharedLibrariesLoad(self):
        """Each loads in a fresh process with no initialize_process() and no
        LD_LIBRARY_PATH: its RPATH finds its dependencies."""
        libs = utils.shared_libraries(_locate.platform_dir("core"))
        if not libs:
            self.skipTest("the core package holds no shared library")
        for so in libs:
            with self.subTest(so=str(so)):
                ok, out = utils.load_fresh(so)
                self.assertTrue(ok, out)

    def testConsoleScripts(self):
        """Every console script the core wheel declares is installed and runs
        a program the core package holds."""
        try:
            eps = md.distribution(CORE.get_dist_package_name()).entry_points
        except md.PackageNotFoundError:
            self.skipTest("rocm-sdk-core has no distribution metadata")
        for ep in eps:
            if ep.group != "console_scripts":
                continue
            with self.subTest(script=ep.name):
                path = utils.find_console_script(ep.name)
                self.assertIsNotNone(path, "console script %s is missing" % ep.name)
                self.assertTrue(os.access(path, os.X_OK))
                ep.load()  # its function exists
