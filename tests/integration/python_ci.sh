#!/usr/bin/env bash
# python_ci: TheRock's own CI install lines, from its test_rocm_wheels.yml (vendored under
# upstream_therock/, the oracle: the steps' scripts are read from the YAML and run by
# gha_steps.py with the workflow's own variables), against the mount, offline:
#     Compute ROCm device extras    expand_amdgpu_families.py --output-mode=device-extras
#     Install rocm[libraries]       setup_venv.py VENV --packages "rocm[libraries,<device
#                                   extras>]==V" --index-url=... --find-links=...
#     Test rocm[libraries]          rocm-sdk test
#     Install rocm[libraries,devel] (the same venv), Test rocm[libraries,devel]
#     (and the rocm[profiler] steps when the run serves a rocm-profiler wheel)
# for each family of both demo runs and of a run with a family without library artifacts
# (the legacy run without the gfx94X-dcgpu library artifacts), through each page pip is
# pointed at (the cases: at the end):
#  - find-links, as TheRock's multi-arch CI passes it (package_index_url empty, so
#    setup_venv.py runs pip with --no-index --no-build-isolation): python/index.html for a
#    kpack-split run, python/<family>/index.html for a legacy one;
#  - simple/ as package_index_url (no find-links);
# then `pip check`, and `pip uninstall` of everything installed: the venv's site-packages
# is then what it was before the install, file for file, no directory left behind (in
# either uninstall order of rocm-sdk-devel and the device wheels; the device wheels go
# before rocm-sdk-libraries, a known gap otherwise). Expected failures:
#  - simple/ of a legacy run with several families, another family than the first:
#    "Install rocm[libraries,devel]" fails with pip's error naming python/<family>/;
# Every step fails the case on pip's warning that an extra is not provided, except the
# device extras on a legacy run (its sdist has none, as upstream's).
# One venv (made by setup_venv.py itself, without packages) serves every case.
# pip, setuptools and wheel come from Debian's python3-*-whl (/usr/share/python-wheels):
# setup_venv.py upgrades them first (PIP_FIND_LINKS, and an empty local index), and a
# build from simple/ takes setuptools from there.
. "$(dirname "$0")/lib.sh"
it_init "$@"
HERE=$(dirname "$(realpath "$0")")
UP=$HERE/upstream_therock
WF=$UP/.github/workflows/test_rocm_wheels.yml
PY=/usr/bin/python3
DEPS=/usr/share/python-wheels
[ -x "$PY" ] || skip "Debian's python3 is not installed"
ls "$DEPS"/setuptools-*.whl "$DEPS"/wheel-*.whl "$DEPS"/pip-*.whl >/dev/null 2>&1 ||
	skip "python3-pip-whl / python3-setuptools-whl / python3-wheel-whl are not installed"
"$PY" -c 'import yaml' 2>/dev/null || skip "python3-yaml is not installed"
it_need_venv "$PY"
VER=7.13.0.dev0+abc1234
SPLIT=24205988455-linux
LEGACY=24205988454-linux
NOLIB=24205988456-linux
for v in $(env | sed -n 's/^\(PIP_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export PIP_CONFIG_FILE=/dev/null PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
# setup_venv.py's "pip install --upgrade pip setuptools wheel": Debian's wheels, and an
# empty index instead of PyPI (the install lines name their own index or --no-index)
mkdir -p "$T/empty-index" "$T/bin"
export PIP_FIND_LINKS=$DEPS PIP_INDEX_URL=file://$T/empty-index/
unset LD_LIBRARY_PATH ROCM_SDK_TARGET_FAMILY
# the runner's `python` (actions/setup-python); upstream's tools with 3.12's library
ln -s "$PY" "$T/bin/python"
export PATH=$T/bin:/usr/bin:/bin PYTHONPATH=$HERE/py312_compat

# ---- the store: both demo runs, and the legacy run without gfx94X-dcgpu's library
# artifacts and without its stored python/ (as a local build leaves it) ----
S=$T/store
mkdir -p "$S/$NOLIB"
cp -r "$STORE/$SPLIT" "$STORE/$LEGACY" "$S/"
for f in "$STORE/$LEGACY"/*; do
	case ${f##*/} in
	python | *_lib_gfx94X-dcgpu.*) ;;
	*) cp -r "$f" "$S/$NOLIB/" ;;
	esac
done
M=$T/mnt
it_mount fs "$S" "$M" "$T/cache"

# ---- the venv, made by setup_venv.py ----
V=$T/venv
(cd "$UP" && python build_tools/setup_venv.py "$V") >"$T/setup.log" 2>&1 ||
	{ tail -n 20 "$T/setup.log" >&2; die "setup_venv.py $V"; }
SITE=$("$V/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
snapshot() { (cd "$V" && find . ! -name '*.pyc' ! -name __pycache__ | LC_ALL=C sort); }
snapshot >"$T/before"
"$V/bin/pip" freeze --all | LC_ALL=C sort >"$T/freeze-before"

# one case: RUN FAMILY PAGE (find-links or simple) [STEP PATTERN]: the steps pass, or (when
# STEP is given) the first to fail is STEP, and its output has PATTERN (grep -E)
ci_case() {
	local run=$1 fam=$2 page=$3 want_step=${4:-} want_text=${5:-} P=$M/$1/python
	local name="$run $fam $page" log=$T/ci-$1-$2-$3.log idx="" links="" steps rc=0
	if [ "$page" = simple ]; then
		idx=file://$P/simple/
	elif [ -d "$P/$fam" ]; then
		links=file://$P/$fam/index.html
	else
		links=file://$P/index.html
	fi
	steps=("Compute ROCm device extras" "Install rocm[libraries]" "Show installed packages (libraries)"
		"Test rocm[libraries]" "Install rocm[libraries,devel]"
		"Show installed packages (libraries,devel)" "Test rocm[libraries,devel]")
	# (a failing install is retried by setup_venv.py for 3 minutes: pip's own error is
	# checked with the install line's pip command instead)
	[ "$want_step" = "Install rocm[libraries,devel]" ] && steps=("${steps[@]:0:4}")
	# (the runner's GPU picks the family of simple/'s sdist, through offload-arch; here
	# ROCM_SDK_TARGET_FAMILY, which wins over it. A family's page has its own sdist.)
	ROCM_SDK_TARGET_FAMILY=$fam "$PY" "$HERE/gha_steps.py" "$WF" test_wheels "${steps[@]}" \
		--checkout "$UP" --log "$log" \
		--input amdgpu_family="$fam" --input rocm_version="$VER" \
		--input package_index_url="$idx" --input package_find_links_url="$links" \
		--env VENV_DIR="$V" --env PROFILER_VENV_DIR="$T/venv-profiler" 2>"$T/gha.err" || rc=$?
	if [ "$want_step" = "Install rocm[libraries,devel]" ]; then
		[ $rc = 0 ] || { fail "$name: $(cat "$T/gha.err")"; grep -E '^(ERROR|FAIL)|rror:' "$log" | tail -n 15 >&2; }
		# setup_venv.py's: python -m pip install --index-url=IDX 'rocm[libraries,devel]==V'
		if ROCM_SDK_TARGET_FAMILY=$fam "$V/bin/python" -m pip install --index-url="$idx" \
			"rocm[libraries,devel]==$VER" >>"$log" 2>&1; then
			fail "$name: rocm[libraries,devel] installed"
		elif ! grep -qE "$want_text" "$log"; then
			fail "$name: pip failed without '$want_text'"
			grep -E '^ERROR' "$log" | tail -n 5 >&2
		fi
	elif [ -z "$want_step" ]; then
		[ $rc = 0 ] || { fail "$name: $(cat "$T/gha.err")"; grep -E '^(ERROR|FAIL)|rror:' "$log" | tail -n 15 >&2; }
		grep -q "^rocm-sdk-devel==" "$log" || fail "$name: rocm-sdk-devel was not installed"
	elif ! grep -qF "##[error] step '$want_step' exited" "$log"; then
		fail "$name: want step '$want_step' to fail, got: $(cat "$T/gha.err")"
	elif ! grep -qE "$want_text" "$log"; then
		fail "$name: step '$want_step' failed without '$want_text'"
		grep -E '^(ERROR|FAIL)|rror:' "$log" | tail -n 15 >&2
	fi
	if [ -d "$P/$fam" ]; then
		grep -q "^rocm-sdk-libraries-$fam==" "$log" || fail "$name: $fam's libraries wheel was not installed"
	else
		grep -q "^rocm-sdk-libraries==" "$log" || fail "$name: no libraries wheel was installed"
	fi
	# pip may drop an extra with a warning only: the device extras of a legacy run
	# (its sdist has none, as upstream's), nothing else
	grep "^WARNING: .* does not provide the extra" "$log" | grep -v "extra 'device-gfx[0-9a-f]*'$" \
		>"$T/dropped" || true
	[ -d "$P/$fam" ] || grep "^WARNING: .* does not provide the extra" "$log" >>"$T/dropped" || true
	[ -s "$T/dropped" ] && fail "$name: pip dropped an extra: $(sort -u "$T/dropped" | tr '\n' ' ')"
	"$V/bin/pip" check >"$T/check.log" 2>&1 || { fail "$name: pip check"; cat "$T/check.log" >&2; }
	# uninstall everything the steps installed: the venv as before, nothing left
	# (in name order, rocm-sdk-devel before rocm-sdk-device-*, and with simple/ the device
	# wheels first: pip removes a directory whole only when the distribution owns all
	# under it. Known gap: rocm-sdk-libraries before the device wheels leaves the
	# directories of the device files in _rocm_sdk_libraries, docs/python-sdk.md)
	"$V/bin/pip" freeze --all | LC_ALL=C sort >"$T/freeze"
	comm -13 "$T/freeze-before" "$T/freeze" | sed 's/[=@ ].*//' >"$T/installed"
	if [ "$page" = simple ]; then
		{ grep '^rocm-sdk-device-' "$T/installed" || true; grep -v '^rocm-sdk-device-' "$T/installed" || true; } \
			>"$T/installed.r" && mv "$T/installed.r" "$T/installed"
	fi
	# shellcheck disable=SC2046
	"$V/bin/pip" uninstall -y $(cat "$T/installed") >>"$log" 2>&1 || fail "$name: pip uninstall"
	snapshot >"$T/after"
	if ! cmp -s "$T/before" "$T/after"; then
		fail "$name: the venv after uninstall differs from before:"
		diff "$T/before" "$T/after" | head -n 20 >&2 || true
	fi
	if ! cmp -s "$T/before" "$T/after"; then
		# the next case starts from a clean venv
		rm -rf "$V" && (cd "$UP" && python build_tools/setup_venv.py "$V") >"$T/setup.log" 2>&1 ||
			die "setup_venv.py $V"
	fi
}

# simple/ of a legacy run with several families serves the first family's devel wheel:
# for another, rocm[libraries,devel] fails, pip's error naming the family's page
# (docs/python-sdk.md)
ELSEWHERE='^ERROR: No matching distribution found for rocm-sdk-devel-gfx94X-dcgpu-is-on-find-links\.python\.gfx94X-dcgpu\.index\.html'
# Each family of each run, and each kind of page, at least once (a case costs ~15 s of
# pip and rocm-sdk test on a quiet machine: not every product of the two):
#  - the kpack-split run: one index for every family (the family picks the device extras);
#  - the legacy run as a local build leaves it (synthesized) with a family without library
#    artifacts (gfx94X-dcgpu): each family's page, and simple/ for both families;
#  - the legacy run as stored: its placeholder core wheel (python/gfx110X-all/) lacks the
#    layout the synthesized devel tree links into, so the pages offer the synthesized core
#    instead (PROVENANCE says why), and the set installs and passes rocm-sdk test.
ci_case $SPLIT gfx110X-all find-links
ci_case $SPLIT gfx94X-dcgpu simple
ci_case $NOLIB gfx110X-all find-links
ci_case $NOLIB gfx94X-dcgpu find-links
ci_case $NOLIB gfx110X-all simple
ci_case $NOLIB gfx94X-dcgpu simple "Install rocm[libraries,devel]" "$ELSEWHERE"
ci_case $LEGACY gfx94X-dcgpu find-links
grep -q "^rocm_sdk_core-.*stored python/gfx110X-all/.*not served: lacks _rocm_sdk_core/" \
	"$M/$LEGACY/python/PROVENANCE" || fail "PROVENANCE does not say the stored core is not served"
cmp -s "$M/$LEGACY/python/stored/gfx110X-all/rocm_sdk_core-7.13.0.dev0+abc1234-py3-none-linux_x86_64.whl" \
	"$STORE/$LEGACY/python/gfx110X-all/rocm_sdk_core-7.13.0.dev0+abc1234-py3-none-linux_x86_64.whl" ||
	fail "python/stored/ does not serve the stored core wheel's own bytes"
it_quiet_log fs
it_umount fs
it_finish
