#!/usr/bin/env bash
# zstd_bomb: decompression is bounded. A local store holds a copy of a demo run plus an
# artifact whose ~35 KB archive holds 1 GiB of one repeated byte (not zeros: zeros would
# be holes in the cache and cost nothing), mounted without cache_size:
#  - cache_size defaults to what fits the cache's disk (one info line; .rockfs-status
#    shows a limit);
#  - the bomb's browse/ fails with EIO and one log line naming it ("decompression
#    bomb"); the cache stays small (before issue 26: 1 GiB written into it);
#  - every other artifact of the run is served as on a healthy mount.
. "$(dirname "$0")/lib.sh"
it_init "$@"

RUN=24205988455-linux
mkdir -p "$T/store"
cp -r "$STORE/$RUN" "$T/store/"
python3 - "$T/bomb.tar" <<'EOP'
import io, sys, tarfile

class Repeat(io.RawIOBase):
    """size bytes of 'A', read in pieces."""
    def __init__(self, size):
        self.left = size
    def readable(self):
        return True
    def readinto(self, b):
        n = min(len(b), self.left)
        b[:n] = b"A" * n
        self.left -= n
        return n

with tarfile.open(sys.argv[1], "w", format=tarfile.PAX_FORMAT) as t:
    man = b"bomb/stage\n"
    ti = tarfile.TarInfo("artifact_manifest.txt")
    ti.size = len(man)
    t.addfile(ti, io.BytesIO(man))
    ti = tarfile.TarInfo("bomb/stage/share/bomb/aaaa")
    ti.size = 1 << 30
    t.addfile(ti, io.BufferedReader(Repeat(ti.size), 1 << 20))
EOP
zstd -q -19 --rm -o "$T/store/$RUN/bomb_lib_generic.tar.zst" "$T/bomb.tar"
(cd "$T/store/$RUN" && sha256sum bomb_lib_generic.tar.zst | cut -d' ' -f1 >bomb_lib_generic.tar.zst.sha256sum)
csize=$(stat -c %s "$T/store/$RUN/bomb_lib_generic.tar.zst")
[ "$csize" -lt 100000 ] || die "the bomb is $csize bytes compressed (want < 100 KB)"

it_mount local "$STORE" "$T/local" "$T/cache-local"
it_mount b "$T/store" "$T/mnt" "$T/cache"
grep -q "serving .*(cache_size [0-9.]* [KMGT]iB; command line" "$T/b.log" || fail "no start line giving the default cache_size"
limit=$(sed -n 's/^cache_limit: //p' "$T/mnt/.rockfs-status")
[ "${limit:-0}" -gt 0 ] || fail "no default cache_size: cache_limit '$limit'"

if cat "$T/mnt/$RUN/browse/bomb_lib_generic/share/bomb/aaaa" >/dev/null 2>"$T/bomb.err"; then
	fail "the decompression bomb was served"
fi
grep -qE 'Input/output error|No such file' "$T/bomb.err" || fail "bomb: $(cat "$T/bomb.err") (want EIO)"
n=$(grep -c "bomb_lib_generic.*decompression bomb" "$T/b.log" || true)
[ "$n" = 1 ] || fail "want one log line naming the bomb, got $n: $(grep bomb_lib "$T/b.log" || true)"
used=$(du -sk "$T/cache" | cut -f1)
[ "$used" -lt $((200 * 1024)) ] || fail "the bomb wrote $used KiB into the cache"

for d in $(cd "$T/local/$RUN/browse" && ls); do
	it_sums "$T/local/$RUN/browse/$d" >"$T/want.sums"
	it_sums "$T/mnt/$RUN/browse/$d" >"$T/got.sums" || fail "browse/$d unreadable next to the bomb"
	it_same "browse/$d next to the bomb" "$T/want.sums" "$T/got.sums"
done
it_alive b
it_umount b
it_umount local
it_finish
