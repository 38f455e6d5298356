#!/usr/bin/env bash
# output_confine: one rule for symlinks and names in every generated output (issue 26,
# items 2 and 7; services/confine.h), on a hostile run made here:
#  - base_run_generic holds share/sd -> ../../../.. (inside the archive, not inside any
#    output), share/up -> ../.. and share/sd2 -> .. ; core-hip_lib_generic holds
#    share/sd/etc/cron.d/evil and share/sd2/below.txt. dist/ and the release tarball keep
#    share/sd and share/sd2 directories and drop share/up (one log line); the .deb and
#    .rpm sets are cut from the same tree: installing every .deb with apt-get into a
#    throwaway root writes nothing outside the prefix, no etc/cron.d/evil, and no file
#    lands below a symlink; the RPMs unpacked together likewise;
#  - members tar -x, dpkg, rpm or XML cannot carry (a 304-byte component, a control
#    character, a newline, bytes that are not UTF-8) are refused at ingest with one line
#    each naming artifact and member, so no output holds them and the repodata stays
#    valid XML (xmllint, dnf makecache and repoquery);
#  - a 0600 member is 0600 in dist/, the tarball and the RPM (0644 in the .deb:
#    dh_fixperms).
. "$(dirname "$0")/lib.sh"
it_init "$@"
for tool in xmllint rpm rpm2cpio cpio dnf apt-get dpkg python3; do
	command -v "$tool" >/dev/null || skip "'$tool' is not installed"
done
[ "$(id -u)" = 0 ] || skip "apt-get and dnf into a throwaway root need root"
. "$(dirname "$0")/../apt_sandbox.sh"

RUN=77700000000-linux
S=$T/store
R=$S/$RUN
mkdir -p "$R"
# the artifacts, written by Python's tarfile (no file system here can hold a 304-byte
# name), compressed with zstd
python3 - "$R" <<'EOF'
import io, os, subprocess, sys, tarfile
run = sys.argv[1]

def art(stem, prefix, members):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tf:
        def add(name, kind, data=b"", mode=0o644, target=""):
            ti = tarfile.TarInfo(name)
            ti.mtime = 1767225600
            ti.mode = mode
            if kind == "dir":
                ti.type = tarfile.DIRTYPE
                tf.addfile(ti)
            elif kind == "link":
                ti.type = tarfile.SYMTYPE
                ti.linkname = target
                tf.addfile(ti)
            else:
                ti.size = len(data)
                tf.addfile(ti, io.BytesIO(data))
        add("artifact_manifest.txt", "file", (prefix + "\n").encode())
        for m in members:
            add(*m)
    raw = os.path.join(run, stem + ".tar")
    with open(raw, "wb") as f:
        f.write(buf.getvalue())
    subprocess.run(["zstd", "-q", "-3", "--rm", raw, "-o", raw + ".zst"], check=True)

b = "base/aux-overlay/stage"
art("base_run_generic", b, [
    (b + "/share", "dir", b"", 0o755),
    (b + "/share/doc.txt", "file", b"base doc\n"),
    (b + "/share/secret.txt", "file", b"only root\n", 0o600),
    (b + "/share/ok", "link", b"", 0o777, "doc.txt"),
    (b + "/share/sd", "link", b"", 0o777, "../../../.."),
    (b + "/share/up", "link", b"", 0o777, "../.."),
    (b + "/share/sd2", "link", b"", 0o777, ".."),
])
c = "core/clr/stage"
art("core-hip_lib_generic", c, [
    (c + "/share/sd/etc/cron.d/evil", "file", b"* * * * * root touch /tmp/owned\n"),
    (c + "/share/sd2/below.txt", "file", b"below another package's link\n"),
    (c + "/lib/libhip.txt", "file", b"hip\n"),
    (c + "/lib/" + "L" * 304, "file", b"long name\n"),
    (c + "/lib/ctl\x01name", "file", b"control\n"),
    (c + "/lib/new\nline", "file", b"newline\n"),
    (c + "/lib/bad\udcffname", "file", b"not utf-8\n"),
])
g = "blas/stage"
art("blas_lib_gfx1100", g, [(g + "/lib/libblas.txt", "file", b"blas\n")])
EOF

# definitions for the two generic artifacts: one package each, nothing else needed
cat >"$T/defs.json" <<'EOF'
[
 {"Package": "hostile-base", "Version": "", "Architecture": "amd64", "BuildArch": "x86_64",
  "DEBDepends": [], "RPMRequires": [], "Maintainer": "Test <test@example.com>",
  "Description_Short": "Base", "Description_Long": "The base part",
  "Section": "devel", "Priority": "optional", "Group": "Development/Libraries",
  "License": "MIT", "Vendor": "Test", "Homepage": "https://example.com", "Gfxarch": "False",
  "Artifactory": [{"Artifact": "base", "Artifact_Subdir": [{"Name": "aux-overlay", "Components": ["run"]}]}]},
 {"Package": "hostile-hip", "Version": "", "Architecture": "amd64", "BuildArch": "x86_64",
  "DEBDepends": [], "RPMRequires": [], "Maintainer": "Test <test@example.com>",
  "Description_Short": "HIP", "Description_Long": "The hip part",
  "Section": "devel", "Priority": "optional", "Group": "Development/Libraries",
  "License": "MIT", "Vendor": "Test", "Homepage": "https://example.com", "Gfxarch": "False",
  "Artifactory": [{"Artifact": "core-hip", "Artifact_Subdir": [{"Name": "clr", "Components": ["lib"]}]}]}
]
EOF

# confined DIR: every symlink and file below DIR resolves inside DIR (realpath -m)
confined() {
	local root bad=0 p r
	root=$(realpath "$1")
	while IFS= read -r -d '' p; do
		r=$(realpath -m -- "$p")
		case $r in "$root" | "$root"/*) ;; *)
			echo "'${p#"$root"/}' resolves to '$r', outside"
			bad=1
			;;
		esac
	done < <(find "$root" -mindepth 1 -print0)
	return $bad
}

M=$T/mnt
it_mount fs "$S" "$M" "$T/cache" -o "packages=$T/defs.json"
L=${IT_LOG[fs]}

# 1. refused at ingest: one line each, naming artifact and member
ls "$M/$RUN/browse/core-hip_lib_generic/core/clr/stage/lib" >"$T/lib.ls"
[ "$(cat "$T/lib.ls")" = libhip.txt ] || fail "browse/ lists unwritable names: $(tr '\n' ' ' <"$T/lib.ls")"
for why in "name component over 255 bytes.*'core/clr/stage/lib/LLLL" \
	"control character in name.*'core/clr/stage/lib/ctl\\\\x01name'" \
	"control character in name.*'core/clr/stage/lib/new\\\\x0aline'" \
	"name not in UTF-8.*'core/clr/stage/lib/bad\\\\xffname'"; do
	n=$(grep -c "'core-hip_lib_generic.tar.zst': $why.* dropped" "$L" || true)
	[ "$n" = 1 ] || fail "want one ingest line matching \"$why\", got $n"
done

# 2. dist/: share/sd a directory (the file below it kept), both links dropped, modes kept
D=$M/$RUN/dist/gfx1100
[ -d "$D/share/sd" ] && [ ! -L "$D/share/sd" ] || fail "dist: share/sd is not a plain directory"
[ -f "$D/share/sd/etc/cron.d/evil" ] || fail "dist: share/sd/etc/cron.d/evil is missing"
[ -d "$D/share/sd2" ] && [ ! -L "$D/share/sd2" ] || fail "dist: share/sd2 is not a plain directory"
[ -L "$D/share/up" ] && fail "dist: share/up -> ../.. (above the tree) is served"
[ "$(readlink "$D/share/ok")" = doc.txt ] || fail "dist: the good link share/ok is gone"
[ "$(stat -c %a "$D/share/secret.txt")" = 600 ] || fail "dist: 0600 member is $(stat -c %a "$D/share/secret.txt")"
mkdir -p "$T/dist"
cp -a "$D" "$T/dist/tree" 2>"$T/cp.err" || fail "cp -a dist/gfx1100: $(head -2 "$T/cp.err")"
confined "$T/dist/tree" >"$T/dist.bad" || fail "dist: $(head -3 "$T/dist.bad")"
[ "$(find "$T/dist" -mindepth 1 -maxdepth 1)" = "$T/dist/tree" ] || fail "copying dist/ wrote outside its tree"
grep -q "gfx1100: 'share/up' -> '../..' dropped: symlink resolves above the tree's root" "$L" ||
	fail "no log line for dist's share/up"
find "$D" -name 'LLLL*' -o -name '*line' -o -name 'ctl*' -o -name 'bad*' | grep -q . &&
	fail "dist: an unwritable name is served"

# 3. the release tarball: tar -t lists no escaping link; tar -x stays inside its directory
tb=$(find "$M/$RUN/tarballs" -maxdepth 1 -name '*gfx110X*.tar.gz' | head -1)
[ -n "$tb" ] || tb=$(find "$M/$RUN/tarballs" -maxdepth 1 -name '*.tar.gz' | head -1)
[ -n "$tb" ] || fail "no release tarball: $(ls "$M/$RUN/tarballs")"
tar -tvzf "$tb" >"$T/tar.t" || fail "tar -t $tb"
grep -E ' -> \.\./\.\.' "$T/tar.t" && fail "$tb: an escaping link is listed"
mkdir -p "$T/tx/root"
tar -xpzf "$tb" -C "$T/tx/root" || fail "tar -x $tb"
[ "$(find "$T/tx" -mindepth 1 -maxdepth 1)" = "$T/tx/root" ] || fail "tar -x wrote outside its directory"
confined "$T/tx/root" >"$T/tx.bad" || fail "tarball: $(head -3 "$T/tx.bad")"
f=$(find "$T/tx/root" -name secret.txt)
[ "$(stat -c %a "$f")" = 600 ] || fail "tarball: 0600 member is $(stat -c %a "$f")"
[ -n "$(find "$T/tx/root" -path '*/share/sd/etc/cron.d/evil' -type f)" ] || fail "tarball: evil file not below share/sd"

# 4. every .deb installed with apt-get into a throwaway root: nothing lands outside it,
# no etc/cron.d/evil anywhere but below the prefix
P=$M/$RUN/packages
ls "$P/deb/pool/main" >"$T/debs"
grep -q '^hostile-base' "$T/debs" && grep -q '^hostile-hip' "$T/debs" || fail "debs: $(tr '\n' ' ' <"$T/debs")"
names=$(sed 's/_.*//' "$T/debs")
mkdir -p "$T/apt"
A=$T/apt/root
apt_root "$A" "$P/deb"
sh "$A/apt.sh" update >"$T/update.log" 2>&1 || { cat "$T/update.log" >&2; fail "apt-get update"; }
before=$(find "$T/apt" -mindepth 1 -maxdepth 1)
# shellcheck disable=SC2086 # one name a word
sh "$A/apt.sh" install -y $names >"$T/install.log" 2>&1 ||
	{ cat "$T/install.log" >&2; fail "apt-get install $names"; }
[ "$(find "$T/apt" -mindepth 1 -maxdepth 1)" = "$before" ] || fail "apt-get install wrote outside its root"
[ -e "$A/etc/cron.d/evil" ] && fail "apt-get install wrote etc/cron.d/evil into the root"
[ -e /etc/cron.d/evil ] && fail "apt-get install wrote /etc/cron.d/evil"
for p in $(dpkg --root="$A" -l | awk '/^ii/ && $2 ~ /^hostile/ { print $2 }'); do
	dpkg --root="$A" -L "$p" | while read -r f; do
		r=$(realpath -m -- "$A$f")
		case $r in "$A" | "$A"/opt | "$A"/opt/*) ;; *) echo "$p: '$f' lands at '$r'" ;; esac
		d=$A$(dirname -- "$f")
		[ "$(realpath -m -- "$d")" = "$(realpath -ms -- "$d")" ] || echo "$p: '$f' is below a symlink"
	done
done >"$T/landed"
[ -s "$T/landed" ] && fail "deb: $(head -3 "$T/landed")"
e=$(find "$A" -name evil -type f)
case $e in "$A"/opt/*/share/sd/etc/cron.d/evil) ;; *) fail "deb: evil file at '$e'" ;; esac
f=$(find "$A/opt" -name secret.txt)
[ "$(stat -c %a "$f")" = 644 ] || fail "deb: secret.txt is $(stat -c %a "$f"), dh_fixperms makes 0644"

# 5. RPMs: rpm -qlp; unpacked together they stay inside; the repodata is valid XML and dnf
# reads it
X=$P/rpm/x86_64
for r in "$X"/hostile-*.rpm; do
	rpm -qlp "$r" >>"$T/rpm.l" 2>/dev/null || fail "rpm -qlp $r"
	rpm -qp --dump "$r" 2>/dev/null >>"$T/rpm.dump"
	(mkdir -p "$T/rx" && cd "$T/rx" && rpm2cpio "$r" | cpio -idm --quiet) || fail "rpm2cpio $r"
done
grep -q '/share/sd/etc/cron.d/evil$' "$T/rpm.l" || fail "rpm: the evil file is not below share/sd"
awk '$1 ~ /\/share\/(sd|sd2|up)$/ && $11 != "X"' "$T/rpm.dump" | grep -q . &&
	fail "rpm: share/sd, sd2 or up is a link: $(grep -E '/share/(sd|sd2|up) ' "$T/rpm.dump")"
confined "$T/rx" >"$T/rx.bad" || fail "rpm: $(head -3 "$T/rx.bad")"
f=$(find "$T/rx" -name secret.txt)
[ "$(stat -c %a "$f")" = 600 ] || fail "rpm: secret.txt is $(stat -c %a "$f"), rpmbuild keeps 0600"
for x in "$X"/repodata/*.xml*; do
	case $x in *.gz) gzip -dc "$x" >"$T/x.xml" ;; *.zst) zstd -qdc "$x" >"$T/x.xml" ;; *) cp "$x" "$T/x.xml" ;; esac
	xmllint --noout "$T/x.xml" 2>"$T/xmllint.err" || fail "xmllint ${x##*/}: $(head -2 "$T/xmllint.err")"
done
dnfq() {
	dnf -q --installroot="$T/dnfroot" --releasever=1 --setopt=reposdir=/dev/null \
		--setopt=cachedir="$T/dnfcache" --disableplugin='*' --nogpgcheck \
		--repofrompath=h,"file://$X" --repo=h "$@"
}
dnfq makecache >"$T/dnf.log" 2>&1 || { cat "$T/dnf.log" >&2; fail "dnf makecache"; }
dnfq repoquery -l 'hostile-hip*' >"$T/rq" 2>>"$T/dnf.log" || { cat "$T/dnf.log" >&2; fail "dnf repoquery"; }
grep -q '/lib/libhip.txt$' "$T/rq" || fail "repoquery -l hostile-hip: $(tr '\n' ' ' <"$T/rq")"
it_finish
