"""Finding the installed ROCm SDK packages in site-packages.

A binary wheel installs two top-level packages side by side: its pure package
(rocm_sdk_core, with __init__.py and _dist_info.py) and its platform directory
(_rocm_sdk_core, the install tree: bin/, lib/, ...). The platform directory
need not be a regular package, so we find it next to the pure package of the
same wheel: both are always installed into the same directory. Where the pure
package is not the one _dist_info names (upstream's legacy libraries wheels name
theirs after the family, rocm_sdk_libraries_gfx110X-all), we look next to the
core's. Device wheels have no pure package; they add files to the libraries
platform directory.
"""

import importlib.util
import os
from pathlib import Path

from . import _dist_info as di


class PackageNotInstalled(ModuleNotFoundError):
    """A package of the distribution is not installed (a missing extra)."""


def pure_package_dir(pure_name):
    """The directory of an installed regular package, or None (no import)."""
    try:
        spec = importlib.util.find_spec(pure_name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or not spec.has_location:
        return None
    origin = Path(spec.origin)
    if origin.name != "__init__.py":
        return None
    return origin.parent


def resolve_family(pkg):
    """The target family to use for pkg: None unless it is family-specific."""
    if not pkg.is_target_specific:
        return None
    return di.determine_target_family()


def platform_dir(logical_name, target_family=None):
    """The platform directory of an installed package, e.g.
    .../site-packages/_rocm_sdk_core, next to the package's pure package or
    the core's. Raises PackageNotInstalled when it is not there.
    """
    pkg = di.ALL_PACKAGES[logical_name]
    if pkg.is_target_specific and target_family is None:
        target_family = resolve_family(pkg)
    dist = pkg.get_dist_package_name(target_family)
    pure = pure_package_dir(pkg.pure_py_package_name) if pkg.pure_py_package_name else None
    sites = [pure.parent] if pure is not None else []
    for site in sites + [site_dir()]:
        d = site / pkg.get_py_package_name(target_family)
        if d.is_dir():
            return d
    raise PackageNotInstalled(
        "The ROCm SDK package %s is not installed in this Python environment; "
        "install it with `pip install rocm[%s]` (all rocm packages must be "
        "version %s)" % (dist, logical_name, di.__version__))


def site_dir():
    """The site-packages directory holding the SDK (that of rocm-sdk-core), or
    the one holding this package."""
    core = pure_package_dir(di.ALL_PACKAGES["core"].pure_py_package_name)
    if core is not None:
        return core.parent
    return Path(os.path.dirname(os.path.abspath(__file__))).parent
