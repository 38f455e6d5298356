"""Console scripts of rocm-sdk-core: each runs one program of the installed SDK.

rockfs's own code. The entry point names, the program paths and which tools skip
the devel expansion are those of TheRock's rocm-sdk-core (setup.py, _cli.py);
rockfs declares an entry point only for a program its core wheel holds.

The program comes from the expanded devel tree when rocm-sdk-devel is installed
(expanding it first, through `rocm-sdk init`, unless the tool is a system query
that does not need it), else from the core platform directory. It is exec'd with
its own path as argv[0], so a tool that picks its mode from its name (amdclang++)
sees that name. Nothing but the standard library; no rocm_sdk import (the core
wheel works without the rocm package).
"""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

_SITE = Path(__file__).resolve().parent.parent
_CORE = "_rocm_sdk_core"
_DEVEL = "_rocm_sdk_devel"


def _devel_installed():
    return importlib.util.find_spec("rocm_sdk_devel") is not None


def _devel_expanded():
    spec = importlib.util.find_spec("rocm_sdk_devel")
    pure = Path(list(spec.submodule_search_locations)[0])
    tarball = any(pure.glob("_devel.tar*"))
    return (_SITE / _DEVEL).is_dir() and not tarball


def _root(expand_devel):
    if _devel_installed():
        if _devel_expanded():
            return _SITE / _DEVEL
        if expand_devel:
            rc = subprocess.call([sys.executable, "-m", "rocm_sdk", "init", "--quiet"])
            if rc != 0:
                print(
                    "rocm-sdk: error: could not expand rocm[devel]; "
                    "run `rocm-sdk init` for details",
                    file=sys.stderr,
                )
                sys.exit(1)
            return _SITE / _DEVEL
    return _SITE / _CORE


def _exec(relpath, expand_devel=True):
    path = _root(expand_devel) / relpath
    try:
        os.execv(path, [str(path)] + sys.argv[1:])
    except OSError as e:
        print(f"rocm-sdk: error: cannot run '{path}': {e.strerror}", file=sys.stderr)
        sys.exit(127)


def _tool(relpath, expand_devel=True):
    def run():
        _exec(relpath, expand_devel)

    return run


amdclang = _tool("lib/llvm/bin/amdclang")
amdclangpp = _tool("lib/llvm/bin/amdclang++")
amdclang_cpp = _tool("lib/llvm/bin/amdclang-cpp")
amdclang_cl = _tool("lib/llvm/bin/amdclang-cl")
amdflang = _tool("lib/llvm/bin/amdflang")
amdlld = _tool("lib/llvm/bin/amdlld")
amd_smi = _tool("bin/amd-smi", expand_devel=False)
hipcc = _tool("bin/hipcc")
hipconfig = _tool("bin/hipconfig")
hipify_clang = _tool("bin/hipify-clang")
hipify_perl = _tool("bin/hipify-perl")
offload_arch = _tool("lib/llvm/bin/offload-arch")
roc_obj = _tool("bin/roc-obj")
roc_obj_extract = _tool("bin/roc-obj-extract")
roc_obj_ls = _tool("bin/roc-obj-ls")
rocm_agent_enumerator = _tool("bin/rocm_agent_enumerator", expand_devel=False)
rocm_info = _tool("bin/rocminfo", expand_devel=False)
rocm_smi = _tool("bin/rocm-smi", expand_devel=False)
roccoremerge = _tool("bin/roccoremerge")
rocgdb = _tool("bin/rocgdb")
rocpd = _tool("bin/rocpd")
rocpd2csv = _tool("bin/rocpd2csv")
rocpd2otf2 = _tool("bin/rocpd2otf2")
rocpd2pftrace = _tool("bin/rocpd2pftrace")
rocpd2summary = _tool("bin/rocpd2summary")
rocprofv3 = _tool("bin/rocprofv3")
rocprofv3_attach = _tool("bin/rocprofv3-attach")
rocprofv3_avail = _tool("bin/rocprofv3-avail")
