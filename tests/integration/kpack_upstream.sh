#!/usr/bin/env bash
# kpack_upstream: rocm-kpack's own tools (ROCm/rocm-kpack e348328, vendored in
# tests/integration/upstream_kpack/) as the oracle for rockpack split, recombine and
# verify, on the demo's fat blas artifacts of both families (plain and zstd CCOB bundles):
#  - split: upstream's split_artifacts.py over a copy of browse/<artifact> (its objcopy
#    cannot read from a read-only mount), with --split-databases rocblas hipblaslt and
#    with none, against `rockpack split --compression none` with the same handlers: the
#    same files, links and modes, the same bytes (.kpack archives, moved databases,
#    manifests), host binaries but for each wrapper's pointer field, which upstream
#    leaves 0 and we set to the marker's address (docs/kpack.md);
#  - verify: upstream's verify_artifacts.py passes over our split, with both
#    compressions;
#  - recombine: upstream's recombine_artifacts.py and `rockpack recombine` over the same
#    two shards (upstream's splits of the two families) and config write the same trees.
# (This rocm-kpack's split writes uncompressed archives; the copy TheRock builds with, in
# rocm-systems shared/kpack, passes ZstdCompressor: rockpack split's default.)
. "$(dirname "$0")/lib.sh"
it_init "$@"
PY=/usr/bin/python3
UK=$(cd "$(dirname "$0")/upstream_kpack" && pwd)
COMPAT=$(cd "$(dirname "$0")/py312_compat" && pwd)
BUNDLER=$(command -v clang-offload-bundler-15 || true)
[ -n "$BUNDLER" ] || skip "clang-offload-bundler-15 is not installed (clang-tools-15)"
for tool in objcopy readelf; do
	command -v $tool >/dev/null || skip "$tool is not installed"
done
"$PY" -c 'import zstandard, msgpack' 2>/dev/null ||
	skip "rocm-kpack needs python3-zstandard and python3-msgpack"
LEGACY=24205988454-linux
M=$T/mnt
it_mount fs "$STORE" "$M" "$T/cache"

# upstream TOOL ARGS...: one of rocm-kpack's tools
upstream() {
	local tool=$1
	shift
	PYTHONPATH=$UK/python:$COMPAT "$PY" -m "rocm_kpack.tools.$tool" "$@"
}

# same_tree WHAT UPSTREAM OURS: the same trees (kpack_tree_cmp.py)
same_tree() {
	"$PY" "$(dirname "$0")/kpack_tree_cmp.py" "$2" "$3" >"$T/cmp.log" 2>&1 ||
		{ fail "$1: our tree differs from upstream's"; head -n 20 "$T/cmp.log" >&2; }
}

# ---- split ----
for spec in "blas_lib_gfx110X-all:rocblas hipblaslt" "blas_lib_gfx94X-dcgpu:rocblas hipblaslt" \
	"blas_lib_gfx110X-all:"; do
	a=${spec%%:*} dbs=${spec#*:}
	n=$a-${dbs:+db}
	in=$T/in-$a
	[ -d "$in" ] || { cp -a "$M/$LEGACY/browse/$a" "$in" && chmod -R u+w "$in"; } || die "copy $a"
	mkdir -p "$T/tmp"
	# shellcheck disable=SC2086 # dbs: the handler names
	upstream split_artifacts --artifact-dir "$in" --output-dir "$T/up-$n" --artifact-prefix blas_lib \
		${dbs:+--split-databases $dbs} --clang-offload-bundler "$BUNDLER" --tmp-dir "$T/tmp" \
		>"$T/up-$n.log" 2>&1 || { fail "$n: upstream's split_artifacts"; tail -n 5 "$T/up-$n.log" >&2; continue; }
	# shellcheck disable=SC2086
	"$ROCKPACK" --cache "$T/rpcache" -q split "$STORE" $LEGACY "$a" -o "$T/ours-$n" \
		--compression none --split-databases ${dbs:-none} || { fail "$n: rockpack split"; continue; }
	[ -n "$(find "$T/up-$n" -name '*.kpack')" ] || fail "$n: upstream's split made no .kpack"
	same_tree "$n: split" "$T/up-$n" "$T/ours-$n"
done

# ---- verify: upstream's over our split, both compressions ----
"$ROCKPACK" --cache "$T/rpcache" -q split "$STORE" $LEGACY blas_lib_gfx110X-all -o "$T/ours-zstd" \
	--split-databases rocblas hipblaslt || fail "rockpack split (zstd)"
for d in "$T/ours-blas_lib_gfx110X-all-db" "$T/ours-zstd"; do
	upstream verify_artifacts --artifacts-dir "$d" --clang-offload-bundler "$BUNDLER" \
		>"$T/verify.log" 2>&1 || { fail "upstream's verify_artifacts over $(basename "$d")"; tail -n 10 "$T/verify.log" >&2; }
	grep -q "ALL CHECKS PASSED" "$T/verify.log" || fail "upstream's verify_artifacts: no verdict over $(basename "$d")"
done

# ---- recombine: both tools over upstream's two shards ----
S=$T/shards
mkdir -p "$S"
cp -a "$T/up-blas_lib_gfx110X-all-db" "$S/gfx110X_build" && cp -a "$T/up-blas_lib_gfx94X-dcgpu-db" "$S/gfx94X_build" ||
	die "shards"
cat >"$T/cfg.json" <<'EOF'
{
  "primary_shard": "gfx110X_build",
  "architecture_groups": {
    "gfx110X": {"display_name": "RDNA3", "architectures": ["gfx1100", "gfx1101", "gfx1102"]},
    "gfx1103": {"display_name": "RDNA3 APU", "architectures": ["gfx1103"]},
    "gfx94X": {"display_name": "MI300", "architectures": ["gfx942"]}
  },
  "validation": {"error_on_duplicate_device_code": true, "verify_generic_artifacts_match": false,
                 "error_on_missing_architecture": false}
}
EOF
upstream recombine_artifacts --input-shards-dir "$S" --config "$T/cfg.json" --output-dir "$T/up-recombined" \
	>"$T/recombine.log" 2>&1 || { fail "upstream's recombine_artifacts"; tail -n 10 "$T/recombine.log" >&2; }
"$ROCKPACK" --cache "$T/rpcache" -q recombine "$S" --config "$T/cfg.json" -o "$T/ours-recombined" ||
	fail "rockpack recombine"
[ -d "$T/up-recombined/blas_lib_gfx110X" ] || fail "upstream's recombine made no blas_lib_gfx110X"
same_tree recombine "$T/up-recombined" "$T/ours-recombined"
it_quiet_log fs
it_finish
