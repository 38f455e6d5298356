"""ROCm SDK for Python: finds and loads the ROCm libraries installed by the
rocm-sdk-* wheels, and manages the development tree of rocm-sdk-devel.

Install with `pip install rocm[libraries,devel]`; the `rocm-sdk` command
(rocm_sdk.__main__) prints paths and versions. The API follows TheRock's
rocm_sdk package (build_tools/packaging/python/templates/rocm); this copy is
written for rockfs, see docs/python-sdk.md for the differences.
"""

import os
import re
import warnings

from ._dist_info import __version__

__all__ = [
    "__version__",
    "find_libraries",
    "initialize_process",
    "preload_libraries",
]

# Short names whose library file is not lib<shortname>.so (upstream's table
# names these; every other short name is its file's stem).
_LIBRARY_STEMS = {
    "miopen": "MIOpen",
    "hipdnn": "hipdnn_backend",
}

# Directories of a platform package searched for libraries, in order.
_LIBRARY_DIRS = ("lib", "lib/rocm_sysdeps/lib", "lib/host-math/lib")

# Libraries a distribution may lack (upstream: rocdxg is only built on WSL
# hosts); find_libraries skips them instead of raising.
_OPTIONAL_LIBRARIES = frozenset(["rocdxg"])

# The packages searched, in order: the core first, then the libraries (into
# which the device packages also install).
_LIBRARY_PACKAGES = ("core", "libraries")


def _library_version_key(name, stem):
    """Sort key for a library file name, or None if it is not one.

    lib<stem>.so.<N>[.<M>...] (the SONAME form the wheels keep) sorts before
    lib<stem>.so; among versioned names, fewer components first (libfoo.so.7
    before libfoo.so.7.1), then the higher version.
    """
    prefix = "lib" + stem + ".so"
    if name == prefix:
        return (1, 0, ())
    if not name.startswith(prefix + "."):
        return None
    parts = name[len(prefix) + 1:].split(".")
    if not all(p.isdigit() for p in parts):
        return None
    return (0, len(parts), tuple(-int(p) for p in parts))


def _find_in_dir(platform_root, stem):
    best = None
    for rel in _LIBRARY_DIRS:
        d = platform_root / rel
        try:
            names = os.listdir(str(d))
        except OSError:
            continue
        for name in names:
            key = _library_version_key(name, stem)
            if key is None or not (d / name).is_file():
                continue
            if best is None or key < best[0]:
                best = (key, d / name)
        if best is not None:
            return best[1]
    return None


def find_libraries(*shortnames):
    """Paths (pathlib.Path) of the shared libraries named by short names.

    "amdhip64" is the file libamdhip64.so.<N> (else libamdhip64.so) in lib/
    (then lib/rocm_sysdeps/lib, lib/host-math/lib) of the installed
    rocm-sdk-core platform package, else of the rocm-sdk-libraries one (for the
    resolved target family in legacy builds). A few short names map to other
    file names (miopen -> libMIOpen, hipdnn -> libhipdnn_backend).

    Raises ModuleNotFoundError when a library is not in the core and the
    libraries package is not installed (the message names the extra to
    install), FileNotFoundError when no installed package has it.
    """
    from . import _locate

    paths = []
    missing_packages = []  # logical names of packages that are not installed
    unresolved = []  # short names not found, perhaps in a missing package
    for shortname in shortnames:
        stem = _LIBRARY_STEMS.get(shortname, shortname)
        found = None
        searched = []
        missing_here = False
        for logical in _LIBRARY_PACKAGES:
            try:
                root = _locate.platform_dir(logical)
            except _locate.PackageNotInstalled:
                missing_here = True
                if logical not in missing_packages:
                    missing_packages.append(logical)
                continue
            found = _find_in_dir(root, stem)
            if found is not None:
                break
            searched.append(str(root))
        if found is not None:
            paths.append(found)
        elif shortname in _OPTIONAL_LIBRARIES:
            continue
        elif missing_here:
            unresolved.append(shortname)
        else:
            raise FileNotFoundError(
                "Could not find ROCm library '%s' (lib%s.so or lib%s.so.N) in %s"
                % (shortname, stem, stem, ", ".join(
                    "%s/{%s}" % (r, ",".join(_LIBRARY_DIRS)) for r in searched)))
    if unresolved:
        from ._dist_info import ALL_PACKAGES

        raise ModuleNotFoundError(
            "ROCm libraries %s not found, and the ROCm SDK packages that may have "
            "them are not installed (%s): install them with `pip install rocm[%s]` "
            "(version %s), or reinstall your virtual environment" % (
                ", ".join(repr(s) for s in unresolved),
                ", ".join(ALL_PACKAGES[m].dist_package_template for m in missing_packages),
                ",".join(m for m in missing_packages if m != "core") or "core",
                __version__))
    return paths


_ALL_CDLLS = {}


def preload_libraries(*shortnames, rtld_global=True):
    """Loads libraries by short name (ctypes.CDLL, RTLD_GLOBAL by default) and
    keeps their handles, so that later loads of libraries needing them find
    them. Paths come from find_libraries."""
    import ctypes

    mode = ctypes.RTLD_GLOBAL if rtld_global else ctypes.RTLD_LOCAL
    for shortname in shortnames:
        if shortname in _ALL_CDLLS:
            continue
        paths = find_libraries(shortname)
        if not paths:  # an optional library this distribution lacks
            continue
        _ALL_CDLLS[shortname] = ctypes.CDLL(str(paths[0]), mode=mode)


def _installed_versions():
    """{dist name: version} of the installed ROCm SDK wheels (and `rocm`)."""
    import importlib.metadata as md

    from . import _locate

    found = {}
    # The binary wheels' directory (platlib) and ours (purelib, where the
    # `rocm` wheel goes); the same directory in a usual venv.
    dirs = [str(_locate.site_dir()),
            os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
    for dist in md.distributions(path=sorted(set(dirs))):
        name = (dist.metadata["Name"] or "")
        norm = re.sub(r"[-_.]+", "-", name).lower()
        if norm == "rocm" or norm.startswith("rocm-sdk-") or norm == "rocm-profiler":
            found.setdefault(name, dist.version)
    return found


def _check_version(check_version, fail_on_version_mismatch):
    if check_version is True:
        # rockfs: every installed rocm-sdk-* wheel (and rocm) must be exactly
        # this version, since the packages only work together as one build.
        bad = ["%s %s" % (n, v) for n, v in sorted(_installed_versions().items())
               if v != __version__]
        if not bad:
            return
        message = ("The installed ROCm SDK packages do not match rocm_sdk %s: %s. "
                   "Reinstall them at one version (pip install rocm[...]==%s)."
                   % (__version__, ", ".join(bad), __version__))
    else:
        # Upstream: the caller passes the version it was built against, where
        # '*' matches anything (or a compiled re.Pattern).
        if isinstance(check_version, re.Pattern):
            pattern = check_version
        else:
            pattern = re.compile(
                "^" + re.escape(str(check_version)).replace("\\*", ".*") + "$")
        if pattern.match(__version__):
            return
        message = ("The program was compiled against a ROCm version matching "
                   "'%s' but the installed ROCm version in this Python "
                   "environment is %s." % (pattern.pattern, __version__))
    if fail_on_version_mismatch:
        raise RuntimeError(message)
    warnings.warn(message + " This incompatibility may result in unexpected behavior",
                  RuntimeWarning, stacklevel=3)


def initialize_process(preload_shortnames=(), library_shortnames=(), check_version=True,
                       *, rtld_global=True, env_override=True,
                       fail_on_version_mismatch=False, **kwargs):
    """Initializes a process that uses the ROCm libraries of these packages;
    frameworks call it before loading their own libraries.

    preload_shortnames: libraries to load now (preload_libraries), RTLD_GLOBAL
      unless rtld_global is False.
    library_shortnames: libraries that must be present but are not loaded
      (find_libraries raises if one is missing).
    env_override: also preload the libraries named in ROCM_SDK_PRELOAD_LIBRARIES
      (comma or semicolon separated), as upstream.
    check_version: True checks that the installed rocm-sdk-* packages all have
      this package's version; a string (with '*' wildcards) or re.Pattern
      checks rocm_sdk.__version__ against it (upstream's meaning); False/None
      skips the check. A mismatch warns (RuntimeWarning), or raises
      RuntimeError with fail_on_version_mismatch=True.
    Unknown keyword arguments are ignored (upstream does the same, for forward
    compatibility).
    """
    if isinstance(preload_shortnames, str):
        preload_shortnames = [preload_shortnames]
    if isinstance(library_shortnames, str):
        library_shortnames = [library_shortnames]
    if check_version:
        _check_version(check_version, fail_on_version_mismatch)
    if library_shortnames:
        find_libraries(*library_shortnames)
    if preload_shortnames:
        preload_libraries(*preload_shortnames, rtld_global=rtld_global)
    if env_override:
        env_value = os.getenv("ROCM_SDK_PRELOAD_LIBRARIES")
        names = [s.strip() for s in re.split("[,;]", env_value or "") if s.strip()]
        if names:
            try:
                preload_libraries(*names, rtld_global=rtld_global)
            except Exception as e:
                raise RuntimeError(
                    "Could not preload libraries from environment variable "
                    "ROCM_SDK_PRELOAD_LIBRARIES='%s'. Check this environment "
                    "variable and unset it if not correct/needed." % env_value) from e
