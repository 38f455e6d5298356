# lib.sh: shared helpers for the rockfs integration tests (docs style.md rules 17-18).
#
# A test is a bash script that does
#     . "$(dirname "$0")/lib.sh"
#     it_init "$@"          # ROCKFS ROCKPACK STORE (ctest passes the built binaries)
#     ... it_mount / checks / it_umount ...
#     it_finish
# Every test gets its own temporary directory ($T) with its own mountpoints and caches, so
# `ctest -j` is safe. The EXIT trap always unmounts (fusermount3 -u -z) and kills the
# daemons it started, by pid. Exit status: 0 pass, 1 fail, 77 skip (no /dev/fuse or
# fusermount3). A check that fails calls `fail` and the test goes on, so one run reports
# every broken check; `bug` marks a check that fails because of a known product bug.
# Set IT_KEEP=1 to keep $T for a post-mortem.

set -Eeuo pipefail
export LC_ALL=C

IT_NAME=$(basename "$0" .sh)
IT_FAILS=0
IT_MOUNTS=()      # names given to it_mount, in order
IT_BG=()          # pids of background helpers (readers) to kill on exit
declare -A IT_PID IT_MNT IT_LOG IT_DONE
T=

it_say() { printf '%s: %s\n' "$IT_NAME" "$*" >&2; }
fail() {
	IT_FAILS=$((IT_FAILS + 1))
	printf 'FAIL: %s\n' "$*" >&2
}
# A check that fails because of a product bug (reported, not fixed, by the test author).
bug() { fail "PRODUCT BUG: $*"; }
die() {
	printf 'FAIL: %s\n' "$*" >&2
	exit 1
}
skip() {
	printf 'SKIP: %s\n' "$*" >&2
	exit 77
}

it_err() {
	printf 'FAIL: %s: unexpected error at line %s: %s\n' "$IT_NAME" "$1" "$2" >&2
}

# it_init ROCKFS ROCKPACK STORE
it_init() {
	[ $# -ge 3 ] || die "usage: $0 ROCKFS ROCKPACK STORE"
	[ -c /dev/fuse ] || skip "/dev/fuse is missing"
	command -v fusermount3 >/dev/null || skip "fusermount3 is not installed"
	for tool in realpath mountpoint zstd xz tar diff cmp sha256sum find xargs python3; do
		command -v "$tool" >/dev/null || skip "'$tool' is not installed"
	done
	ROCKFS=$(realpath "$1")
	ROCKPACK=$(realpath "$2")
	STORE=$(realpath "$3")
	[ -x "$ROCKFS" ] || die "rockfs binary '$ROCKFS' is not executable"
	[ -x "$ROCKPACK" ] || die "rockpack binary '$ROCKPACK' is not executable"
	[ -d "$STORE" ] || die "store '$STORE' does not exist (did the demo fixture run?)"
	T=$(mktemp -d "${TMPDIR:-/tmp}/rockfs-it-$IT_NAME.XXXXXX")
	trap it_cleanup EXIT
	trap 'it_err $LINENO "$BASH_COMMAND"' ERR
	# python3 found once and put first on PATH ($T/pybin/python3, a link to the same
	# interpreter): a version manager's shim (pyenv's is a shell script that runs pyenv)
	# costs a second of CPU per call, and a test makes up to hundreds of calls
	local py
	py=$(python3 -c 'import sys; print(sys.executable)') && [ -x "$py" ] ||
		die "python3 does not say where it is (sys.executable)"
	mkdir -p "$T/pybin"
	ln -s "$py" "$T/pybin/python3"
	PATH=$T/pybin:$PATH
	it_say "temp dir $T"
}

# True while pid is a live process (a zombie child counts as dead).
pid_alive() {
	local st
	st=$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 1
	[ -n "$st" ] && [ "$st" != Z ]
}

# it_mount NAME STORE MNT CACHE [daemon args...]: start `rockfs STORE MNT -f -o cache=CACHE
# args...` in the background (stdout and stderr to $T/NAME.log) and wait until MNT is a
# mountpoint (30 s at most; fails early if the daemon dies).
it_mount() {
	local name=$1 store=$2 mnt=$3 cache=$4 pid i rc=0
	shift 4
	mkdir -p "$mnt"
	IT_LOG[$name]="$T/$name.log"
	# (a background job of a non-interactive shell starts with SIGINT and SIGQUIT ignored,
	# and libfuse leaves ignored signals alone: give the daemon a user's defaults)
	(
		trap - INT QUIT
		exec "$ROCKFS" "$store" "$mnt" -f -o "cache=$cache" "$@"
	) >>"${IT_LOG[$name]}" 2>&1 &
	pid=$!
	IT_PID[$name]=$pid
	IT_MNT[$name]=$mnt
	IT_DONE[$name]=
	IT_MOUNTS+=("$name")
	for ((i = 0; i < 300; i++)); do
		if mountpoint -q "$mnt"; then
			return 0
		fi
		if ! pid_alive "$pid"; then
			wait "$pid" || rc=$?
			IT_DONE[$name]=1
			if grep -qE 'fuse: device not found|fuse: failed to open /dev/fuse|fusermount3?: .*(Operation not permitted|Permission denied)' "${IT_LOG[$name]}"; then
				cat "${IT_LOG[$name]}" >&2
				skip "FUSE mounts are not permitted here"
			fi
			cat "${IT_LOG[$name]}" >&2
			die "rockfs ($name) exited with status $rc before '$mnt' was mounted"
		fi
		sleep 0.1
	done
	die "'$mnt' not mounted after 30 s ($name)"
}

# it_adopt NAME MNT PID: track a mount made by someone else (mount helper: the daemon is not
# our child, logs to syslog) so that the exit trap unmounts it and kills PID.
it_adopt() {
	IT_MNT[$1]=$2
	IT_PID[$1]=$3
	IT_LOG[$1]="$T/$1.log"
	: >"${IT_LOG[$1]}"
	IT_DONE[$1]=
	IT_MOUNTS+=("$1")
}

# it_find_daemon MNT: pid of the process with MNT as one of its arguments (MNT is unique
# to this test), or nothing.
it_find_daemon() {
	local p
	for p in /proc/[0-9]*; do
		if cat "$p/cmdline" 2>/dev/null | tr '\0' '\n' | grep -qxF -- "$1"; then
			echo "${p#/proc/}"
		fi
	done
}

# it_wait_exit PID SECONDS: wait for a process (not necessarily our child) to go away.
it_wait_exit() {
	local pid=$1 i
	for ((i = 0; i < $2 * 10; i++)); do
		pid_alive "$pid" || return 0
		sleep 0.1
	done
	return 1
}

# it_need_venv PY: skip unless PY makes venvs with pip (python3-venv: venv, and ensurepip
# with its wheels). Asked of the modules, not by making a venv: ensurepip's install of pip
# takes 5 s of CPU, and each test makes the venvs it uses anyway (those die if this lied).
it_need_venv() {
	"$1" -c 'import ensurepip, sys, venv; sys.exit(not ensurepip.version())' >/dev/null 2>&1 ||
		skip "python3 -m venv does not work (python3-venv)"
}

# it_venv PY DIR: `PY -m venv DIR`, with the pip (and setuptools) ensurepip installs, but
# copied from a venv made once per test ($T/venv-template): ensurepip's pip install takes
# 5 s of CPU, and the python tests make up to five venvs each. The copy is what ensurepip
# leaves: the same site-packages, and bin/pip* with DIR's python in the #! line.
it_venv() {
	local py=$1 dir=$2 tpl=$T/venv-template f
	if [ ! -d "$tpl" ]; then
		"$py" -m venv "$tpl.new" || return 1
		mv "$tpl.new" "$tpl"
	fi
	"$py" -m venv --without-pip "$dir" || return 1
	cp -a "$tpl"/lib/python3*/site-packages/. "$(echo "$dir"/lib/python3*/site-packages)/" || return 1
	for f in "$tpl"/bin/pip*; do
		sed "1s|^#!.*|#!$dir/bin/python3|" "$f" >"$dir/bin/${f##*/}" && chmod 755 "$dir/bin/${f##*/}" || return 1
	done
}

# it_check_log NAME: sanitizer reports or UB in a daemon log fail the test.
it_check_log() {
	local log=${IT_LOG[$1]}
	if grep -nE '^==[0-9]+==|runtime error:|AddressSanitizer|ThreadSanitizer|LeakSanitizer' "$log" >&2; then
		fail "$1: sanitizer or runtime error report in the daemon log ($log)"
	fi
}

# it_quiet_log NAME: on a good store the daemon logs no error and no warning.
it_quiet_log() {
	if grep -nE '^rockfs: (error|warning):' "${IT_LOG[$1]}" >&2; then
		fail "$1: the daemon logged errors or warnings for a store with nothing wrong in it"
	fi
}

# it_umount NAME: unmount, then the daemon must exit by itself with status 0 and leave a
# clean log.
it_umount() {
	local name=$1 rc=0
	local mnt=${IT_MNT[$name]} pid=${IT_PID[$name]}
	if ! fusermount3 -u "$mnt"; then
		fail "$name: 'fusermount3 -u $mnt' failed (busy?); unmounting lazily"
		fusermount3 -u -z "$mnt" || true
	fi
	if ! it_wait_exit "$pid" 20; then
		fail "$name: rockfs (pid $pid) still running 20 s after unmount; killing it"
		kill -KILL "$pid" 2>/dev/null || true
	fi
	wait "$pid" || rc=$?
	IT_DONE[$name]=1
	[ "$rc" -eq 0 ] || fail "$name: rockfs exited with status $rc after unmount (expected 0)"
	! mountpoint -q "$mnt" || fail "$name: '$mnt' is still a mountpoint after unmount"
	it_check_log "$name"
}

# it_alive NAME: the daemon still runs and its mount answers.
it_alive() {
	pid_alive "${IT_PID[$1]}" || {
		fail "$1: the daemon died"
		return 1
	}
	stat "${IT_MNT[$1]}/README" >/dev/null || {
		fail "$1: the mount no longer answers"
		return 1
	}
}

# it_bg CMD...: run CMD in the background; its pid is killed on exit if still running.
it_bg() {
	"$@" &
	IT_BG+=($!)
}

it_cleanup() {
	local rc=$? name pid mnt busy=0
	set +eE
	trap - ERR
	for pid in "${IT_BG[@]}"; do
		kill "$pid" 2>/dev/null
	done
	for name in "${IT_MOUNTS[@]}"; do
		[ -n "${IT_DONE[$name]}" ] && continue
		mnt=${IT_MNT[$name]}
		pid=${IT_PID[$name]}
		fusermount3 -u -z "$mnt" 2>/dev/null
		if ! it_wait_exit "$pid" 5; then
			kill -TERM "$pid" 2>/dev/null
			it_wait_exit "$pid" 5 || kill -KILL "$pid" 2>/dev/null
		fi
		wait "$pid" 2>/dev/null
		if grep -qE '^==[0-9]+==|runtime error:|AddressSanitizer|ThreadSanitizer|LeakSanitizer' "${IT_LOG[$name]}"; then
			printf 'FAIL: %s: sanitizer report in %s\n' "$name" "${IT_LOG[$name]}" >&2
			[ "$rc" -eq 0 ] && rc=1
		fi
	done
	wait 2>/dev/null
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; then
		for name in "${IT_MOUNTS[@]}"; do
			printf -- '---- daemon log %s (last 40 lines) ----\n' "$name" >&2
			tail -n 40 "${IT_LOG[$name]}" >&2
		done
	fi
	if [ -n "$T" ] && [ -d "$T" ]; then
		for name in "${IT_MOUNTS[@]}"; do
			mountpoint -q "${IT_MNT[$name]}" && busy=1
		done
		if [ -n "${IT_KEEP:-}" ] || [ "$busy" = 1 ]; then
			printf '%s: kept %s\n' "$IT_NAME" "$T" >&2
		else
			chmod -R u+w "$T" 2>/dev/null
			rm -rf "$T"
		fi
	fi
	exit "$rc"
}

# it_finish: unmount what is still mounted, then report.
it_finish() {
	local name
	for name in "${IT_MOUNTS[@]}"; do
		[ -n "${IT_DONE[$name]}" ] || it_umount "$name"
	done
	if [ "$IT_FAILS" -gt 0 ]; then
		printf '%s: %d check(s) failed\n' "$IT_NAME" "$IT_FAILS" >&2
		exit 1
	fi
	printf '%s: PASS (%ds)\n' "$IT_NAME" "$SECONDS" >&2
	exit 0
}

# ---- the store side: what tar makes of the archives ----

# it_artifacts RUNDIR: "stem file" per artifact, sorted by stem. Mirrors the catalog rules:
# {name}_{component}_{target}.tar.{zst|xz}, and .tar.zst wins over a .tar.xz twin.
it_artifacts() {
	local f stem
	for f in $(cd "$1" && ls); do
		[ -f "$1/$f" ] || continue
		[[ $f =~ ^[^_]+_[^_]+_[^_]+\.tar\.(zst|xz)$ ]] || continue
		stem=${f%.tar.*}
		if [[ $f == *.tar.xz ]] && [ -f "$1/$stem.tar.zst" ]; then
			continue
		fi
		printf '%s %s\n' "$stem" "$f"
	done | sort
}

# The demo's families (therock-formats.md section 4), written out here on purpose: the
# tests check rockfs's table, they do not share it.
declare -A IT_FAMILY=([gfx110X-all]="gfx1100 gfx1101 gfx1102 gfx1103" [gfx94X-dcgpu]="gfx942")

# it_selected X TARGET: TheRock's fetch filter (base arch before ':' compared).
it_selected() {
	local x=$1 t=${2%%:*} m
	[ "$2" = generic ] || [ "$x" = multiarch ] || [ "$t" = "${x%%:*}" ] && return 0
	for m in ${IT_FAMILY[$x]:-}; do
		[ "$m" = "$t" ] && return 0
	done
	return 1
}

# it_flatten_inputs RUNDIR X [release]: the archives that make dist/X, one path a line,
# in rockfs's documented order (generic artifacts first, then the others, each by
# name); with "release", without the test component and fftw3 (build_tarballs.py).
it_flatten_inputs() {
	local stem file t c pass
	for pass in generic other; do
		while read -r stem file; do
			t=${stem##*_}
			c=${stem#*_}
			c=${c%%_*}
			if [ "${3:-}" = release ] && { [ "$c" = test ] || [ "${stem%%_*}" = fftw3 ]; }; then
				continue
			fi
			if [ $pass = generic ] && [ "$t" != generic ]; then continue; fi
			if [ $pass = other ] && [ "$t" = generic ]; then continue; fi
			if it_selected "$2" "$t"; then printf '%s\n' "$1/$file"; fi
		done < <(it_artifacts "$1")
	done
}

# it_extract ARCHIVE DEST: `tar -x` of a stored artifact archive into DEST.
it_extract() {
	mkdir -p "$2"
	case $1 in
	*.tar.zst) zstd -q -dc -- "$1" ;;
	*.tar.xz) xz -dc -- "$1" ;;
	*) die "it_extract: '$1': not a .tar.zst or .tar.xz" ;;
	esac | tar -x -p --no-same-owner -f - -C "$2"
}

# it_extract_run RUNDIR DEST: every artifact of a run, into DEST/<stem>.
it_extract_run() {
	local stem file
	while read -r stem file; do
		it_extract "$1/$file" "$2/$stem"
	done < <(it_artifacts "$1")
}

# ---- tree fingerprints (each prints one sorted line per entry, paths relative to DIR) ----

# Path, mode, type and symlink target of every entry; size and mtime of non-directories.
# (Directory link counts are 1 in the mount by design, and directories that the archive
# only implies get the extraction time from tar, so neither is compared.)
it_meta() {
	(cd "$1" && find . -mindepth 1 \( -type d -printf '%p %m %y\n' \) -o \
		-printf '%p %m %y %l %s %T@\n') | sort
}

# Hardlinked files: "path nlink first-path-of-its-inode" (so groups and counts compare).
it_links() {
	(cd "$1" && find . -type f -links +1 -printf '%i %n %p\n') | sort -k3 |
		awk '{ if (!($1 in g)) g[$1] = $3; print $3, $2, g[$1] }' | sort
}

# sha256 of every regular file.
it_sums() {
	(cd "$1" && find . -type f -print0 | sort -z | xargs -0 -r sha256sum)
}

# it_same WHAT FILE_A FILE_B: fail (with the first lines of the diff) unless identical.
# Like every check here it records the failure and returns 0, so the test goes on.
it_same() {
	if ! cmp -s "$2" "$3"; then
		fail "$1 differ"
		diff "$2" "$3" | head -n 20 >&2 || true
	fi
}

# it_cmp_tree WHAT EXPECTED_DIR GOT_DIR: content, metadata, hardlinks and hashes agree.
it_cmp_tree() {
	local what=$1 a=$2 b=$3 w=$T/.cmp
	mkdir -p "$w"
	if [ ! -d "$b" ]; then
		fail "$what: '$b' is not a directory"
		return 0
	fi
	if ! diff -r --no-dereference "$a" "$b" >"$w/diff" 2>&1; then
		fail "$what: diff -r"
		head -n 20 "$w/diff" >&2
	fi
	it_meta "$a" >"$w/a.meta"
	it_meta "$b" >"$w/b.meta" || fail "$what: find failed"
	it_same "$what: modes/types/symlinks/sizes/mtimes" "$w/a.meta" "$w/b.meta"
	it_links "$a" >"$w/a.links"
	it_links "$b" >"$w/b.links" || fail "$what: find (hardlinks) failed"
	it_same "$what: hardlinks" "$w/a.links" "$w/b.links"
	it_sums "$a" >"$w/a.sums"
	it_sums "$b" >"$w/b.sums" || fail "$what: sha256sum failed"
	it_same "$what: sha256 of files" "$w/a.sums" "$w/b.sums"
}

# it_record KEY: stdin as the cache record KEY (its path in the cache, "pyhash/..."; see
# docs/internals/cache.md): the bytes, then "RKR2", their CRC32 and their length
# (little-endian), and the first 16 hex digits of the SHA-256 of KEY, a NUL and those 16.
it_record() {
	python3 -c 'import hashlib, struct, sys, zlib
b = sys.stdin.buffer.read()
head = b"RKR2" + struct.pack("<IQ", zlib.crc32(b), len(b))
bind = hashlib.sha256(sys.argv[1].encode() + b"\0" + head).hexdigest()[:16].encode()
sys.stdout.buffer.write(b + head + bind)' "$1"
}

# it_stats CACHE FIELD: one number from `rockpack cache stats --json`.
it_stats() {
	"$ROCKPACK" --cache "$1" cache stats --json |
		python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$2"
}

# it_distinct DIR: "count bytes" of the distinct non-empty file contents under DIR (what
# the content-addressed cache holds for it).
it_distinct() {
	python3 - "$1" <<'EOF'
import hashlib, os, sys
seen = {}
for d, _, files in os.walk(sys.argv[1]):
    for f in files:
        p = os.path.join(d, f)
        if os.path.islink(p) or not os.path.isfile(p):
            continue
        data = open(p, "rb").read()
        if data:
            seen[hashlib.sha256(data).hexdigest()] = len(data)
print(len(seen), sum(seen.values()))
EOF
}

# it_mkart RUNDIR STEM PREFIX FILE:DEST[:link] ...: a TheRock artifact archive RUNDIR/STEM.tar.zst
# (manifest PREFIX; each FILE copied to PREFIX/DEST, or with ":link" DEST a symlink to FILE)
# and its .sha256sum
it_mkart() {
	local rd=$1 stem=$2 prefix=$3 d
	shift 3
	d=$T/art/$stem
	rm -rf "$d"
	mkdir -p "$d/$prefix"
	printf '%s\n' "$prefix" >"$d/artifact_manifest.txt"
	for spec in "$@"; do
		local src=${spec%%:*} rest=${spec#*:}
		local dest=${rest%%:*}
		mkdir -p "$(dirname "$d/$prefix/$dest")"
		if [ "$rest" != "$dest" ]; then
			ln -s "$src" "$d/$prefix/$dest"
		else
			cp "$src" "$d/$prefix/$dest"
		fi
	done
	tar -C "$d" --sort=name --owner=0 --group=0 --numeric-owner --mtime=@1767225600 -cf - \
		artifact_manifest.txt "${prefix%%/*}" |
		zstd -q -3 -o "$rd/$stem.tar.zst"
	(cd "$rd" && sha256sum "$stem.tar.zst" | cut -d' ' -f1 >"$stem.tar.zst.sha256sum")
}

# rpm_distro_standin ROOT REPODIR...: the distribution an RPM repository of ROCm lives on,
# for a dnf --installroot that has none. One noarch RPM (rockfs-distro-standin), made with
# rpmbuild and registered in ROOT's RPM database (--justdb), provides every Requires of
# the repositories' primary.xml that no package of theirs provides (python3, libdrm,
# numactl-libs, /bin/sh, ...), unversioned, so it meets any version asked. dnf then
# resolves ROCm's own relations for real, and the distribution's are named, not faked
# per test. Prints what it provides, one a line, to $T/distro-standin.provides.
rpm_distro_standin() {
	local root=$1 d=$T/distro-standin
	shift
	command -v rpmbuild >/dev/null || die "rpm_distro_standin needs rpmbuild"
	rm -rf "$d" && mkdir -p "$d" "$root" || die "mkdir $d"
	python3 - "$@" >"$d.provides" <<'PY' || die "rpm_distro_standin: cannot read the repositories' primary.xml"
import gzip, lzma, os, sys, xml.etree.ElementTree as ET
NS = {"r": "http://linux.duke.edu/metadata/repo", "c": "http://linux.duke.edu/metadata/common",
      "rpm": "http://linux.duke.edu/metadata/rpm"}
need, have = set(), set()
for repo in sys.argv[1:]:
    md = ET.parse(os.path.join(repo, "repodata", "repomd.xml"))
    href = md.find("r:data[@type='primary']/r:location", NS).get("href")
    raw = open(os.path.join(repo, href), "rb").read()
    if href.endswith(".gz"):
        raw = gzip.decompress(raw)
    elif href.endswith(".xz"):
        raw = lzma.decompress(raw)
    for pkg in ET.fromstring(raw).findall("c:package", NS):
        have.add(pkg.find("c:name", NS).text)
        have.update(f.text for f in pkg.findall("c:format/c:file", NS))
        have.update(e.get("name") for e in pkg.findall("c:format/rpm:provides/rpm:entry", NS))
        need.update(e.get("name") for e in pkg.findall("c:format/rpm:requires/rpm:entry", NS))
for name in sorted(need - have):
    if name.startswith("rpmlib("):
        continue  # rpm's own features
    if name.startswith("("):
        sys.exit("rich dependency %s: not handled" % name)
    print(name)
PY
	{
		printf '%s\n' 'Name: rockfs-distro-standin' 'Version: 1' 'Release: 1' \
			'Summary: the distribution ROCm is installed on' 'License: MIT' 'BuildArch: noarch'
		sed 's/^/Provides: /' "$d.provides"
		printf '%s\n' '%description' 'What the RPMs of ROCm need of the distribution.' '%files'
	} >"$d/standin.spec"
	rpmbuild -bb --define "_topdir $d" "$d/standin.spec" >"$d/rpmbuild.log" 2>&1 ||
		{ cat "$d/rpmbuild.log" >&2; die "rpm_distro_standin: rpmbuild"; }
	rpm --root="$root" -i --justdb --nodeps "$d"/RPMS/noarch/rockfs-distro-standin-1-1.noarch.rpm ||
		die "rpm_distro_standin: cannot register it in $root's RPM database"
}
