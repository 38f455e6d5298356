# apt_sandbox.sh: apt-get against one repository, installing into a throwaway root, for
# tests and benchmarks (sourced; bash). The root starts with the host's dpkg status, so
# system dependencies (libc6, ...) resolve without being installed again.
#
#   apt_root ROOT REPO    REPO: a directory (file:) or an http:// URL holding dists/stable
#   sh ROOT/apt.sh update | install -y PKG...      apt-get, sandboxed into ROOT
apt_root() {
	local root=$1 repo=$2
	case $repo in /*) repo=file:$repo ;; esac
	mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/apt/lists/partial" \
		"$root/apt/archives/partial" "$root/apt/etc/apt.conf.d" "$root/apt/etc/preferences.d"
	cp /var/lib/dpkg/status "$root/var/lib/dpkg/status"
	: >"$root/var/lib/dpkg/available"
	echo "deb [trusted=yes] $repo stable main" >"$root/apt/sources.list"
	cat >"$root/apt.sh" <<EOF
exec apt-get -q -o Dir::State=$root/apt -o Dir::State::status=$root/var/lib/dpkg/status \
	-o Dir::Cache=$root/apt -o Dir::Etc::sourcelist=$root/apt/sources.list \
	-o Dir::Etc::sourceparts=- -o Dir::Etc::main=/dev/null \
	-o Dir::Etc::parts=$root/apt/etc/apt.conf.d -o Dir::Etc::preferencesparts=$root/apt/etc/preferences.d \
	-o APT::Get::List-Cleanup=0 -o Debug::NoLocking=1 -o APT::Sandbox::User=root \
	-o Acquire::Languages=none -o Acquire::http::Proxy=false -o DPkg::Options::=--root=$root \
	-o DPkg::Options::=--force-not-root -o DPkg::Options::=--force-script-chrootless \
	-o DPkg::Options::=--log=$root/dpkg.log -o DPkg::Chroot-Directory=/ \
	-o APT::Keep-Downloaded-Packages=0 -o DPkg::Use-Pty=0 "\$@"
EOF
}
