"""Installation self-tests of the ROCm SDK (`rocm-sdk test`), rockfs's own.

They follow what TheRock's rocm_sdk/tests check (build_tools/packaging/python/
templates/rocm/src/rocm_sdk/tests/, at 89553ce) but only what runs without a
GPU: the package layout, the command line, every shared library of the
installed runtime packages loading in a fresh process without
initialize_process() (RPATH), the console scripts being there, and a devel
tree without dangling links. docs/python-sdk.md lists the differences.
"""
