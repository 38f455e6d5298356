#!/usr/bin/env bash
# python_rpath: the synthesized wheels' libraries and programs load on their own, as
# TheRock's do (py_packaging.py _extend_rpath + _normalize_rpath: patchelf --add-rpath
# "$ORIGIN/<up>/_rocm_sdk_core/<dep>" per rpath_dep, then DT_RPATH), with no
# rocm_sdk.initialize_process() and no LD_LIBRARY_PATH. A run built here with cc:
#   core-hip_lib_generic   lib/libfakehip.so.5 (RUNPATH $ORIGIN) needing
#                          lib/rocm_sysdeps/lib/libfakesys.so.1 (sysdeps_lib_generic)
#   core-hip_run_generic   bin/fakeinfo (PIE, RUNPATH $ORIGIN/../lib) needing libfakehip
#   rand_lib_gfx110X-all   lib/libfakerand.so.1 (no rpath at all, as Debian ships them)
#                          needing libfakehip.so.5
# installed by pip from the mount into a fresh venv:
#  - readelf -d: exactly upstream's DT_RPATH per package and depth, no DT_RUNPATH (the
#    devel tree's own programs: their DT_RUNPATH made DT_RPATH), and
#    the same as patchelf (upstream's tool) makes of the original with upstream's commands;
#    readelf -a reads every rewritten file without a warning;
#  - a fresh python loads every shared object of the libraries and core wheels with
#    ctypes.CDLL and calls into them (the same files from dist/ do not load);
#  - ldd finds everything; the program runs;
#  - the wheel members equal the originals except where the rewrite says (rockpack
#    wheels writes the same bytes);
#  - a kpack-split copy of the run: the device wheel's library (lib/rand_gfx1100/libdev.so)
#    gets the device rpath_deps (lib, lib/rocm_sysdeps/lib) and loads;
#  - a damaged ELF file (its PT_DYNAMIC beyond the end) leaves out the wheel that holds it,
#    with one log line naming the file; the core wheel is served.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rpath_oracle.sh"
it_init "$@"
PY=/usr/bin/python3
DEPS=/usr/share/python-wheels
command -v cc >/dev/null || skip "cc is not installed"
command -v readelf >/dev/null || skip "readelf is not installed"
ls "$DEPS"/setuptools-*.whl "$DEPS"/wheel-*.whl >/dev/null 2>&1 ||
	skip "python3-setuptools-whl / python3-wheel-whl are not installed"
it_need_venv "$PY"
PIP_OPTS=(--no-cache-dir --disable-pip-version-check --no-input)
for v in $(env | sed -n 's/^\(PIP_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export PIP_CONFIG_FILE=/dev/null
unset LD_LIBRARY_PATH
RUN=30000000002-linux
BAD=30000000003-linux
SPLIT=30000000006-linux

# ---- the store ----
B=$T/build
mkdir -p "$B"
cat >"$B/sys.c" <<'EOF'
int fakesys_value(void) { return 40; }
EOF
cat >"$B/hip.c" <<'EOF'
int fakesys_value(void);
int fakehip_value(void) { return fakesys_value() + 1; }
EOF
cat >"$B/rand.c" <<'EOF'
int fakehip_value(void);
int fakerand_value(void) { return fakehip_value() + 1; }
EOF
cat >"$B/info.c" <<'EOF'
#include <stdio.h>
int fakehip_value(void);
int main(void) { printf("fakeinfo %d\n", fakehip_value()); return fakehip_value() == 41 ? 0 : 3; }
EOF
(
	cd "$B"
	cc -shared -fPIC -O1 -Wl,-soname,libfakesys.so.1 -o libfakesys.so.1 sys.c
	cc -shared -fPIC -O1 -Wl,-soname,libfakehip.so.5 -Wl,-rpath,'$ORIGIN' \
		-Wl,--enable-new-dtags -o libfakehip.so.5.0 hip.c -L. -l:libfakesys.so.1
	ln -sf libfakehip.so.5.0 libfakehip.so.5
	cc -shared -fPIC -O1 -Wl,-soname,libfakerand.so.1 -o libfakerand.so.1.2 rand.c \
		-L. -l:libfakehip.so.5
	cc -fPIE -pie -O1 -Wl,-rpath,'$ORIGIN/../lib' -Wl,--enable-new-dtags -o fakeinfo info.c \
		-L. -l:libfakehip.so.5 -Wl,--allow-shlib-undefined
) || die "cc"


# mkrun RUNDIR RANDLIB: the run (RANDLIB: the libfakerand.so.1.2 to ship)
mkrun() {
	local rd=$1 rand=$2
	mkdir -p "$rd/manifests"
	printf '{"rocm_package_version": "7.13.0.dev0", "rocm_version": "7.13.0"}\n' \
		>"$rd/manifests/therock_manifest.json"
	it_mkart "$rd" sysdeps_lib_generic third-party/sysdeps/linux/stage \
		"$B/libfakesys.so.1:lib/rocm_sysdeps/lib/libfakesys.so.1"
	it_mkart "$rd" core-hip_lib_generic core/clr/stage \
		"$B/libfakehip.so.5.0:lib/libfakehip.so.5.0" \
		"libfakehip.so.5.0:lib/libfakehip.so.5:link"
	it_mkart "$rd" core-hip_run_generic core/clr/stage "$B/fakeinfo:bin/fakeinfo"
	it_mkart "$rd" rand_test_gfx110X-all math-libs/rocRAND/stage "$B/fakeinfo:bin/rand-test"
	it_mkart "$rd" rand_lib_gfx110X-all math-libs/rocRAND/stage \
		"$rand:lib/libfakerand.so.1.2" "libfakerand.so.1.2:lib/libfakerand.so.1:link"
}
S=$T/store
mkrun "$S/$RUN" "$B/libfakerand.so.1.2"
# the damaged copy: PT_DYNAMIC's offset far beyond the end of the file
python3 - "$B/libfakerand.so.1.2" "$B/bad.so" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
phoff, = struct.unpack_from("<Q", b, 32)
phnum, = struct.unpack_from("<H", b, 56)
for i in range(phnum):
    o = phoff + 56 * i
    if struct.unpack_from("<I", b, o)[0] == 2:
        struct.pack_into("<Q", b, o + 8, 0x7f7f7f7f7f7f)
open(sys.argv[2], "wb").write(b)
EOF
mkrun "$S/$BAD" "$B/bad.so"
# a kpack-split run: its device wheel's library gets the device rpath_deps
R6=$S/$SPLIT
mkdir -p "$R6/manifests"
printf '{"rocm_package_version": "7.13.0.dev0", "flags": {"KPACK_SPLIT_ARTIFACTS": true}}\n' \
	>"$R6/manifests/therock_manifest.json"
for a in sysdeps_lib_generic core-hip_lib_generic; do
	cp "$S/$RUN/$a.tar.zst" "$S/$RUN/$a.tar.zst.sha256sum" "$R6/"
done
it_mkart "$R6" rand_lib_generic math-libs/rocRAND/stage "$B/libfakerand.so.1.2:lib/libfakerand.so.1.2" \
	"libfakerand.so.1.2:lib/libfakerand.so.1:link"
it_mkart "$R6" rand_lib_gfx1100 math-libs/rocRAND/stage "$B/libfakerand.so.1.2:lib/rand_gfx1100/libdev.so"

M=$T/mnt
it_mount fs "$S" "$M" "$T/cache"
P=$M/$RUN/python
ls "$P/files" >"$T/files" || die "ls python/files"
for w in rocm_sdk_core rocm_sdk_libraries_gfx110X_all; do
	grep -q "^$w-7.13.0.dev0-" "$T/files" || fail "$w: not served ($(tr '\n' ' ' <"$T/files"))"
done

# the originals do not load on their own (what the rewrite is for)
D=$M/$RUN/dist/gfx110X-all
"$PY" -c "import ctypes, sys; ctypes.CDLL(sys.argv[1])" "$D/lib/libfakerand.so.1" 2>/dev/null &&
	fail "dist/'s libfakerand.so.1 loads without the rewrite: the test proves nothing"

# ---- installed by pip ----
V=$T/venv
it_venv "$PY" "$V" || die "venv"
"$V/bin/pip" install "${PIP_OPTS[@]}" --index-url "file://$P/simple/" --find-links "$DEPS" \
	'rocm[libraries,devel]' >"$T/pip.log" 2>&1 || {
	tail -n 30 "$T/pip.log" >&2
	die "pip install rocm[libraries,devel]"
}
SITE=$("$V/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
CORE=$SITE/_rocm_sdk_core
LIBS=$SITE/_rocm_sdk_libraries_gfx110X_all

# check_rpath FILE WANT: readelf -d shows DT_RPATH WANT and no DT_RUNPATH; readelf -a is clean
check_rpath() {
	local f=$1 want=$2 got
	[ -f "$f" ] || {
		fail "$f: not installed"
		return
	}
	got=$(readelf -d "$f" | sed -n 's/.*(RPATH).*Library rpath: \[\(.*\)\]$/\1/p')
	[ "$got" = "$want" ] || fail "$(basename "$f"): DT_RPATH '$got', want '$want'"
	! readelf -d "$f" | grep -q RUNPATH || fail "$(basename "$f"): still has a DT_RUNPATH"
	readelf -a -W "$f" >"$T/readelf.out" 2>&1 || fail "$(basename "$f"): readelf -a failed"
	! grep -E '^readelf: (Warning|Error)' "$T/readelf.out" >&2 || fail "$(basename "$f"): readelf complains"
}
oracle "$LIBS/lib/libfakerand.so.1" "$D/lib/libfakerand.so.1" ../.. lib lib/rocm_sysdeps/lib \
	lib/host-math/lib lib/llvm/lib
oracle "$CORE/lib/libfakehip.so.5" "$D/lib/libfakehip.so.5" ../.. lib/llvm/lib lib/rocm_sysdeps/lib
oracle "$CORE/bin/fakeinfo" "$D/bin/fakeinfo" ../.. lib/llvm/lib lib/rocm_sysdeps/lib
oracle "$CORE/lib/rocm_sysdeps/lib/libfakesys.so.1" "$D/lib/rocm_sysdeps/lib/libfakesys.so.1" \
	../../../.. lib/llvm/lib lib/rocm_sysdeps/lib
up2='$ORIGIN/../../_rocm_sdk_core'
check_rpath "$LIBS/lib/libfakerand.so.1" \
	"$up2/lib:$up2/lib/rocm_sysdeps/lib:$up2/lib/host-math/lib:$up2/lib/llvm/lib"
check_rpath "$CORE/lib/libfakehip.so.5" \
	"\$ORIGIN:$up2/lib/llvm/lib:$up2/lib/rocm_sysdeps/lib"
up4='$ORIGIN/../../../../_rocm_sdk_core'
check_rpath "$CORE/lib/rocm_sysdeps/lib/libfakesys.so.1" \
	"$up4/lib/llvm/lib:$up4/lib/rocm_sysdeps/lib"
check_rpath "$CORE/bin/fakeinfo" "\$ORIGIN/../lib:$up2/lib/llvm/lib:$up2/lib/rocm_sysdeps/lib"

# the devel tree's own programs: DT_RUNPATH made DT_RPATH (_normalize_rpath), same string
"$V/bin/rocm-sdk" path --root >/dev/null || fail "rocm-sdk path --root"
check_rpath "$SITE/_rocm_sdk_devel/bin/rand-test" '$ORIGIN/../lib'

# every shared object loads in a fresh process, nothing preloaded (upstream's core_test.py)
"$PY" - "$CORE" "$LIBS" <<'EOF' || fail "ctypes.CDLL of the installed libraries"
import ctypes, pathlib, sys
bad = 0
for d in sys.argv[1:]:
    for f in sorted(pathlib.Path(d).rglob("*.so*")):
        try:
            ctypes.CDLL(str(f))
        except OSError as e:
            print("cannot load", f, e, file=sys.stderr)
            bad = 1
lib = ctypes.CDLL(sys.argv[2] + "/lib/libfakerand.so.1")
if lib.fakerand_value() != 42:
    print("fakerand_value() is", lib.fakerand_value(), file=sys.stderr)
    bad = 1
sys.exit(bad)
EOF
for f in "$LIBS/lib/libfakerand.so.1" "$CORE/lib/libfakehip.so.5" "$CORE/bin/fakeinfo"; do
	ldd "$f" >"$T/ldd.out" 2>&1 || fail "ldd $(basename "$f") failed"
	! grep -q 'not found' "$T/ldd.out" || fail "ldd $(basename "$f"): $(grep 'not found' "$T/ldd.out")"
done
[ "$("$CORE/bin/fakeinfo")" = "fakeinfo 41" ] || fail "the installed fakeinfo does not run"

# the rest of each file is the original's: its dynamic symbols and loadable bytes are the same
for pair in "$LIBS/lib/libfakerand.so.1:$D/lib/libfakerand.so.1" \
	"$CORE/lib/libfakehip.so.5:$D/lib/libfakehip.so.5"; do
	a=${pair%%:*} b=${pair#*:}
	cmp -s <(readelf -W --dyn-syms "$a") <(readelf -W --dyn-syms "$b") ||
		fail "$(basename "$a"): dynamic symbols differ from dist/'s"
	cmp -s <(objdump -d "$a" | tail -n +3) <(objdump -d "$b" | tail -n +3) ||
		fail "$(basename "$a"): code differs from dist/'s"
done

# the split run's device wheel
V6=$T/venv-split
it_venv "$PY" "$V6" || die "venv"
ROCM_SDK_TARGET_FAMILY=gfx1100 "$V6/bin/pip" install "${PIP_OPTS[@]}" \
	--index-url "file://$M/$SPLIT/python/simple/" --find-links "$DEPS" \
	'rocm[libraries,device]' >"$T/pip.log" 2>&1 || {
	tail -n 30 "$T/pip.log" >&2
	die "pip install rocm[libraries,device] (split run)"
}
SITE6=$("$V6/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
up3='$ORIGIN/../../../_rocm_sdk_core'
check_rpath "$SITE6/_rocm_sdk_libraries/lib/rand_gfx1100/libdev.so" "$up3/lib:$up3/lib/rocm_sysdeps/lib"
check_rpath "$SITE6/_rocm_sdk_libraries/lib/libfakerand.so.1" \
	"$up2/lib:$up2/lib/rocm_sysdeps/lib:$up2/lib/host-math/lib:$up2/lib/llvm/lib"
"$PY" -c 'import ctypes, sys; assert ctypes.CDLL(sys.argv[1]).fakerand_value() == 42' \
	"$SITE6/_rocm_sdk_libraries/lib/rand_gfx1100/libdev.so" || fail "split: the device library does not load"

# rockpack wheels: the same bytes
"$ROCKPACK" -q --cache "$T/cache" wheels "$S" "$RUN" -o "$T/rp" || fail "rockpack wheels"
for w in "$P"/files/*.whl; do
	cmp -s "$w" "$T/rp/$(basename "$w")" || fail "rockpack wheels: $(basename "$w") differs"
done
it_quiet_log fs

# ---- the damaged library ----
ls "$M/$BAD/python/files" >"$T/bad.files" || die "ls the damaged run's python/files"
grep -q '^rocm_sdk_core-' "$T/bad.files" || fail "damaged run: the core wheel is not served"
! grep -q '^rocm_sdk_libraries' "$T/bad.files" || fail "damaged run: the libraries wheel is served"
n=$(grep -c 'libfakerand.so.1' "${IT_LOG[fs]}" || true)
[ "$n" = 1 ] || fail "damaged run: want one log line naming libfakerand.so.1, got $n"
python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).read("_rocm_sdk_core/lib/libfakehip.so.5")' \
	"$M/$BAD/python/files/$(grep '^rocm_sdk_core-.*whl$' "$T/bad.files")" || fail "damaged run: the core wheel does not read"
it_finish
