#!/usr/bin/env bash
# single_run_and_mount_helper: (1) a run directory mounted directly shows README,
# artifacts/ and browse/ at the root, and rockpack reads it as run '.'; (2) the mount(8)
# path: mount.fuse3 runs `rockfs` found on PATH (mount -t fuse.rockfs STORE MNT -o
# cache=DIR), options pass through, the daemon goes to the background and exits when
# unmounted; (3) SIGTERM, SIGINT and SIGHUP to a foreground daemon unmount cleanly and
# exit 0.
. "$(dirname "$0")/lib.sh"
it_init "$@"
HELPER=$(PATH=$PATH:/usr/sbin:/sbin command -v mount.fuse3 || true)
[ -n "$HELPER" ] || skip "mount.fuse3 is not installed"

RUN=24205988455-linux
R=$STORE/$RUN
it_extract_run "$R" "$T/want"

# ---- 1. the store is one run ----
M=$T/mnt
it_mount single "$R" "$M" "$T/cache"
[ "$(ls -A "$M" | tr '\n' ' ')" = "README artifacts browse dist install kpack manifests packages python tarballs " ] ||
	fail "single-run root: $(ls -A "$M" | tr '\n' ' ')"
grep -q 'rockfs mount' "$M/README" || fail "single-run README"
it_artifacts "$R" | cut -d' ' -f1 >"$T/stems"
ls -A "$M/browse" >"$T/stems.got"
it_same "single-run browse/ listing" "$T/stems" "$T/stems.got"
(cd "$R" && find . -maxdepth 1 -type f -printf '%f\n' | sort) >"$T/files"
ls -A "$M/artifacts" >"$T/files.got"
it_same "single-run artifacts/ listing" "$T/files" "$T/files.got"
while read -r stem _; do
	it_cmp_tree "single run: browse/$stem" "$T/want/$stem" "$M/browse/$stem"
done < <(it_artifacts "$R")
[ ! -e "$M/$RUN" ] || fail "single-run mount also shows the run as a subdirectory"
# rockpack on the same single-run store: the run is '.'
"$ROCKPACK" --cache "$T/cache" ls "$R" --json >"$T/runs.json" || fail "rockpack ls RUNDIR"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(not (len(r) == 1 and r[0]["run"] == sys.argv[2]))' \
	"$T/runs.json" "$RUN" || fail "rockpack ls RUNDIR: $(cat "$T/runs.json")"
"$ROCKPACK" --cache "$T/cache" ls "$R" . --json >"$T/run.json" || fail "rockpack ls RUNDIR ."
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(not (r["run"] == sys.argv[2] and r["kpack_split"] is True))' \
	"$T/run.json" "$RUN" || fail "rockpack ls RUNDIR . --json: $(head -c 300 "$T/run.json")"
f=math-libs/rocRAND/stage/.kpack/rand_lib_gfx1101.kpack
"$ROCKPACK" --cache "$T/cache" cat "$R" . rand_lib_gfx1101 "$f" >"$T/cat.out" ||
	fail "rockpack cat RUNDIR . ..."
cmp -s "$T/cat.out" "$M/browse/rand_lib_gfx1101/$f" || fail "rockpack cat RUNDIR differs from the mount"
it_quiet_log single
it_umount single

# ---- 2. mount helper ----
mkdir -p "$T/bin"
ln -s "$ROCKFS" "$T/bin/rockfs"

# helper_mounted NAME MNT CACHE: the mount is up, served by a background rockfs that took
# our options; then unmount it and see the daemon go away
helper_mounted() {
	local name=$1 mnt=$2 cache=$3 pid
	if ! mountpoint -q "$mnt"; then
		fail "$name: '$mnt' is not mounted"
		return 0
	fi
	pid=$(it_find_daemon "$mnt")
	if [ -z "$pid" ] || [ "$(wc -w <<<"$pid")" != 1 ]; then
		fail "$name: cannot find the one rockfs serving '$mnt' (found: '$pid')"
		fusermount3 -u -z "$mnt" || true
		return 0
	fi
	it_adopt "$name" "$mnt" "$pid"
	[ "$(readlink -f "/proc/$pid/exe")" = "$(readlink -f "$ROCKFS")" ] ||
		fail "$name: pid $pid is not the built rockfs"
	grep -F " $mnt " /proc/mounts | grep -qE "^rockfs:$STORE $mnt fuse\.rockfs ro[, ]" ||
		fail "$name: /proc/mounts: $(grep -F " $mnt " /proc/mounts)"
	it_cmp_tree "$name: $RUN/browse/core-hip_lib_generic" "$T/want/core-hip_lib_generic" \
		"$mnt/$RUN/browse/core-hip_lib_generic"
	[ "$(it_stats "$cache" indexes)" = 1 ] || fail "$name: -o cache=$cache was not used"
	if [ "$(id -u)" = 0 ]; then
		umount "$mnt" || fail "$name: umount failed"
	else
		fusermount3 -u "$mnt" || fail "$name: fusermount3 -u failed"
	fi
	if it_wait_exit "$pid" 20; then
		IT_DONE[$name]=1
	else
		fail "$name: rockfs (pid $pid) still runs 20 s after the unmount"
	fi
	! mountpoint -q "$mnt" || fail "$name: still mounted after unmount"
}

# 2a. what mount(8) runs for `mount -t fuse.rockfs STORE MNT -o cache=DIR`: mount.fuse3
# with the subtype, which runs `rockfs` through the shell, so PATH decides which one
M2=$T/mnt-helper
mkdir -p "$M2"
if PATH=$T/bin:$PATH "$HELPER" "$STORE" "$M2" -o "rw,cache=$T/cache-helper" -t fuse.rockfs \
	>"$T/helper.out" 2>&1; then
	helper_mounted mount.fuse3 "$M2" "$T/cache-helper"
else
	fail "mount.fuse3 STORE MNT -t fuse.rockfs -o cache=...: $(cat "$T/helper.out")"
fi

# 2b. mount(8) itself (root only). util-linux runs helpers with PATH removed from the
# environment (/bin/sh then falls back to its default path), so `-t fuse.rockfs` finds
# rockfs only when it is installed there; the "#" form names the binary explicitly.
if [ "$(id -u)" = 0 ] && command -v mount >/dev/null; then
	M3=$T/mnt-mount
	mkdir -p "$M3"
	if mount -t fuse "$T/bin/rockfs#$STORE" "$M3" -o "cache=$T/cache-mount" >"$T/mount.out" 2>&1; then
		helper_mounted mount "$M3" "$T/cache-mount"
	else
		fail "mount -t fuse 'rockfs#STORE' MNT -o cache=...: $(cat "$T/mount.out")"
	fi
	if env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin sh -c 'command -v rockfs' >/dev/null; then
		M4=$T/mnt-mount-t
		mkdir -p "$M4"
		if mount -t fuse.rockfs "$STORE" "$M4" -o "cache=$T/cache-mount-t" >"$T/mount-t.out" 2>&1; then
			it_say "note: mount -t fuse.rockfs used the installed $(env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin sh -c 'command -v rockfs')"
			mountpoint -q "$M4" && fusermount3 -u "$M4"
		else
			fail "mount -t fuse.rockfs STORE MNT: $(cat "$T/mount-t.out")"
		fi
	else
		it_say "rockfs is not installed in the default PATH: 'mount -t fuse.rockfs' itself not tried"
	fi
else
	it_say "not root: mount(8) not tried"
fi

# ---- 3. signals ----
# sig_stop NAME SIG [HOLD]: mount, read, send SIG; the daemon must unmount and exit 0.
# HOLD: a file of the mount stays open across the signal (lazily unmounted, then freed).
sig_stop() {
	local name=$1 sig=$2 hold=${3:-} m=$T/mnt-$1 pid rc=0
	it_mount "$name" "$STORE" "$m" "$T/cache-sig"
	cat "$m/$RUN/browse/base_lib_generic/artifact_manifest.txt" >/dev/null ||
		fail "$name: reading before the signal"
	if [ -n "$hold" ]; then
		exec 7<"$m/$RUN/browse/core-hip_lib_generic/artifact_manifest.txt"
	else
		sleep 0.5 # let the kernel deliver the release of the file just read
	fi
	pid=${IT_PID[$name]}
	kill -"$sig" "$pid"
	if it_wait_exit "$pid" 20; then
		wait "$pid" || rc=$?
		IT_DONE[$name]=1
		! mountpoint -q "$m" || fail "$name: '$m' still mounted after the daemon exited"
		if ls "$m" 2>&1 | grep -q "Transport endpoint is not connected"; then
			fail "$name: the mountpoint was left dangling (ENOTCONN)"
		fi
		[ "$rc" = 0 ] || BAD_EXIT="$BAD_EXIT $name:SIG$sig->$rc"
		it_check_log "$name"
	else
		fail "$name: rockfs (pid $pid) still runs 20 s after SIG$sig"
	fi
	[ -z "$hold" ] || exec 7<&-
}
BAD_EXIT=
sig_stop sigterm TERM
sig_stop sigint INT
sig_stop sighup HUP
# a file held open: the daemon still goes away cleanly (under ASan, leak-free)
sig_stop sigterm-open TERM hold
if [ -n "$BAD_EXIT" ]; then
	bug "rockfs unmounts on SIGTERM/SIGINT/SIGHUP but exits non-zero:$BAD_EXIT (fs/main.c" \
		"main(): fuse_session_loop{,_mt} returns the signal number when a signal ends the" \
		"session, and main turns any non-zero into exit 1)"
fi

it_finish
