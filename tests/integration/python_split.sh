#!/usr/bin/env bash
# python_split: the kpack split of the legacy run's stored fat libraries wheel
# (python/gfx110X-all/rocm_sdk_libraries_gfx110X_all-V-...whl) served in RUN/python/:
#  - rocm-sdk-libraries and rocm-sdk-device-gfx1100..gfx1103 are listed, pass zipfile -t
#    and their RECORD, and PROVENANCE says where they come from;
#  - the host wheel: _rocm_sdk_libraries/ holds the fat wheel's files minus the database
#    files; the fat libraries are rewritten (kpack_oracle.py split-elf against the stored
#    wheel's copy, readelf -h/-S clean), the others byte-equal to the mount's dist/gfx1100;
#    rocm_sdk_libraries/_dist_info.py is the kpack-mode one; Requires-Dist rocm-sdk-core;
#  - each device wheel: .kpack/rocm_sdk_libraries_<arch>.kpack archives that parse
#    (kpack_oracle.py) and hold exactly the code objects of the artifact split's archives
#    for that arch; the database files of that arch, byte-equal to dist/<arch>;
#    .devel_links/<target>.json; Requires-Dist rocm-sdk-libraries;
#  - pip (Debian's, offline) installs rocm-sdk-libraries and rocm-sdk-device-gfx1100 from
#    the mount's index; the device files overlay _rocm_sdk_libraries/ and
#    `rockpack kpack resolve` finds every code object of an installed library;
#  - a remount with the same cache reads the member list (pyhash/members-*); blobs evicted
#    under the mount are extracted again from the stored wheel (the same bytes);
#  - a fat wheel with a damaged member: one log line, no split wheels, the rest served;
#  - the split runs the database handlers TheRock asks for some artifact: an aotriton
#    image (a handler it asks for none) stays in the host wheel.
. "$(dirname "$0")/lib.sh"
it_init "$@"
ORACLE=$(dirname "$(realpath "$0")")/kpack_oracle.py
CHECK=$(dirname "$(realpath "$0")")/pyindex_check.py
PY=/usr/bin/python3
VER=7.13.0.dev0+abc1234
TAG=py3-none-linux_x86_64
LEGACY=24205988454-linux
FAT=rocm_sdk_libraries_gfx110X_all-$VER-$TAG.whl
HOST=rocm_sdk_libraries-$VER-$TAG.whl
TARGETS="gfx1100 gfx1101 gfx1102 gfx1103"
PROJECTS="rocm rocm-sdk-core rocm-sdk-devel rocm-sdk-device-gfx1100 rocm-sdk-device-gfx1101
	rocm-sdk-device-gfx1102 rocm-sdk-device-gfx1103 rocm-sdk-libraries
	rocm-sdk-libraries-gfx110x-all rocm-sdk-libraries-gfx94x-dcgpu"
PIP_OPTS=(--no-cache-dir --disable-pip-version-check --no-input)
for v in $(env | sed -n 's/^\(PIP_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export PIP_CONFIG_FILE=/dev/null

M=$T/mnt
it_mount fs "$STORE" "$M" "$T/cache"
P=$M/$LEGACY/python
# shellcheck disable=SC2086
python3 "$CHECK" "$P" $PROJECTS || fail "the index does not check out"
for w in "$HOST" $(for t in $TARGETS; do echo "rocm_sdk_device_$t-$VER-$TAG.whl"; done); do
	[ -f "$P/files/$w" ] || { fail "files/$w is missing"; continue; }
	python3 -m zipfile -t "$P/files/$w" >/dev/null || fail "zipfile -t $w"
	grep -qx "$w	kpack-split from stored python/gfx110X-all/$FAT" "$P/PROVENANCE" ||
		fail "PROVENANCE does not name the fat wheel for $w"
done
[ "$(ls "$P/files" | grep -c '^rocm_sdk_device_gfx942')" = 0 ] ||
	fail "a device wheel for a target the fat wheel does not hold"

# ---- the host wheel ----
mkdir -p "$T/fat" "$T/host"
(cd "$T/fat" && python3 -m zipfile -e "$STORE/$LEGACY/python/gfx110X-all/$FAT" .) || die "unzip fat"
(cd "$T/host" && python3 -m zipfile -e "$P/files/$HOST" .) || die "unzip host"
FP=$T/fat/_rocm_sdk_libraries_gfx110X_all
HP=$T/host/_rocm_sdk_libraries
(cd "$FP" && find . -type f | grep -vE '_gfx[0-9]+[a-z]*\.(co|dat)$' | sort) >"$T/fat.list"
(cd "$HP" && find . -type f | sort) >"$T/host.list"
it_same "host wheel: the fat wheel's files minus database files" "$T/fat.list" "$T/host.list"
nfat=0
while read -r f; do
	if readelf -S "$FP/$f" 2>/dev/null | grep -q ' \.hip_fatbin '; then
		nfat=$((nfat + 1))
		out=$(python3 "$ORACLE" split-elf "$FP/$f" "$HP/$f" 2>&1) || fail "split-elf $f: $out"
		[ "$out" = "${f#./} $(echo "$out" | awk '{print $2}') wrappers" ] ||
			fail "$f: marker kernel_name is not its path below the platform dir: $out"
		readelf -h -S "$HP/$f" >"$T/readelf.out" 2>&1 || fail "readelf $f"
		grep -qiE 'warning|error' "$T/readelf.out" && fail "readelf complains about $f"
		strings "$HP/$f" | grep -q '\.kpack/rocm_sdk_libraries_@GFXARCH@\.kpack' ||
			fail "$f: no search path to .kpack/rocm_sdk_libraries_@GFXARCH@.kpack"
	else
		cmp -s "$FP/$f" "$HP/$f" || fail "host wheel: $f changed"
		g=$M/$LEGACY/dist/gfx1100/${f#./}
		[ ! -e "$g" ] || cmp -s "$g" "$HP/$f" || fail "host wheel: $f differs from dist/gfx1100"
	fi
done <"$T/host.list"
[ "$nfat" = 3 ] || fail "host wheel: $nfat rewritten libraries (want 3)"
grep -q "^ALL_PACKAGES\[\"libraries\"\].dist_package_template = \"rocm-sdk-libraries\"$" \
	"$T/host/rocm_sdk_libraries/_dist_info.py" || fail "_dist_info.py is not the kpack-mode one"
grep -q "^THIS_PACKAGE_ENTRY = ALL_PACKAGES\['libraries'\]$" "$T/host/rocm_sdk_libraries/_dist_info.py" ||
	fail "_dist_info.py: THIS_PACKAGE_ENTRY"
grep -qx "Requires-Dist: rocm-sdk-core==$VER" "$T/host/rocm_sdk_libraries-$VER.dist-info/METADATA" ||
	fail "host wheel: Requires-Dist"
grep -qx "Name: rocm-sdk-libraries" "$T/host/rocm_sdk_libraries-$VER.dist-info/METADATA" ||
	fail "host wheel: Name"

# ---- the device wheels ----
for t in $TARGETS; do
	D=$T/dev-$t
	mkdir -p "$D"
	(cd "$D" && python3 -m zipfile -e "$P/files/rocm_sdk_device_$t-$VER-$TAG.whl" .) ||
		die "unzip device $t"
	grep -qx "Requires-Dist: rocm-sdk-libraries==$VER" "$D/rocm_sdk_device_$t-$VER.dist-info/METADATA" ||
		fail "$t: Requires-Dist"
	# database files: this target's, as in dist/<t>
	(cd "$FP" && find . -type f | grep -E "_${t}\.(co|dat)$" | sort) >"$T/db.want"
	(cd "$D/_rocm_sdk_libraries" && find . -type f ! -path './.kpack/*' ! -path './.devel_links/*' |
		sort) >"$T/db.got"
	it_same "$t: device wheel database files" "$T/db.want" "$T/db.got"
	while read -r f; do
		cmp -s "$M/$LEGACY/dist/$t/${f#./}" "$D/_rocm_sdk_libraries/$f" ||
			fail "$t: $f differs from dist/$t"
	done <"$T/db.got"
	[ "$(ls "$D/_rocm_sdk_libraries/.kpack")" = "rocm_sdk_libraries_$t.kpack" ] ||
		fail "$t: .kpack holds $(ls "$D/_rocm_sdk_libraries/.kpack")"
	# the same code objects as the artifact split's archives (keys differ: the wheel
	# splitter names them by the path below the platform directory)
	python3 "$ORACLE" kpack "$D/_rocm_sdk_libraries/.kpack/rocm_sdk_libraries_$t.kpack" \
		>"$T/wheel.kp" || fail "$t: the device wheel's archive does not parse"
	: >"$T/art.kp"
	for k in $(find "$M/$LEGACY/kpack/" -path "*_$t/*" -name "*_$t.kpack" | sort); do
		python3 "$ORACLE" kpack "$k" >>"$T/art.kp" || fail "$t: $k does not parse"
	done
	grep -v '^scheme' "$T/wheel.kp" | awk '{print $2, $3, $4}' | sort >"$T/a"
	grep -v '^scheme' "$T/art.kp" | awk '{print $2, $3, $4}' | sort >"$T/b"
	[ -s "$T/a" ] || fail "$t: an empty archive"
	it_same "$t: code objects of the wheel archive and the artifact split" "$T/b" "$T/a"
	grep -v '^scheme' "$T/wheel.kp" | awk '{print $1}' | grep -vqE '^lib/lib[a-z]+\.so\.[0-9]+#[0-9]+$' &&
		fail "$t: archive keys are not <path below the platform dir>#<i>"
	python3 - "$D/_rocm_sdk_libraries/.devel_links/$t.json" "$VER" "$D/_rocm_sdk_libraries" <<'EOF' ||
import json, os, sys
j = json.load(open(sys.argv[1]))
assert j["version"] == sys.argv[2], j["version"]
got = sorted(l["relpath"] for l in j["links"])
want = sorted(os.path.relpath(os.path.join(d, f), sys.argv[3])
              for d, _, fs in os.walk(sys.argv[3]) for f in fs if "/.devel_links" not in d + "/")
assert got == want, (got, want)
for l in j["links"]:
    assert l["target"] == "../" * (l["relpath"].count("/") + 1) + "_rocm_sdk_libraries/" + l["relpath"], l
EOF
		fail "$t: .devel_links/$t.json"
done

# ---- pip, offline, from the mount ----
if [ -x "$PY" ] && it_venv "$PY" "$T/venv" >/dev/null 2>&1; then
	V=$T/venv
	"$V/bin/pip" install "${PIP_OPTS[@]}" --index-url "file://$P/simple/" \
		rocm-sdk-libraries rocm-sdk-device-gfx1100 >"$T/pip.log" 2>&1 ||
		{ fail "pip install rocm-sdk-libraries rocm-sdk-device-gfx1100"; tail -n 20 "$T/pip.log" >&2; }
	"$V/bin/pip" list --format=freeze 2>/dev/null | grep '^rocm' | sort >"$T/installed"
	printf 'rocm-sdk-core==%s\nrocm-sdk-device-gfx1100==%s\nrocm-sdk-libraries==%s\n' $VER $VER $VER \
		>"$T/installed.want"
	it_same "pip install: installed packages" "$T/installed.want" "$T/installed"
	SITE=$("$V/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
	"$V/bin/python" -c 'import rocm_sdk_libraries' || fail "rocm_sdk_libraries does not import"
	[ -f "$SITE/_rocm_sdk_libraries/.kpack/rocm_sdk_libraries_gfx1100.kpack" ] &&
		[ -f "$SITE/_rocm_sdk_libraries/.devel_links/gfx1100.json" ] &&
		[ -f "$SITE/_rocm_sdk_libraries/lib/librocblas.so.5" ] ||
		fail "the device wheel did not overlay the libraries platform directory"
	for lib in librocblas.so.5 libhipblaslt.so.1 librocrand.so.1; do
		"$ROCKPACK" kpack resolve "$SITE/_rocm_sdk_libraries/lib/$lib" --arch gfx1100 \
			>"$T/resolve.out" 2>&1 || fail "kpack resolve $lib: $(cat "$T/resolve.out")"
	done
	"$ROCKPACK" kpack resolve "$SITE/_rocm_sdk_libraries/lib/librocblas.so.5" --arch gfx1101 \
		>/dev/null 2>&1 && fail "kpack resolve found gfx1101 code without its device wheel"
else
	it_say "Debian's python3 with venv is missing: pip part skipped"
fi
mkdir -p "$T/saved"
cp "$P/files/$HOST" "$P/files/rocm_sdk_device_gfx1100-$VER-$TAG.whl" "$T/saved/"
it_quiet_log fs
it_umount fs

# ---- a remount reads the member list; evicted blobs come back from the wheel ----
ls "$T"/cache/pyhash/members-* >/dev/null 2>&1 || fail "no member list in the cache"
it_mount again "$STORE" "$M" "$T/cache"
ls "$M/$LEGACY/python/files" >/dev/null || fail "remount: python/files"
find "$T/cache/blobs" -type f -delete # every blob evicted, after the listing
for f in "$T"/saved/*; do
	cmp -s "$f" "$M/$LEGACY/python/files/$(basename "$f")" ||
		fail "after eviction: $(basename "$f") differs"
done
it_check_log again
it_umount again

# ---- a damaged member in the fat wheel ----
S2=$T/store2
mkdir -p "$S2"
cp -a "$STORE/$LEGACY" "$S2/"
python3 - "$S2/$LEGACY/python/gfx110X-all/$FAT" <<'EOF' || die "damage"
import sys, zipfile
p = sys.argv[1]
data = bytearray(open(p, "rb").read())
with zipfile.ZipFile(p) as z:
    i = next(i for i in z.infolist() if i.filename.endswith("librocblas.so.5"))
# a byte in the middle of the compressed data: the CRC (or inflate) fails
n = len(i.filename) + 30
pos = i.header_offset + n + i.compress_size // 2
data[pos] ^= 0x55
open(p, "wb").write(bytes(data))
EOF
it_mount bad "$S2" "$T/mnt2" "$T/cache2"
# (pyindex_check.py would fail the damaged wheel's CRC test: the project list only)
sed -n 's/.*href="\([^"]*\)\/".*/\1/p' "$T/mnt2/$LEGACY/python/simple/index.html" | tr '\n' ' ' \
	>"$T/projects"
[ "$(cat "$T/projects")" = "rocm rocm-sdk-core rocm-sdk-devel rocm-sdk-libraries-gfx110x-all rocm-sdk-libraries-gfx94x-dcgpu " ] ||
	fail "damaged member: projects $(cat "$T/projects")"
[ "$(grep -c "$FAT" "${IT_LOG[bad]}")" = 1 ] ||
	fail "damaged member: want one log line, got: $(grep "$FAT" "${IT_LOG[bad]}")"
ls "$T/mnt2/$LEGACY/python/files" | grep -qE '^rocm_sdk_(libraries|device_gfx110[0-3])-' &&
	fail "damaged member: split wheels served"
cmp -s "$S2/$LEGACY/python/gfx110X-all/$FAT" "$T/mnt2/$LEGACY/python/files/$FAT" ||
	fail "damaged member: the stored wheel is not served as it is"
it_umount bad

# ---- database files of a handler TheRock asks for no artifact stay in the host wheel ----
# (an aotriton image: the artifact split leaves it in <name>_<component>_generic)
S3=$T/store3
mkdir -p "$S3"
cp -a "$STORE/$LEGACY" "$S3/"
AOT=_rocm_sdk_libraries_gfx110X_all/lib/aotriton.images/amd-gfx110x/flash/attn_fwd.hsaco
python3 - "$S3/$LEGACY/python/gfx110X-all/$FAT" "$AOT" <<'EOF' || die "add a member"
import base64, hashlib, sys, zipfile
path, name = sys.argv[1:]
with zipfile.ZipFile(path) as z:
    items = [(i, z.read(i)) for i in z.infolist()]
data = b"aotriton image for gfx110x\n"
digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
with zipfile.ZipFile(path, "w") as out:
    for i, d in items:
        if i.filename.endswith(".dist-info/RECORD"):
            d = ("%s,sha256=%s,%d\n" % (name, digest, len(data))).encode() + d
        out.writestr(i, d)
    out.writestr(name, data)
EOF
it_mount aot "$S3" "$T/mnt3" "$T/cache3"
F3=$T/mnt3/$LEGACY/python/files
[ -f "$F3/$HOST" ] || fail "aotriton: no host wheel"
ls "$F3" | grep -q '^rocm_sdk_device_gfx110x-' && fail "aotriton: a device wheel named after its bundle key"
python3 -c 'import sys, zipfile; sys.exit(sys.argv[2] not in zipfile.ZipFile(sys.argv[1]).namelist())' \
	"$F3/$HOST" "${AOT/_rocm_sdk_libraries_gfx110X_all/_rocm_sdk_libraries}" ||
	fail "aotriton: the image is not in the host wheel"
it_quiet_log aot
it_umount aot

it_finish
