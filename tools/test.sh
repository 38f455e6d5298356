#!/usr/bin/env bash
# The README's second command: install what is needed, build with warnings as errors,
# and run the whole test suite: every tier in a release build, then the unit, fuzz
# and integration tiers under ASan+UBSan (but the upstream-oracle builds), then the
# daemon's concurrency tests under TSan.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
jobs=$(nproc)

bash packaging/install-deps.sh --tests

step() { printf '\n==== %s\n' "$*"; }

step "release build (-Werror), all tests"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRK_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"

step "ASan+UBSan build: unit, fuzz replay, integration"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
CC=clang cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DRK_WERROR=ON \
	-DRK_SANITIZE=address,undefined >/dev/null
cmake --build build-asan -j"$jobs"
# (not the two tests labelled `upstream`: they time upstream's package builders, not ours;
# nor those labelled `tools-bound`: their time is the tools they check with, and siblings
# drive their daemon paths under ASan; tests/integration/CMakeLists.txt names them)
ctest --test-dir build-asan --output-on-failure -j"$jobs" -L 'unit|fuzz|integration' \
	-LE 'upstream|tools-bound'

step "TSan build: the daemon under concurrent readers"
# clang 14's TSan needs the address-space layout it was built for; kernels with more
# mmap randomization break it, so the TSan tests run with ASLR off (setarch -R).
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$top/tests/tsan.supp"
CC=clang cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Debug -DRK_WERROR=ON \
	-DRK_SANITIZE=thread >/dev/null
cmake --build build-tsan -j"$jobs"
setarch "$(uname -m)" -R ctest --test-dir build-tsan --output-on-failure -j"$jobs" \
	-L integration -R 'demo|concurrent|stream_member|shared_cache|tarballs|dist|kpack_split|remote_s3|remote_faults|python_index|packages_rpm|packages_deb|list_live|run_live|read_ahead|status|memory_target'

step "all test tiers passed"
