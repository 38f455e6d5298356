#!/usr/bin/env bash
# split_manifest: the artifact manifests rockpack split writes, and -o DIR with missing
# parents (rocm-kpack's split_artifacts and recombine_artifacts, kpack-format.md 4.1-4.3):
#  - <P>_generic/artifact_manifest.txt lists the prefixes split_artifacts processed:
#    those of the input manifest that have a directory in the artifact
#    (read_artifact_manifest skips the others), in manifest order. The demo's blas_lib
#    declares math-libs/BLAS/hipBLAS-common/stage and ships nothing under it;
#  - an arch output lists the prefixes it has content under, sorted;
#  - split -o and recombine -o create the missing parents of DIR
#    (output_dir.mkdir(parents=True)).
# The expected manifests come from the stored tarballs, read here with tar and python.
. "$(dirname "$0")/lib.sh"
it_init "$@"
L=24205988454-linux

# what split_artifacts would list: the input manifest's prefixes that exist
python3 - "$STORE/$L/blas_lib_gfx94X-dcgpu.tar.zst" >"$T/want.generic" <<'EOF'
import subprocess, sys, tarfile, io
raw = subprocess.run(["zstd", "-q", "-dc", sys.argv[1]], check=True, capture_output=True).stdout
t = tarfile.open(fileobj=io.BytesIO(raw))
names = [m.name.rstrip("/") for m in t.getmembers()]
man = t.extractfile("artifact_manifest.txt").read().decode().split("\n")
for p in (l.strip() for l in man):
    if p and any(n == p or n.startswith(p + "/") for n in names):
        print(p)
EOF
grep -q . "$T/want.generic" || die "no prefix found in the stored blas_lib manifest"
grep -qx math-libs/BLAS/hipBLAS-common/stage <(zstd -q -dc "$STORE/$L/blas_lib_gfx94X-dcgpu.tar.zst" |
	tar -xO artifact_manifest.txt) || die "the demo no longer declares an empty prefix"

# ---- split -o with missing parents ----
OUT=$T/new/deeper/split
"$ROCKPACK" --cache "$T/rpcache" -q split "$STORE" "$L" blas_lib rand_lib -o "$OUT" --compression none \
	--targets gfx942 || fail "rockpack split -o with missing parents"
[ -d "$OUT/blas_lib_generic" ] || fail "split -o: $OUT/blas_lib_generic is missing"
diff "$T/want.generic" "$OUT/blas_lib_generic/artifact_manifest.txt" >"$T/diff" ||
	{ fail "blas_lib_generic manifest differs from split_artifacts'"; cat "$T/diff" >&2; }
# every manifest: each arch output's prefixes exist there and are sorted; the generic
# ones are a subsequence of the input manifest with a directory each in the input
for m in "$OUT"/*/artifact_manifest.txt; do
	a=$(basename "$(dirname "$m")")
	[ -s "$m" ] || { fail "$a: empty manifest"; continue; }
	case $a in
	*_generic) ;;
	*)
		sort -c "$m" 2>/dev/null || fail "$a: manifest not sorted"
		while read -r p; do
			[ -d "$OUT/$a/$p" ] || fail "$a: manifest lists '$p', which it does not have"
		done <"$m"
		;;
	esac
done
zstd -q -dc "$STORE/$L/rand_lib_gfx94X-dcgpu.tar.zst" | tar -t >"$T/rand.list"
while read -r p; do
	grep -q "^$p/" "$T/rand.list" || fail "rand_lib_generic lists '$p', not in the artifact"
done <"$OUT/rand_lib_generic/artifact_manifest.txt"

# ---- recombine -o with missing parents ----
mkdir -p "$T/shards"
mv "$OUT" "$T/shards/a"
cat >"$T/cfg.json" <<'EOF'
{"primary_shard": "a",
 "architecture_groups": {"gfx94X": {"display_name": "CDNA3", "architectures": ["gfx942"]}}}
EOF
"$ROCKPACK" -q recombine "$T/shards" --config "$T/cfg.json" -o "$T/r1/r2/combined" ||
	fail "recombine -o with missing parents"
[ "$(ls "$T/r1/r2/combined" 2>/dev/null | tr '\n' ' ')" = "blas_lib_generic blas_lib_gfx94X rand_lib_generic rand_lib_gfx94X " ] ||
	fail "recombine wrote '$(ls "$T/r1/r2/combined" 2>/dev/null | tr '\n' ' ')'"
diff "$T/want.generic" "$T/r1/r2/combined/blas_lib_generic/artifact_manifest.txt" >"$T/diff" ||
	{ fail "recombined blas_lib_generic manifest"; cat "$T/diff" >&2; }
it_finish
