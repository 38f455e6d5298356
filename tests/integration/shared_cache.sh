#!/usr/bin/env bash
# shared_cache: two mounts of one store share one cache directory at the same time; readers
# in both (from a cold cache, so both mounts ingest the same archives at once and must
# coordinate through the cache's locks) get exactly what tar extracts; `rockpack cat`, a
# third process on the same cache, serves the same bytes as the mounts; the cache ends up
# with one index per artifact, no stray temp files, and every blob passes `cache verify`.
. "$(dirname "$0")/lib.sh"
it_init "$@"

RUNS="24205988454-linux 24205988455-linux"
C=$T/cache
# the cache keys an index by the archive's sidecar hash: identical archives in the two runs
# share one index
for run in $RUNS; do
	it_extract_run "$STORE/$run" "$T/want/$run"
	it_artifacts "$STORE/$run" | while read -r _ file; do
		cut -c1-64 "$STORE/$run/$file.sha256sum"
	done
done | sort -u >"$T/keys"
nart=$(wc -l <"$T/keys")
(cd "$T/want" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$T/want.sums"
read -r nblobs _ < <(it_distinct "$T/want")

it_mount a "$STORE" "$T/a" "$C"
it_mount b "$STORE" "$T/b" "$C"

# reader NAME MOUNT ORDER: sha256sum of every browse file, in the given run order
reader_find() {
	local mnt=$1 out=$2 run
	shift 2
	for run in "$@"; do
		(cd "$mnt/$run/browse" && find . -type f -exec sha256sum {} +) |
			sed "s|  \./|  ./$run/|"
	done | sort -k2 >"$out"
}
# reader_cat MOUNT OUT ROUNDS: cat every file (by path, no readdir) a few times
reader_cat() {
	local mnt=$1 out=$2 rounds=$3 i
	for ((i = 0; i < rounds; i++)); do
		(cd "$mnt" && tr '\n' '\0' <"$T/paths" | xargs -0 sha256sum) | sort -k2 >"$out.$i"
	done
}
(cd "$T/want" && find . -type f | sed 's|^\./||') | while IFS= read -r p; do
	printf '%s/browse/%s\n' "${p%%/*}" "${p#*/}"
done >"$T/paths"

# both mounts, opposite run orders, plus path readers, all at once
it_bg reader_find "$T/a" "$T/r1" 24205988454-linux 24205988455-linux
it_bg reader_find "$T/b" "$T/r2" 24205988455-linux 24205988454-linux
it_bg reader_cat "$T/a" "$T/r3" 3
it_bg reader_cat "$T/b" "$T/r4" 3
it_bg reader_find "$T/b" "$T/r5" 24205988454-linux 24205988455-linux
for pid in "${IT_BG[@]}"; do
	wait "$pid" || fail "a reader (pid $pid) failed"
done

sed 's|  \./|  |' "$T/want.sums" | sort -k2 >"$T/want.find"
sed 's|  \./\([^/]*\)/|  \1/browse/|' "$T/want.sums" | sort -k2 >"$T/want.cat"
for r in r1 r2 r5; do
	sed 's|  \./\([^/]*\)/|  \1/|' "$T/$r" | sort -k2 >"$T/$r.n"
	it_same "reader $r (find + sha256sum) vs tar" "$T/want.find" "$T/$r.n"
done
for r in r3 r4; do
	for i in 0 1 2; do
		it_same "reader $r round $i (sha256sum by path) vs tar" "$T/want.cat" "$T/$r.$i"
	done
done

# the whole trees, in both mounts
for run in $RUNS; do
	while read -r stem _; do
		it_cmp_tree "mount a: $run/$stem" "$T/want/$run/$stem" "$T/a/$run/browse/$stem"
	done < <(it_artifacts "$STORE/$run")
	diff -r --no-dereference "$T/a/$run/browse" "$T/b/$run/browse" >/dev/null ||
		fail "$run: the two mounts differ"
done

# rockpack cat while both are mounted: same bytes as the mount
n=0
while IFS= read -r p; do
	run=${p%%/*}
	rest=${p#*/browse/}
	stem=${rest%%/*}
	path=${rest#*/}
	if ! "$ROCKPACK" --cache "$C" cat "$STORE" "$run" "$stem" "$path" >"$T/cat.out" 2>"$T/cat.err"; then
		fail "rockpack cat $run $stem $path: $(cat "$T/cat.err")"
	elif ! cmp -s "$T/cat.out" "$T/a/$p"; then
		fail "rockpack cat $run $stem $path differs from the mount"
	fi
	n=$((n + 1))
done < <(awk 'NR % 7 == 1' "$T/paths")
[ "$n" -ge 20 ] || fail "only $n files compared with rockpack cat"

it_alive a
it_alive b
it_quiet_log a
it_quiet_log b
it_umount a
it_umount b

# one index per artifact; one blob per distinct content; nothing left in tmp/; all verify
[ "$(it_stats "$C" indexes)" = "$nart" ] || fail "indexes: $(it_stats "$C" indexes), want $nart"
ls "$C/index" | sed 's/^s-//; s/\.rkix$//' | sort >"$T/keys.got"
it_same "cache index names vs the archives' sidecar hashes" "$T/keys" "$T/keys.got"
[ "$(it_stats "$C" blobs)" = "$nblobs" ] || fail "blobs: $(it_stats "$C" blobs), want $nblobs"
[ -z "$(ls -A "$C/tmp")" ] || fail "cache tmp/ not empty: $(ls -A "$C/tmp" | head)"
"$ROCKPACK" --cache "$C" cache verify >"$T/verify" 2>&1 || fail "cache verify: $(cat "$T/verify")"
grep -q '^bad     0' "$T/verify" || fail "cache verify: $(cat "$T/verify")"

it_finish
