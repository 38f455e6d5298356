#!/usr/bin/env bash
# split_databases: database files (Tensile libraries, MIOpen databases, aotriton images,
# CK libraries, hipKernelProvider content, hotswap caches) in the kpack split, as TheRock
# and rocm-kpack do it (docs/kpack.md), against an oracle that restates upstream's rules
# (kpack_db_oracle.py) on a hand-made legacy run with database files in five artifacts:
#  - by default each artifact splits with the handlers TheRock's BUILD_TOPOLOGY.toml gives
#    it (the built-in table: blas rocblas/hipblaslt/hipsparselt, miopen, hipkernelprovider,
#    rccl hotswap_cache); files no asked handler takes stay in <P>_generic (no
#    blas_lib_gfx11 from aotriton images, no blas_lib_gfx950-strict from a CK library, no
#    rand_lib_gfx1100 from a Tensile file in rand);
#  - -o topology=FILE reads TheRock's own file instead (here one that asks for other
#    handlers, in an order that matters); a bad file refuses the mount with one line
#    naming the file and line, exit 1;
#  - rockpack split gives the same trees, reads --topology FILE, and
#    --split-databases NAME... runs those handlers for every artifact, as
#    split_artifacts --split-databases does (none: no handler); bad names exit 2.
. "$(dirname "$0")/lib.sh"
it_init "$@"
python3 -c 'import tomllib' 2>/dev/null || skip "python3 has no tomllib (3.11 or newer)"
ORACLE=$(dirname "$(realpath "$0")")/kpack_db_oracle.py
R=1-linux

python3 "$ORACLE" make "$T/store/$R" "$T/src" || die "could not make the test run"

oracle() { # WHAT DIR MODE ARGS...
	local what=$1 dir=$2
	shift 2
	python3 "$ORACLE" check "$T/src" "$dir" "$@" >"$T/oracle.out" 2>&1 ||
		{ fail "$what differs from upstream's split:"; sed 's/^/    /' "$T/oracle.out" >&2; }
}

names() { ls "$1" 2>/dev/null | tr '\n' ' '; }

# ---- the built-in table ----
TABLE=$(dirname "$(realpath "$0")")/../../packaging/therock-topology.toml
it_mount m "$T/store" "$T/mnt" "$T/cache"
oracle "RUN/kpack/ (built-in table)" "$T/mnt/$R/kpack" table "$TABLE"
for o in blas_lib_gfx11 blas_lib_gfx950-strict rand_lib_gfx1100 rand_lib_gfx12_0; do
	[ ! -e "$T/mnt/$R/kpack/$o" ] || fail "RUN/kpack/ has $o, which TheRock's split never makes"
done
[ -f "$T/mnt/$R/kpack/blas_lib_generic/math-libs/BLAS/rocBLAS/stage/lib/aotriton.images/amd-gfx11xx/flash/attn_fwd/kernel.aks2" ] ||
	fail "an aotriton image in blas left blas_lib_generic"
[ -f "$T/mnt/$R/kpack/rccl_lib_gfx1250/comm-libs/rccl/stage/share/rocjitsu/translations/gfx1250-b0-a0/v1/$(printf '0123456789abcdef%.0s' 1 2 3 4).obj" ] ||
	fail "rccl's hotswap cache is not in rccl_lib_gfx1250"
"$ROCKPACK" --cache "$T/c1" -q split "$T/store" "$R" -o "$T/split" || fail "rockpack split"
diff -r "$T/mnt/$R/kpack" "$T/split" >"$T/diff" 2>&1 ||
	{ fail "rockpack split differs from RUN/kpack/"; head "$T/diff" >&2; }
it_umount m

# ---- -o topology=FILE: TheRock's own file (another table here) ----
cat >"$T/topo.toml" <<'EOF'
# a BUILD_TOPOLOGY.toml of another TheRock commit (its syntax, other lists)
[metadata]
version = "2.0"

[source_sets.optional-hrx]
external_git_sources = [
    { name = "hrx", origin = "https://github.com/ROCm/hrx.git", commit = "56e6", path = "x" },
]

[artifacts.blas]
artifact_group = "math-libs"
type = "target-specific"
artifact_deps = ["core-runtime", "core-hip"]
split_databases = ["composablekernel", "aotriton", "miopen", "rocblas"]

[artifacts.rand]
artifact_group = "math-libs"
type = "target-specific"
split_databases = [
    "aotriton", # the newer layout only
    "rocblas",
]

[artifacts.miopen]
type = "target-specific"
split_databases = ["rocblas", "miopen"]
EOF
it_mount t "$T/store" "$T/mntt" "$T/cache" -o "topology=$T/topo.toml"
oracle "RUN/kpack/ with -o topology=FILE" "$T/mntt/$R/kpack" table "$T/topo.toml"
for o in blas_lib_gfx11 blas_lib_gfx950-strict rand_lib_gfx1100 rand_lib_gfx12_0 miopen_lib_gfx1101; do
	[ -d "$T/mntt/$R/kpack/$o" ] || fail "-o topology=FILE: no $o"
done
[ ! -e "$T/mntt/$R/kpack/rccl_lib_gfx1250" ] || fail "-o topology=FILE: rccl split with the built-in table"
it_umount t
"$ROCKPACK" --cache "$T/c1" -q split "$T/store" "$R" -o "$T/splitt" --topology "$T/topo.toml" ||
	fail "rockpack split --topology"
oracle "rockpack split --topology FILE" "$T/splitt" table "$T/topo.toml"

# ---- a bad topology file: no mount, one line, exit 1 ----
bad_topology() { # WHAT PATTERN (the file is $T/bad.toml; rockfs's line is "rockfs: topology:
	# PATTERN", rockpack's "rockpack: split: --topology: PATTERN")
	local rc=0
	mkdir -p "$T/mntb"
	"$ROCKFS" "$T/store" "$T/mntb" -f -o "cache=$T/cache,topology=$T/bad.toml" >"$T/bad.out" 2>&1 || rc=$?
	if mountpoint -q "$T/mntb"; then
		fusermount3 -u -z "$T/mntb" || true
		fail "$1: mounted"
	fi
	[ "$rc" = 1 ] || fail "$1: rockfs exited $rc, want 1"
	[ "$(wc -l <"$T/bad.out")" = 1 ] && grep -q -- "^rockfs: topology: $2" "$T/bad.out" ||
		{ fail "$1: want one line matching '$2'"; cat "$T/bad.out" >&2; }
	rc=0
	"$ROCKPACK" --cache "$T/c1" -q split "$T/store" "$R" -o "$T/nosplit" --topology "$T/bad.toml" 2>"$T/bad.err" || rc=$?
	[ "$rc" = 1 ] || fail "$1: rockpack split --topology exited $rc, want 1"
	grep -q -- "^rockpack: split: --topology: $2" "$T/bad.err" ||
		{ fail "$1: rockpack split: no '$2'"; cat "$T/bad.err" >&2; }
	[ ! -e "$T/nosplit" ] || fail "$1: rockpack split wrote $T/nosplit"
}
printf '[artifacts.blas]\nsplit_databases = ["rocblas",\n  "rocsolver"]\n' >"$T/bad.toml"
bad_topology "unknown handler" "$T/bad.toml:3: artifacts.blas.split_databases: unknown database handler 'rocsolver'"
printf '[artifacts.blas]\nsplit_databases = "rocblas"\n' >"$T/bad.toml"
bad_topology "not a list" "$T/bad.toml:2: artifacts.blas.split_databases: want an array of strings"
printf '[artifacts.blas\n' >"$T/bad.toml"
bad_topology "not TOML" "$T/bad.toml:1: expected ']' closing a table header"
printf '{"artifacts": {}}\n' >"$T/bad.toml"
bad_topology "JSON" "$T/bad.toml:1: "
printf '[metadata]\nversion = "2.0"\n' >"$T/bad.toml"
bad_topology "no [artifacts]" "$T/bad.toml: no \[artifacts\] table"
rm -f "$T/bad.toml"
bad_topology "missing file" "$T/bad.toml: No such file or directory"

# ---- rockpack split --split-databases NAME... ----
"$ROCKPACK" --cache "$T/c1" -q split "$T/store" "$R" -o "$T/s1" --split-databases aotriton rocblas miopen ||
	fail "split --split-databases aotriton rocblas miopen"
oracle "split --split-databases aotriton rocblas miopen" "$T/s1" every aotriton rocblas miopen
# the order matters: a MIOpen CK library under a rocBLAS per-arch directory
for order in "rocblas miopen" "miopen rocblas"; do
	o=$T/s-${order// /-}
	"$ROCKPACK" --cache "$T/c1" -q split "$T/store" "$R" miopen_lib -o "$o" --split-databases $order ||
		fail "split miopen_lib --split-databases $order"
	ONLY=miopen_lib oracle "split miopen_lib --split-databases $order" "$o" every $order
done
[ -f "$T/s-rocblas-miopen/miopen_lib_gfx1100/ml-libs/MIOpen/stage/lib/rocblas/library/gfx1100/libMIOpenCKConv_gfx1101.so" ] &&
	[ -f "$T/s-miopen-rocblas/miopen_lib_gfx1101/ml-libs/MIOpen/stage/lib/rocblas/library/gfx1100/libMIOpenCKConv_gfx1101.so" ] ||
	fail "--split-databases: the first handler named does not win"
"$ROCKPACK" --cache "$T/c1" -q split "$T/store" "$R" blas_lib -o "$T/s2" --split-databases composablekernel ||
	fail "split blas_lib --split-databases composablekernel"
[ "$(names "$T/s2")" = "blas_lib_generic blas_lib_gfx950-strict " ] ||
	fail "split blas_lib --split-databases composablekernel wrote '$(names "$T/s2")'"
"$ROCKPACK" --cache "$T/c1" -q split "$T/store" "$R" -o "$T/s3" --split-databases none ||
	fail "split --split-databases none"
oracle "split --split-databases none" "$T/s3" every
[ "$(names "$T/s3")" = "blas_lib_generic hipkernelprovider_lib_generic miopen_lib_generic rand_lib_generic rccl_lib_generic " ] ||
	fail "split --split-databases none wrote '$(names "$T/s3")'"
for args in "--split-databases" "--split-databases rocsolver" "--split-databases rocblas -o" \
	"--split-databases rocblas --topology $T/topo.toml"; do
	rc=0
	"$ROCKPACK" --cache "$T/c1" -q split "$T/store" "$R" -o "$T/s4" $args 2>"$T/err" || rc=$?
	[ "$rc" = 2 ] || fail "split $args: exit $rc, want 2"
	[ ! -e "$T/s4" ] || fail "split $args wrote $T/s4"
done
rc=0
"$ROCKPACK" -q split "$T/store" "$R" -o "$T/s4" --split-databases rocsolver 2>"$T/err" || rc=$?
grep -q "unknown database handler 'rocsolver'" "$T/err" || { fail "no message for an unknown handler"; cat "$T/err" >&2; }

it_finish
