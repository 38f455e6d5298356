#!/usr/bin/env bash
# packages_compress: -o packages_compress=zstd|xz (rockpack packages --compress) over the
# demo's kpack-split run, against a mount of the same store without it.
#  - every .deb holds data.tar.zst / data.tar.xz whose tar is the uncompressed package's
#    data.tar byte for byte, and the same control; every .rpm says PAYLOADCOMPRESSOR
#    zstd / xz, rpm -K passes, and rpm2cpio gives the uncompressed package's cpio;
#  - sizes are exact at listing time: the size ls shows is the bytes read, the one
#    Packages and repodata list; the index hashes are the files';
#  - apt-get installs a device package and its host package from the zstd and the xz
#    repositories (dpkg reads both), dnf from both;
#  - a mount again over the same cache compresses nothing (every piece found: "0
#    compressed" on every package's log line); rockpack packages --compress writes the
#    bytes the mount serves.
. "$(dirname "$0")/lib.sh"
it_init "$@"
for tool in dpkg-deb dpkg apt-get rpm rpm2cpio cpio dnf ar; do
	command -v $tool >/dev/null || skip "$tool is not installed"
done
[ "$(id -u)" = 0 ] || skip "dnf --installroot needs root"
. "$(dirname "$0")/../apt_sandbox.sh"
SPLIT=24205988455-linux
PKG=amdrocm-blas7.13-gfx1100

U=$T/plain
it_mount plain "$STORE" "$U" "$T/cache-plain"
UD=$U/$SPLIT/packages/deb
UR=$U/$SPLIT/packages/rpm/x86_64

# field FILE PACKAGE-FILE FIELD: a field of the Packages stanza of that pool file
field() { grep -A14 "^Filename: pool/main/$2\$" "$1" | awk -v f="$3:" '$1 == f {print $2; exit}'; }

for how in zstd xz; do
	ext=$([ $how = zstd ] && echo zst || echo xz)
	M=$T/$how
	it_mount $how "$STORE" "$M" "$T/cache" -o packages_compress=$how
	D=$M/$SPLIT/packages/deb
	X=$M/$SPLIT/packages/rpm/x86_64
	# sizes as listed, before any byte is read
	(cd "$D/pool/main" && stat -c '%n %s' -- *.deb) >"$T/$how.deb.sizes"
	(cd "$X" && stat -c '%n %s' -- *.rpm) >"$T/$how.rpm.sizes"
	[ -s "$T/$how.deb.sizes" ] && [ -s "$T/$how.rpm.sizes" ] || fail "$how: no packages"
	P=$D/dists/stable/main/binary-amd64/Packages
	while read -r f size; do
		deb=$D/pool/main/$f
		[ "$(ar t "$deb" | tr '\n' ' ')" = "debian-binary control.tar.gz data.tar.$ext " ] ||
			fail "$how/$f: members $(ar t "$deb" | tr '\n' ' ')"
		[ "$(wc -c <"$deb")" = "$size" ] || fail "$how/$f: listed $size bytes, read $(wc -c <"$deb")"
		[ "$(field "$P" "$f" Size)" = "$size" ] || fail "$how/$f: Packages says Size $(field "$P" "$f" Size)"
		[ "$(field "$P" "$f" SHA256)" = "$(sha256sum <"$deb" | cut -d' ' -f1)" ] ||
			fail "$how/$f: Packages has another SHA256"
		cmp -s <(dpkg-deb --fsys-tarfile "$deb") <(dpkg-deb --fsys-tarfile "$UD/pool/main/$f") ||
			fail "$how/$f: its data.tar is not the uncompressed package's"
		cmp -s <(dpkg-deb -f "$deb") <(dpkg-deb -f "$UD/pool/main/$f") ||
			fail "$how/$f: its control is not the uncompressed package's"
	done <"$T/$how.deb.sizes"
	zcat -f "$X"/repodata/primary.xml.gz >"$T/$how.primary"
	while read -r f size; do
		rpm=$X/$f
		[ "$(wc -c <"$rpm")" = "$size" ] || fail "$how/$f: listed $size bytes, read $(wc -c <"$rpm")"
		grep -A40 "<location href=\"$f\"" "$T/$how.primary" >/dev/null ||
			fail "$how/$f: not in repodata"
		grep -B40 "<location href=\"$f\"" "$T/$how.primary" | grep -q "<size package=\"$size\"" ||
			fail "$how/$f: repodata lists another size"
		[ "$(rpm -qp --qf '%{PAYLOADCOMPRESSOR}' "$rpm" 2>/dev/null)" = $how ] ||
			fail "$how/$f: PAYLOADCOMPRESSOR $(rpm -qp --qf '%{PAYLOADCOMPRESSOR}' "$rpm" 2>/dev/null)"
		rpm -K "$rpm" >"$T/k" 2>&1 || { cat "$T/k" >&2; fail "$how/$f: rpm -K"; }
		cmp -s <(rpm2cpio "$rpm") <(rpm2cpio "$UR/$f") ||
			fail "$how/$f: its payload is not the uncompressed package's"
	done <"$T/$how.rpm.sizes"

	# apt and dnf install from it
	apt_root "$T/apt-$how" "$D"
	sh "$T/apt-$how/apt.sh" update >"$T/update.$how.log" 2>&1 && sh "$T/apt-$how/apt.sh" install -y $PKG \
		>"$T/install.$how.log" 2>&1 || { cat "$T/update.$how.log" "$T/install.$how.log" >&2; fail "$how: apt-get install $PKG"; }
	[ "$(dpkg-query --root="$T/apt-$how" -W -f '${db:Status-Abbrev}' amdrocm-blas-host7.13)" = "ii " ] ||
		fail "$how: apt did not install the host package"
	rpm_distro_standin "$T/dnf-$how" "$X"
	dnf -y -q --installroot="$T/dnf-$how" --releasever=1 --setopt=reposdir=/dev/null \
		--setopt=cachedir="$T/dnf-$how.cache" --setopt=install_weak_deps=False --nogpgcheck \
		--disableplugin='*' --repofrompath=rock,"file://$X" --repo=rock install $PKG \
		>"$T/dnf.$how.log" 2>&1 || { cat "$T/dnf.$how.log" >&2; fail "$how: dnf install $PKG"; }
	rpm -q --root="$T/dnf-$how" amdrocm-blas-host7.13 >/dev/null || fail "$how: dnf did not install the host package"
	(cd "$M/$SPLIT/packages" && find deb rpm -type f -print0 | sort -z | xargs -0 sha256sum) >"$T/$how.sums"
	it_quiet_log $how
	it_umount $how

	# again over the same cache: every piece is found
	it_mount $how.again "$STORE" "$M" "$T/cache" -o packages_compress=$how
	ls "$D/pool/main" "$X" >/dev/null
	grep -q "pieces, .* compressed, .* from the cache" "${IT_LOG[$how.again]}" ||
		fail "$how: no line on the compressed pieces"
	grep "pieces, .* compressed, .* from the cache" "${IT_LOG[$how.again]}" | grep -v ', 0 compressed,' >&2 &&
		fail "$how: a mount over the same cache compressed pieces again"
	it_umount $how.again
	mkdir -p "$T/rp-$how"
	for type in deb rpm; do
		"$ROCKPACK" -q --cache "$T/cache-rp" packages "$STORE" $SPLIT --type $type --compress $how \
			-o "$T/rp-$how/$type" || fail "rockpack packages --type $type --compress $how"
	done
	(cd "$T/rp-$how" && find deb rpm -type f -print0 | sort -z | xargs -0 sha256sum) >"$T/$how.rp.sums"
	cmp -s "$T/$how.sums" "$T/$how.rp.sums" ||
		{ diff "$T/$how.sums" "$T/$how.rp.sums" | head >&2; fail "$how: rockpack packages --compress writes other bytes than the mount"; }
done
it_finish
