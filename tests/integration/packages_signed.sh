#!/usr/bin/env bash
# packages_signed: -o sign_key=KEY signs the repository indexes of RUN/packages/.
#  - InRelease (clear-signed Release), Release.gpg and repodata/repomd.xml.asc verify with
#    gpgv against the public key, and InRelease holds exactly Release;
#  - every RPM's header is signed as rpmsign signs it: rpmkeys --checksig with the key the
#    mount serves (rpm/RPM-GPG-KEY); byte-equal to `rpmsign --addsign` of the unsigned
#    mount's package (gpg at the same time); the same bytes from a second mount; packages/README's
#    dnf line (gpgcheck=1, gpgkey) installs on the stock dnf.conf;
#  - apt-get update accepts the repository with signed-by= (no [trusted=yes]);
#  - an unknown key is refused at mount time (one line, exit 1), and by rockpack;
#  - without sign_key no signature files are served.
. "$(dirname "$0")/lib.sh"
it_init "$@"
for tool in gpg gpgv apt-get; do
	command -v $tool >/dev/null || skip "$tool is not installed"
done
SPLIT=24205988455-linux
export GNUPGHOME=$T/gnupg
mkdir -m 700 "$GNUPGHOME"
gpg -q --batch --passphrase '' --quick-gen-key 'rockfs test <test@rockfs.invalid>' ed25519 sign never 2>/dev/null ||
	skip "gpg cannot make a key here"
gpg -q --export test@rockfs.invalid >"$T/key.gpg"

it_mount fs "$STORE" "$T/mnt" "$T/cache" -o sign_key=test@rockfs.invalid
D=$T/mnt/$SPLIT/packages/deb/dists/stable
gpgv --keyring "$T/key.gpg" "$D/InRelease" 2>"$T/v1" || { cat "$T/v1" >&2; fail "InRelease does not verify"; }
gpgv --keyring "$T/key.gpg" "$D/Release.gpg" "$D/Release" 2>"$T/v2" || { cat "$T/v2" >&2; fail "Release.gpg does not verify"; }
gpg -q --batch --decrypt "$D/InRelease" 2>/dev/null | cmp -s - "$D/Release" || fail "InRelease does not hold Release"
X=$T/mnt/$SPLIT/packages/rpm/x86_64/repodata
gpgv --keyring "$T/key.gpg" "$X/repomd.xml.asc" "$X/repomd.xml" 2>"$T/v3" || { cat "$T/v3" >&2; fail "repomd.xml.asc does not verify"; }

# every RPM's header signed (rpm -K through rpmkeys with the served key, as rpmsign's;
# one in eight of a zstd-compressed mount's too),
# the same bytes from a second mount with its own cache (the signature is dated, not "now")
if command -v rpmkeys >/dev/null; then
	P=$T/mnt/$SPLIT/packages/rpm
	gpg -q --armor --export test@rockfs.invalid | cmp -s - "$P/RPM-GPG-KEY" ||
		fail "rpm/RPM-GPG-KEY is not the key's public part"
	mkdir -p "$T/rpmdb"
	rpmkeys --root "$T/rpmdb" --import "$P/RPM-GPG-KEY" || fail "rpmkeys --import RPM-GPG-KEY"
	# checksig WHAT RPM...: rpm -K through rpmkeys with the served key (one rpmkeys for
	# all): each RPM's header signed and everything OK
	checksig() {
		local what=$1
		shift
		[ $# -gt 0 ] || { fail "no${what:+ compressed} RPMs"; return; }
		rpmkeys --root "$T/rpmdb" --checksig -v "$@" >"$T/k" 2>&1 || { cat "$T/k" >&2; fail "rpm -K$what"; }
		awk '/^[^ \t]/ { f = $0; sub(/:$/, "", f); files[f] = 0; next }
			/Header V4 [A-Za-z]+\/SHA256 Signature, key ID [0-9a-f]+: OK/ { files[f] = 1 }
			END { for (f in files) if (!files[f]) print f }' "$T/k" >"$T/k.unsigned"
		[ ! -s "$T/k.unsigned" ] || { cat "$T/k" >&2; fail "rpm -K$what: no header signature: $(cat "$T/k.unsigned")"; }
		[ "$(grep -c '^[^ 	]' "$T/k")" = $# ] || { cat "$T/k" >&2; fail "rpm -K$what: not one report per RPM"; }
	}
	checksig "" "$P"/x86_64/*.rpm
	# rpmsign is the oracle: it signs an unsigned mount's package, in place, into the same
	# bytes (its gpg run at the same time: the package's, or the key's creation if later)
	if command -v rpmsign >/dev/null; then
		it_mount un "$STORE" "$T/mun" "$T/cacheun"
		kt=$(gpg --with-colons --list-secret-keys test@rockfs.invalid | awk -F: '$1 == "sec" {print $6; exit}')
		fpr=$(gpg --with-colons --list-secret-keys test@rockfs.invalid | awk -F: '$1 == "fpr" {print $10; exit}')
		mkdir -p "$T/rs"
		for f in $(ls "$P"/x86_64/*.rpm | awk 'NR % 8 == 1'); do # one in eight: gpg is slow
			cp "$T/mun/$SPLIT/packages/rpm/x86_64/${f##*/}" "$T/rs/x.rpm"
			chmod 644 "$T/rs/x.rpm"
			bt=$(rpm -qp --qf '%{BUILDTIME}' "$T/rs/x.rpm" 2>/dev/null)
			rpmsign --addsign --define "__gpg $(command -v gpg)" --define "_gpg_name $fpr" \
				--define "_gpg_digest_algo sha256" \
				--define "_gpg_sign_cmd_extra_args --faked-system-time $((bt > kt ? bt : kt))!" \
				"$T/rs/x.rpm" >"$T/rs.log" 2>&1 || { cat "$T/rs.log" >&2; fail "rpmsign ${f##*/}"; }
			cmp -s "$T/rs/x.rpm" "$f" || fail "${f##*/}: not the bytes rpmsign makes of the unsigned package"
		done
		it_umount un
	fi
	# signed and compressed: the signature header counts the compressed payload's bytes
	it_mount fsz "$STORE" "$T/mz" "$T/cachez" -o sign_key=test@rockfs.invalid,packages_compress=zstd
	checksig " (zstd)" $(ls "$T/mz/$SPLIT/packages/rpm/x86_64/"*.rpm | awk 'NR % 8 == 1')
	it_umount fsz
	it_mount fs4 "$STORE" "$T/m4" "$T/cache4" -o sign_key=test@rockfs.invalid
	for f in "$P"/x86_64/*.rpm; do
		cmp -s "$f" "$T/m4/$SPLIT/packages/rpm/x86_64/${f##*/}" ||
			fail "a second mount signs ${f##*/} into other bytes"
	done
	it_umount fs4
	# packages/README's dnf line for a signed repository, on the stock dnf.conf
	if command -v dnf >/dev/null; then
		line=$(sed -n '/^  rpm\//,/^$/p' "$T/mnt/$SPLIT/packages/README" | sed 1d | tr -d '\\' |
			tr -s ' \n' ' ' | sed -E 's/^ //; s/ \.\.\. ?$//')
		case $line in *gpgcheck=1*gpgkey=*) ;; *) fail "packages/README: no signed dnf line: $line" ;; esac
		line=${line//<mount>\/<run>/$T\/mnt\/$SPLIT}
		rpm_distro_standin "$T/dnfroot" "$T/mnt/$SPLIT/packages/rpm/x86_64"
		$line -y -q --installroot="$T/dnfroot" --releasever=1 --setopt=reposdir=/dev/null \
			--disableplugin='*' amdrocm-blas7.13-gfx1100 >"$T/dnf.log" 2>&1 ||
			{ tail -20 "$T/dnf.log" >&2; fail "dnf with gpgcheck=1 and the served key"; }
		rpm -q --root="$T/dnfroot" amdrocm-blas7.13-gfx1100 >/dev/null || fail "dnf: not installed"
	fi
fi

# apt trusts the repository through the key alone
A=$T/apt
mkdir -p "$A/lists/partial" "$A/archives/partial" "$A/etc"
echo "deb [signed-by=$T/key.gpg] file:$T/mnt/$SPLIT/packages/deb stable main" >"$A/sources.list"
apt-get -q -o Dir::State=$A -o Dir::State::status=/var/lib/dpkg/status -o Dir::Cache=$A \
	-o Dir::Etc::sourcelist=$A/sources.list -o Dir::Etc::sourceparts=- -o Dir::Etc::main=/dev/null \
	-o Dir::Etc::parts=$A/etc -o APT::Get::List-Cleanup=0 -o Debug::NoLocking=1 \
	-o APT::Sandbox::User=root -o Acquire::Languages=none update >"$T/update.log" 2>&1 ||
	{ cat "$T/update.log" >&2; fail "apt-get update with signed-by"; }
grep -qE '^(W|E):' "$T/update.log" && { cat "$T/update.log" >&2; fail "apt-get update warned with signed-by"; }

# an unknown key: refused before mounting, one line
mkdir -p "$T/m2"
"$ROCKFS" "$STORE" "$T/m2" -f -o "cache=$T/cache2,sign_key=nobody@rockfs.invalid" >"$T/bad.log" 2>&1 &&
	fail "rockfs mounted with an unknown signing key"
[ "$(wc -l <"$T/bad.log")" = 1 ] || { cat "$T/bad.log" >&2; fail "want one line for an unknown signing key"; }
"$ROCKPACK" -q --cache "$T/cache2" packages "$STORE" $SPLIT --type rpm --sign-key nobody@rockfs.invalid \
	-o "$T/o" 2>/dev/null && fail "rockpack packages accepted an unknown signing key"

# unsigned: no signature files
it_mount fs3 "$STORE" "$T/m3" "$T/cache3"
[ -e "$T/m3/$SPLIT/packages/deb/dists/stable/InRelease" ] && fail "InRelease without sign_key"
[ -e "$T/m3/$SPLIT/packages/rpm/x86_64/repodata/repomd.xml.asc" ] && fail "repomd.xml.asc without sign_key"
[ -e "$T/m3/$SPLIT/packages/rpm/RPM-GPG-KEY" ] && fail "RPM-GPG-KEY without sign_key"
rpm -qp --qf '%{RSAHEADER}%{DSAHEADER}' "$(ls "$T/m3/$SPLIT/packages/rpm/x86_64/"*.rpm | head -1)" 2>/dev/null |
	grep -qv '(none)(none)' && fail "an RPM is signed without sign_key"
gpgconf --kill all 2>/dev/null || true # the agent the key made
it_finish
