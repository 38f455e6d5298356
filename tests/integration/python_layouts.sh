#!/usr/bin/env bash
# python_layouts: RUN/python/ also serves the --find-links pages TheRock's upload step
# writes (upload_python_packages.py, generate_local_index.py), so the install lines a CI
# run prints work against the mount (offline: --no-index, and Debian's setuptools/wheel
# from /usr/share/python-wheels to build the rocm sdist):
#  - python/index.html (flat page): every link resolves to a file of the mount with the
#    bytes of files/ (a stored file's bytes are the store's), every served file is linked;
#    pip install 'rocm[libraries,devel,device-gfx1100]' --find-links=.../index.html
#    installs the kpack-split set;
#  - the legacy run (two families, one stored group): python/<family>/index.html per
#    family, listing the generic files (every family's libraries wheel among them, as
#    upstream's), not the kpack-split wheels; the family's CI line installs its own
#    libraries;
#  - a project the run stores is served from the store alone (a synthesized file of it
#    under another name is not served, PROVENANCE says so).
. "$(dirname "$0")/lib.sh"
it_init "$@"
PY=/usr/bin/python3
DEPS=/usr/share/python-wheels
[ -x "$PY" ] || skip "Debian's python3 is not installed"
ls "$DEPS"/setuptools-*.whl "$DEPS"/wheel-*.whl >/dev/null 2>&1 ||
	skip "python3-setuptools-whl / python3-wheel-whl are not installed"
it_need_venv "$PY"
VER=7.13.0.dev0+abc1234
SPLIT=24205988455-linux
LEGACY=24205988454-linux
PIP_OPTS=(--no-cache-dir --disable-pip-version-check --no-input --no-index --find-links "$DEPS")
for v in $(env | sed -n 's/^\(PIP_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export PIP_CONFIG_FILE=/dev/null

M=$T/mnt
it_mount fs "$STORE" "$M" "$T/cache"

# links PAGE: the hrefs of PAGE resolved against its directory (one path a line), checking
# that the page's size at stat is its length
links() {
	python3 - "$1" <<'EOF'
import html.parser, os, sys, urllib.parse
page = sys.argv[1]
data = open(page, "rb").read()
if os.stat(page).st_size != len(data):
    sys.exit("%s: size %d at stat, %d read" % (page, os.stat(page).st_size, len(data)))
class P(html.parser.HTMLParser):
    hrefs = []
    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self.hrefs.append(dict(attrs)["href"])
p = P()
p.feed(data.decode())
for h in p.hrefs:
    u = urllib.parse.urlsplit(h)
    assert not u.scheme and not u.netloc and not u.path.startswith("/"), h
    print(os.path.normpath(os.path.join(os.path.dirname(page), urllib.parse.unquote(u.path))))
EOF
}

# check_page RUN PAGE: every link of PAGE is a file of files/ (stored ones: the store's
# bytes); the linked names go to $T/linked
check_page() {
	local run=$1 page=$2 f s
	links "$page" >"$T/links" || { fail "$run: ${page#"$M/"} does not parse"; return; }
	: >"$T/linked"
	while IFS= read -r f; do
		# (a family page also links its family's own sdist and devel wheel, next to it)
		[ "$(dirname "$f")" = "$M/$run/python/files" ] || [ "$(dirname "$f")" = "$(dirname "$page")" ] ||
			fail "$run: ${page#"$M/"}: $f is not in files/"
		[ -f "$f" ] || { fail "$run: ${page#"$M/"}: $f does not resolve"; continue; }
		basename "$f" >>"$T/linked"
		s=
		[ -d "$STORE/$run/python" ] && s=$(find "$STORE/$run/python" -name "$(basename "$f")")
		# (but a stored file that is not what the artifacts make: the synthesized one is
		# served, PROVENANCE says so; python_ci.sh)
		if [ -n "$s" ] && ! grep -q "^$(basename "$f")	stored python/.*	not served: " \
			"$M/$run/python/PROVENANCE"; then
			cmp -s "$s" "$f" || fail "$run: $(basename "$f") is not the stored bytes"
		fi
	done <"$T/links"
	sort -o "$T/linked" "$T/linked"
}

for run in $SPLIT $LEGACY; do
	P=$M/$run/python
	[ -f "$P/index.html" ] || { fail "$run: no python/index.html"; continue; }
	check_page $run "$P/index.html"
	ls "$P/files" | grep -v '\.metadata$' | sort >"$T/served"
	it_same "$run: python/index.html's links and files/" "$T/served" "$T/linked"
	[ "$(wc -l <"$T/linked")" -ge 5 ] || fail "$run: python/index.html lists $(wc -l <"$T/linked") files"
	# the pages of simple/ are still there
	[ -f "$P/simple/index.html" ] || fail "$run: python/simple/index.html is gone"
done

# a kpack-split run has no family pages
[ -z "$(find "$M/$SPLIT/python" -mindepth 2 -maxdepth 2 -name index.html ! -path '*/simple/*')" ] ||
	fail "$SPLIT: family pages on a kpack-split run"

# ---- the split run's CI line ----
V=$T/venv-flat
it_venv "$PY" "$V" || die "venv"
"$V/bin/pip" install "${PIP_OPTS[@]}" 'rocm[libraries,devel,device-gfx1100]' --pre \
	--find-links="file://$M/$SPLIT/python/index.html" >"$T/pip.log" 2>&1 ||
	{ fail "$SPLIT: pip install --find-links=python/index.html"; tail -n 30 "$T/pip.log" >&2; }
"$V/bin/pip" list --format=freeze 2>/dev/null | grep '^rocm' | sort >"$T/installed"
printf '%s\n' "rocm==$VER" "rocm-sdk-core==$VER" "rocm-sdk-devel==$VER" \
	"rocm-sdk-device-gfx1100==$VER" "rocm-sdk-libraries==$VER" | sort >"$T/want"
it_same "$SPLIT: packages installed from python/index.html" "$T/want" "$T/installed"

# ---- the legacy run: one page per family ----
P=$M/$LEGACY/python
fams=$(find "$P" -mindepth 2 -maxdepth 2 -name index.html ! -path '*/simple/*' |
	sed 's|.*/python/\([^/]*\)/index.html|\1|' | sort | tr '\n' ' ')
[ "$fams" = "gfx110X-all gfx94X-dcgpu " ] || fail "$LEGACY: family pages for '$fams'"
for fam in gfx110X-all gfx94X-dcgpu; do
	other=gfx94X_dcgpu
	[ $fam = gfx94X-dcgpu ] && other=gfx110X_all
	[ -f "$P/$fam/index.html" ] || continue
	check_page $LEGACY "$P/$fam/index.html"
	# every family's libraries wheel, as upstream's generate_multiarch_indexes links all of
	# dist/ (the restricted sdist picks the family's own: installed below)
	for f in $fam ${other//_/-}; do
		grep -qx "rocm_sdk_libraries_${f//-/_}-$VER-py3-none-linux_x86_64.whl" "$T/linked" ||
			fail "$fam: the libraries wheel of $f is not listed"
	done
	grep -qx "rocm_sdk_core-$VER-py3-none-linux_x86_64.whl" "$T/linked" ||
		fail "$fam: rocm-sdk-core is not listed"
	grep -qx "rocm-$VER.tar.gz" "$T/linked" || fail "$fam: the rocm sdist is not listed"
	if grep -E "^rocm_sdk_device_|^rocm_sdk_libraries-" "$T/linked"; then
		fail "$fam: lists kpack-split wheels"
	fi
	V=$T/venv-$fam
	it_venv "$PY" "$V" || die "venv"
	ROCM_SDK_TARGET_FAMILY=$fam "$V/bin/pip" install "${PIP_OPTS[@]}" 'rocm[libraries,devel]' \
		--pre --find-links="file://$P/$fam/index.html" >"$T/pip.log" 2>&1 ||
		{ fail "$fam: pip install --find-links=python/$fam/index.html"; tail -n 30 "$T/pip.log" >&2; }
	"$V/bin/pip" list --format=freeze 2>/dev/null | grep '^rocm' | sort >"$T/installed"
	printf '%s\n' "rocm==$VER" "rocm-sdk-core==$VER" "rocm-sdk-devel==$VER" \
		"rocm-sdk-libraries-$fam==$VER" | sort >"$T/want"
	it_same "$fam: packages installed from python/$fam/index.html" "$T/want" "$T/installed"
done

# ---- a project the run stores is served from the store alone ----
# (the stored core: the synthesized one's bytes under another platform tag, so that it
# has the layout the synthesized devel tree links into; the demo's placeholder has not,
# and is not served: python_ci.sh)
S2=$T/store2
mkdir -p "$S2"
cp -a "$STORE/$LEGACY" "$S2/"
CORE=rocm_sdk_core-$VER-py3-none-linux_x86_64.whl
CORE2=rocm_sdk_core-$VER-py3-none-manylinux_2_28_x86_64.whl
rm "$S2/$LEGACY/python/gfx110X-all/$CORE"
cp "$M/$LEGACY/python/files/$CORE" "$S2/$LEGACY/python/gfx110X-all/$CORE2"
it_quiet_log fs
it_umount fs
it_mount two "$S2" "$T/mnt2" "$T/cache2"
P=$T/mnt2/$LEGACY/python
ls "$P/files" | grep '^rocm_sdk_core-' | grep -v '\.metadata$' >"$T/cores"
echo "$CORE2" >"$T/cores.want"
it_same "stored project: the core wheels served" "$T/cores.want" "$T/cores"
cmp -s "$P/files/$CORE2" "$S2/$LEGACY/python/gfx110X-all/$CORE2" || fail "stored core: not its bytes"
grep -q "^synthesized $CORE	not served: project rocm-sdk-core is stored" "$P/PROVENANCE" ||
	fail "PROVENANCE does not say the synthesized core is not served"
for page in "$P/index.html" "$P"/gfx*/index.html "$P/simple/rocm-sdk-core/index.html"; do
	grep -q "$CORE\"" "$page" && fail "${page#"$P/"} links the synthesized core"
	grep -q "${CORE2/+/%2B}" "$page" || fail "${page#"$P/"} does not link the stored core"
done
it_quiet_log two
it_umount two

it_finish
