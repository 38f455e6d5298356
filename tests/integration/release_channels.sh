#!/usr/bin/env bash
# release_channels: which runs release/ holds (view_release.c, docs/views.md "release/",
# issue 32 items 3 and 4), on a local store of the demo's legacy and split runs plus
# three damaged runs and a Windows run:
#  - a run without a stored manifest, a failed run (only logs/) and a run with an empty
#    artifact are left out of every channel, and release/README lists each with its
#    reason, one line per run; the listing ingests no artifact; a run whose archive
#    turns out damaged when a channel first reads it leaves within list_ttl;
#  - a run published while mounted joins tarball/, whl-next/ and packages/deb/ within
#    list_ttl, without a remount (the engine serves release/ anew: refresh_store_view);
#  - -o release_platform=linux|windows and -o release_min_age (a run's finish time: the
#    newest time of its top files) keep the runs they name, and the README says why the
#    others are out; rockpack release --platform / --min-age the same;
#  - a bad duration is refused at mount.
. "$(dirname "$0")/lib.sh"
it_init "$@"
SPLIT=24205988455-linux
LEGACY=24205988454-linux
NOMAN=24205988470-linux
FAILED=24205988471-linux
EMPTY=24205988472-linux
WIN=24205988473-windows
BAD=24205988474-linux
NEW=24205988480-linux

S=$T/store
mkdir -p "$S/$FAILED/logs"
cp -r "$STORE/$SPLIT" "$STORE/$LEGACY" "$S/"
cp -r "$STORE/$SPLIT" "$S/$NOMAN"
rm -r "$S/$NOMAN/manifests"
echo "build failed" >"$S/$FAILED/logs/build.log"
cp -r "$STORE/$SPLIT" "$S/$EMPTY"
empty=$(cd "$S/$EMPTY" && ls ./*.tar.* | grep -v sha256sum | head -n 1)
empty=${empty#./}
: >"$S/$EMPTY/$empty"
rm -f "$S/$EMPTY/$empty.sha256sum"
cp -r "$STORE/$SPLIT" "$S/$WIN"
cp -r "$STORE/$SPLIT" "$S/$BAD"
bad=$(cd "$S/$BAD" && ls ./*.tar.zst | head -n 1)
bad=${bad#./}
head -c 4096 /dev/urandom >"$S/$BAD/$bad"
rm -f "$S/$BAD/$bad.sha256sum"

# ---- the damaged runs: out of every channel, each named in the README
M=$T/mnt
it_mount fs "$S" "$M" "$T/cache" -o list_ttl=1
printf '%s\n' "$NOMAN  no manifests/therock_manifest.json" \
	"$FAILED  no artifacts (a failed build: only folders such as logs/)" \
	"$EMPTY  artifact $empty: empty (0 bytes)" >"$T/want"
sed -n '/^Left out of every channel/,$p' "$M/release/README" | tail -n +2 >"$T/got"
it_same "release/README's left-out runs" "$T/want" "$T/got"
# (BAD's archive is damaged inside: nobody has read it yet, so it is in)
printf '%s\n' 00000000-24205988454 00000000-24205988455 00000000-24205988474 all \
	index.html latest >"$T/want"
ls "$M/release/packages/deb" >"$T/got"
it_same "packages/deb/ (damaged runs left out)" "$T/want" "$T/got"
ingested=$(find "$T/cache/blobs" "$T/cache/index" -type f 2>/dev/null | wc -l)
[ "$ingested" = 0 ] || fail "choosing the runs ingested artifacts ($ingested blobs)"
ls "$M/release/tarball" >"$T/tarball"
grep -q -- '-windows-' "$T/tarball" || fail "tarball/ has no Windows run's tarball (platform=all)"
ls "$M/release/whl-next/rocm" >"$T/rocm"
# listing tarball/ read BAD's archives: within list_ttl it is out, and the README says why
for _ in $(seq 60); do
	grep -q "^$BAD  artifact $bad does not read: " "$M/release/README" && break
	sleep 0.5
done
grep -q "^$BAD  artifact $bad does not read: " "$M/release/README" ||
	fail "a run whose archive failed is not named in the README: $(tail -n 5 "$M/release/README")"
! ls "$M/release/packages/deb" | grep -q 24205988474 ||
	fail "a run whose archive failed is still in packages/deb/"

# ---- a run published while mounted joins every channel within list_ttl
cp -r "$STORE/$SPLIT" "$S/.$NEW"
sed -i 's/"rocm_package_version": "[^"]*"/"rocm_package_version": "7.13.0a20261121"/' \
	"$S/.$NEW/manifests/therock_manifest.json"
mv "$S/.$NEW" "$S/$NEW"
# (list_ttl=1: the kernel's entries time out after 1 s, the view is asked again then)
for _ in $(seq 60); do
	ls "$M/release/packages/deb" | grep -qx "20261121-24205988480" && break
	sleep 0.5
done
ls "$M/release/packages/deb" | grep -qx "20261121-24205988480" ||
	fail "a new run is not in packages/deb/ after list_ttl: $(ls "$M/release/packages/deb" | tr '\n' ' ')"
ls "$M/release/tarball" | grep -q 'therock-dist-linux-.*-7.13.0a20261121.tar.gz' ||
	fail "a new run's tarballs are not in tarball/: $(ls "$M/release/tarball" | tr '\n' ' ')"
[ -e "$M/release/whl-next/rocm/rocm-7.13.0a20261121.tar.gz" ] ||
	fail "a new run's sdist is not in whl-next/rocm/: $(ls "$M/release/whl-next/rocm" | tr '\n' ' ')"
grep -q 'rocm-7.13.0a20261121.tar.gz' "$M/release/whl-next/rocm/index.html" ||
	fail "whl-next/rocm/index.html does not link the new run's sdist"
it_umount fs
rm -r "${S:?}/$NEW"

# ---- the platform rule; the minimum age (LEGACY finished three days ago)
find "$S/$LEGACY" -exec touch -h -d '3 days ago' {} +
it_mount lin "$S" "$T/lin" "$T/cache" -o release_platform=linux -o release_min_age=2d
printf '%s\n' 00000000-24205988454 all index.html latest >"$T/want"
ls "$T/lin/release/packages/rpm" >"$T/got"
it_same "release_min_age=2d: packages/rpm/" "$T/want" "$T/got"
grep -qx "$WIN  release_platform=linux: a windows run" "$T/lin/release/README" ||
	fail "release_platform=linux: the README does not say why $WIN is out"
grep -q "^$SPLIT  release_min_age=172800s: finished " "$T/lin/release/README" ||
	fail "release_min_age: the README does not say why $SPLIT is out"
ls "$T/lin/release/tarball" >"$T/got"
! grep -q -- '-windows-' "$T/got" || fail "release_platform=linux: tarball/ has a Windows tarball"
it_umount lin
it_mount win "$S" "$T/win" "$T/cache" -o release_platform=windows
[ "$(ls "$T/win/release/packages/deb")" = index.html ] ||
	fail "release_platform=windows: packages/deb/ lists $(ls "$T/win/release/packages/deb" | tr '\n' ' ')"
ls "$T/win/release/tarball" >"$T/got"
[ -s "$T/got" ] && ! grep -qv -- '-windows-' "$T/got" ||
	fail "release_platform=windows: tarball/ has $(tr '\n' ' ' <"$T/got")"
it_umount win
"$ROCKPACK" -q --cache "$T/cache" release "$S" -o "$T/rel" --kind rpm --platform linux \
	--min-age 48h || fail "rockpack release --platform --min-age"
[ "$(ls "$T/rel/packages/rpm")" = "$(printf '00000000-24205988454\nall\nindex.html')" ] ||
	fail "rockpack release --min-age 48h wrote $(ls "$T/rel/packages/rpm" | tr '\n' ' ')"

# ---- a bad duration is refused
mkdir -p "$T/bad"
if "$ROCKFS" "$S" "$T/bad" -f -o "cache=$T/cache" -o release_min_age=2x 2>"$T/bad.err"; then
	fail "release_min_age=2x was taken"
fi
grep -q "release_min_age.*'2x'.*duration" "$T/bad.err" || fail "release_min_age=2x: $(cat "$T/bad.err")"
it_finish
