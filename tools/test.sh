#!/usr/bin/env bash
# The README's second command: install what is needed, build with warnings as errors,
# and run the whole test suite, each test once in the strictest build that suits it:
# the integration tests under ASan+UBSan in an optimized build (-O1), the rest (unit,
# layers, fuzz replay, the demo, the install layout, the upstream-oracle and tools-bound
# tests) in the release build, the unit and fuzz tiers in both; then the daemon's
# concurrency tests again under TSan, and FUSE passthrough (ASan+UBSan) against
# libfuse 3.17.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
jobs=$(nproc)

bash packaging/install-deps.sh --tests

step() { printf '\n==== %s\n' "$*"; }

step "release build (-Werror): unit, layers, fuzz replay, install (the demo store, the layout), upstream, tools-bound"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRK_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
# (the integration tests with neither of the last two labels run once, under ASan below)
ctest --test-dir build --output-on-failure -j"$jobs" \
	-L 'unit|layers|fuzz|install|upstream|tools-bound'

step "ASan+UBSan build: unit, fuzz replay, integration"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# -O1: optimized code, as what users run is, with stack traces still whole
# (-fno-omit-frame-pointer); the tests' time is the tools and the kernel, not our code
# (integration.kpack_split: the same CPU seconds at -O0 and -O1)
CC=clang cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG='-g -O1' \
	-DRK_WERROR=ON -DRK_SANITIZE=address,undefined >/dev/null
cmake --build build-asan -j"$jobs"
# (not the two tests labelled `upstream`: they time upstream's package builders, not ours;
# nor those labelled `tools-bound`: their time is the tools they check with, and siblings
# drive their daemon paths under ASan; tests/integration/CMakeLists.txt names them)
ctest --test-dir build-asan --output-on-failure -j"$jobs" -L 'unit|fuzz|integration' \
	-LE 'upstream|tools-bound'

step "libfuse 3.17 build (Debian 13's source), ASan+UBSan: FUSE passthrough"
# Debian 12's libfuse (3.14) has no passthrough API: fs/passthrough.c is built and run
# here against libfuse 3.17 built from Debian 13's source package into the build tree
# (packaging/build-libfuse.sh, cached: built once), with a few read tests, under the
# ASan tier's options
lib=$(dirname "$(find "$(bash packaging/build-libfuse.sh "$top/build-libfuse")" -name fuse3.pc)")/..
lib=$(cd "$lib" && pwd)
PKG_CONFIG_PATH=$lib/pkgconfig CC=clang cmake -S . -B build-fuse317 -DCMAKE_BUILD_TYPE=Debug \
	-DCMAKE_C_FLAGS_DEBUG='-g -O1' -DRK_WERROR=ON -DRK_SANITIZE=address,undefined \
	-DCMAKE_BUILD_RPATH="$lib" >/dev/null
cmake --build build-fuse317 -j"$jobs" --target rockfs rockpack
build-fuse317/fs/rockfs --version | grep -q '^FUSE library version 3\.17' ||
	{ echo "build-fuse317/fs/rockfs does not run with libfuse 3.17" >&2; exit 1; }
RK_REQUIRE_PASSTHROUGH=1 ctest --test-dir build-fuse317 --output-on-failure -j"$jobs" \
	-R '^(demo\.store|integration\.(passthrough|read_sizes|stream_member|readonly|status))$'

step "TSan build: the daemon under concurrent readers"
# clang 14's TSan needs the address-space layout it was built for; kernels with more
# mmap randomization break it, so the TSan tests run with ASLR off (setarch -R).
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$top/tests/tsan.supp"
CC=clang cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG='-g -O1' \
	-DRK_WERROR=ON -DRK_SANITIZE=thread >/dev/null
# (only the two programs: these tests run nothing else of the build)
cmake --build build-tsan -j"$jobs" --target rockfs rockpack
setarch "$(uname -m)" -R ctest --test-dir build-tsan --output-on-failure -j"$jobs" \
	-L integration -R 'demo|concurrent|stream_member|shared_cache|tarballs|dist|kpack_split|remote_s3|remote_faults|python_index|packages_rpm|packages_deb|list_live|run_live|read_ahead|status|memory_target'

step "all test tiers passed"
