#!/usr/bin/env bash
# Benchmarks for remote stores (docs/remote-stores.md), against s3rver on loopback, side
# by side with what a user would otherwise run.
#
#   bench/remote_bench.sh [BUILD_DIR] [LARGE_GIB] [ARTIFACTS]
#
#   cold    first `cat` of the last member of a LARGE_GIB (default 0.25) GiB artifact
#           through s3:// (empty cache) vs `curl -o` of the archive + `zstd -dc | tar x`
#                                                              (goal <= 1.2x)
#   list    `ls -lR RUN/artifacts` of a run with ARTIFACTS (default 1000) artifacts:
#           cold (one ListObjectsV2 sequence: requests counted), then again (memory),
#           vs `ls -lR` of the same directory on local disk
#   ls -R   of that whole run (browse/ makes every archive be fetched and ingested), then
#           again
#   proxy   two mounts with separate caches through one nginx caching proxy
#           (http_proxy): cold read in the first, then in the second (served by the
#           proxy: archive requests reaching the S3 server are counted)
# Needs node + npm (s3rver is installed into BUILD_DIR/test-npm like the tests do) and
# nginx for the proxy part. Root drops the page cache before cold runs.
#
#   bench/remote_bench.sh --bucket [BUILD_DIR] [RUNS] [LATENCY_MS] [ROUNDS]
#
#   a bucket of RUNS (default 1000) small runs (3 objects each) in s3rver behind
#   bench/latproxy.py adding LATENCY_MS (default 50) to every request: `rockpack ls`,
#   the first `ls` and the first `ls -l` of a mount (each with an empty cache), and
#   `rockpack ls` again with the cache (the runs final: run_final_age), against the same
#   listing made as `aws s3 ls` makes it (bench/s3ls.py: the root, then every run
#   prefix, 10 and 16 at a time; aws-cli is not installable here). Best of ROUNDS (3).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = --bucket ]; then
	shift
	build=$(cd "${1:-$top/build}" && pwd)
	nruns=${2:-1000}
	lat=${3:-50}
	rounds=${4:-3}
	. "$top/bench/lib.sh"
	bench_init remote-bucket
	bg=()
	trap 'for p in "${bg[@]}"; do kill "$p" 2>/dev/null || true; done; bench_cleanup' EXIT
	npmdir=$build/test-npm
	[ -f "$npmdir/node_modules/s3rver/package.json" ] ||
		npm install --prefix "$npmdir" --no-audit --no-fund --no-save s3rver@3.7.1 >/dev/null
	python3 - "$work/store" "$nruns" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(root, "%d-linux" % (30000000000 + i))
    os.makedirs(d)
    for name in ("base_lib_generic.tar.zst", "base_lib_generic.tar.zst.sha256sum", "blas_lib_gfx1100.tar.zst"):
        with open(os.path.join(d, name), "wb") as f:
            f.write(b"x%d" % i)
PY
	echo "uploading $((nruns * 3)) objects to s3rver ..."
	RT_PUT_JOBS=32 NODE_OPTIONS=--openssl-legacy-provider NODE_PATH=$npmdir/node_modules \
		node "$top/tests/remote/s3rver_run.js" "$work/s3data" "$work/store" bench "" \
		"$work/s3.port" >"$work/s3.log" 2>&1 &
	bg+=($!)
	for _ in $(seq 1200); do [ -s "$work/s3.port" ] && break; sleep 0.2; done
	python3 "$top/bench/latproxy.py" "http://127.0.0.1:$(cat "$work/s3.port")" "$lat" "$work/lat.port" &
	bg+=($!)
	for _ in $(seq 100); do [ -s "$work/lat.port" ] && break; sleep 0.1; done
	ep=http://127.0.0.1:$(cat "$work/lat.port")
	rockfs=$build/fs/rockfs
	best() { sort -n | head -n1; }
	tq() { local t0; t0=$(now); "$@" >/dev/null; elapsed "$t0" "$(now)"; }
	declare -A t
	for r in $(seq "$rounds"); do
		c=$work/c$r
		t[rp]+="$(tq "$build/tools/rockpack" ls s3://bench --endpoint "$ep" --cache "$c-rp") "
		[ "$("$build/tools/rockpack" ls s3://bench --endpoint "$ep" --cache "$c-rp" | wc -l)" = $((nruns + 1)) ] ||
			{ echo "rockpack ls: wrong run count" >&2; exit 1; }
		bench_mount s3://bench "$c-fin" -o "endpoint=$ep,run_final_age=0"
		ls "$mnt" >/dev/null
		fusermount3 -u "$mnt"; wait "$pid" || true; pid=
		t[rp_kept]+="$(tq "$build/tools/rockpack" ls s3://bench --endpoint "$ep" --cache "$c-fin") "
		bench_mount s3://bench "$c-ls" -o "endpoint=$ep"
		t[ls]+="$(tq ls "$mnt") "
		fusermount3 -u "$mnt"; wait "$pid" || true; pid=
		bench_mount s3://bench "$c-lsl" -o "endpoint=$ep"
		t[lsl]+="$(tq ls -lt "$mnt") "
		fusermount3 -u "$mnt"; wait "$pid" || true; pid=
		t[aws10]+="$(tq python3 "$top/bench/s3ls.py" "$ep" bench 10) "
		t[aws16]+="$(tq python3 "$top/bench/s3ls.py" "$ep" bench 16) "
	done
	echo "bucket: $nruns runs, ${lat} ms added to each request, best of $rounds; load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
	for k in rp rp_kept ls lsl aws10 aws16; do
		printf '  %-44s %8s s\n' "$(case $k in
			rp) echo "rockpack ls (empty cache)" ;;
			rp_kept) echo "rockpack ls (finished runs kept in the cache)" ;;
			ls) echo "first ls of the mount's root" ;;
			lsl) echo "first ls -lt of the mount's root" ;;
			aws10) echo "aws s3 ls style, 10 at a time (s3ls.py)" ;;
			aws16) echo "aws s3 ls style, 16 at a time (s3ls.py)" ;;
		esac)" "$(tr ' ' '\n' <<<"${t[$k]}" | grep . | best)"
	done
	exit 0
fi
build=$(cd "${1:-$top/build}" && pwd)
gib=${2:-0.25}
narts=${3:-1000}
rockfs=$build/fs/rockfs
. "$top/bench/lib.sh"
bench_init remote
bg=()
cleanup_all() {
	for p in "${bg[@]}"; do kill "$p" 2>/dev/null || true; done
	bench_cleanup
}
trap cleanup_all EXIT
can_drop=0
if [ -w /proc/sys/vm/drop_caches ] && sync && echo 3 >/proc/sys/vm/drop_caches 2>/dev/null; then
	can_drop=1
fi
drop() { if [ $can_drop = 1 ]; then sync; echo 3 >/proc/sys/vm/drop_caches; fi; }

npmdir=$build/test-npm
if [ ! -f "$npmdir/node_modules/s3rver/package.json" ]; then
	mkdir -p "$npmdir"
	npm install --prefix "$npmdir" --no-audit --no-fund --no-save s3rver@3.7.1 >/dev/null
fi

echo "generating the stores ..."
store=$work/store
python3 "$top/tests/demo/mkdemo.py" "$store" --large-gib "$gib" >/dev/null
big=$(ls "$store")
many=90000000002-linux
mkdir -p "$store/$many"
small=$(ls "$top"/tests/demo >/dev/null; find "$build/demo-store" -name '*_generic.tar.zst' 2>/dev/null | head -n1)
if [ -z "$small" ]; then
	python3 "$top/tests/demo/mkdemo.py" "$work/demo" >/dev/null
	small=$(find "$work/demo" -name '*_generic.tar.zst' | head -n1)
fi
for i in $(seq -w 1 "$narts"); do
	cp "$small" "$store/$many/n${i}_lib_generic.tar.zst"
	(cd "$store/$many" && sha256sum "n${i}_lib_generic.tar.zst" >"n${i}_lib_generic.tar.zst.sha256sum")
done

NODE_OPTIONS=--openssl-legacy-provider NODE_PATH=$npmdir/node_modules node "$top/tests/remote/s3rver_run.js" "$work/s3data" "$store" \
	bench "" "$work/s3.port" >"$work/s3.log" 2>&1 &
bg+=($!)
for _ in $(seq 600); do [ -s "$work/s3.port" ] && break; sleep 0.2; done
port=$(cat "$work/s3.port")
ep=http://127.0.0.1:$port

mount_s3() { # CACHE [ENV...]
	local cache=$1
	shift
	env "$@" "$rockfs" s3://bench "$mnt" -f -o "cache=$cache,endpoint=$ep" 2>>"$work/daemon.log" &
	pid=$!
	for _ in $(seq 300); do
		mountpoint -q "$mnt" && return 0
		kill -0 "$pid" 2>/dev/null || { cat "$work/daemon.log"; exit 1; }
		sleep 0.05
	done
	exit 1
}
umount_s3() {
	fusermount3 -u "$mnt"
	wait "$pid" || true
	pid=
}
quiet() { "$@" >/dev/null; }
lists() { grep -c 'list-type=2' "$work/s3.log" || true; }
gets() { grep -cE '\.tar\.zst ' "$work/s3.log" || true; }

# ---- cold read of one member ----
archive=$store/$big/bigdata_lib_generic.tar.zst
last=$(zstd -dc "$archive" | tar t | tail -n1)
echo
echo "== cold read: $big/bigdata_lib_generic ($(du -h "$archive" | cut -f1) compressed), last member"
drop
t_base=$(timeit sh -c "curl -s -o '$work/dl.tar.zst' '$ep/bench/$big/bigdata_lib_generic.tar.zst' && mkdir -p '$work/x' && zstd -dc '$work/dl.tar.zst' | tar x -C '$work/x'")
rm -rf "$work/dl.tar.zst" "$work/x"
drop
mount_s3 "$work/cache1"
t_rk=$(timeit quiet cat "$mnt/$big/browse/bigdata_lib_generic/$last")
umount_s3
printf '%-52s %10s %10s %8s\n' measure baseline rockfs ratio
printf '%-52s %9ss %9ss %7sx\n' "cold cat of the last member vs curl -o + zstd|tar" "$t_base" "$t_rk" "$(ratio "$t_rk" "$t_base")"

# ---- listing a run with many artifacts ----
echo
echo "== $many: $narts artifacts ($((narts * 2)) objects)"
l0=$(lists)
t_local=$(timeit quiet ls -lR "$store/$many")
mount_s3 "$work/cache2"
t_cold=$(timeit quiet ls -lR "$mnt/$many/artifacts")
l1=$(lists)
t_warm=$(timeit quiet ls -lR "$mnt/$many/artifacts")
printf '%-52s %9ss %9ss %7sx   (%s ListObjectsV2 requests)\n' "ls -lR artifacts/, cold (local dir vs s3)" "$t_local" "$t_cold" "$(ratio "$t_cold" "$t_local")" "$((l1 - l0))"
printf '%-52s %9ss %9ss %7sx\n' "ls -lR artifacts/, again" "$t_local" "$t_warm" "$(ratio "$t_warm" "$t_local")"
g0=$(gets)
t_r1=$(timeit quiet ls -R "$mnt/$many")
g1=$(gets)
t_r2=$(timeit quiet ls -R "$mnt/$many")
printf '%-52s %10s %9ss %8s   (%s archives fetched)\n' "ls -R of the whole run (ingests every archive)" "" "$t_r1" "" "$((g1 - g0))"
printf '%-52s %10s %9ss\n' "ls -R of the whole run, again" "" "$t_r2"
umount_s3
mount_s3 "$work/cache2"
l0=$(lists)
t_re=$(timeit quiet ls -lR "$mnt/$many/artifacts")
l1=$(lists)
printf '%-52s %10s %9ss %8s   (%s requests: the listing is cached)\n' "ls -lR artifacts/ after remount" "" "$t_re" "" "$((l1 - l0))"
umount_s3

# ---- two mounts through a caching proxy ----
if command -v nginx >/dev/null; then
	pp=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	d=$work/nginx
	mkdir -p "$d/tmp" "$d/cache"
	user=""
	[ "$(id -u)" = 0 ] && user="user root;"
	cat >"$d/nginx.conf" <<EOC
$user
daemon off; worker_processes 1; pid $d/nginx.pid; error_log $d/error.log;
events { worker_connections 256; }
http {
	access_log off;
	client_body_temp_path $d/tmp/b; proxy_temp_path $d/tmp/p; fastcgi_temp_path $d/tmp/f;
	uwsgi_temp_path $d/tmp/u; scgi_temp_path $d/tmp/s;
	proxy_cache_path $d/cache levels=1:2 keys_zone=rt:10m max_size=4g inactive=1h use_temp_path=off;
	server {
		listen 127.0.0.1:$pp;
		location / { proxy_pass http://127.0.0.1:$port; proxy_cache rt; proxy_cache_valid 200 1h;
			     proxy_cache_lock on; proxy_set_header Host \$http_host; }
	}
}
EOC
	nginx -e "$d/error.log" -c "$d/nginx.conf" -p "$d" &
	bg+=($!)
	for _ in $(seq 100); do [ -s "$d/nginx.pid" ] && break; sleep 0.1; done
	sleep 0.2
	echo
	echo "== two mounts, separate caches, one nginx caching proxy (http_proxy)"
	g0=$(gets)
	drop
	mount_s3 "$work/cache-a" http_proxy="http://127.0.0.1:$pp"
	t_a=$(timeit quiet cat "$mnt/$big/browse/bigdata_lib_generic/$last")
	umount_s3
	g1=$(gets)
	drop
	mount_s3 "$work/cache-b" http_proxy="http://127.0.0.1:$pp"
	t_b=$(timeit quiet cat "$mnt/$big/browse/bigdata_lib_generic/$last")
	umount_s3
	g2=$(gets)
	printf '%-52s %10s %9ss %8s   (%s archive requests reached S3)\n' "first mount, cold cat through the proxy" "" "$t_a" "" "$((g1 - g0))"
	printf '%-52s %9ss %9ss %7sx   (%s archive requests reached S3)\n' "second mount, cold cat (proxy cache hit)" "$t_a" "$t_b" "$(ratio "$t_b" "$t_a")" "$((g2 - g1))"
fi
[ $can_drop = 1 ] || echo "(not root: page cache not dropped; cold numbers are warm-page-cache numbers)"
