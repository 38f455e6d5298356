#!/usr/bin/env bash
# run_live: a run that changes in the store is served anew in a running mount (issue 14,
# section 3). A lookup of a run's name after -o list_ttl asks the store whether the run
# may have changed (a local directory always may; on S3 a run still being uploaded, or
# one `rockpack cache refresh` was run for) and, when its files differ, answers a new
# inode: the new artifact is there, and what was open in the old tree (a file, a working
# directory) keeps reading right. A finished S3 run makes no listing request until
# `rockpack cache refresh RUN`, which reaches the running daemon through the cache. A
# local run moved away (its reads fail meanwhile) and back is served again (issue 26,
# item 8).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../remote/remote.sh"
it_init "$@"

R1=24205988455-linux
MEMBER=browse/base_lib_generic/artifact_manifest.txt

# An artifact named $1 holding share/$1/note.txt, written to $2.
extra_artifact() {
	local d=$T/x-$1
	mkdir -p "$d/share/$1"
	echo "$1" >"$d/share/$1/note.txt"
	echo "share/$1" >"$d/artifact_manifest.txt"
	tar -C "$d" -c artifact_manifest.txt share | zstd -q -c >"$2"
}

# ---- a local directory
S=$T/store
mkdir -p "$S"
cp -r "$STORE/$R1" "$S/"
it_mount loc "$S" "$T/loc" "$T/cache" -o list_ttl=1
M=$T/loc/$R1
ino_before=$(stat -c %i "$M")
exec 3<"$M/$MEMBER"
(cd "$M/browse/base_lib_generic" && sleep 4) &
cwd_pid=$!
sleep 0.2
[ ! -e "$M/artifacts/new_lib_generic.tar.zst" ] || fail "the new artifact is there before it was made"
extra_artifact new "$T/new.tar.zst"
cp "$T/new.tar.zst" "$S/$R1/.new.tmp" && mv "$S/$R1/.new.tmp" "$S/$R1/new_lib_generic.tar.zst"
sleep 1.3
[ -e "$M/artifacts/new_lib_generic.tar.zst" ] || fail "local: a new artifact in a mounted run did not appear"
[ "$(cat "$M/browse/new_lib_generic/share/new/note.txt")" = new ] || fail "local: the new artifact reads wrong"
ls "$M/browse" | grep -qx new_lib_generic || fail "local: browse/ does not list the new artifact"
[ "$(stat -c %i "$M")" != "$ino_before" ] || fail "local: the changed run kept its inode"
cmp <(cat <&3) <(zstd -dcq "$S/$R1/base_lib_generic.tar.zst" | tar -xO artifact_manifest.txt) ||
	fail "local: a file open in the old tree reads wrong"
exec 3<&-
ls "/proc/$cwd_pid/cwd/" | grep -qx artifact_manifest.txt || fail "local: a working directory in the old tree is empty"
wait "$cwd_pid"
grep -q "run '$R1': its listing changed (.* was .*); served anew" "${IT_LOG[loc]}" ||
	fail "local: no log line for the changed run"
# unchanged: the same inode after list_ttl
ino_before=$(stat -c %i "$M")
sleep 1.3
[ "$(stat -c %i "$M")" = "$ino_before" ] || fail "local: an unchanged run was served anew"
it_umount loc
it_quiet_log loc

# a run moved away (what was read meanwhile fails) and back: served again, every view
it_mount mv "$S" "$T/mv" "$T/cache-mv" -o list_ttl=1
M=$T/mv/$R1
ls "$M/browse" >/dev/null
mv "$S/$R1" "$T/away"
sleep 1.1
ls "$M" >/dev/null 2>&1 || true
! cat "$M/$MEMBER" >/dev/null 2>&1 || fail "moved away: an archive not in the store reads"
! ls "$M/dist/gfx1100" >/dev/null 2>&1 || fail "moved away: dist/ of a run not in the store lists"
mv "$T/away" "$S/$R1"
sleep 1.1
cmp <(cat "$M/$MEMBER") <(zstd -dcq "$S/$R1/base_lib_generic.tar.zst" | tar -xO artifact_manifest.txt) ||
	fail "moved back: browse/ does not read right"
ls "$M/dist/gfx1100" >/dev/null || fail "moved back: dist/gfx1100 does not list"
cmp "$M/artifacts/base_lib_generic.tar.zst" "$S/$R1/base_lib_generic.tar.zst" ||
	fail "moved back: artifacts/ does not read right"
grep -q "run '$R1': the store has the files it had lost again; served anew" "${IT_LOG[mv]}" ||
	fail "moved back: no log line for the run served anew"
it_umount mv

# ---- S3
rt_need_s3rver
B=runs
S3=$T/s3store
mkdir -p "$S3"
cp -r "$STORE/$R1" "$S3/"
rt_s3rver srv "$S3" $B
EP=http://127.0.0.1:$RT_PORT
LIST='^REQ GET /'$B'\?.*list-type=2.*prefix='$R1'%2F'
put() { curl -fsS -X PUT --data-binary "@$1" "$EP/$B/$R1/$2" >/dev/null || fail "upload of $2 failed"; }

# a run still being uploaded (its newest object is young): listed again after list_ttl
it_mount s3 "s3://$B" "$T/s3" "$T/cache-s3" -o "endpoint=$EP,list_ttl=1"
M=$T/s3/$R1
ls "$M/artifacts" >/dev/null
n0=$(rt_count "$T/srv.log" "$LIST")
extra_artifact up "$T/up.tar.zst"
put "$T/up.tar.zst" up_lib_generic.tar.zst
sleep 1.3
[ "$(cat "$M/browse/up_lib_generic/share/up/note.txt" 2>/dev/null)" = up ] ||
	fail "s3: an artifact uploaded into a run still being uploaded did not appear"
n1=$(rt_count "$T/srv.log" "$LIST")
[ "$n1" -gt "$n0" ] || fail "s3: the unfinished run was not listed again"
it_umount s3
it_quiet_log s3

# a finished run: no listing request while mounted, until cache refresh
sleep 1.1
it_mount fin "s3://$B" "$T/fin" "$T/cache-s3" -o "endpoint=$EP,list_ttl=1,run_final_age=1"
M=$T/fin/$R1
ls "$M/artifacts" >/dev/null
n0=$(rt_count "$T/srv.log" "$LIST")
extra_artifact late "$T/late.tar.zst"
put "$T/late.tar.zst" late_lib_generic.tar.zst
sleep 1.3
ls "$M/artifacts" >/dev/null
[ ! -e "$M/artifacts/late_lib_generic.tar.zst" ] || fail "s3: a finished run was listed again by itself"
[ "$(rt_count "$T/srv.log" "$LIST")" -eq "$n0" ] || fail "s3: a finished run made listing requests"
"$ROCKPACK" -q --cache "$T/cache-s3" cache refresh "$R1" || fail "cache refresh failed"
sleep 1.3
[ "$(cat "$M/browse/late_lib_generic/share/late/note.txt" 2>/dev/null)" = late ] ||
	fail "s3: cache refresh did not reach the running daemon"
[ "$(rt_count "$T/srv.log" "$LIST")" -gt "$n0" ] || fail "s3: cache refresh made no listing request"
it_umount fin
it_quiet_log fin
it_finish
