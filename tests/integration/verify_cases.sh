#!/usr/bin/env bash
# verify_cases: rockpack verify (rocm-kpack's verify_artifacts, docs/kpack.md) on small
# hand-made cases, with the messages and exit codes of rockpack(1):
#  - no false positive on our own split of a small fat binary (one TU, one gfx942 code
#    object, .hip_fatbin aligned 1, 16 or 4096), split by rockpack split from a store
#    and by rockpack kpack split;
#  - a fat (unsplit) binary is found in a generic artifact, also in one that has no
#    artifact_manifest.txt (verify_artifacts globs the whole directory);
#  - exit 0 and nothing on stdout when all is well (-q: nothing on stderr either); exit
#    1 with one line per problem on stdout and one "rockpack: verify DIR: ..." line on
#    stderr; exit 1 for a missing or empty DIR; exit 2 for usage errors.
# The small binaries are built with cc from the demo generator's bundle code (mkdemo.py).
. "$(dirname "$0")/lib.sh"
it_init "$@"
command -v cc >/dev/null || skip "cc is not installed"
command -v readelf >/dev/null || skip "readelf is not installed"
DEMO=$(realpath "$(dirname "$0")/../demo")

small() { # OUT ALIGN: a shared library with one fat TU (gfx942)
	python3 - "$DEMO" "$1" "$2" <<'PY'
import sys, tempfile
sys.path.insert(0, sys.argv[1])
import mkdemo as d
out, align = sys.argv[2], int(sys.argv[3])
bundle = d.plain_bundle([(d.HOST_BUNDLE_ID, b"")] +
                        [(d.DEVICE_BUNDLE_PREFIX + "gfx942", d.code_object("gfx942", "k_small"))],
                        align=max(align, 8))
src = ("static const unsigned char __hip_fatbin[%d]\n"
       "    __attribute__((section(\".hip_fatbin\"), aligned(%d), used)) = {\n%s\n};\n"
       "%s = {0x%08Xu, 1u, __hip_fatbin, 0};\n"
       "int small_launch(int x) { return x + 1; }\n"
       % (len(bundle), align, d.c_array(bundle), d.WRAPPER_DECL, d.HIPF_MAGIC))
data = d.HostCompiler(tempfile.mkdtemp()).build("shared", "libsmall.so.1", [("small.c", src)],
                                                soname="libsmall.so.1")
open(out, "wb").write(data)
PY
}

verify_ok() { # DIR WHAT
	"$ROCKPACK" -q verify "$1" >"$T/v.out" 2>"$T/v.err" || { fail "$2: verify failed"; cat "$T/v.out" "$T/v.err" >&2; return; }
	[ ! -s "$T/v.out" ] || { fail "$2: verify printed problems"; cat "$T/v.out" >&2; }
	[ ! -s "$T/v.err" ] || { fail "$2: verify -q printed on stderr"; cat "$T/v.err" >&2; }
}

verify_bad() { # DIR WHAT PATTERN...: exit 1, each pattern on stdout, one rockpack: line
	local dir=$1 what=$2 rc=0
	shift 2
	"$ROCKPACK" -q verify "$dir" >"$T/v.out" 2>"$T/v.err" || rc=$?
	[ "$rc" = 1 ] || fail "$what: verify exited $rc, want 1"
	for p in "$@"; do
		grep -q -- "$p" "$T/v.out" || { fail "$what: no '$p' in verify's output"; cat "$T/v.out" >&2; }
	done
	[ "$(wc -l <"$T/v.err")" = 1 ] && grep -q "^rockpack: verify $dir: .*problems$" "$T/v.err" ||
		{ fail "$what: want one 'rockpack: verify DIR: ... problems' line on stderr"; cat "$T/v.err" >&2; }
}

# ---- our own split of small fat binaries: no false positive ----
for al in 1 16 4096; do
	small "$T/small$al.so" "$al"
	readelf -SW "$T/small$al.so" | grep -q 'hip_fatbin.*PROGBITS' || die "small$al.so has no .hip_fatbin"
	a=$T/art$al
	mkdir -p "$a/p/stage/lib" "$T/store$al/1-linux"
	cp "$T/small$al.so" "$a/p/stage/lib/libsmall.so.1"
	ln -s libsmall.so.1 "$a/p/stage/lib/libsmall.so"
	echo p/stage >"$a/artifact_manifest.txt"
	tar -C "$a" -cf - artifact_manifest.txt p | zstd -q -o "$T/store$al/1-linux/small_lib_gfx94X-dcgpu.tar.zst"
	for c in zstd none; do
		"$ROCKPACK" --cache "$T/c" -q split "$T/store$al" 1-linux -o "$T/split$al-$c" --compression "$c" ||
			{ fail "split of small$al.so ($c)"; continue; }
		[ "$(ls "$T/split$al-$c" | tr '\n' ' ')" = "small_lib_generic small_lib_gfx942 " ] ||
			fail "split of small$al.so wrote '$(ls "$T/split$al-$c" | tr '\n' ' ')'"
		readelf -SW "$T/split$al-$c/small_lib_generic/p/stage/lib/libsmall.so.1" | grep -q 'hip_fatbin.*NOBITS' ||
			fail "small$al.so was not split"
		verify_ok "$T/split$al-$c" "rockpack split of small$al.so ($c)"
	done
	# rockpack kpack split of the file, laid out as the two artifacts
	k=$T/k$al
	"$ROCKPACK" -q kpack split "$T/small$al.so" -o "$k" --group small_lib --path libsmall.so.1 ||
		{ fail "kpack split of small$al.so"; continue; }
	mkdir -p "$T/ks$al/small_lib_generic/p/stage/lib" "$T/ks$al/small_lib_gfx942/p/stage/lib"
	cp "$k/libsmall.so.1" "$T/ks$al/small_lib_generic/p/stage/lib/"
	cp -r "$k/.kpack" "$T/ks$al/small_lib_gfx942/p/stage/lib/"
	echo p/stage >"$T/ks$al/small_lib_generic/artifact_manifest.txt"
	echo p/stage >"$T/ks$al/small_lib_gfx942/artifact_manifest.txt"
	verify_ok "$T/ks$al" "kpack split of small$al.so"
done

# ---- a fat binary in a generic artifact, with and without a manifest ----
mkdir -p "$T/fat/small_lib_generic/p/stage/lib"
cp "$T/small16.so" "$T/fat/small_lib_generic/p/stage/lib/libsmall.so.1"
echo p/stage >"$T/fat/small_lib_generic/artifact_manifest.txt"
verify_bad "$T/fat" "fat binary" "libsmall.so.1: fat binary in a generic artifact"
rm "$T/fat/small_lib_generic/artifact_manifest.txt"
verify_bad "$T/fat" "fat binary, no manifest" "small_lib_generic: no artifact_manifest.txt" \
	"libsmall.so.1: fat binary in a generic artifact"
# a split binary in an artifact without a manifest: only the manifest is missing
cp -a "$T/split16-none" "$T/nomanifest"
rm "$T/nomanifest/small_lib_generic/artifact_manifest.txt"
verify_bad "$T/nomanifest" "split, no manifest" "small_lib_generic: no artifact_manifest.txt"
[ "$(wc -l <"$T/v.out")" = 1 ] || { fail "split, no manifest: want one problem"; cat "$T/v.out" >&2; }

# ---- exit codes ----
rc=0; "$ROCKPACK" verify "$T/split16-none" >/dev/null 2>"$T/v.err" || rc=$?
[ "$rc" = 0 ] || fail "verify of a good tree exited $rc"
grep -q '^verify: 2 artifacts, 1 split binaries, 1 .kpack archives, 1 code objects: 0 problems$' "$T/v.err" ||
	{ fail "verify's summary line"; cat "$T/v.err" >&2; }
mkdir -p "$T/empty"
for args in "" "$T/empty $T/empty" "--bogus $T/empty"; do
	rc=0; "$ROCKPACK" verify $args >/dev/null 2>"$T/v.err" || rc=$?
	[ "$rc" = 2 ] || fail "verify $args exited $rc, want 2 (usage)"
	grep -q "^rockpack: .*(see 'rockpack verify --help')$" "$T/v.err" || fail "verify $args: '$(cat "$T/v.err")'"
done
for d in "$T/empty" "$T/nosuch"; do
	rc=0; "$ROCKPACK" verify "$d" >/dev/null 2>"$T/v.err" || rc=$?
	[ "$rc" = 1 ] || fail "verify $d exited $rc, want 1"
	grep -q "^rockpack: $d: " "$T/v.err" || fail "verify $d: '$(cat "$T/v.err")'"
done
it_finish
