#!/usr/bin/env bash
# door: bad input is refused at the door, before anything is mounted, with one line on
# stderr naming what is wrong and a nonzero exit (issue 16, section 2): a mountpoint that
# does not exist or is a file, a mountpoint that already holds a rockfs mount of the same
# store, a store that is not a directory, URL or bucket rockfs reads. A mount whose
# daemon was killed (kill -9) is detached by the next mount, which goes on with one log
# line (issue 26, item 8). A store directory with no runs mounts, with one warning line
# and a README saying it is empty. rockpack
# with a run id the store does not have names the nearest runs.
. "$(dirname "$0")/lib.sh"
it_init "$@"

M=$T/mnt
mkdir -p "$M" "$T/empty" "$T/ftp:"
echo file >"$T/file"
RUNS=$(cd "$STORE" && ls -d [0-9]*-* | sort)
RUN1=$(head -n 1 <<<"$RUNS")

# refused ARGS PATTERN: rockfs ARGS exits nonzero with one stderr line matching PATTERN,
# and nothing gets mounted on $M (nor on the mountpoint it was given).
refused() {
	local pat=$2 rc=0
	# shellcheck disable=SC2086
	timeout 20 "$ROCKFS" $1 -f -o "cache=$T/cache" >"$T/out" 2>"$T/err" || rc=$?
	if mountpoint -q "$M" && [ "$(grep -c " $M " /proc/self/mountinfo)" != "${3:-0}" ]; then
		fusermount3 -u -z "$M" || true
		fail "rockfs $1: mounted"
	fi
	[ "$rc" -ne 0 ] || fail "rockfs $1: exit 0"
	[ "$rc" -ne 124 ] || fail "rockfs $1: still running after 20 s"
	[ "$(wc -l <"$T/err")" = 1 ] || fail "rockfs $1: want one line on stderr, got: $(cat "$T/err")"
	grep -qE "^rockfs: .*$pat" "$T/err" || fail "rockfs $1: '$(cat "$T/err")' does not match '$pat'"
	[ ! -s "$T/out" ] || fail "rockfs $1: wrote to stdout"
}

refused "$STORE $T/nosuchdir" "mountpoint '$T/nosuchdir': does not exist"
refused "$STORE $T/file" "mountpoint '$T/file': not a directory"
refused "ftp://x $M" "store 'ftp://x': unsupported scheme"
refused "gopher://host/runs $M" "unsupported scheme"
refused "$T/nosuchstore $M" "store '$T/nosuchstore': No such file or directory"
refused "$T/file $M" "store '$T/file': Not a directory"
# (a directory named "ftp:" does not turn the URL into a path)
(cd "$T" && refused "ftp://x $M" "unsupported scheme")
[ "$(grep -c " $T/file " /proc/self/mountinfo)" = 0 ] || fail "a rockfs mount on a regular file"

# a second mount of the same store on the same mountpoint: refused, the first one serves on
it_mount first "$STORE" "$M" "$T/cache"
refused "$STORE $M" "mountpoint '$M': already holds a rockfs mount of '$STORE'" 1
(cd "$STORE/.." && refused "./$(basename "$STORE") $M/" "already holds a rockfs mount" 1)
[ "$(grep -c " $M " /proc/self/mountinfo)" = 1 ] || fail "more than one mount on '$M'"
ls "$M/$RUN1/browse" >/dev/null || fail "the first mount no longer answers"
it_quiet_log first
it_umount first

# kill -9 leaves a dead mount ("Transport endpoint is not connected"): a remount of the
# same store (and one of another store) detaches it with one log line and goes on
dead_mount() { # NAME: mount the store on $M, kill -9 its daemon
	it_mount "$1" "$STORE" "$M" "$T/cache"
	ls "$M/$RUN1" >/dev/null
	kill -KILL "${IT_PID[$1]}"
	wait "${IT_PID[$1]}" 2>/dev/null || true
	IT_DONE[$1]=1
	! stat "$M" >/dev/null 2>"$T/dead.err" || fail "$1: the mountpoint answers after kill -9"
	grep -q 'Transport endpoint is not connected' "$T/dead.err" ||
		fail "$1: not a dead mount after kill -9: $(cat "$T/dead.err")"
}
# serving NAME: wait for the daemon's start line, logged once it has mounted (it_mount
# returns at once: the dead mount is a mountpoint too), 30 s at most
serving() {
	local i
	for ((i = 0; i < 300; i++)); do
		grep -q ": serving '" "${IT_LOG[$1]}" && return 0
		pid_alive "${IT_PID[$1]}" || break
		sleep 0.1
	done
	fail "$1: not serving: $(cat "${IT_LOG[$1]}")"
}
i=0
for again in "$STORE" "$T/empty"; do
	i=$((i + 1))
	dead_mount "killed$i"
	it_mount "remount$i" "$again" "$M" "$T/cache"
	serving "remount$i"
	L=${IT_LOG[remount$i]}
	[ "$(grep -c " $M " /proc/self/mountinfo)" = 1 ] ||
		fail "remount of '$again' on a dead mount: $(grep -c " $M " /proc/self/mountinfo) mounts on '$M'"
	[ "$(grep -c "detached it" "$L")" = 1 ] ||
		fail "remount of '$again' on a dead mount: want one line saying so: $(cat "$L")"
	grep -q "^rockfs: warning: mountpoint '$M': the rockfs mount on it had lost its daemon (Transport endpoint is not connected); detached it" "$L" ||
		fail "remount on a dead mount: the line does not say what was detached"
	ls "$M/README" >/dev/null || fail "remount of '$again' on a dead mount does not answer"
	it_umount "remount$i"
done

# a store with no runs: mounts, one warning line, the README says so
it_mount empty "$T/empty" "$M" "$T/cache"
[ "$(grep -c '^rockfs: warning:' "${IT_LOG[empty]}")" = 1 ] ||
	fail "empty store: want one warning line, got: $(cat "${IT_LOG[empty]}")"
grep -q "^rockfs: warning: store '$T/empty' holds no runs" "${IT_LOG[empty]}" ||
	fail "empty store: the warning does not say the store holds no runs"
grep -q '^THIS STORE WAS EMPTY WHEN MOUNTED' "$M/README" || fail "empty store: the README does not say so"
# (and release/, the store view, with no run in any channel)
[ "$(ls "$M")" = "$(printf 'README\nrelease')" ] ||
	fail "empty store: the root lists more than README and release/: $(ls "$M")"
[ -z "$(ls "$M/release/tarball" "$M/release/whl-next" "$M/release/packages/deb" |
	grep -v '^index.html$\|^$\|:$')" ] || fail "empty store: release/ lists runs"
it_umount empty
grep -qE '^rockfs: (error|warning):' "${IT_LOG[first]}" && fail "a good store logged a warning"
it_mount full "$STORE" "$M" "$T/cache"
grep -q '^This is a rockfs mount' "$M/README" || fail "a store with runs: no README"
! grep -q 'EMPTY' "$M/README" || fail "a store with runs: the README says it is empty"
it_quiet_log full
it_umount full

# rockpack with a run id the store does not have: one line naming the three nearest runs
typo=$(sed 's/^\(.*\)[0-9]\(-.*\)$/\1X\2/' <<<"$RUN1")
for cmd in "ls $STORE $typo" "export $STORE $typo dist/gfx1100 -o $T/out.d" \
	"cat $STORE $typo base_lib_generic x"; do
	rc=0
	# shellcheck disable=SC2086
	"$ROCKPACK" --cache "$T/cache" $cmd >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" -ne 0 ] || fail "rockpack $cmd: exit 0"
	[ "$(wc -l <"$T/err")" = 1 ] || fail "rockpack $cmd: want one line on stderr, got: $(cat "$T/err")"
	grep -qF "run '$typo': no such run (nearest: " "$T/err" ||
		fail "rockpack $cmd: '$(cat "$T/err")' does not name the nearest runs"
	want=$(head -n 3 <<<"$RUNS" | paste -sd, | sed 's/,/, /g')
	[ "$(wc -l <<<"$RUNS")" -gt 3 ] || grep -qF "(nearest: $want)" "$T/err" ||
		fail "rockpack $cmd: want the runs '$want' named: $(cat "$T/err")"
	[ ! -e "$T/out.d" ] || fail "rockpack $cmd: made its output directory"
done
it_finish
