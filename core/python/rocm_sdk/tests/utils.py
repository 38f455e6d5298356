"""Helpers of the installation tests."""

import os
from pathlib import Path
import subprocess
import sys
import sysconfig

# Libraries not meant to be loaded on their own (as upstream's core_test skips
# them): sanitizer and clang runtimes, plug-ins preloaded by their host library.
_NOT_STANDALONE = ("clang_rt", "libLLVMOffload", "lib/roctracer", "share/roctracer",
                   "lib/rocprofiler-sdk/", "libexec/rocprofiler-sdk/", "libpyrocpd",
                   "libpyroctx", "libtest_linking_lib", "opencl",
                   "libhipsolver_fortran")


def run(args, capture=True):
    """Run a command with no input; its output (bytes) when capture."""
    args = [str(a) for a in args]
    if capture:
        return subprocess.check_output(args, stdin=subprocess.DEVNULL,
                                       stderr=subprocess.STDOUT)
    subprocess.check_call(args, stdin=subprocess.DEVNULL)
    return b""


def rocm_sdk_command(*args):
    """`python -m rocm_sdk ARGS` in a fresh process: (exit status, output)."""
    p = subprocess.run([sys.executable, "-m", "rocm_sdk"] + list(args),
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    return p.returncode, p.stdout.decode(errors="replace")


def is_physical_package(mod):
    """A regular package (its __init__.py on disk), not a namespace one."""
    return mod.__file__ is not None and Path(mod.__file__).name == "__init__.py"


def shared_libraries(root):
    """The shared libraries below root that are meant to load on their own."""
    root = Path(root)
    found = []
    for p in sorted(set(root.glob("**/*.so")) | set(root.glob("**/*.so.*"))):
        if not p.is_file() or p.is_symlink():
            continue
        if any(s in str(p) for s in _NOT_STANDALONE):
            continue
        if p.name.endswith(".abi3.so") or ".cpython-" in p.name:
            continue  # Python extensions: their symbols come from the interpreter
        with open(p, "rb") as f:
            if f.read(4) != b"\x7fELF":
                continue
        found.append(p)
    return found


def load_fresh(path):
    """Load path with ctypes.CDLL in a fresh interpreter, without
    LD_LIBRARY_PATH and without initialize_process(): (ok, output)."""
    env = dict(os.environ)
    env.pop("LD_LIBRARY_PATH", None)
    p = subprocess.run([sys.executable, "-c",
                        "import ctypes, sys; ctypes.CDLL(sys.argv[1])", str(path)],
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, env=env)
    return p.returncode == 0, p.stdout.decode(errors="replace")


def find_console_script(name):
    """The installed console script `name`, or None."""
    for scheme in (None, "posix_user"):
        try:
            d = sysconfig.get_path("scripts", scheme) if scheme else \
                sysconfig.get_path("scripts")
        except KeyError:
            continue
        p = Path(d) / name
        if p.exists():
            return p
    return None
