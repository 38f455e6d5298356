#!/usr/bin/env bash
# read_sizes: reads of many sizes and offsets through the mount equal the same bytes
# written by `rockpack export` (the engine's copying reader, no FUSE, no splice):
#  - files: a tarball .tar (a composite: tar headers, blob ranges, zero padding), its
#    .tar.zst (cached compressed pieces), the largest files of dist/<X> (rewritten ELF
#    files among them), a browse/ file (one cache blob) and an artifacts/ archive (the
#    store's file; compared with the store's own bytes);
#  - sizes 1, 4095, 4096, 128 KiB - 1, 128 KiB + 1, 1 MiB + 3, 1 MiB + 7, at offsets 0, 1,
#    every tar member's header and data start and end (+-1), random ones, and across the
#    end of the file; each read with O_DIRECT (every request reaches the daemon with its
#    own offset and size; the O_DIRECT open alone, so that it is not passed through:
#    fs/passthrough.c) and buffered after dropping the file's pages (posix_fadvise
#    DONTNEED);
#  - whole-file reads (cat) equal too.
. "$(dirname "$0")/lib.sh"
it_init "$@"

M=$T/mnt
it_mount fs "$STORE" "$M" "$T/cache"
RUN=24205988454-linux
X=gfx110X-all
VER=7.13.0.dev0+abc1234
TB=therock-dist-linux-$X-$VER.tar
R=$M/$RUN

"$ROCKPACK" --cache "$T/cache" -q export "$STORE" "$RUN" "tarballs/$TB" -o "$T/x" ||
	fail "rockpack export tarballs/$TB"
"$ROCKPACK" --cache "$T/cache" -q export "$STORE" "$RUN" "tarballs/$TB.zst" -o "$T/x" ||
	fail "rockpack export tarballs/$TB.zst"
"$ROCKPACK" --cache "$T/cache" -q export "$STORE" "$RUN" "dist/$X" -o "$T/dist" ||
	fail "rockpack export dist/$X"
pairs=("$R/tarballs/$TB" "$T/x/$TB" "$R/tarballs/$TB.zst" "$T/x/$TB.zst")
# the three largest files of dist/X
while read -r rel; do
	pairs+=("$R/dist/$X/$rel" "$T/dist/$rel")
done < <(cd "$T/dist" && find . -type f -printf '%s %P\n' | sort -rn | head -3 | cut -d' ' -f2-)
# the largest browse/ file: one blob, served as its descriptor
art=$(ls "$R/browse" | head -1)
bf=$(cd "$R/browse/$art" && find . -type f -printf '%s %P\n' | sort -rn | head -1 | cut -d' ' -f2-)
"$ROCKPACK" --cache "$T/cache" -q cat "$STORE" "$RUN" "$art" "$bf" >"$T/browse.bin" ||
	fail "rockpack cat $art $bf"
pairs+=("$R/browse/$art/$bf" "$T/browse.bin")
# an archive under artifacts/: the store's own file, served as its descriptor
arc=$(cd "$STORE/$RUN" && ls -S -- *.tar.zst | head -1)
pairs+=("$R/artifacts/$arc" "$STORE/$RUN/$arc")
[ "${#pairs[@]}" -ge 14 ] || fail "dist/$X has fewer than three files"

for ((i = 0; i < ${#pairs[@]}; i += 2)); do
	cmp -s "${pairs[i]}" "${pairs[i + 1]}" || fail "cat of ${pairs[i]#"$M"/} differs from rockpack's bytes"
done

python3 - "${pairs[@]}" <<'PY' || fail "reads of odd sizes and offsets differ (above)"
import os, random, sys, tarfile

args = sys.argv[1:]
SIZES = [1, 4095, 4096, (128 << 10) - 1, (128 << 10) + 1, (1 << 20) + 3, (1 << 20) + 7]
bad = 0
reads = 0
rnd = random.Random(18)


def offsets(path, size):
    offs = {0, 1, 511, 512, 4095, 4096, (128 << 10) + 5, size // 2 + 3}
    offs |= {rnd.randrange(size) for _ in range(6)} if size else set()
    offs |= {size - 1, size - 4095, size - 7, size, size + 4096}
    if path.endswith(".tar"):
        with tarfile.open(path) as tf:  # the composite's piece boundaries
            ms = tf.getmembers()
        for m in ms[:: max(1, len(ms) // 40)]:
            end = m.offset_data + m.size
            for o in (m.offset, m.offset_data, end, (end + 511) // 512 * 512):
                offs |= {o - 1, o, o + 1, o - 4095}
    return sorted(o for o in offs if o >= 0)


def pread_all(fd, n, off):
    out = b""
    while len(out) < n:
        b = os.pread(fd, n - len(out), off + len(out))
        if not b:
            break
        out += b
    return out


for mnt_path, ref_path in zip(args[0::2], args[1::2]):
    with open(ref_path, "rb") as f:
        ref = f.read()
    size = len(ref)
    if os.stat(mnt_path).st_size != size:
        print("FAIL: %s: size %d, rockpack wrote %d" % (mnt_path, os.stat(mnt_path).st_size, size))
        bad += 1
        continue
    # O_DIRECT first, alone: a file open buffered may be passed through to its blob
    # (fs/passthrough.c), and then every open of it is, with the blob's file system's
    # O_DIRECT alignment rules (EINVAL for an odd offset, as on ext4 itself)
    for how in ("O_DIRECT", "buffered"):
        try:
            fd = os.open(mnt_path, os.O_RDONLY | (os.O_DIRECT if how == "O_DIRECT" else 0))
        except OSError as e:
            print("%s: no O_DIRECT (%s): buffered reads only" % (mnt_path, e))
            continue
        for off in offsets(ref_path, size):
            for n in SIZES:
                want = ref[off:off + n]
                if how == "buffered":
                    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                got = pread_all(fd, n, off)
                reads += 1
                if got != want:
                    bad += 1
                    if bad <= 10:
                        print("FAIL: %s: %s pread(%d, %d): %d bytes, want %d%s" % (
                            mnt_path, how, n, off, len(got), len(want),
                            " (same length, other bytes)" if len(got) == len(want) else ""))
        os.close(fd)
print("%d reads, %d wrong" % (reads, bad))
sys.exit(1 if bad else 0)
PY
it_umount fs
it_finish
