#!/usr/bin/env bash
# Installs the Debian 12 packages rockfs needs.
#   packaging/install-deps.sh           build and run rockfs, rockpack and the demo
#                                       (tools/demo.sh)
#   packaging/install-deps.sh --tests   and everything the test suite drives (tools/test.sh):
#                                       sanitizers, package managers, nginx, node, ...
# Idempotent and quiet (apt-get -qq, no prompts); needs root (or sudo). A service that a
# newly installed package would start (nginx) is neither started nor left enabled: the
# tests run their own servers in the foreground.
set -euo pipefail

tests=0
case ${1:-} in
"") ;;
--tests) tests=1 ;;
*)
	echo "usage: $0 [--tests]" >&2
	exit 2
	;;
esac

pkgs=(
	# build
	build-essential cmake pkg-config git
	libfuse3-dev libelf-dev libzstd-dev liblzma-dev libarchive-dev libcurl4-openssl-dev
	libmsgpack-dev uthash-dev libjansson-dev libssl-dev libdeflate-dev zlib1g-dev
	libgpgme-dev gnupg
	# runtime: the FUSE helper and the codec CLIs the demo generator uses
	fuse3 zstd xz-utils python3 binutils
	# the demo's pip example: pip (Debian's) installs from the mount into a venv; the
	# rocm sdist is built in pip's isolated env from Debian's setuptools and wheel wheels
	python3-venv python3-pip-whl python3-setuptools-whl python3-wheel-whl
)
if [ $tests = 1 ]; then
	pkgs+=(
		# sanitizers and fuzzing (clang + libFuzzer runtime), clang-format
		clang libclang-rt-14-dev clang-tools-15
		# tests drive the mount with real tools
		rsync libarchive-tools file procps util-linux diffutils coreutils findutils tar gzip
		# the wheels' RPATH change is checked against patchelf (TheRock's tool for it), and
		# TheRock's own build_python_packages.py (the python views' oracle) needs patchelf,
		# libmagic's binding and setuptools + wheel for the system python3
		patchelf python3-magic python3-setuptools python3-wheel
		# rocm-kpack's own split/verify/recombine (the kpack oracle) need these
		python3-zstandard python3-msgpack
		# TheRock's install_rocm_from_artifacts.py (the install oracle) talks S3 with boto3
		python3-boto3
		# and TheRock's build_package.py (the native packages' oracle): debhelper's dh,
		# jinja2 (dpkg-dev, rpm and patchelf are listed above)
		debhelper python3-jinja2
		# native package tests: dpkg-gencontrol, dpkg-scanpackages, apt-ftparchive, lintian
		dpkg-dev apt-utils lintian
		# and rpm (query, -K, install, rpmbuild), rpm2cpio + cpio, createrepo_c, dnf
		rpm rpm2cpio cpio createrepo-c dnf
		# PEP 440 itself (packaging.version), the order the package versions must keep
		python3-packaging
		# remote-store and serving tests: nginx (autoindex, caching proxy,
		# packaging/nginx-rockfs.conf), curl
		nginx-light curl openssl
		# helgrind over many threads on one libcurl transport (remote_http_threads)
		valgrind
		# rockpack install --link=reflink on a loop-mounted XFS (mkfs.xfs), its clones
		# seen by filefrag (e2fsprogs)
		xfsprogs e2fsprogs
		# install and CLI tests: the man pages render (man-db, groff), the completions
		# load (bash-completion, zsh)
		man-db groff-base bash-completion zsh
		# libfuse 3.17 built from Debian 13's source (packaging/build-libfuse.sh) for the
		# FUSE passthrough tests: dpkg-source (dpkg-dev, above) unpacks it
		meson ninja-build
	)
	# and node + npm (s3rver is installed from the npm registry at test time): Debian's,
	# unless the machine has its own (e.g. NodeSource's nodejs, which ships npm and
	# conflicts with Debian's npm package)
	command -v node >/dev/null || pkgs+=(nodejs)
	command -v npm >/dev/null || pkgs+=(npm)
fi

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

# unit files enabled now, one a line (none without systemctl)
enabled_units() {
	if command -v systemctl >/dev/null; then
		systemctl list-unit-files --state=enabled --no-legend --no-pager 2>/dev/null |
			awk '{print $1}' | sort
	fi
}

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
before=$(enabled_units)
# invoke-rc.d asks policy-rc.d before starting a service: 101 says no (the Debian policy
# interface; a policy the machine already has is left alone)
policy=/usr/sbin/policy-rc.d
own_policy=0
if [ ! -e $policy ]; then
	printf '#!/bin/sh\nexit 101\n' | $sudo tee $policy >/dev/null
	$sudo chmod 755 $policy
	own_policy=1
fi
log=$(mktemp)
trap '[ $own_policy = 0 ] || $sudo rm -f $policy; rm -f "$log"' EXIT
# apt and dpkg say little with -qq, and that goes to the log: shown only on failure
if ! { $sudo apt-get update -qq && $sudo apt-get install -y -qq -o Dpkg::Use-Pty=0 \
	--no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
	cat "$log" >&2
	echo "install-deps: apt-get failed" >&2
	exit 1
fi

# what the packages just installed enabled (nginx.service, man-db.timer, ...): disabled
# again, and stopped where systemd runs
for u in $(comm -13 <(printf '%s\n' "$before") <(enabled_units)); do
	echo "install-deps: disabling $u (installed as a dependency, not needed running)"
	$sudo systemctl disable --quiet "$u" 2>/dev/null || true
	if [ -d /run/systemd/system ]; then $sudo systemctl stop --quiet "$u" 2>/dev/null || true; fi
	s=${u%.service}
	if [ "$s" != "$u" ] && [ -x "/etc/init.d/$s" ] && command -v update-rc.d >/dev/null; then
		$sudo update-rc.d "$s" disable >/dev/null 2>&1 || true
	fi
done
echo "install-deps: done"
