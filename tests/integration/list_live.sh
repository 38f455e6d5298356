#!/usr/bin/env bash
# list_live: runs published while a store is mounted appear without a remount. The
# root is listed again when a look at it finds its listing older than -o list_ttl (the
# kernel's cached listing is dropped then), and a lookup of a missing name does the
# same; runs already listed are never listed again (one listing sequence per run). On a
# local directory and on S3 (s3rver on loopback); list_ttl=0 keeps the first listing.
# S3, when a run's listing is final (-o run_final_age, issue 14): a run whose newest
# object is young is still being uploaded, so the next mount lists it again and sees an
# artifact uploaded since; once its newest object is older than run_final_age, its
# listing is kept and later mounts make no listing request for it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../remote/remote.sh"
it_init "$@"

R1=24205988455-linux
R2=24205988454-linux
R3=24205988999-linux
# (the runs: not the README, nor the store view release/ that every store lists)
names() { ls "$1" | grep -Ev '^(README|release)$' | tr '\n' ' '; }

# ---- a local directory
S=$T/store
mkdir -p "$S"
cp -r "$STORE/$R1" "$S/"
it_mount live "$S" "$T/live" "$T/cache" -o list_ttl=1
it_mount frozen "$S" "$T/frozen" "$T/cache-frozen" -o list_ttl=0
[ "$(names "$T/live")" = "$R1 " ] || fail "live mount lists '$(names "$T/live")'"
names "$T/frozen" >/dev/null
cp -r "$STORE/$R2" "$S/"
sleep 1.2
[ "$(names "$T/live")" = "$R2 $R1 " ] || fail "a new run did not appear: '$(names "$T/live")'"
[ "$(names "$T/frozen")" = "$R1 " ] || fail "list_ttl=0 listed again: '$(names "$T/frozen")'"
cmp "$T/live/$R2/browse/base_lib_generic/artifact_manifest.txt" \
	<(zstd -dcq "$S/$R2/base_lib_generic.tar.zst" | tar -xO artifact_manifest.txt) ||
	fail "the new run reads wrong"
# a lookup of a run not yet listed (no ls of the root first)
mkdir "$S/$R3"
cp "$S/$R1"/base_lib_generic.tar.zst* "$S/$R3/"
sleep 1.2
ls "$T/live/$R3/browse/base_lib_generic" >/dev/null || fail "lookup of a new run: ENOENT"
[ "$(names "$T/live")" = "$R2 $R1 $R3 " ] || fail "after the lookup: '$(names "$T/live")'"
grep -q "'/': 1 new run" "${IT_LOG[live]}" || fail "no log line for the new run"
it_umount live
it_umount frozen
it_quiet_log live

# ---- S3: a new run uploaded while mounted
rt_need_s3rver
B=live
S3=$T/s3store
mkdir -p "$S3"
cp -r "$STORE/$R1" "$S3/"
rt_s3rver srv "$S3" $B
EP=http://127.0.0.1:$RT_PORT
LIST='^REQ GET /'$B'\?.*list-type=2'
it_mount s3 "s3://$B" "$T/s3" "$T/cache-s3" -o "endpoint=$EP,list_ttl=1"
[ "$(names "$T/s3")" = "$R1 " ] || fail "s3 mount lists '$(names "$T/s3")'"
ls "$T/s3/$R1/artifacts" >/dev/null
while read -r f; do
	curl -fsS -X PUT --data-binary "@$STORE/$R2/$f" "$EP/$B/$R2/$f" >/dev/null ||
		fail "upload of $f to s3rver failed"
done < <(cd "$STORE/$R2" && find . -type f | sed 's,^\./,,')
sleep 1.2
[ "$(names "$T/s3")" = "$R2 $R1 " ] || fail "s3: the uploaded run did not appear: '$(names "$T/s3")'"
cmp "$T/s3/$R2/browse/base_lib_generic/artifact_manifest.txt" \
	<(zstd -dcq "$STORE/$R2/base_lib_generic.tar.zst" | tar -xO artifact_manifest.txt) ||
	fail "s3: the new run reads wrong"
sleep 1.2
names "$T/s3" >/dev/null
n=$(rt_count "$T/srv.log" "$LIST.*prefix=$R1%2F")
[ "$n" -eq 1 ] || fail "s3: $R1 listed $n times (want once: runs are listed once)"
n=$(rt_count "$T/srv.log" "$LIST.*prefix=$R2%2F")
[ "$n" -eq 1 ] || fail "s3: $R2 listed $n times (want once)"
n=$(rt_count "$T/srv.log" "$LIST")
[ "$n" -ge 4 ] || fail "s3: the root was not listed again ($n listings in all)"
it_umount s3
it_quiet_log s3
grep -q "run '$R1': still being uploaded" "${IT_LOG[s3]}" ||
	fail "s3: a run uploaded just now was not taken as still being uploaded"

# a new artifact in R1, uploaded after the first mount listed it
mkdir -p "$T/extra/share/extra"
echo extra >"$T/extra/share/extra/note.txt"
echo share/extra >"$T/extra/artifact_manifest.txt"
tar -C "$T/extra" -c artifact_manifest.txt share | zstd -q -c >"$T/extra_lib_generic.tar.zst"
curl -fsS -X PUT --data-binary "@$T/extra_lib_generic.tar.zst" \
	"$EP/$B/$R1/extra_lib_generic.tar.zst" >/dev/null || fail "upload of extra failed"
it_mount s3b "s3://$B" "$T/s3b" "$T/cache-s3" -o "endpoint=$EP"
[ -e "$T/s3b/$R1/artifacts/extra_lib_generic.tar.zst" ] ||
	fail "s3: an artifact uploaded into a run still being uploaded did not appear on remount"
cmp "$T/extra/share/extra/note.txt" "$T/s3b/$R1/browse/extra_lib_generic/share/extra/note.txt" ||
	fail "s3: the new artifact reads wrong"
it_umount s3b
it_quiet_log s3b

# final: older than run_final_age, listed once more and kept; later mounts do not ask
sleep 2.1
it_mount s3c "s3://$B" "$T/s3c" "$T/cache-s3" -o "endpoint=$EP,run_final_age=2"
ls "$T/s3c/$R1/artifacts" >/dev/null
it_umount s3c
n=$(rt_count "$T/srv.log" "$LIST.*prefix=$R1%2F")
it_mount s3d "s3://$B" "$T/s3d" "$T/cache-s3" -o "endpoint=$EP,run_final_age=2"
ls "$T/s3d/$R1/artifacts" "$T/s3d/$R1/browse/extra_lib_generic" >/dev/null
it_umount s3d
[ "$(rt_count "$T/srv.log" "$LIST.*prefix=$R1%2F")" -eq "$n" ] ||
	fail "s3: a finished run was listed again (want its kept listing)"
! grep -q "run '$R1': still being uploaded" "${IT_LOG[s3d]}" ||
	fail "s3: a run older than run_final_age was taken as still being uploaded"
it_finish
