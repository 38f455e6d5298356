#!/usr/bin/env bash
# release_scale: after a remount, listing every channel of release/ on a generated store
# of 100 runs reads no archive (issue 32 item 4; view_release.c: the names a channel
# takes from a run are remembered per run in the cache; the runs are chosen from their
# listings and stored manifests). The runs: hard links of the demo's split run under new
# run ids, each with its own nightly version, so every run adds its own files. The first
# mount lists every channel (ingesting the runs); the second lists them all again and
# its status must say ingests_done 0 and index_loads 0, with every run in every channel.
. "$(dirname "$0")/lib.sh"
it_init "$@"
N=${RK_RELEASE_RUNS:-100}
SPLIT=24205988455-linux
S=$T/store
mkdir -p "$S"
for i in $(seq 1 "$N"); do
	r=$S/$((30000000000 + i))-linux
	cp -al "$STORE/$SPLIT" "$r"
	m=$r/manifests/therock_manifest.json
	day=$(date -u -d "2026-01-01 + $i days" +%Y%m%d)
	sed "s/\"rocm_package_version\": \"[^\"]*\"/\"rocm_package_version\": \"7.13.0a$day\"/" \
		"$m" >"$m.new"
	rm "$m"
	mv "$m.new" "$m"
done
# (ls -l: every entry's attributes too; the names compared, the times are the mount's)
list() {
	local d=("$1/release/tarball/" "$1/release/whl-next/" "$1"/release/whl-next/*/
		"$1/release/packages/deb/" "$1/release/packages/rpm/")
	ls -l "${d[@]}" >/dev/null && ls "${d[@]}" | sed "s|$1||" >"$2" &&
		cat "$1"/release/whl-next/*/index.html >/dev/null
}
it_mount first "$S" "$T/m1" "$T/cache"
list "$T/m1" "$T/ls1" || fail "listing release/ on the first mount"
it_umount first
it_mount again "$S" "$T/m2" "$T/cache"
list "$T/m2" "$T/ls2" || fail "listing release/ after a remount"
"$ROCKPACK" status "$T/m2" >"$T/status"
grep -qx 'ingests_done: 0' "$T/status" && grep -qx 'index_loads: 0' "$T/status" ||
	fail "listing release/ of $N runs after a remount read archives: $(grep -E '^(ingests_done|index_loads)' "$T/status" | tr '\n' ' ')"
it_same "the channels after a remount" "$T/ls1" "$T/ls2"
[ "$(ls "$T/m2/release/packages/deb" | grep -c -- '-3000000')" = "$N" ] ||
	fail "packages/deb/ lists $(ls "$T/m2/release/packages/deb" | wc -l) entries for $N runs"
[ "$(ls "$T/m2/release/whl-next/rocm" | grep -c '^rocm-7.13.0a2026.*\.tar\.gz$')" = "$N" ] ||
	fail "whl-next/rocm/ has $(ls "$T/m2/release/whl-next/rocm" | wc -l) entries for $N runs"
it_umount again
it_finish
