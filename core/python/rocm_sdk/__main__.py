"""The `rocm-sdk` command (also `python -m rocm_sdk`).

  rocm-sdk version                 this distribution's version
  rocm-sdk targets [--available]   the GPU targets (families) of this install
  rocm-sdk path --root|--bin|--cmake
                                   directories of the devel tree (expanded first)
  rocm-sdk init [--quiet]          expand the devel tree (idempotent)
  rocm-sdk test                    the installation self-tests (no GPU needed)

Errors go to stderr with exit status 1. Subcommands and messages follow
TheRock's rocm_sdk/__main__.py; `targets` and `test` differ, see
docs/python-sdk.md.
"""

import argparse
import sys

from . import _dist_info as di


def _fail(message):
    print("rocm-sdk: error: %s" % message, file=sys.stderr)
    return 1


def _devel_root():
    """The devel root, or an exit status after printing why there is none."""
    from . import _devel, _locate

    try:
        return _devel.get_devel_root()
    except _locate.PackageNotInstalled as e:
        # Upstream's wording: rocm[devel] is what to install.
        return _fail("could not load the rocm[devel] package, which is required to "
                     "access runtime tools and development files; install it with "
                     "your package manager (pip install rocm[devel]).\n%s" % e)
    except (_devel.DevelError, OSError, ValueError) as e:
        return _fail("could not expand the rocm[devel] package: %s" % e)


def _do_path(args):
    root = _devel_root()
    if isinstance(root, int):
        return root
    if args.cmake:
        print(root / "lib" / "cmake")
    elif args.bin:
        print(root / "bin")
    else:
        print(root)
    return 0


def _do_init(args):
    root = _devel_root()
    if isinstance(root, int):
        return root
    if not args.quiet:
        print("Devel contents expanded to '%s'" % root)
    return 0


def _do_version(args):
    print(di.__version__)
    return 0


def _installed(dist):
    """Whether distribution dist is installed (its metadata is), not merely that files
    of it are there: pip leaves a directory that holds files it did not install."""
    import importlib.metadata

    try:
        importlib.metadata.distribution(dist)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def installed_targets():
    """The targets this install has device files for: in kpack builds, the targets of
    the installed rocm-sdk-device-<target> packages (their .devel_links/<target>.json
    in the libraries platform directory); in legacy builds, the families whose
    rocm-sdk-libraries-<family> package is installed. [] if none."""
    from . import _locate

    site = _locate.site_dir()
    libraries = di.ALL_PACKAGES["libraries"]
    if not libraries.is_target_specific:
        links = site / libraries.get_py_package_name() / ".devel_links"
        if not links.is_dir():
            return []
        device = di.ALL_PACKAGES["device"]
        return sorted(t for t in (p.name[:-len(".json")] for p in links.iterdir()
                                  if p.name.endswith(".json"))
                      if _installed(device.get_dist_package_name(t)))
    return [f for f in di.AVAILABLE_TARGET_FAMILIES
            if _installed(libraries.get_dist_package_name(f))]


def dist_amdgpu_targets():
    """What upstream's `rocm-sdk targets` prints: the dist_amdgpu_targets string
    ("gfx1100;gfx942", semicolon-separated) of the core package's
    share/therock/dist_info.json."""
    import importlib
    import json
    from pathlib import Path

    core = importlib.import_module(di.ALL_PACKAGES["core"].get_py_package_name())
    # (a core wheel without _rocm_sdk_core/__init__.py: a namespace package)
    top = Path(core.__file__).parent if core.__file__ else Path(list(core.__path__)[0])
    path = top / "share" / "therock" / "dist_info.json"
    with open(path, "rb") as f:
        return json.load(f)["dist_amdgpu_targets"]


def _do_targets(args):
    if args.installed or args.available:
        # ours: one target (family) a line: those installed (none: nothing), or with
        # --available those of the distribution
        for t in di.AVAILABLE_TARGET_FAMILIES if args.available else installed_targets():
            print(t)
        return 0
    try:
        print(dist_amdgpu_targets())
    except (ImportError, OSError, KeyError, ValueError) as e:
        print("rocm-sdk: targets: no dist_info.json in the core package (%s)" % e,
              file=sys.stderr)
        return 1
    return 0


def _do_test(args):
    """Upstream's test entry: base and core always, libraries when this
    family's libraries package is installed, devel when rocm-sdk-devel is;
    unittest's report on stdout, exit 1 when a test fails. Ours test only what
    needs no GPU (rocm_sdk/tests/)."""
    import importlib.util
    import unittest

    from . import _locate

    names = ["rocm_sdk.tests.base_test", "rocm_sdk.tests.core_test"]
    try:
        _locate.platform_dir("libraries")
        names.append("rocm_sdk.tests.libraries_test")
    except (ModuleNotFoundError, ValueError):
        print("NOTE: Skipping libraries tests (not installed for this arch)")
    if importlib.util.find_spec("rocm_sdk_devel") is not None:
        names.append("rocm_sdk.tests.devel_test")
    loader = unittest.TestLoader()
    suite = unittest.TestSuite(loader.loadTestsFromName(n) for n in names)
    if loader.errors:
        print("WARNING: Test discovery had errors: %s" % loader.errors)
    result = unittest.TextTestRunner(stream=sys.stdout, verbosity=2).run(suite)
    return 0 if result.wasSuccessful() and not loader.errors else 1


def main(argv=None):
    if argv is None:
        argv = sys.argv[1:]
    p = argparse.ArgumentParser(prog="rocm-sdk", description="ROCm SDK Python CLI")
    sub = p.add_subparsers(dest="command", metavar="{path,test,version,targets,init}")
    sub.required = True

    path_p = sub.add_parser("path", help="Print a directory of the ROCm devel tree")
    which = path_p.add_mutually_exclusive_group(required=True)
    which.add_argument("--cmake", action="store_true",
                       help="the CMake package directory (for CMAKE_PREFIX_PATH)")
    which.add_argument("--bin", action="store_true", help="the bin directory")
    which.add_argument("--root", action="store_true", help="the root directory")
    path_p.set_defaults(func=_do_path)

    test_p = sub.add_parser("test", help="Run the installation tests (no GPU needed)")
    test_p.set_defaults(func=_do_test)

    version_p = sub.add_parser("version", help="Print the ROCm version")
    version_p.set_defaults(func=_do_version)

    targets_p = sub.add_parser(
        "targets", help="Print the GPU targets the distribution was built for "
        "(dist_amdgpu_targets, semicolon-separated, as upstream)")
    which_t = targets_p.add_mutually_exclusive_group()
    which_t.add_argument("--installed", action="store_true",
                         help="the installed targets (families), one a line")
    which_t.add_argument("--available", action="store_true",
                         help="the distribution's targets (families), one a line")
    targets_p.set_defaults(func=_do_targets)

    init_p = sub.add_parser(
        "init", help="Expand the rocm[devel] tree and link installed device files into it")
    init_p.add_argument("--quiet", action="store_true", help="Print nothing on success")
    init_p.set_defaults(func=_do_init)

    args = p.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
