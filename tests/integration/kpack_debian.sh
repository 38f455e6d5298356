#!/usr/bin/env bash
# kpack_debian: a real ROCm fat binary, Debian's librocrand1 (rocRAND 5.3, one plain
# bundle with eight gfx targets, features such as xnack- in the ids), split by the mount.
# The package comes from `apt-get download`; without network access the test is skipped.
#  - kpack/ holds rand_lib_generic and one rand_lib_<arch> per bundle entry;
#  - every code object is byte-equal to clang-offload-bundler 15's -unbundle output for
#    its target, each exactly once;
#  - the rewritten library: readelf -a clean, split form checked by kpack_oracle.py;
#  - the runtime's lookup picks the right code object for devices with and without
#    xnack/sramecc;
#  - rockpack split + verify;
#  - rocm-kpack's own split_artifacts (vendored) writes the same tree as rockpack split
#    --compression none (kpack_tree_cmp.py).
. "$(dirname "$0")/lib.sh"
it_init "$@"
ORACLE=$(dirname "$(realpath "$0")")/kpack_oracle.py
BUNDLER=/usr/lib/llvm-15/bin/clang-offload-bundler
[ -x "$BUNDLER" ] || skip "clang-offload-bundler 15 (clang-tools-15) is not installed"
command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null || skip "not a Debian system"

# the package, kept between runs beside the demo store
DEBS=$(dirname "$STORE")/debian-debs
mkdir -p "$DEBS"
if ! ls "$DEBS"/librocrand1_*.deb >/dev/null 2>&1; then
	(cd "$DEBS" && apt-get download librocrand1 >"$T/apt.log" 2>&1) ||
		{ cat "$T/apt.log" >&2; skip "apt-get download librocrand1 failed (offline?)"; }
fi
dpkg-deb -x "$(ls "$DEBS"/librocrand1_*.deb | head -1)" "$T/deb"
LIB=$(find "$T/deb" -name 'librocrand.so.*.*' -type f | head -1)
[ -f "$LIB" ] || die "no librocrand.so in the package"

# a legacy run holding it as rand_lib_gfx90X-dcgpu
R=$T/store/30000000001-linux
mkdir -p "$R"
python3 - "$LIB" "$R/rand_lib_gfx90X-dcgpu.tar.zst" <<'EOF'
import io, subprocess, sys, tarfile
lib, out = sys.argv[1], sys.argv[2]
prefix = "math-libs/rocRAND/stage"
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tf:
    def add(name, data=None, mode=0o644, kind=tarfile.REGTYPE, link=""):
        ti = tarfile.TarInfo(name)
        ti.type, ti.mode, ti.mtime, ti.linkname = kind, mode, 1767225600, link
        ti.size = len(data) if data is not None else 0
        tf.addfile(ti, io.BytesIO(data) if data is not None else None)
    add("artifact_manifest.txt", (prefix + "\n").encode())
    for d in ("math-libs/rocRAND/stage/lib/",):
        add(d, kind=tarfile.DIRTYPE, mode=0o755)
    add(prefix + "/lib/librocrand.so.1.1", open(lib, "rb").read(), 0o755)
    add(prefix + "/lib/librocrand.so.1", kind=tarfile.SYMTYPE, mode=0o777, link="librocrand.so.1.1")
subprocess.run(["zstd", "-q", "-3", "-o", out], input=buf.getvalue(), check=True)
EOF
(cd "$R" && sha256sum rand_lib_gfx90X-dcgpu.tar.zst | cut -d' ' -f1 >rand_lib_gfx90X-dcgpu.tar.zst.sha256sum)

M=$T/mnt
it_mount fs "$T/store" "$M" "$T/cache"
RM=$M/30000000001-linux
BIN=math-libs/rocRAND/stage/lib/librocrand.so.1.1

# the bundler's view of the original
mkdir -p "$T/b"
n=$(python3 "$ORACLE" bundles "$LIB" "$T/b")
[ "$n" -ge 1 ] || fail "no bundle in $LIB"
for ((i = 0; i < n; i++)); do
	for id in $("$BUNDLER" -list -type=o -input="$T/b/$i.bundle"); do
		[[ $id == host-* ]] && continue
		"$BUNDLER" -unbundle -type=o -targets="$id" -input="$T/b/$i.bundle" -output="$T/co"
		echo "$BIN#$i ${id##*--} $(stat -c %s "$T/co") $(sha256sum <"$T/co" | cut -d' ' -f1)"
	done
done | sort >"$T/want.objs"
[ "$(wc -l <"$T/want.objs")" -ge 2 ] || fail "the bundler lists $(wc -l <"$T/want.objs") code objects"
it_say "the bundler lists $(wc -l <"$T/want.objs") code objects"

want=$( (echo rand_lib_generic; awk '{print "rand_lib_" $2}' "$T/want.objs") | sort -u | tr '\n' ' ')
got=$(ls "$RM/kpack" | tr '\n' ' ')
[ "$got" = "$want" ] || fail "kpack/ shows '$got', want '$want'"
find "$RM/kpack" -type f -name '*.kpack' -print0 | xargs -0 -n1 python3 "$ORACLE" kpack |
	grep -v '^scheme ' | sort >"$T/got.objs"
it_same "code objects vs clang-offload-bundler" "$T/want.objs" "$T/got.objs"

G=$RM/kpack/rand_lib_generic/$BIN
readelf -a -W "$G" >"$T/readelf.out" 2>&1 || fail "readelf -a failed"
grep -E '^readelf: (Warning|Error)' "$T/readelf.out" >&2 && fail "readelf -a complains"
python3 "$ORACLE" split-elf "$LIB" "$G" >/dev/null || fail "not the split form of the original"
[ "$(stat -c %s "$G")" -lt $(($(stat -c %s "$LIB") - 10000000)) ] || fail "the split library is not 10 MB smaller"

# the runtime's lookup in one install tree
I=$T/install
mkdir -p "$I"
for a in $(ls "$RM/kpack"); do cp -a "$RM/kpack/$a/math-libs/rocRAND/stage/." "$I/"; done
declare -A DEV=([gfx90a:sramecc+:xnack+]=gfx90a:xnack+ [gfx90a:sramecc-:xnack-]=gfx90a:xnack-
	[gfx906:sramecc+:xnack-]=gfx906:xnack- [gfx1030]=gfx1030 [gfx803]=gfx803)
for dev in "${!DEV[@]}"; do
	w=${DEV[$dev]}
	grep -qF " $w " "$T/want.objs" || continue
	"$ROCKPACK" kpack resolve "$I/lib/librocrand.so.1.1" --arch "$dev" >"$T/res" ||
		{ fail "resolve on $dev"; continue; }
	while read -r i sha size target; do
		wsha=$(grep -F "#$i $w " "$T/want.objs" | awk '{print $4}' || true)
		[ "$sha" = "$wsha" ] || fail "wrapper $i on $dev: got $target, want $w"
	done <"$T/res"
done

"$ROCKPACK" --cache "$T/rpcache" -q split "$T/store" 30000000001-linux -o "$T/split" || fail "rockpack split"
"$ROCKPACK" -q verify "$T/split" >"$T/verify.out" || { fail "verify"; cat "$T/verify.out" >&2; }

# rocm-kpack's own split_artifacts (tests/integration/upstream_kpack/) of the same artifact
# writes what rockpack split --compression none writes (kpack_tree_cmp.py)
HERE=$(dirname "$(realpath "$0")")
if /usr/bin/python3 -c 'import zstandard, msgpack' 2>/dev/null && command -v objcopy >/dev/null; then
	cp -a "$RM/browse/rand_lib_gfx90X-dcgpu" "$T/in" && chmod -R u+w "$T/in" || die "copy"
	mkdir -p "$T/tmp"
	PYTHONPATH=$HERE/upstream_kpack/python:$HERE/py312_compat /usr/bin/python3 -m rocm_kpack.tools.split_artifacts \
		--artifact-dir "$T/in" --output-dir "$T/up" --artifact-prefix rand_lib \
		--clang-offload-bundler "$BUNDLER" --tmp-dir "$T/tmp" >"$T/up.log" 2>&1 ||
		{ fail "upstream's split_artifacts"; tail -n 5 "$T/up.log" >&2; }
	"$ROCKPACK" --cache "$T/rpcache" -q split "$T/store" 30000000001-linux -o "$T/split-none" \
		--compression none || fail "rockpack split --compression none"
	python3 "$HERE/kpack_tree_cmp.py" "$T/up" "$T/split-none" >"$T/cmp.log" 2>&1 ||
		{ fail "rockpack split differs from upstream's split_artifacts"; head -n 20 "$T/cmp.log" >&2; }
else
	fail "rocm-kpack's split needs Debian's python3 with python3-zstandard and python3-msgpack, and objcopy"
fi
it_quiet_log fs
it_umount fs
it_finish
