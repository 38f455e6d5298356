#!/usr/bin/env bash
# cli: rockpack against the demo store. `ls` (text and --json, checked with
# python3 -m json.tool and against the store), `ls STORE RUN --json` (kpack_split, version,
# artifacts), `cat` gives the mount's bytes, `prefetch` fills the cache so that a mount then
# serves with no decompression at all (proved by garbaging the archives afterwards), and
# bad arguments exit non-zero with a one-line reason.
. "$(dirname "$0")/lib.sh"
it_init "$@"

LEGACY=24205988454-linux
SPLIT=24205988455-linux
VERSION=7.13.0.dev0+abc1234
C=$T/cache
rp() { "$ROCKPACK" --cache "$C" "$@"; }
nart() { it_artifacts "$STORE/$1" | wc -l; }

# ---- ls: runs ----
rp ls "$STORE" >"$T/ls.txt" 2>"$T/ls.err" || fail "ls STORE: $(cat "$T/ls.err")"
[ ! -s "$T/ls.err" ] || fail "ls STORE wrote to stderr: $(cat "$T/ls.err")"
head -n 1 "$T/ls.txt" | grep -qE '^RUN +ARTIFACTS +SIZE +TARGETS' || fail "ls STORE: no header line"
for run in $LEGACY $SPLIT; do
	grep -qE "^$run +$(nart "$run") " "$T/ls.txt" ||
		fail "ls STORE: no line '$run $(nart "$run") ...': $(cat "$T/ls.txt")"
done
[ "$(wc -l <"$T/ls.txt")" = 3 ] || fail "ls STORE: want a header and 2 runs, got $(wc -l <"$T/ls.txt") lines"
rp ls "$STORE" --json >"$T/ls.json" || fail "ls STORE --json failed"
python3 -m json.tool "$T/ls.json" >/dev/null || fail "ls STORE --json is not JSON: $(cat "$T/ls.json")"
python3 - "$T/ls.json" "$STORE" $LEGACY $SPLIT <<'EOF' >"$T/check.out" 2>&1 || fail "ls STORE --json: $(cat "$T/check.out")"
import json, os, re, sys
runs = json.load(open(sys.argv[1]))
store = sys.argv[2]
bad = []
if [r["run"] for r in runs] != sys.argv[3:]:
    bad.append("runs %r, want %r" % ([r["run"] for r in runs], sys.argv[3:]))
for r in runs:
    files = [f for f in os.listdir(os.path.join(store, r["run"]))
             if re.match(r"^[^_]+_[^_]+_[^_]+\.tar\.(zst|xz)$", f)]
    stems = {}
    for f in sorted(files):
        s = re.sub(r"\.tar\.(zst|xz)$", "", f)
        if s not in stems or f.endswith(".zst"):
            stems[s] = f
    if r["artifacts"] != len(stems):
        bad.append("%s: artifacts %d, want %d" % (r["run"], r["artifacts"], len(stems)))
    want_bytes = sum(os.path.getsize(os.path.join(store, r["run"], f)) for f in stems.values())
    if r["bytes"] != want_bytes:
        bad.append("%s: bytes %d, want %d" % (r["run"], r["bytes"], want_bytes))
    want_targets = sorted({s.split("_")[2] for s in stems})
    if sorted(r["targets"]) != want_targets:
        bad.append("%s: targets %r, want %r" % (r["run"], r["targets"], want_targets))
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF

# ---- ls: one run ----
for run in $LEGACY $SPLIT; do
	rp ls "$STORE" "$run" --json >"$T/$run.json" 2>"$T/$run.err" || fail "ls $run --json: $(cat "$T/$run.err")"
	python3 -m json.tool "$T/$run.json" >/dev/null || fail "ls $run --json is not JSON"
	want_split=false
	[ "$run" = $SPLIT ] && want_split=true
	python3 - "$T/$run.json" "$STORE/$run" "$run" "$want_split" "$VERSION" <<'EOF' >"$T/check.out" 2>&1 ||
import json, os, re, sys
j = json.load(open(sys.argv[1]))
rundir, run, want_split, version = sys.argv[2], sys.argv[3], sys.argv[4] == "true", sys.argv[5]
bad = []
if j["run"] != run:
    bad.append("run %r" % j["run"])
if j["kpack_split"] is not want_split:
    bad.append("kpack_split %r, want %r" % (j["kpack_split"], want_split))
m = j.get("manifest") or {}
if m.get("rocm_package_version") != version:
    bad.append("manifest.rocm_package_version %r, want %r" % (m.get("rocm_package_version"), version))
if m.get("flags", {}).get("KPACK_SPLIT_ARTIFACTS") is not want_split:
    bad.append("manifest flags KPACK_SPLIT_ARTIFACTS %r" % m.get("flags", {}).get("KPACK_SPLIT_ARTIFACTS"))
tm = json.load(open(os.path.join(rundir, "manifests/therock_manifest.json")))
if m.get("the_rock_commit") != tm.get("the_rock_commit"):
    bad.append("the_rock_commit %r, want %r" % (m.get("the_rock_commit"), tm.get("the_rock_commit")))
files = sorted(f for f in os.listdir(rundir) if re.match(r"^[^_]+_[^_]+_[^_]+\.tar\.(zst|xz)$", f))
want = {}
for f in files:
    s = re.sub(r"\.tar\.(zst|xz)$", "", f)
    if s not in want or f.endswith(".zst"):
        want[s] = f
got = {"%s_%s_%s" % (a["name"], a["component"], a["target"]): a for a in j["artifacts"]}
if sorted(got) != sorted(want):
    bad.append("artifacts %r, want %r" % (sorted(got), sorted(want)))
for s, a in got.items():
    if s in want:
        if a["file"] != want[s]:
            bad.append("%s: file %r, want %r" % (s, a["file"], want[s]))
        if a["bytes"] != os.path.getsize(os.path.join(rundir, want[s])):
            bad.append("%s: bytes %r" % (s, a["bytes"]))
        if a["sha256sum"] is not os.path.exists(os.path.join(rundir, want[s] + ".sha256sum")):
            bad.append("%s: sha256sum %r" % (s, a["sha256sum"]))
if sorted(j["targets"]) != sorted({s.split("_")[2] for s in want}):
    bad.append("targets %r" % j["targets"])
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF
		fail "ls $run --json: $(cat "$T/check.out")"
	rp ls "$STORE" "$run" >"$T/$run.txt" || fail "ls $run failed"
	grep -qx "version  $VERSION" "$T/$run.txt" || fail "ls $run: no 'version  $VERSION' line"
	if [ "$run" = $SPLIT ]; then
		grep -q '^kpack    split' "$T/$run.txt" || fail "ls $run: not shown as kpack split"
	else
		grep -q '^kpack    legacy' "$T/$run.txt" || fail "ls $run: not shown as legacy"
	fi
	while read -r stem file; do
		grep -qE "^$(sed 's/[.+]/\\&/g' <<<"$stem") .* $(sed 's/[.+]/\\&/g' <<<"$file")\$" "$T/$run.txt" ||
			fail "ls $run: no line for $stem ($file)"
	done < <(it_artifacts "$STORE/$run")
done
# listing is lazy: with the run's manifests/ in the store, nothing was decompressed
[ "$(it_stats "$C" indexes)" = 0 ] || fail "ls decompressed $(it_stats "$C" indexes) archives"

# ---- cat: same bytes as the mount (every file of two artifacts, one per run) ----
it_mount fs "$STORE" "$T/mnt" "$T/cache-mnt"
n=0
for pick in "$LEGACY blas_lib_gfx110X-all" "$SPLIT rand_lib_gfx942:xnack+" "$SPLIT core-hip_dev_generic"; do
	read -r run stem <<<"$pick"
	while IFS= read -r -d '' f; do
		f=${f#./}
		if ! rp cat "$STORE" "$run" "$stem" "$f" >"$T/cat.out" 2>"$T/cat.err"; then
			fail "cat $run $stem $f: $(cat "$T/cat.err")"
		elif ! cmp -s "$T/cat.out" "$T/mnt/$run/browse/$stem/$f"; then
			fail "cat $run $stem $f: differs from the mount"
		fi
		n=$((n + 1))
	done < <(cd "$T/mnt/$run/browse/$stem" && find . -type f -print0)
done
[ "$n" -ge 15 ] || fail "only $n files compared with rockpack cat"
# cat wants a regular file
rp cat "$STORE" $LEGACY blas_lib_gfx110X-all math-libs/BLAS/rocBLAS/stage/lib >/dev/null 2>&1 &&
	fail "cat of a directory succeeded"
it_quiet_log fs
it_umount fs

# ---- prefetch, then a mount that decompresses nothing ----
S=$T/store
mkdir -p "$S"
cp -a "$STORE/$SPLIT" "$S/"
it_extract_run "$S/$SPLIT" "$T/want"
n=$(nart $SPLIT)
C2=$T/cache-prefetch
"$ROCKPACK" --cache "$C2" prefetch "$S" $SPLIT >"$T/pf.out" 2>"$T/pf.err" ||
	fail "prefetch: $(cat "$T/pf.err")"
grep -q "^prefetch: $n decompressed, 0 already cached, 0 failed$" "$T/pf.err" ||
	fail "prefetch summary: $(cat "$T/pf.err")"
[ "$(it_stats "$C2" indexes)" = "$n" ] || fail "prefetch left $(it_stats "$C2" indexes) indexes for $n artifacts"
# every archive becomes garbage of the same size; the sidecars (the cache keys) stay
while read -r _ file; do
	head -c "$(stat -c %s "$S/$SPLIT/$file")" /dev/urandom >"$S/$SPLIT/$file.tmp"
	mv "$S/$SPLIT/$file.tmp" "$S/$SPLIT/$file"
done < <(it_artifacts "$S/$SPLIT")
"$ROCKPACK" --cache "$C2" prefetch "$S" $SPLIT >"$T/pf2.out" 2>"$T/pf2.err" ||
	fail "second prefetch: $(cat "$T/pf2.err")"
grep -q "^prefetch: 0 decompressed, $n already cached, 0 failed$" "$T/pf2.err" ||
	fail "second prefetch summary: $(cat "$T/pf2.err")"
it_mount pf "$S" "$T/mnt2" "$C2"
while read -r stem _; do
	it_cmp_tree "after prefetch, garbage archives: $stem" "$T/want/$stem" "$T/mnt2/$SPLIT/browse/$stem"
done < <(it_artifacts "$S/$SPLIT")
it_quiet_log pf
it_umount pf
# and without a prefetch the garbage is really unreadable (the check above can fail)
"$ROCKPACK" --cache "$T/cache-cold" cat "$S" $SPLIT base_lib_generic artifact_manifest.txt \
	>/dev/null 2>&1 && fail "control: a garbage archive was readable without the cache"

# ---- bad arguments: non-zero exit, nothing on stdout, one line naming the problem ----
# expect_bad 'PATTERN' ARGS...: stderr is exactly one line and matches PATTERN
expect_bad() {
	local pat=$1 rc=0
	shift
	"$ROCKPACK" "$@" >"$T/bad.out" 2>"$T/bad.err" || rc=$?
	if [ "$rc" = 0 ]; then
		fail "rockpack $*: exit 0"
	elif [ -s "$T/bad.out" ]; then
		fail "rockpack $*: wrote to stdout"
	elif [ "$(wc -l <"$T/bad.err")" != 1 ]; then
		fail "rockpack $*: want one line on stderr, got $(wc -l <"$T/bad.err"): $(tr '\n' '|' <"$T/bad.err")"
	elif ! grep -qE "^rockpack: .*$pat" "$T/bad.err"; then
		fail "rockpack $*: message '$(cat "$T/bad.err")' does not match '$pat'"
	fi
}
expect_bad 'usage: rockpack ls' --cache "$C" ls
expect_bad 'usage: rockpack ls' --cache "$C" ls "$STORE" $LEGACY extra more
expect_bad "'/nonexistent.*'.*No such file" --cache "$C" ls /nonexistent-rockfs-store
expect_bad "nosuchrun.*no such" --cache "$C" ls "$STORE" 11111111111-nosuchrun
expect_bad 'usage: rockpack cat' --cache "$C" cat "$STORE" $LEGACY
expect_bad 'nosuch_lib_generic/x.*No such file' --cache "$C" cat "$STORE" $LEGACY nosuch_lib_generic x
expect_bad 'base_lib_generic/nosuch.*No such file' --cache "$C" cat "$STORE" $LEGACY base_lib_generic nosuch
expect_bad 'not a regular file' --cache "$C" cat "$STORE" $LEGACY base_lib_generic base
expect_bad 'several runs' --cache "$C" cat "$STORE" . base_lib_generic artifact_manifest.txt
expect_bad "cache-size 'bogus'" --cache "$C" --cache-size bogus cache stats
expect_bad "jobs '0'" --cache "$C" --jobs 0 ls "$STORE"
expect_bad 'usage: .*cache stats' --cache "$C" cache
expect_bad 'usage: .*cache stats' --cache "$C" cache frobnicate
expect_bad 'cache gc.*--cache-size' --cache "$C" cache gc
expect_bad 'usage: rockpack prefetch' --cache "$C" prefetch "$STORE"
expect_bad "/dev/null/x.*Not a directory" --cache /dev/null/x ls "$STORE"
expect_bad "nosuchrun.*no such" -q --cache "$C" prefetch "$STORE" 11111111111-nosuchrun
rc=0
"$ROCKPACK" --cache "$C" prefetch "$STORE" 11111111111-nosuchrun >/dev/null 2>"$T/bad.err" || rc=$?
if [ "$rc" = 0 ]; then
	fail "prefetch of a missing run: exit 0"
elif [ "$(wc -l <"$T/bad.err")" != 1 ]; then
	bug "'rockpack prefetch STORE <missing run>' prints the 'prefetch: 0 decompressed, ..." \
		"0 failed' summary before its error (tools/cmd_prefetch.c prints it even when the" \
		"run could not be opened): $(tr '\n' '|' <"$T/bad.err")"
fi
# unknown commands and options exit 2 and say what was wrong (integration.cli_exit_codes
# has the whole contract)
for args in "frobnicate" "--bogus ls"; do
	rc=0
	# shellcheck disable=SC2086
	"$ROCKPACK" $args >"$T/bad.out" 2>"$T/bad.err" || rc=$?
	[ "$rc" = 2 ] || fail "rockpack $args: exit $rc, want 2"
	[ ! -s "$T/bad.out" ] || fail "rockpack $args: wrote to stdout"
	grep -E "is not a rockpack command|unrecognized option" "$T/bad.err" | grep -qE "frobnicate|bogus" ||
		fail "rockpack $args: no line saying what is wrong"
done
rc=0
"$ROCKPACK" >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "rockpack with no command: exit $rc, want 2"
"$ROCKPACK" --help | grep -q '^usage: rockpack' || fail "rockpack --help"
"$ROCKPACK" --version | grep -qE '^rockpack [0-9]' || fail "rockpack --version"

it_finish
