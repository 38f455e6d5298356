#!/usr/bin/env bash
# python_rpath_debian: real ROCm binaries (Debian 12's libamdhip64-5, libhsa-runtime64-1,
# libhsakmt1, libamd-comgr2 in the core wheel; librocrand1, a fat library, in a legacy
# run's libraries wheel), none of them with an rpath that finds the others in a wheel
# layout. After pip installs rocm[libraries] from the mount into a fresh venv, a fresh
# python loads every library of the libraries wheel with ctypes.CDLL, without
# rocm_sdk.initialize_process() and without LD_LIBRARY_PATH (upstream's core_test.py
# does this for its wheels), ldd finds every dependency, readelf -a reads the rewritten
# files without a warning, and their DT_RPATH is what patchelf (upstream's tool) makes. The packages come from the apt cache, the kept
# downloads beside the demo store, or `apt-get download`; without them the test is skipped.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rpath_oracle.sh"
it_init "$@"
PY=/usr/bin/python3
DEPS=/usr/share/python-wheels
command -v dpkg-deb >/dev/null || skip "not a Debian system"
ls "$DEPS"/setuptools-*.whl "$DEPS"/wheel-*.whl >/dev/null 2>&1 ||
	skip "python3-setuptools-whl / python3-wheel-whl are not installed"
it_need_venv "$PY"
PIP_OPTS=(--no-cache-dir --disable-pip-version-check --no-input)
for v in $(env | sed -n 's/^\(PIP_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export PIP_CONFIG_FILE=/dev/null
unset LD_LIBRARY_PATH
RUN=30000000005-linux

# the packages, kept between runs beside the demo store
DEBS=$(dirname "$STORE")/debian-debs
mkdir -p "$DEBS"
X=$T/deb
for pkg in libamdhip64-5 libhsa-runtime64-1 libhsakmt1 libamd-comgr2 librocrand1; do
	f=$(ls "$DEBS/${pkg}"_*.deb /var/cache/apt/archives/"${pkg}"_*.deb 2>/dev/null | head -1) || true
	if [ -z "$f" ]; then
		(cd "$DEBS" && apt-get download "$pkg" >"$T/apt.log" 2>&1) ||
			{ cat "$T/apt.log" >&2; skip "apt-get download $pkg failed (offline?)"; }
		f=$(ls "$DEBS/${pkg}"_*.deb | head -1)
	fi
	dpkg-deb -x "$f" "$X" || die "dpkg-deb -x $f"
done
L=$X/usr/lib/x86_64-linux-gnu

# fileargs DIR NAME...: "real:lib/real" and "real:lib/link:link" for each library and its
# soname link
libs() {
	local n f
	for n in "$@"; do
		f=$(readlink -f "$L/$n")
		printf '%s\n' "$f:lib/$(basename "$f")" "$(basename "$f"):lib/$n:link"
	done
}
S=$T/store
R=$S/$RUN
mkdir -p "$R/manifests"
printf '{"rocm_package_version": "7.13.0.dev0", "rocm_version": "7.13.0"}\n' \
	>"$R/manifests/therock_manifest.json"
mapfile -t a < <(libs libamdhip64.so.5)
it_mkart "$R" core-hip_lib_generic core/clr/stage "${a[@]}"
mapfile -t a < <(libs libhsa-runtime64.so.1 libhsakmt.so.1)
it_mkart "$R" core-runtime_lib_generic core/rocr-runtime/stage "${a[@]}"
mapfile -t a < <(libs libamd_comgr.so.2)
it_mkart "$R" amd-llvm_lib_generic compiler/amd-comgr/stage "${a[@]}"
mapfile -t a < <(libs librocrand.so.1)
it_mkart "$R" rand_lib_gfx90X-dcgpu math-libs/rocRAND/stage "${a[@]}"

M=$T/mnt
it_mount fs "$S" "$M" "$T/cache"
P=$M/$RUN/python
V=$T/venv
it_venv "$PY" "$V" || die "venv"
"$V/bin/pip" install "${PIP_OPTS[@]}" --index-url "file://$P/simple/" --find-links "$DEPS" \
	'rocm[libraries]' >"$T/pip.log" 2>&1 || {
	tail -n 30 "$T/pip.log" >&2
	die "pip install rocm[libraries]"
}
SITE=$("$V/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
LIBS=$SITE/_rocm_sdk_libraries_gfx90X_dcgpu
CORE=$SITE/_rocm_sdk_core
[ -f "$LIBS/lib/librocrand.so.1" ] || die "librocrand.so.1 is not installed"

# the original does not load on its own
"$PY" -c "import ctypes, sys; ctypes.CDLL(sys.argv[1])" "$M/$RUN/dist/gfx90X-dcgpu/lib/librocrand.so.1" \
	2>/dev/null && fail "dist/'s librocrand.so.1 loads without the rewrite: the test proves nothing"

"$PY" - "$LIBS" <<'EOP' || fail "ctypes.CDLL of every library of the libraries wheel"
import ctypes, pathlib, sys
bad = 0
for f in sorted(pathlib.Path(sys.argv[1]).rglob("*.so*")):
    try:
        ctypes.CDLL(str(f))
        print("loaded", f.name)
    except OSError as e:
        print("cannot load", f, e, file=sys.stderr)
        bad = 1
sys.exit(bad)
EOP
up2='$ORIGIN/../../_rocm_sdk_core'
for f in "$LIBS/lib/librocrand.so.1" "$CORE/lib/libamdhip64.so.5" "$CORE/lib/libhsa-runtime64.so.1"; do
	readelf -a -W "$f" >"$T/readelf.out" 2>&1 || fail "$(basename "$f"): readelf -a failed"
	! grep -E '^readelf: (Warning|Error)' "$T/readelf.out" | head -5 >&2 ||
		fail "$(basename "$f"): readelf complains"
	! readelf -d "$f" | grep -q RUNPATH || fail "$(basename "$f"): still has a DT_RUNPATH"
	cmp -s <(readelf -W --dyn-syms "$f") <(readelf -W --dyn-syms "$L/$(basename "$f")") ||
		fail "$(basename "$f"): dynamic symbols differ from Debian's"
done
oracle "$LIBS/lib/librocrand.so.1" "$L/librocrand.so.1" ../.. lib lib/rocm_sysdeps/lib \
	lib/host-math/lib lib/llvm/lib
oracle "$CORE/lib/libhsa-runtime64.so.1" "$L/libhsa-runtime64.so.1" ../.. lib/llvm/lib \
	lib/rocm_sysdeps/lib
ldd "$LIBS/lib/librocrand.so.1" >"$T/ldd.out" 2>&1 || fail "ldd librocrand.so.1"
! grep 'not found' "$T/ldd.out" >&2 || fail "ldd librocrand.so.1: a dependency is not found"
grep -q "_rocm_sdk_core/lib/libhsa-runtime64.so.1" "$T/ldd.out" ||
	fail "ldd: libhsa-runtime64 does not come from the core wheel"
got=$(readelf -d "$LIBS/lib/librocrand.so.1" | sed -n 's/.*(RPATH).*Library rpath: \[\(.*\)\]$/\1/p')
[ "$got" = "$up2/lib:$up2/lib/rocm_sysdeps/lib:$up2/lib/host-math/lib:$up2/lib/llvm/lib" ] ||
	fail "librocrand.so.1: DT_RPATH '$got'"
got=$(readelf -d "$CORE/lib/libhsa-runtime64.so.1" | sed -n 's/.*(RPATH).*Library rpath: \[\(.*\)\]$/\1/p')
[ "$got" = "\$ORIGIN:\$ORIGIN/../../lib:\$ORIGIN/../../lib64:\$ORIGIN/../lib64:$up2/lib/llvm/lib:$up2/lib/rocm_sysdeps/lib" ] ||
	fail "libhsa-runtime64.so.1: DT_RPATH '$got'"
it_quiet_log fs
it_finish
