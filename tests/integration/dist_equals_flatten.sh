#!/usr/bin/env bash
# dist_equals_flatten: every RUN/dist/<X> of both demo runs equals an independent flatten
# (tests/integration/flatten.py, TheRock's algorithm) of the artifacts TheRock's fetch
# filter selects for X, extracted in rockfs's documented order (generic artifacts first,
# then the others, each by name): contents, modes, types, symlink targets, hardlinks.
# Also: which names dist/ shows, rsync out of a dist tree, and a run whose artifacts
# really conflict (the later one wins, and dist/.rockfs/<X>.conflicts lists the path).
. "$(dirname "$0")/lib.sh"
it_init "$@"
FLATTEN=$(dirname "$0")/flatten.py
command -v rsync >/dev/null || skip "rsync is not installed"

M=$T/mnt
it_mount fs "$STORE" "$M" "$T/cache"

declare -A WANT_NAMES=(
	[24205988454-linux]="gfx1100 gfx1101 gfx1102 gfx1103 gfx110X-all gfx942 gfx94X-dcgpu"
	[24205988455-linux]="gfx1100 gfx1101 gfx1102 gfx1103 gfx110X-all gfx942 gfx94X-dcgpu multiarch"
)

# tree fingerprint without mtimes (TheRock's extraction does not keep them)
meta() { (cd "$1" && find . -mindepth 1 \( -type d -printf '%p %m %y\n' \) -o -printf '%p %m %y %l %s\n') | sort; }

for run in 24205988454-linux 24205988455-linux; do
	R=$STORE/$run
	got=$(ls "$M/$run/dist" | tr '\n' ' ')
	[ "$got" = "${WANT_NAMES[$run]} " ] || fail "$run: dist/ shows '$got', want '${WANT_NAMES[$run]}'"
	for x in $(ls "$M/$run/dist"); do
		# a legacy run's per-target trees hold split artifacts (kpack_split.sh)
		[ "$run" = 24205988454-linux ] && [[ $x != *X* ]] && continue
		mapfile -t files < <(it_flatten_inputs "$R" "$x")
		want=$T/flat/$run/$x
		python3 "$FLATTEN" "$want" "${files[@]}"
		got=$M/$run/dist/$x
		if ! diff -r --no-dereference "$want" "$got" >"$T/diff" 2>&1; then
			fail "$run/dist/$x: diff -r"
			head -n 20 "$T/diff" >&2
		fi
		meta "$want" >"$T/want.meta"
		meta "$got" >"$T/got.meta"
		it_same "$run/dist/$x: modes/types/symlinks/sizes" "$T/want.meta" "$T/got.meta"
		it_links "$want" >"$T/want.links"
		it_links "$got" >"$T/got.links"
		it_same "$run/dist/$x: hardlinks" "$T/want.links" "$T/got.links"
		[ -s "$M/$run/dist/.rockfs/$x.conflicts" ] &&
			fail "$run/dist/$x: unexpected conflicts: $(head -3 "$M/$run/dist/.rockfs/$x.conflicts")"
		it_say "$run/dist/$x: ${#files[@]} artifacts, $(find "$got" | wc -l) entries"
	done
	# the kpack-split run flattens .kpack archives of every target side by side
	if [ $run = 24205988455-linux ]; then
		n=$(find "$M/$run/dist/multiarch" -name '*.kpack' | wc -l)
		[ "$n" -ge 6 ] || fail "$run/dist/multiarch: $n .kpack files, want one per target"
	fi
done

# rsync -a out of a dist tree, then a checksum dry run finds nothing to do
D=$M/24205988454-linux/dist/gfx110X-all
rsync -aH "$D/" "$T/rsync/"
out=$(rsync -aHc --dry-run --itemize-changes "$D/" "$T/rsync/")
[ -z "$out" ] || fail "rsync -c --dry-run after rsync -a: $(echo "$out" | head -5)"

# A run whose artifacts really collide: b (later by name) wins, the path is listed.
C=$T/conflict-store/12345-linux
mkdir -p "$C"
python3 - "$C" <<'PY'
import io, os, subprocess, sys, tarfile
out = sys.argv[1]
def artifact(stem, files):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tf:
        for name, data in [("artifact_manifest.txt", b"p/stage\n")] + files:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mtime = 1767225600
            tf.addfile(info, io.BytesIO(data))
    z = subprocess.run(["zstd", "-q", "-c"], input=buf.getvalue(), check=True, capture_output=True)
    with open(os.path.join(out, stem + ".tar.zst"), "wb") as f:
        f.write(z.stdout)
artifact("a_lib_generic", [("p/stage/share/x.txt", b"from a\n"), ("p/stage/share/same.txt", b"same\n")])
artifact("b_lib_generic", [("p/stage/share/x.txt", b"from b\n"), ("p/stage/share/same.txt", b"same\n")])
artifact("c_lib_gfx1100", [("p/stage/lib/k.txt", b"kernels\n")])
PY
it_mount conflict "$T/conflict-store" "$T/cmnt" "$T/ccache"
[ "$(cat "$T/cmnt/12345-linux/dist/gfx1100/share/x.txt")" = "from b" ] ||
	fail "conflict: the later artifact (b) should win"
grep -q $'^share/x.txt\ta_lib_generic\tb_lib_generic' "$T/cmnt/12345-linux/dist/.rockfs/gfx1100.conflicts" ||
	fail "conflict: share/x.txt not listed in .rockfs/gfx1100.conflicts"
grep -q same.txt "$T/cmnt/12345-linux/dist/.rockfs/gfx1100.conflicts" &&
	fail "conflict: identical bytes listed as a conflict"
grep -q "1 paths written by two artifacts" "${IT_LOG[conflict]}" || fail "conflict: no log line"
it_quiet_log fs # the demo itself has no conflicts
it_finish
