#!/usr/bin/env bash
# The README's first command: install what the demo needs (packaging/install-deps.sh, no
# test-only packages, no service left running), build, generate the bundled demo store
# and mount it, then show what is there. Leaves the mount in place.
#   tools/demo.sh [MOUNTPOINT]        (default /tmp/rockfs-demo)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
mnt=${1:-/tmp/rockfs-demo}

bash packaging/install-deps.sh
echo "demo: building rockfs and rockpack (build/)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target rockfs rockpack >/dev/null
[ -d build/demo-store ] || python3 tests/demo/mkdemo.py build/demo-store

mkdir -p "$mnt"
if mountpoint -q "$mnt"; then fusermount3 -u "$mnt"; fi
build/fs/rockfs "$top/build/demo-store" "$mnt" -o cache="$top/build/demo-cache"

run() { printf '\n$ %s\n' "$*"; "$@"; }
run ls "$mnt"
run ls "$mnt/24205988454-linux"
run ls "$mnt/24205988454-linux/artifacts"
run ls "$mnt/24205988454-linux/browse"
run ls -l "$mnt/24205988454-linux/browse/blas_lib_gfx110X-all/math-libs/BLAS/rocBLAS/stage/lib"
run ls "$mnt/24205988455-linux/dist" "$mnt/24205988455-linux/dist/gfx110X-all"
run ls "$mnt/24205988454-linux/kpack"
run ls -l "$mnt/24205988454-linux/kpack/rand_lib_gfx942:xnack+/math-libs/rocRAND/stage/.kpack"
run sh -c "readelf -SW '$mnt/24205988454-linux/dist/gfx942/lib/librocrand.so.1.1' | grep -E 'hip|kpack'"
run build/tools/rockpack kpack resolve "$mnt/24205988454-linux/dist/gfx942/lib/librocrand.so.1.1" --arch gfx942:sramecc+:xnack+
run ls -l "$mnt/24205988454-linux/tarballs"
run ls "$mnt/24205988455-linux/python" "$mnt/24205988455-linux/python/simple"
run sh -c "cut -c1-150 '$mnt/24205988455-linux/python/PROVENANCE'"
run head -c 300 "$mnt/24205988454-linux/browse/base_lib_generic/base/aux-overlay/stage/share/therock/therock_manifest.json"
echo
run build/tools/rockpack --cache "$top/build/demo-cache" ls build/demo-store 24205988455-linux

cat <<EOF2

rockfs is serving the demo store on $mnt. Things to try:
  cat $mnt/README
  find $mnt/24205988455-linux/browse/rand_lib_generic
  readelf -S $mnt/24205988454-linux/browse/rand_lib_gfx94X-dcgpu/math-libs/rocRAND/stage/lib/librocrand.so.1.1
  rsync -a $mnt/24205988455-linux/dist/gfx110X-all/ /tmp/rocm-gfx110X/
  rsync -a $mnt/24205988454-linux/dist/gfx1100/ /tmp/rocm-gfx1100/      # fat run, split for one GPU
  build/tools/rockpack kpack show $mnt/24205988454-linux/kpack/blas_lib_gfx1100/math-libs/BLAS/hipBLASLt/stage/.kpack/blas_lib_gfx1100.kpack
  tar tzf $mnt/24205988454-linux/tarballs/therock-dist-linux-gfx94X-dcgpu-7.13.0.dev0+abc1234.tar.gz | head
  cat $mnt/24205988455-linux/dist/.rockfs/multiarch.conflicts
  python3 -m venv /tmp/venv && /tmp/venv/bin/pip install --index-url file://$mnt/24205988455-linux/python/simple/ \\
      --find-links /usr/share/python-wheels 'rocm[libraries,devel,device]' && /tmp/venv/bin/rocm-sdk path --root
  build/tools/rockpack --cache build/demo-cache cat build/demo-store 24205988454-linux base_lib_generic artifact_manifest.txt
Unmount with: fusermount3 -u $mnt
EOF2
