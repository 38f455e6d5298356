#!/usr/bin/env bash
# cli_exit_codes: the exit status contract of rockpack(1), command by command: 2 for a
# usage error (unknown command or option, missing or extra argument, option without its
# value or with a bad one), with one line on stderr that names the problem and where to
# look; 1 for a runtime error, with one line; 0 for success; nothing on stdout when it
# fails. The man page's EXIT STATUS says the same.
. "$(dirname "$0")/lib.sh"
it_init "$@"
MAN=$(realpath "$(dirname "$0")/../../docs/man/rockpack.1.md")
RUN=24205988455-linux
C=$T/cache
cd "$T"
mkdir -p out-exists empty
: >afile

# expect CODE 'PATTERN' ARGS...: exit CODE, stdout empty, stderr one line matching PATTERN
# (starting 'rockpack: '; for CODE 2 also naming --help)
expect() {
	local want=$1 pat=$2 rc=0
	shift 2
	"$ROCKPACK" "$@" >"$T/x.out" 2>"$T/x.err" </dev/null || rc=$?
	if [ "$rc" != "$want" ]; then
		fail "rockpack $*: exit $rc, want $want ($(tr '\n' '|' <"$T/x.err"))"
	elif [ -s "$T/x.out" ]; then
		fail "rockpack $*: wrote to stdout: $(head -c 200 "$T/x.out")"
	elif [ "$(wc -l <"$T/x.err")" != 1 ]; then
		fail "rockpack $*: want one line on stderr, got $(wc -l <"$T/x.err"): $(tr '\n' '|' <"$T/x.err")"
	elif ! grep -qE "^rockpack: .*$pat" "$T/x.err"; then
		fail "rockpack $*: '$(cat "$T/x.err")' does not match '$pat'"
	elif [ "$want" = 2 ] && ! grep -q -- "--help" "$T/x.err"; then
		fail "rockpack $*: a usage error without the hint: $(cat "$T/x.err")"
	fi
}

# ---- 2: usage errors ----
expect 2 "not a rockpack command" frobnicate
expect 2 "unrecognized option '--bogus'" --bogus ls "$STORE"
expect 2 "no command" --cache "$C"
expect 2 "option '--cache' needs a value" ls "$STORE" --cache
expect 2 "cache-size 'bogus'" --cache "$C" --cache-size bogus cache stats
expect 2 "cache-size 'bogus'" --cache "$C" cache stats --cache-size=bogus
expect 2 "jobs '0'" --cache "$C" --jobs 0 ls "$STORE"
expect 2 "jobs 'x'" --cache "$C" ls "$STORE" --jobs x
expect 2 "timeout '0'" --cache "$C" --timeout 0 ls "$STORE"
expect 2 "addressing 'sideways'" --cache "$C" --addressing sideways ls "$STORE"
expect 2 "usage: rockpack ls" --cache "$C" ls
expect 2 "usage: rockpack ls" --cache "$C" ls "$STORE" $RUN dist extra
expect 2 "unknown option '--long'" --cache "$C" ls "$STORE" --long
expect 2 "usage: rockpack cat" --cache "$C" cat "$STORE" $RUN
expect 2 "unknown option '-n'" --cache "$C" cat -n "$STORE" $RUN base_lib_generic x
expect 2 "usage: rockpack prefetch" --cache "$C" prefetch "$STORE"
expect 2 "unknown option '--all'" --cache "$C" prefetch "$STORE" $RUN --all
expect 2 "usage: rockpack export" --cache "$C" export "$STORE" $RUN dist/gfx1100
expect 2 "option '-o' needs a value" --cache "$C" export "$STORE" $RUN dist/gfx1100 -o
expect 2 "unknown option '--force'" --cache "$C" export "$STORE" $RUN dist/gfx1100 -o o1 --force
expect 2 "usage: rockpack export" --cache "$C" export "$STORE" $RUN dist/gfx1100 more -o o1
expect 2 "usage: rockpack wheels" --cache "$C" wheels "$STORE" -o o2
expect 2 "unknown option '--sdist'" --cache "$C" wheels "$STORE" $RUN -o o2 --sdist
expect 2 "usage: rockpack packages" --cache "$C" packages "$STORE" $RUN -o o3
expect 2 "type 'apk'" --cache "$C" packages "$STORE" $RUN --type apk -o o3
expect 2 "option '--sign-key' needs a value" --cache "$C" packages "$STORE" $RUN --type deb -o o3 --sign-key
expect 2 "usage: rockpack split" --cache "$C" split "$STORE" -o o4
expect 2 "compression 'lz4'" --cache "$C" split "$STORE" $RUN -o o4 --compression lz4
expect 2 "unknown option '--arch'" --cache "$C" split "$STORE" $RUN -o o4 --arch gfx1100
expect 2 "usage: rockpack recombine" recombine empty -o o5
expect 2 "one SHARDS_DIR" recombine empty empty --config afile -o o5
expect 2 "usage: rockpack verify" verify
expect 2 "usage: rockpack verify" verify empty empty
expect 2 "unknown option '--strict'" verify --strict empty
expect 2 "usage: rockpack kpack" kpack
expect 2 "usage: rockpack kpack" kpack frobnicate afile
expect 2 "usage: rockpack kpack split" kpack split afile
expect 2 "compression 'lz4'" kpack split afile -o o6 --compression lz4
expect 2 "directories are not created here" kpack split afile -o o6 --path a/b
expect 2 "usage: .*cache stats" --cache "$C" cache
expect 2 "usage: .*cache stats" --cache "$C" cache frobnicate
expect 2 "cache gc.*--cache-size" --cache "$C" cache gc
expect 2 "usage: rockpack help" help ls cat
for d in o1 o2 o3 o4 o5 o6; do
	[ ! -e "$d" ] || fail "a usage error still created '$d'"
done

# ---- 1: runtime errors ----
expect 1 "'/nonexistent.*'.*No such file" --cache "$C" ls /nonexistent-rockfs-store
expect 1 "nosuchrun.*no such" --cache "$C" ls "$STORE" 11111111111-nosuchrun
expect 1 "nosuch.*No such file" --cache "$C" ls "$STORE" $RUN nosuch
expect 1 "base_lib_generic/nosuch.*No such file" --cache "$C" cat "$STORE" $RUN base_lib_generic nosuch
expect 1 "not a regular file" --cache "$C" cat "$STORE" $RUN base_lib_generic base
expect 1 "nosuchrun.*no such" --cache "$C" prefetch "$STORE" 11111111111-nosuchrun
expect 1 "nosuchrun.*no such" -q --cache "$C" prefetch "$STORE" 11111111111-nosuchrun
expect 1 "dist/nosuch.*No such file" --cache "$C" export "$STORE" $RUN dist/nosuch -o o7
expect 1 "afile.*(File exists|Not a directory)" --cache "$C" export "$STORE" $RUN dist/gfx1100 -o afile
expect 1 "nosuchrun" --cache "$C" split "$STORE" 11111111111-nosuchrun -o o8
expect 1 "nosuchrun" --cache "$C" wheels "$STORE" 11111111111-nosuchrun -o o9
expect 1 "nosuchrun" --cache "$C" packages "$STORE" 11111111111-nosuchrun --type deb -o o10
expect 1 "nosuch-dir.*No such file" verify nosuch-dir
expect 1 "no artifact directories" verify empty
expect 1 "afile.*not a regular, non-empty file" kpack show afile
expect 1 "/dev/null/x.*Not a directory" --cache /dev/null/x ls "$STORE"
# an empty argument is an argument, never an option (nor the value of one)
expect 1 "several runs" --cache "$C" export "$STORE" "" dist -o o11
# export never overwrites: a second export into the same directory fails (1)
"$ROCKPACK" --cache "$C" -q export "$STORE" $RUN browse/base_lib_generic -o out-exists ||
	fail "export into an empty directory: exit $?"
expect 1 "File exists" --cache "$C" export "$STORE" $RUN browse/base_lib_generic -o out-exists
# -o DIR's missing parents are made (wheels, export, packages alike), and left as they were
# when the command fails
for cmd in "wheels $STORE $RUN" "wheels $STORE $RUN --index" "export $STORE $RUN dist/gfx1100" \
	"packages $STORE $RUN --type deb"; do
	rm -rf new
	# shellcheck disable=SC2086
	"$ROCKPACK" --cache "$C" -q $cmd -o new/a/b 2>"$T/ok.err" ||
		fail "rockpack $cmd -o new/a/b: exit $?: $(cat "$T/ok.err")"
	[ -n "$(ls new/a/b)" ] || fail "rockpack $cmd -o new/a/b wrote nothing"
done
rm -rf new
expect 1 "nosuch" --cache "$C" export "$STORE" $RUN dist/nosuch -o new/a/b
[ ! -e new ] || fail "a failed export left the parents it made"

# ---- 0 ----
for args in "ls $STORE" "ls $STORE $RUN" "ls $STORE $RUN dist" "cache stats" "--version" "help" "ls --help"; do
	rc=0
	# shellcheck disable=SC2086
	"$ROCKPACK" --cache "$C" $args >/dev/null 2>"$T/ok.err" || rc=$?
	[ "$rc" = 0 ] || fail "rockpack $args: exit $rc: $(cat "$T/ok.err")"
done

# ---- the man page says the same ----
grep -A3 '^## EXIT STATUS' "$MAN" | grep -q '`0`' || fail "rockpack.1: EXIT STATUS has no 0"
sed -n '/^## EXIT STATUS/,/^## /p' "$MAN" | tr '\n' ' ' >"$T/es"
grep -qE '`1` : a runtime error' "$T/es" || fail "rockpack.1: EXIT STATUS does not say 1 is a runtime error"
grep -qE '`2` : a usage error' "$T/es" || fail "rockpack.1: EXIT STATUS does not say 2 is a usage error"

it_finish
