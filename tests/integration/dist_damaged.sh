#!/usr/bin/env bash
# dist_damaged: one damaged artifact does not take its dist trees down (issue 16,
# section 1). On a copy of the demo split run with two damaged artifacts:
#   blas_lib_gfx942: the archive is whole but its .sha256sum sidecar is wrong (every member
#     is read before the damage shows): dist/gfx94X-dcgpu lists exactly what the clean
#     mount lists; the files that artifact puts there fail with EIO, every other file
#     reads as on the clean mount;
#   rand_lib_gfx1101: the archive is cut (the members after the cut are unknown): the
#     files of healthy artifacts in dist/gfx110X-all read as on the clean mount, the
#     damaged artifact's files read before the cut are listed and fail with EIO, and the
#     listing of the tree ends in EIO (ls, find and rsync report it; a silently short
#     copy is impossible).
# A legacy (fat) run's per-target tree (dist/gfx942, made by splitting its family's fat
# artifacts) with one of those fat artifacts damaged: the tree is served, the damaged
# artifact's files are listed unsplit and fail with EIO, every other file reads as on the
# clean mount.
# dist/.rockfs/<X>.damaged names the artifact and the cause; the release tarballs that
# hold a damaged artifact cannot be whole and fail with EIO (listed; the other tarballs
# are served); the daemon logs one line per damaged artifact.
. "$(dirname "$0")/lib.sh"
it_init "$@"

RUN=24205988455-linux
SUMBAD=blas_lib_gfx942
CUT=rand_lib_gfx1101
S=$T/store
mkdir -p "$S"
cp -r "$STORE/$RUN" "$S/$RUN"
[ -f "$S/$RUN/$SUMBAD.tar.zst" ] && [ -f "$S/$RUN/$CUT.tar.zst" ] || die "premise: artifacts missing"
echo "$(printf 'not the archive' | sha256sum | cut -d' ' -f1)  $SUMBAD.tar.zst" \
	>"$S/$RUN/$SUMBAD.tar.zst.sha256sum"
# the cut one is first made larger (2 MiB of incompressible files after its own members,
# a dozen zstd blocks) so that what comes before the cut decodes: its own files are read
# before the damage and must be listed, failing with EIO
python3 - "$S/$RUN/$CUT.tar.zst" <<'EOF2'
import io, random, subprocess, sys, tarfile
path = sys.argv[1]
raw = subprocess.run(["zstd", "-q", "-dc", path], check=True, stdout=subprocess.PIPE).stdout
out = io.BytesIO()
with tarfile.open(fileobj=io.BytesIO(raw)) as src, \
        tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as dst:
    members = src.getmembers()
    prefix = src.extractfile(members[0]).read().decode().split()[0]
    for m in members:
        dst.addfile(m, src.extractfile(m) if m.isfile() else None)
    rnd = random.Random(1101)
    for i in range(16):
        ti = tarfile.TarInfo("%s/zz-padding/%02d.bin" % (prefix, i))
        ti.size, ti.mtime = 128 << 10, members[0].mtime
        dst.addfile(ti, io.BytesIO(rnd.randbytes(ti.size)))
z = subprocess.run(["zstd", "-q", "-3", "-c"], input=out.getvalue(), check=True,
                   stdout=subprocess.PIPE).stdout
open(path, "wb").write(z[:len(z) * 6 // 10])
EOF2
(cd "$S/$RUN" && sha256sum "$CUT.tar.zst" >"$CUT.tar.zst.sha256sum") # only the cut is wrong
! zstd -q -t "$S/$RUN/$CUT.tar.zst" 2>/dev/null || die "premise: the cut archive still decodes"

# owner FAMILY: "path<TAB>artifact" of every regular file of the flattened tree: the last
# artifact (rockfs's flatten order: generic first, then by name) that writes it
owners() {
	python3 - "$STORE/$RUN" "$@" <<'EOF'
import io, subprocess, sys, tarfile
run, files = sys.argv[1], sys.argv[2:]
owner = {}
for f in files:
    data = subprocess.run(["zstd", "-q", "-dc", run + "/" + f], check=True,
                          stdout=subprocess.PIPE).stdout if f.endswith(".zst") else \
        subprocess.run(["xz", "-dc", run + "/" + f], check=True, stdout=subprocess.PIPE).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as t:
        members = t.getmembers()
        prefixes = [l.strip() for l in t.extractfile(members[0]).read().decode().splitlines() if l.strip()]
        for m in members[1:]:
            for p in prefixes:
                if m.name.startswith(p + "/"):
                    rel = m.name[len(p) + 1:]
                    if m.isfile() or m.islnk():
                        owner[rel] = f.split(".tar")[0]
                    else:
                        owner.pop(rel, None)
                    break
for rel in sorted(owner):
    print("%s\t%s" % (rel, owner[rel]))
EOF
}

CM=$T/clean
M=$T/mnt
it_mount clean "$STORE" "$CM" "$T/cache-clean"
it_mount bad "$S" "$M" "$T/cache"
CD=$CM/$RUN/dist
D=$M/$RUN/dist

[ "$(ls "$D")" = "$(ls "$CD")" ] || fail "dist/ shows '$(ls "$D" | tr '\n' ' ')', clean '$(ls "$CD" | tr '\n' ' ')'"

# check_files X DAMAGED: every file of the clean tree reads the same, except the ones
# DAMAGED owns: listed (all its members come before the damage), failing with EIO
check_files() {
	local x=$1 bad=$2 rel own n_eio=0 n_ok=0 err
	mapfile -t inputs < <(it_flatten_inputs "$STORE/$RUN" "$x")
	owners "${inputs[@]##*/}" >"$T/owners.$x"
	while IFS=$'\t' read -r rel own; do
		[ -f "$CD/$x/$rel" ] || continue
		if [ "$own" = "$bad" ]; then
			[ -f "$D/$x/$rel" ] || fail "$x/$rel (of $bad, read before the damage) is not listed"
			if err=$(cat "$D/$x/$rel" 2>&1 >/dev/null); then
				fail "$x/$rel (of the damaged $bad) was read"
			elif grep -q 'Input/output error' <<<"$err"; then
				n_eio=$((n_eio + 1))
			else
				fail "$x/$rel (of the damaged $bad): '$err', expected EIO"
			fi
		else
			cmp -s "$CD/$x/$rel" "$D/$x/$rel" || fail "$x/$rel (of $own) differs from the clean mount"
			n_ok=$((n_ok + 1))
		fi
	done <"$T/owners.$x"
	[ "$n_eio" -gt 0 ] || fail "$x: no file of $bad failed with EIO"
	[ "$n_ok" -gt 0 ] || fail "$x: no file of a healthy artifact was checked"
	it_say "$x: $n_ok files equal the clean mount's, $n_eio of $bad fail with EIO"
}

# 1. whole archive, wrong sidecar: the same listing as the clean mount
x=gfx94X-dcgpu
(cd "$CD/$x" && find . | sort) >"$T/want.list"
(cd "$D/$x" && find . | sort) >"$T/got.list" || fail "$x: find failed"
it_same "$x: listing (find)" "$T/want.list" "$T/got.list"
check_files $x $SUMBAD
grep -q "^$SUMBAD.tar.zst	.*sha256" "$D/.rockfs/$x.damaged" ||
	fail "dist/.rockfs/$x.damaged does not name $SUMBAD and its sha256: '$(cat "$D/.rockfs/$x.damaged" 2>&1)'"

# 2. cut archive: healthy files served, the listing ends in EIO
x=gfx110X-all
check_files $x $CUT
if err=$(ls "$D/$x" 2>&1 >"$T/ls.out"); then
	fail "$x: ls succeeded on a tree that misses the damaged artifact's unknown files"
else
	grep -q 'Input/output error' <<<"$err" || fail "$x: ls: '$err', expected EIO"
fi
for e in $(ls "$CD/$x"); do
	grep -qxF "$e" "$T/ls.out" || fail "$x: ls does not show '$e' (the clean mount does)"
done
if command -v rsync >/dev/null; then
	rc=0
	rsync -a "$D/$x/" "$T/rsync/" 2>"$T/rsync.err" || rc=$?
	[ "$rc" -ne 0 ] || fail "$x: rsync of the damaged tree exited 0"
fi
grep -q "^$CUT.tar.zst	" "$D/.rockfs/$x.damaged" ||
	fail "dist/.rockfs/$x.damaged does not name $CUT: '$(cat "$D/.rockfs/$x.damaged" 2>&1)'"

# trees without a damaged artifact: no .damaged file, listing as clean
[ ! -e "$D/.rockfs/gfx1100.damaged" ] || fail "dist/.rockfs/gfx1100.damaged exists (nothing damaged there)"
diff <(cd "$CD/gfx1100" && find . | sort) <(cd "$D/gfx1100" && find . | sort) >&2 ||
	fail "gfx1100: listing differs from the clean mount"

# 3. release tarballs: listed as on the clean mount; those whose tree holds a damaged
# artifact cannot be whole and fail with EIO, the others read as on the clean mount (a
# second store with the cut archive only: gfx94X-dcgpu's tarballs are whole there)
S2=$T/store2
mkdir -p "$S2"
cp -r "$STORE/$RUN" "$S2/$RUN"
cp "$S/$RUN/$CUT.tar.zst" "$S/$RUN/$CUT.tar.zst.sha256sum" "$S2/$RUN/"
it_mount tb "$S2" "$T/mnt2" "$T/cache2"
TB=$T/mnt2/$RUN/tarballs
if ! ls "$TB" >"$T/tb.got" 2>"$T/tb.err"; then
	fail "tarballs/ fails as a whole: $(cat "$T/tb.err")"
fi
ls "$CM/$RUN/tarballs" >"$T/tb.want"
it_same "tarballs/ listing" "$T/tb.want" "$T/tb.got"
n_bad=0 n_ok=0
for name in $(cat "$T/tb.want"); do
	case $name in
	*gfx110X* | *multiarch*)
		if err=$(cat "$TB/$name" 2>&1 >/dev/null); then
			fail "tarballs/$name (holds the damaged $CUT) was read"
		else
			grep -q 'Input/output error' <<<"$err" || fail "tarballs/$name: '$err', expected EIO"
			n_bad=$((n_bad + 1))
		fi
		;;
	*.tar | *.tar.zst)
		cmp -s "$CM/$RUN/tarballs/$name" "$TB/$name" || fail "tarballs/$name differs from the clean mount"
		n_ok=$((n_ok + 1))
		;;
	esac
done
[ "$n_bad" -gt 0 ] && [ "$n_ok" -gt 0 ] || fail "tarballs: $n_bad failing, $n_ok whole checked"
# again: still no log line but the artifact's
cat "$TB/$(grep -m1 gfx110X "$T/tb.want")" >/dev/null 2>&1 || true
n=$(grep -c "^rockfs: error: artifact '$CUT.tar.zst' of run '$RUN' is unusable" "${IT_LOG[tb]}" || true)
[ "$n" = 1 ] || fail "tarballs mount: $n lines for the damaged artifact, expected 1"
nl=$(grep -cE '^rockfs: (error|warning):' "${IT_LOG[tb]}" || true)
[ "$nl" = 1 ] || {
	fail "tarballs mount: $nl error lines for one damaged artifact, expected 1"
	grep -E '^rockfs: (error|warning):' "${IT_LOG[tb]}" >&2
}

# 4. one log line per damaged artifact, nothing else more than the clean mount logs
for a in $SUMBAD $CUT; do
	n=$(grep -c "^rockfs: error: artifact '$a.tar.zst' of run '$RUN' is unusable" "${IT_LOG[bad]}" || true)
	[ "$n" = 1 ] || fail "$a: $n log lines, expected 1"
done
# nothing else but the files that fail for them
grep -E '^rockfs: (error|warning):' "${IT_LOG[bad]}" |
	grep -vE "artifact '($SUMBAD|$CUT).tar.zst' (of run '$RUN' )?is unusable" >"$T/other.log" || true
grep -E '^rockfs: (error|warning):' "${IT_LOG[clean]}" >"$T/clean.errs" || true
if [ "$(wc -l <"$T/other.log")" -gt "$(wc -l <"$T/clean.errs")" ]; then
	fail "the damaged mount logged more than its damaged artifacts"
	cat "$T/other.log" >&2
fi

# 5. a legacy run's per-target tree, one of its family artifacts damaged (wrong sidecar)
LRUN=24205988454-linux
LBAD=blas_lib_gfx94X-dcgpu
S3=$T/store3
mkdir -p "$S3"
cp -r "$STORE/$LRUN" "$S3/$LRUN"
echo "$(printf 'not it' | sha256sum | cut -d' ' -f1)  $LBAD.tar.zst" >"$S3/$LRUN/$LBAD.tar.zst.sha256sum"
it_mount leg "$S3" "$T/mnt3" "$T/cache3"
x=gfx942
LD=$T/mnt3/$LRUN/dist/$x
LC=$CM/$LRUN/dist/$x
[ -d "$LC" ] || die "premise: the clean legacy run has no dist/$x"
(cd "$LD" && find . -type f | sort) >"$T/leg.got" || fail "legacy $x: find failed (the tree fails as a whole)"
# the damaged artifact's files, as flatten places them (below each manifest prefix)
python3 - "$STORE/$LRUN/$LBAD.tar.zst" >"$T/leg.bad" <<'EOF'
import io, subprocess, sys, tarfile
data = subprocess.run(["zstd", "-q", "-dc", sys.argv[1]], check=True, stdout=subprocess.PIPE).stdout
with tarfile.open(fileobj=io.BytesIO(data)) as t:
    members = t.getmembers()
    prefixes = [l.strip() for l in t.extractfile(members[0]).read().decode().splitlines() if l.strip()]
    for m in members[1:]:
        for p in prefixes:
            if m.isfile() and m.name.startswith(p + "/"):
                print("./" + m.name[len(p) + 1:])
EOF
[ -s "$T/leg.bad" ] || die "premise: $LBAD has no files"
n_eio=0 n_ok=0
while read -r rel; do
	grep -qxF "$rel" "$T/leg.got" || fail "legacy $x: $rel (of the damaged $LBAD) is not listed"
	if cat "$LD/$rel" >/dev/null 2>"$T/leg.err"; then
		fail "legacy $x: $rel (of the damaged $LBAD) was read"
	else
		grep -q 'Input/output error' "$T/leg.err" || fail "legacy $x: $rel: $(cat "$T/leg.err") (want EIO)"
		n_eio=$((n_eio + 1))
	fi
done <"$T/leg.bad"
while read -r rel; do
	grep -qxF "$rel" "$T/leg.bad" && continue
	[ -f "$LC/$rel" ] || continue
	cmp -s "$LC/$rel" "$LD/$rel" || fail "legacy $x: $rel differs from the clean mount"
	n_ok=$((n_ok + 1))
done <"$T/leg.got"
[ "$n_eio" -gt 0 ] && [ "$n_ok" -gt 0 ] || fail "legacy $x: $n_ok files checked equal, $n_eio failing"
it_say "legacy $x: $n_ok files equal the clean mount's, $n_eio of $LBAD fail with EIO"
grep -q "^$LBAD.tar.zst	" "$T/mnt3/$LRUN/dist/.rockfs/$x.damaged" ||
	fail "legacy: dist/.rockfs/$x.damaged does not name $LBAD"
it_finish
