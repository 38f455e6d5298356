#!/usr/bin/env bash
# python_sdk: the packages RUN/python/ synthesizes from a run's artifacts, installed by
# pip (Debian's, offline) the way TheRock's users install them:
#     pip install --index-url file://MNT/RUN/python/simple/ --find-links DEPS rocm[libraries,devel]
# DEPS is Debian's python3-setuptools-whl and python3-wheel-whl (/usr/share/python-wheels),
# which pip needs to build the rocm selector sdist. For the kpack-split run and for the
# legacy run (without its stored wheels, as after a local build), in fresh venvs:
#  - the resolved set is rocm, rocm-sdk-core, rocm-sdk-libraries[-<family>], rocm-sdk-devel
#    (and rocm-sdk-device-<target> with the device extra);
#  - `rocm-sdk version | path --root | --bin | --cmake | targets` answer from site-packages;
#  - every installed platform file equals the dist tree's file it came from (symlinks
#    to executables became exec stubs; shared libraries sit under their soname; programs
#    and libraries differ by TheRock's added DT_RPATH only, python_rpath.sh);
#  - the devel tree, expanded by `rocm-sdk path`, holds every file of its dist tree (files
#    a runtime wheel has are hardlinks to it), and device files overlay the libraries
#    platform directory, listed in .devel_links/<target>.json;
#  - ROCM_SDK_TARGET_FAMILY picks another family's libraries (legacy);
#  - every wheel passes zipfile -t, its RECORD matches; rockpack wheels writes the same bytes;
#  - a corrupt artifact leaves out the packages made of it (one log line each), not the rest.
. "$(dirname "$0")/lib.sh"
it_init "$@"
PY=/usr/bin/python3
FLATTEN=$(dirname "$(realpath "$0")")/flatten.py
DEPS=/usr/share/python-wheels
[ -x "$PY" ] || skip "Debian's python3 is not installed"
ls "$DEPS"/setuptools-*.whl "$DEPS"/wheel-*.whl >/dev/null 2>&1 ||
	skip "python3-setuptools-whl / python3-wheel-whl are not installed"
it_need_venv "$PY"
VER=7.13.0.dev0+abc1234
SPLIT=24205988455-linux
LEGACY=24205988454-linux
PIP_OPTS=(--no-cache-dir --disable-pip-version-check --no-input)
for v in $(env | sed -n 's/^\(PIP_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export PIP_CONFIG_FILE=/dev/null

# the legacy run as a local build leaves it: artifacts, no python/
S=$T/store
mkdir -p "$S"
# (copies: a local store follows no symlink)
cp -r "$STORE/$SPLIT" "$S/$SPLIT"
mkdir "$S/$LEGACY"
for f in "$STORE/$LEGACY"/*; do
	[ "$(basename "$f")" = python ] || cp -r "$f" "$S/$LEGACY/"
done

M=$T/mnt
it_mount fs "$S" "$M" "$T/cache"

# every synthesized wheel: zipfile -t, RECORD hashes and sizes, and rockpack's bytes
check_wheels() { # RUN
	local P=$M/$1/python w
	for w in "$P"/files/*.whl; do
		python3 -m zipfile -t "$w" >/dev/null || fail "$1: zipfile -t $(basename "$w")"
	done
	python3 - "$P/files" <<'EOF' || fail "$1: RECORD does not match the wheels"
import base64, hashlib, sys, zipfile, glob
bad = 0
for w in sorted(glob.glob(sys.argv[1] + "/*.whl")):
    z = zipfile.ZipFile(w)
    rec = [n for n in z.namelist() if n.endswith(".dist-info/RECORD")]
    rows = [l.split(",") for l in z.read(rec[0]).decode().splitlines()]
    listed = {r[0] for r in rows}
    if listed != set(z.namelist()):
        print(w, "RECORD lists", sorted(listed ^ set(z.namelist())), file=sys.stderr); bad = 1
    for name, h, size in rows:
        if name == rec[0]:
            continue
        data = z.read(name)
        want = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        if h != want or int(size) != len(data):
            print(w, name, "hash or size differs", file=sys.stderr); bad = 1
sys.exit(bad)
EOF
	"$ROCKPACK" -q --cache "$T/cache" wheels "$S" "$1" -o "$T/rp-$1" ||
		fail "$1: rockpack wheels"
	it_sums "$P/files" >"$T/mnt.sums"
	it_sums "$T/rp-$1" >"$T/rp.sums"
	it_same "$1: rockpack wheels and the mount's files/" "$T/mnt.sums" "$T/rp.sums"
}

# install_sdk VENV RUN SPEC [env...]: pip install SPEC from the run's index into a fresh venv
install_sdk() {
	local venv=$1 run=$2 spec=$3
	shift 3
	it_venv "$PY" "$venv" || die "venv"
	env "$@" "$venv/bin/pip" install "${PIP_OPTS[@]}" --index-url "file://$M/$run/python/simple/" \
		--find-links "$DEPS" "$spec" >"$T/pip.log" 2>&1 ||
		{ fail "$run: pip install $spec"; tail -n 30 "$T/pip.log" >&2; return 1; }
	"$venv/bin/pip" list --format=freeze 2>/dev/null | grep '^rocm' | sort >"$T/installed"
}

# same_or_rpath INSTALLED ORIG: the same bytes, or a program or library with TheRock's
# added DT_RPATH (python_rpath.sh checks its value), or (devel files) its DT_RUNPATH made
# DT_RPATH, and the original's dynamic symbols
same_or_rpath() {
	local rp
	cmp -s "$1" "$2" && return 0
	[ "$(head -c 4 "$1")" = $'\177ELF' ] || return 1
	rp=$(readelf -d "$2" | sed -n 's/.*(RUNPATH).*Library runpath: \[\(.*\)\]$/\1/p')
	{ readelf -d "$1" | grep -q '(RPATH).*_rocm_sdk_core/' ||
		{ [ -n "$rp" ] && [ "$(readelf -d "$1" |
			sed -n 's/.*(RPATH).*Library rpath: \[\(.*\)\]$/\1/p')" = "$rp" ]; }; } &&
		cmp -s <(readelf -W --dyn-syms "$1") <(readelf -W --dyn-syms "$2")
}

# compare_platform SITE PKG DIST: every file of SITE/PKG equals DIST's file (an exec stub
# for a symlink to an executable).
compare_platform() {
	local site=$1 pkg=$2 dist=$3 f rel n=0
	while IFS= read -r -d '' f; do
		rel=${f#"$site/$pkg/"}
		# upstream's empty platform module (and what importing it leaves)
		case $rel in .devel_links/* | __init__.py | __pycache__/*) continue ;; esac
		n=$((n + 1))
		if [ ! -e "$dist/$rel" ]; then
			fail "$pkg/$rel: not in $(basename "$dist")"
		elif same_or_rpath "$f" "$dist/$rel"; then
			:
		elif [ -L "$dist/$rel" ] && [ -x "$dist/$rel" ]; then
			# an exec stub (a program, python_scripts.sh runs them) naming its target
			"$f" --version >/dev/null 2>&1 || true # the stub runs (its target may not care)
			[ "$(head -c 4 "$f")" = $'\177ELF' ] &&
				grep -qaF "$(basename "$(readlink -f "$dist/$rel")")" "$f" ||
				fail "$pkg/$rel: not an exec stub of $(readlink "$dist/$rel")"
		else
			fail "$pkg/$rel differs from $(basename "$dist")/$rel"
		fi
	done < <(find "$site/$pkg" -type f -print0)
	[ $n -gt 0 ] || fail "$pkg: no files installed"
}

# compare_devel SITE RUN: the expanded devel tree holds exactly what flatten.py makes of
# the artifacts PROVENANCE names for the devel wheel (files a runtime wheel has are
# hardlinks to it now, so cmp follows them)
compare_devel() {
	local site=$1 run=$2 o=$T/devel-oracle-$2 stem file
	local stems=" $(sed -n 's/^rocm_sdk_devel-.*\tsynthesized from //p' "$M/$run/python/PROVENANCE") "
	[ "$stems" != "  " ] || { fail "$run: PROVENANCE names no devel artifacts"; return; }
	while read -r stem file; do
		if [[ $stems == *" $stem "* ]]; then printf "%s\n" "$STORE/$run/$file"; fi
	done < <(it_artifacts "$STORE/$run") | xargs python3 "$FLATTEN" "$o" ||
		die "flatten.py"
	(cd "$o" && find . \( -type f -o -type l \) | sort) >"$T/dist.all"
	(cd "$o" && find . -type f | sort) >"$T/dist.files"
	# device files that rocm-sdk linked in from .devel_links/*.json are extra
	python3 -c '
import glob, json, sys
for j in glob.glob(sys.argv[1] + "/_rocm_sdk_libraries*/.devel_links/*.json"):
    for l in json.load(open(j))["links"]:
        print("./" + l["relpath"])' "$site" >"$T/device.files"
	(cd "$site/_rocm_sdk_devel" && find . \( -type f -o -type l \)) | grep -vxF -f "$T/device.files" |
		grep -vx "./__init__.py" | sort >"$T/devel.files" || true
	comm -3 "$T/dist.all" "$T/devel.files" >"$T/missing"
	[ ! -s "$T/missing" ] || fail "$run: devel and flatten differ: $(head -n 5 "$T/missing" | tr '\n' ' ')"
	while read -r rel; do
		same_or_rpath "$site/_rocm_sdk_devel/$rel" "$o/$rel" || fail "$run: devel $rel differs"
	done <"$T/dist.files"
}

site_of() { "$1/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])'; }

# ---- kpack-split run ----
check_wheels $SPLIT
V=$T/venv-split
if install_sdk "$V" $SPLIT 'rocm[libraries,devel,device]'; then
	printf '%s\n' "rocm==$VER" "rocm-sdk-core==$VER" "rocm-sdk-devel==$VER" \
		"rocm-sdk-device-gfx1100==$VER" "rocm-sdk-libraries==$VER" | sort >"$T/want"
	it_same "split: installed packages" "$T/want" "$T/installed"
	SITE=$(site_of "$V")
	[ "$("$V/bin/rocm-sdk" version)" = "$VER" ] || fail "split: rocm-sdk version"
	root=$("$V/bin/rocm-sdk" path --root) || fail "split: rocm-sdk path --root"
	[ "$root" = "$SITE/_rocm_sdk_devel" ] || fail "split: path --root is '$root'"
	[ "$("$V/bin/rocm-sdk" path --bin)" = "$root/bin" ] || fail "split: path --bin"
	[ "$("$V/bin/rocm-sdk" path --cmake)" = "$root/lib/cmake" ] || fail "split: path --cmake"
	"$V/bin/rocm-sdk" targets --installed | grep -qx gfx1100 ||
		fail "split: rocm-sdk targets --installed lacks gfx1100"
	D=$M/$SPLIT/dist/multiarch
	# as upstream: the core's share/therock/dist_info.json dist_amdgpu_targets
	want=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["dist_amdgpu_targets"])' \
		"$D/share/therock/dist_info.json")
	[ "$("$V/bin/rocm-sdk" targets)" = "$want" ] ||
		fail "split: rocm-sdk targets printed '$("$V/bin/rocm-sdk" targets 2>&1)', want '$want'"
	compare_platform "$SITE" _rocm_sdk_core "$D"
	compare_platform "$SITE" _rocm_sdk_libraries "$D"
	compare_devel "$SITE" $SPLIT
	# the device wheel's files sit in the libraries platform directory and are listed
	for k in blas_lib_gfx1100 rand_lib_gfx1100; do
		cmp -s "$SITE/_rocm_sdk_libraries/.kpack/$k.kpack" "$D/.kpack/$k.kpack" ||
			fail "split: _rocm_sdk_libraries/.kpack/$k.kpack is not dist's"
	done
	python3 - "$SITE" gfx1100 <<'EOF' || fail "split: .devel_links/gfx1100.json"
import json, os, sys
site, t = sys.argv[1:]
j = json.load(open(os.path.join(site, "_rocm_sdk_libraries/.devel_links/%s.json" % t)))
assert j["links"], "no links"
for l in j["links"]:
    p = os.path.join(site, "_rocm_sdk_libraries", l["relpath"])
    assert os.path.isfile(p), p
    depth = len(l["relpath"].split("/"))
    assert l["target"] == "../" * depth + "_rocm_sdk_libraries/" + l["relpath"], l
EOF
	# a file a runtime wheel has is a hardlink to it in the devel tree
	lib=$(cd "$SITE/_rocm_sdk_core" && find lib -maxdepth 1 -name 'lib*.so.*' -type f | head -n 1)
	[ -n "$lib" ] && [ "$SITE/_rocm_sdk_core/$lib" -ef "$root/$lib" ] ||
		fail "split: devel $lib is not a hardlink to _rocm_sdk_core's"
	"$V/bin/python" -c 'import rocm_sdk; print(rocm_sdk.find_libraries("amdhip64"))' >/dev/null ||
		fail "split: rocm_sdk.find_libraries('amdhip64')"
fi

# ---- legacy run: one libraries wheel per family ----
check_wheels $LEGACY
V=$T/venv-legacy
if install_sdk "$V" $LEGACY 'rocm[libraries,devel]'; then
	printf '%s\n' "rocm==$VER" "rocm-sdk-core==$VER" "rocm-sdk-devel==$VER" \
		"rocm-sdk-libraries-gfx110X-all==$VER" | sort >"$T/want"
	it_same "legacy: installed packages" "$T/want" "$T/installed"
	SITE=$(site_of "$V")
	compare_platform "$SITE" _rocm_sdk_core "$M/$LEGACY/dist/gfx110X-all"
	compare_platform "$SITE" _rocm_sdk_libraries_gfx110X_all "$M/$LEGACY/dist/gfx110X-all"
	"$V/bin/rocm-sdk" path --root >/dev/null || fail "legacy: rocm-sdk path --root"
	compare_devel "$SITE" $LEGACY
fi
V=$T/venv-legacy94
if install_sdk "$V" $LEGACY 'rocm[libraries]' ROCM_SDK_TARGET_FAMILY=gfx94X-dcgpu; then
	grep -qx "rocm-sdk-libraries-gfx94X-dcgpu==$VER" "$T/installed" ||
		fail "legacy: ROCM_SDK_TARGET_FAMILY=gfx94X-dcgpu installed $(tr '\n' ' ' <"$T/installed")"
fi

grep -q "synthesized from" "$M/$SPLIT/python/PROVENANCE" || fail "PROVENANCE names no source"
it_quiet_log fs
it_umount fs

# ---- a corrupt artifact: the packages made of it are left out, one log line each ----
S3=$T/store3
mkdir -p "$S3/$SPLIT"
cp -r "$STORE/$SPLIT"/* "$S3/$SPLIT/"
rm "$S3/$SPLIT/blas_lib_generic.tar.zst" "$S3/$SPLIT/blas_lib_generic.tar.zst.sha256sum"
f=$STORE/$SPLIT/blas_lib_generic.tar.zst
head -c $(($(stat -c %s "$f") / 2)) "$f" >"$S3/$SPLIT/blas_lib_generic.tar.zst"
it_mount bad "$S3" "$T/mnt3" "$T/cache3"
ls "$T/mnt3/$SPLIT/python/files" | grep -v '\.metadata$' >"$T/bad.files"
for p in rocm_sdk_core rocm_sdk_device_gfx1100 rocm-; do
	grep -q "^$p" "$T/bad.files" || fail "corrupt blas: $p is not served"
done
for p in rocm_sdk_libraries rocm_sdk_devel; do
	! grep -q "^$p" "$T/bad.files" || fail "corrupt blas: $p is served"
done
for p in rocm-sdk-libraries rocm-sdk-devel; do
	[ "$(grep -c "$p not synthesized" "${IT_LOG[bad]}")" = 1 ] ||
		fail "corrupt blas: want one log line for $p, got: $(grep "$p" "${IT_LOG[bad]}")"
done
grep -q 'blas_lib_generic' "${IT_LOG[bad]}" || fail "corrupt blas: the log does not name the archive"
python3 -m zipfile -t "$T/mnt3/$SPLIT/python/files/rocm_sdk_core-$VER-py3-none-linux_x86_64.whl" \
	>/dev/null || fail "corrupt blas: the core wheel does not read"
it_umount bad
it_finish
