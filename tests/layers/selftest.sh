#!/usr/bin/env bash
# Each checker must find each planted violation (a check that cannot fail is no check):
# bad/ for check_layers.py, generated files for check_sizes.py, bad/cycles/ compiled for
# check_cycles.py.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(python3 "$here/check_layers.py" "$here/bad/src" "$here/bad/include" || true)
echo "$out"
for want in "a view includes another view's views/python/view_python.h" \
	"views touch the engine's locks" "engine includes services/flatten.h" \
	"the engine names a view" \
	"include/rk/unknown.h:1: public header without a layer" \
	"formats/gpu includes engine/vfs_int.h" \
	"formats/archive includes formats/packages/pkg_rules.h (formats/packages, after formats/archive" \
	"formats/archive/tar_io.c:8: formats does I/O (open)" \
	"formats/loose.c:1: not in a formats sub-folder" \
	"services can see node fields (includes engine/engine.h)" \
	"the engine's private types defined outside engine/engine.h" \
	"services names a source kind"; do
	grep -qF "$want" <<<"$out" || { echo "selftest: missed: $want"; exit 1; }
done

# File sizes: a file over 800 lines in engine/ and one over 1,200 elsewhere, generated.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src/engine" "$tmp/src/util"
for i in $(seq 801); do echo "/* $i */"; done >"$tmp/src/engine/long.c"
for i in $(seq 1201); do echo "/* $i */"; done >"$tmp/src/util/longer.c"
for i in $(seq 800); do echo "/* $i */"; done >"$tmp/src/engine/fits.c"
out=$(python3 "$here/check_sizes.py" "$tmp/src" || echo "exit=$?")
echo "$out"
for want in "engine/long.c:1: 801 lines, over the limit of engine/ (800)" \
	"util/longer.c:1: 1201 lines, over the limit of core/src (1200)" "exit=1"; do
	grep -qF "$want" <<<"$out" || { echo "selftest: missed: $want"; exit 1; }
done
if grep -qF "fits.c" <<<"$out"; then echo "selftest: fits.c (800 lines) reported"; exit 1; fi

# Call circles: bad/cycles/views/view_a.c and view_b.c call each other; view_c.c calls
# view_a.c only.
mkdir -p "$tmp/obj/src/views"
for f in view_a view_b view_c; do
	"${CC:-cc}" -c -o "$tmp/obj/src/views/$f.c.o" "$here/bad/cycles/views/$f.c"
done
out=$(python3 "$here/check_cycles.py" "$tmp/obj" || echo "exit=$?")
echo "$out"
for want in "call circle between 2 files: views/view_a.c views/view_b.c" \
	"views/view_a.c -> views/view_b.c (view_b)" "views/view_b.c -> views/view_a.c (view_a)" \
	"exit=1"; do
	grep -qF "$want" <<<"$out" || { echo "selftest: missed: $want"; exit 1; }
done
if grep -qF "view_c.c ->" <<<"$out"; then echo "selftest: view_c.c put in a circle"; exit 1; fi
echo "selftest: every planted violation found"
