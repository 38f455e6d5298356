#!/usr/bin/env bash
# recombine_fail: rockpack recombine against rocm-kpack's recombine_artifacts
# (artifact_collector.py, artifact_combiner.py: read for these rules):
#  - a failing recombine exits 1 with one line on stderr and leaves no partial output:
#    DIR absent (with the parents it would have made) when it was missing, DIR exactly
#    as it was when it existed, no staging sibling left behind;
#  - the "validation" rules are read but not acted on, as upstream: a missing
#    architecture with error_on_missing_architecture true succeeds; --strict enforces
#    them (and then fails after the generic artifact was written: the case that used to
#    leave a half-written DIR);
#  - an arch artifact joins a group only if the group lists its exact arch string:
#    rand_lib_gfx942:xnack+ is in gfx94X only if the group lists gfx942:xnack+;
#  - an artifact already in DIR is an error before anything is moved; so is a
#    --component that names no component (upstream: exit 1).
. "$(dirname "$0")/lib.sh"
it_init "$@"
L=24205988454-linux

mkdir -p "$T/shards"
"$ROCKPACK" --cache "$T/rpcache" -q split "$STORE" "$L" rand_lib -o "$T/shards/a" --targets gfx1100,gfx1101 ||
	die "split shard a"
"$ROCKPACK" --cache "$T/rpcache" -q split "$STORE" "$L" rand_lib -o "$T/shards/b" --targets gfx942 ||
	die "split shard b"
[ -d "$T/shards/b/rand_lib_gfx942:xnack+" ] || die "shard b has no rand_lib_gfx942:xnack+"

cfg() { # FILE PRIMARY ARCHS-JSON-LIST
	cat >"$1" <<EOF
{"primary_shard": "$2",
 "architecture_groups": {"gfx94X": {"display_name": "CDNA3", "architectures": $3}},
 "validation": {"error_on_duplicate_device_code": true, "verify_generic_artifacts_match": true,
                "error_on_missing_architecture": true}}
EOF
}
cfg "$T/missing.json" a '["gfx942", "gfx950"]'
cfg "$T/exact.json" a '["gfx942"]'
cfg "$T/xnack.json" a '["gfx942", "gfx942:xnack+"]'
cfg "$T/noprimary.json" zzz '["gfx942"]'

# expect_fail NAME DIR ARGS...: exit 1, exactly one line on stderr
expect_fail() {
	local name=$1 rc=0
	shift
	"$ROCKPACK" recombine "$T/shards" "$@" >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" = 1 ] || fail "$name: exit $rc, want 1"
	[ "$(wc -l <"$T/err")" = 1 ] || { fail "$name: want one line on stderr"; cat "$T/err" >&2; }
	[ ! -s "$T/out" ] || fail "$name: wrote to stdout: $(head -3 "$T/out")"
	grep -q '^rockpack: ' "$T/err" || fail "$name: message '$(cat "$T/err")'"
}
no_sibling() { # DIR: no staging sibling next to it
	local left
	left=$(find "$(dirname "$1")" -maxdepth 1 -name ".$(basename "$1").rockpack-*" 2>/dev/null || true)
	[ -z "$left" ] || fail "staging left behind: $left"
}

# ---- --strict, a missing architecture, DIR and parents missing: nothing is left ----
expect_fail strict-missing --config "$T/missing.json" -o "$T/p1/p2/out" --strict
grep -q "gfx950" "$T/err" || fail "strict-missing: the message does not name gfx950: $(cat "$T/err")"
[ ! -e "$T/p1" ] || fail "a failed recombine left $(find "$T/p1" | head -5 | tr '\n' ' ')"
no_sibling "$T/p1/p2/out"

# ---- the same into an existing DIR: DIR as it was ----
mkdir -p "$T/keep/out/other"
echo mine >"$T/keep/out/file"
(cd "$T/keep" && find . | sort) >"$T/keep.before"
expect_fail strict-existing --config "$T/missing.json" -o "$T/keep/out" --strict
(cd "$T/keep" && find . | sort) >"$T/keep.after"
diff "$T/keep.before" "$T/keep.after" >&2 || fail "a failed recombine changed an existing DIR"
[ "$(cat "$T/keep/out/file")" = mine ] || fail "a failed recombine changed DIR/file"

# ---- no generic artifact in the primary shard: exit 1, nothing written ----
expect_fail no-primary --config "$T/noprimary.json" -o "$T/np"
[ ! -e "$T/np" ] || fail "no-primary: left $T/np"
no_sibling "$T/np"

# ---- --component naming no component: exit 1, nothing written (upstream: exit 1) ----
expect_fail no-component --config "$T/exact.json" -o "$T/nc" --component blas_lib
[ ! -e "$T/nc" ] || fail "no-component: left $T/nc"

# ---- an artifact already in DIR: error before anything moves ----
mkdir -p "$T/clash/rand_lib_gfx94X"
expect_fail clash --config "$T/exact.json" -o "$T/clash"
[ "$(ls "$T/clash" | tr '\n' ' ')" = "rand_lib_gfx94X " ] || fail "clash: DIR now has $(ls "$T/clash" | tr '\n' ' ')"
[ -z "$(ls -A "$T/clash/rand_lib_gfx94X")" ] || fail "clash: the existing artifact was written into"
no_sibling "$T/clash"

# ---- validation rules ignored without --strict, as upstream ----
"$ROCKPACK" -q recombine "$T/shards" --config "$T/missing.json" -o "$T/lenient" ||
	fail "recombine without --strict failed on a missing architecture (upstream ignores the rule)"
[ "$(ls "$T/lenient" 2>/dev/null | tr '\n' ' ')" = "rand_lib_generic rand_lib_gfx94X " ] ||
	fail "lenient: wrote '$(ls "$T/lenient" 2>/dev/null | tr '\n' ' ')'"

# ---- exact arch strings: gfx942 alone does not take gfx942:xnack+ ----
archives() { find "$1" -type f -name '*.kpack' -printf '%f\n' | sort | tr '\n' ' '; }
[ "$(archives "$T/lenient/rand_lib_gfx94X")" = "rand_lib_gfx942.kpack " ] ||
	fail "group [gfx942] holds $(archives "$T/lenient/rand_lib_gfx94X")"
"$ROCKPACK" -q recombine "$T/shards" --config "$T/xnack.json" -o "$T/xn" --strict ||
	fail "recombine --strict with gfx942:xnack+ listed"
[ "$(archives "$T/xn/rand_lib_gfx94X")" = "rand_lib_gfx942.kpack rand_lib_gfx942:xnack+.kpack " ] ||
	fail "group [gfx942, gfx942:xnack+] holds $(archives "$T/xn/rand_lib_gfx94X")"
"$ROCKPACK" -q verify "$T/xn" >"$T/verify.out" || { fail "verify of the recombined tree"; cat "$T/verify.out" >&2; }
it_finish
