#!/usr/bin/env bash
# verify_cases: rockpack verify (rocm-kpack's verify_artifacts, docs/kpack.md) on small
# hand-made cases, with the messages and exit codes of rockpack(1):
#  - no false positive on our own split of small fat binaries (a library and an
#    executable whose .hip_fatbin holds no whole page, so it stays PROGBITS once split,
#    and one that zero-pages), split by rockpack split from a store and by rockpack
#    kpack split;
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

small() { # OUT KIND(so|exe) BUNDLE(none|zstd|zlib) NTU TARGETS ALIGN: a host binary whose
	# NTU translation units each hold one fat bundle for TARGETS in .hip_fatbin
	python3 - "$DEMO" "$@" <<'PY'
import sys, tempfile
sys.path.insert(0, sys.argv[1])
import mkdemo as d
out, kind, ccob, ntu, targets, align = sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6].split(","), int(sys.argv[7])
srcs = []
for i in range(ntu):
    b = d.plain_bundle([(d.HOST_BUNDLE_ID, b"")] +
                       [(d.DEVICE_BUNDLE_PREFIX + t, d.code_object(t, "k%d" % i)) for t in targets], align=8)
    if ccob != "none":
        b = d.ccob(b, 3, ccob)
    srcs.append(("t%d.c" % i,
                 "static const unsigned char __hip_fatbin[%d]\n"
                 "    __attribute__((section(\".hip_fatbin\"), aligned(%d), used)) = {\n%s\n};\n"
                 "%s = {0x%08Xu, 1u, __hip_fatbin, 0};\n"
                 "int f%d(int x) { return x + %d; }\n"
                 % (len(b), align, d.c_array(b),
                    d.WRAPPER_DECL.replace("__hip_fatbin_wrapper", "__hip_fatbin_wrapper%d" % i),
                    d.HIPF_MAGIC, i, i)))
if kind == "exe":
    srcs.append(("main.c", "int main(void) { return 0; }\n"))
data = d.HostCompiler(tempfile.mkdtemp()).build("shared" if kind == "so" else "exe", "x", srcs,
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
# A .hip_fatbin without a whole page stays PROGBITS once split (kpack-format.md 3.4): the
# first two cases are such; the third zero-pages (NOBITS).
progbits=0
i=0
for spec in "so none 1 gfx942 8" "exe zstd 2 gfx942,gfx942:xnack+ 8" "so zlib 3 gfx90a,gfx942 4096"; do
	i=$((i + 1))
	set -- $spec
	small "$T/small$i" $spec
	readelf -SW "$T/small$i" | grep -q 'hip_fatbin.*PROGBITS' || die "small$i has no .hip_fatbin"
	a=$T/art$i
	f=lib/libsmall.so.1
	[ "$1" = so ] || f=bin/small
	mkdir -p "$a/p/stage/lib" "$a/p/stage/bin" "$T/store$i/1-linux"
	cp "$T/small$i" "$a/p/stage/$f"
	[ "$1" = exe ] || ln -s libsmall.so.1 "$a/p/stage/lib/libsmall.so"
	echo p/stage >"$a/artifact_manifest.txt"
	tar -C "$a" -cf - artifact_manifest.txt p | zstd -q -o "$T/store$i/1-linux/small_lib_gfx94X-dcgpu.tar.zst"
	for c in zstd none; do
		o=$T/split$i-$c
		"$ROCKPACK" --cache "$T/c" -q split "$T/store$i" 1-linux -o "$o" --compression "$c" ||
			{ fail "split of small$i ($spec, $c)"; continue; }
		[ -d "$o/small_lib_generic" ] && [ -d "$o/small_lib_gfx942" ] ||
			fail "split of small$i wrote '$(ls "$o" | tr '\n' ' ')'"
		readelf -SW "$o/small_lib_generic/p/stage/$f" >"$T/sections"
		grep -q rocm_kpack_ref "$T/sections" || fail "small$i ($spec) was not split"
		grep -q 'hip_fatbin.*PROGBITS' "$T/sections" && progbits=$((progbits + 1))
		verify_ok "$o" "rockpack split of small$i ($spec, $c)"
	done
	# rockpack kpack split of the file, laid out as the artifacts
	k=$T/k$i
	"$ROCKPACK" -q kpack split "$T/small$i" -o "$k" --group small_lib --path small ||
		{ fail "kpack split of small$i"; continue; }
	mkdir -p "$T/ks$i/small_lib_generic/p/stage/lib"
	cp "$k/small" "$T/ks$i/small_lib_generic/p/stage/lib/"
	echo p/stage >"$T/ks$i/small_lib_generic/artifact_manifest.txt"
	for ar in "$k"/.kpack/*.kpack; do
		x=$(basename "$ar" .kpack)
		x=${x#small_lib_}
		mkdir -p "$T/ks$i/small_lib_$x/p/stage/lib/.kpack"
		cp "$ar" "$T/ks$i/small_lib_$x/p/stage/lib/.kpack/"
		echo p/stage >"$T/ks$i/small_lib_$x/artifact_manifest.txt"
	done
	verify_ok "$T/ks$i" "kpack split of small$i ($spec)"
done
[ "$progbits" = 4 ] || die "want 4 split outputs with a PROGBITS .hip_fatbin, got $progbits"

# ---- a fat binary in a generic artifact, with and without a manifest ----
mkdir -p "$T/fat/small_lib_generic/p/stage/lib"
cp "$T/small1" "$T/fat/small_lib_generic/p/stage/lib/libsmall.so.1"
echo p/stage >"$T/fat/small_lib_generic/artifact_manifest.txt"
verify_bad "$T/fat" "fat binary" "libsmall.so.1: fat binary in a generic artifact"
rm "$T/fat/small_lib_generic/artifact_manifest.txt"
verify_bad "$T/fat" "fat binary, no manifest" "small_lib_generic: no artifact_manifest.txt" \
	"libsmall.so.1: fat binary in a generic artifact"
# a split binary in an artifact without a manifest: only the manifest is missing
cp -a "$T/split1-none" "$T/nomanifest"
rm "$T/nomanifest/small_lib_generic/artifact_manifest.txt"
verify_bad "$T/nomanifest" "split, no manifest" "small_lib_generic: no artifact_manifest.txt"
[ "$(wc -l <"$T/v.out")" = 1 ] || { fail "split, no manifest: want one problem"; cat "$T/v.out" >&2; }

# ---- exit codes ----
rc=0; "$ROCKPACK" verify "$T/split1-none" >/dev/null 2>"$T/v.err" || rc=$?
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
