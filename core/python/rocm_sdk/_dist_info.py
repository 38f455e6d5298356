"""Distribution information for the ROCm SDK Python packages (rockfs).

This file is the template of every `_dist_info.py` that rockfs synthesizes: the
`rocm` sdist's `src/rocm_sdk/_dist_info.py` and each wheel's
`<pure package>/_dist_info.py`. The C side copies it verbatim and appends lines
that set the values of one build (docs/therock-formats.md 6.5), for example:

    __version__ = '7.13.0.dev0+abc1234'
    PY_PACKAGE_SUFFIX_NONCE = ''
    ALL_PACKAGES["libraries"].dist_package_template = "rocm-sdk-libraries"
    DEFAULT_TARGET_FAMILY = 'gfx1100'
    AVAILABLE_TARGET_FAMILIES.append('gfx1100')
    LINUX_TARGET_FAMILIES.append('gfx1100')
    THIS_TARGET_FAMILY = None
    THIS_PACKAGE_ENTRY = ALL_PACKAGES['core']

So everything those lines name must be defined here, and nothing here may read
the values at import time: they are only final once the whole file has run.
The functions below read them when called.

The sdist's setup.py loads this file by path (not as `rocm_sdk._dist_info`) to
compute its dependencies, so it must stay standalone: standard library only, no
relative imports. Behaviour follows TheRock's
build_tools/packaging/python/templates/rocm/src/rocm_sdk/_dist_info.py; see
docs/python-sdk.md for where we differ.
"""

import os
import re
import shutil
import subprocess
import sys
import sysconfig

# Set ROCM_SDK_VERBOSE=1 to see why GPU detection failed (as upstream, quiet by
# default because library users do not expect output from this module).
_VERBOSE = os.getenv("ROCM_SDK_VERBOSE", "0") == "1"

# A single GPU target (ISA), e.g. gfx942 or gfx1100. Families ("gfx110X-all",
# "dcgpu-all") do not match, nor do feature-suffixed names ("gfx942:xnack+").
_GFX_TARGET_RE = re.compile(r"^gfx[0-9a-f]+$")


class PackageEntry:
    """One package of the distribution.

    logical_name: the short name used in extras and in ALL_PACKAGES ("core").
    dist_package_template: the dist (pip) name; it contains "{target_family}"
      when there is one package per target family (legacy libraries, device).
      The build may overwrite it (kpack builds set libraries to
      "rocm-sdk-libraries").
    pure_py_package_name: the pure Python package the wheel ships next to its
      platform directory (None for device wheels, which only add files to the
      libraries platform directory).
    required: installed by plain `pip install rocm`; the others are extras.
    """

    def __init__(self, logical_name, dist_package_template, *,
                 pure_py_package_name, required=False):
        if logical_name in ALL_PACKAGES:
            raise ValueError("Package already defined: %s" % logical_name)
        self.logical_name = logical_name
        self.dist_package_template = dist_package_template
        self.pure_py_package_name = pure_py_package_name
        self.required = required
        ALL_PACKAGES[logical_name] = self

    @property
    def is_target_specific(self):
        """True when there is one dist package per target family."""
        return "{target_family}" in self.dist_package_template

    def get_dist_package_name(self, target_family=None):
        """The dist name, e.g. rocm-sdk-device-gfx942 for 'gfx942:xnack+'.

        The family keeps its case (rocm-sdk-libraries-gfx110X-all); pip
        normalizes names when it compares them. As upstream, a feature suffix
        (":xnack+") is cut, since it is not valid in a dist name.
        """
        if not self.is_target_specific:
            return self.dist_package_template
        if target_family is None:
            raise ValueError("Package %s is target specific, but no target was given"
                             % self.logical_name)
        return self.dist_package_template.format(
            target_family=base_target(target_family))

    def get_dist_package_require(self, target_family=None):
        """A requirement pinning this package to this distribution's version."""
        return "%s==%s" % (self.get_dist_package_name(target_family), __version__)

    def get_py_package_name(self, target_family=None):
        """The platform package (directory in site-packages), e.g. _rocm_sdk_core."""
        return get_py_package_name(self.get_dist_package_name(target_family))

    def __repr__(self):
        return self.dist_package_template


def base_target(target_family):
    """'gfx942:xnack+' -> 'gfx942'; a family name is returned unchanged."""
    return target_family.split(":")[0]


def get_py_package_name(dist_name):
    """The platform package of a dist: "_" + name with '-' -> '_' + nonce.

    The case is kept: rocm-sdk-libraries-gfx110X-all -> _rocm_sdk_libraries_gfx110X_all.
    """
    return "_" + dist_name.replace("-", "_") + PY_PACKAGE_SUFFIX_NONCE


def is_kpack_split():
    """True for kpack-split builds: one libraries package plus device packages.

    Legacy builds have one libraries package per family instead; there the
    libraries template still contains "{target_family}".
    """
    return not ALL_PACKAGES["libraries"].is_target_specific


# --- Target family resolution -------------------------------------------------

_cached_target_family = None


def discover_current_target_family():
    """The family of a GPU on this machine, from `offload-arch`, or None.

    As upstream: for each line "gfxNNNN" it tries the families "gfxNNNX-all",
    "-dgpu", "-igpu", "-dcgpu", then the target itself, and accepts the first
    one in AVAILABLE_TARGET_FAMILIES. We also accept the base target of a line
    with features ("gfx942:sramecc+:xnack-" -> "gfx942"), which is what kpack
    builds list. offload-arch is looked up in Python's scripts directory first
    (where rocm-sdk-core installs its tools), then on PATH.
    """
    env = dict(os.environ)
    scripts = sysconfig.get_path("scripts")
    env["PATH"] = scripts + os.pathsep + env.get("PATH", "")
    exe = shutil.which("offload-arch", path=env["PATH"])
    if exe is None:
        if _VERBOSE:
            print("[rocm_sdk] offload-arch not found", file=sys.stderr)
        return None
    try:
        out = subprocess.run([exe], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, universal_newlines=True,
                             timeout=60, check=True).stdout
    except (OSError, subprocess.SubprocessError) as e:
        if _VERBOSE:
            print("[rocm_sdk] offload-arch failed: %s" % e, file=sys.stderr)
        return None
    for arch in sorted(set(line.strip() for line in out.splitlines() if line.strip())):
        family = arch[:-1] + "X"
        for suffix in ("-all", "-dgpu", "-igpu", "-dcgpu"):
            if family + suffix in AVAILABLE_TARGET_FAMILIES:
                return family + suffix
        for candidate in (arch, base_target(arch)):
            if candidate in AVAILABLE_TARGET_FAMILIES:
                return candidate
    return None


def determine_target_family():
    """The target family to use: ROCM_SDK_TARGET_FAMILY, else the GPU found by
    offload-arch, else DEFAULT_TARGET_FAMILY (upstream's order).

    Raises ValueError when the result is not one of AVAILABLE_TARGET_FAMILIES
    (or there is none); the message lists the available ones.
    """
    global _cached_target_family
    if _cached_target_family is not None:
        return _cached_target_family
    family = os.getenv("ROCM_SDK_TARGET_FAMILY") or None
    source = "ROCM_SDK_TARGET_FAMILY"
    if family is None:
        family = discover_current_target_family()
        source = "offload-arch"
    if family is None:
        family = DEFAULT_TARGET_FAMILY
        source = "DEFAULT_TARGET_FAMILY"
    if family is None or family not in AVAILABLE_TARGET_FAMILIES:
        raise ValueError(
            "Target family %s=%s is not available in this ROCm distribution "
            "(version %s; available: %s)" % (
                source, family, __version__,
                ", ".join(AVAILABLE_TARGET_FAMILIES) or "none"))
    _cached_target_family = family
    return family


# --- Requirements of the `rocm` meta package (used by its setup.py) ---------


def get_target_family_platform_marker(target_family):
    """A PEP 508 marker for a target published on only one OS, else "".

    Only meaningful when the build knows both OS lists (cross-platform
    multi-arch releases); with one list empty there is nothing to tell apart.
    """
    if not LINUX_TARGET_FAMILIES or not WINDOWS_TARGET_FAMILIES:
        return ""
    base = base_target(target_family)
    on_linux = base in set(base_target(t) for t in LINUX_TARGET_FAMILIES)
    on_windows = base in set(base_target(t) for t in WINDOWS_TARGET_FAMILIES)
    if on_linux and not on_windows:
        return 'sys_platform == "linux"'
    if on_windows and not on_linux:
        return 'sys_platform == "win32"'
    return ""


def build_install_requires(target_family=None):
    """install_requires of `rocm`: every required package, pinned (the core)."""
    return [pkg.get_dist_package_require(target_family)
            for pkg in ALL_PACKAGES.values() if pkg.required]


def build_per_target_extras():
    """Extras naming one target each: "device-gfx942", ..., "device-all", and in
    legacy builds "libraries-gfx110X-all", ..., "libraries-all".

    Only when the distribution has more than one base target (a single-target
    build needs nothing beyond the generic extras). Device extras exist only for
    real gfx targets: a legacy family such as gfx110X-all has no device package.
    A target published for one OS only gets a sys_platform marker.
    """
    result = {}
    bases = sorted(set(base_target(t) for t in AVAILABLE_TARGET_FAMILIES))
    if len(bases) <= 1:
        return result
    for pkg in ALL_PACKAGES.values():
        if pkg.required or not pkg.is_target_specific:
            continue
        if pkg.logical_name == "device":
            targets = [t for t in bases if _GFX_TARGET_RE.match(t)]
        else:
            targets = bases
        if not targets:
            continue
        everything = []
        for t in targets:
            req = pkg.get_dist_package_require(t)
            marker = get_target_family_platform_marker(t)
            if marker:
                req = "%s; %s" % (req, marker)
            result["%s-%s" % (pkg.logical_name, t)] = [req]
            everything.append(req)
        result["%s-all" % pkg.logical_name] = everything
    return result


def devel_elsewhere_requirement(family):
    """rockfs: the devel extra of a family whose rocm-sdk-devel wheel this index
    does not serve (simple/ of a legacy run with several families). No index
    serves this name, so pip fails with an error that names the page to use:
    "No matching distribution found for rocm-sdk-devel-gfx94X-dcgpu-is-on-
    find-links.python.gfx94X-dcgpu.index.html". (Dropping the extra was only a
    warning: pip exited 0 with no devel tree.)"""
    name = re.sub(r"[^A-Za-z0-9._-]", "-", family)
    return "rocm-sdk-devel-%s-is-on-find-links.python.%s.index.html" % (name, name)


def build_extras_require():
    """extras_require of `rocm`: one extra per optional package, pinned for the
    resolved target family where the package is family-specific, plus
    build_per_target_extras().

    As upstream, the generic "device" extra is dropped when target resolution
    raises (e.g. ROCM_SDK_TARGET_FAMILY names an unknown family); we also drop
    it when the resolved family has no single gfx target (legacy families).
    Family-specific extras other than device are dropped the same way.
    """
    try:
        family = determine_target_family()
    except ValueError:
        family = None
    extras = {}
    for pkg in ALL_PACKAGES.values():
        if pkg.required or pkg.logical_name in UNBUILT_PACKAGES:
            continue
        if pkg.is_target_specific:
            if family is None:
                continue
            if pkg.logical_name == "device" and not _GFX_TARGET_RE.match(base_target(family)):
                continue
        if (pkg.logical_name == "devel" and DEVEL_FAMILY is not None
                and family != DEVEL_FAMILY):
            print("rocm: no devel wheel for %s here: its rocm-sdk-devel is in "
                  "python/%s/ (this index has %s's)" % (family, family, DEVEL_FAMILY))
            extras[pkg.logical_name] = [devel_elsewhere_requirement(family)]
            continue
        extras[pkg.logical_name] = [pkg.get_dist_package_require(family)]
    extras.update(build_per_target_extras())
    return extras


# --- The packages of the distribution ------------------------------------------

ALL_PACKAGES = {}

PackageEntry("core", "rocm-sdk-core", pure_py_package_name="rocm_sdk_core", required=True)
PackageEntry("libraries", "rocm-sdk-libraries-{target_family}",
             pure_py_package_name="rocm_sdk_libraries")
PackageEntry("device", "rocm-sdk-device-{target_family}", pure_py_package_name=None)
PackageEntry("devel", "rocm-sdk-devel", pure_py_package_name="rocm_sdk_devel")
PackageEntry("profiler", "rocm-profiler", pure_py_package_name="rocm_profiler")

# --- Values of one build (the C side appends lines that set them) -------------

# The version every package of the distribution shares.
__version__ = "0.0.0"

# Suffix of the platform package names ('' for development builds).
PY_PACKAGE_SUFFIX_NONCE = ""

# The family used when neither ROCM_SDK_TARGET_FAMILY nor a GPU decides.
DEFAULT_TARGET_FAMILY = None

# The target families (kpack: gfx targets, maybe "gfx942:xnack+") of this
# distribution, and per OS when the build knows both (for PEP 508 markers).
AVAILABLE_TARGET_FAMILIES = []
LINUX_TARGET_FAMILIES = []
WINDOWS_TARGET_FAMILIES = []

# In a family-specific wheel, its family; else None.
THIS_TARGET_FAMILY = None

# The ALL_PACKAGES entry of the wheel this file is in (None in the sdist).
THIS_PACKAGE_ENTRY = None

# Device packages only: the platform package they install into.
LIBRARIES_PY_PACKAGE_NAME = None

# rockfs, the sdist of simple/ on a legacy run with several families only: the
# family whose rocm-sdk-devel wheel simple/ serves (one file per name). For another
# family the devel extra requires devel_elsewhere_requirement(), which pip reports
# as an error naming python/<family>/index.html: that wheel's tree would link into
# a libraries package it does not install. Each family's own sdist and devel wheel
# are in python/<family>/ (THIS_TARGET_FAMILY set, this None).
DEVEL_FAMILY = None

# rockfs: the optional packages this distribution has no wheel of (a run without
# profiler artifacts has no rocm-profiler): the sdist offers no extra for them, so
# that every extra pip is offered installs.
UNBUILT_PACKAGES = set()
