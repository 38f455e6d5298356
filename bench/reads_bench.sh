#!/usr/bin/env bash
# Warm reads (issue 18): reading through the mount once the artifact is in the cache, side
# by side with reading the cache blobs themselves and the extracted files, in one run.
#
#   bench/reads_bench.sh [BUILD_DIR] [ROUNDS] [-- ROCKFS_OPTIONS...]
#
# Store: mkdemo's large run (--large-gib 1: many members of up to 64 MiB) plus one
# generated artifact of four distinct 1 GiB files (bigfile_lib_gfx1100, so it lands in the
# gfx110X-all tarball) and one of 14,400 small headers (hdr_dev_generic). Every archive is
# ingested first (daemon cache warm); the page cache is dropped before every step; each
# step is the best of ROUNDS (default 3). Steps:
#   member   cat of a 1 GiB member through browse/ vs cat of its blob vs cat of the file
#            extracted on the same disk                                  (goal >= 0.9x blob)
#   tar0     tarballs/therock-dist-linux-gfx110X-all-*.tar (a composite: tar headers + blob
#            ranges) from its start to its first member over 1 MiB: the 14,400 small headers
#            of hdr_dev_generic, dd bs=1M | cat, vs `tar -cf - | cat` of the same members
#            extracted to local disk (as a rate: the route a user would otherwise take)
#                                                                     (goal >= 1.0x, issue 30)
#   tar      1 GiB of the same .tar over mkdemo's many bigdata members, dd bs=1M | cat, vs cat
#            of the blobs those bytes come from and vs `tar -cf - | cat` of its members on
#            local disk (as rates)                                    (goal >= 0.8x blob)
#   par4     four parallel cats of the four 1 GiB members vs four parallel cats of their blobs
#   cpu      the daemon's CPU seconds (utime+stime, /proc/PID/stat) per GiB read through it
# The machine is shared: `uptime` load is printed with the numbers.
# Environment: RB_STORE=DIR keeps the generated store (made once), RB_CACHE=DIR the daemon's
# cache (ingested once), RB_RA_KB=N sets the mount's read_ahead_kb (larger requests; root),
# RB_VS=BUILD_DIR mounts that build's rockfs too, on the same cache, and times the member
# step through it in the same rounds (e.g. a build with FUSE passthrough against one without).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
rounds=${2:-3}
shift $(($# > 2 ? 2 : $#))
[ "${1:-}" = -- ] && shift
. "$top/bench/lib.sh"
[ "$(id -u)" = 0 ] || { echo "reads_bench: needs root (drop_caches)" >&2; exit 2; }
bench_init rbench
run=90000000001-linux
store=${RB_STORE:-$work/store} # RB_STORE=DIR: keep the generated store there for next time
if [ ! -e "$store/$run/bigfile_lib_gfx1100.tar.zst.sha256sum" ]; then
echo "generating the store in $store ..."
python3 "$top/tests/demo/mkdemo.py" "$store" --large-gib 1 >/dev/null
python3 - "$store/$run" <<'PY'
# bigfile_lib_gfx1100: four distinct 1 GiB files (a random 1 MiB block per file, repeated
# with a counter, so zstd keeps the archive small while every file is its own blob).
import hashlib, io, os, subprocess, sys, tarfile
d = sys.argv[1]
name = "bigfile_lib_gfx1100.tar.zst"
with open(os.path.join(d, name), "wb") as out:
    z = subprocess.Popen(["zstd", "-1", "-q", "-c", "--long=27"], stdin=subprocess.PIPE,
                         stdout=out)
    with tarfile.open(fileobj=z.stdin, mode="w|", format=tarfile.PAX_FORMAT) as tf:
        man = b"bigfile/stage\n"
        ti = tarfile.TarInfo("artifact_manifest.txt"); ti.size = len(man)
        tf.addfile(ti, io.BytesIO(man))
        for dn in ("bigfile", "bigfile/stage", "bigfile/stage/lib"):
            ti = tarfile.TarInfo(dn); ti.type = tarfile.DIRTYPE; ti.mode = 0o755
            tf.addfile(ti)
        for k in range(4):
            block = bytearray(os.urandom(1 << 20))
            ti = tarfile.TarInfo("bigfile/stage/lib/big%d.bin" % k)
            ti.size, ti.mode = 1 << 30, 0o644
            class R(io.RawIOBase):
                i = 0
                def readable(self):
                    return True
                def readinto(self, b):
                    if self.i >= 1024:
                        return 0
                    block[:8] = self.i.to_bytes(8, "little")
                    n = min(len(b), len(block))
                    b[:n] = block[:n]
                    self.i += 1
                    return n
            tf.addfile(ti, io.BufferedReader(R(), 1 << 20))
    z.stdin.close()
    assert z.wait() == 0
h = hashlib.sha256(open(os.path.join(d, name), "rb").read()).hexdigest()
open(os.path.join(d, name + ".sha256sum"), "w").write(h + "\n")
PY
fi
if [ ! -e "$store/$run/hdr_dev_generic.tar.zst.sha256sum" ]; then
# hdr_dev_generic: 14,400 small distinct headers (64 B to 32 KiB, 16 KiB on average) in
# 1,200 directories, the shape of a ROCm include tree: they come first in the .tar
python3 - "$store/$run" <<'PY'
import hashlib, io, os, subprocess, sys, tarfile
d = sys.argv[1]
name = "hdr_dev_generic.tar.zst"
prefix = "math-libs/hdr/stage"
with open(os.path.join(d, name), "wb") as out:
    z = subprocess.Popen(["zstd", "-3", "-q", "-c"], stdin=subprocess.PIPE, stdout=out)
    with tarfile.open(fileobj=z.stdin, mode="w|", format=tarfile.GNU_FORMAT) as tf:
        def add(path, data=None):
            ti = tarfile.TarInfo(path)
            if data is None:
                ti.type, ti.mode = tarfile.DIRTYPE, 0o755
                tf.addfile(ti)
            else:
                ti.size, ti.mode = len(data), 0o644
                tf.addfile(ti, io.BytesIO(data))
        add("artifact_manifest.txt", (prefix + "\n").encode())
        for p in ("math-libs", "math-libs/hdr", prefix, prefix + "/include"):
            add(p)
        for t in range(40):
            add("%s/include/hdr%02d" % (prefix, t))
            for s in range(30):
                dn = "%s/include/hdr%02d/sub%02d" % (prefix, t, s)
                add(dn)
                for k in range(12):
                    i = (t * 30 + s) * 12 + k
                    size = 64 + (i * 2654435761) % 32704
                    line = b"#define HDR_%d_%%d %d /* %s */\n" % (i, i, prefix.encode())
                    body = b"".join(line % j for j in range(size // len(line) + 1))
                    add("%s/h%05d.h" % (dn, i), body[:size])
    z.stdin.close()
    assert z.wait() == 0
h = hashlib.sha256(open(os.path.join(d, name), "rb").read()).hexdigest()
open(os.path.join(d, name + ".sha256sum"), "w").write(h + "\n")
PY
fi
echo "machine: $(nproc) CPUs, $(uname -r), $(free -g | awk '/Mem:/ { print $2 " GiB" }')"

cache=${RB_CACHE:-$work/cache} # RB_CACHE=DIR: keep the daemon's cache for the next run
"$build/fs/rockfs" "$store" "$mnt" -f -o cache="$cache" "$@" 2>"$work/daemon.log" &
pid=$!
for _ in $(seq 100); do mountpoint -q "$mnt" && break; sleep 0.1; done
R=$mnt/$run
if [ -n "${RB_VS:-}" ]; then # RB_VS=BUILD_DIR: the member step through that build's mount too
	mkdir -p "$work/mnt-vs"
	"$RB_VS/fs/rockfs" "$store" "$work/mnt-vs" -f -o cache="$cache" "$@" 2>"$work/daemon-vs.log" &
	pid_vs=$!
	trap 'fusermount3 -u -z "$work/mnt-vs" 2>/dev/null; kill "$pid_vs" 2>/dev/null; bench_cleanup' EXIT
	for _ in $(seq 100); do mountpoint -q "$work/mnt-vs" && break; sleep 0.1; done
	echo "RB_VS: $("$RB_VS/fs/rockfs" --version | sed -n 's/^FUSE library version //p'), passthrough" \
		"$(sed -n 's/^passthrough: //p' "$work/mnt-vs/.rockfs-status")"
fi
bdi=/sys/class/bdi/$(mountpoint -d "$mnt")
[ -z "${RB_RA_KB:-}" ] || echo "$RB_RA_KB" >"$bdi/read_ahead_kb" # RB_RA_KB=N: try another readahead
echo "mount's readahead: $(cat "$bdi/read_ahead_kb") KiB"
echo "FUSE passthrough: $(sed -n 's/^passthrough: //p' "$mnt/.rockfs-status")" # (issue 30)
echo "ingesting (reading every artifact once through browse/) ..."
find "$R/browse" -type f -exec cat {} + >/dev/null
B=$R/browse/bigfile_lib_gfx1100/bigfile/stage/lib
mkdir -p "$work/extracted"
zstd -d -q -c --long=27 "$store/$run/bigfile_lib_gfx1100.tar.zst" | tar -x -C "$work/extracted"
E=$work/extracted/bigfile/stage/lib
blob_of() { # the cache blob holding a file's bytes (blobs are named by SHA-256)
	local id
	id=$(sha256sum "$1" | cut -c1-64)
	echo "$cache/blobs/${id:0:2}/$id"
}
blobs=()
for k in 0 1 2 3; do blobs+=("$(blob_of "$E/big$k.bin")"); done
tarball=$(ls "$R"/tarballs/therock-dist-linux-gfx110X-all-[0-9]*.tar)
# the region: 1 GiB from the first of mkdemo's many bigdata members (64 KiB to 64 MiB
# each), and the blobs its bytes come from, in order (the composite's sources)
mapfile -t tarblobs < <(python3 - "$tarball" "$cache/blobs" <<'PY'
import hashlib, sys, tarfile
path, blobs = sys.argv[1:]
start = None
with tarfile.open(path) as tf:
    for m in tf:
        if start is None and "bigdata/" in m.name:
            start = m.offset & ~((1 << 20) - 1)
            print(start)
        if start is None or not m.isreg() or not m.size:
            continue
        if m.offset_data >= start + (1 << 30):
            break
        h = hashlib.sha256()
        f = tf.extractfile(m)
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
        print("%s/%s/%s" % (blobs, h.hexdigest()[:2], h.hexdigest()))
PY
)
tarskip=$((tarblobs[0] / 1048576))
tarblobs=("${tarblobs[@]:1}")
tarblob_bytes=$(stat -c %s "${tarblobs[@]}" | awk '{ s += $1 } END { print s }')
# the members of a region (their headers in [start, start + 1 GiB), or with start 0 up to
# the first member over 1 MiB: the small ones) extracted to local disk once, with their
# names in archive order for `tar -c -T`: tar of local files, the route the mount competes
# with. Prints the region's end, the members, and the bytes tar -c makes of them.
localtree() { # localtree START DIR: DIR/tree, DIR/names
	mkdir -p "$2/tree"
	python3 - "$tarball" "$1" "$2" <<'PY'
import os, sys, tarfile
path, start, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
names = []
end = start + (1 << 30)
with tarfile.open(path) as tf:
    for m in tf:
        if m.offset >= end or (not start and m.size > (1 << 20)):
            end = m.offset if not start else end
            break
        if m.offset >= start:
            tf.extract(m, out + "/tree", set_attrs=m.isdir())
            names.append(m.name)
with open(out + "/names", "wb") as n:
    n.write(b"".join(x.encode() + b"\0" for x in names))
print(end, len(names))
PY
	echo "$(tarc "$2" | wc -c)"
}
tarc() { tar -cf - --no-recursion --null -C "$1/tree" -T "$1/names"; }
tarc_null() { tarc "$1" | cat >/dev/null; }
region() { dd if="$tarball" bs=1M skip="$1" count=1024 status=none | cat >/dev/null; }
region0() { dd if="$tarball" bs=1M count="$tar0_end" iflag=count_bytes status=none | cat >/dev/null; }
# GNU tar skips reading when its archive is /dev/null: both sides go through a pipe
echo "extracting the members of the tar regions to local disk ..."
read -r tar0_end tar0_members tar0_bytes < <(localtree 0 "$work/tar0" | xargs)
read -r _ _ tar_bytes < <(localtree $((tarskip * 1048576)) "$work/tarbig" | xargs)

drop() { sync; echo 3 >/proc/sys/vm/drop_caches; }
best() { # best of $rounds: best CMD...
	local b= t
	for _ in $(seq "$rounds"); do
		drop
		t=$(timeit "$@")
		b=$(awk -v a="$t" -v b="$b" 'BEGIN { print (b == "" || a < b) ? a : b }')
	done
	echo "$b"
}
cpu() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
catall() { cat "$@" >/dev/null; }
par4() {
	local p=()
	for f in "$@"; do cat "$f" >/dev/null & p+=($!); done
	wait "${p[@]}"
}
gibps() { awk -v b="$1" -v t="$2" 'BEGIN { printf "%.2f", b / 1073741824 / t }'; }

echo "load before: $(uptime | sed 's/.*load/load/')"
c0=$(cpu)
m_mount=$(best catall "$B/big0.bin")
c1=$(cpu)
[ -z "${RB_VS:-}" ] || m_vs=$(best catall "$work/mnt-vs/$run/browse/bigfile_lib_gfx1100/bigfile/stage/lib/big0.bin")
m_blob=$(best catall "${blobs[0]}")
m_ext=$(best catall "$E/big0.bin")
c2=$(cpu)
t_mount=$(best region "$tarskip")
c3=$(cpu)
t_blob=$(best catall "${tarblobs[@]}")
t_local=$(best tarc_null "$work/tarbig")
c6=$(cpu)
t0_mount=$(best region0)
c7=$(cpu)
t0_local=$(best tarc_null "$work/tar0")
c4=$(cpu)
p_mount=$(best par4 "$B"/big{0,1,2,3}.bin)
c5=$(cpu)
p_blob=$(best par4 "${blobs[@]}")
echo "load after:  $(uptime | sed 's/.*load/load/')"

t_rate=$(gibps 1073741824 "$t_mount")
tb_rate=$(gibps "$tarblob_bytes" "$t_blob")
printf '%-52s %7s s  %5s GiB/s\n' "member: cat of the 1 GiB blob" "$m_blob" "$(gibps 1073741824 "$m_blob")"
printf '%-52s %7s s  %5s GiB/s\n' "member: cat of the extracted file" "$m_ext" "$(gibps 1073741824 "$m_ext")"
printf '%-52s %7s s  %5s GiB/s  %sx blob, %sx extracted\n' "member: cat through the mount" "$m_mount" \
	"$(gibps 1073741824 "$m_mount")" "$(ratio "$m_blob" "$m_mount")" "$(ratio "$m_ext" "$m_mount")"
[ -z "${RB_VS:-}" ] || printf '%-52s %7s s  %5s GiB/s  %sx blob, %sx extracted\n' "member: cat through the RB_VS mount" \
	"$m_vs" "$(gibps 1073741824 "$m_vs")" "$(ratio "$m_blob" "$m_vs")" "$(ratio "$m_ext" "$m_vs")"
printf '%-52s %7s s  %5s GiB/s  (%s blobs, %s bytes)\n' "tar: cat of the blobs of the 1 GiB region" \
	"$t_blob" "$tb_rate" "${#tarblobs[@]}" "$tarblob_bytes"
t_lrate=$(gibps "$tar_bytes" "$t_local")
t0_rate=$(gibps "$tar0_end" "$t0_mount")
t0_lrate=$(gibps "$tar0_bytes" "$t0_local")
printf '%-52s %7s s  %5s GiB/s  (%s bytes)\n' "tar: tar -c of its members on local disk" \
	"$t_local" "$t_lrate" "$tar_bytes"
printf '%-52s %7s s  %5s GiB/s  %sx blob rate, %sx tar -c\n' \
	"tar: 1 GiB of ${tarball##*/tarballs/} at ${tarskip} MiB (dd bs=1M)" \
	"$t_mount" "$t_rate" "$(ratio "$t_rate" "$tb_rate")" "$(ratio "$t_rate" "$t_lrate")"
printf '%-52s %7s s  %5s GiB/s  (%s members, %s bytes)\n' "tar0: tar -c of its members on local disk" \
	"$t0_local" "$t0_lrate" "$tar0_members" "$tar0_bytes"
printf '%-52s %7s s  %5s GiB/s  %sx tar -c\n' "tar0: its first $tar0_end bytes (dd bs=1M)" \
	"$t0_mount" "$t0_rate" "$(ratio "$t0_rate" "$t0_lrate")"
printf '%-52s %7s s  %5s GiB/s\n' "par4: four cats of the blobs" "$p_blob" "$(gibps 4294967296 "$p_blob")"
printf '%-52s %7s s  %5s GiB/s  %sx blobs\n' "par4: four cats through the mount" "$p_mount" \
	"$(gibps 4294967296 "$p_mount")" "$(ratio "$p_blob" "$p_mount")"
awk -v a="$c0" -v b="$c1" -v c="$c2" -v d="$c3" -v e="$c4" -v f="$c5" -v g="$c6" -v h="$c7" \
	-v r="$rounds" -v hz="$(getconf CLK_TCK)" \
	'BEGIN { printf "daemon CPU per GiB read: member %.2f s, tar %.2f s, tar0 %.2f s, par4 %.2f s\n",
		(b - a) / hz / r, (d - c) / hz / r, (h - g) / hz / r, (f - e) / hz / r / 4 }'
echo "opens passed through: $(sed -n 's/^passthrough_opens: //p' "$mnt/.rockfs-status")"
echo "dist/: no big rewritten ELF in the demo (its fat binaries are a few KiB); not measured"
if grep -qiE 'warning|error' "$work/daemon.log"; then sed 's/^/daemon: /' "$work/daemon.log"; fi
