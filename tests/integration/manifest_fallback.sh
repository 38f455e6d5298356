#!/usr/bin/env bash
# manifest_fallback: a broken manifests/therock_manifest.json (the single byte "{") is not
# taken for "no manifest" (packages at version 0.0.0, tarballs "unversioned", silently):
# the daemon logs one warning naming the file and the parse error and uses the copy
# inside base_lib_generic, so tarballs/ and packages/ list exactly what they list with a
# good manifest (issue 26, item 7). Without base_lib_generic to fall back on, the
# warning says both failed.
. "$(dirname "$0")/lib.sh"
it_init "$@"

R=24205988455-linux
NOBASE=24205988460-linux
S=$T/store
mkdir -p "$S"
cp -r "$STORE/$R" "$S/"
cp -r "$STORE/$R" "$S/$NOBASE"
rm "$S/$NOBASE"/base_lib_generic.tar.*
printf '{' >"$S/$R/manifests/therock_manifest.json"
printf '{' >"$S/$NOBASE/manifests/therock_manifest.json"
version=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["rocm_package_version"])' \
	"$STORE/$R/manifests/therock_manifest.json")

# what a good manifest gives
it_mount good "$STORE" "$T/good" "$T/cache-good"
ls "$T/good/$R/tarballs" >"$T/good.tarballs"
(cd "$T/good/$R/packages" && find . | sort) >"$T/good.packages"
it_umount good
grep -qF -- "-$version.tar" "$T/good.tarballs" || die "good manifest: tarballs do not carry '$version'"

it_mount bad "$S" "$T/bad" "$T/cache-bad"
ls "$T/bad/$R/tarballs" >"$T/bad.tarballs"
(cd "$T/bad/$R/packages" && find . | sort) >"$T/bad.packages"
it_same "tarballs/ with a broken manifest (the base_lib_generic copy)" "$T/good.tarballs" "$T/bad.tarballs"
it_same "packages/ with a broken manifest (the base_lib_generic copy)" "$T/good.packages" "$T/bad.packages"
! grep -q unversioned "$T/bad.tarballs" || fail "tarballs are unversioned"
! grep -q '0\.0\.0' "$T/bad.packages" || fail "packages at version 0.0.0"
ls "$T/bad/$NOBASE/tarballs" >"$T/nobase.tarballs"
grep -q unversioned "$T/nobase.tarballs" || fail "no manifest anywhere: tarballs are not 'unversioned'"
it_alive bad
it_umount bad

L=${IT_LOG[bad]}
[ "$(grep -c "run '$R': manifests/therock_manifest.json" "$L")" = 1 ] ||
	fail "want one warning for the broken manifest, got: $(grep -c "run '$R': manifests" "$L" || true)"
grep -q "^rockfs: warning: .*run '$R': manifests/therock_manifest.json: manifest: line 1: .*; using the copy in base_lib_generic" "$L" ||
	fail "the warning does not name the file, the parse error and the fallback: $(grep -m1 "run '$R': manifests" "$L")"
[ "$(grep -c "run '$NOBASE': manifests/therock_manifest.json" "$L")" = 1 ] ||
	fail "no base_lib_generic: want one warning, got $(grep -c "run '$NOBASE': manifests" "$L" || true)"
grep -q "run '$NOBASE': manifests/therock_manifest.json: manifest: line 1: .*; and the copy in base_lib_generic: " "$L" ||
	fail "no base_lib_generic: the warning does not say both failed"
it_finish
