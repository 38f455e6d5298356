#!/usr/bin/env bash
# kpack_split: RUN/kpack and the per-target dist trees of the legacy demo run, against
# independent oracles (kpack_oracle.py, clang-offload-bundler 15, readelf, python ctypes,
# flatten.py) and against the demo's kpack-split run, which holds what split_artifacts
# makes of the same sources:
#  - kpack/ lists the split artifacts the split run stores, with the same trees;
#  - files other than rewritten binaries and .kpack archives are the artifact's own;
#  - every rewritten host binary: readelf -a clean, NOBITS .hip_fatbin, marker, HIPK
#    wrappers with RELATIVE relocations, fatbin pages cut, dlopen works;
#  - the .kpack code objects are exactly the bundler's code objects of the fat binaries,
#    nothing lost or duplicated, and the same as the split run's archives;
#  - rockpack kpack resolve, the runtime's lookup, finds the right code object for
#    every wrapper and device arch in dist/<target>;
#  - dist/<target> of the legacy run is the flatten of the generic artifacts and the
#    family's split outputs;
#  - -o kpack_compression=zstd serves the split run's archives byte for byte, also after
#    their blobs are evicted and after a remount;
#  - rockpack split writes the mount's trees (--compression none) or the split run's
#    zstd archives byte for byte (default), verify passes (and fails on damage),
#    recombine groups shards; a kpack-split run's kpack/ links its stored artifacts;
#  - a fat binary with a broken bundle is kept unsplit, with one log line.
. "$(dirname "$0")/lib.sh"
it_init "$@"
ORACLE=$(dirname "$(realpath "$0")")/kpack_oracle.py
FLATTEN=$(dirname "$0")/flatten.py
BUNDLER=/usr/lib/llvm-15/bin/clang-offload-bundler
[ -x "$BUNDLER" ] || skip "clang-offload-bundler 15 (clang-tools-15) is not installed"
command -v readelf >/dev/null || skip "readelf is not installed"

M=$T/mnt
it_mount fs "$STORE" "$M" "$T/cache"
L=24205988454-linux S=24205988455-linux
LM=$M/$L

# ---- first access from several readers at once (the split runs once per artifact) ----
for d in kpack dist/gfx942 kpack/rand_lib_gfx942 dist/gfx1101 dist/gfx1100; do
	it_bg sh -c "find '$LM/$d' -type f -exec cat {} + >/dev/null"
done
for p in "${IT_BG[@]}"; do wait "$p" || fail "a concurrent reader failed"; done
for a in blas_lib_gfx110X-all blas_lib_gfx94X-dcgpu rand_lib_gfx110X-all rand_lib_gfx94X-dcgpu; do
	[ "$(grep -c "'$a': split into" "${IT_LOG[fs]}")" = 1 ] || fail "$a was not split exactly once"
done

# ---- names and trees ----
groups="blas_dev blas_lib blas_test rand_dev rand_lib"
want=$(ls "$M/$S/browse" | while read -r a; do
	for g in $groups; do [[ $a == ${g}_* ]] && echo "$a"; done
done | tr '\n' ' ')
got=$(ls "$LM/kpack" | tr '\n' ' ')
[ "$got" = "$want" ] || fail "kpack/ shows '$got', want '$want'"
for a in $(ls "$LM/kpack"); do
	diff <(cd "$LM/kpack/$a" && find . | sort) <(cd "$M/$S/browse/$a" && find . | sort) \
		>"$T/diff" || { fail "kpack/$a: tree differs from the split run's"; head "$T/diff" >&2; }
done

# ---- the family each split artifact comes from ----
family_of() { # ARTIFACT -> the legacy family artifact it was split from
	local x=${1##*_} g=${1%_*}
	if [ "$x" = generic ]; then echo "${g}_gfx110X-all"; return; fi # first family
	for f in "${!IT_FAMILY[@]}"; do
		for t in ${IT_FAMILY[$f]}; do
			if [ "$t" = "${x%%:*}" ]; then echo "${g}_$f"; fi
		done
	done
}

# ---- files and binaries ----
nbin=0
for a in $(ls "$LM/kpack"); do
	src=$LM/browse/$(family_of "$a")
	while IFS= read -r -d '' f; do
		rel=${f#"$LM/kpack/$a/"}
		case $rel in
		artifact_manifest.txt | */.kpack/*) continue ;;
		esac
		if head -c 4 "$f" | cmp -s - <(printf '\177ELF') && readelf -S -W "$src/$rel" 2>/dev/null | grep -q ' \.hip_fatbin '; then
			nbin=$((nbin + 1))
			readelf -a -W "$f" >"$T/readelf.out" 2>&1 || fail "$a/$rel: readelf -a failed"
			grep -E '^readelf: (Warning|Error)' "$T/readelf.out" >&2 && fail "$a/$rel: readelf -a complains"
			python3 "$ORACLE" split-elf "$src/$rel" "$f" >/dev/null || fail "$a/$rel: not the split form of $src/$rel"
			python3 -c 'import ctypes, sys; ctypes.CDLL(sys.argv[1])' "$f" || fail "$a/$rel: dlopen failed"
		else
			cmp -s "$f" "$src/$rel" || fail "$a/$rel: differs from $(basename "$src")'s file"
		fi
	done < <(find "$LM/kpack/$a" -type f -print0)
done
[ "$nbin" = 3 ] || fail "checked $nbin rewritten binaries, want 3"

# ---- code objects: the bundler's, each once ----
: >"$T/want.objs"
for f in gfx110X-all gfx94X-dcgpu; do
	for bin in math-libs/BLAS/rocBLAS/stage/lib/librocblas.so.5.0.70130 \
		math-libs/BLAS/hipBLASLt/stage/lib/libhipblaslt.so.1.0 \
		math-libs/rocRAND/stage/lib/librocrand.so.1.1; do
		case $bin in math-libs/rocRAND/*) art=rand_lib_$f ;; *) art=blas_lib_$f ;; esac
		d=$T/bundles/$f/$(basename "$bin")
		mkdir -p "$d"
		n=$(python3 "$ORACLE" bundles "$LM/browse/$art/$bin" "$d")
		for ((i = 0; i < n; i++)); do
			for id in $("$BUNDLER" -list -type=o -input="$d/$i.bundle"); do
				[[ $id == host-* ]] && continue
				"$BUNDLER" -unbundle -type=o -targets="$id" -input="$d/$i.bundle" -output="$d/$i.co"
				echo "$bin#$i ${id##*--} $(stat -c %s "$d/$i.co") $(sha256sum <"$d/$i.co" | cut -d' ' -f1)"
			done
		done
	done
done | sort >"$T/want.objs"
[ "$(wc -l <"$T/want.objs")" = 33 ] || fail "the bundler found $(wc -l <"$T/want.objs") code objects, want 33"
find "$LM/kpack" -type f -name '*.kpack' -print0 | xargs -0 -n1 python3 "$ORACLE" kpack | grep -v '^scheme ' | sort >"$T/got.objs"
it_same "code objects in kpack/ vs clang-offload-bundler" "$T/want.objs" "$T/got.objs"
find "$M/$S/browse" -type f -name '*.kpack' -print0 | xargs -0 -n1 python3 "$ORACLE" kpack | grep -v '^scheme ' | sort >"$T/split.objs"
it_same "code objects in kpack/ vs the split run's archives" "$T/split.objs" "$T/got.objs"

# ---- the runtime's lookup through dist/<target> ----
declare -A DEVICES=([gfx1101]="gfx1101" [gfx942]="gfx942:sramecc+:xnack+ gfx942:xnack- gfx942")
for t in gfx1101 gfx942; do
	for bin in lib/librocblas.so.5.0.70130 lib/libhipblaslt.so.1.0 lib/librocrand.so.1.1; do
		for dev in ${DEVICES[$t]}; do
			"$ROCKPACK" kpack resolve "$LM/dist/$t/$bin" --arch "$dev" >"$T/resolved" ||
				{ fail "dist/$t/$bin: resolve for $dev failed"; continue; }
			while read -r i sha size target; do
				# the most specific arch the device accepts, as the loader searches
				key=$(grep -F "/$(basename "$bin")#$i " "$T/want.objs" | awk '{print $2}' | sort -u || true)
				pick=""
				for k in $key; do
					[ "$k" = "${dev%%:*}:xnack+" ] && [[ $dev == *xnack+* ]] && pick=$k
				done
				[ -n "$pick" ] || pick=${dev%%:*}
				wsha=$(grep -F "/$(basename "$bin")#$i $pick " "$T/want.objs" | awk '{print $4}' || true)
				[ "$sha" = "$wsha" ] || fail "dist/$t/$bin #$i on $dev: got $target $sha, want $pick $wsha"
			done <"$T/resolved"
			[ "$(wc -l <"$T/resolved")" -ge 1 ] || fail "dist/$t/$bin: nothing resolved"
		done
	done
done

# ---- dist/<target> = flatten(generic artifacts, the family's split outputs) ----
# (rockfs's documented order: generic artifacts first, then the others, each by name)
mkdir -p "$T/tars"
while read -r stem file; do
	if [ "${stem##*_}" = generic ]; then echo "0 $stem $STORE/$L/$file"; fi
done < <(it_artifacts "$STORE/$L") >"$T/inputs"
for a in $(ls "$LM/kpack"); do
	x=${a##*_}
	[ "$x" = generic ] || [ "$x" = gfx1101 ] || continue
	(cd "$LM/kpack/$a" && while read -r p; do if [ -e "$p" ]; then find "$p" -mindepth 1; fi; done \
		<artifact_manifest.txt | tar -cf "$T/tars/$a.tar" --no-recursion artifact_manifest.txt -T -)
	if [ "$x" = generic ]; then echo "0 $a $T/tars/$a.tar"; else echo "1 $a $T/tars/$a.tar"; fi
done >>"$T/inputs"
mapfile -t inputs < <(LC_ALL=C sort -k1,1 -k2,2 "$T/inputs" | cut -d' ' -f3-)
python3 "$FLATTEN" "$T/flat" "${inputs[@]}"
diff -r --no-dereference "$T/flat" "$LM/dist/gfx1101" >"$T/diff" 2>&1 ||
	{ fail "dist/gfx1101 is not the flatten of its split artifacts"; head -20 "$T/diff" >&2; }

# same_archives DIR REF LABEL: the 11 .kpack archives below DIR are byte for byte the
# split run's (its browse/ at REF) at the same paths
same_archives() {
	local n=0 k rel
	while IFS= read -r -d '' k; do
		rel=${k#"$1/"}
		cmp "$k" "$2/$rel" || fail "$3: $rel is not the split run's archive"
		n=$((n + 1))
	done < <(find "$1" -type f -name '*.kpack' -print0)
	[ "$n" = 11 ] || fail "$3: $n archives, want 11"
}

# ---- rockpack split, verify, recombine ----
"$ROCKPACK" --cache "$T/rpcache" -q split "$STORE" "$L" -o "$T/split" --compression none || fail "rockpack split"
diff -r --no-dereference "$T/split" "$LM/kpack" >"$T/diff" 2>&1 ||
	{ fail "rockpack split --compression none differs from the mount's kpack/"; head "$T/diff" >&2; }
# by default the archives are zstd-per-kernel, byte for byte what the split run stores
"$ROCKPACK" --cache "$T/rpcache" -q split "$STORE" "$L" -o "$T/split-z" || fail "rockpack split (zstd)"
same_archives "$T/split-z" "$M/$S/browse" "rockpack split"
"$ROCKPACK" -q verify "$T/split-z" >"$T/verify.out" || { fail "verify of the zstd split"; cat "$T/verify.out" >&2; }
"$ROCKPACK" -q verify "$T/split" >"$T/verify.out" || { fail "verify of rockpack split output"; cat "$T/verify.out" >&2; }
"$ROCKPACK" --cache "$T/rpcache" -q split "$STORE" "$S" -o "$T/split-s" || fail "rockpack split (split run)"
"$ROCKPACK" -q verify "$T/split-s" >"$T/verify.out" || { fail "verify of the split run"; cat "$T/verify.out" >&2; }
for a in $(ls "$M/$S/kpack"); do
	[ "$(readlink "$M/$S/kpack/$a")" = "../browse/$a" ] || fail "$S/kpack/$a is not a link to its stored artifact"
done
# damage: a fat binary back in the generic artifact, a .kpack with a bad TOC
cp -a "$T/split" "$T/bad"
cp "$LM/browse/rand_lib_gfx110X-all/math-libs/rocRAND/stage/lib/librocrand.so.1.1" \
	"$T/bad/rand_lib_generic/math-libs/rocRAND/stage/lib/librocrand.so.1.1"
k=$T/bad/blas_lib_gfx1100/math-libs/BLAS/hipBLASLt/stage/.kpack/blas_lib_gfx1100.kpack
truncate -s -3 "$k"
if "$ROCKPACK" -q verify "$T/bad" >"$T/verify.out"; then fail "verify passed a damaged tree"; fi
grep -q 'librocrand.so.1.1: fat binary in a generic artifact' "$T/verify.out" || fail "verify missed the fat binary"
grep -q 'blas_lib_gfx1100.kpack' "$T/verify.out" || fail "verify missed the truncated archive"
# recombine two shards into family groups
mkdir -p "$T/shards"
"$ROCKPACK" --cache "$T/rpcache" -q split "$STORE" "$L" blas_lib rand_lib -o "$T/shards/a" --targets gfx1100,gfx1101,gfx1102,gfx1103
"$ROCKPACK" --cache "$T/rpcache" -q split "$STORE" "$L" blas_lib rand_lib -o "$T/shards/b" --targets gfx942
[ "$(ls "$T/shards/b" | tr '\n' ' ')" = "blas_lib_generic blas_lib_gfx942 rand_lib_generic rand_lib_gfx942 rand_lib_gfx942:xnack+ " ] ||
	fail "split --targets gfx942 wrote $(ls "$T/shards/b" | tr '\n' ' ')"
cat >"$T/cfg.json" <<'EOF'
{"primary_shard": "a",
 "architecture_groups": {
   "gfx110X": {"display_name": "RDNA3", "architectures": ["gfx1100", "gfx1101", "gfx1102", "gfx1103"]},
   "gfx94X": {"display_name": "CDNA3", "architectures": ["gfx942", "gfx942:xnack+"]}},
 "validation": {"error_on_duplicate_device_code": true, "verify_generic_artifacts_match": true,
                "error_on_missing_architecture": false}}
EOF
"$ROCKPACK" -q recombine "$T/shards" --config "$T/cfg.json" -o "$T/combined" --strict || fail "recombine"
[ "$(ls "$T/combined" | tr '\n' ' ')" = "blas_lib_generic blas_lib_gfx110X blas_lib_gfx94X rand_lib_generic rand_lib_gfx110X rand_lib_gfx94X " ] ||
	fail "recombine wrote $(ls "$T/combined" | tr '\n' ' ')"
[ "$(find "$T/combined/rand_lib_gfx94X" -type f -name '*.kpack' | wc -l)" = 2 ] || fail "rand_lib_gfx94X lacks its two archives"
[ "$(find "$T/combined/blas_lib_gfx110X" -type f -name '*.kpack' | wc -l)" = 4 ] || fail "blas_lib_gfx110X lacks its four archives"
"$ROCKPACK" -q verify "$T/combined" >"$T/verify.out" || { fail "verify of the recombined tree"; cat "$T/verify.out" >&2; }
# ---- decompressed bundles evicted under the running mount come back ----
find "$LM/kpack" -type f -name '*.kpack' -print0 | sort -z | xargs -0 sha256sum >"$T/kpack.sums"
if [ -w /proc/sys/vm/drop_caches ]; then
	# the daemon keeps the files it read last open (fs/files.c, FILES_KEEP), and an open
	# file reads its blob through its descriptor even once the blob is deleted: read 300
	# other files first (from the daemon, not the page cache), so that the archives'
	# descriptors are closed and their next reads must find their blobs again
	echo 3 >/proc/sys/vm/drop_caches
	mapfile -d '' -t others < <(find "$LM/browse" "$LM/dist" -type f -print0)
	[ ${#others[@]} -ge 300 ] || fail "only ${#others[@]} files to read"
	cat "${others[@]:0:300}" >/dev/null
	rm -f "$T"/cache/blobs/*/*
	sync
	echo 3 >/proc/sys/vm/drop_caches
	sha256sum -c --quiet "$T/kpack.sums" || fail "archives changed after their blobs were evicted"
	grep -q "rand_lib_gfx94X-dcgpu.tar.zst': cached contents incomplete" "${IT_LOG[fs]}" ||
		fail "the evicted blobs were not re-created"
fi
it_quiet_log fs
it_umount fs

# ---- -o kpack_compression=zstd: the split run's archives, also after eviction ----
it_mount z "$STORE" "$T/mntz" "$T/cachez" -o kpack_compression=zstd
check_zstd() { same_archives "$T/mntz/$L/kpack" "$T/mntz/$S/browse" "zstd mount ($1)"; }
check_zstd first
if [ -w /proc/sys/vm/drop_caches ]; then
	rm -f "$T"/cachez/blobs/*/*
	sync
	echo 3 >/proc/sys/vm/drop_caches
	check_zstd "after eviction"
fi
it_umount z
it_mount z2 "$STORE" "$T/mntz" "$T/cachez" -o kpack_compression=zstd
check_zstd remount
it_umount z2

# ---- a broken bundle: kept unsplit, logged, the rest still served ----
B=$T/badstore/24205988999-linux
mkdir -p "$B"
zstd -q -dc "$STORE/$L/rand_lib_gfx110X-all.tar.zst" | python3 -c '
import io, sys, tarfile, struct
src = tarfile.open(fileobj=io.BytesIO(sys.stdin.buffer.read()))
out = tarfile.open(fileobj=sys.stdout.buffer, mode="w|", format=tarfile.PAX_FORMAT)
for m in src.getmembers():
    data = src.extractfile(m).read() if m.isfile() else None
    if m.name.endswith("librocrand.so.1.1"):
        i = data.index(b"CCOB")
        data = data[:i + 8] + struct.pack("<I", 0xFFFFFFF0) + data[i + 12:]  # total_size
    out.addfile(m, io.BytesIO(data) if data is not None else None)
out.close()' | zstd -q -3 -o "$B/rand_lib_gfx110X-all.tar.zst"
(cd "$B" && sha256sum rand_lib_gfx110X-all.tar.zst | cut -d' ' -f1 >rand_lib_gfx110X-all.tar.zst.sha256sum)
it_mount bad "$T/badstore" "$T/mnt2" "$T/cache2"
BM=$T/mnt2/24205988999-linux
ls "$BM/kpack" >"$T/bad.list" || fail "kpack/ of the bad run"
[ "$(tr '\n' ' ' <"$T/bad.list")" = "rand_lib_generic " ] || fail "bad run: kpack/ shows $(tr '\n' ' ' <"$T/bad.list")"
cmp "$BM/kpack/rand_lib_generic/math-libs/rocRAND/stage/lib/librocrand.so.1.1" \
	"$BM/browse/rand_lib_gfx110X-all/math-libs/rocRAND/stage/lib/librocrand.so.1.1" ||
	fail "the broken fat binary was not passed through unchanged"
cmp "$BM/kpack/rand_lib_generic/math-libs/hipRAND/stage/lib/libhiprand.so.1.1" \
	"$BM/browse/rand_lib_gfx110X-all/math-libs/hipRAND/stage/lib/libhiprand.so.1.1" || fail "libhiprand"
[ "$(grep -c "librocrand.so.1.1'.*kept unsplit" "${IT_LOG[bad]}")" = 1 ] || fail "want one log line for the broken binary"
grep "kept unsplit" "${IT_LOG[bad]}" | grep -qiE "ccob|bundle" || fail "the log line does not say what is wrong"
it_alive bad
it_umount bad
grep "kept unsplit" "${IT_LOG[bad]}" >&2
it_finish
