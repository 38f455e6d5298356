#!/usr/bin/env bash
# kill_export: kill -9 of `rockpack export` and `rockpack packages` at seeded moments
# (cold and warm caches): the destination never holds a file with its final name that is
# not whole (rockpack writes into a private sibling, ".NAME.rockpack-PID", and renames it
# into place at the end), and a rerun into the same destination exits 0 with exactly
# what an undisturbed run writes, the killed run's leftovers removed.
# SEED=n repeats a run's moments (the seed is printed).
. "$(dirname "$0")/lib.sh"
it_init "$@"

SEED=${SEED:-$((RANDOM))}
it_say "SEED=$SEED"
RANDOM=$SEED
ROUNDS=${ROUNDS:-8}

python3 "$(dirname "$0")/../demo/mkdemo.py" "$T/large" --large-gib 0.05 >/dev/null
LRUN=$(ls "$T/large")
RUN=$(cd "$STORE" && ls -d [0-9]*-* | sort | tail -n 1)
CASES=(
	"export $T/large $LRUN browse/bigdata_lib_generic"
	"export $STORE $RUN dist/gfx1100"
	"packages $STORE $RUN --type deb"
	"export $STORE $RUN tarballs/X"
)
# a tarball of the run (its name from a mount)
it_mount ref "$STORE" "$T/ref-mnt" "$T/cache-ref"
tarball=$(ls "$T/ref-mnt/$RUN/tarballs" | grep '\.tar$' | head -n 1)
it_umount ref
CASES[3]="export $STORE $RUN tarballs/$tarball"

# undisturbed outputs
for i in "${!CASES[@]}"; do
	# shellcheck disable=SC2086
	"$ROCKPACK" -q --cache "$T/cache-ref" ${CASES[$i]} -o "$T/ref-$i" ||
		die "reference run of '${CASES[$i]}' failed"
done

# no file or symlink in DIR (with its final name) differs from the reference
check_whole() {
	local what=$1 dir=$2 ref=$3 f
	[ -e "$dir" ] || return 0
	while IFS= read -r -d '' f; do
		if [ ! -e "$ref/$f" ] && [ ! -L "$ref/$f" ]; then
			fail "$what: '$f' is not in the undisturbed output"
		elif [ -f "$ref/$f" ] && ! cmp -s "$ref/$f" "$dir/$f"; then
			fail "$what: '$f' is there with its final name but not whole ($(stat -c %s "$dir/$f") of $(stat -c %s "$ref/$f") bytes)"
		fi
	done < <(cd "$dir" && find . -mindepth 1 \( -type f -o -type l \) -print0)
}

killed_mid=0
for ((r = 1; r <= ROUNDS; r++)); do
	i=$((RANDOM % ${#CASES[@]}))
	ms=$((RANDOM % 300))
	cache=$T/cache-$r
	((r % 2)) || cache=$T/cache-ref # warm: no ingest, only writing
	out=$T/out-$r
	((r % 3)) || mkdir "$out" # an empty destination made beforehand
	# shellcheck disable=SC2086
	"$ROCKPACK" -q --cache "$cache" ${CASES[$i]} -o "$out" >/dev/null 2>"$T/kill.err" &
	pid=$!
	sleep "$(printf '0.%03d' "$ms")"
	kill -KILL "$pid" 2>/dev/null || true
	rc=0
	wait "$pid" || rc=$?
	what="round $r ('${CASES[$i]}', kill -9 at $ms ms, SEED=$SEED)"
	if [ "$rc" = 137 ]; then
		killed_mid=$((killed_mid + 1))
	elif [ "$rc" != 0 ]; then
		fail "$what: exit $rc before the kill: $(cat "$T/kill.err")"
	fi
	check_whole "$what" "$out" "$T/ref-$i"
	if [ "$rc" = 137 ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
		# killed after the commit (one rename into the missing or empty destination):
		# the output is whole (checked below) and a rerun rightly refuses to overwrite it
		it_say "$what: killed after its output was in place"
	elif [ "$rc" = 137 ]; then
		# the rerun: right output, nothing of the killed run left
		# shellcheck disable=SC2086
		"$ROCKPACK" -q --cache "$cache" ${CASES[$i]} -o "$out" >/dev/null 2>"$T/rerun.err" ||
			fail "$what: the rerun failed: $(cat "$T/rerun.err")"
	fi
	it_cmp_tree "$what: output" "$T/ref-$i" "$out"
	left=$(find "$T" -maxdepth 1 -name ".out-$r.*")
	[ -z "$left" ] || fail "$what: the rerun left '$left'"
	it_say "$what: exit $rc"
done
[ "$killed_mid" -gt 0 ] || fail "no kill -9 fell inside a run (SEED=$SEED)"
it_say "$killed_mid of $ROUNDS kills fell inside a run"
it_finish
