#!/usr/bin/env bash
# python_upstream_profiler: the rocm-profiler wheel, as TheRock builds it from a run's
# rocprofiler-compute and rocprofiler-systems artifacts (build_python_packages.py:
# profiler_artifact_filter, components lib and run; PROFILER_WHEEL_INCLUDES;
# ensure_profiler_library_symlinks; rpath_deps lib, lib/llvm/lib, lib/rocm_sysdeps/lib of
# the core; console scripts of templates/rocm-profiler/setup.py). A run built here with cc:
#   core-hip_lib_generic          lib/libamdhip64.so.7
#   rocprofiler-systems_lib_generic  lib/librocprof-sys.so.1.0 (soname .so.1, needs
#                                 libamdhip64), include/rocprofiler-systems/sys.h,
#                                 share/doc/other/README (not in the includes)
#   rocprofiler-systems_run_generic  bin/rocprof-sys-avail (prints its name and
#                                 LD_LIBRARY_PATH)
#   rocprofiler-compute_run_generic  libexec/rocprofiler-compute/rocprof-compute (a
#                                 script printing PYTHONPATH), bin/rocprof-compute a
#                                 symlink to it
# Checks: the wheel's members (the includes only, the unversioned library name added,
# everything under _rocm_profiler/), its entry_points.txt, Requires-Dist (none), the
# library's DT_RPATH and loading in a fresh python; pip install 'rocm[profiler]' from the
# mount, the console scripts run their programs with upstream's environment; a run
# without profiler artifacts has no rocm-profiler wheel.
. "$(dirname "$0")/lib.sh"
it_init "$@"
PY=/usr/bin/python3
DEPS=/usr/share/python-wheels
command -v cc >/dev/null || skip "cc is not installed"
command -v readelf >/dev/null || skip "readelf is not installed"
ls "$DEPS"/setuptools-*.whl "$DEPS"/wheel-*.whl >/dev/null 2>&1 ||
	skip "python3-setuptools-whl / python3-wheel-whl are not installed"
it_need_venv "$PY"
PIP_OPTS=(--no-cache-dir --disable-pip-version-check --no-input --find-links "$DEPS")
for v in $(env | sed -n 's/^\(PIP_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export PIP_CONFIG_FILE=/dev/null
unset LD_LIBRARY_PATH PYTHONPATH ROCM_SDK_TARGET_FAMILY
RUN=30000000013-linux
BARE=30000000014-linux
VER=7.13.0.dev0

B=$T/build
mkdir -p "$B"
echo 'int hip_value(void) { return 7; }' >"$B/hip.c"
echo 'int hip_value(void); int sys_value(void) { return hip_value() + 2; }' >"$B/sys.c"
cat >"$B/avail.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
	const char *b = strrchr(argv[0], '/'), *l = getenv("LD_LIBRARY_PATH");
	printf("%s %s\n", b ? b + 1 : argv[0], l ? l : "-");
	return 0;
}
EOF
(
	cd "$B"
	cc -shared -fPIC -O1 -Wl,-soname,libamdhip64.so.7 -o libamdhip64.so.7 hip.c
	cc -shared -fPIC -O1 -Wl,-soname,librocprof-sys.so.1 -o librocprof-sys.so.1.0 sys.c \
		-L. -l:libamdhip64.so.7
	cc -O1 -o rocprof-sys-avail avail.c
) || die "cc"
printf '#!/bin/sh\necho "rocprof-compute $PYTHONPATH"\n' >"$B/rocprof-compute"
chmod 755 "$B/rocprof-compute"
echo "doc" >"$B/README"

S=$T/store
for run in $RUN $BARE; do
	mkdir -p "$S/$run/manifests"
	printf '{"rocm_package_version": "%s"}\n' "$VER" >"$S/$run/manifests/therock_manifest.json"
	it_mkart "$S/$run" core-hip_lib_generic core/clr/stage "$B/libamdhip64.so.7:lib/libamdhip64.so.7"
done
it_mkart "$S/$RUN" rocprofiler-systems_lib_generic profiler/rocprofiler-systems/stage \
	"$B/librocprof-sys.so.1.0:lib/librocprof-sys.so.1.0" \
	"librocprof-sys.so.1.0:lib/librocprof-sys.so.1:link" \
	"$B/hip.c:include/rocprofiler-systems/sys.h" "$B/README:share/doc/other/README"
it_mkart "$S/$RUN" rocprofiler-systems_run_generic profiler/rocprofiler-systems/stage \
	"$B/rocprof-sys-avail:bin/rocprof-sys-avail"
it_mkart "$S/$RUN" rocprofiler-compute_run_generic profiler/rocprofiler-compute/stage \
	"$B/rocprof-compute:libexec/rocprofiler-compute/rocprof-compute" \
	"../libexec/rocprofiler-compute/rocprof-compute:bin/rocprof-compute:link"

M=$T/mnt
it_mount fs "$S" "$M" "$T/cache"
P=$M/$RUN/python
W=rocm_profiler-$VER-py3-none-linux_$(uname -m).whl
[ -f "$P/files/$W" ] || die "no $W in python/files ($(ls "$P/files" | tr '\n' ' '))"
"$PY" - "$P/files/$W" "$T" <<'EOF' || fail "the profiler wheel's contents"
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
names = set(z.namelist())
di = "rocm_profiler-7.13.0.dev0.dist-info/"
want = {
    "_rocm_profiler/__init__.py",
    "_rocm_profiler/bin/rocprof-compute",
    "_rocm_profiler/bin/rocprof-sys-avail",
    "_rocm_profiler/include/rocprofiler-systems/sys.h",
    "_rocm_profiler/lib/librocprof-sys.so",
    "_rocm_profiler/lib/librocprof-sys.so.1",
    "_rocm_profiler/libexec/rocprofiler-compute/rocprof-compute",
    "rocm_profiler/__init__.py", "rocm_profiler/_cli.py", "rocm_profiler/_dist_info.py",
    di + "METADATA", di + "WHEEL", di + "entry_points.txt", di + "top_level.txt",
    di + "RECORD",
}
bad = names ^ want
assert not bad, sorted(bad)
ep = z.read(di + "entry_points.txt").decode()
assert ep == ("[console_scripts]\nrocprof-compute = rocm_profiler._cli:rocprof_compute\n"
              "rocprof-sys-avail = rocm_profiler._cli:rocprof_sys_avail\n"), ep
meta = z.read(di + "METADATA").decode()
assert "Name: rocm-profiler\n" in meta and "Requires-Dist" not in meta, meta
assert z.read("_rocm_profiler/lib/librocprof-sys.so") == z.read("_rocm_profiler/lib/librocprof-sys.so.1")
assert "THIS_PACKAGE_ENTRY = ALL_PACKAGES['profiler']" in z.read("rocm_profiler/_dist_info.py").decode()
z.extract("_rocm_profiler/lib/librocprof-sys.so.1", sys.argv[2])
EOF
rp=$(readelf -d "$T/_rocm_profiler/lib/librocprof-sys.so.1" | sed -n 's/.*(RPATH).*\[\(.*\)\]/\1/p')
want='$ORIGIN/../../_rocm_sdk_core/lib:$ORIGIN/../../_rocm_sdk_core/lib/llvm/lib:$ORIGIN/../../_rocm_sdk_core/lib/rocm_sysdeps/lib'
[ "$rp" = "$want" ] || fail "librocprof-sys.so.1: DT_RPATH '$rp', want '$want'"
[ ! -e "$M/$BARE/python/files/$W" ] || fail "$BARE: a profiler wheel without profiler artifacts"
ls "$M/$BARE/python/files" | grep -q '^rocm_profiler-' && fail "$BARE: a profiler wheel"

V=$T/venv
it_venv "$PY" "$V" || die "venv"
PATH="$V/bin:/usr/bin:/bin" "$V/bin/pip" install "${PIP_OPTS[@]}" --index-url "file://$P/simple/" \
	'rocm[profiler]' >"$T/pip.log" 2>&1 || { tail -n 30 "$T/pip.log" >&2; die "pip install rocm[profiler]"; }
SITE=$("$V/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
got=$("$V/bin/rocprof-sys-avail" 2>&1) || true
[ "$got" = "rocprof-sys-avail $SITE/_rocm_profiler/lib" ] || fail "rocprof-sys-avail printed '$got'"
got=$("$V/bin/rocprof-compute" 2>&1) || true
[ "$got" = "rocprof-compute $SITE/_rocm_profiler/libexec/rocprofiler-compute" ] ||
	fail "rocprof-compute printed '$got'"
got=$(env -i PATH=/usr/bin:/bin "$V/bin/python" -c 'import ctypes, sys
print(ctypes.CDLL(sys.argv[1]).sys_value())' "$SITE/_rocm_profiler/lib/librocprof-sys.so" 2>&1) || true
[ "$got" = 9 ] || fail "librocprof-sys.so in a fresh python: '$got'"
it_quiet_log fs
it_finish
