#!/usr/bin/env bash
# `rockpack install` against TheRock's own install_rocm_from_artifacts.py, on the same S3
# store (s3rver on loopback; the script runs offline through tests/integration/install_shim/
# as integration.install_upstream runs it), side by side in one run:
#
#   bench/install_bench.sh [BUILD_DIR] [STORE] [RUN_ID] [FAMILY] [ROUNDS] [-- FLAGS...]
#
# STORE: a local store of runs (default: the demo store, tests/demo/mkdemo.py, which is
# small: use a real run's copy for numbers); RUN_ID (default 24205988455), FAMILY (default
# gfx94X-dcgpu), FLAGS the component flags (default --blas --tests). Steps, best of ROUNDS
# (default 3) each, into a fresh output directory:
#   upstream       the script: download, decompress, flatten
#   rockpack cold  rockpack install with an empty cache (download, decompress once, write)
#   rockpack warm  again with that cache (nothing downloaded or decompressed), -j 1: one
#                  writer
#   warm -jN       the same with N writers (N: the CPUs, rockpack install's default)
#   warm auto      -j N --link=auto (a reflink of each cached blob where the output's file
#                  system has reflinks, else copy_file_range; --link=hard is refused,
#                  docs/install.md)
# Needs python3 with boto3, node + npm (s3rver is installed into BUILD_DIR/test-npm as the
# tests do). Results: docs/performance.md.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
store=${2:-}
run=${3:-24205988455}
family=${4:-gfx94X-dcgpu}
rounds=${5:-3}
shift $(($# < 5 ? $# : 5))
[ "${1:-}" = -- ] && shift
flags=("$@")
[ ${#flags[@]} -gt 0 ] || flags=(--blas --tests)
. "$top/bench/lib.sh"
bench_init ibench
# BENCH_KEEP_CACHES=1: no drop_caches between steps (a shared machine: dropping the page
# cache slows everyone's work; the steps then start with warm page caches)
[ "${BENCH_KEEP_CACHES:-0}" = 1 ] && bench_drop() { return 1; }
rockpack=$build/tools/rockpack
bt=$top/tests/integration/upstream_therock/build_tools
bg=()
trap 'for p in "${bg[@]}"; do kill "$p" 2>/dev/null || true; done; bench_cleanup' EXIT

if [ -z "$store" ]; then
	python3 "$top/tests/demo/mkdemo.py" "$work/demo" >/dev/null
	store=$work/demo
fi
npmdir=$build/test-npm
[ -f "$npmdir/node_modules/s3rver/package.json" ] ||
	npm install --prefix "$npmdir" --no-audit --no-fund --no-save s3rver@3.7.1 >/dev/null
bucket=therock-ci-artifacts
NODE_OPTIONS=--openssl-legacy-provider NODE_PATH=$npmdir/node_modules node \
	"$top/tests/remote/s3rver_run.js" "$work/s3data" "$store" $bucket "" "$work/s3.port" \
	>"$work/s3.log" 2>&1 &
bg+=($!)
for _ in $(seq 600); do [ -s "$work/s3.port" ] && break; sleep 0.2; done
[ -s "$work/s3.port" ] || { cat "$work/s3.log"; exit 1; }
ep=http://127.0.0.1:$(cat "$work/s3.port")

upstream() {
	env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_SESSION_TOKEN -u GITHUB_REPOSITORY \
		AWS_DEFAULT_REGION=us-east-1 AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null \
		RK_S3_ENDPOINT="$ep" RK_THEROCK_BUILD_TOOLS="$bt" \
		PYTHONPATH="$top/tests/integration/install_shim" python3 "$bt/install_rocm_from_artifacts.py" \
		--run-id "$run" --amdgpu-family "$family" "${flags[@]}" --output-dir "$1" >"$work/up.log" 2>&1
}
rp() { # CACHE OUT [OPTIONS...]
	local cache=$1 out=$2
	shift 2
	"$rockpack" -q --cache "$cache" --endpoint "$ep" install s3://$bucket --run-id "$run" \
		--amdgpu-family "$family" "${flags[@]}" --output-dir "$out" "$@"
}
ncpu=$(nproc)

echo "machine: $(nproc) CPUs, $(uname -r); run $run, $family ${flags[*]}; $rounds rounds"
up=() cold=() warm=() warmj=() warma=()
for r in $(seq "$rounds"); do
	rm -rf "$work/out" "$work/cache"
	bench_drop || true
	up+=("$(timeit upstream "$work/out")")
	rm -rf "$work/out"
	bench_drop || true
	cold+=("$(timeit rp "$work/cache" "$work/out")")
	rm -rf "$work/out"
	bench_drop || true
	warm+=("$(timeit rp "$work/cache" "$work/out" -j 1)")
	rm -rf "$work/out"
	bench_drop || true
	warmj+=("$(timeit rp "$work/cache" "$work/out" -j "$ncpu")")
	rm -rf "$work/out"
	bench_drop || true
	warma+=("$(timeit rp "$work/cache" "$work/out" -j "$ncpu" --link=auto)")
done
n=$(find "$work/out" | wc -l)
u=$(best "${up[@]}") c=$(best "${cold[@]}") w=$(best "${warm[@]}") wj=$(best "${warmj[@]}") wa=$(best "${warma[@]}")
printf '%-16s %8s s\n' "upstream" "$u" "rockpack cold" "$c" "warm -j 1" "$w" "warm -j $ncpu" "$wj" \
	"warm -j $ncpu auto" "$wa"
echo "entries installed: $n; rockpack/upstream: cold $(ratio "$c" "$u"), warm -j 1 $(ratio "$w" "$u"), -j $ncpu $(ratio "$wj" "$u"), auto $(ratio "$wa" "$u")"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
