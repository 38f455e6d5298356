#!/usr/bin/env bash
# split_one: `rockpack split STORE RUN ARTIFACT` splits that artifact, as rocm-kpack's
# split_artifacts --artifact-dir ARTIFACT --artifact-prefix <name>_<component> does:
#  - naming rand_lib_gfx94X-dcgpu of the legacy demo run writes rand_lib_generic (named
#    <prefix>_generic, as upstream) made from that artifact (its split binaries keep that
#    artifact's .hip_fatbin size as NOBITS, not the other family's) and the arch
#    outputs of that artifact only;
#  - only that artifact's archive is ingested: the cache's index/ holds one record, and a
#    copy of the run whose other archives are garbage splits the same;
#  - --targets keeps the arch outputs of those base archs (generic always);
#  - a <name>_<component> group still splits every family of it.
. "$(dirname "$0")/lib.sh"
it_init "$@"
command -v readelf >/dev/null || skip "readelf is not installed"
L=24205988454-linux
A=rand_lib_gfx94X-dcgpu

names() { ls "$1" 2>/dev/null | tr '\n' ' '; }
fatbin_size() { # ELF -> the size of its .hip_fatbin section (hex, as readelf prints it)
	readelf -SW "$1" | awk '$2 == ".hip_fatbin" { print $6 } $3 == ".hip_fatbin" { print $7 }'
}

"$ROCKPACK" --cache "$T/c1" -q split "$STORE" "$L" "$A" -o "$T/one" --compression none ||
	fail "rockpack split $A"
[ "$(names "$T/one")" = "rand_lib_generic rand_lib_gfx942 rand_lib_gfx942:xnack+ " ] ||
	fail "split $A wrote '$(names "$T/one")'"
n=$(find "$T/c1/index" -type f | wc -l)
[ "$n" = 1 ] || fail "split $A ingested $n archives, want 1"

# the generic output is made from $A: its binaries are $A's, split
mkdir -p "$T/src94" "$T/src110"
zstd -q -dc "$STORE/$L/$A.tar.zst" | tar -x -C "$T/src94"
zstd -q -dc "$STORE/$L/rand_lib_gfx110X-all.tar.zst" | tar -x -C "$T/src110"
rel=math-libs/rocRAND/stage/lib/librocrand.so.1.1
[ -f "$T/one/rand_lib_generic/$rel" ] || die "no $rel in rand_lib_generic"
want=$(fatbin_size "$T/src94/$rel")
other=$(fatbin_size "$T/src110/$rel")
got=$(fatbin_size "$T/one/rand_lib_generic/$rel")
[ -n "$want" ] && [ "$want" != "$other" ] || die "the demo's families no longer differ in $rel"
[ "$got" = "$want" ] || fail "rand_lib_generic/$rel: .hip_fatbin size $got, want $A's $want (gfx110X-all: $other)"
readelf -SW "$T/one/rand_lib_generic/$rel" | grep -q 'hip_fatbin.*NOBITS' ||
	fail "rand_lib_generic/$rel is not split"
"$ROCKPACK" -q verify "$T/one" >"$T/verify.out" || { fail "verify of split $A"; cat "$T/verify.out" >&2; }

# the other archives are not read: a run whose other archives are garbage splits the same
mkdir -p "$T/store/$L"
cp -a "$STORE/$L/." "$T/store/$L/"
for f in "$T/store/$L"/*.tar.*; do
	case $f in
	*/$A.tar.zst | *.sha256sum) ;;
	*) head -c 4096 /dev/urandom >"$f" ;;
	esac
done
"$ROCKPACK" --cache "$T/c2" -q split "$T/store" "$L" "$A" -o "$T/garbage" --compression none ||
	fail "split $A reads other archives (they are garbage here)"
diff -r --no-dereference "$T/one" "$T/garbage" >"$T/diff" 2>&1 ||
	{ fail "split $A differs on the store with garbage archives"; head "$T/diff" >&2; }

# --targets within the artifact
"$ROCKPACK" --cache "$T/c1" -q split "$STORE" "$L" "$A" -o "$T/t942" --targets gfx942 || fail "--targets gfx942"
[ "$(names "$T/t942")" = "rand_lib_generic rand_lib_gfx942 rand_lib_gfx942:xnack+ " ] ||
	fail "--targets gfx942 wrote '$(names "$T/t942")'"
"$ROCKPACK" --cache "$T/c1" -q split "$STORE" "$L" rand_lib_gfx110X-all -o "$T/t1101" --targets gfx1101 ||
	fail "--targets gfx1101"
[ "$(names "$T/t1101")" = "rand_lib_generic rand_lib_gfx1101 " ] ||
	fail "split rand_lib_gfx110X-all --targets gfx1101 wrote '$(names "$T/t1101")'"
"$ROCKPACK" --cache "$T/c1" -q split "$STORE" "$L" "$A" -o "$T/t1100" --targets gfx1100 || fail "--targets gfx1100"
[ "$(names "$T/t1100")" = "rand_lib_generic " ] || fail "split $A --targets gfx1100 wrote '$(names "$T/t1100")'"

# a group: every family, generic from the first in name order (as RUN/kpack/)
"$ROCKPACK" --cache "$T/c3" -q split "$STORE" "$L" rand_lib -o "$T/group" --compression none || fail "split rand_lib"
[ "$(names "$T/group")" = "rand_lib_generic rand_lib_gfx1100 rand_lib_gfx1101 rand_lib_gfx1102 rand_lib_gfx1103 rand_lib_gfx942 rand_lib_gfx942:xnack+ " ] ||
	fail "split rand_lib wrote '$(names "$T/group")'"
[ "$(fatbin_size "$T/group/rand_lib_generic/$rel")" = "$other" ] || fail "split rand_lib: generic not from the first family"
n=$(find "$T/c3/index" -type f | wc -l)
[ "$n" = 2 ] || fail "split rand_lib ingested $n archives, want 2"
# a name that matches nothing
if "$ROCKPACK" --cache "$T/c1" -q split "$STORE" "$L" nosuch_lib_gfx942 -o "$T/none" 2>"$T/err"; then
	fail "split of an unknown artifact succeeded"
fi
grep -q 'nothing to split matches' "$T/err" || fail "unknown artifact: '$(cat "$T/err")'"
it_finish
