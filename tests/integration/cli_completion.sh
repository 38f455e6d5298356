#!/usr/bin/env bash
# cli_completion: packaging/completions/rockpack (bash) sourced in a fresh bash: it
# registers `complete -F _rockpack rockpack`; called with COMP_WORDS it completes the
# commands, each command's options, --type values, the store's run ids (what
# `rockpack ls STORE --json` lists) and view paths under a run, which must be what the
# mount shows there (ls -p of the real mount), with the --cache given on the line used
# and nothing written to the terminal. packaging/completions/_rockpack (zsh) is valid zsh
# (zsh -n), loads under compinit and completes commands, options, run ids and view paths
# in a real interactive zsh (zsh/zpty), when zsh is installed.
. "$(dirname "$0")/lib.sh"
it_init "$@"
SRC=$(realpath "$(dirname "$0")/../../packaging/completions")
RUN=24205988455-linux
export HOME=$T/home XDG_CACHE_HOME=$T/home/.cache
mkdir -p "$HOME" "$T/bin"
ln -s "$ROCKPACK" "$T/bin/rockpack"

# comp WORDS...: what _rockpack offers for the last word, one a line, sorted
comp() {
	PATH=$T/bin:$PATH bash --norc --noprofile -c '
		. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_rockpack rockpack "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"' comp "$SRC/rockpack" "$@" 2>"$T/comp.err" | sed '/^$/d' | sort
	[ ! -s "$T/comp.err" ] || fail "completing '$*' wrote to stderr: $(cat "$T/comp.err")"
}
# want NAME GOT WANT...: the completions are exactly WANT
want() {
	local name=$1 got=$2
	shift 2
	printf '%s\n' "$@" | sed '/^$/d' | sort >"$T/want"
	printf '%s\n' "$got" | sed '/^$/d' >"$T/got"
	it_same "completion: $name" "$T/want" "$T/got"
}

reg=$(bash --norc --noprofile -c '. "$1"; complete -p rockpack' x "$SRC/rockpack") ||
	fail "the bash completion does not source"
[ "$reg" = "complete -F _rockpack rockpack" ] || fail "complete -p rockpack: '$reg'"

# commands: every one `rockpack --help` lists, and help
cmds=$("$ROCKPACK" --help | sed -n 's/^  \([a-z]\+\)  .*/\1/p')
# shellcheck disable=SC2086
want "commands" "$(comp rockpack '')" $cmds help
want "commands 'ex'" "$(comp rockpack ex)" export
want "commands after a global option" "$(comp rockpack --cache "$T/c" p)" prefetch packages
want "help COMMAND" "$(comp rockpack help sp)" split
# options per command
got=$(comp rockpack packages "$STORE" $RUN --)
for o in --type --packages --sign-key --multiarch --strict --cache --json --quiet; do
	grep -qx -- "$o" <<<"$got" || fail "completion: packages --: no $o in: $(tr '\n' ' ' <<<"$got")"
done
got=$(comp rockpack export "$STORE" $RUN -)
grep -qx -- "-o" <<<"$got" || fail "completion: export -: no -o"
grep -qx -- "--type" <<<"$got" && fail "completion: export offers packages' --type"
want "packages --type" "$(comp rockpack packages "$STORE" $RUN --type '')" deb rpm
want "split --compression" "$(comp rockpack split "$STORE" $RUN --compression '')" zstd none
want "cache subcommands" "$(comp rockpack cache '')" stats gc verify refresh

# run ids: what ls --json lists (the cache on the line is used, the default one not)
runs=$("$ROCKPACK" --cache "$T/c0" ls "$STORE" --json | python3 -c 'import json,sys; print("\n".join(r["run"] for r in json.load(sys.stdin)))')
[ "$(wc -l <<<"$runs")" = 2 ] || fail "control: ls --json lists $(wc -l <<<"$runs") runs"
# shellcheck disable=SC2086
want "run ids" "$(comp rockpack --cache "$T/c1" ls "$STORE" '')" $runs
want "run ids, prefix" "$(comp rockpack --cache "$T/c1" export "$STORE" 242059884)" $runs
# shellcheck disable=SC2086
want "run ids, --cache=DIR (bash splits it at '=')" "$(comp rockpack --cache = "$T/c1" export "$STORE" 242059884)" $runs
[ -d "$T/c1" ] || fail "completion did not use the --cache on the line"
[ ! -e "$XDG_CACHE_HOME/rockfs" ] || fail "completion used the default cache although --cache was on the line"

# view paths: what the mount shows
it_mount m "$STORE" "$T/mnt" "$T/cache-mnt"
M=$T/mnt/$RUN
# shellcheck disable=SC2046
want "view paths of the run" "$(comp rockpack --cache "$T/c1" export "$STORE" $RUN '')" $(ls -Ap "$M")
# shellcheck disable=SC2046
want "view paths under dist/" "$(comp rockpack --cache "$T/c1" export "$STORE" $RUN dist/)" $(ls -Ap "$M/dist" | sed 's|^|dist/|')
# shellcheck disable=SC2046
want "view paths dist/gfx110" "$(comp rockpack --cache "$T/c1" export "$STORE" $RUN dist/gfx110)" $(ls -Ap "$M/dist" | grep '^gfx110' | sed 's|^|dist/|')
# shellcheck disable=SC2046
want "cat ARTIFACT" "$(comp rockpack --cache "$T/c1" cat "$STORE" $RUN base_)" $(ls -A "$M/browse" | grep '^base_')
# shellcheck disable=SC2046
want "cat PATH" "$(comp rockpack --cache "$T/c1" cat "$STORE" $RUN base_lib_generic '')" $(ls -Ap "$M/browse/base_lib_generic")
# ---- zsh ----
if command -v zsh >/dev/null; then
	zsh -n "$SRC/_rockpack" 2>"$T/zsh.err" || fail "zsh -n _rockpack: $(cat "$T/zsh.err")"
	head -n 1 "$SRC/_rockpack" | grep -qx '#compdef rockpack' || fail "_rockpack: no '#compdef rockpack' first line"
	# compinit finds it on fpath and binds it to rockpack
	out=$(HOME=$T/home zsh -f -c 'fpath=("$1" $fpath); autoload -Uz compinit; compinit -u -d "$HOME/.zcompdump"; print -r -- ${_comps[rockpack]}' x "$SRC" 2>&1) ||
		fail "zsh compinit with _rockpack: $out"
	[ "$out" = "_rockpack" ] || fail "zsh: compinit binds rockpack to '$out', want _rockpack"
	# and it completes: each line typed into an interactive zsh (zsh/zpty), then Tab; the
	# completed line is printed by the same shell (Ctrl-A, "print -r -- GOT: ", Ctrl-E)
	cat >"$T/zcomp.zsh" <<'ZSH'
zmodload zsh/zpty
fdir=$1 bdir=$2; shift 2
zpty -b z "zsh -f -i"
zpty -w z "PS1='%% '; PATH=$bdir:\$PATH; fpath=($fdir \$fpath); autoload -Uz compinit; compinit -u -d \$HOME/.zcd; bindkey -e; bindkey '^I' complete-word; setopt nobeep"
for line in "$@"; do
	zpty -w -n z "$line"$'\t'$'\x01''print -r -- ${:-G}OT: '$'\x05'' ${:-E}ND'$'\n'
	zpty -r z out '*GOT:*END*'
	out=${out##*GOT: }
	print -r -- "${${out%% END*}% }"
done
zpty -d z
ZSH
	Z="rockpack --cache $T/c1"
	cat >"$T/zwant" <<ZW
rockpack export
rockpack packages --type
$Z ls $STORE $RUN
$Z export $STORE $RUN dist/
$Z export $STORE $RUN dist/gfx1100/
$Z cat $STORE $RUN base_lib_generic
$Z cat $STORE $RUN base_lib_generic artifact_manifest.txt
ZW
	HOME=$T/home timeout 120 zsh -f "$T/zcomp.zsh" "$SRC" "$T/bin" "rockpack ex" "rockpack packages --ty" \
		"$Z ls $STORE ${RUN%linux}l" "$Z export $STORE $RUN dis" "$Z export $STORE $RUN dist/gfx1100" \
		"$Z cat $STORE $RUN base_l" "$Z cat $STORE $RUN base_lib_generic artifact_" 2>&1 |
		tr -d '\r' >"$T/zgot" || fail "zsh completion session: $(cat "$T/zgot")"
	it_same "zsh completions" "$T/zwant" "$T/zgot"
	[ -d "$M/dist/gfx1100" ] && [ -e "$M/browse/base_lib_generic/artifact_manifest.txt" ] ||
		fail "control: the paths zsh completed are not in the mount"
else
	it_say "zsh is not installed: _rockpack not checked"
fi
it_quiet_log m
it_umount m

it_finish
