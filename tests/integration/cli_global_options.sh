#!/usr/bin/env bash
# cli_global_options: rockpack's global options work before and after the command, as
# git's do, with the same result: --cache (the cache named is used, the default one is
# not touched), --cache-size (cache gc shrinks to it), --json, -q, --jobs, -v, and the
# --opt=VALUE form; a command option's value that looks like a global option stays the
# command's (export -o -q writes into a directory named '-q').
. "$(dirname "$0")/lib.sh"
it_init "$@"
RUN=24205988455-linux
# the default cache would be here: nothing may appear in it
export HOME=$T/home XDG_CACHE_HOME=$T/home/.cache
mkdir -p "$HOME"
cd "$T"

# ---- --cache and --json, in every position: the same output, the cache named used ----
n=0
for form in "--cache c1 --json ls $STORE" "ls $STORE --cache c2 --json" "--json ls --cache=c3 $STORE" \
	"ls --json $STORE --cache c4"; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	"$ROCKPACK" $form >"ls$n.json" 2>"ls$n.err" || fail "rockpack $form: exit $?: $(cat "ls$n.err")"
	python3 -m json.tool "ls$n.json" >/dev/null 2>&1 || fail "rockpack $form: not JSON: $(head -c 200 "ls$n.json")"
	[ -d "c$n" ] || fail "rockpack $form: the cache 'c$n' was not used"
	[ "$n" = 1 ] || cmp -s ls1.json "ls$n.json" || fail "rockpack $form: other output than with the options first"
done
[ ! -e "$XDG_CACHE_HOME/rockfs" ] || fail "the default cache was created although --cache was given"

# ---- --json before the command == after, for a run ----
"$ROCKPACK" --cache c1 --json ls "$STORE" $RUN >run1.json || fail "ls RUN with --json first"
"$ROCKPACK" ls "$STORE" $RUN --cache c1 --json >run2.json || fail "ls RUN with --json last"
cmp -s run1.json run2.json || fail "ls RUN --json: the position of the options changes the output"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); sys.exit(j["run"] != sys.argv[2])' run1.json $RUN ||
	fail "ls RUN --json: not the run's JSON"

# ---- -q before or after: no summary; without it, one ----
"$ROCKPACK" --cache c1 export "$STORE" $RUN dist/gfx1100 -o e0 2>e0.err || fail "export: exit $?"
grep -q '^export: [0-9]* files' e0.err || fail "export without -q: no summary line: $(cat e0.err)"
"$ROCKPACK" -q --cache c1 export "$STORE" $RUN dist/gfx1100 -o e1 2>e1.err || fail "-q export: exit $?"
"$ROCKPACK" --cache c1 export "$STORE" $RUN dist/gfx1100 -o e2 -q 2>e2.err || fail "export -q: exit $?"
"$ROCKPACK" export "$STORE" $RUN dist/gfx1100 --quiet -o e3 --cache=c1 2>e3.err || fail "export --quiet: exit $?"
for i in 1 2 3; do
	[ ! -s "e$i.err" ] || fail "export with -q (form $i) wrote to stderr: $(cat "e$i.err")"
	diff -r e0 "e$i" >/dev/null || fail "export with -q (form $i) wrote other files"
done

# ---- --json after a long command: the summary object on stdout, nothing on stderr ----
"$ROCKPACK" export "$STORE" $RUN dist/gfx1100 -o e4 --json -q --cache c1 >e4.json 2>e4.err ||
	fail "export --json -q: exit $?"
[ ! -s e4.err ] || fail "export --json -q wrote to stderr: $(cat e4.err)"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); sys.exit(not (j["command"] == "export" and j["output"] == "e4" and j["files"] > 0))' e4.json ||
	fail "export --json: $(cat e4.json)"

# ---- a command option's value is the command's, even when it looks like a global ----
"$ROCKPACK" --cache c1 -q export "$STORE" $RUN dist/gfx1100 -o -q 2>eq.err || fail "export -o -q: exit $?: $(cat eq.err)"
[ -d ./-q ] && diff -r e0 ./-q >/dev/null || fail "export -o -q did not write into the directory '-q'"

# ---- --jobs and -v anywhere ----
for form in "--jobs 2 prefetch $STORE $RUN" "prefetch $STORE $RUN --jobs 1" "prefetch $STORE $RUN --jobs=3 -v"; do
	rm -rf cj
	# shellcheck disable=SC2086
	"$ROCKPACK" --cache cj $form >/dev/null 2>pj.err || fail "rockpack $form: exit $?: $(cat pj.err)"
	[ "$(it_stats "$T/cj" indexes)" = "$(it_artifacts "$STORE/$RUN" | wc -l)" ] ||
		fail "rockpack $form: did not prefetch every artifact"
done

# ---- --cache-size after the command: cache gc shrinks to it ----
"$ROCKPACK" --cache c1 -q prefetch "$STORE" $RUN || fail "prefetch into c1"
before=$(it_stats "$T/c1" blob_bytes)
[ "$before" -gt 4096 ] || fail "control: the cache holds only $before bytes"
"$ROCKPACK" cache gc --cache c1 --cache-size 4K >gc.out || fail "cache gc --cache-size 4K (after the command): exit $?"
after=$(it_stats "$T/c1" blob_bytes)
[ "$after" -le 4096 ] || fail "cache gc --cache-size 4K after the command left $after bytes (before: $before)"

[ ! -e "$XDG_CACHE_HOME/rockfs" ] || fail "the default cache was created although --cache was given"
it_finish
