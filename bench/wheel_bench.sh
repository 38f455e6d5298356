#!/usr/bin/env bash
# Benchmark of the synthesized wheels' compression (python/, -o wheel_compression=deflate,
# docs/python-sdk.md) against upstream-style wheels of the same payload.
#
#   bench/wheel_bench.sh [BUILD_DIR] [PAYLOAD_MIB] [REPEAT]
#
# Store: the demo split run (tests/demo/mkdemo.py) with PAYLOAD_MIB (default 200) MiB of
# this machine's shared libraries (/usr/lib/x86_64-linux-gnu, real ELF code and data) added
# to blas_lib_generic, so the rocm-sdk-libraries wheel carries them.
# Upstream-style wheels: every synthesized wheel rebuilt with Python's zipfile
# (ZIP_DEFLATED, level 6, what bdist_wheel and TheRock's build_python_packages.py write)
# from the stored wheel's members, on local disk.
#   bytes    the wheels' sizes: stored, deflate (rockfs), upstream-style
#   install  `pip install rocm-sdk-device-gfx1100 rocm-sdk-devel` (fresh venv, Debian's
#            pip, offline, --no-cache-dir): from the mount's index, stored vs deflate,
#            cold (empty rockfs cache, fresh mount: deflate compresses here) and remount
#            (same cache, page cache dropped when root), vs --no-index --find-links on
#            the upstream-style wheels
#   remote   the same installs from a mount of the store served by nginx (http://), cold
#            and remount, with the bytes the daemon fetched
# Every time is the best of REPEAT (default 3) runs; ratios are against upstream-style.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
payload_mib=${2:-200}
repeat=${3:-3}
rockfs=$build/fs/rockfs
rockpack=$build/tools/rockpack
. "$top/bench/lib.sh"
bench_init wheelbench
RUN=24205988455-linux
PKGS=(rocm-sdk-device-gfx1100 rocm-sdk-devel)
for v in $(compgen -e | grep '^PIP_' || true); do unset "$v"; done
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PIP_CONFIG_FILE=/dev/null PIP_NO_CACHE_DIR=1
export http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 no_proxy='*'
drop() { bench_drop || true; }
ngx=

cleanup_all() {
	[ -n "$ngx" ] && kill "$ngx" 2>/dev/null || true
	bench_cleanup
}
trap cleanup_all EXIT

# ---- the store ----
python3 "$top/tests/demo/mkdemo.py" "$work/demo" --runs split >/dev/null
mkdir -p "$work/store"
cp -r "$work/demo/$RUN" "$work/store/"
art=$work/store/$RUN/blas_lib_generic.tar.zst
mkdir -p "$work/art"
zstd -q -dc "$art" | tar -x -C "$work/art"
lib=$work/art/math-libs/BLAS/rocBLAS/stage/lib
limit=$((payload_mib << 20))
total=0
for f in $(find /usr/lib/x86_64-linux-gnu -maxdepth 1 -type f -name '*.so*' -size +100k -size -20M | sort); do
	[ $((total + $(stat -c %s "$f"))) -gt $limit ] && continue
	cp "$f" "$lib/libbench_$(basename "$f")"
	total=$((total + $(stat -c %s "$f")))
done
# (member names as the artifact has them: no "./")
(cd "$work/art" && tar --sort=name --owner=0 --group=0 --numeric-owner -cf - $(ls -A)) | zstd -q -3 -o "$art" -f
(cd "$(dirname "$art")" && sha256sum "$(basename "$art")" >"$(basename "$art").sha256sum")
rm -rf "$work/art" "$work/demo"
echo "payload: $((total >> 20)) MiB of shared libraries added to blas_lib_generic" >&2

# ---- wheels: stored and deflated from rockfs, upstream-style from the stored ones ----
bench_mount "$work/store" "$work/c-s"
mkdir -p "$work/stored"
cp "$mnt/$RUN/python/files/"*.whl "$work/stored/"
bench_umount
bench_mount "$work/store" "$work/c-d" -o wheel_compression=deflate
mkdir -p "$work/deflate"
cp "$mnt/$RUN/python/files/"*.whl "$work/deflate/"
bench_umount
mkdir -p "$work/upstream"
python3 - "$work/stored" "$work/upstream" <<'EOF'
import os, sys, zipfile
src, dst = sys.argv[1:]
for w in sorted(os.listdir(src)):
    with zipfile.ZipFile(os.path.join(src, w)) as zi, \
         zipfile.ZipFile(os.path.join(dst, w), "w", zipfile.ZIP_DEFLATED, compresslevel=6) as zo:
        for i in zi.infolist():
            zo.writestr(i, zi.read(i), zipfile.ZIP_DEFLATED, 6)
EOF
bytes() { du -cb "$1"/*.whl | tail -n 1 | cut -f1; }
b_s=$(bytes "$work/stored")
b_d=$(bytes "$work/deflate")
b_u=$(bytes "$work/upstream")

# ---- pip ----
nv=0
pipi() { # ARGS...: a fresh venv (not timed), then the timed pip install; prints seconds
	local venv=$work/venv$((nv += 1)) t
	/usr/bin/python3 -m venv "$venv"
	t=$(timeit "$venv/bin/python" -m pip install -q "$@" "${PKGS[@]}" 2>>"$work/pip.log") || {
		echo "pip install $* failed:" >&2
		tail -n 20 "$work/pip.log" >&2
		exit 1
	}
	rm -rf "$venv"
	echo "$t"
}
fetched() { sed -n 's/.*, \([0-9]*\) bytes fetched.*/\1/p' "$work/daemon.log" | tail -n 1; }
# from_mount STORE TAG [OPTIONS]: cold and remount pip installs; sets cold_TAG, warm_TAG
# (best times) and fetched_TAG (bytes the cold mount fetched, remote stores)
declare -A R
from_mount() {
	local store=$1 tag=$2 c w f=0
	shift 2
	local cold=() warm=()
	for ((i = 0; i < repeat; i++)); do
		rm -rf "$work/c-$tag"
		drop
		bench_mount "$store" "$work/c-$tag" "$@"
		cold+=("$(pipi --index-url "file://$mnt/$RUN/python/simple/")")
		bench_umount
		f=$(fetched)
		drop
		bench_mount "$store" "$work/c-$tag" "$@"
		warm+=("$(pipi --index-url "file://$mnt/$RUN/python/simple/")")
		bench_umount
	done
	R[cold_$tag]=$(best "${cold[@]}")
	R[warm_$tag]=$(best "${warm[@]}")
	R[fetched_$tag]=${f:-0}
}
up=()
for ((i = 0; i < repeat; i++)); do
	drop
	up+=("$(pipi --no-index --find-links "$work/upstream")")
done
R[upstream]=$(best "${up[@]}")
from_mount "$work/store" stored
from_mount "$work/store" deflate -o wheel_compression=deflate

# ---- remote: nginx serving the store directory ----
remote=0
if command -v nginx >/dev/null; then
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	mkdir -p "$work/ngx/tmp"
	user=
	[ "$(id -u)" = 0 ] && user="user root;"
	cat >"$work/ngx/nginx.conf" <<EOC
$user
daemon off;
worker_processes 1;
pid $work/ngx/nginx.pid;
error_log $work/ngx/error.log;
events { worker_connections 256; }
http {
	access_log off;
	client_body_temp_path $work/ngx/tmp/body;
	proxy_temp_path $work/ngx/tmp/proxy;
	fastcgi_temp_path $work/ngx/tmp/fastcgi;
	uwsgi_temp_path $work/ngx/tmp/uwsgi;
	scgi_temp_path $work/ngx/tmp/scgi;
	sendfile on;
	server { listen 127.0.0.1:$port; location /store/ { alias $work/store/; autoindex on; } }
}
EOC
	nginx -e "$work/ngx/error.log" -c "$work/ngx/nginx.conf" -p "$work/ngx" >/dev/null 2>&1 &
	ngx=$!
	for _ in $(seq 100); do [ -s "$work/ngx/nginx.pid" ] && break; sleep 0.1; done
	url=http://127.0.0.1:$port/store/
	from_mount "$url" rstored
	from_mount "$url" rdeflate -o wheel_compression=deflate
	remote=1
fi

# ---- report ----
echo
echo "machine: $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-44s %12s %8s\n' "wheels (synthesized, $(ls "$work/stored" | wc -l) files)" bytes "vs upstream"
printf '%-44s %12s %8s\n' "stored (default)" "$b_s" "$(ratio "$b_s" "$b_u")"
printf '%-44s %12s %8s\n' "deflate (-o wheel_compression=deflate)" "$b_d" "$(ratio "$b_d" "$b_u")"
printf '%-44s %12s %8s\n' "upstream-style (zipfile, deflate 6)" "$b_u" "1.00"
echo
printf '%-44s %9s %8s\n' "pip install ${PKGS[*]}" seconds "vs upstream"
printf '%-44s %9s %8s\n' "upstream-style, --find-links local dir" "${R[upstream]}" "1.00"
for tag in stored deflate $([ $remote = 1 ] && echo rstored rdeflate); do
	case $tag in
	stored) what="mount, stored" ;;
	deflate) what="mount, deflate" ;;
	rstored) what="remote (nginx) mount, stored" ;;
	rdeflate) what="remote (nginx) mount, deflate" ;;
	esac
	printf '%-44s %9s %8s\n' "$what, cold" "${R[cold_$tag]}" "$(ratio "${R[cold_$tag]}" "${R[upstream]}")"
	printf '%-44s %9s %8s\n' "$what, remount" "${R[warm_$tag]}" "$(ratio "${R[warm_$tag]}" "${R[upstream]}")"
done
if [ $remote = 1 ]; then
	echo
	echo "bytes fetched from the remote store by a cold mount: stored ${R[fetched_rstored]}, deflate ${R[fetched_rdeflate]}"
fi
