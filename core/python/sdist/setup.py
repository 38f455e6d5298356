"""Build script of the `rocm` meta package (an sdist synthesized by rockfs).

Like TheRock's templates/rocm/setup.py, this runs on the installing machine so
that the dependencies can follow its GPU: install_requires pins rocm-sdk-core,
and the extras (libraries, devel, profiler, device, device-<gfx>, ...) pin the
packages of the resolved target family. Set ROCM_SDK_TARGET_FAMILY to choose
the family; otherwise offload-arch decides, else the build's default.

src/rocm_sdk/_dist_info.py is loaded by path, not imported as rocm_sdk: the
package is not installed yet, and importing it would run its __init__.
"""

import importlib.util
import os
import sys

from setuptools import find_packages, setup
from setuptools.command.install import install as _install

THIS_DIR = os.path.dirname(os.path.abspath(__file__))


def load_dist_info():
    path = os.path.join(THIS_DIR, "src", "rocm_sdk", "_dist_info.py")
    if not os.path.isfile(path):
        raise RuntimeError("No _dist_info.py file found: %s" % path)
    spec = importlib.util.spec_from_file_location("rocm_sdk_dist_info", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


class install(_install):
    """Debian 12's setuptools wheel (66.1.1, python3-setuptools-whl, what pip
    uses for isolated builds there) carries a Debian patch whose install_lib and
    install_egg_info read the `install` command's install_layout and
    prefix_option, which only Debian's stdlib distutils defines, not the
    distutils inside setuptools: building a wheel fails with "AttributeError:
    install_layout". Defining them (unset) is harmless with any other setuptools."""

    if not hasattr(_install, "install_layout"):
        install_layout = None
    if not hasattr(_install, "prefix_option"):
        prefix_option = None


dist_info = load_dist_info()
install_requires = dist_info.build_install_requires()
extras_require = dist_info.build_extras_require()
print("rocm %s: install_requires=%s extras_require=%s"
      % (dist_info.__version__, install_requires, extras_require))

setup(
    name="rocm",
    version=dist_info.__version__,
    description="ROCm SDK for Python: selects the rocm-sdk-* packages for this machine",
    python_requires=">=3.9",
    package_dir={"": "src"},
    packages=find_packages(where="src"),
    entry_points={"console_scripts": ["rocm-sdk = rocm_sdk.__main__:main"]},
    install_requires=install_requires,
    extras_require=extras_require,
    cmdclass={"install": install},
)
