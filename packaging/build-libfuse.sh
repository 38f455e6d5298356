#!/usr/bin/env bash
# Builds libfuse 3.17 from Debian 13's fuse3 source package into a private prefix, for a
# rockfs with FUSE passthrough on a distribution whose libfuse is older (Debian 12 has
# 3.14; passthrough came with 3.17). Nothing is installed system-wide.
#
#   packaging/build-libfuse.sh [DIR]     (default: build-libfuse in the source tree)
#
# Downloads fuse3_3.17.2-3 (.dsc, upstream tarball and its signature, Debian's patches) from
# deb.debian.org into DIR/src, checks each file against the SHA-256 pinned below (taken
# from the source package's .dsc, whose checksums dpkg-source checks again when it
# unpacks), applies Debian's patches, and builds the library alone (no fusermount3, no
# examples, no tests) with meson and ninja into DIR/prefix. A second run finds
# DIR/prefix/.built-VERSION and does nothing. Prints the prefix last. Then:
#
#   PKG_CONFIG_PATH=DIR/prefix/lib/$(gcc -print-multiarch)/pkgconfig \
#       cmake -S . -B build-fuse317 -DCMAKE_BUILD_RPATH=DIR/prefix/lib/$(gcc -print-multiarch)
#
# (tools/test.sh does this). Mounting still uses the system's fusermount3 when the
# daemon is not root; passthrough itself needs root (CAP_SYS_ADMIN) anyway.
# Needs: curl, dpkg-dev (dpkg-source), meson, ninja-build, a C compiler
# (packaging/install-deps.sh --tests installs them).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$top/build-libfuse}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

version=3.17.2-3
pool=http://deb.debian.org/debian/pool/main/f/fuse3
# name sha256 (the .dsc's own hash, and the three files as the .dsc lists them)
files=(
	"fuse3_$version.dsc 1339847e7e6512f31d61cf1fe4598341c4b8aa43ea6dc546914b21f96f29deb3"
	"fuse3_3.17.2.orig.tar.gz 3d932431ad94e86179e5265cddde1d67aa3bb2fb09a5bd35c641f86f2b5ed06f"
	"fuse3_3.17.2.orig.tar.gz.asc df18d3972c68dd0e8f7ad2a544a24ac54d48aa4b42d99b717448f7fe8e71cea4"
	"fuse3_$version.debian.tar.xz eaf7a177761ae8bf99ea97619f2cccf83f169b4f000e17b6106834e69456b5a2"
)
prefix=$dir/prefix
stamp=$prefix/.built-$version

if [ -e "$stamp" ]; then
	echo "build-libfuse: libfuse $version already built in $prefix" >&2
	echo "$prefix"
	exit 0
fi

mkdir -p "$dir/src"
cd "$dir/src"
for f in "${files[@]}"; do
	name=${f% *}
	sum=${f#* }
	if [ ! -e "$name" ] || ! echo "$sum  $name" | sha256sum -c --quiet - 2>/dev/null; then
		echo "build-libfuse: fetching $pool/$name" >&2
		curl -fsSL --retry 3 -o "$name.part" "$pool/$name"
		mv "$name.part" "$name"
	fi
	if ! echo "$sum  $name" | sha256sum -c --quiet -; then
		echo "build-libfuse: $name: SHA-256 is not the pinned $sum" >&2
		rm -f "$name"
		exit 1
	fi
done

# dpkg-source checks every file against the .dsc's sizes and checksums, unpacks the
# upstream tarball and applies debian/patches (its signature cannot be checked without
# the uploader's key in debian-keyring: the pinned hashes above stand for it)
rm -rf "fuse3-3.17.2"
dpkg-source -x "fuse3_$version.dsc" >/dev/null 2>dpkg-source.log || {
	cat dpkg-source.log >&2
	exit 1
}

rm -rf "$dir/meson"
meson setup "$dir/meson" "fuse3-3.17.2" --prefix="$prefix" --buildtype=release \
	-Dutils=false -Dexamples=false -Dtests=false -Duseroot=false \
	-Dudevrulesdir="$prefix/udev" -Dinitscriptdir="" >/dev/null
ninja -C "$dir/meson" >/dev/null
ninja -C "$dir/meson" install >/dev/null
touch "$stamp"
echo "build-libfuse: libfuse $version built in $prefix" >&2
echo "$prefix"
