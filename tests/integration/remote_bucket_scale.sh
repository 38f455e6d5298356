#!/usr/bin/env bash
# remote_bucket_scale: a bucket of 1,200 runs (issue 29, items 4, 5, 7). The root's
# ListObjectsV2 takes two pages (1,000 common prefixes a page); the mount's root and
# `rockpack ls` list every run; each run is listed once per mount, 16 at a time, and a
# finished run (run_final_age) never again, in later mounts either; a run's mtime is its
# newest object's (ls -t finds the newest run); a run being uploaded shows a new artifact
# and a file appended under python/ within list_ttl (polled, with a generous limit).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../remote/remote.sh"
it_init "$@"
rt_need_s3rver

B=scale
NRUNS=1200
S=$T/store
python3 - "$S" "$NRUNS" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(root, "%d-linux" % (20000000000 + i))
    os.makedirs(d)
    with open(os.path.join(d, "base_lib_generic.tar.zst"), "wb") as f:
        f.write(b"x%d" % i)
PY
expected=$T/expected
(cd "$S" && ls) >"$expected"
[ "$(wc -l <"$expected")" = $NRUNS ] || die "made $(wc -l <"$expected") runs"
RT_PUT_JOBS=32 rt_s3rver srv "$S" $B
EP=http://127.0.0.1:$RT_PORT
LIST='^REQ GET /'$B'\?.*list-type=2'
ROOT_LIST="$LIST&prefix= "
runs_in() { ls "$1" | grep -v '^README$\|^release$'; }

# ---- the root: two pages, every run; each run listed once, 16 at a time
it_mount m1 "s3://$B" "$T/m1" "$T/cache" -o "endpoint=$EP,run_final_age=0,list_ttl=0"
# a look at one run lists the root and that run only: the walk of every run is a readdir's
stat "$T/m1/20000000007-linux/artifacts" >/dev/null || fail "stat of one run failed"
n=$(grep -E "$LIST" "$T/srv.log" | grep -vc "prefix= " || true)
[ "$n" = 1 ] || fail "a look at one run listed $n runs, want 1 (only reading the root lists them all)"
[ "$(stat -c %Y "$T/m1/20000000007-linux")" -gt 946684800 ] || fail "a run looked up alone has an mtime before 2000"
runs_in "$T/m1" >"$T/got" || fail "ls of the root failed"
diff -q "$expected" "$T/got" >/dev/null || fail "the root lists $(wc -l <"$T/got") runs, want $NRUNS: $(diff "$expected" "$T/got" | head -5)"
n=$(rt_count "$T/srv.log" "$ROOT_LIST")
[ "$n" -ge 2 ] || fail "the root was listed in $n page(s), want 2 (1,000 common prefixes a page)"
grep -E "$LIST" "$T/srv.log" | grep -v "prefix= " | sed -E 's/.*prefix=([^& ]*).*/\1/' | sort | uniq -c |
	awk '$1 != 1 { print; bad = 1 } END { exit bad }' >"$T/twice" ||
	fail "runs listed more than once: $(head -3 "$T/twice")"
[ "$(grep -E "$LIST" "$T/srv.log" | grep -vc "prefix= ")" = $NRUNS ] || fail "not every run was listed once"
# mtimes: every run has its object's time, not 1970
old=$(find "$T/m1" -maxdepth 1 -name '*-linux' ! -newermt 2000-01-01 | wc -l)
[ "$old" = 0 ] || fail "$old runs have an mtime before 2000"
it_umount m1
it_quiet_log m1

# ---- rockpack ls: the same runs; a finished run is not listed again
before=$(grep -cE "$LIST" "$T/srv.log")
"$ROCKPACK" ls "s3://$B" --endpoint "$EP" --cache "$T/cache" >"$T/rp" || fail "rockpack ls failed"
tail -n +2 "$T/rp" | awk '{ print $1 }' >"$T/rp-runs"
diff -q "$expected" "$T/rp-runs" >/dev/null || fail "rockpack ls lists $(wc -l <"$T/rp-runs") runs: $(diff "$expected" "$T/rp-runs" | head -5)"
grep -q "^20000000007-linux  *1 " "$T/rp" || fail "rockpack ls: $(grep 20000000007 "$T/rp")"
after=$(grep -cE "$LIST" "$T/srv.log")
[ $((after - before)) -le 3 ] ||
	fail "rockpack ls with the cache listed $((after - before)) times (want the root's pages only: finished runs are kept)"

# ---- a live run: a new run, a new artifact, a file appended under python/
LIVE=20000009999-linux
mkdir -p "$T/up/a/share/live"
echo live >"$T/up/a/share/live/note.txt"
echo share/live >"$T/up/a/artifact_manifest.txt"
tar -C "$T/up/a" -c artifact_manifest.txt share | zstd -q -c >"$T/up/base"
curl -fsS -X PUT --data-binary "@$T/up/base" "$EP/$B/$LIVE/base_lib_generic.tar.zst" >/dev/null
python3 - "$T/up" <<'PY'
import sys, zipfile
d = sys.argv[1]
for project in ("rocm_sdk_core", "rocm_sdk_extra"):
    with zipfile.ZipFile("%s/%s-7.0.0-py3-none-linux_x86_64.whl" % (d, project), "w") as z:
        z.writestr("%s/__init__.py" % project, "")
        z.writestr("%s-7.0.0.dist-info/METADATA" % project,
                   "Metadata-Version: 2.1\nName: %s\nVersion: 7.0.0\n" % project.replace("_", "-"))
        z.writestr("%s-7.0.0.dist-info/WHEEL" % project, "Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: py3-none-linux_x86_64\n")
        z.writestr("%s-7.0.0.dist-info/RECORD" % project, "")
PY
curl -fsS -X PUT --data-binary "@$T/up/rocm_sdk_core-7.0.0-py3-none-linux_x86_64.whl" \
	"$EP/$B/$LIVE/python/gfx110X-all/rocm_sdk_core-7.0.0-py3-none-linux_x86_64.whl" >/dev/null
# the same cache: the 1,200 finished runs are not listed again, only the live one
it_mount m2 "s3://$B" "$T/m2" "$T/cache" -o "endpoint=$EP,list_ttl=2"
m2_before=$(grep -cE "$LIST" "$T/srv.log")
[ "$(ls -t "$T/m2" | grep -v '^README$\|^release$' | head -n1)" = $LIVE ] ||
	fail "ls -t: the newest run is $(ls -t "$T/m2" | grep -v '^README$\|^release$' | head -n1), want $LIVE"
ls "$T/m2/$LIVE/artifacts" | grep -qx base_lib_generic.tar.zst || fail "the live run: $(ls "$T/m2/$LIVE/artifacts")"
ls "$T/m2/$LIVE/python/files" >/dev/null 2>&1 || true
curl -fsS -X PUT --data-binary "@$T/up/base" "$EP/$B/$LIVE/more_lib_generic.tar.zst" >/dev/null
curl -fsS -X PUT --data-binary "@$T/up/rocm_sdk_extra-7.0.0-py3-none-linux_x86_64.whl" \
	"$EP/$B/$LIVE/python/gfx110X-all/rocm_sdk_extra-7.0.0-py3-none-linux_x86_64.whl" >/dev/null
NEW=20000010000-linux
sleep 1.1 # NEW's object a second newer than LIVE's (mtimes are whole seconds): ls -t below
curl -fsS -X PUT --data-binary "@$T/up/base" "$EP/$B/$NEW/base_lib_generic.tar.zst" >/dev/null
seen=0
for ((i = 0; i < 150; i++)); do # list_ttl is 2 s: 30 s is generous
	if [ -e "$T/m2/$LIVE/artifacts/more_lib_generic.tar.zst" ] &&
		ls "$T/m2/$LIVE/python/files" 2>/dev/null | grep -q rocm_sdk_extra &&
		ls "$T/m2" | grep -qx $NEW; then
		seen=1
		break
	fi
	sleep 0.2
done
[ $seen = 1 ] || fail "within 30 s (list_ttl 2): artifacts: $(ls "$T/m2/$LIVE/artifacts" | tr '\n' ' '); python/files: $(ls "$T/m2/$LIVE/python/files" 2>&1 | tr '\n' ' '); $NEW listed: $(ls "$T/m2" | grep -c $NEW)"
it_say "the live run's changes appeared after about $((i / 5)) s (list_ttl 2)"
cmp "$T/m2/$LIVE/python/files/rocm_sdk_extra-7.0.0-py3-none-linux_x86_64.whl" \
	"$T/up/rocm_sdk_extra-7.0.0-py3-none-linux_x86_64.whl" || fail "the appended wheel reads wrong"
[ "$(ls -t "$T/m2" | grep -v '^README$\|^release$' | head -n1)" = $NEW ] ||
	fail "ls -t after the upload: the newest run is $(ls -t "$T/m2" | grep -v '^README$\|^release$' | head -n1), want $NEW"
n=$(grep -E "$LIST" "$T/srv.log" | tail -n +$((m2_before + 1)) | grep -v "prefix= " |
	{ grep -vcE "prefix=($LIVE|$NEW)" || true; })
[ "$n" = 0 ] || fail "the second mount listed $n finished runs again (want their kept listings)"
it_umount m2
it_quiet_log m2

# ---- doors: each refused with one line naming what to use instead
door() { # WANT-REGEX ARGS...: rockpack ls ARGS fails and says WANT
	local want=$1 out rc=0
	shift
	out=$("$ROCKPACK" ls "$@" --cache "$T/cache-door" 2>&1) || rc=$?
	[ $rc != 0 ] || fail "rockpack ls $*: succeeded"
	grep -qE "$want" <<<"$out" || fail "rockpack ls $*: '$out', want /$want/"
	[ "$(wc -l <<<"$out")" = 1 ] || fail "rockpack ls $*: more than one line: '$out'"
}
door "no such run: s3://$B holds nothing under 20000000123-linu/ \(nearest: 20000000123-linux" \
	"s3://$B/20000000123-linu" --endpoint "$EP"
door "an S3 bucket's REST address .*; use s3://therock-ci-artifacts/20000000123-linux instead" \
	https://therock-ci-artifacts.s3.amazonaws.com/20000000123-linux/index.html
door "an S3 bucket's REST address .*; use s3://therock-ci-artifacts instead" \
	https://therock-ci-artifacts.s3.us-east-2.amazonaws.com/
door "a page, not a directory; use http://127.0.0.1:$RT_PORT/$B/20000000123-linux/ instead" \
	"http://127.0.0.1:$RT_PORT/$B/20000000123-linux/index.html"
mkdir -p "$T/m3"
! "$ROCKFS" "s3://$B/99999999999-linux" "$T/m3" -f -o "cache=$T/cache-door,endpoint=$EP" \
	>"$T/m3.log" 2>&1 || fail "rockfs mounted a missing run"
grep -q "no such run" "$T/m3.log" || fail "rockfs, a missing run: $(cat "$T/m3.log")"
mountpoint -q "$T/m3" && fusermount3 -u "$T/m3"

# a server that ignores Range (python's http.server): a large stored file's read fails
# with one line that says so
RUN=20000000042-linux
mkdir -p "$T/www/$RUN"
head -c 3000000 /dev/urandom >"$T/www/$RUN/big_lib_generic.tar.zst"
port=$(rt_free_port)
(cd "$T/www" && exec python3 -m http.server "$port" --bind 127.0.0.1) >"$T/www.log" 2>&1 &
IT_BG+=($!)
rt_wait_http "http://127.0.0.1:$port/"
it_mount m4 "http://127.0.0.1:$port/" "$T/m4" "$T/cache-www"
! cat "$T/m4/$RUN/artifacts/big_lib_generic.tar.zst" >/dev/null 2>&1 || fail "a ranged read of a server ignoring Range succeeded?"
it_umount m4
grep -q "the server ignores Range requests (HTTP 200 with the whole file, not 206)" "${IT_LOG[m4]}" ||
	fail "no line saying the server ignores Range: $(grep -E 'error|warn' "${IT_LOG[m4]}")"
it_finish
