#!/usr/bin/env bash
# packages_closure: a repository never names a package it does not serve, and listing it
# reads only the artifacts its definitions select.
#  - every repository (deb and rpm) of both demo runs: no Depends of the Packages index
#    names an amdrocm package the index lacks (every alternative of a relation missing),
#    and `apt-get install -s` of every package succeeds in a throwaway root (all of a
#    family's at once: each one's Depends must resolve); no Requires
#    of the RPM repodata lacks a Provides (dnf repoclosure when installed, else
#    primary.xml directly);
#  - the legacy run leaves out amdrocm-rand-test7.13-gfx94x (the demo has no rand_test
#    artifact: its definition selects no file; the solver and sparse tests likewise): deb/README and rpm/x86_64/README say so,
#    `rockpack packages --strict` exits 1 with one line naming them, and without --strict
#    its summary line counts them, after a note that the built-in definitions are of
#    another TheRock commit than the run's; the kpack-split run's DEBs leave out amdrocm-rand-test7.13
#    and so amdrocm-rand-test, which needs it (deb/README and the log say so);
#  - definitions that select base_lib and base_run only: listing deb/ decompresses exactly
#    those two archives (the daemon's stop line), and README lists the others as selected
#    by no definition.
. "$(dirname "$0")/lib.sh"
it_init "$@"
for tool in apt-get dpkg python3; do
	command -v $tool >/dev/null || skip "$tool is not installed"
done
SPLIT=24205988455-linux
LEGACY=24205988454-linux
M=$T/mnt
it_mount fs "$STORE" "$M" "$T/cache"
. "$(dirname "$0")/../apt_sandbox.sh"

# deb_closed INDEX: the amdrocm relations of Packages INDEX that no package of it meets
deb_closed() {
	python3 - "$1" <<'EOF'
import re, sys
stanzas = open(sys.argv[1]).read().split("\n\n")
have, deps = set(), []
for s in stanzas:
    f = dict(re.findall(r"^([A-Za-z-]+): (.*)$", s, re.M))
    if "Package" in f:
        have.add(f["Package"])
        deps.append((f["Package"], f.get("Depends", "")))
for p, d in deps:
    for item in filter(None, (i.strip() for i in d.split(","))):
        alts = [re.split(r"[ (]", a.strip())[0] for a in item.split("|")]
        if all(a.startswith("amdrocm") and a not in have for a in alts):
            print("%s: Depends %s, not in the index" % (p, item))
EOF
}

# rpm_closed REPODIR: the Requires of repodata/primary no package Provides
rpm_closed() {
	python3 - "$1" <<'EOF'
import glob, gzip, sys, xml.etree.ElementTree as ET
path = glob.glob(sys.argv[1] + "/repodata/*primary.xml*")[0]
data = gzip.open(path).read() if path.endswith(".gz") else open(path, "rb").read()
ns = {"c": "http://linux.duke.edu/metadata/common", "r": "http://linux.duke.edu/metadata/rpm"}
root = ET.fromstring(data)
provides, requires = set(), []
for p in root.findall("c:package", ns):
    name = p.find("c:name", ns).text
    provides.add(name)
    for e in p.findall("c:format/r:provides/r:entry", ns):
        provides.add(e.get("name"))
    for e in p.findall("c:format/r:requires/r:entry", ns):
        requires.append((name, e.get("name")))
for name, r in requires:
    if r.startswith("amdrocm") and r not in provides:
        print("%s: Requires %s, provided by no package" % (name, r))
EOF
}

for run in $SPLIT $LEGACY; do
	P=$M/$run/packages
	idx=$P/deb/dists/stable/main/binary-amd64/Packages
	deb_closed "$idx" >"$T/$run.open" || fail "$run: cannot read Packages"
	[ -s "$T/$run.open" ] && fail "$run: the index names packages it does not serve: $(head -3 "$T/$run.open")"
	apt_root "$T/root-$run" "$P/deb"
	sh "$T/root-$run/apt.sh" update >"$T/update-$run.log" 2>&1 || fail "$run: apt-get update"
	together=
	[ "$run" = "$SPLIT" ] && together=together
	apt_simulate_every "$T/root-$run" "$idx" $together || fail "$run: apt-get install -s of every package"
	it_say "$run: apt-get install -s of $(wc -l <"$T/root-$run/names") packages"
	if dnf repoclosure --help >/dev/null 2>&1; then
		dnf -q repoclosure --releasever=0 --repofrompath="rock,file://$P/rpm/x86_64" \
			--repo=rock --setopt=gpgcheck=0 >"$T/$run.rc" 2>&1 ||
			{ fail "$run: dnf repoclosure"; head -5 "$T/$run.rc" >&2; }
	fi
	rpm_closed "$P/rpm/x86_64" >"$T/$run.ropen" || fail "$run: cannot read the repodata"
	[ -s "$T/$run.ropen" ] && fail "$run: the repodata requires what it does not serve: $(head -3 "$T/$run.ropen")"
done

# what was left out, and why
for readme in "$M/$LEGACY/packages/deb/README" "$M/$LEGACY/packages/rpm/x86_64/README"; do
	grep -qx '  amdrocm-rand-test7.13-gfx94x: its definition selects no file of the run' "$readme" ||
		fail "$readme does not say amdrocm-rand-test7.13-gfx94x selects no file"
done
grep -qx '  amdrocm-rand-test: needs amdrocm-rand-test7.13, left out' "$M/$SPLIT/packages/deb/README" ||
	fail "$SPLIT: deb/README does not say why amdrocm-rand-test is left out"
grep -q '^amdrocm-rand-test_' <(ls "$M/$SPLIT/packages/deb/pool/main") &&
	fail "amdrocm-rand-test is served, needing a package left out"
grep -q 'packages: amdrocm-rand-test left out: it depends on amdrocm-rand-test7.13' "$T/fs.log" ||
	fail "no log line says amdrocm-rand-test is left out"
for type in deb rpm; do
	rc=0
	"$ROCKPACK" -q --cache "$T/cache-rp" packages "$STORE" $LEGACY --type $type -o "$T/rp-$type" \
		--strict 2>"$T/rp-$type.log" || rc=$?
	[ "$rc" = 1 ] || fail "rockpack packages --strict ($type) of the legacy run: exit $rc, want 1"
	[ "$(grep -c -- '--strict' "$T/rp-$type.log")" = 1 ] ||
		fail "rockpack packages --strict ($type): want one line saying so: $(cat "$T/rp-$type.log")"
	grep -q 'packages: --strict: 6 packages left out (amdrocm-solver-test7.13-gfx110x, amdrocm-sparse-test7.13-gfx110x, amdrocm-rand-test7.13-gfx110x, amdrocm-solver-test7.13-gfx94x, ...; why: ' "$T/rp-$type.log" ||
		fail "rockpack packages --strict ($type): does not name what was left out: $(cat "$T/rp-$type.log")"
done
"$ROCKPACK" --cache "$T/cache-rp" packages "$STORE" $LEGACY --type deb -o "$T/rp-plain" 2>"$T/rp-plain.log" ||
	fail "rockpack packages without --strict: exit $?"
grep -q '^packages: .*, 6 packages left out, 0 artifacts no definition selects' "$T/rp-plain.log" ||
	fail "rockpack packages: the summary does not count what was left out: $(cat "$T/rp-plain.log")"
# the demo's runs name a TheRock commit (abc1234...) other than the built-in definitions'
grep -q "^rockpack: note: Definitions: TheRock [0-9a-f]\{12\}'s package.json (built in), not of TheRock abc1234" \
	"$T/rp-plain.log" || fail "rockpack packages: no note that the definitions are of another commit: $(cat "$T/rp-plain.log")"
cmp -s "$T/rp-plain/README" "$M/$LEGACY/packages/deb/README" || fail "rockpack packages: README differs from the mount's"
it_umount fs

# definitions that select two artifacts: only those are decompressed
cat >"$T/base.json" <<'EOF'
[{"Package": "amdrocm-base", "Version": "", "Architecture": "amd64", "BuildArch": "x86_64",
  "DEBDepends": ["libc6"], "RPMRequires": [],
  "Maintainer": "ROCm Dev Support <rocm-dev.support@amd.com>",
  "Description_Short": "Base", "Description_Long": "The base artifacts",
  "Section": "devel", "Priority": "optional", "Group": "Development/Libraries",
  "License": "MIT", "Vendor": "Advanced Micro Devices, Inc.",
  "Homepage": "https://github.com/ROCm/TheRock", "Gfxarch": "False",
  "Artifactory": [{"Artifact": "base", "Artifact_Subdir": [{"Name": "rocm-core", "Components": ["lib", "run"]},
                                                           {"Name": "aux-overlay", "Components": ["lib", "run"]}]}]}]
EOF
it_mount few "$STORE" "$M" "$T/cache-few" -o "packages=$T/base.json"
ls "$M/$LEGACY/packages/deb/pool/main" >"$T/few.pool" || fail "deb/pool/main does not list"
grep -q '^amdrocm-base7.13_' "$T/few.pool" || fail "no amdrocm-base7.13 package: $(cat "$T/few.pool")"
grep -qx '  blas_lib_gfx94X-dcgpu' "$M/$LEGACY/packages/deb/README" ||
	fail "deb/README does not list blas_lib_gfx94X-dcgpu as selected by no definition"
grep -qx '  base_lib_generic' "$M/$LEGACY/packages/deb/README" &&
	fail "deb/README lists base_lib_generic, which a definition selects"
it_umount few
grep -q "^rockfs: info: stopped (unmounted) after [0-9]* s: [0-9]* runs listed, 2 archives decompressed," \
	"${IT_LOG[few]}" || fail "listing deb/ decompressed other artifacts: $(grep 'stopped' "${IT_LOG[few]}")"
it_finish
