"""The libraries package of this target family (or the kpack-split one)."""

import unittest

from .. import _locate
from . import utils


class ROCmLibrariesTest(unittest.TestCase):
    def testSharedLibrariesLoad(self):
        """Each loads in a fresh process with no initialize_process()."""
        libs = utils.shared_libraries(_locate.platform_dir("libraries"))
        if not libs:
            self.skipTest("the libraries package holds no shared library")
        for so in libs:
            with self.subTest(so=str(so)):
                ok, out = utils.load_fresh(so)
                self.assertTrue(ok, out)
