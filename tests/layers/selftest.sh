#!/usr/bin/env bash
# The checker must find each planted violation in bad/ (a check that cannot fail is no check).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(python3 "$here/check_layers.py" "$here/bad/src" "$here/bad/include" || true)
echo "$out"
for want in "a view includes another view's views/python/view_python.h" \
	"views touch the engine's locks" "engine includes services/flatten.h" \
	"the engine names a view" "formats includes engine/vfs_int.h" \
	"include/rk/unknown.h:1: public header without a layer" \
	"services can see node fields (includes engine/engine.h)" \
	"the engine's private types defined outside engine/engine.h" \
	"services names a source kind"; do
	grep -qF "$want" <<<"$out" || { echo "selftest: missed: $want"; exit 1; }
done
echo "selftest: every planted violation found"
