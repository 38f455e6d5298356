#!/usr/bin/env bash
# python_family: a legacy (fat) run with two families gets a complete Python set per family,
# as TheRock builds it (build_python_packages.py _run_legacy: one rocm-sdk-core and one
# rocm-sdk-libraries-<family> per family in dist/, and per family a rocm sdist restricted to
# that family and a rocm-sdk-devel wheel in dist/<family>/, same names in each). A run built
# here with cc:
#   base_lib_generic       share/therock/dist_info.json (dist_amdgpu_targets)
#   core-hip_lib_generic   lib/libfakehip.so.5.0 (+ libfakehip.so.5)
#   rand_lib_<family>      lib/libfakerand.so.1.2 (+ libfakerand.so.1), needing libfakehip;
#                          fakerand_family() returns 1 (gfx110X-all) or 2 (gfx94X-dcgpu)
#   rand_dev_<family>      include/rocrand/rocrand.h naming the family, lib/libfakerand.so
# For each family, from the mount:
#  - python/<family>/ holds its own rocm sdist and devel wheel, its page links them (./)
#    with the core and every family's libraries wheel (upstream's generate_multiarch_indexes
#    links all of dist/); simple/ and the flat python/index.html never list the
#    per-family files;
#  - simple/ with ROCM_SDK_TARGET_FAMILY: the first family gets its devel wheel (complete
#    tree); for the other rocm[libraries,devel] fails with pip's error naming
#    python/<family>/index.html (never a tree with dangling links), rocm[libraries] installs;
#  - pip install 'rocm[libraries,devel]' from python/<family>/index.html (the CI line, no
#    ROCM_SDK_TARGET_FAMILY) into a fresh venv installs that family's set alone;
#  - rocm-sdk path --root: no dangling link (find -xtype l), the devel tree's libfakerand is
#    that family's (it loads in a fresh python and returns the family's value), its header
#    is that family's; rocm-sdk targets prints the core's dist_amdgpu_targets, --installed
#    the family; rocm-sdk version the run's version; rocm-sdk test passes (its devel test
#    finds every file of the family's libraries hardlinked into the devel tree);
#  - rockpack wheels --index writes each python/<family>/ as the mount serves it;
#  - stored wheels win per project: a copy of the run storing a devel wheel in each family
#    group (python/<family>/, same name) serves each in its family's directory, from the
#    store, and no synthesized devel wheel; PROVENANCE says so.
. "$(dirname "$0")/lib.sh"
it_init "$@"
PY=/usr/bin/python3
DEPS=/usr/share/python-wheels
command -v cc >/dev/null || skip "cc is not installed"
ls "$DEPS"/setuptools-*.whl "$DEPS"/wheel-*.whl >/dev/null 2>&1 ||
	skip "python3-setuptools-whl / python3-wheel-whl are not installed"
it_need_venv "$PY"
PIP_OPTS=(--no-cache-dir --disable-pip-version-check --no-input --no-index --find-links "$DEPS")
SIMPLE_OPTS=(--no-cache-dir --disable-pip-version-check --no-input --find-links "$DEPS")
for v in $(env | sed -n 's/^\(PIP_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export PIP_CONFIG_FILE=/dev/null
unset LD_LIBRARY_PATH ROCM_SDK_TARGET_FAMILY
RUN=30000000010-linux
VER=7.13.0.dev0
FAMS="gfx110X-all gfx94X-dcgpu"
TARGETS="gfx1100;gfx1101;gfx942"

# ---- the store ----
B=$T/build
mkdir -p "$B"
cat >"$B/hip.c" <<'EOF'
int fakehip_value(void) { return 40; }
EOF
cat >"$B/rand.c" <<'EOF'
int fakehip_value(void);
int fakerand_family(void) { return fakehip_value() - 40 + FAM; }
EOF
(
	cd "$B"
	cc -shared -fPIC -O1 -Wl,-soname,libfakehip.so.5 -o libfakehip.so.5.0 hip.c
	ln -sf libfakehip.so.5.0 libfakehip.so.5
	cc -shared -fPIC -O1 -DFAM=1 -Wl,-soname,libfakerand.so.1 -o rand-gfx110X-all.so rand.c \
		-L. -l:libfakehip.so.5
	cc -shared -fPIC -O1 -DFAM=2 -Wl,-soname,libfakerand.so.1 -o rand-gfx94X-dcgpu.so rand.c \
		-L. -l:libfakehip.so.5
) || die "cc"
printf '{"dist_amdgpu_targets": "%s", "dist_amdgpu_families": "gfx110X-all;gfx94X-dcgpu"}\n' \
	"$TARGETS" >"$B/dist_info.json"

S=$T/store
R=$S/$RUN
mkdir -p "$R/manifests"
printf '{"rocm_package_version": "%s", "rocm_version": "7.13.0"}\n' "$VER" \
	>"$R/manifests/therock_manifest.json"
it_mkart "$R" base_lib_generic base/aux-overlay/stage "$B/dist_info.json:share/therock/dist_info.json"
it_mkart "$R" core-hip_lib_generic core/clr/stage "$B/libfakehip.so.5.0:lib/libfakehip.so.5.0" \
	"libfakehip.so.5.0:lib/libfakehip.so.5:link"
it_mkart "$R" core-hip_dev_generic core/clr/stage "$B/hip.c:include/hip/hip_runtime.h" \
	"libfakehip.so.5:lib/libfakehip.so:link"
for fam in $FAMS; do
	echo "/* rocrand for $fam */" >"$B/rocrand-$fam.h"
	it_mkart "$R" rand_lib_$fam math-libs/rocRAND/stage "$B/rand-$fam.so:lib/libfakerand.so.1.2" \
		"libfakerand.so.1.2:lib/libfakerand.so.1:link"
	it_mkart "$R" rand_dev_$fam math-libs/rocRAND/stage "$B/rocrand-$fam.h:include/rocrand/rocrand.h" \
		"libfakerand.so.1:lib/libfakerand.so:link"
done

M=$T/mnt
it_mount fs "$S" "$M" "$T/cache"
P=$M/$RUN/python
ls "$P" >/dev/null || die "no python/ in the run"
DEVEL=rocm_sdk_devel-$VER-py3-none-linux_x86_64.whl
SDIST=rocm-$VER.tar.gz

# hrefs PAGE: the links of PAGE, one a line
hrefs() { sed -n 's/.*<a href="\([^"]*\)".*/\1/p' "$1"; }

# ---- the indexes ----
for fam in $FAMS; do
	for f in $SDIST $DEVEL; do
		[ -f "$P/$fam/$f" ] || fail "$fam: no python/$fam/$f"
	done
	hrefs "$P/$fam/index.html" | sort >"$T/links-$fam"
	{
		echo "./$SDIST"
		echo "./$DEVEL"
		echo "../files/rocm_sdk_core-$VER-py3-none-linux_x86_64.whl"
		# every family's libraries wheel, as upstream's generate_multiarch_indexes links
		for f in $FAMS; do
			echo "../files/rocm_sdk_libraries_${f//-/_}-$VER-py3-none-linux_x86_64.whl"
		done
	} | sort >"$T/links-$fam.want"
	it_same "$fam: python/$fam/index.html's links" "$T/links-$fam.want" "$T/links-$fam"
done
cmp -s "$P/gfx110X-all/$DEVEL" "$P/gfx94X-dcgpu/$DEVEL" && fail "the two families' devel wheels are the same"
[ "$(hrefs "$P/simple/rocm/index.html" | wc -l)" = 1 ] || fail "simple/rocm/ lists $(hrefs "$P/simple/rocm/index.html" | wc -l) files"
[ "$(hrefs "$P/simple/rocm-sdk-devel/index.html" | wc -l)" = 1 ] || fail "simple/rocm-sdk-devel/ lists more than one file"
hrefs "$P/index.html" | grep -v '^files/' && fail "python/index.html links outside files/"
for fam in $FAMS; do
	grep -q "^$fam/$DEVEL	synthesized from .*rand_dev_$fam" "$P/PROVENANCE" ||
		fail "PROVENANCE: no line for $fam/$DEVEL"
done

# ---- each family's set, installed on its own ----
for fam in $FAMS; do
	other=gfx94X-dcgpu value=1
	[ $fam = gfx94X-dcgpu ] && other=gfx110X-all value=2
	V=$T/venv-$fam
	it_venv "$PY" "$V" || die "venv"
	PATH="$V/bin:/usr/bin:/bin" "$V/bin/pip" install "${PIP_OPTS[@]}" 'rocm[libraries,devel]' --pre \
		--find-links="file://$P/$fam/index.html" >"$T/pip.log" 2>&1 ||
		{ fail "$fam: pip install --find-links=python/$fam/index.html"; tail -n 30 "$T/pip.log" >&2; continue; }
	"$V/bin/pip" list --format=freeze 2>/dev/null | grep '^rocm' | sort >"$T/installed"
	printf '%s\n' "rocm==$VER" "rocm-sdk-core==$VER" "rocm-sdk-devel==$VER" \
		"rocm-sdk-libraries-$fam==$VER" | sort >"$T/want"
	it_same "$fam: packages installed" "$T/want" "$T/installed"
	root=$("$V/bin/rocm-sdk" path --root) || { fail "$fam: rocm-sdk path --root"; continue; }
	[ -d "$root/lib" ] || fail "$fam: no lib/ in the devel tree '$root'"
	find "$root" -xtype l >"$T/dangling"
	[ -s "$T/dangling" ] && { fail "$fam: dangling links in the devel tree:"; head "$T/dangling" >&2; }
	grep -q "rocrand for $fam" "$root/include/rocrand/rocrand.h" ||
		fail "$fam: the devel tree's rocrand.h is not $fam's"
	got=$(env -i PATH=/usr/bin:/bin "$V/bin/python" -c 'import ctypes, sys
print(ctypes.CDLL(sys.argv[1]).fakerand_family())' "$root/lib/libfakerand.so" 2>&1) || true
	[ "$got" = $value ] || fail "$fam: the devel tree's libfakerand.so says '$got', want $value"
	SITE=$("$V/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
	[ -e "$SITE/_rocm_sdk_libraries_${other//-/_}" ] && fail "$fam: $other's libraries are installed"
	got=$("$V/bin/rocm-sdk" targets 2>&1) || true
	[ "$got" = "$TARGETS" ] || fail "$fam: rocm-sdk targets printed '$got', want '$TARGETS'"
	got=$("$V/bin/rocm-sdk" targets --installed 2>&1) || true
	[ "$got" = "$fam" ] || fail "$fam: rocm-sdk targets --installed printed '$got'"
	got=$("$V/bin/rocm-sdk" version 2>&1) || true
	[ "$got" = "$VER" ] || fail "$fam: rocm-sdk version printed '$got'"
	# the installation self-tests (GPU-free): libraries load, devel tree complete
	"$V/bin/rocm-sdk" test >"$T/test-$fam.log" 2>&1 ||
		{ fail "$fam: rocm-sdk test"; tail -n 30 "$T/test-$fam.log" >&2; }
	grep -A1 "^testLibrariesMirroredIntoDevel " "$T/test-$fam.log" | grep -q '\.\.\. ok$' ||
		fail "$fam: rocm-sdk test did not check the devel tree against the libraries"
	# the restricted sdist: this family alone
	got=$("$V/bin/python" -c 'from rocm_sdk import _dist_info as d
print(d.THIS_TARGET_FAMILY, d.DEFAULT_TARGET_FAMILY, ",".join(d.AVAILABLE_TARGET_FAMILIES))')
	[ "$got" = "$fam $fam $fam" ] || fail "$fam: the sdist's _dist_info says '$got'"
done
# simple/ (one file per name): the sdist listing both families and the first family's devel
# wheel; for another family rocm[devel] fails there, with pip's error naming the family's
# page (never a tree linking into libraries it lacks, never exit 0 without devel), and
# rocm[libraries] installs
for fam in $FAMS; do
	V=$T/venv-simple-$fam
	it_venv "$PY" "$V" || die "venv"
	extras=libraries,devel
	if [ $fam != gfx110X-all ]; then
		if ROCM_SDK_TARGET_FAMILY=$fam PATH="$V/bin:/usr/bin:/bin" "$V/bin/pip" install "${SIMPLE_OPTS[@]}" \
			--index-url "file://$P/simple/" 'rocm[libraries,devel]' >"$T/pip.log" 2>&1; then
			fail "simple/ $fam: pip installed rocm[libraries,devel] without $fam's devel wheel"
		fi
		grep -q "^ERROR: No matching distribution found for rocm-sdk-devel-$fam-is-on-find-links.python.$fam.index.html" \
			"$T/pip.log" || { fail "simple/ $fam: pip's error does not name python/$fam/index.html"; tail -n 5 "$T/pip.log" >&2; }
		extras=libraries
	fi
	ROCM_SDK_TARGET_FAMILY=$fam PATH="$V/bin:/usr/bin:/bin" "$V/bin/pip" install "${SIMPLE_OPTS[@]}" \
		--index-url "file://$P/simple/" "rocm[$extras]" >"$T/pip.log" 2>&1 ||
		{ fail "simple/ $fam: pip install rocm[$extras]"; tail -n 30 "$T/pip.log" >&2; continue; }
	"$V/bin/pip" list --format=freeze 2>/dev/null | grep '^rocm' | sort >"$T/installed"
	printf '%s\n' "rocm==$VER" "rocm-sdk-core==$VER" "rocm-sdk-libraries-$fam==$VER" >"$T/want"
	[ $fam = gfx110X-all ] && echo "rocm-sdk-devel==$VER" >>"$T/want"
	sort -o "$T/want" "$T/want"
	it_same "simple/ $fam: packages installed" "$T/want" "$T/installed"
	if [ $fam = gfx110X-all ]; then
		root=$("$V/bin/rocm-sdk" path --root) || fail "simple/ $fam: rocm-sdk path --root"
		[ -z "$(find "$root" -xtype l)" ] || fail "simple/ $fam: dangling links"
	fi
done
mkdir -p "$T/keep"
for fam in $FAMS; do
	cp "$P/$fam/$DEVEL" "$T/keep/$fam.whl"
done
# rockpack wheels --index writes the family directories too, byte-equal to the mount
"$ROCKPACK" -q --cache "$T/cache-rp" wheels "$S" "$RUN" -o "$T/rp" --index ||
	fail "rockpack wheels --index"
for fam in $FAMS; do
	diff -r "$P/$fam" "$T/rp/$fam" >/dev/null || fail "rockpack wheels --index: $fam/ differs from the mount's"
done
it_quiet_log fs
it_umount fs

# ---- stored wheels win per project ----
S2=$T/store2
mkdir -p "$S2"
cp -a "$R" "$S2/"
for fam in $FAMS; do
	mkdir -p "$S2/$RUN/python/$fam"
	cp "$T/keep/$fam.whl" "$S2/$RUN/python/$fam/$DEVEL"
done
it_mount two "$S2" "$T/mnt2" "$T/cache2"
P=$T/mnt2/$RUN/python
for fam in $FAMS; do
	cmp -s "$P/$fam/$DEVEL" "$S2/$RUN/python/$fam/$DEVEL" || fail "stored: python/$fam/$DEVEL is not the stored bytes"
	grep -qx "$fam/$DEVEL	stored python/$fam/$DEVEL" "$P/PROVENANCE" ||
		fail "stored: PROVENANCE has no line for the stored $fam/$DEVEL"
	grep -q "^synthesized $fam/$DEVEL	not served: .*stored" "$P/PROVENANCE" ||
		fail "stored: PROVENANCE does not say the synthesized $fam devel is not served"
	grep -q "\"./$DEVEL\"" "$P/$fam/index.html" || fail "stored: python/$fam/index.html does not link its devel"
done
[ ! -e "$P/files/$DEVEL" ] || fail "stored: files/ serves a devel wheel"
grep -q "^synthesized $DEVEL	not served: project rocm-sdk-devel is stored" "$P/PROVENANCE" ||
	fail "stored: PROVENANCE does not say the generic synthesized devel is not served"
[ ! -e "$P/simple/rocm-sdk-devel" ] || fail "stored: simple/ lists rocm-sdk-devel"
V=$T/venv-stored
it_venv "$PY" "$V" || die "venv"
PATH="$V/bin:/usr/bin:/bin" "$V/bin/pip" install "${PIP_OPTS[@]}" 'rocm[libraries,devel]' --pre \
	--find-links="file://$P/gfx94X-dcgpu/index.html" >"$T/pip.log" 2>&1 ||
	{ fail "stored: pip install from python/gfx94X-dcgpu/index.html"; tail -n 30 "$T/pip.log" >&2; }
root=$("$V/bin/rocm-sdk" path --root) || fail "stored: rocm-sdk path --root"
[ -z "$(find "$root" -xtype l)" ] || fail "stored: dangling links in the devel tree"
it_quiet_log two
it_umount two

it_finish
