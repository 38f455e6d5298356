#!/usr/bin/env bash
# kill_ingest: kill -9 of the daemon at seeded moments of a first ingest (many small
# archives of the demo store, or one 19 MB archive), then a mount of the same cache:
# every file of every browse/ equals `tar -x` of its archive (names, modes, sizes,
# mtimes, hardlinks, bytes), and the cache verifies. A half-written cache is never
# served: what the killed daemon left is either complete or made again.
# SEED=n repeats a run's moments (the seed is printed).
. "$(dirname "$0")/lib.sh"
it_init "$@"

SEED=${SEED:-$((RANDOM))}
it_say "SEED=$SEED"
RANDOM=$SEED
ROUNDS=${ROUNDS:-6}
M=$T/mnt

python3 "$(dirname "$0")/../demo/mkdemo.py" "$T/large" --large-gib 0.05 >/dev/null
# what tar makes of each run's archives
for s in demo large; do
	src=$STORE
	[ $s = large ] && src=$T/large
	for run in $(cd "$src" && ls); do
		it_extract_run "$src/$run" "$T/want-$s/$run"
	done
done

incomplete=0
for ((r = 1; r <= ROUNDS; r++)); do
	s=demo
	src=$STORE
	if ((r % 2 == 0)); then
		s=large
		src=$T/large
	fi
	ms=$((RANDOM % 400))
	C=$T/cache-$r
	it_mount k$r "$src" "$M" "$C" -o jobs=2
	# readers of every file of every artifact start the ingests
	for run in $(cd "$src" && ls); do
		(find "$M/$run/browse" -type f -print0 2>/dev/null | xargs -0 -r cat >/dev/null 2>&1 || true) &
		IT_BG+=($!)
	done
	sleep "$(printf '0.%03d' "$ms")"
	kill -KILL "${IT_PID[k$r]}"
	wait "${IT_PID[k$r]}" 2>/dev/null || true
	IT_DONE[k$r]=1
	fusermount3 -u -z "$M" || true
	it_check_log k$r
	for pid in "${IT_BG[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	IT_BG=()
	# what the killed daemon left, before anything touches it again: an archive is
	# ingested once its index record is written
	arts=$(for run in $(cd "$src" && ls); do it_artifacts "$src/$run"; done | wc -l)
	done_n=$(find "$C/index" -name '*.rkix' 2>/dev/null | wc -l)
	it_say "round $r ($s): killed at $ms ms, $done_n of $arts archives indexed"
	[ "$done_n" -lt "$arts" ] && incomplete=$((incomplete + 1))

	it_mount m$r "$src" "$M" "$C"
	for run in $(cd "$src" && ls); do
		it_cmp_tree "round $r ($s, kill -9 at $ms ms, SEED=$SEED): $run/browse" \
			"$T/want-$s/$run" "$M/$run/browse"
	done
	it_umount m$r
	"$ROCKPACK" --cache "$C" cache verify >"$T/verify.out" 2>&1 ||
		fail "round $r: cache verify after kill -9 and remount: $(cat "$T/verify.out")"
	rm -rf "$C"
done
# the moments must fall inside ingests for the test to mean anything
[ "$incomplete" -gt 0 ] || fail "no kill -9 fell inside an ingest (SEED=$SEED): every archive was indexed"
it_say "$incomplete of $ROUNDS kills fell inside an ingest"
it_finish
