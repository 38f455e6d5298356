#!/usr/bin/env bash
# mkreal_store.sh DEBS STORE: a legacy run of real ROCm binaries, Debian's (rocSPARSE 5.3,
# rocRAND 5.3, HIP 5.2, ROCr, comgr), laid out as TheRock's artifacts for the family
# gfx94X-dcgpu, compressed as TheRock compresses them (zstd -3). The .debs are fetched with
# `apt-get download` into DEBS (kept between runs); exit 77 when they cannot be had.
# Run 30000000001-linux: base_lib_generic, core-runtime_lib_generic, core-hip_lib_generic,
# amd-llvm_lib_generic, blas_lib_gfx94X-dcgpu (the 1.3 GB librocsparse.so),
# rand_lib_gfx94X-dcgpu. What TheRock's package set needs beside them and Debian 12 lacks
# (LLVM, rocBLAS, rocSOLVER, rocprofiler-sdk, host BLAS: the packages rocSPARSE's
# amdrocm-sparse needs, transitively) is a README each, so that those packages are served.
set -euo pipefail
debs=$1 store=$2
pkgs="librocsparse0 librocrand1 libamdhip64-5 libhsa-runtime64-1 libamd-comgr2"
mkdir -p "$debs"
for p in $pkgs; do
	ls "$debs/${p}_"*.deb >/dev/null 2>&1 && continue
	(cd "$debs" && apt-get download "$p" >/dev/null 2>&1) || { echo "cannot download $p" >&2; exit 77; }
done
run=$store/30000000001-linux
mkdir -p "$run/manifests"
work=$(mktemp -d "${TMPDIR:-/tmp}/mkreal.XXXXXX")
trap 'rm -rf "$work"' EXIT
# [STANDINS=PREFIX...] art NAME PREFIX DEB...: the .so files (and their links) of the debs
# under PREFIX/lib, and a README under each of STANDINS
art() {
	local name=$1 prefix=$2 d=$work/$1 sp tops
	shift 2
	mkdir -p "$d/$prefix/lib" "$work/x"
	for p in "$@"; do
		rm -rf "$work/x" && mkdir -p "$work/x"
		dpkg-deb -x "$(ls "$debs/${p}_"*.deb | head -n1)" "$work/x"
		find "$work/x" -name '*.so*' \( -type f -o -type l \) -exec mv -t "$d/$prefix/lib" {} +
	done
	[ -n "$(ls -A "$d/$prefix/lib")" ] || rmdir "$d/$prefix/lib"
	printf '%s\n' "$prefix" >"$d/artifact_manifest.txt"
	for sp in ${STANDINS:-}; do # not in Debian 12: a README stands for it
		mkdir -p "$d/$sp/share/doc/${sp%/stage}"
		echo "${sp%/stage} stands in here" >"$d/$sp/share/doc/${sp%/stage}/README"
		[ "$sp" = "$prefix" ] || printf '%s\n' "$sp" >>"$d/artifact_manifest.txt"
	done
	tops=$(sed 's|/.*||' "$d/artifact_manifest.txt" | sort -u)
	tar -C "$d" --owner=0 --group=0 --mtime=@1767225600 --sort=name \
		-c artifact_manifest.txt $tops | zstd -q -3 -T0 -c >"$run/$name.tar.zst"
	(cd "$run" && sha256sum "$name.tar.zst" | cut -d' ' -f1 >"$name.tar.zst.sha256sum")
	rm -rf "$d"
}
art core-runtime_lib_generic core/ROCR-Runtime/stage libhsa-runtime64-1
art core-hip_lib_generic core/clr/stage libamdhip64-5
STANDINS=compiler/amd-llvm/stage art amd-llvm_lib_generic compiler/amd-comgr/stage libamd-comgr2
STANDINS="math-libs/BLAS/rocBLAS/stage math-libs/BLAS/rocSOLVER/stage" \
	art blas_lib_gfx94X-dcgpu math-libs/BLAS/rocSPARSE/stage librocsparse0
art rand_lib_gfx94X-dcgpu math-libs/rocRAND/stage librocrand1
STANDINS=profiler/rocprofiler-sdk/stage art rocprofiler-sdk_lib_generic profiler/rocprofiler-sdk/stage
STANDINS=third-party/host-blas/stage art host-blas_lib_generic third-party/host-blas/stage
mkdir -p "$work/base/base/rocm-core/stage/.info"
echo 7.13.0 >"$work/base/base/rocm-core/stage/.info/version"
printf 'base/rocm-core/stage\n' >"$work/base/artifact_manifest.txt"
tar -C "$work/base" --owner=0 --group=0 --mtime=@1767225600 --sort=name \
	-c artifact_manifest.txt base | zstd -q -3 -c >"$run/base_lib_generic.tar.zst"
(cd "$run" && sha256sum base_lib_generic.tar.zst | cut -d' ' -f1 >base_lib_generic.tar.zst.sha256sum)
printf '{"rocm_package_version": "7.13.0", "rocm_version": "7.13.0", "github_run_id": "30000000001"}\n' \
	>"$run/manifests/therock_manifest.json"
