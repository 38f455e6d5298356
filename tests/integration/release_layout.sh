#!/usr/bin/env bash
# release_layout: release/ (view_release.c, docs/views.md "release/") on a store of three
# runs as TheRock names them: the demo's legacy and split runs (dev, 7.13.0.dev0+abc1234)
# and a nightly (the split run again, its manifest saying 7.13.0a20261120):
#  - the tree equals what upstream's release pipeline publishes for the three runs
#    (release_oracle.py runs publish_rocm_to_release_buckets.py, manage_structured.py and
#    generate_package_indexes.py offline): the same paths, the same index pages, every
#    file a symlink that resolves inside the mount to the run view file upstream copies;
#  - the symlinks read (a tarball, a .deb) the run view's bytes;
#  - pip installs the newest rocm[libraries,devel] from whl-next/ (the nightly's) and,
#    pinned, the older dev one;
#  - a fresh mount lists packages/deb/ and packages/rpm/ without ingesting an artifact
#    (names from the manifests only);
#  - rockpack release writes the same tree as real files (every --kind, then one kind);
#  - a remount on the same cache lists tarball/, whl-next/ and packages/<kind>/ without
#    reading an archive;
#  - -o release_newest=1 and release_kind=legacy (rockpack release --newest) keep the runs
#    they name.
. "$(dirname "$0")/lib.sh"
it_init "$@"
PY=/usr/bin/python3
DEPS=/usr/share/python-wheels
[ -x "$PY" ] || skip "Debian's python3 is not installed"
"$PY" -c 'import packaging.utils' 2>/dev/null || skip "python3-packaging is not installed"
SPLIT=24205988455-linux
LEGACY=24205988454-linux
NIGHTLY=24205988460-linux
PIP_OPTS=(--no-cache-dir --disable-pip-version-check --no-input)
for v in $(env | sed -n 's/^\(PIP_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export PIP_CONFIG_FILE=/dev/null

S=$T/store
mkdir -p "$S"
# (copies: a local store follows no symlink)
cp -r "$STORE/$SPLIT" "$STORE/$LEGACY" "$S/"
cp -r "$STORE/$SPLIT" "$S/$NIGHTLY"
sed -i 's/"rocm_package_version": "[^"]*"/"rocm_package_version": "7.13.0a20261120"/;
	s/"github_run_id": "[^"]*"/"github_run_id": "24205988460"/' \
	"$S/$NIGHTLY/manifests/therock_manifest.json"

# a fresh mount: packages/<kind>/ lists every Linux run, and ingests nothing
M=$T/mnt
it_mount fs "$S" "$M" "$T/cache"
ls "$M/release/packages/deb" "$M/release/packages/rpm" >"$T/kinds"
for k in deb rpm; do
	printf '%s\n' 00000000-24205988454 00000000-24205988455 20261120-24205988460 all index.html \
		latest >"$T/want"
	ls "$M/release/packages/$k" >"$T/got"
	it_same "packages/$k/" "$T/want" "$T/got"
done
ingested=$(find "$T/cache/blobs" "$T/cache/index" -type f 2>/dev/null | wc -l)
[ "$ingested" = 0 ] || fail "listing packages/deb/ and rpm/ ingested artifacts ($ingested blobs)"
[ "$(ls "$M")" = "$(printf '%s\n' $LEGACY $SPLIT $NIGHTLY README release)" ] ||
	fail "the root lists $(ls "$M" | tr '\n' ' ')"

# the layout upstream publishes, and its pages
PYTHONPATH=$(dirname "$0")/py312_compat "$PY" "$(dirname "$0")/release_oracle.py" "$M" \
	"$T/oracle" >"$T/oracle.log" 2>&1 || { fail "release/ differs from upstream's layout"
	grep -v '^INFO\|^Generat\|^Upload\|^  \|^Retriev\|^✓' "$T/oracle.log" | head -n 30 >&2; }
tail -n 1 "$T/oracle.log" >&2

# bytes through the symlinks
tb=therock-dist-linux-gfx94X-dcgpu-7.13.0a20261120.tar.gz
cmp "$M/release/tarball/$tb" "$M/$NIGHTLY/tarballs/$tb" || fail "release/tarball/$tb"
debs=("$M"/release/packages/deb/00000000-24205988454/pool/main/*.deb)
deb=${debs[0]##*/}
cmp "$M/release/packages/deb/00000000-24205988454/pool/main/$deb" \
	"$M/$LEGACY/packages/deb/pool/main/$deb" || fail "release/packages/deb/.../$deb"

# the all-runs repositories (driven by apt and dnf in release_all_repos, here under the
# sanitizers): every Linux run's packages in one index, each entry's file there
want=0
for r in $LEGACY $SPLIT $NIGHTLY; do
	want=$((want + $(grep -c '^Package: ' "$M/$r/packages/deb/dists/stable/main/binary-amd64/Packages")))
done
A=$M/release/packages/deb/all
got=$(grep -c '^Package: ' "$A/dists/stable/main/binary-amd64/Packages")
[ "$got" = "$want" ] || fail "deb/all/ lists $got packages, the runs $want"
while read -r f; do
	[ -f "$A/$f" ] || { fail "deb/all/: $f is not there"; break; }
done < <(sed -n 's/^Filename: //p' "$A/dists/stable/main/binary-amd64/Packages")
grep -q '^SHA256:' "$A/dists/stable/Release" || fail "deb/all/: Release has no SHA256"
want=0
for r in $LEGACY $SPLIT $NIGHTLY; do
	want=$((want + $(zcat "$M/$r"/packages/rpm/x86_64/repodata/*primary.xml.gz | grep -c '<package ')))
done
R=$M/release/packages/rpm/all
got=$(zcat "$R"/repodata/*primary.xml.gz | grep -c '<package ')
[ "$got" = "$want" ] || fail "rpm/all/ lists $got packages, the runs $want"
while read -r f; do
	[ -f "$R/$f" ] || { fail "rpm/all/: $f is not there"; break; }
done < <(zcat "$R"/repodata/*primary.xml.gz | sed -n 's/.*<location href="\([^"]*\)".*/\1/p')

# pip: the newest by default, an older one pinned
if it_need_venv "$PY"; then
	for spec in 'rocm[libraries,devel,device]' 'rocm[libraries,devel,device]==7.13.0.dev0+abc1234'; do
		V=$T/venv-${#spec}
		it_venv "$PY" "$V" || die "venv"
		"$V/bin/pip" install "${PIP_OPTS[@]}" --pre --index-url "file://$M/release/whl-next/" \
			--find-links "$DEPS" "$spec" >"$T/pip.log" 2>&1 ||
			{ fail "pip install $spec"; tail -n 30 "$T/pip.log" >&2; continue; }
		"$V/bin/pip" list --format=freeze 2>/dev/null | grep '^rocm' | sort >"$T/installed"
		case $spec in
		*==*) ver=7.13.0.dev0+abc1234 ;;
		*) ver=7.13.0a20261120 ;;
		esac
		printf '%s\n' rocm rocm-sdk-core rocm-sdk-devel rocm-sdk-device-gfx1100 \
			rocm-sdk-libraries | sed "s/\$/==$ver/" | sort >"$T/want"
		it_same "pip install $spec" "$T/want" "$T/installed"
	done
fi

# rockpack release: the same tree, files for the links (the mount's README left out)
"$ROCKPACK" -q --cache "$T/cache" release "$S" -o "$T/rel" || fail "rockpack release"
# (packages/<kind>/latest, a link to a run's directory, is not written: an object store has
# no links)
sums() { (cd "$1" && find -L . -type f ! -path ./README ! -path './packages/*/latest/*' ! -path './latest/*' -print0 | sort -z |
	xargs -0 sha256sum); }
sums "$M/release" >"$T/mnt.sums"
sums "$T/rel" >"$T/rp.sums"
it_same "rockpack release and the mount's release/" "$T/mnt.sums" "$T/rp.sums"
[ -z "$(find "$T/rel" -type l)" ] || fail "rockpack release wrote symlinks"
"$ROCKPACK" -q --cache "$T/cache" release "$S" -o "$T/rel-deb" --kind deb ||
	fail "rockpack release --kind deb"
[ "$(ls "$T/rel-deb")" = packages ] && sums "$T/rel-deb/packages/deb" >"$T/deb.sums" &&
	sums "$M/release/packages/deb" >"$T/deb.want" &&
	it_same "rockpack release --kind deb" "$T/deb.want" "$T/deb.sums" ||
	fail "rockpack release --kind deb wrote $(ls "$T/rel-deb")"

it_umount fs

# a remount on the same cache lists every channel reading no archive: the names each
# run's views gave are remembered per run (view_release.c, run_names); a run's own
# packages/<kind>/<day>-<id>/ is its packages view (made on a look into it)
it_mount fs2 "$S" "$T/mnt2" "$T/cache"
R2=$T/mnt2/release
ls -l "$R2" "$R2/tarball" "$R2/whl-next" "$R2"/whl-next/* "$R2/packages/deb" "$R2/packages/rpm" \
	>"$T/ls2" || fail "listing release/ after a remount"
"$ROCKPACK" status "$T/mnt2" >"$T/status2"
grep -qx 'ingests_done: 0' "$T/status2" && grep -qx 'index_loads: 0' "$T/status2" ||
	fail "listing release/ after a remount read archives: $(grep -E '^(ingests_done|index_loads)' "$T/status2" | tr '\n' ' ')"
[ "$(grep -c '\.tar\.gz$' "$T/ls2")" -ge 14 ] || fail "release/ after a remount: $(head -n 20 "$T/ls2")"
it_umount fs2

# options: the newest run only; the legacy run only (rockpack's flags the same)
it_mount fs3 "$S" "$T/mnt3" "$T/cache" -o release_newest=1
[ "$(ls "$T/mnt3/release/packages/rpm")" = "$(printf '20261120-24205988460\nall\nindex.html\nlatest')" ] ||
	fail "release_newest=1: packages/rpm/ lists $(ls "$T/mnt3/release/packages/rpm" | tr '\n' ' ')"
it_umount fs3
it_mount fs4 "$S" "$T/mnt4" "$T/cache" -o release_kind=legacy
[ "$(ls "$T/mnt4/release/packages/deb")" = "$(printf '00000000-24205988454\nall\nindex.html\nlatest')" ] ||
	fail "release_kind=legacy: packages/deb/ lists $(ls "$T/mnt4/release/packages/deb" | tr '\n' ' ')"
it_umount fs4
"$ROCKPACK" -q --cache "$T/cache" release "$S" -o "$T/rel-new" --kind python --newest 1 ||
	fail "rockpack release --newest 1"
[ "$(ls "$T/rel-new/whl-next/rocm")" = "$(printf 'index.html\nrocm-7.13.0a20261120.tar.gz')" ] ||
	fail "rockpack release --newest 1: whl-next/rocm/ has $(ls "$T/rel-new/whl-next/rocm" | tr '\n' ' ')"
it_finish
