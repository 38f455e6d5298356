#!/usr/bin/env bash
# cli_progress: the long commands (export, split, wheels, packages, prefetch) show their
# progress on stderr when it is a terminal (a real pseudo-terminal, python3's pty): a
# line redrawn in place with \r, bytes and files (artifacts) done, the rate, and for
# prefetch the percentage, N/N and the ETA; its last state is the real total and the
# summary follows on its own line. Not when stderr is a pipe or a file (no \r, no escape
# sequence, the summary only), nothing at all with -q. --json prints one object on stdout
# whose files, bytes and output are what was written (counted with find and stat).
. "$(dirname "$0")/lib.sh"
it_init "$@"
RUN=24205988455-linux
LEGACY=24205988454-linux
cd "$T"

# ptyrun OUT ERR CMD...: CMD with stderr on a new pseudo-terminal (stdout to OUT, stdin
# /dev/null); what the terminal received goes to ERR; exit status of CMD
cat >ptyrun.py <<'PY'
import os, pty, subprocess, sys
out, err, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
master, slave = pty.openpty()
with open(out, "wb") as o:
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=o, stderr=slave)
os.close(slave)
data = b""
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:  # EIO: every writer closed the terminal
        break
    if not chunk:
        break
    data += chunk
open(err, "wb").write(data)
sys.exit(p.wait())
PY
ptyrun() { python3 ptyrun.py "$@"; }

# files_bytes DIR: "<distinct regular files> <their bytes>" (hardlinks counted once)
files_bytes() {
	find "$1" -type f -printf '%i %s\n' | sort -u | awk '{n++; b += $2} END {print n+0, b+0}'
}

# check_tty NAME UNIT ERR: the terminal got progress lines and then the summary
check_tty() {
	local name=$1 unit=$2 err=$3
	grep -q $'\r' "$err" || fail "$name on a terminal: no progress line (no \\r): $(head -c 300 "$err" | cat -v)"
	tr '\r' '\n' <"$err" | grep -qE "^ *[0-9.]+ (B|KiB|MiB|GiB)( / [0-9.]+ (B|KiB|MiB|GiB) +[0-9]+%)? +[0-9]+(/[0-9]+)? $unit +[0-9.]+ (B|KiB|MiB|GiB)/s" ||
		fail "$name on a terminal: no 'BYTES  N $unit  RATE/s' progress line: $(tr '\r' '\n' <"$err" | cat -v | head -5)"
	tail -n 1 "$err" | grep -qE "^$name: " || fail "$name on a terminal: the summary is not the last line: $(tail -n 2 "$err" | cat -v)"
}

# check_plain NAME ERR: a pipe or a file gets the summary only
check_plain() {
	local name=$1 err=$2
	if grep -q $'\r' "$err" || grep -q $'\033' "$err"; then
		fail "$name, stderr not a terminal: progress (\\r or escapes) was written: $(cat -v "$err" | head -3)"
	fi
	# (a note, such as packages' definitions of another TheRock commit, is not progress)
	[ "$(grep -vc '^rockpack: note: ' "$err")" = 1 ] && grep -qE "^$name: " "$err" ||
		fail "$name, stderr not a terminal: want the summary line only, got: $(cat -v "$err")"
}

# check_json NAME JSON DIR UNIT: one object, whose counts are what DIR holds
check_json() {
	local name=$1 json=$2 dir=$3 unit=$4 fb
	fb=$(files_bytes "$dir")
	python3 - "$json" "$name" "$dir" "$unit" $fb <<'PY' >check.out 2>&1 || fail "$name --json: $(cat check.out): $(cat "$json")"
import json, sys
path, name, out, unit, files, nbytes = sys.argv[1:7]
lines = [l for l in open(path) if l.strip()]
assert len(lines) == 1, "want one line, got %d" % len(lines)
j = json.loads(lines[0])
assert j["command"] == name, j
assert j["output"] == out, "output %r" % j["output"]
assert j[unit] == int(files), "%s %r, find counts %s" % (unit, j[unit], files)
assert j["bytes"] == int(nbytes), "bytes %r, stat sums %s" % (j["bytes"], nbytes)
assert isinstance(j["seconds"], (int, float)) and j["seconds"] >= 0, j
PY
}

# ---- the commands that write files ----
runs=(
	"export|export $STORE $RUN dist/gfx1100"
	"split|split $STORE $LEGACY blas_lib"
	"wheels|wheels $STORE $RUN --index"
	"packages|packages $STORE $RUN --type deb"
)
for r in "${runs[@]}"; do
	name=${r%%|*}
	args=${r#*|}
	# on a terminal
	rc=0
	# shellcheck disable=SC2086
	ptyrun "$name.tty.out" "$name.tty.err" "$ROCKPACK" --cache "c-$name" $args -o "$name-tty" || rc=$?
	[ "$rc" = 0 ] || fail "$name on a terminal: exit $rc: $(cat -v "$name.tty.err")"
	check_tty "$name" files "$name.tty.err"
	[ ! -s "$name.tty.out" ] || fail "$name on a terminal wrote to stdout"
	# the last progress state is the whole work: the files the summary counts
	last=$(tr '\r' '\n' <"$name.tty.err" | grep -E ' files ' | tail -n 1 | grep -oE '[0-9]+ files')
	sum=$(tail -n 1 "$name.tty.err" | grep -oE '^[a-z]+: [0-9]+ files' | grep -oE '[0-9]+ files')
	[ -n "$last" ] && [ "$last" = "$sum" ] || fail "$name: the last progress line says '$last', the summary '$sum'"
	# stderr a pipe
	rc=0
	# shellcheck disable=SC2086
	"$ROCKPACK" --cache "c-$name" $args -o "$name-pipe" 2>&1 >"$name.pipe.out" | cat >"$name.pipe.err" || rc=$?
	[ "$rc" = 0 ] || fail "$name, stderr a pipe: exit $rc"
	check_plain "$name" "$name.pipe.err"
	# stderr a file
	# shellcheck disable=SC2086
	"$ROCKPACK" --cache "c-$name" $args -o "$name-file" 2>"$name.file.err" >/dev/null || fail "$name, stderr a file: exit $?"
	check_plain "$name" "$name.file.err"
	# -q on a terminal: nothing
	# shellcheck disable=SC2086
	ptyrun "$name.q.out" "$name.q.err" "$ROCKPACK" -q --cache "c-$name" $args -o "$name-q" ||
		fail "$name -q on a terminal: exit $?"
	[ ! -s "$name.q.err" ] || fail "$name -q on a terminal wrote: $(cat -v "$name.q.err" | head -3)"
	# --json: the summary object on stdout counts what was written; the terminal still
	# gets the progress, not the text summary
	# shellcheck disable=SC2086
	ptyrun "$name.json" "$name.json.err" "$ROCKPACK" --cache "c-$name" $args -o "$name-json" --json ||
		fail "$name --json: exit $?"
	check_json "$name" "$name.json" "$name-json" files
	grep -qE "^$name: " "$name.json.err" && fail "$name --json also printed the text summary"
	# every way wrote the same tree
	for d in pipe file q json; do
		diff -r "$name-tty" "$name-$d" >/dev/null || fail "$name: the $d run wrote another tree than the terminal run"
	done
done

# ---- prefetch: the total is known: percentage, N/N artifacts, ETA ----
n=$(it_artifacts "$STORE/$LEGACY" | wc -l)
ptyrun pf.out pf.err "$ROCKPACK" --cache c-pf prefetch "$STORE" $LEGACY || fail "prefetch on a terminal: exit $?"
tr '\r' '\n' <pf.err | grep -qE "^ *[0-9.]+ (B|KiB|MiB) / [0-9.]+ (B|KiB|MiB) +[0-9]+%  [0-9]+/$n artifacts  [0-9.]+ (B|KiB|MiB|GiB)/s  ETA [0-9]+:[0-9]{2}" ||
	fail "prefetch on a terminal: no 'DONE / TOTAL  P%  i/$n artifacts  RATE/s  ETA m:ss' line: $(tr '\r' '\n' <pf.err | cat -v | head -4)"
tr '\r' '\n' <pf.err | grep -E 'artifacts' | tail -n 1 | grep -qE "100%  $n/$n artifacts" ||
	fail "prefetch on a terminal: the last progress state is not 100% $n/$n: $(tr '\r' '\n' <pf.err | cat -v | tail -3)"
tail -n 1 pf.err | grep -qE "^prefetch: $n decompressed, 0 already cached, 0 failed" ||
	fail "prefetch on a terminal: summary: $(tail -n 1 pf.err | cat -v)"
"$ROCKPACK" --cache c-pf2 prefetch "$STORE" $LEGACY 2>pf2.err | cat || fail "prefetch, stderr a file: exit $?"
check_plain prefetch pf2.err
ptyrun pfq.out pfq.err "$ROCKPACK" -q --cache c-pf3 prefetch "$STORE" $LEGACY || fail "prefetch -q: exit $?"
[ ! -s pfq.err ] || fail "prefetch -q on a terminal wrote: $(cat -v pfq.err | head -3)"
"$ROCKPACK" --cache c-pf4 prefetch "$STORE" $LEGACY --json -q >pf.json || fail "prefetch --json: exit $?"
python3 - pf.json "$n" "$T/c-pf4" "$(it_artifacts "$STORE/$LEGACY" | awk '{print $2}' | sed "s|^|$STORE/$LEGACY/|" | xargs stat -c %s | awk '{b+=$1} END {print b}')" <<'PY' >check.out 2>&1 ||
import json, os, sys
j = json.load(open(sys.argv[1]))
n, cache, nbytes = int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
assert j["command"] == "prefetch", j
assert j["artifacts"] == n and j["decompressed"] == n and j["cached"] == 0 and j["failed"] == 0, j
assert os.path.realpath(j["output"]) == os.path.realpath(cache), j
assert j["bytes"] == nbytes, "bytes %r, the archives are %d" % (j["bytes"], nbytes)
PY
	fail "prefetch --json: $(cat check.out)"

it_finish
