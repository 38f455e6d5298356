# Copyright Advanced Micro Devices, Inc.
# SPDX-License-Identifier: MIT
