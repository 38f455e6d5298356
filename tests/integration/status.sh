#!/usr/bin/env bash
# status: a running daemon says what it is doing without a debugger. The mount's root has
# a hidden file .rockfs-status (runs listed, ingests running and waiting, archives
# decompressed and loaded from the cache, errors by kind, bytes fetched, cache use), fresh
# on every read, which `rockpack status MOUNTPOINT [--json]` prints; the mount has no
# extended attributes (the kernel stops asking); the log has a start line (version,
# store, cache, command line) and a stop line with the totals.
. "$(dirname "$0")/lib.sh"
it_init "$@"

RUN=24205988455-linux
S=$T/store
mkdir -p "$S"
cp -r "$STORE/$RUN" "$S/$RUN"
# one damaged archive: an archive error the status must count
bad=blas_test_generic.tar.zst
head -c 200 "$STORE/$RUN/$bad" >"$S/$RUN/$bad"
rm -f "$S/$RUN/$bad.sha256sum"

M=$T/mnt
it_mount a "$S" "$M" "$T/cache" -o cache_size=1G

# get NAME: one line's value, as cat reads the status file
get() { sed -n "s/^$1: //p" "$M/.rockfs-status"; }

# before anything is read: the daemon has listed nothing
[ "$(get ingests_done)" = 0 ] || fail "ingests_done before any read: $(get ingests_done)"
[ "$(get version)" = "$("$ROCKFS" --version | head -1 | cut -d' ' -f2)" ] ||
	fail "version attribute '$(get version)' is not rockfs --version's"
[ "$(get store)" = "$S" ] || fail "store attribute: '$(get store)', want '$S'"
[ "$(get cache)" = "$T/cache" ] || fail "cache attribute: '$(get cache)'"
[ "$(get cache_limit)" = 1073741824 ] || fail "cache_limit: '$(get cache_limit)'"

# read one healthy artifact and the damaged one
cmp "$M/$RUN/browse/base_lib_generic/artifact_manifest.txt" \
	<(zstd -dcq "$S/$RUN/base_lib_generic.tar.zst" | tar -xO artifact_manifest.txt) ||
	fail "base_lib_generic reads wrong"
! ls "$M/$RUN/browse/${bad%.tar.zst}/" >/dev/null 2>&1 || fail "the damaged $bad lists"

[ "$(get runs)" = 1 ] || fail "runs: '$(get runs)', want 1"
[ "$(get ingests_done)" -ge 2 ] || fail "ingests_done: '$(get ingests_done)', want >= 2"
[ "$(get errors_archive)" = 1 ] || fail "errors_archive: '$(get errors_archive)', want 1"
[ "$(get errors_transient)" = 0 ] || fail "errors_transient: '$(get errors_transient)'"
[ "$(get cache_written)" -gt 0 ] || fail "cache_written: '$(get cache_written)'"
[ "$(get cache_used)" = "$(get cache_written)" ] ||
	fail "cache_used '$(get cache_used)' != cache_written '$(get cache_written)' on a fresh cache"
[ "$(get remote_requests)" = 0 ] || fail "a local store made requests: $(get remote_requests)"

# rockpack status: the same fields, as text and as JSON
"$ROCKPACK" status "$M" >"$T/status.txt" || fail "rockpack status exited $?"
grep -qx "errors_archive: 1" "$T/status.txt" || fail "rockpack status: $(cat "$T/status.txt")"
grep -qx "store: $S" "$T/status.txt" || fail "rockpack status has no store line"
"$ROCKPACK" status "$M" --json >"$T/status.json" || fail "rockpack status --json exited $?"
python3 - "$T/status.json" "$S" <<'PY' || fail "rockpack status --json: $(cat "$T/status.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["store"] == sys.argv[2], d
assert d["runs"] == 1 and d["errors_archive"] == 1 and d["ingests_done"] >= 2, d
for k in ("ingests_running", "ingests_waiting", "index_loads", "remote_bytes", "cache_used", "uptime"):
    assert isinstance(d[k], int), k
PY
# the file is not listed, only the root has it, and nothing has extended attributes
! ls -a "$M" | grep -q rockfs-status || fail "the root lists .rockfs-status"
[ ! -e "$M/$RUN/.rockfs-status" ] || fail "a run has a .rockfs-status"
python3 - "$M" "$M/$RUN" <<'PY' || fail "extended attributes"
import errno, os, sys
for p in sys.argv[1:]:
    try:
        names = os.listxattr(p)
    except OSError as e:
        assert e.errno == errno.ENOTSUP, e
    else:
        assert names == [], names
PY
rc=0
"$ROCKPACK" status "$M/$RUN" 2>"$T/err" || rc=$?
[ "$rc" = 1 ] || fail "rockpack status of a subdirectory: exit $rc, want 1"
grep -q "not the root of a rockfs mount" "$T/err" || fail "status of a subdirectory: $(cat "$T/err")"
rc=0
"$ROCKPACK" status 2>/dev/null || rc=$?
[ "$rc" = 2 ] || fail "rockpack status without a mountpoint: exit $rc, want 2"

# a remount loads the healthy artifact's index from the cache
it_umount a
grep -q "^rockfs: info: rockfs .*: serving '$S' on '$M', cache '$T/cache' (cache_size 1.0 GiB; command line: .*cache_size=1G" \
	"${IT_LOG[a]}" || fail "no start line with version, store, cache and options"
grep -q "^rockfs: info: stopped (unmounted) after [0-9]* s: 1 runs listed, [0-9]* archives decompressed, 0 loaded from the cache, errors: 1 archive, 0 transient, 0 cache" \
	"${IT_LOG[a]}" || fail "no stop line with the totals: $(tail -2 "${IT_LOG[a]}")"
it_mount b "$S" "$M" "$T/cache"
cat "$M/$RUN/browse/base_lib_generic/artifact_manifest.txt" >/dev/null
[ "$(get index_loads)" -ge 1 ] || fail "index_loads after a remount: '$(get index_loads)'"
[ "$(get ingests_done)" = 0 ] || fail "a remount decompressed again: ingests_done $(get ingests_done)"
it_umount b
it_finish
