# rpath_oracle.sh: sourced by the python RPATH tests (python_rpath, python_rpath_debian)
# after lib.sh.
# oracle INSTALLED ORIG UP DEP...: upstream's own commands on a copy of the original
# (py_packaging.py: patchelf --add-rpath per rpath_dep, then --force-rpath --set-rpath)
# give the same DT_RPATH as the installed file
oracle() {
	local f=$1 orig=$2 o=$T/oracle/$(basename "$1") up=$3 dep
	shift 3
	command -v patchelf >/dev/null || {
		it_say "patchelf is not installed: no oracle for $(basename "$f")"
		return
	}
	mkdir -p "$T/oracle"
	cp "$orig" "$o"
	for dep in "$@"; do
		patchelf --add-rpath "\$ORIGIN/$up/_rocm_sdk_core/$dep" "$o" || fail "patchelf --add-rpath"
	done
	patchelf --force-rpath --set-rpath "$(patchelf --print-rpath "$o")" "$o" || fail "patchelf --set-rpath"
	cmp -s <(readelf -d "$o" | grep -E 'R(UN)?PATH') <(readelf -d "$f" | grep -E 'R(UN)?PATH') ||
		fail "$(basename "$f"): DT_RPATH differs from patchelf's: $(readelf -d "$o" | grep PATH)"
}
