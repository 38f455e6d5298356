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

# apt_simulate_every ROOT INDEX [together]: `apt-get install -s` of every package INDEX
# (the repository's Packages) names, in ROOT (apt_root, updated): all of a family's at
# once, each with the packages of no family (a legacy run's families may refuse each
# other), or all in one call with `together` (a kpack-split run's targets); so each
# package's Depends must resolve. Says what failed on stderr; 0 when all installed.
apt_simulate_every() {
	local root=$1 idx=$2 fams fam others pkgs rc=0
	sed -n 's/^Package: //p' "$idx" >"$root/names"
	[ -s "$root/names" ] || { echo "an empty repository: $idx" >&2; return 1; }
	fams=$(grep -o -- '-gfx[0-9a-z]*$' "$root/names" | sort -u)
	[ -n "$fams" ] && [ "${3:-}" != together ] || fams=-
	for fam in $fams; do
		others=$(printf '%s\n' $fams | { grep -vx -- "$fam" || true; } | sed 's/$/$/')
		pkgs=$(if [ -n "$others" ]; then grep -v -- "$others" "$root/names"; else cat "$root/names"; fi)
		if ! sh "$root/apt.sh" install -s $pkgs >"$root/sim.log" 2>&1; then
			echo "($fam) apt-get install -s of $(echo $pkgs | wc -w) packages failed:" >&2
			grep -E '^ |^E:' "$root/sim.log" | head -8 >&2
			rc=1
		elif [ "$(grep -c '^Inst ' "$root/sim.log")" -lt "$(echo $pkgs | wc -w)" ]; then
			echo "($fam) apt-get install -s did not install every package" >&2
			rc=1
		fi
	done
	return $rc
}
