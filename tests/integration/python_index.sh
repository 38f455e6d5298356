#!/usr/bin/env bash
# python_index: RUN/python/ of both demo runs, with pip (Debian's, offline) as the client.
# The split run stores no packages (all synthesized from its artifacts); the legacy run
# stores two wheels in python/gfx110X-all/: a real fat libraries wheel, which wins over
# the synthesized file of its name and is also served kpack-split (rocm-sdk-libraries,
# rocm-sdk-device-*; python_split.sh), and a placeholder core wheel, which lacks the
# layout the synthesized devel tree links into and is not served (the synthesized is).
#  - the simple/ index is HTML5 with PEP 503-normalized names; every href resolves; the
#    #sha256= fragments, data-requires-python, data-core-metadata and the .metadata files
#    agree with the wheels (pyindex_check.py); every wheel passes zipfile -t and RECORD;
#  - pip install --index-url file://.../simple/ installs a wheel with its dependencies into
#    a fresh venv; pip download fetches the same bytes; --require-hashes with the index's
#    hashes installs; --dry-run --report resolves;
#  - rockpack wheels (with and without --index) writes what the mount shows;
#  - each file is hashed once (by its page, or ahead of it): a remount takes the hashes
#    from the cache (pyhash/), not the files;
#  - a store with one truncated wheel: listed with its sha256, without metadata, one log
#    line, and pip still installs the others; every run with artifacts has python/;
#  - over an HTTP store (python/ listed from the stored flat index.html) the same index.
. "$(dirname "$0")/lib.sh"
it_init "$@"
CHECK=$(dirname "$(realpath "$0")")/pyindex_check.py
PY=/usr/bin/python3
[ -x "$PY" ] || skip "Debian's python3 is not installed"
it_need_venv "$PY"
VER=7.13.0.dev0+abc1234
SPLIT=24205988455-linux
LEGACY=24205988454-linux
declare -A PROJECTS=(
	[$SPLIT]="rocm rocm-sdk-core rocm-sdk-devel rocm-sdk-device-gfx1100 rocm-sdk-device-gfx1101
		rocm-sdk-device-gfx1102 rocm-sdk-device-gfx1103 rocm-sdk-device-gfx942 rocm-sdk-libraries"
	[$LEGACY]="rocm rocm-sdk-core rocm-sdk-devel rocm-sdk-device-gfx1100 rocm-sdk-device-gfx1101
		rocm-sdk-device-gfx1102 rocm-sdk-device-gfx1103 rocm-sdk-libraries
		rocm-sdk-libraries-gfx110x-all rocm-sdk-libraries-gfx94x-dcgpu"
)
# the legacy run with its fat wheel damaged: no kpack-split wheels
LEGACY_BAD="rocm rocm-sdk-core rocm-sdk-devel rocm-sdk-libraries-gfx110x-all
	rocm-sdk-libraries-gfx94x-dcgpu"
PIP_OPTS=(--no-cache-dir --disable-pip-version-check --no-input)
# only the mount: no pip configuration, no find-links or index from the environment
for v in $(env | sed -n 's/^\(PIP_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export PIP_CONFIG_FILE=/dev/null

M=$T/mnt
it_mount fs "$STORE" "$M" "$T/cache"

# once: every wheel is hashed once (by its page, or ahead of it in the background),
# whatever reads the pages and in what order
hashes() { find "$T/cache/pyhash" -type f -regex '.*/[0-9a-f]*' 2>/dev/null | wc -l; }
ls "$M/$SPLIT/python/files" "$M/$SPLIT/python/simple" >/dev/null
cat "$M/$SPLIT/python/simple/rocm-sdk-device-gfx1101/index.html" >/dev/null &
first=$!
cat "$M/$SPLIT/python/simple"/*/index.html >/dev/null
wait $first || fail "reading a project page failed"
n=$(ls "$M/$SPLIT/python/files" | grep -c '\.whl$')
[ "$(hashes)" = "$n" ] || fail "$(hashes) hash records for $n wheels (each hashed once)"

for run in $SPLIT $LEGACY; do
	P=$M/$run/python
	# (index.html and the family pages: python_layouts.sh)
	want="PROVENANCE files find-links index.html simple "
	[ $run = $LEGACY ] && want="PROVENANCE files find-links gfx110X-all gfx94X-dcgpu index.html simple stored "
	[ "$(ls "$P" | tr '\n' ' ')" = "$want" ] ||
		fail "$run: python/ holds $(ls "$P" | tr '\n' ' ')"
	# shellcheck disable=SC2086
	python3 "$CHECK" "$P" ${PROJECTS[$run]} || fail "$run: the index does not check out"
	for w in "$P"/files/*.whl; do
		python3 -m zipfile -t "$w" >/dev/null || fail "$run: zipfile -t $(basename "$w")"
	done
	# every extra the sdist offers has a wheel behind it: the demo has no profiler
	# artifacts, so no rocm-profiler wheel and no profiler extra (python_upstream_profiler
	# has both)
	rm -rf "$T/sdist" && mkdir "$T/sdist" && tar -xzf "$P/files/rocm-$VER.tar.gz" -C "$T/sdist" ||
		fail "$run: the sdist does not unpack"
	fam=gfx1100 want="devel device libraries"
	[ $run = $LEGACY ] && fam=gfx110X-all want="devel libraries"
	extras=$(cd "$T/sdist/rocm-$VER" && ROCM_SDK_TARGET_FAMILY=$fam "$PY" -c '
import importlib.util, sys
spec = importlib.util.spec_from_file_location("d", "src/rocm_sdk/_dist_info.py")
d = importlib.util.module_from_spec(spec); spec.loader.exec_module(d)
print(" ".join(sorted(k for k in d.build_extras_require() if "-" not in k)))' | tail -n 1)
	[ "$extras" = "$want" ] || fail "$run: the sdist offers the extras '$extras', want '$want'"
	ls "$P"/files/rocm_profiler-* >/dev/null 2>&1 && fail "$run: a rocm-profiler wheel without profiler artifacts"
	# the stored bytes, unchanged (stored wins over synthesized), but for a stored file
	# that is not what the artifacts make (the legacy run's placeholder core: PROVENANCE
	# says it is not served, and files/ has the synthesized one)
	for f in "$P"/files/*.whl "$P"/files/*.tar.gz; do
		[ -d "$STORE/$run/python" ] || break
		s=$(find "$STORE/$run/python" -name "$(basename "$f")" | head -n 1)
		[ -n "$s" ] || continue
		grep -q "^$(basename "$f")	stored python/.*	not served: " "$P/PROVENANCE" && continue
		cmp -s "$s" "$f" || fail "$run: files/$(basename "$f") differs from the store's"
		grep -q "^$(basename "$f")	stored python/" "$P/PROVENANCE" ||
			fail "$run: PROVENANCE does not say $(basename "$f") is stored"
	done
	# rockpack wheels: the same files, and with --index the same tree
	"$ROCKPACK" -q --cache "$T/cache" wheels "$STORE" $run -o "$T/wheels-$run" ||
		fail "$run: rockpack wheels"
	it_sums "$P/files" >"$T/mnt.sums"
	it_sums "$T/wheels-$run" >"$T/rp.sums"
	it_same "$run: rockpack wheels and the mount's files/" "$T/mnt.sums" "$T/rp.sums"
	"$ROCKPACK" -q --cache "$T/cache" wheels "$STORE" $run -o "$T/index-$run" --index ||
		fail "$run: rockpack wheels --index"
	for d in files simple; do
		it_sums "$P/$d" >"$T/mnt.sums"
		it_sums "$T/index-$run/$d" >"$T/rp.sums"
		it_same "$run: rockpack wheels --index and the mount's $d/" "$T/mnt.sums" "$T/rp.sums"
	done
	cmp -s "$P/PROVENANCE" "$T/index-$run/PROVENANCE" || fail "$run: PROVENANCE differs"
	cmp -s "$P/index.html" "$T/index-$run/index.html" || fail "$run: index.html differs"
done

# ---- pip, offline, from the mount ----
IDX=file://$M/$SPLIT/python/simple/
V=$T/venv
it_venv "$PY" "$V" || die "venv"
"$V/bin/pip" install "${PIP_OPTS[@]}" --index-url "$IDX" rocm-sdk-device-gfx1100 >"$T/pip.log" 2>&1 ||
	{ fail "pip install rocm-sdk-device-gfx1100"; tail -n 20 "$T/pip.log" >&2; }
"$V/bin/pip" list --format=freeze 2>/dev/null | grep '^rocm' | sort >"$T/installed"
printf 'rocm-sdk-core==%s\nrocm-sdk-device-gfx1100==%s\nrocm-sdk-libraries==%s\n' $VER $VER $VER \
	>"$T/installed.want"
it_same "pip install: installed packages" "$T/installed.want" "$T/installed"
"$V/bin/python" -c 'import rocm_sdk_core, rocm_sdk_libraries' || fail "installed packages do not import"
[ -f "$("$V/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')/_rocm_sdk_libraries/.devel_links/gfx1100.json" ] ||
	fail "the device wheel did not overlay the libraries platform directory"

# legacy: a family wheel with its dependency
"$V/bin/pip" install "${PIP_OPTS[@]}" --index-url "file://$M/$LEGACY/python/simple/" \
	--target "$T/legacy-target" rocm-sdk-libraries-gfx110X-all >"$T/pip.log" 2>&1 ||
	{ fail "pip install rocm-sdk-libraries-gfx110X-all (legacy)"; tail -n 20 "$T/pip.log" >&2; }
[ -d "$T/legacy-target/_rocm_sdk_core" ] || fail "legacy: rocm-sdk-core not installed as a dependency"

# pip download: the same bytes as files/
"$V/bin/pip" download "${PIP_OPTS[@]}" --index-url "$IDX" -d "$T/dl" rocm-sdk-device-gfx1100 \
	>"$T/pip.log" 2>&1 || { fail "pip download"; tail -n 20 "$T/pip.log" >&2; }
[ "$(ls "$T/dl" | wc -l)" = 3 ] || fail "pip download fetched $(ls "$T/dl" | tr '\n' ' ')"
for f in "$T"/dl/*; do
	cmp -s "$f" "$M/$SPLIT/python/files/$(basename "$f")" || fail "pip download: $(basename "$f") differs"
done

# --require-hashes with the hashes the index gives
python3 - "$M/$SPLIT/python/simple" >"$T/req.txt" <<'EOF'
import re, sys, urllib.parse
root = sys.argv[1]
for proj in ("rocm-sdk-core", "rocm-sdk-libraries", "rocm-sdk-device-gfx1100"):
    page = open("%s/%s/index.html" % (root, proj)).read()
    href = re.search(r'href="([^"]+\.whl)#sha256=([0-9a-f]{64})"', page)
    ver = urllib.parse.unquote(href.group(1)).split("/")[-1].split("-")[1]
    print("%s==%s --hash=sha256:%s" % (proj, ver, href.group(2)))
EOF
"$V/bin/pip" install "${PIP_OPTS[@]}" --index-url "$IDX" --target "$T/hashed" --require-hashes \
	-r "$T/req.txt" >"$T/pip.log" 2>&1 || { fail "pip install --require-hashes"; tail -n 20 "$T/pip.log" >&2; }
# one wrong hash: refused
python3 -c '
import sys
t = open(sys.argv[1]).read()
i = t.index("sha256:") + 7
print(t[:i] + ("0" if t[i] != "0" else "1") + t[i + 1:], end="")
' "$T/req.txt" >"$T/req-bad.txt"
if "$V/bin/pip" install "${PIP_OPTS[@]}" --index-url "$IDX" --target "$T/hashed-bad" \
	--require-hashes -r "$T/req-bad.txt" >"$T/pip.log" 2>&1; then
	fail "pip install --require-hashes accepted a wrong hash"
fi

# --dry-run --report resolves the whole set
"$V/bin/pip" install "${PIP_OPTS[@]}" --index-url "$IDX" --dry-run --ignore-installed \
	--report "$T/report.json" rocm-sdk-device-gfx1100 >"$T/pip.log" 2>&1 ||
	{ fail "pip install --dry-run --report"; tail -n 20 "$T/pip.log" >&2; }
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
names = sorted(i["metadata"]["name"] for i in r["install"])
sys.exit(names != ["rocm-sdk-core", "rocm-sdk-device-gfx1100", "rocm-sdk-libraries"])
' "$T/report.json" || fail "pip --report does not resolve core, libraries and device"
# pip resolved from the .metadata files (PEP 658; pip 23.0 still downloads the chosen
# wheels at the end of a dry run, so "no wheel read" is not checked)
n=$(grep -c '^ *Obtaining dependency information for .* from file://.*\.whl\.metadata$' "$T/pip.log" || true)
[ "$n" = 3 ] || fail "pip --dry-run: $n of 3 packages resolved from .metadata"
it_quiet_log fs
it_umount fs

# ---- a remount takes the hashes from the cache ----
# (every wheel's hash is a record; the sdist is hashed in memory; pyhash/blob-* name the
# devel tarballs written to the cache)
FAKE=$(printf '%064d' 7)
for r in "$T"/cache/pyhash/*; do
	case $r in */blob-*) ;; *) printf '%s\n' "$FAKE" | it_record "pyhash/${r##*/}" >"$r" ;; esac
done
it_mount again "$STORE" "$M" "$T/cache"
want=$(cat "$M/$SPLIT/python/simple"/*/index.html | grep -c '\.whl#sha256=')
n=$(cat "$M/$SPLIT/python/simple"/*/index.html | grep -c "#sha256=$FAKE")
[ "$n" = "$want" ] && [ "$n" -ge 8 ] ||
	fail "remount: $n of $want links use the cached hash (files were hashed again?)"
it_umount again

# ---- a truncated wheel ----
S2=$T/store2
mkdir -p "$S2"
cp -a "$STORE/$SPLIT" "$STORE/$LEGACY" "$S2/"
BADW=rocm_sdk_libraries_gfx110X_all-$VER-py3-none-linux_x86_64.whl
truncate -s 700 "$S2/$LEGACY/python/gfx110X-all/$BADW"
it_mount bad "$S2" "$T/mnt2" "$T/cache2"
# shellcheck disable=SC2086
python3 "$CHECK" "$T/mnt2/$LEGACY/python" $LEGACY_BAD --corrupt "$BADW" ||
	fail "corrupt wheel: the index does not check out"
[ "$(grep -c "$BADW" "${IT_LOG[bad]}")" = 1 ] ||
	fail "corrupt wheel: want one log line, got: $(grep "$BADW" "${IT_LOG[bad]}")"
"$V/bin/pip" install "${PIP_OPTS[@]}" --index-url "file://$T/mnt2/$LEGACY/python/simple/" \
	--target "$T/bad-target" rocm-sdk-libraries-gfx94X-dcgpu >"$T/pip.log" 2>&1 ||
	{ fail "pip install next to a corrupt wheel"; tail -n 20 "$T/pip.log" >&2; }
it_umount bad

# ---- an HTTP store: python/ listed from TheRock's flat python/index.html ----
# (python's http.server serves a directory's index.html when there is one, as S3 and
# nginx with "index index.html" do)
it_bg bash -c 'cd "$1" && exec python3 -u -m http.server 0 --bind 127.0.0.1' - "$STORE" \
	>"$T/httpd.log" 2>&1
for ((i = 0; i < 100; i++)); do
	PORT=$(sed -n 's/.* port \([0-9]*\).*/\1/p' "$T/httpd.log" | head -n 1)
	[ -n "$PORT" ] && break
	sleep 0.1
done
[ -n "$PORT" ] || die "http.server did not start"
it_mount http "http://127.0.0.1:$PORT/" "$T/mnt3" "$T/cache3"
for run in $SPLIT $LEGACY; do
	# shellcheck disable=SC2086
	python3 "$CHECK" "$T/mnt3/$run/python" ${PROJECTS[$run]} || fail "http: $run: the index does not check out"
done
it_sums "$T/mnt3/$SPLIT/python/files" >"$T/http.sums"
it_sums "$T/index-$SPLIT/files" >"$T/local.sums"
it_same "http: files/ and the local store's" "$T/local.sums" "$T/http.sums"
it_quiet_log http
it_umount http

it_finish
