#!/usr/bin/env bash
# Installs every Debian 12 package rockfs needs to build, run its demo and pass its tests.
# Idempotent; needs root (or sudo). Set RK_DEPS_QUIET=1 for less output.
set -euo pipefail

pkgs=(
	# build
	build-essential cmake pkg-config git
	libfuse3-dev libelf-dev libzstd-dev libarchive-dev libcurl4-openssl-dev
	libmsgpack-dev uthash-dev libjansson-dev libssl-dev libdeflate-dev zlib1g-dev
	libgpgme-dev gnupg
	# runtime: the FUSE helper and the codec CLIs the demo generator uses
	fuse3 zstd xz-utils python3
	# sanitizers and fuzzing (clang + libFuzzer runtime)
	clang libclang-rt-14-dev
	# tests drive the mount with real tools
	rsync libarchive-tools binutils file procps util-linux diffutils coreutils findutils tar gzip
	# native package tests: dpkg-gencontrol, dpkg-scanpackages, apt-ftparchive, lintian
	dpkg-dev apt-utils lintian
	# and rpm (query, -K, install, rpmbuild), rpm2cpio + cpio, createrepo_c, dnf
	rpm rpm2cpio cpio createrepo-c dnf
	# remote-store tests: nginx (autoindex, caching proxy), curl
	nginx-light curl openssl
	# python index test: pip (Debian's) installs from the mount into a fresh venv
	python3-venv python3-pip-whl python3-setuptools-whl
	# the rocm sdist is built in pip's isolated env from Debian's setuptools and wheel wheels
	python3-wheel-whl
	clang-tools-15
	# install and CLI tests: the man pages render (man-db, groff), the completions load
	# (bash-completion, zsh)
	man-db groff-base bash-completion zsh
)
# and node + npm (s3rver is installed from the npm registry at test time): Debian's,
# unless the machine has its own (e.g. NodeSource's nodejs, which ships npm and
# conflicts with Debian's npm package)
command -v node >/dev/null || pkgs+=(nodejs)
command -v npm >/dev/null || pkgs+=(npm)

sudo=""
if [ "$(id -u)" != 0 ]; then sudo=sudo; fi

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all ${#pkgs[@]} packages present"
	exit 0
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
