#!/usr/bin/env bash
# python_upstream: TheRock's own rocm_sdk package (its templates at 89553ce, vendored in
# tests/integration/upstream_therock/) works over the wheels rockfs synthesizes. Runs built
# here with cc (core: libamdhip64.so.7, share/therock/dist_info.json; libraries:
# libhiprand.so.1 needing it; devel: a header and the .so links):
#  - a legacy run: pip installs rocm[libraries,devel] from the mount, then upstream's
#    rocm_sdk replaces ours (its _dist_info.py with the lines py_packaging.py appends, as
#    its sdist has them); upstream's `rocm-sdk version`, `targets`, `path --root/--bin/
#    --cmake` work, its devel expansion leaves no dangling link and records the files in
#    RECORD (pip uninstall rocm-sdk-devel removes the tree), its find_libraries finds
#    amdhip64 and hiprand in our core and libraries packages and preload_libraries loads
#    them;
#  - upstream's own installation tests that need no GPU (its base_test, libraries_test and
#    devel_test, vendored too) pass over that install: the legacy run also has the
#    libraries they preload by name (amd_comgr, hiprtc, rocm_kpack), bin/hipconfig (prints
#    its tree's root for --rocmpath), lib/cmake/hip/hip-config.cmake, lib/llvm/bin/clang++
#    and the llvm -> lib/llvm link;
#  - a kpack-split run with a device wheel: upstream's expansion reads our
#    .devel_links/<target>.json and hardlinks the device file into the devel tree;
#  - our rocm-sdk test passes over the same install (with our rocm_sdk), and fails once a
#    library the libraries wheel needs is removed.
. "$(dirname "$0")/lib.sh"
it_init "$@"
PY=/usr/bin/python3
DEPS=/usr/share/python-wheels
UP=$(cd "$(dirname "$0")/upstream_therock/build_tools/packaging/python/templates/rocm/src" && pwd)
command -v cc >/dev/null || skip "cc is not installed"
ls "$DEPS"/setuptools-*.whl "$DEPS"/wheel-*.whl >/dev/null 2>&1 ||
	skip "python3-setuptools-whl / python3-wheel-whl are not installed"
it_need_venv "$PY"
"$PY" -c 'import sys; sys.exit(sys.version_info < (3, 10))' ||
	skip "upstream's rocm_sdk needs Python 3.10 or later"
PIP_OPTS=(--no-cache-dir --disable-pip-version-check --no-input --find-links "$DEPS")
for v in $(env | sed -n 's/^\(PIP_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export PIP_CONFIG_FILE=/dev/null
unset LD_LIBRARY_PATH ROCM_SDK_TARGET_FAMILY ROCM_SDK_PRELOAD_LIBRARIES
LEGACY=30000000011-linux
SPLIT=30000000012-linux
VER=7.13.0.dev0
TARGETS="gfx1100;gfx1101"

# ---- the store ----
B=$T/build
mkdir -p "$B"
echo 'int hip_value(void) { return 7; }' >"$B/hip.c"
echo 'int hip_value(void); int hiprand_value(void) { return hip_value() + 1; }' >"$B/rand.c"
(
	cd "$B"
	cc -shared -fPIC -O1 -Wl,-soname,libamdhip64.so.7 -o libamdhip64.so.7.13 hip.c
	ln -sf libamdhip64.so.7.13 libamdhip64.so.7
	cc -shared -fPIC -O1 -Wl,-soname,libhiprand.so.1 -o libhiprand.so.1.1 rand.c \
		-L. -l:libamdhip64.so.7
	for l in libhiprtc.so.7 libamd_comgr.so.3 librocm_kpack.so.1; do
		cc -shared -fPIC -O1 -Wl,-soname,$l -o $l hip.c
	done
	echo 'int main(void) { return 0; }' >clang.c && cc -O1 -o clang clang.c
) || die "cc"
printf '#!/bin/sh\n[ "$1" = --rocmpath ] && cd "$(dirname "$0")/.." && pwd\n' >"$B/hipconfig"
chmod 755 "$B/hipconfig"
printf '{"dist_amdgpu_targets": "%s"}\n' "$TARGETS" >"$B/dist_info.json"
echo "gfx1100 code" >"$B/kernels.co"

# common RUNDIR FLAGS: the manifest and the generic artifacts
common() {
	mkdir -p "$1/manifests"
	printf '{"rocm_package_version": "%s", "flags": {%s}}\n' "$VER" "$2" \
		>"$1/manifests/therock_manifest.json"
	it_mkart "$1" base_lib_generic base/aux-overlay/stage "$B/dist_info.json:share/therock/dist_info.json"
	it_mkart "$1" core-hip_lib_generic core/clr/stage "$B/libamdhip64.so.7.13:lib/libamdhip64.so.7.13" \
		"libamdhip64.so.7.13:lib/libamdhip64.so.7:link"
	it_mkart "$1" core-hip_dev_generic core/clr/stage "$B/hip.c:include/hip/hip_runtime.h" \
		"libamdhip64.so.7:lib/libamdhip64.so:link"
}
S=$T/store
common "$S/$LEGACY" ""
# what upstream's tests need besides
it_mkart "$S/$LEGACY" core-runtime_lib_generic core/ROCR-Runtime/stage \
	"$B/libhiprtc.so.7:lib/libhiprtc.so.7" "$B/libamd_comgr.so.3:lib/libamd_comgr.so.3" \
	"$B/librocm_kpack.so.1:lib/librocm_kpack.so.1"
it_mkart "$S/$LEGACY" core-hip_run_generic core/clr/stage "$B/hipconfig:bin/hipconfig"
it_mkart "$S/$LEGACY" amd-llvm_run_generic compiler/amd-llvm/stage "$B/clang:lib/llvm/bin/clang++"
it_mkart "$S/$LEGACY" amd-llvm_dev_generic compiler/amd-llvm/stage "lib/llvm:llvm:link" \
	"$B/dist_info.json:lib/cmake/hip/hip-config.cmake"
it_mkart "$S/$LEGACY" rand_lib_gfx110X-all math-libs/hipRAND/stage \
	"$B/libhiprand.so.1.1:lib/libhiprand.so.1.1" "libhiprand.so.1.1:lib/libhiprand.so.1:link"
it_mkart "$S/$LEGACY" rand_dev_gfx110X-all math-libs/hipRAND/stage "$B/rand.c:include/hiprand/hiprand.h" \
	"libhiprand.so.1:lib/libhiprand.so:link"
common "$S/$SPLIT" '"KPACK_SPLIT_ARTIFACTS": true'
it_mkart "$S/$SPLIT" rand_lib_generic math-libs/hipRAND/stage \
	"$B/libhiprand.so.1.1:lib/libhiprand.so.1.1" "libhiprand.so.1.1:lib/libhiprand.so.1:link"
it_mkart "$S/$SPLIT" rand_dev_generic math-libs/hipRAND/stage "$B/rand.c:include/hiprand/hiprand.h"
it_mkart "$S/$SPLIT" rand_lib_gfx1100 math-libs/hipRAND/stage "$B/kernels.co:lib/hiprand/kernels_gfx1100.co"

M=$T/mnt
it_mount fs "$S" "$M" "$T/cache"

# install RUN VENV SPEC FAMILY: our set from the run's simple/ into a fresh venv
install() {
	it_venv "$PY" "$2" || die "venv"
	ROCM_SDK_TARGET_FAMILY=$4 PATH="$2/bin:/usr/bin:/bin" "$2/bin/pip" install "${PIP_OPTS[@]}" \
		--index-url "file://$M/$1/python/simple/" "$3" >"$T/pip.log" 2>&1 ||
		{ fail "$1: pip install $3"; tail -n 30 "$T/pip.log" >&2; return 1; }
}

# upstream VENV KPACK FAMILY: replace our rocm_sdk with upstream's, _dist_info.py completed
# as py_packaging.py writes it into the rocm sdist
upstream() {
	local site
	site=$("$1/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
	rm -rf "$site/rocm_sdk"
	cp -r "$UP/rocm_sdk" "$site/rocm_sdk"
	{
		printf "__version__ = '%s'\nPY_PACKAGE_SUFFIX_NONCE = ''\n" "$VER"
		[ "$2" = 1 ] && printf 'ALL_PACKAGES["libraries"].dist_package_template = "rocm-sdk-libraries"\n'
		printf "DEFAULT_TARGET_FAMILY = '%s'\nAVAILABLE_TARGET_FAMILIES.append('%s')\n" "$3" "$3"
		printf "LINUX_TARGET_FAMILIES.append('%s')\n" "$3"
		printf "THIS_TARGET_FAMILY = None\nTHIS_PACKAGE_ENTRY = ALL_PACKAGES['meta']\n"
	} >>"$site/rocm_sdk/_dist_info.py"
	"$1/bin/python" -c 'import rocm_sdk, sys; sys.exit("Copyright Advanced Micro Devices" not in open(rocm_sdk.__file__).read())' ||
		fail "upstream's rocm_sdk is not the one imported"
}

# expect WANT CMD...: CMD prints WANT (and succeeds)
expect() {
	local want=$1 got
	shift
	got=$("$@" 2>&1) || { fail "$*: failed: $got"; return; }
	[ "$got" = "$want" ] || fail "$*: printed '$got', want '$want'"
}

# ---- the legacy run, upstream's rocm_sdk ----
V=$T/venv-legacy
if install $LEGACY "$V" 'rocm[libraries,devel]' gfx110X-all; then
	SITE=$("$V/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
	upstream "$V" 0 gfx110X-all
	expect "$VER" "$V/bin/python" -m rocm_sdk version
	expect "$TARGETS" "$V/bin/python" -m rocm_sdk targets
	expect "$SITE/_rocm_sdk_devel" "$V/bin/python" -m rocm_sdk path --root
	expect "$SITE/_rocm_sdk_devel/bin" "$V/bin/python" -m rocm_sdk path --bin
	expect "$SITE/_rocm_sdk_devel/lib/cmake" "$V/bin/python" -m rocm_sdk path --cmake
	[ -f "$SITE/_rocm_sdk_devel/include/hiprand/hiprand.h" ] || fail "legacy: upstream's expansion: no hiprand.h"
	[ -z "$(find "$SITE/_rocm_sdk_devel" -xtype l)" ] || fail "legacy: dangling links after upstream's expansion"
	[ "$(stat -c %i "$SITE/_rocm_sdk_devel/lib/libhiprand.so.1")" = \
		"$(stat -c %i "$SITE/_rocm_sdk_libraries_gfx110X_all/lib/libhiprand.so.1")" ] ||
		fail "legacy: the devel tree's libhiprand.so.1 is not the libraries wheel's"
	"$V/bin/python" - "$SITE" <<'EOF' || fail "legacy: upstream's find_libraries / preload_libraries over our wheels"
import sys
from pathlib import Path
import rocm_sdk
site = Path(sys.argv[1])
hip, rand = rocm_sdk.find_libraries("amdhip64", "hiprand")
assert hip.parent == site / "_rocm_sdk_core" / "lib", hip
assert rand.parent == site / "_rocm_sdk_libraries_gfx110X_all" / "lib", rand
rocm_sdk.initialize_process(preload_shortnames=["amdhip64", "hiprand"],
                            check_version=rocm_sdk.__version__, fail_on_version_mismatch=True)
assert rocm_sdk._ALL_CDLLS["hiprand"].hiprand_value() == 8
EOF
	# upstream's own tests (those that need no GPU) over our wheels
	PATH="$V/bin:/usr/bin:/bin" "$V/bin/python" -m unittest -v rocm_sdk.tests.base_test \
		rocm_sdk.tests.libraries_test rocm_sdk.tests.devel_test >"$T/uptest.log" 2>&1 ||
		{ fail "legacy: upstream's base/libraries/devel tests"; grep -E "FAIL|ERROR|Error" "$T/uptest.log" | head -n 20 >&2; }
	grep -q "^Ran [1-9][0-9] tests" "$T/uptest.log" || fail "legacy: upstream's tests did not run ($(tail -n 3 "$T/uptest.log" | tr '\n' ' '))"
	"$V/bin/pip" uninstall -y rocm-sdk-devel >"$T/pip.log" 2>&1 || fail "legacy: pip uninstall rocm-sdk-devel"
	[ ! -e "$SITE/_rocm_sdk_devel" ] || fail "legacy: pip uninstall left upstream's expanded devel tree"
fi

# ---- the kpack-split run: upstream's expansion and our device links ----
V=$T/venv-split
if install $SPLIT "$V" 'rocm[libraries,devel,device]' gfx1100; then
	SITE=$("$V/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
	"$V/bin/pip" show rocm-sdk-device-gfx1100 >/dev/null 2>&1 || fail "split: the device wheel is not installed"
	upstream "$V" 1 gfx1100
	expect "$SITE/_rocm_sdk_devel" "$V/bin/python" -m rocm_sdk path --root
	K=lib/hiprand/kernels_gfx1100.co
	[ -f "$SITE/_rocm_sdk_devel/$K" ] && [ "$(stat -c %i "$SITE/_rocm_sdk_devel/$K")" = \
		"$(stat -c %i "$SITE/_rocm_sdk_libraries/$K")" ] ||
		fail "split: upstream's expansion did not link the device file from our .devel_links"
	[ -z "$(find "$SITE/_rocm_sdk_devel" -xtype l)" ] || fail "split: dangling links after upstream's expansion"
	expect "$TARGETS" "$V/bin/python" -m rocm_sdk targets
fi

# ---- our rocm-sdk test over the same kind of install ----
V=$T/venv-ours
if install $LEGACY "$V" 'rocm[libraries,devel]' gfx110X-all; then
	SITE=$("$V/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
	"$V/bin/rocm-sdk" test >"$T/test.log" 2>&1 || { fail "rocm-sdk test"; tail -n 40 "$T/test.log" >&2; }
	for t in testSharedLibrariesLoad testNoDanglingLinks testLibrariesMirroredIntoDevel testTargets; do
		grep -A1 "^$t " "$T/test.log" | grep -q '\.\.\. ok$' || fail "rocm-sdk test: $t did not pass"
	done
	rm "$SITE/_rocm_sdk_core/lib/libamdhip64.so.7"
	if "$V/bin/rocm-sdk" test >"$T/test.log" 2>&1; then
		fail "rocm-sdk test passes without the libamdhip64 libhiprand needs"
	fi
	grep -q "libamdhip64.so.7: cannot open shared object file" "$T/test.log" ||
		fail "rocm-sdk test: the failure does not name the missing library"
fi
it_quiet_log fs
it_finish
