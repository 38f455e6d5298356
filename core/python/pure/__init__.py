"""A binary package of the ROCm SDK, synthesized by rockfs.

This pure package only names the wheel and carries its _dist_info.py; the files
are in the sibling platform directory (e.g. _rocm_sdk_core next to
rocm_sdk_core). Use the `rocm_sdk` package (`pip install rocm`) to find them:
rocm_sdk.find_libraries(), `rocm-sdk path`.
"""
