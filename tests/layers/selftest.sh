#!/usr/bin/env bash
# The checker must find each planted violation in bad/ (a check that cannot fail is no check).
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
	"formats/loose.c:1: not in a formats sub-folder"; do
	grep -qF "$want" <<<"$out" || { echo "selftest: missed: $want"; exit 1; }
done
echo "selftest: every planted violation found"
