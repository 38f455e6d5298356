#!/usr/bin/env bash
# python_upstream_build: TheRock's own build_python_packages.py (89553ce, vendored in
# tests/integration/upstream_therock/) is the oracle for the Python packages rockfs serves.
# Store: the demo's kpack-split run, its legacy run with two families (its stored wheels
# removed, so python/ synthesizes everything) and a copy of that run with one family
# (TheRock's single-arch layout), each with profiler artifacts (upstream refuses a Linux
# build without them).
#  - upstream's build runs over the mount: --artifact-dir RUN/browse (the layout its
#    fetch step extracts), with patchelf and libmagic, as in TheRock's CI;
#  - wheel_oracle.py: every wheel and sdist it builds is served under the same name in
#    RUN/python/ (files/ or <family>/), with the same members, modes, payload bytes (ELF:
#    the same NEEDED/SONAME/RUNPATH), metadata, console scripts for the programs present,
#    _dist_info values, devel tarball, device links, sdist requirements for every family,
#    and the --find-links pages TheRock's upload step writes (python/<family>/index.html
#    against generate_local_index.py --per-family-indexes for the legacy run,
#    python/index.html against third-party/indexer/indexer.py for the single-family
#    one), but for the differences docs/python-sdk.md lists;
#  - ours over theirs: our rocm sdist (from the mount) installed with upstream's core,
#    libraries, devel (and device, profiler) wheels: `rocm-sdk version`, `targets`, `path
#    --root` (our devel expansion of upstream's tarball, no dangling link) and `rocm-sdk
#    test` pass, for the split run, the legacy run's second family and the single-family
#    run; the only failures are the three console scripts upstream's core wheel declares
#    without a function in its _cli.py (roc-obj, roc-obj-extract, roc-obj-ls: upstream's
#    bug, and running upstream's roc-obj fails the same way).
. "$(dirname "$0")/lib.sh"
it_init "$@"
PY=/usr/bin/python3
DEPS=/usr/share/python-wheels
UP=$(cd "$(dirname "$0")/upstream_therock" && pwd)
TPL=$UP/build_tools/packaging/python/templates
for tool in cc patchelf readelf; do
	command -v $tool >/dev/null || skip "$tool is not installed"
done
"$PY" -c 'import magic, setuptools, wheel' 2>/dev/null ||
	skip "upstream's build needs python3-magic, python3-setuptools and python3-wheel"
ls "$DEPS"/setuptools-*.whl "$DEPS"/wheel-*.whl >/dev/null 2>&1 ||
	skip "python3-setuptools-whl / python3-wheel-whl are not installed"
it_need_venv "$PY"
PIP_OPTS=(--no-cache-dir --disable-pip-version-check --no-input --no-index --find-links "$DEPS")
for v in $(env | sed -n 's/^\(PIP_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export PIP_CONFIG_FILE=/dev/null
unset LD_LIBRARY_PATH ROCM_SDK_TARGET_FAMILY ROCM_SDK_PRELOAD_LIBRARIES
LEGACY=24205988454-linux
SPLIT=24205988455-linux
SINGLE=24205988456-linux

# ---- the store ----
S=$T/store B=$T/build
mkdir -p "$S" "$B"
cp -r "$STORE/$LEGACY" "$STORE/$SPLIT" "$S/"
rm -rf "$S/$LEGACY/python"
cp -r "$S/$LEGACY" "$S/$SINGLE"
rm "$S/$SINGLE/"*_gfx110X-all.*
echo 'int sys_value(void) { return 3; }' >"$B/sys.c"
echo 'int main(void) { return 0; }' >"$B/avail.c"
(
	cd "$B"
	cc -shared -fPIC -O1 -Wl,-soname,librocprof-sys.so.1 -o librocprof-sys.so.1.0 sys.c
	cc -O1 -o rocprof-sys-avail avail.c
) || die "cc"
printf '#!/bin/sh\necho rocprof-compute\n' >"$B/rocprof-compute"
chmod 755 "$B/rocprof-compute"
for run in $LEGACY $SPLIT $SINGLE; do
	it_mkart "$S/$run" rocprofiler-systems_lib_generic profiler/rocprofiler-systems/stage \
		"$B/librocprof-sys.so.1.0:lib/librocprof-sys.so.1.0" \
		"librocprof-sys.so.1.0:lib/librocprof-sys.so.1:link"
	it_mkart "$S/$run" rocprofiler-systems_run_generic profiler/rocprofiler-systems/stage \
		"$B/rocprof-sys-avail:bin/rocprof-sys-avail"
	it_mkart "$S/$run" rocprofiler-compute_run_generic profiler/rocprofiler-compute/stage \
		"$B/rocprof-compute:libexec/rocprofiler-compute/rocprof-compute" \
		"../libexec/rocprofiler-compute/rocprof-compute:bin/rocprof-compute:link"
done
M=$T/mnt
it_mount fs "$S" "$M" "$T/cache"

# ---- upstream's build over the mount, and the comparison ----
for run in $LEGACY $SPLIT $SINGLE; do
	ver=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["rocm_package_version"])' \
		"$M/$run/browse/base_lib_generic/base/aux-overlay/stage/share/therock/therock_manifest.json") ||
		die "$run: no therock_manifest.json in browse/base_lib_generic"
	PYTHONPATH=$UP/../py312_compat "$PY" "$UP/build_tools/build_python_packages.py" \
		--artifact-dir "$M/$run/browse" --dest-dir "$T/up-$run" --version "$ver" \
		>"$T/up-$run.log" 2>&1 || {
		fail "$run: upstream's build_python_packages.py over the mount"
		tail -n 20 "$T/up-$run.log" >&2
		continue
	}
	# the --find-links pages, as TheRock's upload step writes them (none for a kpack-split
	# run: its bucket's listing is the page)
	case $run in
	$LEGACY) "$PY" "$UP/build_tools/packaging/python/generate_local_index.py" \
		"$T/up-$run/dist" --per-family-indexes >>"$T/up-$run.log" 2>&1 ||
		fail "upstream's generate_local_index.py" ;;
	$SINGLE) "$PY" "$UP/third-party/indexer/indexer.py" "$T/up-$run/dist" \
		--filter '*.whl' '*.tar.gz' >>"$T/up-$run.log" 2>&1 || fail "upstream's indexer.py" ;;
	esac
	"$PY" "$(dirname "$0")/wheel_oracle.py" "$T/up-$run/dist" "$M/$run/python" "$TPL" \
		>"$T/oracle-$run.log" 2>&1 || {
		fail "$run: what python/ serves differs from upstream's build"
		grep -v "^compared" "$T/oracle-$run.log" | head -n 20 >&2
	}
	it_say "$run: $(head -c 300 "$T/oracle-$run.log")"
done

# ---- ours over theirs ----
# over RUN VENV FAMILY SDIST EXTRAS UPSTREAM_DIRS...: our sdist with upstream's wheels
over() {
	local run=$1 v=$2 fam=$3 sdist=$4 extras=$5 site links want got
	shift 5
	local finds=()
	for d in "$@"; do finds+=(--find-links "$d"); done
	it_venv "$PY" "$v" || die "venv"
	ROCM_SDK_TARGET_FAMILY=$fam PATH="$v/bin:/usr/bin:/bin" "$v/bin/pip" install "${PIP_OPTS[@]}" \
		"${finds[@]}" "$sdist[$extras]" >"$T/pip.log" 2>&1 ||
		{ fail "$run: pip install our sdist over upstream's wheels"; tail -n 20 "$T/pip.log" >&2; return; }
	site=$("$v/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
	[ -f "$site/rocm_sdk/_locate.py" ] || fail "$run: the rocm_sdk installed is not ours"
	grep -q "^Generator: bdist_wheel" "$site"/rocm_sdk_core-*.dist-info/WHEEL ||
		fail "$run: the core wheel installed is not upstream's"
	export ROCM_SDK_TARGET_FAMILY=$fam
	got=$("$v/bin/rocm-sdk" version 2>&1) && [ "$got" = "$VER" ] ||
		fail "$run: rocm-sdk version printed '$got', want $VER"
	want=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["dist_amdgpu_targets"])' \
		"$site/_rocm_sdk_core/share/therock/dist_info.json")
	got=$("$v/bin/rocm-sdk" targets 2>&1) && [ "$got" = "$want" ] ||
		fail "$run: rocm-sdk targets printed '$got', want '$want'"
	got=$("$v/bin/rocm-sdk" path --root 2>&1) && [ "$got" = "$site/_rocm_sdk_devel" ] ||
		fail "$run: rocm-sdk path --root printed '$got'"
	[ -d "$site/_rocm_sdk_devel/include" ] || fail "$run: our expansion of upstream's devel tarball has no include/"
	links=$(find "$site/_rocm_sdk_devel" -xtype l)
	[ -z "$links" ] || fail "$run: dangling links in the devel tree: $(echo $links | head -c 300)"
	"$v/bin/rocm-sdk" test >"$T/test-$run.log" 2>&1 || true # fails: upstream's roc-obj (below)
	grep -q "^Ran [1-9][0-9]* tests" "$T/test-$run.log" || fail "$run: rocm-sdk test did not run"
	# every test ran: the libraries and devel ones too (skipped when a package is not found)
	for t in libraries_test.ROCmLibrariesTest.testSharedLibrariesLoad \
		devel_test.ROCmDevelTest.testLibrariesMirroredIntoDevel; do
		grep -q "(rocm_sdk.tests.$t)" "$T/test-$run.log" || fail "$run: rocm-sdk test did not run $t"
	done
	! grep -qiE "skipped|NOTE: Skipping" "$T/test-$run.log" ||
		fail "$run: rocm-sdk test skipped: $(grep -iE "skipped|NOTE: Skipping" "$T/test-$run.log" | head -n 3)"
	got=$(grep -E "^(ERROR|FAIL):" "$T/test-$run.log" | sed -n "s/.*(script='\([^']*\)').*/\1/p" | sort | tr '\n' ' ')
	[ "$got" = "roc-obj roc-obj-extract roc-obj-ls " ] &&
		[ "$(grep -cE '^(ERROR|FAIL):' "$T/test-$run.log")" = 3 ] ||
		{ fail "$run: rocm-sdk test over upstream's wheels"; grep -E "^(ERROR|FAIL)|Error" "$T/test-$run.log" | head -n 20 >&2; }
	unset ROCM_SDK_TARGET_FAMILY
}
VER=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["rocm_package_version"])' \
	"$S/$SPLIT/manifests/therock_manifest.json")
SD=rocm-$VER.tar.gz
over $SPLIT "$T/v-split" gfx1100 "$M/$SPLIT/python/files/$SD" libraries,devel,device,profiler \
	"$T/up-$SPLIT/dist"
[ -f "$T/v-split/lib/python3"*/site-packages/_rocm_sdk_libraries/.kpack/rand_lib_gfx1100.kpack ] ||
	fail "split: upstream's device wheel is not installed"
FAM=gfx94X-dcgpu
over $LEGACY "$T/v-legacy" $FAM "$M/$LEGACY/python/$FAM/$SD" libraries,devel,profiler \
	"$T/up-$LEGACY/dist" "$T/up-$LEGACY/dist/$FAM"
over $SINGLE "$T/v-single" $FAM "$M/$SINGLE/python/files/$SD" libraries,devel,profiler \
	"$T/up-$SINGLE/dist"

# upstream's own roc-obj console script is broken the same way (no roc_obj in its _cli.py)
if "$T/v-split/bin/roc-obj" >"$T/rocobj.log" 2>&1; then
	fail "upstream's roc-obj console script runs: update the expected rocm-sdk test failures"
fi
grep -q "roc_obj" "$T/rocobj.log" || fail "upstream's roc-obj fails otherwise: $(tail -n 1 "$T/rocobj.log")"
it_quiet_log fs
it_finish
