#!/usr/bin/env bash
# packages_deb: RUN/packages/deb/ of both demo runs as apt sees it.
#  - dpkg-deb --info/--contents/--fsys-tarfile read every .deb; its control says what the
#    Packages index says; the file name is TheRock's ({name}_{version}-{run id}_amd64.deb);
#  - every packaged file equals the file of the same path in the run's dist/ tree (the
#    flatten of the same artifacts), but the package's own changelog (TheRock's
#    share/doc/<name>/changelog.Debian.gz), and except ELF files whose DT_RUNPATH became DT_RPATH
#    (runpath_to_rpath.py), which differ in that one tag and readelf shows RPATH;
#  - apt-get update + install from the mounted file: repository into a throwaway root
#    (dpkg --root) pulls host + one device package of the kpack-split run, and the
#    single-arch set of the legacy run; the installed files are the packages' files;
#  - sha256 of every package is the same from a second mount with its own cache and from
#    rockpack packages;
#  - --multiarch (-o packages_multiarch) packages the legacy run as the multi-arch set from
#    its kpack split: the same package names as the split run, the device package of
#    gfx1100 with the same file list, and apt installs it.
. "$(dirname "$0")/lib.sh"
it_init "$@"
for tool in dpkg-deb dpkg apt-get readelf gzip; do
	command -v $tool >/dev/null || skip "$tool is not installed"
done

M=$T/mnt
it_mount fs "$STORE" "$M" "$T/cache"
SPLIT=24205988455-linux
LEGACY=24205988454-linux

[ "$(ls "$M/$SPLIT/packages" | tr '\n' ' ')" = "README deb rpm " ] ||
	fail "packages/ shows '$(ls "$M/$SPLIT/packages" | tr '\n' ' ')'"

. "$(dirname "$0")/../apt_sandbox.sh"

# check_deb RUN FILE: one package against its index entry and the dist tree
check_deb() {
	local run=$1 deb=$2 name x
	name=${deb##*/}
	dpkg-deb --info "$deb" >"$T/info" || { fail "$run/$name: dpkg-deb --info"; return; }
	dpkg-deb --contents "$deb" >/dev/null || fail "$run/$name: dpkg-deb --contents"
	# the control fields, from --info's copy of the control file (each dpkg-deb --field
	# is another decompression of control.tar: three of them took a quarter of the test)
	local pkg= ver= arch= key val
	while read -r key val; do
		case $key in
		Package:) pkg=$val ;;
		Version:) ver=$val ;;
		Architecture:) arch=$val ;;
		esac
	done < <(sed -n '/^ [A-Z][A-Za-z-]*:/p' "$T/info")
	[ -n "$pkg" ] && [ -n "$ver" ] && [ -n "$arch" ] ||
		fail "$run/$name: dpkg-deb --info shows no Package, Version or Architecture"
	[ "$name" = "${pkg}_${ver}_${arch}.deb" ] || fail "$run/$name: not named ${pkg}_${ver}_${arch}.deb"
	[ "${ver##*-}" = "${run%%-*}" ] || fail "$run/$name: revision is not the run id"
	grep -qx "Filename: pool/main/$name" "$T/$run.Packages" || fail "$run/$name: not in Packages"
	x=$T/x/$run/$pkg
	mkdir -p "$x"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$x" || fail "$run/$name: --fsys-tarfile | tar -x"
	dpkg-deb -x "$deb" "$x.dpkg" && diff -r --no-dereference "$x" "$x.dpkg" >/dev/null ||
		fail "$run/$name: dpkg-deb -x differs from the fsys tarfile"
	rm -rf "$x.dpkg"
	# every file equals dist/<tree>/ (any tree of the run holding that path)
	local f rel d found
	# its own file: the changelog (TheRock's), in no dist tree
	[ -f "$x/opt/rocm/core-7.13/share/doc/$pkg/changelog.Debian.gz" ] &&
		gzip -dc "$x/opt/rocm/core-7.13/share/doc/$pkg/changelog.Debian.gz" | head -1 |
		grep -qx "$pkg ($ver) UNRELEASED; urgency=medium" ||
		fail "$run/$name: no changelog.Debian.gz of its own"
	while IFS= read -r -d '' f; do
		rel=${f#"$x"/opt/rocm/core-*/}
		[ "$rel" = "share/doc/$pkg/changelog.Debian.gz" ] && continue
		found=
		for d in "$M/$run"/dist/*/; do
			[ -e "$d$rel" ] || [ -L "$d$rel" ] || continue
			if [ -L "$f" ]; then
				[ "$(readlink "$f")" = "$(readlink "$d$rel")" ] && found=1
			elif cmp -s "$f" "$d$rel"; then
				found=1
			elif [ "$(cmp -l "$f" "$d$rel" 2>/dev/null | wc -l)" = 1 ] &&
				readelf -d "$f" 2>/dev/null | grep -q '(RPATH)' &&
				readelf -d "$d$rel" 2>/dev/null | grep -q '(RUNPATH)'; then
				found=1 # the one tag runpath_to_rpath.py changes
				RPATHS=$((RPATHS + 1))
			fi
			[ -n "$found" ] && break
		done
		[ -n "$found" ] || fail "$run/$name: $rel is in no dist tree of the run"
	done < <(find "$x" -mindepth 1 \( -type f -o -type l \) -print0)
}

RPATHS=0
for run in $SPLIT $LEGACY; do
	D=$M/$run/packages/deb
	ls "$D/pool/main" >"$T/$run.pool" || fail "$run: cannot list pool/main"
	[ -s "$T/$run.pool" ] || fail "$run: no packages"
	cp "$D/dists/stable/main/binary-amd64/Packages" "$T/$run.Packages"
	gzip -dc "$D/dists/stable/main/binary-amd64/Packages.gz" | cmp -s - "$T/$run.Packages" ||
		fail "$run: Packages.gz is not Packages"
	grep -q '^SHA256:' "$D/dists/stable/Release" || fail "$run: Release has no SHA256"
	[ "$(grep -c '^Package:' "$T/$run.Packages")" = "$(wc -l <"$T/$run.pool")" ] ||
		fail "$run: Packages lists $(grep -c '^Package:' "$T/$run.Packages") of $(wc -l <"$T/$run.pool") packages"
	while read -r f; do
		check_deb "$run" "$D/pool/main/$f"
		# the index's hashes are the file's
		read -r sum _ < <(sha256sum <"$D/pool/main/$f") || true
		grep -A12 "^Filename: pool/main/$f\$" "$T/$run.Packages" | grep -qx "SHA256: $sum" ||
			fail "$run/$f: Packages has another SHA256"
	done <"$T/$run.pool"
done
[ "$RPATHS" -gt 0 ] || it_say "note: no ELF file with a RUNPATH in the demo packages"

# the multi-arch set: host + device of one arch, dependencies resolved by apt
grep -q '^Package: amdrocm-blas7.13-gfx1100$' "$T/$SPLIT.Packages" ||
	fail "$SPLIT: no amdrocm-blas7.13-gfx1100 (the device package of gfx1100)"
apt_root "$T/root-split" "$M/$SPLIT/packages/deb"
sh "$T/root-split/apt.sh" update >"$T/update.log" 2>&1 || { cat "$T/update.log" >&2; fail "apt-get update ($SPLIT)"; }
grep -qE '^(W|E):' "$T/update.log" && { cat "$T/update.log" >&2; fail "apt-get update warned ($SPLIT)"; }
if sh "$T/root-split/apt.sh" install -y amdrocm-blas7.13-gfx1100 >"$T/install.log" 2>&1; then
	grep -q '^amdrocm-blas-host7.13' <(dpkg --root="$T/root-split" -l | awk '/^ii/ {print $2}') ||
		fail "$SPLIT: installing the gfx1100 device package did not pull its host package"
	for p in $(dpkg --root="$T/root-split" -l | awk '/^ii  amdrocm/ {print $2}'); do
		dpkg --root="$T/root-split" -L "$p" | while read -r f; do
			[ -f "$T/root-split$f" ] && [ ! -L "$T/root-split$f" ] || continue
			cmp -s "$T/root-split$f" "$T/x/$SPLIT/$p$f" || echo "$p: $f"
		done
	done >"$T/installed.diff"
	[ -s "$T/installed.diff" ] && { head "$T/installed.diff" >&2; fail "$SPLIT: installed files differ from their packages"; }
else
	cat "$T/install.log" >&2
	fail "apt-get install amdrocm-blas7.13-gfx1100 ($SPLIT)"
fi

# the single-arch set of the legacy run: one family's package
apt_root "$T/root-legacy" "$M/$LEGACY/packages/deb"
sh "$T/root-legacy/apt.sh" update >"$T/update2.log" 2>&1 || { cat "$T/update2.log" >&2; fail "apt-get update ($LEGACY)"; }
pkg=$(awk '/^Package: amdrocm-blas7.13-gfx94x$/ {print $2}' "$T/$LEGACY.Packages")
[ -n "$pkg" ] || fail "$LEGACY: no amdrocm-blas7.13-gfx94x (the single-arch package of gfx94X-dcgpu)"
sh "$T/root-legacy/apt.sh" install -y "${pkg:-amdrocm-blas7.13-gfx94x}" >"$T/install2.log" 2>&1 ||
	{ cat "$T/install2.log" >&2; fail "apt-get install $pkg ($LEGACY)"; }

# determinism: a second mount with its own cache, and rockpack packages
it_mount fs2 "$STORE" "$T/mnt2" "$T/cache2"
(cd "$M/$SPLIT/packages/deb" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$T/a.sums"
(cd "$T/mnt2/$SPLIT/packages/deb" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$T/b.sums"
cmp -s "$T/a.sums" "$T/b.sums" || fail "$SPLIT: a second mount serves other bytes"
"$ROCKPACK" -q --cache "$T/cache3" packages "$STORE" $SPLIT --type deb -o "$T/out" ||
	fail "rockpack packages --type deb"
(cd "$T/out" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$T/c.sums"
cmp -s "$T/a.sums" "$T/c.sums" || fail "$SPLIT: rockpack packages writes other bytes than the mount"
# the legacy run as the multi-arch set (rockfs's kpack split of its fat binaries)
"$ROCKPACK" -q --cache "$T/cache3" packages "$STORE" $LEGACY --type deb --multiarch -o "$T/ma" ||
	fail "rockpack packages --multiarch"
# (a dev build's version carries the day of its run's earliest artifact: not compared)
diff <(ls "$T/ma/pool/main" | sed "s/~~dev[0-9]*-${LEGACY%%-*}_/-RUN_/") \
	<(sed "s/~~dev[0-9]*-${SPLIT%%-*}_/-RUN_/" "$T/$SPLIT.pool") >"$T/ma.diff" ||
	{ head "$T/ma.diff" >&2; fail "--multiarch: not the split run's package set"; }
dev=amdrocm-blas7.13-gfx1100_7.13.0~~dev
cmp -s <(dpkg-deb --contents "$T/ma/pool/main/${dev}"*"-${LEGACY%%-*}_amd64.deb" | awk '{print $6}') \
	<(dpkg-deb --contents "$M/$SPLIT/packages/deb/pool/main/${dev}"*"-${SPLIT%%-*}_amd64.deb" | awk '{print $6}') ||
	fail "--multiarch: the gfx1100 device package holds other files than the split run's"
apt_root "$T/root-ma" "$T/ma"
sh "$T/root-ma/apt.sh" update >"$T/update3.log" 2>&1 && sh "$T/root-ma/apt.sh" install -y amdrocm-blas7.13-gfx1100 \
	>"$T/install3.log" 2>&1 || { cat "$T/update3.log" "$T/install3.log" >&2; fail "apt-get install from the --multiarch repository"; }
it_finish
