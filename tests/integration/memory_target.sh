#!/usr/bin/env bash
# memory_target: a mount over many runs holds bounded memory. The kernel's references
# are counted (lookups, readdirplus entries) and given back by FORGET; above
# -o memory_target the trees of runs nobody uses (no reference, no open file, no ingest,
# unused for a few seconds) are dropped, and built again on their next lookup from the
# store's listing and the cache, with the same inode numbers, listings and bytes and
# without decompressing an archive again. A run the kernel still holds (a shell's cwd
# in it, an open file) is never dropped, and the open file reads right throughout.
# The status file counts the runs dropped and rebuilt and reports memory by kind. A run
# only the kernel's cache holds is forgotten at the daemon's request after 30 s unused.
# The kernel forgets only when its inodes are dropped (echo 2 > drop_caches): root only.
. "$(dirname "$0")/lib.sh"
it_init "$@"

[ -w /proc/sys/vm/drop_caches ] || skip "needs root (drop_caches) to make the kernel forget"
RUN=24205988455-linux
N=8
S=$T/store
mkdir -p "$S"
for i in $(seq 1 $N); do
	cp -r "$STORE/$RUN" "$S/$((30000000000 + i))-linux"
done
runs=$(ls "$S")
first=$(echo "$runs" | head -n1)
held=$(echo "$runs" | sed -n 2p) # a shell's cwd stays in it
opened=$(echo "$runs" | sed -n 3p) # a file stays open in it
FILE=dist/gfx1100/lib/llvm/include/llvm/Config/llvm-config.h

M=$T/mnt
# 1 byte: always above the target, so every run nobody uses is dropped
it_mount a "$S" "$M" "$T/cache" -o memory_target=1
get() { sed -n "s/^$1: //p" "$M/.rockfs-status"; }
forget() { echo 2 >/proc/sys/vm/drop_caches; }
# listing RUN: every entry of browse/ and dist/ with inode, mode, links, size, time
listing() { (cd "$M/$1" && find browse dist -printf '%i %M %n %s %T@ %p\n' | sort -k6); }

for r in $runs; do
	listing "$r" >"$T/before.$r"
	sha256sum <"$M/$r/$FILE" >"$T/sum.$r"
done
[ "$(get runs_loaded)" = $N ] || fail "runs_loaded after the walk: '$(get runs_loaded)', want $N"
[ "$(get runs_dropped)" = 0 ] || fail "runs dropped while the kernel held them: $(get runs_dropped)"
[ "$(get memory_target)" = 1 ] || fail "memory_target: '$(get memory_target)'"
for k in memory_used memory_nodes memory_listings memory_indexes; do
	[ "$(get $k)" -gt 0 ] || fail "$k: '$(get $k)', want > 0"
done
ingests=$(get ingests_done)

# hold one run through a shell's cwd, another through an open file (read in pieces)
(cd "$M/$held/browse/base_lib_generic" && exec sleep 600) &
holder=$!
IT_BG+=($holder)
exec 3<"$M/$opened/$FILE"
head -c 100 <&3 >"$T/part1"

# the kernel forgets the rest; every other run goes once unused for a few seconds
forget
want=$((N - 2))
for ((i = 0; i < 600; i++)); do
	[ "$(get runs_dropped)" -ge $want ] && break
	sleep 0.1
	forget
done
[ "$(get runs_dropped)" = $want ] ||
	fail "runs_dropped: '$(get runs_dropped)', want $want (all but the held and the open one)"
[ "$(get runs_loaded)" = 2 ] || fail "runs_loaded after the drop: '$(get runs_loaded)', want 2"
ls "$M/$held/browse/base_lib_generic" >/dev/null || fail "the held cwd's run does not list"

# the open file reads on (the rest of it) and the held run still lists the same
cat <&3 >"$T/part2"
exec 3<&-
cat "$T/part1" "$T/part2" | sha256sum | cmp -s - "$T/sum.$opened" ||
	fail "the file open across the drop read wrong"
listing "$held" | cmp -s - "$T/before.$held" || fail "$held (held) lists differently"

# the dropped runs come back with the same inodes, listings and bytes, from the cache
for r in $runs; do
	listing "$r" | cmp -s - "$T/before.$r" || {
		fail "$r lists differently after its drop"
		listing "$r" | diff "$T/before.$r" - | head -n 5 >&2 || true
	}
	sha256sum <"$M/$r/$FILE" | cmp -s - "$T/sum.$r" || fail "$r: $FILE reads wrong after its drop"
done
[ "$(get runs_rebuilt)" = $want ] || fail "runs_rebuilt: '$(get runs_rebuilt)', want $want"
[ "$(get ingests_done)" = "$ingests" ] ||
	fail "a rebuild decompressed archives: ingests_done $ingests -> $(get ingests_done)"

# rockpack status says the same
"$ROCKPACK" status "$M" >"$T/status.txt" || fail "rockpack status exited $?"
grep -qx "runs_dropped: $want" "$T/status.txt" || fail "rockpack status: $(cat "$T/status.txt")"

# a run dropped twice, and the first run's README, still right
forget
for ((i = 0; i < 600; i++)); do
	[ "$(get runs_dropped)" -gt $want ] && break
	sleep 0.1
	forget
done
[ "$(get runs_dropped)" -gt $want ] || fail "runs were not dropped a second time"
listing "$first" | cmp -s - "$T/before.$first" || fail "$first lists differently after two drops"
grep -q "$first" "$M/$first/README" || fail "$first/README does not name its run"

# without drop_caches: a run walked and then left alone is still held by the kernel's
# cache (no memory pressure here); after 30 s unused the daemon asks the kernel to
# forget it (trim.c, rk_vfs_opts.forget_entry), and it is dropped. Its README was read
# (a kernel that opens files without asking leaves it open in the daemon until it
# forgets the inode: that does not count as a use), and the held run's cwd stays (the
# kernel has no entry to forget there: it is not asked about again and again instead)
listing "$first" >/dev/null
cat "$M/$first/README" >/dev/null
d0=$(get runs_dropped)
for ((i = 0; i < 1200; i++)); do
	[ "$(get runs_dropped)" -gt "$d0" ] && break
	sleep 0.1
done
[ "$(get runs_dropped)" -gt "$d0" ] || fail "a run only the kernel's cache held was not dropped within 120 s"
listing "$first" | cmp -s - "$T/before.$first" || fail "$first lists differently after the kernel forgot it"

kill $holder
wait $holder 2>/dev/null || true
it_alive a
it_quiet_log a
it_finish
