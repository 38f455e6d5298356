#!/usr/bin/env bash
# bucket_layout: a bucket laid out as TheRock's CI writes it (workflow_outputs.py), served
# from a local directory, from s3rver and over HTTP (nginx autoindex); docs/views.md,
# "Stored and synthesized":
#  - 100-linux: archives plus the folders CI stores (logs/, manifests/, tarballs/,
#    packages/deb/, python/<group>/): each folder is served as stored (the stored bytes);
#    the stored tarball wins over the made one of its name (tarballs/PROVENANCE); the
#    stored apt repository replaces the made one as a whole, rpm/ is made;
#    python/stored/ is the stored python/ folder;
#  - 200-linux, a failed build (logs only): its logs, and a README that says so; mounted
#    directly, the mount's README and the daemon's log say so too;
#  - 300-windows: tarballs named for Windows, the stored wheel, no packages/;
#  - local-linux (TheRock's local staging directory) is a run; ROCm-TheRock/ a namespace of
#    runs; python-deps/ and index.html at the root are passed through as stored;
#  - rockpack ls lists every run; rockpack export writes the stored bytes.
# Every mount must show the same listings and bytes as the local one.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../remote/remote.sh"
it_init "$@"

B=$T/bucket
MAN='{"the_rock_commit": "0123456789abcdef0123456789abcdef01234567", "rocm_package_version": "7.1.0", "rocm_version": "7.1.0", "github_run_id": "100", "submodules": []}'
mkdir -p "$B"/100-linux/{tarballs,packages/deb/pool/main,packages/deb/dists/stable/main/binary-amd64,logs/build,logs/packaging/deb,manifests/gfx110X-all,python/gfx110X-all}
printf 'core library\n' >"$T/libcore.so"
printf 'a tool\n' >"$T/tool"
printf 'MZ a dll\n' >"$T/amdhip64_7.dll"
it_mkart "$B/100-linux" core_lib_gfx110X-all core/stage "$T/libcore.so:lib/libcore.so"
it_mkart "$B/100-linux" base_lib_generic base/stage "$T/tool:bin/tool"
echo "$MAN" >"$B/100-linux/manifests/therock_manifest.json"
echo "$MAN" >"$B/100-linux/manifests/gfx110X-all/therock_manifest.json"
echo 'the tarball CI made' >"$B/100-linux/tarballs/therock-dist-linux-gfx110X-all-7.1.0.tar.gz"
echo '<html>tarballs</html>' >"$B/100-linux/tarballs/index.html"
echo 'a deb CI made' >"$B/100-linux/packages/deb/pool/main/amdrocm-core7.1_7.1.0-100_amd64.deb"
echo 'Origin: CI' >"$B/100-linux/packages/deb/dists/stable/Release"
echo 'Package: amdrocm-core7.1' >"$B/100-linux/packages/deb/dists/stable/main/binary-amd64/Packages"
echo 'build log' >"$B/100-linux/logs/build/build.log"
echo 'packaging log' >"$B/100-linux/logs/packaging/deb/build.log"
echo '<html>logs</html>' >"$B/100-linux/logs/index.html"
echo '<html>py</html>' >"$B/100-linux/python/gfx110X-all/index.html"
mkdir -p "$B/200-linux/logs/build"
echo 'the build failed' >"$B/200-linux/logs/build/build.log"
mkdir -p "$B/300-windows/python"
it_mkart "$B/300-windows" core_lib_gfx1151 core/stage "$T/amdhip64_7.dll:bin/amdhip64_7.dll"
WHL=rocm_sdk_core-7.1.0-py3-none-win_amd64.whl
python3 - "$B/300-windows/python/$WHL" <<'EOF'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    z.writestr("rocm_sdk_core/__init__.py", "")
    z.writestr("rocm_sdk_core-7.1.0.dist-info/METADATA",
               "Metadata-Version: 2.1\nName: rocm-sdk-core\nVersion: 7.1.0\n")
    z.writestr("rocm_sdk_core-7.1.0.dist-info/WHEEL",
               "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\nTag: py3-none-win_amd64\n")
    z.writestr("rocm_sdk_core-7.1.0.dist-info/RECORD", "")
EOF
mkdir -p "$B/local-linux" "$B/ROCm-TheRock/400-linux" "$B/python-deps/simple/numpy"
it_mkart "$B/local-linux" core_lib_generic core/stage "$T/libcore.so:lib/libcore.so"
it_mkart "$B/ROCm-TheRock/400-linux" core_lib_generic core/stage "$T/libcore.so:lib/libcore.so"
echo '<html>numpy</html>' >"$B/python-deps/simple/numpy/index.html"
echo '<html>the bucket</html>' >"$B/index.html"

# what one mount shows: listings, and the sha256 of what must be the stored bytes
collect() (
	cd "$1" || exit
	ls -A . | LC_ALL=C sort
	for d in 100-linux 100-linux/tarballs 100-linux/packages 100-linux/python 200-linux \
		300-windows 300-windows/tarballs local-linux local-linux/browse ROCm-TheRock \
		ROCm-TheRock/400-linux/browse python-deps; do
		echo "[$d]"
		ls -A "$d" | LC_ALL=C sort
	done
	find 100-linux/logs 100-linux/manifests 100-linux/packages/deb 100-linux/python/stored \
		200-linux/logs python-deps index.html -type f -print0 | LC_ALL=C sort -z |
		xargs -0 sha256sum
	sha256sum 100-linux/tarballs/therock-dist-linux-gfx110X-all-7.1.0.tar.gz \
		100-linux/tarballs/index.html 300-windows/python/files/$WHL \
		local-linux/browse/core_lib_generic/core/stage/lib/libcore.so
)

# ---- a local directory ----
it_mount local "$B" "$T/local" "$T/cache-local"
M=$T/local
[ "$(ls -A "$M" | LC_ALL=C sort | tr '\n' ' ')" = "100-linux 200-linux 300-windows README ROCm-TheRock index.html local-linux python-deps release " ] ||
	fail "root: $(ls -A "$M" | tr '\n' ' ')"
[ "$(ls "$M/100-linux" | tr '\n' ' ')" = "README artifacts browse dist install kpack logs manifests packages python tarballs " ] ||
	fail "100-linux: $(ls "$M/100-linux" | tr '\n' ' ')"
for d in logs manifests packages/deb; do
	it_sums "$B/100-linux/$d" >"$T/want.sums"
	it_sums "$M/100-linux/$d" >"$T/got.sums"
	it_same "100-linux/$d/ as stored" "$T/want.sums" "$T/got.sums"
done
it_sums "$B/100-linux/python" >"$T/want.sums"
it_sums "$M/100-linux/python/stored" >"$T/got.sums"
it_same "100-linux/python/stored/ as stored" "$T/want.sums" "$T/got.sums"
[ ! -w "$M/100-linux/logs/build/build.log" ] || fail "a stored log is writable"
T1=therock-dist-linux-gfx110X-all-7.1.0.tar
cmp -s "$B/100-linux/tarballs/$T1.gz" "$M/100-linux/tarballs/$T1.gz" ||
	fail "tarballs/$T1.gz: not the stored bytes"
[ -f "$M/100-linux/tarballs/$T1" ] && [ -f "$M/100-linux/tarballs/$T1.zst" ] ||
	fail "tarballs/: the made tarballs of other names are missing: $(ls "$M/100-linux/tarballs" | tr '\n' ' ')"
grep -q "^$T1.gz	stored 100-linux/tarballs/$T1.gz (what rockfs makes of this name is not served)\$" \
	"$M/100-linux/tarballs/PROVENANCE" || fail "tarballs/PROVENANCE: $(cat "$M/100-linux/tarballs/PROVENANCE")"
grep -q "^$T1.zst	made by rockfs\$" "$M/100-linux/tarballs/PROVENANCE" ||
	fail "tarballs/PROVENANCE does not name the made ones"
[ "$(ls "$M/100-linux/packages" | tr '\n' ' ')" = "PROVENANCE README deb rpm " ] ||
	fail "packages/: $(ls "$M/100-linux/packages" | tr '\n' ' ')"
grep -q '^deb/	stored 100-linux/packages/deb/ ' "$M/100-linux/packages/PROVENANCE" ||
	fail "packages/PROVENANCE: $(cat "$M/100-linux/packages/PROVENANCE")"
grep -q '^  logs/  *the stored folder' "$M/100-linux/README" || fail "100-linux/README: $(cat "$M/100-linux/README")"
# the failed run
[ "$(ls "$M/200-linux" | tr '\n' ' ')" = "README artifacts browse logs " ] ||
	fail "200-linux: $(ls "$M/200-linux" | tr '\n' ' ')"
head -n 1 "$M/200-linux/README" | grep -q '^RUN 200-linux HAS NO ARTIFACTS (the build failed?); its logs are in logs/$' ||
	fail "200-linux/README: $(head -n 1 "$M/200-linux/README")"
cmp -s "$B/200-linux/logs/build/build.log" "$M/200-linux/logs/build/build.log" || fail "200-linux: its log"
# Windows
[ "$(ls "$M/300-windows" | tr '\n' ' ')" = "README artifacts browse dist install kpack python tarballs " ] ||
	fail "300-windows: $(ls "$M/300-windows" | tr '\n' ' ')"
[ -f "$M/300-windows/tarballs/therock-dist-windows-gfx1151-unversioned.tar.gz" ] ||
	fail "300-windows/tarballs: $(ls "$M/300-windows/tarballs" | tr '\n' ' ')"
cmp -s "$B/300-windows/python/$WHL" "$M/300-windows/python/files/$WHL" || fail "300-windows: the stored wheel"
[ "$(ls "$M/300-windows/python/files" | grep -c '\.whl$')" = 1 ] ||
	fail "300-windows: wheels made for a Windows run: $(ls "$M/300-windows/python/files" | tr '\n' ' ')"
grep -q 'no native packages for Windows' "$M/300-windows/README" || fail "300-windows/README"
# other prefixes
[ "$(ls "$M/local-linux/browse")" = core_lib_generic ] || fail "local-linux is not a run"
[ "$(ls "$M/ROCm-TheRock" | tr '\n' ' ')" = "400-linux release " ] || fail "ROCm-TheRock/: $(ls "$M/ROCm-TheRock" | tr '\n' ' ')"
it_sums "$B/python-deps" >"$T/want.sums"
it_sums "$M/python-deps" >"$T/got.sums"
it_same "python-deps/ as stored" "$T/want.sums" "$T/got.sums"
cmp -s "$B/index.html" "$M/index.html" || fail "index.html at the root"
collect "$M" >"$T/local.view" || fail "collect (local)"

# ---- rockpack ----
"$ROCKPACK" --cache "$T/cache-rp" ls "$B" >"$T/ls.out" || fail "rockpack ls"
awk 'NR > 1 { print $1 }' "$T/ls.out" | LC_ALL=C sort | tr '\n' ' ' >"$T/ls.runs"
[ "$(cat "$T/ls.runs")" = "100-linux 200-linux 300-windows ROCm-TheRock/400-linux local-linux " ] ||
	fail "rockpack ls: $(cat "$T/ls.out")"
"$ROCKPACK" --cache "$T/cache-rp" export "$B" 100-linux logs -o "$T/ex-logs" >/dev/null 2>&1 ||
	fail "rockpack export logs"
it_sums "$B/100-linux/logs" >"$T/want.sums"
it_sums "$T/ex-logs" >"$T/got.sums"
it_same "rockpack export 100-linux logs" "$T/want.sums" "$T/got.sums"
"$ROCKPACK" --cache "$T/cache-rp" export "$B" 100-linux "tarballs/$T1.gz" -o "$T/ex-tar" >/dev/null 2>&1 ||
	fail "rockpack export tarballs/$T1.gz"
cmp -s "$B/100-linux/tarballs/$T1.gz" "$T/ex-tar/$T1.gz" || fail "rockpack export: not the stored tarball"

# ---- the failed run mounted directly ----
it_mount failed "$B/200-linux" "$T/failed" "$T/cache-failed"
head -n 1 "$T/failed/README" | grep -q '^RUN 200-linux HAS NO ARTIFACTS' || fail "failed run at the root: $(head -n 3 "$T/failed/README")"
! grep -q 'EMPTY' "$T/failed/README" || fail "failed run at the root: the README says the store is empty"
cmp -s "$B/200-linux/logs/build/build.log" "$T/failed/logs/build/build.log" || fail "failed run at the root: its log"
it_umount failed
grep -q "^rockfs: warning: run '200-linux' has no artifacts (the build failed?); its logs are in logs/\$" "${IT_LOG[failed]}" ||
	fail "failed run at the root: no log line"
grep -q 'holds no runs' "${IT_LOG[failed]}" && fail "failed run at the root: 'holds no runs'"

# ---- s3rver ----
if command -v node >/dev/null && command -v npm >/dev/null; then
	rt_need_s3rver
	rt_s3rver srv "$B" therock-ci-artifacts
	it_mount s3 "s3://therock-ci-artifacts" "$T/s3" "$T/cache-s3" -o "endpoint=http://127.0.0.1:$RT_PORT,run_final_age=0"
	collect "$T/s3" >"$T/s3.view" || fail "collect (s3)"
	it_same "s3 vs local: listings and stored bytes" "$T/local.view" "$T/s3.view"
	it_umount s3
else
	fail "node and npm are needed for the s3rver half (packaging/install-deps.sh)"
fi

# ---- HTTP: nginx autoindex (index.html files are plain files here) ----
P=$(rt_free_port)
rt_nginx ngweb "
	server {
		listen 127.0.0.1:$P;
		location /bucket/ { alias $B/; autoindex on; index none.html; }
	}"
rt_wait_http "http://127.0.0.1:$P/bucket/"
it_mount web "http://127.0.0.1:$P/bucket/" "$T/web" "$T/cache-web"
collect "$T/web" >"$T/web.view" || fail "collect (http)"
it_same "http vs local: listings and stored bytes" "$T/local.view" "$T/web.view"
it_umount web
it_umount local
it_quiet_log local
it_finish
