#!/usr/bin/env bash
# tarballs: RUN/tarballs/*.tar of both demo runs.
#  - the names TheRock's build_tarballs.py would give (version from the manifest);
#  - GNU tar, bsdtar and python3 -m tarfile list and extract them;
#  - a -tests- tarball holds exactly dist/<X>, and is byte for byte what GNU tar makes of
#    that tree with the documented command line;
#  - a release tarball holds the independent flatten (flatten.py) of the same artifacts
#    without the test component and fftw3;
#  - random reads at many offsets equal the bytes of a sequential read;
#  - sha256 is the same from a second mount with its own cache, and from rockpack export.
. "$(dirname "$0")/lib.sh"
it_init "$@"
FLATTEN=$(dirname "$0")/flatten.py
command -v bsdtar >/dev/null || skip "bsdtar is not installed"

M=$T/mnt
it_mount fs "$STORE" "$M" "$T/cache"
VER=7.13.0.dev0+abc1234
declare -A WANT=(
	[24205988454-linux]="gfx110X-all gfx94X-dcgpu"
	[24205988455-linux]="gfx110X-all gfx94X-dcgpu multiarch"
)

for run in 24205988454-linux 24205988455-linux; do
	R=$STORE/$run
	want=""
	for x in ${WANT[$run]}; do
		want+="therock-dist-linux-$x-$VER.tar therock-dist-linux-$x-tests-$VER.tar "
	done
	got=$(ls "$M/$run/tarballs" | tr '\n' ' ')
	[ "$got" = "$(for w in $want; do printf '%s\n%s.gz\n%s.zst\n' $w $w $w; done | sort | tr '\n' ' ')" ] ||
		fail "$run: tarballs/ shows '$got'"
	for x in ${WANT[$run]}; do
		for tests in "" "-tests"; do
			tb=$M/$run/tarballs/therock-dist-linux-$x$tests-$VER.tar
			name=$run/$(basename "$tb")
			[ -f "$tb" ] || { fail "$name missing"; continue; }
			# every reader lists and extracts it
			tar -tf "$tb" >"$T/gnu.list" || fail "$name: GNU tar -t"
			bsdtar -tf "$tb" >"$T/bsd.list" || fail "$name: bsdtar -t"
			python3 -m tarfile -l "$tb" >"$T/py.list" || fail "$name: python3 -m tarfile -l"
			[ "$(head -1 "$T/gnu.list")" = "./" ] || fail "$name: first member is not ./"
			[ "$(wc -l <"$T/gnu.list")" = "$(wc -l <"$T/bsd.list")" ] || fail "$name: GNU tar and bsdtar disagree"
			ex=$T/x$tests/$run/$x
			mkdir -p "$ex/gnu" "$ex/bsd" "$ex/py"
			tar -xf "$tb" -C "$ex/gnu" || fail "$name: GNU tar -x"
			bsdtar -xf "$tb" -C "$ex/bsd" || fail "$name: bsdtar -x"
			python3 -m tarfile -e "$tb" "$ex/py" || fail "$name: python3 -m tarfile -e"
			diff -r --no-dereference "$ex/gnu" "$ex/bsd" >/dev/null || fail "$name: bsdtar extracts something else"
			diff -r --no-dereference "$ex/gnu" "$ex/py" >/dev/null || fail "$name: tarfile extracts something else"
			if [ -n "$tests" ]; then
				diff -r --no-dereference "$ex/gnu" "$M/$run/dist/$x" >"$T/diff" 2>&1 ||
					{ fail "$name: not dist/$x"; head "$T/diff" >&2; }
				mt=$(tar --full-time -tvf "$tb" | awk 'NR == 1 { print $4 " " $5 }')
				(cd "$M/$run/dist/$x" && tar --format=gnu --sort=name --owner=0 --group=0 \
					--numeric-owner --mtime="$mt UTC" -cf - .) >"$T/gnu.tar"
				cmp -s "$T/gnu.tar" "$tb" || fail "$name: not byte-identical to GNU tar of dist/$x"
			else
				mapfile -t files < <(it_flatten_inputs "$R" "$x" release)
				python3 "$FLATTEN" "$ex/flat" "${files[@]}"
				diff -r --no-dereference "$ex/flat" "$ex/gnu" >"$T/diff" 2>&1 ||
					{ fail "$name: not the flatten without test/fftw3"; head "$T/diff" >&2; }
				grep -q 'rocblas-test' "$T/gnu.list" && fail "$name: holds a test component file"
			fi
			# random reads equal a sequential read
			python3 - "$tb" <<'PY' || fail "$name: random reads differ from a sequential read"
import os, random, sys
p = sys.argv[1]
whole = open(p, "rb").read()
assert len(whole) == os.stat(p).st_size and len(whole) % 10240 == 0, "size"
rnd = random.Random(len(whole))
with open(p, "rb", buffering=0) as f:
    for _ in range(300):
        off = rnd.randrange(len(whole))
        n = rnd.choice([1, 7, 511, 512, 4096, 65536, 300000])
        f.seek(off)
        assert f.read(n) == whole[off:off + n], off
PY
			# the compressed variants decompress to exactly the .tar
			gzip -t "$tb.gz" || fail "$name.gz: gzip -t"
			zstd -q -t "$tb.zst" || fail "$name.zst: zstd -t"
			gzip -dc "$tb.gz" | cmp -s - "$tb" || fail "$name.gz: does not decompress to the .tar"
			zstd -q -dc "$tb.zst" | cmp -s - "$tb" || fail "$name.zst: does not decompress to the .tar"
			# the zstd seekable format: a seek table whose frames cover the .tar in order
			python3 - "$tb.zst" "$tb" <<'PY' || fail "$name.zst: bad seek table"
import struct, subprocess, sys
z = open(sys.argv[1], "rb").read()
tar = open(sys.argv[2], "rb").read()
n, desc, magic = struct.unpack("<IBI", z[-9:])
assert magic == 0x8F92EAB1 and desc == 0, "footer"
size = n * 8 + 9
skip_magic, frame_size = struct.unpack("<II", z[-size - 8:-size])
assert skip_magic == 0x184D2A5E and frame_size == size, "skippable frame"
coff = uoff = 0
for i in range(n):
    c, u = struct.unpack("<II", z[len(z) - size + 8 * i:len(z) - size + 8 * i + 8])
    frame = subprocess.run(["zstd", "-q", "-dc"], input=z[coff:coff + c], capture_output=True, check=True).stdout
    assert frame == tar[uoff:uoff + u], f"frame {i}"
    coff += c
    uoff += u
assert uoff == len(tar) and coff == len(z) - size - 8, "coverage"
PY
			for f in "$tb" "$tb.gz" "$tb.zst"; do
				sha256sum "$f" | cut -d' ' -f1 >>"$T/sums.first"
				echo "$run/tarballs/$(basename "$f")" >>"$T/names"
			done
		done
	done
done

# a second mount with its own cache gives the same bytes; so does rockpack export
it_mount second "$STORE" "$T/mnt2" "$T/cache2"
while read -r p; do
	sha256sum "$T/mnt2/$p" | cut -d' ' -f1
done <"$T/names" >"$T/sums.second"
it_same "sha256 of every tarball across two mounts" "$T/sums.first" "$T/sums.second"
for p in $(grep -m 3 multiarch "$T/names"); do
	"$ROCKPACK" -q --cache "$T/cache3" export "$STORE" "${p%%/*}" "${p#*/}" -o "$T/export" ||
		fail "rockpack export of $p failed"
	cmp -s "$T/export/$(basename "$p")" "$M/$p" || fail "rockpack export: $p differs from the mount"
done
# a whole directory: the compressed ones too, whose sizes a listing does not know yet
"$ROCKPACK" -q --cache "$T/cache3" export "$STORE" 24205988454-linux tarballs -o "$T/export-all" ||
	fail "rockpack export of a tarballs directory failed"
for f in "$M"/24205988454-linux/tarballs/*; do
	cmp -s "$T/export-all/$(basename "$f")" "$f" || fail "rockpack export: tarballs/$(basename "$f") differs from the mount"
done
"$ROCKPACK" -q --cache "$T/cache3" export "$STORE" 24205988455-linux dist/multiarch -o "$T/export-dist" ||
	fail "rockpack export of a dist tree failed"
diff -r --no-dereference "$T/export-dist" "$M/24205988455-linux/dist/multiarch" >/dev/null ||
	fail "rockpack export: dist tree differs from the mount"
"$ROCKPACK" -q --cache "$T/cache3" export "$STORE" 24205988455-linux dist/multiarch -o "$T/export-dist" 2>"$T/err" &&
	fail "rockpack export over an existing tree should refuse"
[ "$(wc -l <"$T/err")" = 1 ] || fail "rockpack export: want one line on stderr, got: $(cat "$T/err")"
# a damaged compressed piece in the cache is noticed (CRC32), recompressed, never served
it_umount second
p=$(ls "$T/cache2/pieces" | head -1)
[ -n "$p" ] || fail "no tarball pieces in the cache"
printf 'X' | dd of="$T/cache2/pieces/$p" bs=1 seek=7 conv=notrunc status=none
it_mount third "$STORE" "$T/mnt3" "$T/cache2"
for f in $(grep '\.tar\.zst$' "$T/names"); do
	zstd -q -dc "$T/mnt3/$f" | cmp -s - "$T/mnt3/${f%.zst}" || fail "$f: wrong after a piece was damaged"
done
for f in $(grep '\.tar\.gz$' "$T/names"); do
	gzip -dc "$T/mnt3/$f" | cmp -s - "$T/mnt3/${f%.gz}" || fail "$f: wrong after a piece was damaged"
done
grep -q "record .pieces/$p. failed its check" "${IT_LOG[third]}" || fail "the damaged piece was not reported"
it_quiet_log fs
it_finish
