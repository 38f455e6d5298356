#!/usr/bin/env bash
# python_scripts: the core wheel's console scripts and exec stubs, as TheRock's
# rocm-sdk-core has them (setup.py entry_points, _cli.py trampolines; exe_stub_gen.py for
# symlinks to executables). A run built here with cc: lib/llvm/bin/clang-19, a program
# that prints the name it was run as (argv[0]'s base name) and its arguments, with the
# symlinks clang -> clang-19, clang++ -> clang, amdclang -> clang, amdclang++ -> clang++;
# lib/llvm/bin/offload-arch and bin/rocminfo (programs); bin/hipcc (a script).
# Installed by pip from the mount into a fresh venv:
#  - entry_points.txt declares exactly the scripts whose programs the wheel holds;
#  - `amdclang++ -c x` from the venv runs clang-19 as "amdclang++" (its mode comes from
#    that name), `amdclang` as "amdclang"; offload-arch, rocminfo and hipcc run;
#  - a stub keeps argv[0]: clang++ run directly, or found through PATH by /bin/sh, runs
#    clang-19 as "clang++" (a shell stub would say "clang-19");
#  - with rocm[devel]: rocminfo does not expand the devel tree, amdclang++ expands it and
#    runs the devel tree's program, still as "amdclang++".
. "$(dirname "$0")/lib.sh"
it_init "$@"
PY=/usr/bin/python3
DEPS=/usr/share/python-wheels
command -v cc >/dev/null || skip "cc is not installed"
ls "$DEPS"/setuptools-*.whl "$DEPS"/wheel-*.whl >/dev/null 2>&1 ||
	skip "python3-setuptools-whl / python3-wheel-whl are not installed"
it_need_venv "$PY"
PIP_OPTS=(--no-cache-dir --disable-pip-version-check --no-input)
for v in $(env | sed -n 's/^\(PIP_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export PIP_CONFIG_FILE=/dev/null
RUN=30000000004-linux

B=$T/build
mkdir -p "$B"
cat >"$B/name.c" <<'EOC'
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
	const char *b = strrchr(argv[0], '/');
	printf("%s", b ? b + 1 : argv[0]);
	for (int i = 1; i < argc; i++)
		printf(" %s", argv[i]);
	printf("\n");
	return 0;
}
EOC
printf '#include <stdio.h>\nint main(void) { return puts("gfx1100") < 0; }\n' >"$B/oa.c"
(cd "$B" && cc -O1 -o clang-19 name.c && cc -O1 -o rocminfo name.c && cc -O1 -o offload-arch oa.c) ||
	die "cc"
printf '#!/bin/sh\necho "hipcc $*"\n' >"$B/hipcc"
chmod 755 "$B/hipcc"

S=$T/store
R=$S/$RUN
mkdir -p "$R/manifests"
printf '{"rocm_package_version": "7.13.0.dev0", "rocm_version": "7.13.0"}\n' \
	>"$R/manifests/therock_manifest.json"
it_mkart "$R" amd-llvm_run_generic compiler/amd-llvm/stage \
	"$B/clang-19:lib/llvm/bin/clang-19" "clang-19:lib/llvm/bin/clang:link" \
	"clang:lib/llvm/bin/clang++:link" "clang:lib/llvm/bin/amdclang:link" \
	"clang++:lib/llvm/bin/amdclang++:link" "$B/offload-arch:lib/llvm/bin/offload-arch" \
	"$B/rocminfo:bin/rocminfo" "$B/hipcc:bin/hipcc"
it_mkart "$R" amd-llvm_dev_generic compiler/amd-llvm/stage "$B/name.c:include/name.h"

M=$T/mnt
it_mount fs "$S" "$M" "$T/cache"
P=$M/$RUN/python
CW=$(cd "$P/files" && ls rocm_sdk_core-*.whl) || die "no core wheel"
"$PY" - "$P/files/$CW" >"$T/eps" <<'EOP' || fail "the core wheel has no entry_points.txt"
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
n = [x for x in z.namelist() if x.endswith(".dist-info/entry_points.txt")]
sys.stdout.write(z.read(n[0]).decode())
EOP
cat >"$T/eps.want" <<'EOW'
[console_scripts]
amdclang = rocm_sdk_core._cli:amdclang
amdclang++ = rocm_sdk_core._cli:amdclangpp
hipcc = rocm_sdk_core._cli:hipcc
offload-arch = rocm_sdk_core._cli:offload_arch
rocminfo = rocm_sdk_core._cli:rocm_info
EOW
it_same "entry_points.txt" "$T/eps.want" "$T/eps"

V=$T/venv
it_venv "$PY" "$V" || die "venv"
"$V/bin/pip" install "${PIP_OPTS[@]}" --index-url "file://$P/simple/" --find-links "$DEPS" \
	rocm >"$T/pip.log" 2>&1 || {
	tail -n 30 "$T/pip.log" >&2
	die "pip install rocm"
}
SITE=$("$V/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
CORE=$SITE/_rocm_sdk_core
# expect WANT CMD...: CMD's output is WANT
expect() {
	local want=$1 got
	shift
	got=$("$@" 2>&1) || true
	[ "$got" = "$want" ] || fail "$*: printed '$got', want '$want'"
}
expect "amdclang++ -c x.hip" "$V/bin/amdclang++" -c x.hip
expect "amdclang" "$V/bin/amdclang"
expect "gfx1100" "$V/bin/offload-arch"
expect "rocminfo --help" "$V/bin/rocminfo" --help
expect "hipcc a b" "$V/bin/hipcc" a b
for s in hipconfig amdflang rocm-smi; do
	[ ! -e "$V/bin/$s" ] || fail "$s is installed, but the wheel has no program for it"
done
# the stubs themselves: argv[0] as given, from a direct run and through /bin/sh's PATH search
expect "clang++ -v" "$CORE/lib/llvm/bin/clang++" -v
expect "amdclang++" "$CORE/lib/llvm/bin/amdclang++"
expect "clang++ a" env PATH="$CORE/lib/llvm/bin:/usr/bin:/bin" /bin/sh -c 'clang++ a'
[ "$(head -c 4 "$CORE/lib/llvm/bin/clang")" = $'\177ELF' ] || fail "the clang stub is not a program"

# with the devel wheel: system tools do not expand it, compilers do and run its programs
"$V/bin/pip" install "${PIP_OPTS[@]}" --index-url "file://$P/simple/" --find-links "$DEPS" \
	'rocm[devel]' >"$T/pip.log" 2>&1 || {
	tail -n 30 "$T/pip.log" >&2
	die "pip install rocm[devel]"
}
expect "rocminfo" "$V/bin/rocminfo"
[ ! -e "$SITE/_rocm_sdk_devel" ] || fail "rocminfo expanded the devel tree"
expect "amdclang++ -E" "$V/bin/amdclang++" -E
[ -f "$SITE/_rocm_sdk_devel/include/name.h" ] || fail "amdclang++ did not expand the devel tree"
it_quiet_log fs
it_finish
