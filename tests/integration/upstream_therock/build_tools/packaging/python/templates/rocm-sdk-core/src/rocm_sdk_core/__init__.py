# Copyright Advanced Micro Devices, Inc.
# SPDX-License-Identifier: MIT

from ._dist_info import __version__
