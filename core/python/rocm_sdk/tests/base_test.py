"""The rocm package: its command line and initialize_process()."""

import importlib.metadata as md
import re
import unittest

import rocm_sdk
from .. import _dist_info as di
from . import utils


class ROCmBaseTest(unittest.TestCase):
    def testCLI(self):
        rc, out = utils.rocm_sdk_command("--help")
        self.assertEqual(rc, 0, out)
        self.assertIn("usage:", out)

    def testVersion(self):
        rc, out = utils.rocm_sdk_command("version")
        self.assertEqual(rc, 0, out)
        self.assertEqual(out.strip(), di.__version__)
        self.assertEqual(md.version("rocm"), di.__version__)

    def testTargets(self):
        rc, out = utils.rocm_sdk_command("targets")
        if rc != 0:
            self.skipTest("the core package has no share/therock/dist_info.json")
        targets = out.strip().split(";")
        self.assertTrue(targets and all(t.startswith("gfx") for t in targets), out)

    def testInstalledVersions(self):
        """Every installed package of the distribution has its version."""
        rocm_sdk.initialize_process(check_version=True, fail_on_version_mismatch=True)

    def testCheckVersionPattern(self):
        rocm_sdk.initialize_process(check_version="*", fail_on_version_mismatch=True)
        rocm_sdk.initialize_process(check_version=re.compile(".+"),
                                    fail_on_version_mismatch=True)

    def testCheckVersionMismatch(self):
        with self.assertRaises(RuntimeError):
            rocm_sdk.initialize_process(check_version="badversion",
                                        fail_on_version_mismatch=True)
