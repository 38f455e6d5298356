"""Console scripts of rocm-profiler: each runs one program of the profiler package.

rockfs's own code. The entry point names and programs are those of TheRock's
rocm-profiler (setup.py, rocm_profiler/_cli.py at 89553ce); rockfs declares an
entry point only for a program its profiler wheel holds. As upstream, the
program gets LD_LIBRARY_PATH with the profiler's lib/ and the core's
lib/rocm_sysdeps/lib (instrumented programs load librocprof-sys-rt from there)
and PYTHONPATH with libexec/rocprofiler-compute, then is exec'd with its own
path as argv[0]. Nothing but the standard library.
"""

import os
import sys
from pathlib import Path

_SITE = Path(__file__).resolve().parent.parent
_PROFILER = _SITE / "_rocm_profiler"


def _prepend(env, name, paths):
    have = [p for p in env.get(name, "").split(":") if p]
    new = [str(p) for p in paths if p.is_dir() and str(p) not in have]
    if new:
        env[name] = ":".join(new + have)


def _exec(relpath):
    env = dict(os.environ)
    _prepend(env, "LD_LIBRARY_PATH",
             [_PROFILER / "lib", _SITE / "_rocm_sdk_core" / "lib" / "rocm_sysdeps" / "lib"])
    _prepend(env, "PYTHONPATH", [_PROFILER / "libexec" / "rocprofiler-compute"])
    path = _PROFILER / relpath
    try:
        os.execve(path, [str(path)] + sys.argv[1:], env)
    except OSError as e:
        print(f"rocm-profiler: error: cannot run '{path}': {e.strerror}", file=sys.stderr)
        sys.exit(127)


def rocprof_compute():
    _exec("bin/rocprof-compute")


def rocprof_sys_attach():
    _exec("bin/rocprof-sys-attach")


def rocprof_sys_avail():
    _exec("bin/rocprof-sys-avail")


def rocprof_sys_causal():
    _exec("bin/rocprof-sys-causal")


def rocprof_sys_instrument():
    _exec("bin/rocprof-sys-instrument")


def rocprof_sys_run():
    _exec("bin/rocprof-sys-run")


def rocprof_sys_sample():
    _exec("bin/rocprof-sys-sample")


def rocprof_sys_python():
    _exec("bin/rocprof-sys-python")
