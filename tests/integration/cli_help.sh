#!/usr/bin/env bash
# cli_help: `rockpack --help` lists every command in a screenful (one line each, under 20
# lines in all); `rockpack COMMAND --help`, `COMMAND -h`, `--help COMMAND` and
# `help COMMAND` print that command's usage on stdout, all the same, exit 0, nothing on
# stderr; every option a command's usage names is in the man page (docs/man/rockpack.1.md);
# an unknown command, `help` of one, or no command: one line on stderr, exit 2.
. "$(dirname "$0")/lib.sh"
it_init "$@"
MAN=$(realpath "$(dirname "$0")/../../docs/man/rockpack.1.md")
COMMANDS="ls cat prefetch export install wheels packages split recombine verify kpack cache status release"

rc=0
"$ROCKPACK" --help >"$T/help.out" 2>"$T/help.err" || rc=$?
[ "$rc" = 0 ] || fail "rockpack --help: exit $rc"
[ ! -s "$T/help.err" ] || fail "rockpack --help wrote to stderr: $(cat "$T/help.err")"
n=$(wc -l <"$T/help.out")
[ "$n" -le 20 ] || fail "rockpack --help is $n lines, want a screenful (<= 20)"
head -n 1 "$T/help.out" | grep -q '^usage: rockpack' || fail "rockpack --help: no usage line first"
# the commands it lists are exactly the known ones, one line each
sed -n 's/^  \([a-z]\+\)  .*/\1/p' "$T/help.out" | sort >"$T/listed"
tr ' ' '\n' <<<"$COMMANDS" | sort >"$T/want"
it_same "commands listed by rockpack --help" "$T/want" "$T/listed"
"$ROCKPACK" -h >"$T/h.out" 2>&1 || fail "rockpack -h: exit $?"
cmp -s "$T/help.out" "$T/h.out" || fail "rockpack -h differs from rockpack --help"
"$ROCKPACK" help >"$T/h.out" 2>&1 || fail "rockpack help: exit $?"
cmp -s "$T/help.out" "$T/h.out" || fail "rockpack help differs from rockpack --help"

for c in $COMMANDS; do
	rc=0
	"$ROCKPACK" "$c" --help >"$T/$c.help" 2>"$T/$c.err" || rc=$?
	[ "$rc" = 0 ] || fail "rockpack $c --help: exit $rc"
	[ ! -s "$T/$c.err" ] || fail "rockpack $c --help wrote to stderr: $(cat "$T/$c.err")"
	grep -q "^usage: rockpack $c " "$T/$c.help" || fail "rockpack $c --help: no 'usage: rockpack $c' line"
	[ "$(wc -l <"$T/$c.help")" -ge 3 ] || fail "rockpack $c --help: only $(wc -l <"$T/$c.help") lines"
	for form in "$c -h" "help $c" "--help $c" "-q $c --help"; do
		rc=0
		# shellcheck disable=SC2086
		"$ROCKPACK" $form >"$T/form.out" 2>"$T/form.err" || rc=$?
		[ "$rc" = 0 ] || fail "rockpack $form: exit $rc"
		[ ! -s "$T/form.err" ] || fail "rockpack $form wrote to stderr"
		cmp -s "$T/$c.help" "$T/form.out" || fail "rockpack $form differs from rockpack $c --help"
	done
	# a command's help is not the general help
	cmp -s "$T/$c.help" "$T/help.out" && fail "rockpack $c --help prints the general help"
	# every option it names is documented in the man page
	for opt in $(grep -oE '(^|[ [])--?[a-z][a-z-]*' "$T/$c.help" | tr -d ' [' | sort -u); do
		grep -qF -- "\`$opt" "$MAN" || grep -qE -- "[ \`\[]$opt[] \`=]" "$MAN" ||
			fail "rockpack $c --help names $opt, which docs/man/rockpack.1.md does not"
	done
done

# unknown command: exactly this one line, exit 2, nothing on stdout
for form in "frobnicate" "help frobnicate" "--json frobnicate STORE"; do
	rc=0
	# shellcheck disable=SC2086
	"$ROCKPACK" $form >"$T/bad.out" 2>"$T/bad.err" || rc=$?
	[ "$rc" = 2 ] || fail "rockpack $form: exit $rc, want 2"
	[ ! -s "$T/bad.out" ] || fail "rockpack $form wrote to stdout"
	printf "%s\n" "rockpack: 'frobnicate' is not a rockpack command. See 'rockpack --help'." >"$T/bad.want"
	it_same "rockpack $form: stderr" "$T/bad.want" "$T/bad.err"
done
rc=0
"$ROCKPACK" >"$T/none.out" 2>"$T/none.err" || rc=$?
[ "$rc" = 2 ] || fail "rockpack with no command: exit $rc, want 2"
[ ! -s "$T/none.out" ] || fail "rockpack with no command wrote to stdout"
[ "$(wc -l <"$T/none.err")" = 1 ] && grep -q "rockpack --help" "$T/none.err" ||
	fail "rockpack with no command: want one line with the hint, got: $(cat "$T/none.err")"
"$ROCKPACK" --version | grep -qE '^rockpack [0-9]+\.[0-9]+' || fail "rockpack --version"

it_finish
