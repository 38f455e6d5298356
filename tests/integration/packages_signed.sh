#!/usr/bin/env bash
# packages_signed: -o sign_key=KEY signs the repository indexes of RUN/packages/.
#  - InRelease (clear-signed Release), Release.gpg and repodata/repomd.xml.asc verify with
#    gpgv against the public key, and InRelease holds exactly Release;
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
gpgconf --kill all 2>/dev/null || true # the agent the key made
it_finish
