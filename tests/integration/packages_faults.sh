#!/usr/bin/env bash
# packages_faults: bad input around RUN/packages/.
#  - a damaged artifact: exactly the packages built from it are left out, each with one
#    log line naming it and the artifact, and the packages that depend on them (one line
#    each: the repository never names a package it does not hold); every other package
#    is served and listed in the indexes;
#  - -o packages=FILE: a malformed definitions file is refused at mount time with one
#    line naming the entry; a file whose definitions name no artifact of the run gives
#    empty repositories and a log line, not a failure; TheRock's schema works unchanged
#    (a small file of upstream's shape);
#  - rockpack packages: the same refusal, exit status non-zero, one line.
. "$(dirname "$0")/lib.sh"
it_init "$@"
SPLIT=24205988455-linux

# a copy of the split run with rand_lib_gfx1101 truncated
S=$T/store
mkdir -p "$S"
cp -r "$STORE/$SPLIT" "$S/"
a=$S/$SPLIT/rand_lib_gfx1101.tar.zst
head -c $(($(stat -c %s "$a") / 2)) "$a" >"$a.cut" && mv "$a.cut" "$a"
rm -f "$a.sha256sum"

it_mount fs "$S" "$T/mnt" "$T/cache"
P=$T/mnt/$SPLIT/packages
ls "$P/deb/pool/main" >"$T/pool" || fail "pool/main does not list with a damaged artifact"
grep -q '^amdrocm-rand7.13-gfx1101_' "$T/pool" && fail "the gfx1101 rand package is served from a damaged artifact"
for want in amdrocm-rand7.13-gfx1100_ amdrocm-rand-host7.13_ amdrocm-blas7.13-gfx1101_; do
	grep -q "^$want" "$T/pool" || fail "$want is missing, though its artifacts are whole"
done
n=$(grep -c 'packages: amdrocm-rand7.13-gfx1101 left out' "$T/fs.log")
[ "$n" = 1 ] || fail "want one log line for the left-out package, got $n"
grep -q "rand_lib_gfx1101" "$T/fs.log" || fail "the log does not name the damaged artifact"
grep -q '^amdrocm-rand7.13_' "$T/pool" && fail "amdrocm-rand7.13 is served, depending on the left-out gfx1101 package"
grep -q 'packages: amdrocm-rand7.13 left out: it depends on amdrocm-rand7.13-gfx1101' "$T/fs.log" ||
	fail "no line says amdrocm-rand7.13 is left out for its dependency"
[ "$(grep -c '^Package:' "$P/deb/dists/stable/main/binary-amd64/Packages")" = "$(wc -l <"$T/pool")" ] ||
	fail "Packages does not list every served package"
ls "$P/rpm/x86_64" | grep -q '^amdrocm-rand7.13-gfx1101-' && fail "the gfx1101 rand RPM is served"
ls "$P/rpm/x86_64/repodata/repomd.xml" >/dev/null || fail "no repodata with a damaged artifact"
it_umount fs

# a malformed definitions file: refused at mount time, one line naming the entry
cat >"$T/bad.json" <<'EOF'
[{"Package": "amdrocm-x", "Artifactory": []},
 {"Package": "amdrocm-y", "Artifactory": "blas"}]
EOF
mkdir -p "$T/m2"
if "$ROCKFS" "$STORE" "$T/m2" -f -o "cache=$T/cache2,packages=$T/bad.json" >"$T/bad.log" 2>&1; then
	fail "rockfs mounted with a malformed definitions file"
fi
[ "$(wc -l <"$T/bad.log")" = 1 ] || { cat "$T/bad.log" >&2; fail "want one line for a malformed definitions file"; }
grep -q 'amdrocm-y' "$T/bad.log" || fail "the error does not name the entry: $(cat "$T/bad.log")"
"$ROCKPACK" -q --cache "$T/cache2" packages "$STORE" $SPLIT --type deb --packages "$T/bad.json" -o "$T/o" \
	2>"$T/rp.log" && fail "rockpack packages accepted a malformed definitions file"
[ "$(wc -l <"$T/rp.log")" = 1 ] && grep -q 'amdrocm-y' "$T/rp.log" || fail "rockpack: $(cat "$T/rp.log")"
[ -e "$T/o" ] && fail "rockpack packages wrote something after refusing"

# definitions in TheRock's schema that name no artifact of the run: empty repositories
cat >"$T/none.json" <<'EOF'
[
  {
    "Package": "amdrocm-nothing",
    "Version": "",
    "Architecture": "amd64",
    "BuildArch": "x86_64",
    "DEBDepends": ["libc6"],
    "RPMRequires": [],
    "Maintainer": "ROCm Dev Support <rocm-dev.support@amd.com>",
    "Description_Short": "Nothing",
    "Description_Long": "A package whose artifact no run has",
    "Section": "devel",
    "Priority": "optional",
    "Group": "Development/Libraries",
    "License": "MIT",
    "Vendor": "Advanced Micro Devices, Inc.",
    "Homepage": "https://github.com/ROCm/TheRock",
    "Gfxarch": "False",
    "Artifactory": [{"Artifact": "nothing", "Artifact_Subdir": [{"Name": "nothing", "Components": ["lib"]}]}]
  }
]
EOF
it_mount fs3 "$STORE" "$T/m3" "$T/cache3" -o "packages=$T/none.json"
[ -z "$(ls "$T/m3/$SPLIT/packages/deb/pool/main")" ] || fail "packages from definitions that name no artifact"
[ -f "$T/m3/$SPLIT/packages/deb/dists/stable/Release" ] || fail "no Release for an empty repository"
[ ! -s "$T/m3/$SPLIT/packages/deb/dists/stable/main/binary-amd64/Packages" ] || fail "Packages of an empty repository is not empty"
grep -q 'name no artifact' "$T/fs3.log" || fail "no log line for definitions that name no artifact"
it_finish
