#!/usr/bin/env bash
# cache_private_refused: a cache directory that group or others can write to, or that
# belongs to another user, is refused by rockfs and rockpack with one clear line, and
# nothing is written into it.
. "$(dirname "$0")/lib.sh"
it_init "$@"

RUN=24205988455-linux

# refused DIR WHAT: both programs refuse DIR, saying WHAT, and leave it empty
refused() {
	local dir=$1 what=$2 rc=0
	timeout 20 "$ROCKFS" "$STORE" "$T/mnt" -f -o "cache=$dir" >"$T/fs.err" 2>&1 || rc=$?
	[ "$rc" -ne 0 ] || fail "rockfs mounted on $what"
	mountpoint -q "$T/mnt" && fusermount3 -u "$T/mnt"
	grep -q "$what" "$T/fs.err" || fail "rockfs on $what: no clear message: $(cat "$T/fs.err")"
	rc=0
	"$ROCKPACK" --cache "$dir" ls "$STORE" "$RUN" >/dev/null 2>"$T/rp.err" || rc=$?
	[ "$rc" = 1 ] || fail "rockpack on $what: exit $rc, want 1"
	[ "$(wc -l <"$T/rp.err")" = 1 ] || fail "rockpack on $what: want one line, got: $(cat "$T/rp.err")"
	grep -q "$what" "$T/rp.err" || fail "rockpack on $what: no clear message: $(cat "$T/rp.err")"
	[ -z "$(ls -A "$dir")" ] || fail "something was written into $what: $(ls -A "$dir")"
}
mkdir -p "$T/mnt"

mkdir "$T/loose" && chmod 0777 "$T/loose"
refused "$T/loose" "is writable by group or others"
mkdir "$T/groupw" && chmod 0770 "$T/groupw"
refused "$T/groupw" "is writable by group or others"

if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	mkdir "$T/foreign" && chmod 0700 "$T/foreign" && chown nobody "$T/foreign"
	refused "$T/foreign" "belongs to uid $(id -u nobody), not to you"
else
	it_say "not root (or no user nobody): the foreign-owned case is not run"
fi
it_finish
