#!/usr/bin/env bash
# bad_options: a numeric or size option out of range is refused at the door with one line
# naming it and a nonzero exit, before anything is mounted (jobs=-3 used to be read as
# 4294967293, and every reader then hung for good).
. "$(dirname "$0")/lib.sh"
it_init "$@"

M=$T/mnt
mkdir -p "$M"
for opt in jobs=0 jobs=-3 jobs=100000 jobs=abc timeout=0 timeout=-1 retries=-1 retries=1x \
	max_threads=0 cache_size=0 cache_size=12Q list_ttl=-1 list_ttl=1x run_final_age=-5 run_final_age=1d \
	memory_target=12Q memory_target=-1; do
	rc=0
	timeout 20 "$ROCKFS" "$STORE" "$M" -f -o "cache=$T/cache,$opt" >"$T/out" 2>"$T/err" || rc=$?
	if mountpoint -q "$M"; then
		fusermount3 -u -z "$M" || true
		fail "-o $opt: mounted"
	fi
	[ "$rc" -ne 0 ] || fail "-o $opt: exit 0"
	[ "$rc" -ne 124 ] || fail "-o $opt: still running after 20 s"
	[ "$(wc -l <"$T/err")" = 1 ] || fail "-o $opt: want one line on stderr, got: $(cat "$T/err")"
	grep -qF "${opt%%=*}" "$T/err" || fail "-o $opt: the message does not name the option: $(cat "$T/err")"
done
# in range: mounts and serves
it_mount ok "$STORE" "$M" "$T/cache" -o jobs=1,timeout=5,retries=0,cache_size=1G,max_threads=4,memory_target=64M
ls "$M" >/dev/null || fail "in-range options: the mount does not answer"
it_umount ok
it_finish
