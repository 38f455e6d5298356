#!/usr/bin/env bash
# concurrent_readers: 8 readers start on a cold cache at once over the browse trees of a
# run, so their first touches land while archives are being ingested: lookups of members
# not yet written must wait, then every reader must get exactly what tar extracts. The
# store holds the legacy demo run and a ~100 MiB run (mkdemo.py --large-gib 0.1) whose
# archive takes long enough to ingest that readers surely wait on it. Run once with the
# multithreaded daemon (2 ingest jobs) and once single-threaded (-s, 1 ingest job).
. "$(dirname "$0")/lib.sh"
it_init "$@"

RUNS="24205988454-linux 90000000001-linux"
S=$T/store
mkdir -p "$S"
cp -a "$STORE/24205988454-linux" "$S/"
python3 "$(dirname "$0")/../demo/mkdemo.py" "$S" --large-gib 0.1 >/dev/null ||
	die "mkdemo.py --large-gib failed"
narch=0
for run in $RUNS; do
	it_extract_run "$S/$run" "$T/want/$run/browse"
	narch=$((narch + $(it_artifacts "$S/$run" | wc -l)))
done
(cd "$T/want" && find . -type f -print0 | sort -z | xargs -0 sha256sum) | sed 's|  \./|  |' |
	sort -k2 >"$T/want.sums"
(cd "$T/want" && find . -type f | sed 's|^\./||' | sort) >"$T/paths"
[ "$(wc -l <"$T/paths")" -ge 200 ] || die "premise: only $(wc -l <"$T/paths") files"
# the largest artifacts last in the list: readers that go backwards start on them
tac "$T/paths" >"$T/paths.rev"
# every artifact's last file first: a lookup of the last member waits for the whole archive
awk -F/ '{ last[$1 "/" $3] = $0 } END { for (a in last) print last[a] }' "$T/paths" |
	sort >"$T/paths.last"
cat "$T/paths.last" "$T/paths" >"$T/paths.lastfirst"

# by_path LIST OUT: sha256sum of each listed file, looked up by path (no readdir first)
by_path() {
	(cd "$B" && tr '\n' '\0' <"$1" | xargs -0 -n 16 sha256sum) | sort -u -k2 >"$2"
}
# by_walk OUT: readdir everything (each listing waits for its archive), hash what is found
by_walk() {
	(cd "$B" && find */browse -type f -print0 | xargs -0 -n 16 sha256sum) | sort -k2 >"$1"
}
# by_dd LIST OUT: read in 4 KiB pieces with dd (many small reads per file)
by_dd() {
	local p
	while IFS= read -r p; do
		printf '%s  %s\n' "$(dd if="$B/$p" bs=4096 status=none | sha256sum | cut -c1-64)" "$p"
	done <"$1" | sort -k2 >"$2"
}

pass() {
	local name=$1 r
	shift
	local C=$T/cache-$name
	B=$T/mnt-$name
	IT_BG=()
	it_mount "$name" "$S" "$B" "$C" "$@"
	# all eight at once, right after the mount, on a cold cache
	it_bg by_path "$T/paths" "$T/$name.r1"
	it_bg by_path "$T/paths.rev" "$T/$name.r2"
	it_bg by_path "$T/paths.last" "$T/$name.r3"
	it_bg by_path "$T/paths.lastfirst" "$T/$name.r4"
	it_bg by_walk "$T/$name.r5"
	it_bg by_walk "$T/$name.r6"
	it_bg by_dd "$T/paths.rev" "$T/$name.r7"
	it_bg by_path "$T/paths.rev" "$T/$name.r8"
	for r in "${IT_BG[@]}"; do
		wait "$r" || fail "$name: a reader (pid $r) failed"
	done
	IT_BG=()
	for r in r1 r2 r4 r5 r6 r7 r8; do
		it_same "$name: reader $r vs tar" "$T/want.sums" "$T/$name.$r"
	done
	grep -F -f <(sed 's/^/  /' "$T/paths.last") "$T/want.sums" | sort -k2 >"$T/want.last"
	it_same "$name: reader r3 (last member of each archive) vs tar" "$T/want.last" "$T/$name.r3"
	it_alive "$name"
	# each archive decompressed once: one index each, no re-ingest
	[ "$(it_stats "$C" indexes)" = "$narch" ] ||
		fail "$name: $(it_stats "$C" indexes) cache indexes, want $narch"
	if grep -q 'decompressing again' "${IT_LOG[$name]}"; then
		fail "$name: an archive was decompressed twice"
	fi
	it_quiet_log "$name"
	it_umount "$name"
}

pass mt -o jobs=2
pass st -s -o jobs=1

it_finish
